"""The operator-pattern conformance cases (``conformance/cases/op-*.json``) are
valid case files and hold for the operator reference.

Their expected matches were computed by hand (see each case's ``comment``);
this runs them through :func:`kleene.reference.operators.policies.run_text`
directly and through the language registry the conformance runner uses.
"""

from __future__ import annotations

import json

import pytest

from kleene.conformance.cases import (
    Case,
    CaseTest,
    case_directory,
    case_file,
    case_id,
    computed_matches,
    iter_tests,
    run_case,
)
from kleene.conformance.validation import problems
from kleene.reference.events import Stream
from kleene.reference.match import Match
from kleene.reference.operators.policies import run_text

NAMES = sorted(p.name for p in case_directory().iterdir() if p.name.startswith("op-"))
FILES = [case_file(n, json.loads((case_directory() / n).read_text())) for n in NAMES]
TESTS = list(iter_tests(FILES))


def test_the_required_constructs_have_case_files():
    assert {"op-sequence.json", "op-kleene.json", "op-negation.json", "op-disjunction.json",
            "op-aggregates.json"} <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_case_files_are_valid(name: str) -> None:
    assert problems(name, json.loads((case_directory() / name).read_text())) == []


def _reference(text: str, s: Stream, policy: str) -> set[Match]:
    return run_text(text, s, policy)


@pytest.mark.parametrize(("case", "test"), TESTS, ids=[case_id(c, t) for c, t in TESTS])
def test_cases_hold(case: Case, test: CaseTest) -> None:
    for e in test.expectations():  # one per window reading the test pins
        if e.error is not None:
            continue
        if e.reading == "inclusive":
            assert computed_matches(case, test, _reference) == e.matches
        else:
            assert computed_matches(case, test, reading=e.reading) == e.matches
    run_case(case, test)  # the same through the registry (kleene.reference.languages)
