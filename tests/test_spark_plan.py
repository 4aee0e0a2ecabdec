"""The cuts of the Spark runner are sound (engines/spark/plan.py), checked without Spark.

A small model of the layout (filter, Def. 6 partitions, time slices with their
reach, ownership by the first event) runs the *reference* on every piece; the
union of what the owners keep must equal the reference on the whole stream,
for every policy, every generated pattern and stream, and every choice of
slice boundaries. The counterexamples that make ``next`` unsound to partition
in general are pinned here too (docs/errata.md#seed-001-partitioning-next).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import pytest
from hypothesis import given, reject
from hypothesis import strategies as st

from kleene.conformance.strategies import ses_patterns, streams
from kleene.engines.protocol import Feature, all_features
from kleene.engines.spark.layout import boundaries, murmur3_int, owner, surrogates
from kleene.engines.spark.plan import (
    attributes_read,
    plan_for,
)
from kleene.reference.budget import Budget
from kleene.reference.conditions import Attr, Cmp, Prev, holds
from kleene.reference.errors import BudgetExceeded, PatternError
from kleene.reference.events import Stream
from kleene.reference.match import Match
from kleene.reference.ses.filtering import EVENT
from kleene.reference.ses.partitioning import partition_key
from kleene.reference.ses.policies import POLICIES, matches
from kleene.reference.ses.pruning import next_partitioning_attributes
from kleene.reference.ses.text import parse_ses
from kleene.reference.ses.windows import as_stream, restore


@dataclass(frozen=True)
class Claims:
    """An engine stub that claims every policy (``plan_for`` reads only claims)."""

    name: str = "claims-everything"
    capabilities: frozenset = all_features()


def decomposed(pattern, s: Stream, policy: str, bounds: tuple[int, ...]) -> set[Match]:
    """The reference run the way the Spark runner cuts it (a model of layout.arrange)."""
    tau = pattern.window.in_units_of(s.time_unit)
    plan = plan_for(Claims(), pattern, policy, tau=tau)
    events = [e for e in s if plan.filter is None or holds(plan.filter, {EVENT: (e,)})]
    parts: dict[object, list] = {}
    for e in events:
        k = partition_key(e, plan.keys) if plan.keys else ()
        if k is not None:
            parts.setdefault(k, []).append(e)
    back, ahead = plan.reach
    out: set[Match] = set()
    budget = Budget(limit=200_000)
    for part in parts.values():
        for j in range(len(bounds) + 1):
            low = bounds[j - 1] - back * tau if j else -math.inf
            high = bounds[j] + ahead * tau if j < len(bounds) else math.inf
            piece, origin = as_stream([e for e in part if low <= e.ts <= high], s.time_unit)
            for m in matches(pattern, piece, policy, budget=budget):
                g = restore(m, origin)
                if owner(bounds, s[g.first].ts) == j:
                    out.add(g)
    return out


def check_cuts(policy: str, pattern, s: Stream, cuts: list[int]) -> None:
    """The decomposed reference equals the reference (examples too slow are rejected)."""
    try:
        expected = matches(pattern, s, policy, budget=Budget(limit=200_000))
        got = decomposed(pattern, s, policy, tuple(sorted(cuts)))
    except BudgetExceeded:
        reject()
    assert got == expected, (policy, pattern, s.to_json(), sorted(cuts))


@pytest.mark.parametrize("policy", POLICIES)
@given(pattern=ses_patterns(max_sets=3, max_vars=3), s=streams(min_size=2, max_size=9),
       cuts=st.lists(st.integers(0, 16), max_size=3, unique=True))
def test_the_cuts_leave_every_policy_unchanged(policy, pattern, s, cuts):
    check_cuts(policy, pattern, s, cuts)


@st.composite
def keyed_patterns(draw: st.DrawFn):
    """SES patterns whose variables are all joined by ``ID`` equalities (a random
    spanning tree, sometimes ``prev(v.ID) = v.ID``), so Def. 6 gives X = {ID}."""
    p = draw(ses_patterns(max_sets=3, max_vars=3), label="pattern")
    names = p.names
    extra = []
    for i in range(1, len(names)):
        j = draw(st.integers(0, i - 1), label=f"joined to {names[i]}")
        pair = (names[i], names[j]) if draw(st.booleans(), label="order") else (names[j],
                                                                                 names[i])
        extra.append(Cmp("=", Attr(pair[0], "ID"), Attr(pair[1], "ID")))
    for v in p.variables:
        if v.group and draw(st.booleans(), label=f"prev({v.name}.ID)"):
            extra.append(Cmp("=", Prev(v.name, "ID"), Attr(v.name, "ID")))
    return replace(p, conditions=p.conditions + tuple(extra))


@pytest.mark.parametrize("policy", ["next", "any", "earliest-maximal", "partition-contiguous"])
@given(pattern=keyed_patterns(), s=streams(min_size=2, max_size=9),
       cuts=st.lists(st.integers(0, 16), max_size=2, unique=True))
def test_the_cuts_of_keyed_patterns(policy, pattern, s, cuts):
    check_cuts(policy, pattern, s, cuts)


# ---------------------------------------------------------------- next and partitions

def ids_stream(ids: list[int]) -> Stream:
    return Stream.from_rows([{"ts": i, "ID": x} for i, x in enumerate(ids)])


def per_partition(pattern, s: Stream, policy: str) -> set[Match]:
    out = set()
    for key in {e.attrs["ID"] for e in s}:
        piece, origin = as_stream([e for e in s if e.attrs["ID"] == key])
        out |= {restore(m, origin) for m in matches(pattern, piece, policy)}
    return out


@pytest.mark.parametrize(("text", "ids", "extra"), [
    # a+ loops with no equality checked yet: the run at 0 takes ID 2 and never completes
    ("PATTERN <{a+}, {b}> WHERE a.ID = b.ID WITHIN 10", [1, 2, 1], "{a/[0], b/[2]}"),
    # b is related to c only: the run at 0 takes b/1 (ID 2), then no c fits both
    ("PATTERN <{a}, {b}, {c}> WHERE a.ID = c.ID AND b.ID = c.ID WITHIN 10", [1, 2, 1, 1],
     "{a/[0], b/[2], c/[3]}"),
])
def test_next_per_partition_can_gain_matches(text, ids, extra):
    # docs/errata.md#seed-001-partitioning-next: seed 001 runs A per partition.
    pattern = parse_ses(text)
    s = ids_stream(ids)
    assert matches(pattern, s, "next") == set()
    assert {str(m) for m in per_partition(pattern, s, "next")} == {extra}
    assert next_partitioning_attributes(pattern) == ()
    assert plan_for(Claims(), pattern, "next", tau=10).keys == ()


@pytest.mark.parametrize(("text", "keys"), [
    ("PATTERN <{b, s}> WHERE b.type = 'BUY' AND s.type = 'SELL' AND b.name = s.name "
     "WITHIN 500 ms", ("name",)),
    ("PATTERN <{a+}, {b}> WHERE a.ID = b.ID AND prev(a.ID) = a.ID WITHIN 10", ("ID",)),
    ("PATTERN <{a}, {b}, {c}> WHERE a.ID = b.ID AND b.ID = c.ID WITHIN 10", ("ID",)),
    ("PATTERN <{a}, {b}, {c}> WHERE a.ID = c.ID AND b.ID = c.ID WITHIN 10", ()),
    ("PATTERN <{c, p+, d}, {b}> WHERE c.L = 'C' AND d.L = 'D' AND p.L = 'P' AND b.L = 'B' "
     "AND c.ID = p.ID AND c.ID = d.ID AND d.ID = b.ID WITHIN 264 hours", ()),   # Q1: after p, d
])
def test_next_partitioning_attributes(text, keys):
    assert next_partitioning_attributes(parse_ses(text)) == keys


def test_plan_table():
    pattern = parse_ses("PATTERN <{a}, {b}> WHERE a.L = 'A' AND b.L = 'B' AND a.ID = b.ID "
                        "WITHIN 5")
    plans = {p: plan_for(Claims(), pattern, p, tau=5) for p in POLICIES}
    assert {p for p, plan in plans.items() if plan.filter is not None} == \
        {"any", "next", "next-literal", "earliest-maximal"}
    assert {p for p, plan in plans.items() if plan.keys} == \
        {"any", "next", "earliest-maximal", "partition-contiguous"}
    assert {p: plan.reach for p, plan in plans.items()} == {
        "any": (0, 1), "next": (0, 1), "next-literal": (1, 2), "earliest-maximal": (0, 1),
        "contiguous": (0, 1), "partition-contiguous": (0, 1)}


def test_an_engine_that_does_not_claim_the_policy_runs_whole():
    pattern = parse_ses("PATTERN <{a}, {b}> WHERE a.ID = b.ID WITHIN 5")
    plan = plan_for(Claims(capabilities=frozenset({Feature("ses")})), pattern, "next", tau=5)
    assert plan.whole and plan.filter is None and "does not claim" in plan.explain()


def test_unknown_policy_is_an_error():
    with pytest.raises(PatternError, match="unknown policy"):
        plan_for(Claims(), parse_ses("PATTERN <{a}> WITHIN 5"), "latest", tau=5)


def test_attributes_read():
    pattern = parse_ses("PATTERN <{a+}, {b}> WHERE a.L = 'A' AND prev(a.V) < a.V "
                        "AND a.ID = b.ID WITHIN 5")
    assert attributes_read(pattern) == {"L", "V", "ID"}


# ---------------------------------------------------------------- layout helpers

def test_murmur3_of_known_values():
    # Spark: SELECT hash(0), hash(1), hash(2) -> 933211791, -559580957, 1765031574
    assert [murmur3_int(i) for i in range(3)] == [933211791, -559580957, 1765031574]


def test_surrogates_hit_every_partition_once():
    for n in (1, 2, 7, 32):
        subs = surrogates(n)
        assert [murmur3_int(x) % n for x in subs] == list(range(n))


def test_boundaries_cut_by_counts_and_keep_a_gap():
    assert boundaries(list(range(100)), 4) == (25, 50, 75)
    assert boundaries([0] * 50 + [9] * 50, 4) == (9,)
    assert boundaries(list(range(100)), 4, min_gap=30) == (50,)
    assert boundaries([], 4) == () and boundaries(list(range(9)), 1) == ()
    assert [owner((25, 50), t) for t in (0, 25, 49, 50, 99)] == [0, 1, 1, 2, 2]
