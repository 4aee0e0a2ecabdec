"""Differential tests of the match-window engines (seed 001 Algorithm 1) against the
reference (docs/architecture.md, "Engines"; the harness of :mod:`kleene.conformance.differential`).

1. Every match-window engine that claims a policy reports exactly the reference's
   matches under it, with no duplicates; each example checks every such engine
   (the registered ones and a few configurations: A without anchoring, small
   batches), so each (engine, policy) pair sees every example of the profile
   (tests/conftest.py, ≥ 300).
2. The paper-faithful Algorithm 1 (``windows-paper+ses``, claims nothing) reports
   only matches of Γ (docs/errata.md: it loses some), checked on the same examples.
3. The policy table of :mod:`kleene.engines.windows.soundness`, checked with the
   reference itself as A (:class:`ReferenceEngine`): the framework claims a
   policy iff it computes it exactly; for the others the documented relation
   holds (behind the filter ``contiguous`` and ``partition-contiguous`` can only
   gain matches; per window, ``next-literal`` vetoes less and can only gain).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator
from dataclasses import dataclass

import pytest
from hypothesis import given, reject

from kleene.conformance import differential
from kleene.conformance.differential import (
    assert_matches_between,
    assert_same_matches,
    reference_or_reject,
    reported_matches,
)
from kleene.conformance.strategies import ses_patterns, streams
from kleene.engines.protocol import Counters, Feature, Transition, claims_policy
from kleene.engines.registry import engine, engine_names
from kleene.engines.windows.engine import WindowsEngine
from kleene.engines.windows.soundness import preserved_policies
from kleene.reference.budget import Budget
from kleene.reference.errors import BudgetExceeded
from kleene.reference.events import Event, Stream
from kleene.reference.match import Match
from kleene.reference.query import Query
from kleene.reference.ses.pattern import SESPattern
from kleene.reference.ses.policies import POLICIES, matches
from kleene.reference.ses.windows import as_stream, restore
from tests.helpers import (
    SES_LIKE_PATTERNS,
    SES_PATTERNS,
    SES_STEPS,
    SES_STREAMS,
    ses_reference,
)


def windows_engines() -> list[WindowsEngine]:
    """The registered match-window engines (one per configuration) and two more:
    A that runs every run of the SES automaton, and a batch of one event."""
    seen, out = set(), []
    for name in engine_names():
        eng = engine(name)
        if isinstance(eng, WindowsEngine) and (config := (eng.inner, eng.filtering,
                eng.partitioning, eng.conditions, eng.paper_faithful)) not in seen:
            seen.add(config)
            out.append(eng)
    return [*out, WindowsEngine("windows+ses (A runs every run)", anchored=False),
            WindowsEngine("windows+ses (batch 1)", batch=1)]


ENGINES = windows_engines()


def test_the_engines_claim_next_and_any():
    claimed = {(e.name, p) for e in ENGINES for p in POLICIES if claims_policy(e, "ses", p)}
    assert ("windows+ses", "next") in claimed and ("windows+ses", "any") in claimed
    assert ("windows+ses-bruteforce", "any") in claimed
    assert not any(name == "windows-paper+ses" for name, _ in claimed)


@pytest.mark.parametrize("policy", ["any", "next"])
@given(pattern=SES_PATTERNS, stream=SES_STREAMS)
def test_claimed_engines_equal_the_reference(policy, pattern, stream):
    expected = ses_reference(pattern, stream, policy)
    for eng in ENGINES:
        if claims_policy(eng, "ses", policy):
            assert_same_matches(eng, pattern=pattern, stream=stream, policy=policy,
                                got=reported_matches(eng, policy, pattern, stream),
                                expected=expected)
    if policy == "any":
        # The paper's Algorithm 1 (unclaimed) reports only matches of Γ: its update
        # rule and final loop lose some (docs/errata.md; `next`: tests/test_engines_windows.py).
        paper = engine("windows-paper+ses")
        assert_matches_between(paper, pattern=pattern, stream=stream, policy=policy,
                               got=reported_matches(paper, policy, pattern, stream), at_least=set(),
                               at_most=expected)


@given(pattern=SES_LIKE_PATTERNS, stream=SES_STREAMS)
def test_claimed_engines_equal_the_reference_with_like_properties(pattern, stream):
    """``LIKE`` properties: the filter and ē over columns (engines/like_columns.py)."""
    expected = ses_reference(pattern, stream, "any")
    for eng in ENGINES:
        if claims_policy(eng, "ses", "any"):
            assert_same_matches(eng, pattern=pattern, stream=stream, policy="any",
                                got=reported_matches(eng, "any", pattern, stream),
                                expected=expected)


# ---------------------------------------------------------------- the policy table


@dataclass
class CompiledReference:
    """The reference as A: the policy's matches of ``pattern`` over the events given."""

    pattern: SESPattern
    policy: str
    time_unit: str | None
    initial: frozenset[Hashable] = frozenset()
    accepting: frozenset[Hashable] = frozenset()

    def iter_transitions(self) -> Iterator[Transition]:
        return iter(())

    def run(self, events: Iterable[Event], *, counters: Counters | None = None,
            budget: Budget | None = None) -> Iterator[Match]:
        window = list(events)
        if not window:
            return
        s, origin = as_stream(window, self.time_unit)
        # each window its own search budget (the run's ``budget`` is not drawn on)
        for m in matches(self.pattern, s, self.policy, budget=differential.budget(SES_STEPS)):
            yield restore(m, origin)


@dataclass(frozen=True)
class ReferenceEngine:
    """An engine that claims every SES policy: the reference semantics, run as given."""

    name: str = "reference"
    capabilities: frozenset[Feature] = frozenset(
        {Feature("ses"), Feature("ses", "group-variables"), Feature("ses", "prev")}
        | {Feature.policy("ses", p) for p in POLICIES})

    def compile(self, query: Query) -> CompiledReference:
        assert isinstance(query.pattern, SESPattern)
        return CompiledReference(query.pattern, query.policy, query.time_unit)


FRAMEWORKS = [WindowsEngine("windows (unfiltered) + reference", ReferenceEngine(),
                            filtering=False),
              WindowsEngine("windows + reference", ReferenceEngine())]

#: Unclaimed policies: what the framework reports lies between the reference and Γ.
GAINS_ONLY = {"contiguous", "partition-contiguous", "next-literal"}


def test_the_framework_claims_what_soundness_says():
    for eng in FRAMEWORKS:
        claimed = {f.label for f in eng.capabilities if f.kind == "policy"}
        assert claimed == preserved_policies(filtering=eng.filtering)
        assert set(POLICIES) - claimed <= GAINS_ONLY


@pytest.mark.parametrize("policy", POLICIES)
@given(pattern=ses_patterns(max_sets=3, max_vars=3), stream=streams(min_size=2, max_size=7))
def test_each_policy_through_the_framework(policy, pattern, stream):
    expected, gamma = ses_reference(pattern, stream, policy), None
    for eng in FRAMEWORKS:
        try:
            got = reported_matches(eng, policy, pattern, stream)
        except BudgetExceeded:
            reject()
        if claims_policy(eng, "ses", policy):
            assert_same_matches(eng, pattern=pattern, stream=stream, policy=policy, got=got,
                                expected=expected)
        else:
            gamma = gamma if gamma is not None else ses_reference(pattern, stream, "any")
            assert_matches_between(eng, pattern=pattern, stream=stream, policy=policy,
                                   got=got, at_least=expected, at_most=gamma)


def test_per_window_next_literal_gains_a_match():
    # docs/errata.md#seed-000-condition-4-across-partitions shifted in time: WITHIN 2 on
    # A/2@0, A/1@1, B/2@2, B/1@3. Γ = {a/0, b/2}, {a/1, b/3}; b/2 vetoes {a/1, b/3} on the
    # stream, but the window of A/1 does not hold {a/0, b/2}.
    from kleene.reference.ses.text import parse_ses

    p = parse_ses("PATTERN <{a}, {b}> WHERE a.L = 'A' AND b.L = 'B' AND a.ID = b.ID "
                  "WITHIN 2")
    s = Stream.from_rows([{"ts": t, "L": label, "ID": i} for t, label, i in
                          [(0, "A", 2), (1, "A", 1), (2, "B", 2), (3, "B", 1)]])
    assert matches(p, s, "next-literal") == {Match.of({"a": [0], "b": [2]})}
    got = set(reported_matches(FRAMEWORKS[1], "next-literal", p, s))
    assert got == {Match.of({"a": [0], "b": [2]}), Match.of({"a": [1], "b": [3]})}


def test_filtered_contiguous_gains_a_match():
    # docs/errata.md#seed-001-filter-contiguous: A, X, B.
    from kleene.reference.ses.text import parse_ses

    p = parse_ses("PATTERN <{a}, {b}> WHERE a.L = 'A' AND b.L = 'B' WITHIN 5")
    s = Stream.from_rows([{"ts": t, "L": label} for t, label in [(0, "A"), (1, "X"),
                                                                   (2, "B")]])
    assert matches(p, s, "contiguous") == set()
    assert set(reported_matches(FRAMEWORKS[0], "contiguous", p, s)) == set()
    assert set(reported_matches(FRAMEWORKS[1], "contiguous", p, s)) == {
        Match.of({"a": [0], "b": [2]})}


@pytest.mark.parametrize("policy", ["any", "next"])
@given(pattern=SES_PATTERNS, stream=SES_STREAMS)
def test_claimed_engines_equal_the_reference_under_the_strict_window(policy, pattern, stream):
    # the match windows W_f of Def. 3 read with max ts − min ts < τ
    expected = reference_or_reject(pattern, stream, policy, steps=SES_STEPS, reading="strict")
    for eng in ENGINES:
        if claims_policy(eng, "ses", policy) and \
                Feature("ses", "window-strict") in eng.capabilities:
            assert_same_matches(eng, pattern=pattern, stream=stream, policy=policy,
                                got=reported_matches(eng, policy, pattern, stream,
                                                     reading="strict"),
                                expected=expected)
