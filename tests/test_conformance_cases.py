"""The conformance case files run against the reference, and the suite's own
loader, schema and sanity checks (after JSON-Schema-Test-Suite's test of itself).

The expected match sets live in ``conformance/cases/*.json``; each was computed
by hand from the seeds' definitions (the reasoning is in the files' ``comment``
fields and in ``docs/semantics.md``), not copied from the reference.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import pytest

from kleene.conformance import cases
from kleene.conformance.cases import (
    Case,
    CaseError,
    CaseFailure,
    CaseTest,
    UnknownLanguage,
    UnsupportedCheck,
    case_directory,
    case_file,
    case_id,
    iter_tests,
    load_case_files,
    load_optional_case_files,
    run_case,
)
from kleene.conformance.validation import problems

ROOT = Path(__file__).resolve().parents[1]


def _load() -> tuple[list[cases.CaseFile], CaseError | None]:
    try:
        return load_case_files(), None
    except CaseError as err:  # reported by test_every_case_file_is_valid
        return [], err


FILES, LOAD_ERROR = _load()
TESTS = list(iter_tests(FILES))
OPTIONAL = list(iter_tests(load_optional_case_files()))


@pytest.mark.parametrize(("case", "test"), TESTS, ids=[case_id(c, t) for c, t in TESTS])
def test_case(case: Case, test: CaseTest) -> None:
    __tracebackhide__ = True
    run_case(case, test)


def test_every_case_file_is_valid() -> None:
    assert LOAD_ERROR is None, str(LOAD_ERROR)
    names = {f.name for f in FILES}
    assert {"ses-q1.json", "ses-p1.json"} <= names


def test_cases_load_through_importlib_resources() -> None:
    # The packaged directory is the source directory here, but it is reached
    # through importlib.resources, which is how an installed suite finds it.
    packaged = sorted(e.name for e in case_directory().iterdir() if e.name.endswith(".json"))
    on_disk = sorted(p.name for p in (ROOT / "conformance" / "cases").glob("*.json"))
    assert packaged == on_disk
    assert [f.name for f in load_case_files(ROOT / "conformance" / "cases")] == on_disk


def test_every_errata_anchor_exists() -> None:
    text = (ROOT / "docs" / "errata.md").read_text(encoding="utf-8")
    anchors = set(re.findall(r'<a id="([a-z0-9-]+)"', text))
    cited = {a for _, t in TESTS for a in t.errata}
    assert cited, "the SES cases cite errata entries"
    missing = sorted(a for a in cited if a.removeprefix("docs/errata.md#") not in anchors)
    assert missing == []


def test_the_semantics_guide_links_existing_errata() -> None:
    errata = (ROOT / "docs" / "errata.md").read_text(encoding="utf-8")
    guide = (ROOT / "docs" / "semantics.md").read_text(encoding="utf-8")
    anchors = set(re.findall(r'<a id="([a-z0-9-]+)"', errata))
    linked = set(re.findall(r"\(errata\.md#([a-z0-9-]+)\)", guide))
    assert linked, "the guide links its errata"
    assert sorted(linked - anchors) == []


def test_errata_anchors_are_unique() -> None:
    # Several authors append to docs/errata.md; one anchor must name one entry.
    text = (ROOT / "docs" / "errata.md").read_text(encoding="utf-8")
    anchors = re.findall(r'<a id="([a-z0-9-]+)"', text)
    assert sorted(a for a in set(anchors) if anchors.count(a) > 1) == []


def test_ids_are_readable_and_unique() -> None:
    ids = [case_id(c, t) for c, t in TESTS]
    assert len(set(ids)) == len(ids)
    assert "ses-q1/q1-on-fig-1/any-admits-17-substitutions-3-for-patient-1-and-14-for-patient-2" \
        in ids

# ---------------------------------------------------------------- sanity checks can fail


def _valid() -> dict[str, Any]:
    return {
        "language": "ses",
        "description": "a tiny file",
        "cases": [{
            "description": "one A then one B",
            "specification": [{"seed": "000", "section": "Def. 2"}],
            "pattern": "PATTERN <{a}, {b}> WHERE a.L = 'A' AND b.L = 'B' WITHIN 5",
            "events": [{"ts": 0, "L": "A"}, {"ts": 1, "L": "B"}],
            "tests": [{"description": "any matches once", "policy": "any",
                       "matches": [{"a": [0], "b": [1]}]}],
        }],
    }


def test_the_valid_document_has_no_problems() -> None:
    assert problems("ses-tiny.json", _valid()) == []


def _broken(edit: str) -> dict[str, Any]:
    doc = copy.deepcopy(_valid())
    case, test = doc["cases"][0], doc["cases"][0]["tests"][0]
    if edit == "duplicate test description":
        case["tests"].append(copy.deepcopy(test))
    elif edit == "should":
        test["description"] = "any should match once"
    elif edit == "no citation":
        case["specification"] = []
    elif edit == "citation without section":
        case["specification"] = [{"seed": "000"}]
    elif edit == "position past the end":
        test["matches"] = [{"a": [0], "b": [2]}]
    elif edit == "positions out of order":
        test["matches"] = [{"a": [1, 0], "b": [1]}]
    elif edit == "match listed twice":
        test["matches"] = [{"a": [0], "b": [1]}, {"b": [1], "a": [0]}]
    elif edit == "no events anywhere":
        del case["events"]
    elif edit == "unsorted events":
        case["events"] = [{"ts": 1, "L": "A"}, {"ts": 0, "L": "B"}]
    elif edit == "matches test without matches":
        del test["matches"]
    elif edit == "unknown field on a matches test":
        test["expected"] = []
    elif edit == "unknown language":
        doc["language"] = "klingon"
    elif edit == "matches and an error":
        test["error"] = "syntax"
    elif edit == "readings equal":
        del test["matches"]
        test["readings"] = {"inclusive": [{"a": [0], "b": [1]}],
                            "strict": [{"a": [0], "b": [1]}]}
    elif edit == "readings and a reading":
        del test["matches"]
        test["reading"] = "strict"
        test["readings"] = {"inclusive": [{"a": [0], "b": [1]}], "strict": []}
    elif edit == "match listed twice under a reading":
        del test["matches"]
        test["readings"] = {"inclusive": [{"a": [0], "b": [1]}, {"b": [1], "a": [0]}],
                            "strict": []}
    elif edit == "pruning check in an engine-facing file":
        case["tests"] = [{"description": "the window is a candidate",
                          "check": "candidate_window", "window": [0, 1], "expected": True}]
    return doc


@pytest.mark.parametrize("edit", [
    "duplicate test description", "should", "no citation", "citation without section",
    "position past the end", "positions out of order", "match listed twice",
    "no events anywhere", "unsorted events", "matches test without matches",
    "unknown field on a matches test", "unknown language", "matches and an error",
    "readings equal", "readings and a reading", "pruning check in an engine-facing file",
    "match listed twice under a reading",
])
def test_sanity_checks_reject(edit: str) -> None:
    assert problems("ses-tiny.json", _broken(edit)) != []


def test_file_name_must_carry_the_language() -> None:
    assert problems("q1.json", _valid()) != []


def test_other_check_kinds_carry_their_own_fields() -> None:
    # ... in cases/optional/ (JSON-Schema-Test-Suite's optional/): engines never see them
    doc = _valid()
    doc["cases"][0]["tests"] = [{"description": "the window is a candidate",
                                 "check": "candidate_window", "window": [0, 1], "expected": True}]
    assert problems("ses-tiny.json", doc, optional=True) == []


def test_engine_facing_files_hold_no_pruning_checks_and_optional_ones_do() -> None:
    assert all(t.check == "matches" for _, t in TESTS)
    optional = load_optional_case_files()
    assert [f.name for f in optional] == ["ses-match-windows.json", "ses-partition-by.json"]
    assert all(t.check != "matches" for _, t in iter_tests(optional))
    kinds = {t.check for _, t in iter_tests(optional)}
    assert kinds == {"filter", "candidate_window", "summary_statistics", "partitions"}


@pytest.mark.parametrize(("case", "test"), OPTIONAL, ids=[case_id(c, t) for c, t in OPTIONAL])
def test_optional_case(case: Case, test: CaseTest) -> None:
    __tracebackhide__ = True
    run_case(case, test)


def test_an_error_test_compares_the_stable_code() -> None:
    doc = _valid()
    doc["cases"][0]["pattern"] = "PATTERN <{a}, {b} WITHIN 5"
    doc["cases"][0]["tests"] = [{"description": "no closing bracket", "error": "pattern"}]
    case, test = _one(doc)
    with pytest.raises(CaseFailure, match="expected error 'pattern'.*raised 'syntax'"):
        run_case(case, test)
    doc["cases"][0]["tests"][0]["error"] = "syntax"
    case, test = _one(doc)
    run_case(case, test)


def test_a_test_with_both_readings_is_checked_under_each() -> None:
    doc = _valid()
    doc["cases"][0]["pattern"] = "PATTERN <{a}, {b}> WHERE a.L = 'A' AND b.L = 'B' WITHIN 1"
    doc["cases"][0]["events"] = [{"ts": 0, "L": "A"}, {"ts": 0, "L": "B"}, {"ts": 1, "L": "B"}]
    test: dict[str, Any] = {"description": "B at the edge", "readings": {
        "inclusive": [{"a": [0], "b": [2]}], "strict": []}}
    doc["cases"][0]["tests"] = [test]
    run_case(*_one(doc))   # the tied B never follows A; the B at 1 is inside <= 1 only
    test["readings"]["strict"] = [{"a": [0], "b": [1]}]
    with pytest.raises(CaseFailure, match="window strict"):
        run_case(*_one(doc))


def test_an_invalid_file_fails_to_load() -> None:
    with pytest.raises(CaseError, match="should"):
        case_file("ses-tiny.json", _broken("should"))

# ---------------------------------------------------------------- the runner can fail


def _one(doc: dict[str, Any], *, optional: bool = False) -> tuple[Case, CaseTest]:
    f = case_file("ses-tiny.json", doc, optional=optional)
    return f.cases[0], f.cases[0].tests[0]


def test_a_wrong_expectation_fails_with_a_reproduction() -> None:
    doc = _valid()
    doc["cases"][0]["tests"][0]["matches"] = [{"a": [1], "b": [0]}]
    case, test = _one(doc)
    with pytest.raises(CaseFailure) as err:
        run_case(case, test)
    message = str(err.value)
    assert "PATTERN <{a}, {b}>" in message
    assert 'missing (expected, not computed):\n  {"a": [1], "b": [0]}' in message
    assert 'extra (computed, not expected):\n  {"a": [0], "b": [1]}' in message


def test_an_unknown_language_is_an_error_not_a_skip() -> None:
    case, test = _one(_valid())
    stranger = dataclasses.replace(case, language="klingon")
    with pytest.raises(UnknownLanguage, match="klingon"):
        run_case(stranger, test)


def test_an_unwired_check_kind_is_an_error_not_a_skip(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cases, "CHECKS", {})
    doc = _valid()
    doc["cases"][0]["tests"] = [{"description": "statistics", "check": "summary_statistics",
                                 "counters": {"a": 1, "b": 1}}]
    case, test = _one(doc, optional=True)
    with pytest.raises(UnsupportedCheck, match="summary_statistics"):
        run_case(case, test)


def test_a_plugged_in_language_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    # A registered language is what the runner uses; it compares its result as a set.
    doc = _valid()
    broken = dataclasses.replace(cases.LANGUAGES["ses"], matches=lambda p, s, policy, b, r: set())
    monkeypatch.setitem(cases.LANGUAGES, "ses", broken)
    case, test = _one(doc)
    with pytest.raises(CaseFailure, match="missing"):
        run_case(case, test)


def test_case_files_are_plain_json() -> None:
    # An engine in another language reads the same files: no comments, UTF-8.
    for path in (ROOT / "conformance" / "cases").glob("*.json"):
        json.loads(path.read_text(encoding="utf-8"))


def test_a_wrong_pruning_expectation_fails() -> None:
    # The pruning checkers compare: an altered expectation is reported, not passed.
    for case, test in OPTIONAL:
        if test.check == "filter":
            data = dict(test.data, passes=[*test.data["passes"], 10_000])
            with pytest.raises(CaseFailure, match="passes"):
                run_case(case, dataclasses.replace(test, data=data))
            return
    pytest.fail("no filter check in the case files")
