"""The floor of hand-written conformance tests (issue 28, item 2): every construct and
policy of every language with case files has at least ten tests whose expected matches
were computed by hand, so the floor cannot erode.

The count is :mod:`kleene.conformance.coverage` (``python -m kleene.conformance.coverage
--hand-written`` prints the table): a test of a hand-written file (every file but the
``*-generated.json`` ones) counts for every feature label its query needs, as the
runner decides which backend may run it. ``MATCH_RECOGNIZE``'s hand-written tests are
the records of Kleene's own sqllogictest file, each counting for the constructs of its
statement.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from kleene.conformance.cases import case_file, load_case_files
from kleene.conformance.coverage import (
    HAND_WRITTEN_FLOOR,
    NOT_EXPRESSIBLE,
    hand_written,
    hand_written_markdown,
    records_tally,
    tally,
    thin,
)
from kleene.conformance.sqllogictest import KLEENE_FILES
from kleene.conformance.sqllogictest.reader import Query, Statement, read_file
from kleene.conformance.sqllogictest.runner import holds_recognition
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
    assert set(hand_written(FILES, ())) == with_cases
    # MATCH_RECOGNIZE, the language answering tables, by its sqllogictest records
    assert set(hand_written(FILES)) == with_cases | {"match_recognize"}


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
    n, single = hand_written([hand, drawn], ())["ses"]
    assert n == 3
    assert {k: v for k, v in single.items() if v} == {
        "any": 2, "next": 1, "group-variables": 3, "prev": 3, "window-strict": 1}
    assert single["contiguous"] == 0
    below = thin([hand, drawn], ())
    assert ("ses", "contiguous", 0) in below and ("ses", "prev", 3) in below
    assert len(below) == len(LANGUAGES["ses"].feature_labels())


def test_the_table_lists_every_label_with_its_kind_and_marks_the_exempt_ones() -> None:
    table = hand_written_markdown(FILES).splitlines()
    for name in ("ses", "operator", "sremo", "wayeb", "match_recognize"):
        lang = LANGUAGES[name]
        for label in lang.feature_labels():
            rows = [r for r in table if r.startswith(f"| {name} | {label} | ")]
            assert len(rows) == 1, (name, label)
            assert f"| {lang.feature_kind(label)} |" in rows[0]
    assert any(r.startswith("| wayeb | intersection | construct | 0 (not expressible: ")
               for r in table)
    assert not any("(below 10)" in r for r in table)


def test_kleenes_match_recognize_file_has_150_queries_each_with_its_reasoning() -> None:
    """Issue 26 item 5: at least 150 hand-computed queries; each record holding
    ``MATCH_RECOGNIZE`` says above it, in a comment, how its expectation follows."""
    queries = 0
    for path in sorted(KLEENE_FILES.glob("*.test")):
        lines = path.read_text(encoding="utf-8").splitlines()
        for record in read_file(path):
            if isinstance(record, Statement | Query) and holds_recognition(record.sql):
                queries += isinstance(record, Query)
                before = lines[record.line - 2] if record.line >= 2 else ""
                assert before.startswith("# "), \
                    f"{path.name}:{record.line}: no comment saying how it was computed"
    assert queries >= 150


_SMALL = """statement ok
CREATE TABLE t (g VARCHAR, ts INTEGER, v INTEGER);

# a plain query: not a recognition, not counted
query I
SELECT COUNT(*) FROM t
----
0

# partition-by, measures, aggregate, quantifier, empty-match (A*)
query TI
SELECT * FROM t MATCH_RECOGNIZE (PARTITION BY g ORDER BY ts MEASURES COUNT(*) AS n
  PATTERN (A*) DEFINE A AS v > 0)
----

# measures, navigation, navigation-offset, quantifier, grouping, skip-to-next-row
query I
SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES PREV(v, 2) AS p
  AFTER MATCH SKIP TO NEXT ROW PATTERN ((A B)+) DEFINE B AS v > 0)
----

# rejected by the parser (a DEFINE of no pattern variable): the policy only
statement error
SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts PATTERN (A) DEFINE C AS v > 0)
"""


def test_the_count_of_sqllogictest_records_computed_by_hand(tmp_path: Path) -> None:
    path = tmp_path / "small.test"
    path.write_text(_SMALL, encoding="utf-8")
    n, single = records_tally([path])
    # By hand (the comments above each record): three records hold MATCH_RECOGNIZE
    assert n == 3
    assert dict(single) == {
        "match_recognize": 3, "partition-by": 1, "measures": 2, "aggregate": 1,
        "quantifier": 2, "empty-match": 1, "navigation": 1, "navigation-offset": 1,
        "grouping": 1, "skip-to-next-row": 1}
    below = {label for language, label, _ in thin([], [path])}
    assert "permute" in below and "measures" in below
    assert {language for language, _, _ in thin([], [path])} == {"match_recognize"}
    table = hand_written_markdown([], [path])
    assert "| match_recognize | grouping | construct | 1 (below 10) |" in table
    assert re.search(r"\| match_recognize \| \(all\) \| \| 3 \|", table)
