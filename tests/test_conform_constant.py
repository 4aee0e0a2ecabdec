"""The corpus's pass signal (issue 28): constant backends fail nearly every test.

Two backends claim every feature of every language and ignore the query
(``conformance/examples/constant_backend.py``): one answers no match, one every
binding of the pattern's variables to disjoint sets of positions. Each runs
through the real ``kleene conform`` over every case file, hand-written and
generated, and must fail at least 90 % of the tests that reach it.
"""

from __future__ import annotations

import re
import sys

import pytest

from kleene.cli import main
from kleene.conformance.backends import find_backend
from kleene.conformance.cases import iter_tests, load_case_files
from kleene.conformance.examples.constant_backend import CAP, every_subset
from kleene.conformance.wire import Request
from kleene.reference.match import Match

PY = sys.executable
MODULE = "kleene.conformance.examples.constant_backend"
SUMMARY = re.compile(r"^(\d+) passed, (\d+) failed, (\d+) skipped \((\d+) tests", re.M)


def conform(spec: str, capsys: pytest.CaptureFixture[str], *options: str) -> tuple[int, int]:
    """``(passed, failed)`` of ``kleene conform --backend spec -q``, from its summary."""
    assert main(["conform", "--backend", spec, "-q", *options]) == 1
    found = SUMMARY.search(capsys.readouterr().out)
    assert found, "no summary line"
    passed, failed, skipped, total = map(int, found.groups())
    assert skipped == 0 and passed + failed == total   # it claims every feature
    return passed, failed


@pytest.mark.parametrize("spec", [f"cmd:{PY} -m {MODULE} --answer empty",
                                  f"{MODULE}:all_subsets"], ids=["empty", "all-subsets"])
def test_a_constant_backend_fails_nine_tests_in_ten(
        spec: str, capsys: pytest.CaptureFixture[str]) -> None:
    passed, failed = conform(spec, capsys)
    reached = passed + failed
    assert reached > 0 and failed >= 0.9 * reached, (
        f"{spec} failed {failed} of the {reached} tests that reached it "
        f"({failed / max(reached, 1):.1%}); it passed {passed}")


def test_the_cap_on_an_all_subsets_answer_decides_no_verdict() -> None:
    # An answer cut at CAP matches still holds more than any test expects, so it fails
    # exactly where the whole answer would.
    largest = max(len(e.matches or ()) for _, t in iter_tests(load_case_files())
                  if t.check == "matches" for e in t.expectations())
    assert largest < CAP


def request(language: str, pattern: str, n: int) -> Request:
    events = tuple({"ts": i, "type": "A"} for i in range(n))
    return Request(language, pattern, "any", "inclusive", None, events)


def test_all_subsets_binds_every_variable_to_disjoint_positions() -> None:
    # 3 events: 7 non-empty subsets as SREMO's marked positions;
    # <{a}, {b+}>: a on one of 3 events, b on a non-empty subset of the other 2: 3 * 3.
    marked = every_subset(request("sremo", "mark {TRUE}", 3))
    assert set(marked) == {Match.marked(s) for s in
                           [(0,), (1,), (2,), (0, 1), (0, 2), (1, 2), (0, 1, 2)]}
    ses = set(every_subset(request("ses", "PATTERN <{a}, {b+}> WITHIN 5", 3)))
    assert len(ses) == 9 and Match.of({"a": [1], "b": [0, 2]}) in ses
    op = set(every_subset(request("operator", "PATTERN SEQ(A a, B+ b[]) WITHIN 5", 3)))
    assert op == ses
    negated = every_subset(request("operator", "PATTERN SEQ(A a, NOT(B n), C c) WITHIN 5", 2))
    assert set(negated) == {Match.of({"a": [0], "c": [1]}), Match.of({"a": [1], "c": [0]})}


def test_all_subsets_is_capped_and_answers_no_match_to_a_pattern_it_cannot_read() -> None:
    assert len(every_subset(request("sremo", "mark {TRUE}", 13))) == CAP
    assert every_subset(request("ses", "PATTERN <{a}", 3)) == ()


def test_the_external_command_answers_as_the_plug_in() -> None:
    requests = [request("sremo", "mark {TRUE}", 4),
                request("ses", "PATTERN <{a, b}, {c+}> WITHIN 5", 5),
                request("operator", "PATTERN SEQ(A a, B b", 2)]
    plug_in = find_backend(f"{MODULE}:all_subsets")
    command = find_backend(f"cmd:{PY} -m {MODULE} --answer all-subsets")
    try:
        for r in requests:
            assert command.run(r).matches == plug_in.run(r).matches == every_subset(r)
    finally:
        command.close()
