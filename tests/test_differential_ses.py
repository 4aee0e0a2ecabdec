"""Differential tests: every SES engine against the reference (docs/architecture.md, "Engines").

One test per (engine, policy) pair an engine claims: the engine's matches equal
the reference's, as a set, with no duplicates. Engines that are kept as
paper-faithful variants, and not claimed equal to any policy, are checked
against the relation their docstrings state (docs/errata.md, seed 000).
Examples per test come from tests/conftest.py's profile (KLEENE_EXAMPLES).
"""

from __future__ import annotations

import pytest
from hypothesis import given, reject

from kleene.conformance.differential import (
    assert_matches_between,
    assert_same_matches,
    budget,
    check_engine,
    reference_or_reject,
    reported_matches,
)
from kleene.engines.protocol import Feature, claims_policy
from kleene.engines.registry import engine, engine_names
from kleene.reference.errors import BudgetExceeded
from kleene.reference.events import Stream
from kleene.reference.ses.matching import window_of
from kleene.reference.ses.policies import POLICIES
from tests.helpers import (
    SES_LIKE_PATTERNS,
    SES_PATTERNS,
    SES_STEPS,
    SES_STREAMS,
    ses_reference,
)

#: The SES engines (the match-window engines have their own differential tests,
#: tests/test_engines_windows_differential.py, which run every configuration).
CLAIMED = [(name, policy) for name in engine_names() for policy in POLICIES
           if name.startswith("ses-") and claims_policy(engine(name), "ses", policy)]


def test_every_ses_policy_has_an_engine():
    # The SES engines claim both policies that seed 000 Sec. 4 can compute.
    assert {policy for _, policy in CLAIMED} >= {"next", "any"}


@pytest.mark.parametrize(("name", "policy"), CLAIMED, ids=[f"{n}-{p}" for n, p in CLAIMED])
@given(pattern=SES_PATTERNS, stream=SES_STREAMS)
def test_engine_equals_the_reference(name, policy, pattern, stream):
    try:
        check_engine(engine(name), policy, pattern, stream, budget=budget(SES_STEPS))
    except BudgetExceeded:
        reject()


@pytest.mark.parametrize(("name", "policy"), CLAIMED, ids=[f"{n}-{p}" for n, p in CLAIMED])
@given(pattern=SES_LIKE_PATTERNS, stream=SES_STREAMS)
def test_engine_equals_the_reference_with_like_properties(name, policy, pattern, stream):
    try:
        check_engine(engine(name), policy, pattern, stream, budget=budget(SES_STEPS))
    except BudgetExceeded:
        reject()


@given(pattern=SES_PATTERNS, stream=SES_STREAMS)
def test_faithful_reports_exactly_the_next_matches_that_expire(pattern, stream):
    # Seed 000 Alg. 1 reports a buffer only when an event more than τ after its
    # first event arrives; every other `next` match is lost (docs/errata.md).
    faithful = engine("ses-automaton-faithful")
    tau = window_of(pattern, stream)
    last = stream[-1].ts
    expected = {m for m in ses_reference(pattern, stream, "next")
                if last - stream[m.first].ts > tau}
    assert_same_matches(faithful, pattern=pattern, stream=stream, policy="next",
                        got=reported_matches(faithful, "next", pattern, stream), expected=expected)


@given(pattern=SES_PATTERNS, stream=SES_STREAMS)
def test_paper_filter_changes_next_only_without_properties(pattern, stream):
    # Sec. 4.5's filter keeps an event satisfying any property; when every
    # variable has a property it drops only events no transition can take.
    # Otherwise runs skip events they would have taken: matches are lost and
    # others appear, all still in Γ (docs/errata.md).
    paper = engine("ses-automaton-paper-filter")
    got = reported_matches(paper, "next", pattern, stream)
    if all(pattern.properties(v) for v in pattern.names):
        assert_same_matches(paper, pattern=pattern, stream=stream, policy="next", got=got,
                            expected=ses_reference(pattern, stream, "next"))
    else:
        assert_matches_between(paper, pattern=pattern, stream=stream, policy="next", got=got,
                               at_least=set(), at_most=ses_reference(pattern, stream, "any"))


@given(pattern=SES_PATTERNS, stream=SES_STREAMS)
def test_bruteforce_next_lies_between_next_and_any(pattern, stream):
    # Sec. 5.2 with skip-till-next-match per ordering: a superset of `next`
    # (module docstring of kleene.engines.ses.bruteforce), inside Γ.
    bf = engine("ses-bruteforce")
    assert_matches_between(bf, pattern=pattern, stream=stream, policy="next",
                           got=reported_matches(bf, "next", pattern, stream),
                           at_least=ses_reference(pattern, stream, "next"),
                           at_most=ses_reference(pattern, stream, "any"))


@given(pattern=SES_PATTERNS, stream=SES_STREAMS)
def test_paper_bruteforce_reports_only_matches(pattern, stream):
    # The paper's orderings of singleton sets give substitutions that satisfy
    # conditions 1-3 (Γ), never one twice; what they miss is in docs/errata.md.
    bf = engine("ses-bruteforce-paper")
    assert_matches_between(bf, pattern=pattern, stream=stream, policy="next",
                           got=reported_matches(bf, "next", pattern, stream),
                           at_least=set(), at_most=ses_reference(pattern, stream, "any"))


STRICT = [(name, policy) for name, policy in CLAIMED
          if Feature("ses", "window-strict") in engine(name).capabilities]


@pytest.mark.parametrize(("name", "policy"), STRICT, ids=[f"{n}-{p}" for n, p in STRICT])
@given(pattern=SES_PATTERNS, stream=SES_STREAMS)
def test_engine_equals_the_reference_under_the_strict_window(name, policy, pattern, stream):
    # max ts − min ts < τ (the peers' reading, docs/semantics.md "Windows")
    expected = reference_or_reject(pattern, stream, policy, steps=SES_STEPS, reading="strict")
    eng = engine(name)
    got = reported_matches(eng, policy, pattern, stream, reading="strict")
    assert_same_matches(eng, pattern=pattern, stream=stream, policy=policy, got=got,
                        expected=expected)


def test_a_reproduction_is_python_that_reruns_the_comparison():
    from kleene.conformance.differential import reproduction
    from kleene.reference.ses.text import parse_ses

    pattern = parse_ses("PATTERN <{a}, {b}> WHERE a.L = 'A' AND b.L = 'B' WITHIN 10")
    stream = Stream.from_rows([{"ts": 0, "L": "A"}, {"ts": 1, "L": "B"}])
    namespace: dict[str, object] = {}
    # raises if the source does not run, or if the engine disagrees with the reference
    exec(reproduction(engine("windows+ses"), "any", pattern, stream), namespace)
    assert "check_engine" in namespace and "stream" in namespace
