"""The floor of hand-written conformance tests (issue 28, item 2): every construct and
policy of every language with case files has at least ten tests whose expected matches
were computed by hand, so the floor cannot erode.

The count is :mod:`kleene.conformance.coverage` (``python -m kleene.conformance.coverage
--hand-written`` prints the table): a test of a hand-written file (every file but the
``*-generated.json`` ones) counts for every feature label its query needs, as the
runner decides which backend may run it.
"""

from __future__ import annotations

from typing import Any

from kleene.conformance.cases import case_file, load_case_files
from kleene.conformance.coverage import (
    HAND_WRITTEN_FLOOR,
    NOT_EXPRESSIBLE,
    hand_written,
    hand_written_markdown,
    tally,
    thin,
)
from kleene.reference.languages import LANGUAGES

FILES = load_case_files()


def test_every_feature_label_has_ten_hand_written_tests() -> None:
    assert HAND_WRITTEN_FLOOR == 10
    below = thin(FILES)
    assert below == [], "feature labels below the floor of hand-written tests: " + ", ".join(
        f"{language}:{label} ({k})" for language, label, k in below)


def test_every_language_with_case_files_has_hand_written_cases() -> None:
    with_cases = {name for name in LANGUAGES if LANGUAGES[name].case_prefixes}
    assert with_cases == {"ses", "operator", "sremo", "wayeb"}
    assert set(hand_written(FILES)) == with_cases


def test_a_label_exempt_as_not_expressible_is_needed_by_no_test() -> None:
    counts = tally(FILES)   # every engine-facing file, generated ones included
    for (language, label), why in NOT_EXPRESSIBLE.items():
        assert why
        assert label in LANGUAGES[language].feature_labels()
        assert counts[language][1][label] == 0, (language, label)


def _file(name: str, tests: list[dict[str, Any]]) -> Any:
    return case_file(name, {
        "language": "ses", "description": "a small file for the count",
        "cases": [{
            "description": "a B after an A, rising V",
            "specification": [{"seed": "000", "section": "Def. 2"}],
            "pattern": "PATTERN <{a}, {b+}> WHERE a.L = 'A' AND b.L = 'B' "
                       "AND prev(b.V) < b.V WITHIN 5",
            "events": [{"ts": 0, "L": "A"}, {"ts": 1, "L": "B", "V": 1},
                       {"ts": 5, "L": "B", "V": 2}],
            "tests": tests}]})


def test_the_count_on_small_files_computed_by_hand() -> None:
    both = {"a": [0], "b": [1, 2]}
    hand = _file("ses-small.json", [
        {"description": "next: the run takes both Bs", "policy": "next", "matches": [both]},
        {"description": "any: three inclusive, one strict", "policy": "any",
         "readings": {"inclusive": [{"a": [0], "b": [1]}, {"a": [0], "b": [2]}, both],
                      "strict": [{"a": [0], "b": [1]}]}},
        {"description": "an error test counts as well", "policy": "any", "error": "syntax"}])
    drawn = _file("ses-generated.json", [
        {"description": "contiguous: both Bs", "policy": "contiguous", "matches": [both]}])
    # By hand: 3 hand-written tests (the generated file does not count); the pattern
    # needs group-variables and prev in each; any twice (the error test keeps its policy),
    # next once; the strict reading once.
    n, single = hand_written([hand, drawn])["ses"]
    assert n == 3
    assert {k: v for k, v in single.items() if v} == {
        "any": 2, "next": 1, "group-variables": 3, "prev": 3, "window-strict": 1}
    assert single["contiguous"] == 0
    below = thin([hand, drawn])
    assert ("ses", "contiguous", 0) in below and ("ses", "prev", 3) in below
    assert len(below) == len(LANGUAGES["ses"].feature_labels())


def test_the_table_lists_every_label_with_its_kind_and_marks_the_exempt_ones() -> None:
    table = hand_written_markdown(FILES).splitlines()
    for name in ("ses", "operator", "sremo", "wayeb"):
        lang = LANGUAGES[name]
        for label in lang.feature_labels():
            rows = [r for r in table if r.startswith(f"| {name} | {label} | ")]
            assert len(rows) == 1, (name, label)
            assert f"| {lang.feature_kind(label)} |" in rows[0]
    assert any(r.startswith("| wayeb | intersection | construct | 0 (not expressible: ")
               for r in table)
    assert not any("(below 10)" in r for r in table)
