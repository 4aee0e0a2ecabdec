"""The pruning of operator patterns and SREMO expressions (reference/operators/pruning.py,
reference/sremo/pruning.py) keeps the policy's match set, checked against the reference.

As in tests/test_pruning.py, a decomposed reference run models the Spark
runner: keep the events the filter passes, cut them into Def. 6 parts, then
into slices (by timestamp, or by position for a SREMO count window) that hold
the reach around the matches they own; every permitted step, alone and all
together, must give the reference's own result on the whole stream.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, reject, settings
from hypothesis import strategies as st

from kleene.conformance.sremo_strategies import gapped_sremo_expressions, windowed_sremo_expressions
from kleene.conformance.strategies import (
    keyed_operator_patterns,
    operator_patterns,
    streams,
    typed_streams,
)
from kleene.engines.spark.layout import owner
from kleene.reference.conditions import Attr, Cmp, Const, Or, holds
from kleene.reference.durations import Duration
from kleene.reference.errors import BudgetExceeded
from kleene.reference.events import Event, Stream
from kleene.reference.languages import language_of
from kleene.reference.match import Match
from kleene.reference.operators.text import parse_operator
from kleene.reference.policies import partition_key
from kleene.reference.query import Query
from kleene.reference.ses.filtering import EVENT
from kleene.reference.ses.windows import as_stream, restore
from kleene.reference.sremo import parse_sremo
from kleene.reference.sremo.pruning import lead

BUDGET = 100_000
STEPS = ({"filter"}, {"keys"}, {"slices"}, {"filter", "keys", "slices"})


def decomposed(pattern, s: Stream, policy: str, cuts: tuple[int, ...], steps: set[str],
               ) -> set[Match]:
    """The reference run cut as the language's pruning permits (only ``steps``)."""
    lang = language_of(pattern)
    pruning = lang.pruning(pattern, policy)
    keep = pruning.filter if "filter" in steps else None
    keys = pruning.keys if "keys" in steps else ()
    reach = pruning.reach if "slices" in steps else None
    window = pruning.window if pruning.window is not None else lang.window(pattern)
    events = [e for e in s if keep is None or holds(keep, {EVENT: (e,)})]
    parts: dict[object, list[Event]] = {}
    for e in events:
        k = partition_key(e, keys) if keys else ()
        if k is not None:
            parts.setdefault(k, []).append(e)
    if reach is None or window is None:
        cuts, reach, tau = (), (0, 0), 0.0
    else:
        tau = window if isinstance(window, int) else window.in_units_of(s.time_unit)
    back, ahead = reach
    by_position = isinstance(window, int)
    out: set[Match] = set()
    for part in parts.values():
        for j in range(len(cuts) + 1):
            low = cuts[j - 1] - back * tau if j else -math.inf
            high = cuts[j] + ahead * tau if j < len(cuts) else math.inf
            piece, origin = as_stream([e for e in part if low <= (e.position if by_position
                                                                   else e.ts) <= high],
                                      s.time_unit)
            for m in Query.of(pattern, policy=policy).reference(piece, budget=_budget()):
                g = restore(m, origin)
                if not cuts:   # one piece (the literal policy's empty match has no first)
                    out.add(g)
                elif owner(cuts, g.first if by_position else s[g.first].ts) == j:
                    out.add(g)
    return out


def _budget():
    from kleene.reference.budget import Budget

    return Budget(limit=BUDGET)


def check_steps(pattern, s: Stream, policy: str, cuts: list[int]) -> None:
    try:
        expected = Query.of(pattern, policy=policy).reference(s, budget=_budget())
        for steps in STEPS:
            got = decomposed(pattern, s, policy, tuple(sorted(cuts)), steps)
            assert got == expected, (policy, sorted(steps), pattern, s.to_json(), cuts)
    except BudgetExceeded:
        reject()


# ---------------------------------------------------------------- operator patterns

def _primitives(p):
    from kleene.reference.operators.pattern import primitives

    return primitives(p.expr)


@pytest.mark.parametrize("policy", ["any", "next", "contiguous", "partition-contiguous"])
@settings(max_examples=120)
@given(pattern=operator_patterns(max_depth=2), s=typed_streams(min_size=1, max_size=8),
       cuts=st.lists(st.integers(0, 16), max_size=2, unique=True))
def test_operator_pruning_keeps_the_match_set(policy, pattern, s, cuts):
    check_steps(pattern, s, policy, cuts)


@pytest.mark.parametrize("policy", ["any", "partition-contiguous"])
@settings(max_examples=120)
@given(pattern=keyed_operator_patterns(), s=typed_streams(min_size=1, max_size=8),
       cuts=st.lists(st.integers(0, 16), max_size=2, unique=True))
def test_keyed_operator_pruning_keeps_the_match_set(policy, pattern, s, cuts):
    from kleene.reference.operators.pattern import Kleene, positive_variables, primitives, walk

    several = len({v.var for v in _primitives(pattern)}) > 1
    # a lone positive variable under an iteration has no equality tying its events
    lone = [p for p in walk(pattern.expr) if isinstance(p, Kleene)
            and (p.high is None or p.high > 1)
            and positive_variables(pattern.expr) <= {v.var for v in primitives(p.part)}]
    tied = several and not (len(positive_variables(pattern.expr)) == 1 and lone)
    assert language_of(pattern).pruning(pattern, policy).keys == ("ID",) * tied
    check_steps(pattern, s, policy, cuts)


@pytest.mark.parametrize(("text", "policy", "keys", "reach"), [
    ("PATTERN SEQ(A a, B b) WHERE a.ID = b.ID WITHIN 5", "any", ("ID",), (0, 1)),
    ("PATTERN SEQ(A a, B b) WHERE a.ID = b.ID WITHIN 5", "next", (), (0, 1)),
    # the negated b is not joined: an event of another ID forbids the match
    ("PATTERN SEQ(A a, NOT(C b), B c) WHERE a.ID = c.ID WITHIN 5", "any", (), (1, 1)),
    ("PATTERN SEQ(A a, NOT(C b), B c) WHERE a.ID = c.ID AND b.ID = c.ID WITHIN 5", "any",
     ("ID",), (1, 1)),
    # an OR: a match may bind too few variables to be joined
    ("PATTERN SEQ(A a, OR(B b, C c)) WHERE a.ID = b.ID AND a.ID = c.ID WITHIN 5", "any", (),
     (0, 1)),
])
def test_operator_decisions(text, policy, keys, reach):
    p = parse_operator(text)
    decision = language_of(p).pruning(p, policy)
    assert (decision.keys, decision.reach) == (keys, reach)


def test_a_negated_event_of_another_key_forbids_the_match():
    # why the first NOT above is not partitioned: C (ID 2) lies between A and B (ID 1)
    p = parse_operator("PATTERN SEQ(A a, NOT(C b), B c) WHERE a.ID = c.ID WITHIN 5")
    s = Stream.from_rows([{"ts": 0, "type": "A", "ID": 1}, {"ts": 1, "type": "C", "ID": 2},
                          {"ts": 2, "type": "B", "ID": 1}])
    assert Query.of(p, policy="any").reference(s) == set()
    one, _ = as_stream([s[0], s[2]])
    assert len(Query.of(p, policy="any").reference(one)) == 1


def test_the_filter_keeps_the_types_and_properties_of_every_variable():
    p = parse_operator("PATTERN SEQ(A a, NOT(C b), B c) WHERE a.V > 1 WITHIN 5")
    f = language_of(p).pruning(p, "any").filter
    assert f is not None
    typed = [Stream.from_rows([{"ts": 0, "type": t, "V": v}])[0]
             for t, v in (("A", 2), ("A", 0), ("C", 0), ("B", 0), ("D", 9))]
    assert [holds(f, {EVENT: (e,)}) for e in typed] == [True, False, True, True, False]


# ---------------------------------------------------------------- SREMO

@pytest.mark.parametrize("policy", ["stream", "literal"])
@settings(max_examples=150)
@given(e=windowed_sremo_expressions(), s=streams(min_size=1, max_size=8),
       cuts=st.lists(st.integers(0, 12), max_size=2, unique=True))
def test_sremo_pruning_keeps_the_match_set(policy, e, s, cuts):
    check_steps(e, s, policy, cuts)


@settings(max_examples=150)
@given(e=gapped_sremo_expressions(), s=streams(min_size=1, max_size=8),
       cuts=st.lists(st.integers(0, 12), max_size=2, unique=True))
def test_gapped_sremo_pruning_keeps_the_match_set(e, s, cuts):
    check_steps(e, s, "stream", cuts)


@settings(max_examples=150)
@given(e=windowed_sremo_expressions() | gapped_sremo_expressions(),
       by=st.sampled_from([("ID",), ("L",), ("ID", "V")]),
       s=streams(min_size=1, max_size=8),
       cuts=st.lists(st.integers(0, 12), max_size=2, unique=True))
def test_partitioned_sremo_pruning_keeps_the_match_set(e, by, s, cuts):
    # PARTITION BY keeps the body's filter and time slices, never its position slices
    # (a count window counts each part's positions) nor keys (a missing value is a part).
    from kleene.reference.sremo.expressions import Partition

    p = Partition(e, by)
    d = language_of(p).pruning(p, "stream")
    assert d.keys == () and (d.reach is None or not isinstance(d.window, int))
    check_steps(p, s, "stream", cuts)


def test_a_lone_iteration_is_not_partitioned():
    # Found by Hypothesis: v0.ID = v1.ID ties v0 to the negated v1 only, so nothing ties
    # v0's events to one another: {v0/[0, 1]} spans IDs 0 and 1 (hand-checked: no A
    # event precedes, so NOT v1 forbids nothing) and a split by ID would lose it.
    p = parse_operator("PATTERN SEQ(NOT(A v1), A+ v0[]) WHERE v0.ID = v1.ID WITHIN 0")
    s = Stream.from_rows([{"ts": 0, "type": "A", "ID": 0}, {"ts": 0, "type": "A", "ID": 1}])
    assert {m.positions for m in Query.of(p, policy="any").reference(s)} == \
        {(0,), (1,), (0, 1)}
    assert language_of(p).pruning(p, "any").keys == ()
    q = parse_operator("PATTERN SEQ(A+ a[], B b) WHERE a.ID = b.ID WITHIN 10")
    assert language_of(q).pruning(q, "any").keys == ("ID",)


def test_a_partitioned_count_window_is_not_sliced_by_stream_position():
    # Hand-computed: part ID=1 is A@0, B@4, adjacent in the part, so [1..2] matches
    # {0, 4}; a slice by stream position around a cut at 1 holds positions ≤ 3 only.
    p = parse_sremo("(mark {~.L = 'A'} ; mark {~.L = 'B'})[1..2] PARTITION BY ID")
    s = Stream.from_rows([{"ts": k, "L": x, "ID": i} for k, (x, i) in
                          enumerate([("A", 1), ("C", 2), ("C", 2), ("C", 2), ("B", 1)])])
    expected = Query.of(p, policy="stream").reference(s)
    assert {m.positions for m in expected} == {(0, 4)}
    assert language_of(p).pruning(p, "stream").reach is None
    check_steps(p, s, "stream", [1])


@pytest.mark.parametrize(("text", "filtered", "reach", "window"), [
    ("mark {~.L = 'A'} -> r ; {TRUE}* ; mark {~.L = 'B' AND ~.ID = r.ID}", True, None, None),
    ("(mark {~.L = 'A'} -> r ; {TRUE}* ; mark {~.L = 'B'})[1..4]", False, (0, 1), 4),
    ("(mark {~.L = 'A'} ; {TRUE}* ; mark {~.L = 'B'})[WITHIN 3]", True, (0, 1), Duration(3)),
    # one element read before the first mark: by position only
    ("({~.L = 'C'} ; mark {~.L = 'A'})[1..2]", False, (1, 1), 2),
    ("({~.L = 'C'} ; mark {~.L = 'A'})[WITHIN 3]", False, None, None),
    # a leading star reads any prefix, and the detection tries every start anyway
    ("({~.L = 'C'}* ; mark {~.L = 'A'})[WITHIN 3]", True, (0, 1), Duration(3)),
    # unmarked iterations before the first mark: unbounded
    ("(mark {~.L = 'C'} ; ({~.L = 'B'} + mark {~.L = 'A'})*)[1..3]", False, (0, 1), 3),
    ("(({~.L = 'B'} + mark {~.L = 'A'})* ; mark {~.L = 'C'})[1..3]", False, None, None),
])
def test_sremo_decisions(text, filtered, reach, window):
    e = parse_sremo(text)
    d = language_of(e).pruning(e, "stream")
    assert (d.filter is not None, d.reach, d.window) == (filtered, reach, window)
    assert language_of(e).pruning(e, "literal").reach is None


def test_the_head_filter_of_a_gapped_sremo_expressions():
    e = parse_sremo("mark {~.L = 'A'} -> r ; {TRUE}* ; mark {~.L = 'B' AND ~.ID = r.ID}")
    f = language_of(e).pruning(e, "stream").filter
    assert f == Or((Cmp("=", Attr(EVENT, "L"), Const("A")), Cmp("=", Attr(EVENT, "L"),
                                                                  Const("B"))))
    assert lead(e) == 0


def test_a_count_window_counts_the_filtered_events():
    # why a count window is never filtered: dropping X brings A and B within [1..2]
    e = parse_sremo("(mark {~.L = 'A'} ; {TRUE}* ; mark {~.L = 'B'})[1..2]")
    s = Stream.from_rows([{"ts": 0, "L": "A"}, {"ts": 1, "L": "X"}, {"ts": 2, "L": "B"}])
    assert Query.of(e, policy="stream").reference(s) == set()
    assert language_of(e).pruning(e, "stream").filter is None
