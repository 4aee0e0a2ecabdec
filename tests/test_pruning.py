"""The one pruning-soundness module (reference/pruning.py, reference/ses/pruning.py):
each step it permits leaves the policy's match set unchanged, checked against the
reference, and every engine that prunes reads its decision from there.

The decomposed run below is a model of what the Spark runner does (filter, then
Def. 6 parts, then time slices that own the matches starting in them); it uses
only the :class:`~kleene.reference.pruning.Pruning` the language gives, so a
step that is permitted but unsound shows up as a difference from the
reference's own result on the whole stream.
"""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from hypothesis import given, reject
from hypothesis import strategies as st

from kleene.conformance.strategies import ses_patterns, streams
from kleene.engines.registry import engine
from kleene.engines.spark.layout import owner
from kleene.engines.spark.plan import plan_for
from kleene.engines.windows.engine import CompiledWindows
from kleene.reference.budget import Budget
from kleene.reference.conditions import Attr, Cmp, Prev, holds
from kleene.reference.errors import BudgetExceeded
from kleene.reference.events import Event, Stream
from kleene.reference.languages import language_of
from kleene.reference.match import Match
from kleene.reference.policies import partition_key
from kleene.reference.pruning import Pruning
from kleene.reference.query import Query
from kleene.reference.ses.filtering import EVENT
from kleene.reference.ses.policies import POLICIES, matches
from kleene.reference.ses.pruning import next_partitioning_attributes
from kleene.reference.ses.text import parse_ses
from kleene.reference.ses.windows import as_stream, restore
from kleene.reference.sremo import parse_sremo
from tests.helpers import claiming


def decomposed(pattern, s: Stream, policy: str, bounds: tuple[int, ...], *,
               steps: frozenset[str] = frozenset({"filter", "keys", "slices"})) -> set[Match]:
    """The reference run cut the way the pruning permits (only the chosen ``steps``)."""
    tau = pattern.window.in_units_of(s.time_unit)
    pruning: Pruning = language_of(pattern).pruning(pattern, policy)
    keep = pruning.filter if "filter" in steps else None
    keys = pruning.keys if "keys" in steps else ()
    reach = pruning.reach if "slices" in steps else None
    events = [e for e in s if keep is None or holds(keep, {EVENT: (e,)})]
    parts: dict[object, list[Event]] = {}
    for e in events:
        k = partition_key(e, keys) if keys else ()
        if k is not None:
            parts.setdefault(k, []).append(e)
    cuts = bounds if reach is not None else ()
    back, ahead = reach if reach is not None else (0, 0)
    out: set[Match] = set()
    budget = Budget(limit=200_000)
    for part in parts.values():
        for j in range(len(cuts) + 1):
            low = cuts[j - 1] - back * tau if j else -math.inf
            high = cuts[j] + ahead * tau if j < len(cuts) else math.inf
            piece, origin = as_stream([e for e in part if low <= e.ts <= high], s.time_unit)
            for m in matches(pattern, piece, policy, budget=budget):
                g = restore(m, origin)
                if owner(cuts, s[g.first].ts) == j:
                    out.add(g)
    return out


def check_steps(policy: str, pattern, s: Stream, cuts: list[int]) -> None:
    """Each permitted step alone, and all together, give the reference's matches."""
    try:
        expected = matches(pattern, s, policy, budget=Budget(limit=200_000))
        bounds = tuple(sorted(cuts))
        for steps in ({"filter"}, {"keys"}, {"slices"}, {"filter", "keys", "slices"}):
            got = decomposed(pattern, s, policy, bounds, steps=frozenset(steps))
            assert got == expected, (policy, sorted(steps), pattern, s.to_json(), bounds)
    except BudgetExceeded:
        reject()


@pytest.mark.parametrize("policy", POLICIES)
@given(pattern=ses_patterns(max_sets=3, max_vars=3), s=streams(min_size=2, max_size=9),
       cuts=st.lists(st.integers(0, 16), max_size=3, unique=True))
def test_every_permitted_step_keeps_the_match_set(policy, pattern, s, cuts):
    check_steps(policy, pattern, s, cuts)


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
def test_every_permitted_step_keeps_the_match_set_of_keyed_patterns(policy, pattern, s, cuts):
    check_steps(policy, pattern, s, cuts)


KEYED = parse_ses("PATTERN <{a}, {b}> WHERE a.L = 'A' AND b.L = 'B' AND a.ID = b.ID WITHIN 5")


def test_the_table_of_decisions():
    # seed 001 Thm 1 and Def. 6 against the policies, by the arguments of the module
    decided = {p: language_of(KEYED).pruning(KEYED, p) for p in POLICIES}
    assert {p for p, d in decided.items() if d.filter is not None} == \
        {"any", "next", "next-literal", "earliest-maximal", "earliest-maximal-contained"}
    assert {p for p, d in decided.items() if d.keys} == \
        {"any", "next", "earliest-maximal", "earliest-maximal-contained", "partition-contiguous"}
    assert {p: d.reach for p, d in decided.items()} == {
        "any": (0, 1), "next": (0, 1), "next-literal": (1, 2), "earliest-maximal": (0, 1),
        "earliest-maximal-contained": (0, 1), "contiguous": (0, 1),
        "partition-contiguous": (0, 1)}


@pytest.mark.parametrize("policy", POLICIES)
def test_the_windows_engines_and_spark_read_the_same_decision(policy):
    decision = language_of(KEYED).pruning(KEYED, policy)
    if policy in ("any", "next"):  # the policies the SES automaton inside implements
        compiled = engine("windows+ses").compile(Query.of(KEYED, policy=policy))
        assert isinstance(compiled, CompiledWindows) and compiled.attributes == decision.keys
    plan = plan_for(claiming(), Query.of(KEYED, policy=policy), tau=5)
    assert (plan.filter, plan.keys, plan.reach) == (decision.filter, decision.keys,
                                                    decision.reach)


def test_a_policy_without_worked_proofs_prunes_nothing():
    # SREMO's literal Def. 18 matches the whole string (reference/sremo/pruning.py)
    p = parse_sremo("(mark {~.L = 'A'} ; {TRUE}* ; mark {~.L = 'B'})[WITHIN 5]")
    decision = language_of(p).pruning(p, "literal")
    assert decision.filter is None and decision.keys == () and decision.reach is None


def test_partition_contiguous_groups_by_the_condition_languages_equality():
    # 1 and TRUE are different values for "=" (seed 001 Def. 6 as the reference
    # reads it), so an event with ID TRUE does not break the contiguity of ID 1.
    p = parse_ses("PATTERN <{a}, {b}> WHERE a.ID = b.ID WITHIN 10")
    s = Stream.from_rows([{"ts": 0, "ID": 1}, {"ts": 1, "ID": True}, {"ts": 2, "ID": 1}])
    assert {str(m) for m in matches(p, s, "partition-contiguous")} == {"{a/[0], b/[2]}"}
    assert matches(p, s, "contiguous") == set()


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
    assert language_of(pattern).pruning(pattern, "next").keys == ()


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


