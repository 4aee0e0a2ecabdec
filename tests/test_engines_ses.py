"""The SES automaton and brute-force engines on hand examples (seed 000 Sec. 4, 5.2).

Positions are 0-based: the paper's e1 is position 0. Expected values come
from the paper (Fig. 1, 4, 5, Example 11, Lemma 1, Table 1), from docs/architecture.md's
normative `next`, or from hand computation explained in a comment.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kleene.conformance.strategies import LABELS, ses_patterns, streams
from kleene.engines.protocol import Counters, Feature
from kleene.engines.registry import engine
from kleene.engines.ses.automaton import (
    InvalidAutomaton,
    SESAutomaton,
    SESTransition,
    required_features,
    ses_automaton,
)
from kleene.engines.ses.bruteforce import BruteForceEngine, orderings
from kleene.reference.conditions import TRUE, Attr, Cmp, Condition, Const
from kleene.reference.durations import Duration
from kleene.reference.events import Event, Stream
from kleene.reference.match import Match
from kleene.reference.query import Query
from kleene.reference.ses.pattern import SESPattern
from kleene.reference.ses.policies import matches
from kleene.reference.ses.text import parse_ses
from kleene.reference.syntax import parse_condition
from tests.helpers import Q1, labelled

# Fig. 1 as (ID, L, ts) with ts = hours since 1 July 00:00 (9am 3 Jul = 57).
FIG1 = [(1, "C", 57), (1, "B", 58), (1, "D", 59), (1, "P", 81), (2, "B", 105),
        (2, "P", 106), (2, "D", 107), (2, "C", 129), (1, "P", 130), (2, "P", 131),
        (2, "P", 153), (1, "B", 273), (2, "B", 297), (2, "B", 321)]


def fig1(*extra: tuple[int, str, int]) -> Stream:
    """Fig. 1, followed by ``extra`` rows (ID, L, ts)."""
    return Stream.from_rows([{"ts": t, "ID": i, "L": label} for i, label, t in FIG1 + list(extra)],
                            time_unit="h")


def e(k: int) -> int:
    """The position of the paper's e_k."""
    return k - 1


Q1_NEXT = {Match.of({"c": [e(1)], "d": [e(3)], "p": [e(4), e(9)], "b": [e(12)]}),
           Match.of({"p": [e(6), e(10), e(11)], "d": [e(7)], "c": [e(8)], "b": [e(13)]}),
           Match.of({"d": [e(7)], "c": [e(8)], "p": [e(10), e(11)], "b": [e(13)]})}


def run(name: str, pattern, stream: Stream, policy: str = "next") -> list[Match]:
    return list(engine(name).compile(Query.of(pattern, policy=policy)).run(stream))

# ---------------------------------------------------------------- construction, Sec. 4.2


def q(*names: str) -> frozenset[str]:
    return frozenset(names)


def conditions(*texts: str) -> frozenset[Condition]:
    return frozenset(parse_condition(t) for t in texts)


def test_q1_automaton_has_the_states_of_fig5():
    n = ses_automaton(Q1)
    assert n.states == {q(), q("c"), q("d"), q("p"), q("c", "d"), q("c", "p"), q("d", "p"),
                        q("c", "d", "p"), q("c", "d", "p", "b")}
    assert n.start == q() and n.accepting == q("b", "c", "d", "p")


def test_q1_automaton_has_the_transitions_of_fig4_and_fig5():
    # Θ1..Θ16 of Fig. 4(a) and Θ'17 of Fig. 5; the transition each Θ labels is
    # read off the numbering (state by state, c before p before d). Θ9 ({p} --d)
    # is printed with c.ID = d.ID, which 4.2.1 excludes (c is not bound there;
    # docs/errata.md): we expect the definition's {d.L = 'D'}.
    c, d, p = "c.L = 'C'", "d.L = 'D'", "p.L = 'P'"
    cp, cd = "c.ID = p.ID", "c.ID = d.ID"
    expected = {
        (q(), "c"): conditions(c), (q(), "d"): conditions(d), (q(), "p"): conditions(p),
        (q("c"), "d"): conditions(d, cd), (q("c"), "p"): conditions(p, cp),
        (q("d"), "c"): conditions(c, cd), (q("d"), "p"): conditions(p),
        (q("p"), "c"): conditions(c, cp), (q("p"), "d"): conditions(d),
        (q("p"), "p"): conditions(p),
        (q("c", "d"), "p"): conditions(p, cp),
        (q("c", "p"), "d"): conditions(d, cd), (q("c", "p"), "p"): conditions(p, cp),
        (q("d", "p"), "c"): conditions(c, cd, cp), (q("d", "p"), "p"): conditions(p),
        (q("c", "d", "p"), "p"): conditions(p, cp),
        (q("c", "d", "p"), "b"): conditions("b.L = 'B'", "d.ID = b.ID", "c.ts < b.ts",
                                            "d.ts < b.ts", "p.ts < b.ts"),
    }
    got = {(t.source, t.variable): frozenset(t.conditions) for t in ses_automaton(Q1).transitions}
    assert got == expected


def test_fig3_single_set_automaton():
    # Example 5: <{b}> with b.L = 'B' has states ∅ and {b} and one transition.
    n = ses_automaton(parse_ses("PATTERN <{b}> WHERE b.L = 'B' WITHIN 264"))
    assert n.states == {q(), q("b")}
    assert [(t.source, t.variable, t.conditions) for t in n.transitions] == \
        [(q(), "b", tuple(conditions("b.L = 'B'")))]


def test_time_constraints_guard_only_the_transitions_leaving_a_set_start():
    # Sec. 4.2.2, applied as (N1 N2) N3: leaving the start of N3 requires every
    # variable bound so far (a and b) to be strictly earlier.
    n = ses_automaton(parse_ses("PATTERN <{a}, {b}, {c, d}> WITHIN 9"))
    guards = {(t.source, t.variable): frozenset(t.conditions) for t in n.transitions}
    assert guards[(q("a"), "b")] == conditions("a.ts < b.ts")
    assert guards[(q("a", "b"), "c")] == conditions("a.ts < c.ts", "b.ts < c.ts")
    assert guards[(q("a", "b", "c"), "d")] == frozenset()


def test_a_condition_without_variables_guards_the_first_transitions():
    n = ses_automaton(parse_ses("PATTERN <{a}, {b}> WHERE 1 = 2 WITHIN 9"))
    assert {t.variable for t in n.transitions if conditions("1 = 2") <= set(t.conditions)} \
        == {"a"}


def test_required_features_name_group_variables_and_prev():
    assert required_features(Q1) == {Feature("ses"), Feature("ses", "group-variables")}
    assert required_features(parse_ses("PATTERN <{a}> WHERE prev(a.V) < a.V WITHIN 1")) == \
        {Feature("ses"), Feature("ses", "prev")}


def test_construction_validates():
    window = Duration(1)
    with pytest.raises(InvalidAutomaton, match="only group variables loop"):
        SESAutomaton(states=frozenset({q(), q("a")}), start=q(), accepting=q("a"),
                     window=window, transitions=(SESTransition(q("a"), "a", ()),))
    with pytest.raises(InvalidAutomaton, match="start state"):
        SESAutomaton(states=frozenset({q("a")}), start=q(), accepting=q("a"), window=window,
                     transitions=())
    with pytest.raises(InvalidAutomaton, match="unbound"):
        SESAutomaton(states=frozenset({q(), q("a")}), start=q(), accepting=q("a"),
                     window=window,
                     transitions=(SESTransition(q(), "a", tuple(conditions("a.V = b.V"))),))
    with pytest.raises(InvalidAutomaton, match="leaves the set of states"):
        SESAutomaton(states=frozenset({q()}), start=q(), accepting=q(), window=window,
                     transitions=(SESTransition(q(), "a", (TRUE,)),))

# ---------------------------------------------------------------- execution, Sec. 4.3


def test_q1_corrected_next_reports_the_three_matches():
    assert set(run("ses-automaton", Q1, fig1())) == Q1_NEXT == matches(Q1, fig1(), "next")


def test_q1_faithful_reports_nothing_because_nothing_expires():
    # Alg. 1 reports on expiry only; e14 is 321 - 57 = 264 h after e1: not > τ.
    assert run("ses-automaton-faithful", Q1, fig1()) == []


def test_q1_faithful_reports_once_a_later_event_expires_the_runs():
    assert set(run("ses-automaton-faithful", Q1, fig1((3, "X", 1000)))) == Q1_NEXT


def test_faithful_never_reports_an_open_match():
    # Minimal: <{a}> on one A; the corrected run reports it at the end.
    p = parse_ses("PATTERN <{a}> WHERE a.L = 'A' WITHIN 5")
    assert run("ses-automaton-faithful", p, labelled(("A", 0))) == []
    assert run("ses-automaton", p, labelled(("A", 0))) == [Match.of({"a": [0]})]
    assert run("ses-automaton-faithful", p, labelled(("A", 0), ("B", 6))) == \
        [Match.of({"a": [0]})]


def test_q1_any_equals_the_reference():
    got = run("ses-automaton", Q1, fig1(), "any")
    assert len(got) == len(set(got)) and set(got) == matches(Q1, fig1(), "any")


def test_a_group_variable_binds_every_subset_under_any():
    # docs/architecture.md, "Kleene": 7 matches for b1 b2 b3.
    p = parse_ses("PATTERN <{b+}> WHERE b.L = 'B' WITHIN 10")
    assert len(set(run("ses-automaton", p, labelled(("B", 0), ("B", 1), ("B", 2)), "any"))) == 7


def test_prev_is_checked_on_the_consecutive_pair():
    # prev(p.V) < p.V with V = 1, 3, 2. Runs: from 0 take 3 (1 < 3), skip 2
    # (3 < 2 fails): {0, 1}; from 1: {1}; from 2: {2}.
    p = parse_ses("PATTERN <{p+}> WHERE prev(p.V) < p.V WITHIN 10")
    s = Stream.from_rows([{"ts": 0, "V": 1}, {"ts": 1, "V": 3}, {"ts": 2, "V": 2}])
    expected = {Match.of({"p": ps}) for ps in ([0, 1], [1], [2])}
    assert set(run("ses-automaton", p, s)) == expected == matches(p, s, "next")

# ---------------------------------------------------------------- counters


def test_q1_counters_lemma1_and_the_peak():
    # Lemma 1: the variables of Q1 are pairwise mutually exclusive, so no
    # instance branches: one instance created per event (Alg. 1 line 4).
    # Peak: the 9 C/D/P events before e12 each start a run, none expires
    # (153 - 57 < 264) and none completes before e12: |Ω| = 9 after e11.
    compiled = engine("ses-automaton").compile(Query.of(Q1, policy="next"))
    c = Counters()
    list(compiled.run(fig1(), counters=c))
    assert c.instances_created == 14
    assert c.peak_instances == 9
    assert c.events_read == 14 and c.events_filtered == 0


def test_counters_on_a_small_stream_by_hand():
    # <{a}, {b}> on A0 A1 B2, no filter. e0: start takes a (1 evaluation, 1 buffer).
    # e1: {a0} tests b.L (fails: 1), start takes a1 (1 + 1 buffer) -> |Ω| = 2.
    # e2: {a0}, {a1} each test b.L and a.ts < b.ts (2 + 2, 2 buffers) and are
    # final at once; start tests a.L (1). Evaluations 1 + 2 + 5 = 8.
    p = parse_ses("PATTERN <{a}, {b}> WHERE a.L = 'A' AND b.L = 'B' WITHIN 10")
    compiled = engine("ses-automaton-unfiltered").compile(Query.of(p, policy="next"))
    c = Counters()
    got = list(compiled.run(labelled(("A", 0), ("A", 1), ("B", 2)), counters=c))
    assert got == [Match.of({"a": [0], "b": [2]}), Match.of({"a": [1], "b": [2]})]
    assert (c.instances_created, c.peak_instances, c.predicate_evaluations,
            c.buffer_operations) == (3, 2, 8, 4)
    # The sound filter adds its own evaluations: A passes a's property (1 each),
    # B fails a's and passes b's (2): 4 more, and filters nothing here.
    filtered = engine("ses-automaton").compile(Query.of(p, policy="next"))
    c = Counters()
    list(filtered.run(labelled(("A", 0), ("A", 1), ("B", 2)), counters=c))
    assert c.predicate_evaluations == 12


def test_branching_without_mutual_exclusion():
    # <{a, b}> without conditions on x0 x1 x2: every start instance branches
    # into a and b (Thm 2: |V1|! = 2 paths): 3 starts + 3 extra branches; each
    # pair completes on the next event, so |Ω| is 2 after each event.
    p = parse_ses("PATTERN <{a, b}> WITHIN 10")
    compiled = engine("ses-automaton").compile(Query.of(p, policy="next"))
    c = Counters()
    got = set(compiled.run(labelled(("x", 0), ("x", 1), ("x", 2)), counters=c))
    assert got == {Match.of({"a": [0], "b": [1]}), Match.of({"b": [0], "a": [1]}),
                   Match.of({"a": [1], "b": [2]}), Match.of({"b": [1], "a": [2]})}
    assert (c.instances_created, c.peak_instances) == (6, 2)


@given(data=st.data())
def test_lemma1_mutually_exclusive_variables_never_branch(data):
    # Lemma 1: give each variable its own label (Def. 6), keep the drawn
    # relationships; then every instance takes at most one transition, so the
    # only instances created are the start instances, one per event read.
    drawn = data.draw(ses_patterns(max_vars=3), label="pattern")
    labels = data.draw(st.permutations(LABELS), label="labels")
    own = tuple(Cmp("=", Attr(v, "L"), Const(labels[k])) for k, v in enumerate(drawn.names))
    p = SESPattern(drawn.sets, own + drawn.relationships, drawn.window)
    stream = data.draw(streams(max_size=9), label="stream")
    compiled = engine("ses-automaton-unfiltered").compile(Query.of(p, policy="next"))
    c = Counters()
    list(compiled.run(stream, counters=c))
    assert c.instances_created == len(stream)


def test_the_filter_counts_and_changes_nothing():
    compiled = engine("ses-automaton").compile(Query.of(Q1, policy="next"))
    noisy = fig1((1, "X", 322), (2, "Y", 323))
    c = Counters()
    assert set(compiled.run(noisy, counters=c)) == Q1_NEXT
    assert c.events_filtered == 2

# ---------------------------------------------------------------- incremental runs


def test_a_match_is_emitted_as_soon_as_it_is_final():
    # Patient 1's match is complete at e12 (position 11); nothing can extend it.
    pulled = []

    def events():
        for ev in fig1():
            pulled.append(ev.position)
            yield ev

    compiled = engine("ses-automaton").compile(Query.of(Q1, time_unit="h", policy="next"))
    first = next(compiled.run(events()))
    assert first == Match.of({"c": [e(1)], "d": [e(3)], "p": [e(4), e(9)], "b": [e(12)]})
    assert pulled[-1] == e(12)


def test_memory_is_bounded_by_the_window_not_the_stream():
    # <{a}, {b}> within 2 over 1000 As at ts 0, 1, 2, ...: the instances alive
    # are those started in the last τ = 2 time units: at most 3.
    p = parse_ses("PATTERN <{a}, {b}> WHERE a.L = 'A' AND b.L = 'B' WITHIN 2")
    compiled = engine("ses-automaton").compile(Query.of(p, policy="next"))
    c = Counters()
    assert list(compiled.run((Event(i, i, None, {"L": "A"}) for i in range(1000)),
                             counters=c)) == []
    assert c.peak_instances == 3


def test_an_endless_stream_yields_matches():
    p = parse_ses("PATTERN <{a}, {b}> WHERE a.L = 'A' AND b.L = 'B' WITHIN 2")
    endless = (Event(i, i, None, {"L": "AB"[i % 2]}) for i in itertools.count())
    compiled = engine("ses-automaton").compile(Query.of(p, policy="next"))
    got = list(itertools.islice(compiled.run(endless), 3))
    assert got == [Match.of({"a": [k], "b": [k + 1]}) for k in (0, 2, 4)]

# ---------------------------------------------------------------- errata, seed 000


def test_paper_filter_drops_events_of_a_variable_without_property():
    # Sec. 4.5 keeps events satisfying "at least one" property; b has none, so
    # the X that b needs is dropped (docs/errata.md).
    p = parse_ses("PATTERN <{a}, {b}> WHERE a.L = 'A' WITHIN 10")
    s = labelled(("A", 0), ("X", 1))
    assert matches(p, s, "next") == {Match.of({"a": [0], "b": [1]})}
    assert run("ses-automaton", p, s) == [Match.of({"a": [0], "b": [1]})]
    assert run("ses-automaton-paper-filter", p, s) == []

# ---------------------------------------------------------------- brute force, Sec. 5.2


def test_example11_orderings():
    # Example 11 (all singletons): 3! * 1! = 6 sequences, each ending with b.
    p = parse_ses("PATTERN <{c, p, d}, {b}> WITHIN 264")
    got = {tuple(v.name for b in o for v in b) for o in orderings(p)}
    assert got == {("c", "d", "p", "b"), ("c", "p", "d", "b"), ("d", "c", "p", "b"),
                   ("d", "p", "c", "b"), ("p", "c", "d", "b"), ("p", "d", "c", "b")}


def test_q1_bruteforce_paths_and_its_instances():
    # Sec. 5.3: with mutually exclusive variables each start instance of the
    # SES automaton becomes (|V1| - 1)! = 2 in the brute force (Table 1).
    compiled = engine("ses-bruteforce").compile(Query.of(Q1, policy="next"))
    c = Counters()
    assert set(compiled.run(fig1(), counters=c)) == Q1_NEXT
    assert c.peak_instances == 2 * 9
    assert len(compiled.initial) == 6


def test_q1_paper_bruteforce_misses_interleaved_group_events():
    # Each variable its own set: p's events cannot surround d and c, so the run
    # p/e6 d/e7 c/e8 ignores e10, e11 and ends with b/e13 (docs/errata.md).
    got = set(BruteForceEngine(orderings="sets").compile(Query.of(Q1, policy="next")).run(fig1()))
    assert Match.of({"p": [e(6)], "d": [e(7)], "c": [e(8)], "b": [e(13)]}) in got
    assert Match.of({"p": [e(6), e(10), e(11)], "d": [e(7)], "c": [e(8)], "b": [e(13)]}) \
        not in got


def test_paper_bruteforce_misses_ties_inside_a_set():
    p = parse_ses("PATTERN <{a, b}> WHERE a.L = 'A' AND b.L = 'B' WITHIN 10")
    s = labelled(("A", 0), ("B", 0))
    assert matches(p, s, "next") == {Match.of({"a": [0], "b": [1]})}
    assert list(BruteForceEngine(orderings="sets").compile(Query.of(p, policy="next")).run(s)) == []
    assert run("ses-bruteforce", p, s) == [Match.of({"a": [0], "b": [1]})]


def test_bruteforce_next_keeps_a_run_that_skipped_a_takeable_event():
    # <{a, b, c}> on A C B C: the SES run from A takes C1 (c), then B2. The
    # ordering a, b, c cannot take C1, skips it, and ends with c/3.
    p = parse_ses("PATTERN <{a, b, c}> WHERE a.L = 'A' AND b.L = 'B' AND c.L = 'C' WITHIN 10")
    s = labelled(("A", 0), ("C", 1), ("B", 2), ("C", 3))
    assert matches(p, s, "next") == {Match.of({"a": [0], "c": [1], "b": [2]})}
    assert set(run("ses-bruteforce", p, s)) == {Match.of({"a": [0], "c": [1], "b": [2]}),
                                                Match.of({"a": [0], "b": [2], "c": [3]})}
