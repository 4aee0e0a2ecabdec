"""The match-window framework of seed 001 (Sec. 4–5, Algorithm 1) as an engine: its
parts against the reference definitions, and the paper's examples and errata.

Positions are 0-based (the paper's e1 is position 0). Expected values come from
the reference (:mod:`kleene.reference.ses`), or from a hand computation
explained in a comment for the paper-faithful variants.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kleene.conformance.differential import reported_matches
from kleene.conformance.strategies import ses_patterns, streams
from kleene.engines.columns import Columns, PropertyBits, paper_bits
from kleene.engines.protocol import Counters
from kleene.engines.registry import engine
from kleene.engines.ses.run import CompiledSES
from kleene.engines.spans import Window
from kleene.engines.windows.engine import WindowsEngine
from kleene.engines.windows.framework import MatchWindows
from kleene.engines.windows.matching import AnchoredMatcher, EngineMatcher
from kleene.engines.windows.soundness import preserved_policies
from kleene.engines.windows.statistics import BitStatistics, Layout, PaperBitStatistics
from kleene.reference.conditions import And, Attr, Cmp, Condition, Const, Not, Or, Truth, holds
from kleene.reference.events import Event, Stream
from kleene.reference.match import Match
from kleene.reference.query import Query
from kleene.reference.ses.filtering import EVENT, passes_filter
from kleene.reference.ses.matching import window_of
from kleene.reference.ses.necessary import is_candidate_window
from kleene.reference.ses.partitioning import partition_key, partitioning_attributes
from kleene.reference.ses.policies import matches
from kleene.reference.ses.pruning import next_partitioning_attributes
from kleene.reference.ses.statistics import PaperStatistics, event_bits, summary_statistics
from kleene.reference.ses.text import parse_ses
from kleene.reference.ses.windows import window_at, window_matches

P1 = parse_ses("""PATTERN <{c, p+}, {b}>
WHERE c.L = 'C' AND p.L = 'P' AND b.L = 'B' AND c.PID = p.PID AND p.PID = b.PID
  AND prev(p.V) < p.V
WITHIN 15 days""")

# Seed 001 Fig. 1 (Chemo) as (L, PID, V, day of July); see docs/errata.md, seed 001.
CHEMO = [("C", 1, 1672.5, 3), ("B", 1, 7100, 4), ("P", 1, 111.5, 5), ("B", 2, 10100, 6),
         ("P", 2, 88, 8), ("D", 2, 84, 9), ("C", 2, 1320, 10), ("P", 2, 98, 11),
         ("P", 1, 116.5, 12), ("P", 2, 88, 15), ("B", 1, 3400, 17), ("B", 2, 4000, 18),
         ("B", 2, 4900, 19), ("B", 1, 3000, 22)]


def chemo() -> Stream:
    return Stream.from_rows([{"ts": d, "L": label, "PID": pid, "V": v}
                             for label, pid, v, d in CHEMO], time_unit="d")


def labelled(*rows: str, **attrs: Sequence[object]) -> Stream:
    """``labelled("A@0", "B@1")``: events with label ``L`` at ts, extra columns by keyword."""
    out = []
    for k, row in enumerate(rows):
        label, ts = row.split("@")
        out.append({"ts": int(ts), "L": label, **{a: vs[k] for a, vs in attrs.items()}})
    return Stream.from_rows(out)


def run(name: str | WindowsEngine, policy: str, pattern, stream) -> set[Match]:
    eng = engine(name) if isinstance(name, str) else name
    got = reported_matches(eng, policy, pattern, stream)
    assert len(got) == len(set(got)), "a match reported twice"
    return set(got)

# ---------------------------------------------------------------- columns (Thm 1, ē)


_CONSTANT_KINDS = (st.booleans(), st.integers(-2, 2), st.sampled_from([0.5, 1.0]),
                   st.sampled_from(["A", "B", "1"]))
CONSTANTS = st.one_of(*_CONSTANT_KINDS)
VALUES = st.one_of(st.none(), *_CONSTANT_KINDS)
ROWS = st.lists(st.fixed_dictionaries({"x": VALUES, "y": VALUES}), min_size=1, max_size=12)


@st.composite
def conditions(draw: st.DrawFn, depth: int = 2) -> Condition:
    """Conditions over the single event ``e``: comparisons of ``x``, ``y``, ``ts``,
    constants of every kind, and their connectives."""
    terms = st.one_of(st.sampled_from([Attr(EVENT, "x"), Attr(EVENT, "y"), Attr(EVENT, "ts"),
                                       Attr(EVENT, "missing")]), CONSTANTS.map(Const))
    kind = draw(st.sampled_from(["cmp", "cmp", "and", "or", "not", "truth"] if depth else ["cmp"]))
    if kind == "cmp":
        return Cmp(draw(st.sampled_from(["=", "!=", "<", "<=", ">", ">="])), draw(terms),
                   draw(terms))
    if kind == "truth":
        return Truth(draw(st.booleans()))
    if kind == "not":
        return Not(draw(conditions(depth - 1)))
    parts = tuple(draw(st.lists(conditions(depth - 1), min_size=2, max_size=3)))
    return And(parts) if kind == "and" else Or(parts)


@given(rows=ROWS, c=conditions())
def test_columns_evaluate_as_the_reference_holds(rows, c):
    # Three-valued, kinds kept apart (1 vs TRUE vs '1' unknown), missing unknown.
    batch = Stream.from_rows([{"ts": k, **r} for k, r in enumerate(rows)]).events
    expected = [holds(c, {EVENT: (e,)}) for e in batch]
    assert Columns(batch).holds(c).tolist() == expected


@given(pattern=ses_patterns(max_vars=5), stream=streams(min_size=1, max_size=12))
def test_event_bits_are_sec5s_and_filter_is_thm1s(pattern, stream):
    bits = PropertyBits(pattern)
    got = bits.of(stream.events).tolist()
    m = len(pattern.names)
    assert [paper_bits(b, m) for b in got] == [event_bits(pattern, e) for e in stream]
    assert [b != 0 for b in got] == [passes_filter(pattern, e) for e in stream]
    assert got == [bits.of_event(e) for e in stream]


def test_example13_bit_vectors():
    # Example 13: ē1 = 100 (C), ē2 = 001 (B), ē3 = 010 (P); b̄1 = 000, b̄2 = 110.
    bits = PropertyBits(P1).of(chemo().events[:3]).tolist()
    assert [paper_bits(b, 3) for b in bits] == ["100", "001", "010"]
    layout = Layout.of(P1)
    assert [paper_bits(b, 3) for b in layout.previous] == ["000", "110"]

# ---------------------------------------------------------------- statistics (Def. 5)


@st.composite
def traces(draw: st.DrawFn):
    """A pattern, a stream and Algorithm 1's changes of one window: every event is
    enqueued in order, and before each enqueue some first events are dequeued."""
    pattern = draw(ses_patterns(max_sets=3, max_vars=4), label="pattern")
    stream = draw(streams(min_size=1, max_size=10), label="stream")
    steps: list[tuple[str, Event | None]] = []
    window = 0
    for e in stream:
        drop = draw(st.integers(0, window), label="dequeues")
        steps += [("dequeue", None)] * drop
        window -= drop
        steps.append(("enqueue", e))
        window += 1
    steps += [("dequeue", None)] * draw(st.integers(0, window), label="final dequeues")
    return pattern, steps


@given(trace=traces())
def test_bit_statistics_keep_def5_after_every_step(trace):
    pattern, steps = trace
    properties, layout = PropertyBits(pattern), Layout.of(pattern)
    stats, window = BitStatistics(layout), []
    for op, e in steps:
        if op == "enqueue":
            window.append(e)
            stats.enqueue(e.ts, properties.of_event(e))
        else:
            stats.dequeue(properties.of_event(window.pop(0)))
        expected = summary_statistics(pattern, window)
        assert dict(zip(pattern.names, stats.counts, strict=True)) == expected
        assert stats.positive == sum(1 << j for j, v in enumerate(pattern.names)
                                     if expected[v] > 0)


@given(trace=traces())
def test_paper_bit_statistics_follow_the_printed_rule(trace):
    pattern, steps = trace
    properties = PropertyBits(pattern)
    ours, printed, window = PaperBitStatistics(Layout.of(pattern)), PaperStatistics(pattern), []
    for op, e in steps:
        if op == "enqueue":
            window.append(e)
            ours.enqueue(e.ts, properties.of_event(e))
            printed.enqueue(e)
        else:
            ours.dequeue(properties.of_event(window.pop(0)))
            printed.dequeue()
        assert dict(zip(pattern.names, ours.counts, strict=True)) == printed.counters


def test_fig5_counters():
    # Fig. 5: patient 1's window e1, e2, e3, e9, e11, then e1 is dequeued.
    s, properties = chemo(), PropertyBits(P1)
    stats = BitStatistics(Layout.of(P1))
    seen = []
    for k in (0, 1, 2, 8, 10):
        stats.enqueue(s[k].ts, properties.of_event(s[k]))
        seen.append(list(stats.counts))
    stats.dequeue(properties.of_event(s[0]))
    seen.append(list(stats.counts))
    assert seen == [[1, 0, 0], [1, 0, 0], [1, 1, 0], [1, 2, 0], [1, 2, 1], [0, 2, 0]]

# ---------------------------------------------------------------- A (Def. 4)


@given(pattern=ses_patterns(), stream=streams(min_size=1, max_size=6),
       policy=st.sampled_from(["any", "next"]))
def test_anchored_a_equals_the_engine_run_over_the_window(pattern, stream, policy):
    # A(P, W): the anchored run (properties read off ē) and the whole engine run
    # keeping the matches at W[0] agree; under `any` both are Def. 4's A.
    tau = window_of(pattern, stream)
    compiled = engine("ses-automaton").compile(Query.of(pattern, policy=policy))
    assert isinstance(compiled, CompiledSES)
    anchored = AnchoredMatcher(compiled, Window(tau), prefiltered=False, properties=pattern)
    generic = EngineMatcher(compiled)
    properties = PropertyBits(pattern)
    for i in range(len(stream)):
        W = window_at(stream.events, i, tau)
        bits = [properties.of_event(e) for e in W]
        got = anchored(W, bits)
        assert len(got) == len(set(got))
        assert set(got) == set(anchored(W)) == set(generic(W))
        if policy == "any":
            assert set(got) == window_matches(pattern, W)

# ---------------------------------------------------------------- soundness


def test_partitioning_preserves_next_only_for_pinned_attributes():
    # P1: p's loop checks no PID (only prev(p.V) < p.V), so `next` is not partitioned.
    assert partitioning_attributes(P1) == ("PID",)
    assert next_partitioning_attributes(P1) == ()
    pinned = parse_ses("PATTERN <{a, b+}> WHERE a.ID = b.ID AND prev(b.ID) = b.ID WITHIN 5")
    assert next_partitioning_attributes(pinned) == ("ID",)
    chain = parse_ses("PATTERN <{a}, {b}, {c}> WHERE a.ID = b.ID AND b.ID = c.ID WITHIN 5")
    assert next_partitioning_attributes(chain) == ("ID",)
    star = parse_ses("PATTERN <{a, b, c}> WHERE a.ID = b.ID AND a.ID = c.ID WITHIN 5")
    assert next_partitioning_attributes(star) == ()     # b then c: nothing relates them


def test_claims_follow_the_steps_and_the_inner_engine():
    assert preserved_policies(filtering=False) == {
        "any", "next", "earliest-maximal", "earliest-maximal-contained", "contiguous",
        "partition-contiguous"}
    assert preserved_policies(filtering=True) == {"any", "next", "earliest-maximal",
                                                  "earliest-maximal-contained"}
    assert preserved_policies(filtering=True, paper_faithful=True) == frozenset()
    labels = {name: {f.label for f in engine(name).capabilities if f.kind == "policy"}
              for name in ("windows+ses", "windows-plain+ses", "windows+ses-bruteforce",
                           "windows-paper+ses")}
    assert labels == {"windows+ses": {"any", "next"}, "windows-plain+ses": {"any", "next"},
                      "windows+ses-bruteforce": {"any"}, "windows-paper+ses": set()}

# ---------------------------------------------------------------- Algorithm 1 on Fig. 1


def reference_candidates(pattern, s: Stream, tau) -> tuple[int, int]:
    """Algorithm 1's calls to A by the reference: per event that passes the filter,
    its window over the filtered events of its partition (Def. 3, 6), if Thm 2 holds."""
    x = partitioning_attributes(pattern)
    kept = [e for e in s if passes_filter(pattern, e)]
    calls = events = 0
    for i, f in enumerate(kept):
        part = [e for e in kept[i:] if partition_key(e, x) == partition_key(f, x)]
        W = window_at(part, 0, tau)
        if is_candidate_window(pattern, W):
            calls, events = calls + 1, events + len(W)
    return calls, events


@pytest.mark.parametrize("policy", ["any", "next"])
def test_p1_on_fig1_equals_the_reference_with_its_counters(policy):
    s = chemo()
    compiled = engine("windows+ses").compile(Query.of(P1, policy=policy, time_unit="d"))
    c = Counters()
    got = list(compiled.run(s, counters=c))
    assert set(got) == matches(P1, s, policy) and len(got) == len(set(got))
    assert (c.events_read, c.events_filtered) == (14, 1)          # Example 8: e6 only
    if policy == "any":                                            # partitioned by PID
        assert (c.calls_to_a, c.events_to_a) == reference_candidates(P1, s, 15)


def test_the_steps_change_only_the_counters():
    s = chemo()
    counts = {}
    for name in ("windows-plain+ses", "windows-f+ses", "windows-fp+ses", "windows+ses"):
        compiled = engine(name).compile(Query.of(P1, policy="any", time_unit="d"))
        c = Counters()
        assert set(compiled.run(s, counters=c)) == matches(P1, s, "any")
        counts[name] = c.calls_to_a
    # plain: one window per event; f: per event that passes Thm 1; p: the same windows
    # (partitioned); c: only the candidate windows.
    assert counts["windows-plain+ses"] == 14
    assert counts["windows-f+ses"] == counts["windows-fp+ses"] == 13
    assert counts["windows+ses"] == reference_candidates(P1, s, 15)[0] < 13


def test_algorithm1_as_printed_loses_patient_2_on_fig1():
    # No event of patient 2 comes 15 days after e4 (a B, day 6; patient 2's last
    # event is e13, day 19), so all its windows reach the final loop, which stops
    # at W = <e4, ...>: e4 fails condition 5 (docs/errata.md#seed-001-algorithm-1-fig-1).
    s = chemo()
    for policy in ("any", "next"):
        patient1 = {m for m in matches(P1, s, policy) if m["c"] == (0,)}
        assert run("windows-paper+ses", policy, P1, s) == patient1
        assert run("windows+ses", policy, P1, s) == matches(P1, s, policy)

# ---------------------------------------------------------------- errata


def test_final_loop_erratum():
    # docs/errata.md#seed-001-algorithm-1-final-loop: B, A, B; the printed loop stops at <B, A, B>.
    p = parse_ses("PATTERN <{a}, {b}> WHERE a.L = 'A' AND b.L = 'B' WITHIN 10")
    s = labelled("B@0", "A@1", "B@2")
    assert run("windows+ses", "next", p, s) == matches(p, s, "next") == {
        Match.of({"a": [1], "b": [2]})}
    assert run("windows-paper+ses", "next", p, s) == set()


def test_statistics_rule_erratum_loses_a_match():
    # docs/errata.md#seed-001-statistics-update-rule: WITHIN 5, B@0 A@1 B@2 C@6. Dequeuing
    # B@0 zeroes the printed cnt_b and resets cnt_c, so <A@1, B@2, C@6> is never passed to A.
    p = parse_ses("PATTERN <{a}, {b}, {c}> WHERE a.L = 'A' AND b.L = 'B' AND c.L = 'C' "
                  "WITHIN 5")
    s = labelled("B@0", "A@1", "B@2", "C@6")
    assert run("windows+ses", "any", p, s) == matches(p, s, "any") == {
        Match.of({"a": [1], "b": [2], "c": [3]})}
    assert run("windows-paper+ses", "any", p, s) == set()


PARTITION_NEXT = parse_ses("PATTERN <{a, b+}> WHERE a.L = 'A' AND b.L = 'B' AND a.ID = b.ID "
                           "WITHIN 10")


def test_partitioning_next_erratum():
    # docs/errata.md#seed-001-partitioning-next: B/1, B/2, A/1. The run started at 0
    # binds b/<0, 1> (b's loop checks no ID while a is unbound) and then cannot bind
    # a/2; in partition ID = 1 it binds b/0, a/2.
    s = labelled("B@0", "B@1", "A@2", ID=[1, 2, 1])
    assert run("windows+ses", "next", PARTITION_NEXT, s) == matches(PARTITION_NEXT, s, "next") \
        == set()
    assert run("windows-paper+ses", "next", PARTITION_NEXT, s) == {
        Match.of({"a": [2], "b": [0]})}
    # Under `any` partitioning is sound, and the paper's Algorithm 1 agrees here.
    assert run("windows-paper+ses", "any", PARTITION_NEXT, s) == matches(
        PARTITION_NEXT, s, "any")

# ---------------------------------------------------------------- streaming


def test_matches_are_emitted_once_their_window_is_complete():
    # batch=1: {a/0, b/1} is final when the event at ts 20 (more than τ after A@0) is read.
    p = parse_ses("PATTERN <{a}, {b}> WHERE a.L = 'A' AND b.L = 'B' WITHIN 10")
    read = []

    def events():
        for e in labelled("A@0", "B@1", "X@20", "X@21", "X@22"):
            read.append(e.position)
            yield e

    compiled = WindowsEngine("w", batch=1).compile(Query.of(p, policy="next"))
    first = next(iter(compiled.run(events())))
    assert (first, read) == (Match.of({"a": [0], "b": [1]}), [0, 1, 2])


def test_an_old_partition_is_completed_when_time_passes_and_forgotten():
    # Partition ID=1 gets no event after ts 1; its window is completed (and its entry
    # dropped) when events of partition 2 pass τ, not when the stream ends.
    p = parse_ses("PATTERN <{a}, {b}> WHERE a.L = 'A' AND b.L = 'B' AND a.ID = b.ID WITHIN 5")
    s = labelled("A@0", "B@1", *(f"A@{t}" for t in range(10, 40, 3)), ID=[1, 1] + [2] * 10)
    A = EngineMatcher(engine("ses-automaton").compile(Query.of(p, policy="any")))
    windows = MatchWindows(p, A, win=Window(5), attributes=("ID",), batch=1)
    held, emitted_at = [], {}

    def events():
        for e in s:
            held.append(len(windows.table))
            yield e

    for m in windows.run(events()):
        emitted_at[m] = len(held)
    assert emitted_at == {Match.of({"a": [0], "b": [1]}): 3}   # when A@10 was read
    assert max(held[4:]) == 1                                   # only partition 2 is held
    assert set(run("windows+ses", "any", p, s)) == matches(p, s, "any")


def test_window_in_units():
    # WITHIN 2 s on timestamps in ms: 1999 ms apart match, 2001 ms do not.
    p = parse_ses("PATTERN <{a}, {b}> WHERE a.L = 'A' AND b.L = 'B' WITHIN 2 s")
    s = Stream.from_rows([{"ts": t, "L": label} for t, label in
                          [(0, "A"), (1999, "B"), (3000, "A"), (5001, "B")]], time_unit="ms")
    assert run("windows+ses", "any", p, s) == matches(p, s, "any") == {
        Match.of({"a": [0], "b": [1]})}


@pytest.mark.parametrize("batch", [1, 2, 5])
def test_batches_do_not_change_matches(batch):
    s = chemo()
    for policy in ("any", "next"):
        got = run(WindowsEngine("w", batch=batch), policy, P1, s)
        assert got == matches(P1, s, policy)


def test_an_empty_stream_and_a_pattern_of_one_variable():
    p = parse_ses("PATTERN <{a+}> WHERE a.L = 'A' WITHIN 1")
    assert run("windows+ses", "any", p, Stream(())) == set()
    s = labelled("A@0", "A@1", "B@1", "A@3")
    for policy in ("any", "next"):
        assert run("windows+ses", policy, p, s) == matches(p, s, policy)


def test_compile_rejects_what_it_cannot_run():
    from kleene.reference.errors import PatternError, Unsupported
    eng = engine("windows+ses")
    with pytest.raises(Unsupported, match="SES patterns"):
        eng.compile(Query.parse("PATTERN SEQ(A a, B b) WITHIN 1"))   # an operator pattern
    with pytest.raises(Unsupported):
        eng.compile(Query.of(P1, policy="contiguous"))      # the SES automaton has no contiguity
    with pytest.raises(PatternError, match="unknown policy 'bogus'"):
        Query.of(P1, policy="bogus")                        # refused before any engine


def test_events_passed_to_a_keep_their_positions():
    # A sees the original events, so a match over a filtered, partitioned window
    # reports stream positions: patient 2's match of P1 starts at e5 (position 4).
    got = run("windows+ses", "next", P1, chemo())
    assert Match.of({"c": [6], "p": [4, 7], "b": [11]}) in got
