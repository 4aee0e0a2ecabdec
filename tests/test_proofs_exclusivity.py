"""Mutual exclusivity (seed 000 Def. 6), Lemma 1's certificate, Theorem 1 on the engine.

A certified pattern's automaton never branches: on generated streams the
engine creates exactly one instance per event (no branch) and Ω never holds
two instances started at the same event. Where exclusivity fails, Z3's event
satisfies both variables in the reference, and Z3's stream makes the engine
branch.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kleene.conformance.strategies import LABELS, ses_patterns, streams
from kleene.engines.protocol import Counters
from kleene.engines.ses.automaton import ses_automaton
from kleene.engines.ses.run import Execution
from kleene.engines.spans import Window
from kleene.proofs.results import CounterExample, Proved
from kleene.proofs.ses.exclusivity import (
    LEMMA_1,
    branches,
    determinism_certificate,
    exclusivity,
    never_branches,
)
from kleene.reference.conditions import Attr, Cmp, Const, is_property_of
from kleene.reference.events import Stream
from kleene.reference.ses.filtering import satisfies
from kleene.reference.ses.pattern import SESPattern
from kleene.reference.ses.text import parse_ses

# Pairwise exclusive through L, with a group variable looping beside a singleton.
EXCLUSIVE = parse_ses("""PATTERN <{a, b+}, {c}>
WHERE a.L = 'A' AND b.L = 'B' AND c.L = 'C' AND a.ID = b.ID AND prev(b.V) <= b.V
WITHIN 6""")

# b and c overlap: an event with L = 'B' satisfies both.
OVERLAPPING = parse_ses("""PATTERN <{a, b, c}>
WHERE a.L = 'A' AND b.L != 'A' AND c.L = 'B'
WITHIN 6""")


def test_exclusive_variables_get_a_determinism_certificate() -> None:
    assert all(isinstance(r, Proved) for r in exclusivity(EXCLUSIVE).values())
    assert determinism_certificate(EXCLUSIVE) == Proved(LEMMA_1)
    assert never_branches(ses_automaton(EXCLUSIVE)) == Proved(
        "no instance of the SES automaton ever branches")


def test_overlapping_variables_have_an_event_satisfying_both() -> None:
    results = exclusivity(OVERLAPPING)
    assert isinstance(results[("a", "b")], Proved)
    overlap = results[("b", "c")]
    assert isinstance(overlap, CounterExample)
    e = overlap.stream[0]
    assert satisfies(OVERLAPPING, "b", e) and satisfies(OVERLAPPING, "c", e)
    assert determinism_certificate(OVERLAPPING) == overlap


def test_without_a_certificate_z3_finds_a_stream_where_the_engine_branches() -> None:
    n = ses_automaton(OVERLAPPING)
    r = never_branches(n, bound=4)
    assert isinstance(r, CounterExample)
    assert branches(n, r.stream) > 0


def test_an_automaton_can_be_deterministic_without_exclusive_variables() -> None:
    """<{a}, {b}> without conditions: a and b are not exclusive (Def. 6), yet every
    state has one outgoing transition, so the automaton never branches."""
    p = parse_ses("PATTERN <{a}, {b}> WITHIN 3")
    assert isinstance(determinism_certificate(p), CounterExample)
    assert isinstance(never_branches(ses_automaton(p)), Proved)


def _run_counting(p: SESPattern, s: Stream) -> tuple[int, int]:
    """Drive the engine's execution; return (instances created, most instances sharing
    a start event at any time)."""
    n = ses_automaton(p)
    counters = Counters()
    ex = Execution(n, win=Window(n.window.in_units_of(s.time_unit)), policy="next",
                   variant="corrected", counters=counters)
    most = 0
    for e in s:
        ex.step(e)
        firsts = [inst.first.position for inst in ex.omega]
        most = max([most, *(firsts.count(f) for f in firsts)])
    ex.finish()
    return counters.instances_created, most


labelled = streams(max_size=10)


@settings(max_examples=200)
@given(labelled)
def test_theorem_1_a_certified_pattern_never_branches(s: Stream) -> None:
    """Thm 1: one instance per start event, so |Ω| ≤ the events within τ."""
    created, most = _run_counting(EXCLUSIVE, s)
    assert created == len(s) and most <= 1


def test_the_uncertified_pattern_does_branch_on_some_stream() -> None:
    """The Theorem 1 check can fail: two instances with one start event."""
    s = Stream.from_rows([{"ts": 0, "L": "A"}, {"ts": 1, "L": "B"}])
    created, most = _run_counting(OVERLAPPING, s)
    assert created > len(s) and most == 2


@st.composite
def labelled_patterns(draw: st.DrawFn) -> SESPattern:
    """A generated pattern whose variables get pairwise distinct labels (exclusive)."""
    p = draw(ses_patterns(max_vars=3), label="pattern")
    kept = tuple(c for c in p.conditions if not any(is_property_of(c, v) for v in p.names))
    labels = tuple(Cmp("=", Attr(v, "L"), Const(label))
                   for v, label in zip(p.names, LABELS, strict=False))
    return SESPattern(p.sets, labels + kept, p.window)


@settings(max_examples=40)
@given(labelled_patterns(), st.lists(streams(max_size=8), min_size=3, max_size=3))
def test_theorem_1_on_generated_certified_patterns(p: SESPattern, ss: list[Stream]) -> None:
    assert isinstance(determinism_certificate(p), Proved)
    for s in ss:
        created, most = _run_counting(p, s)
        assert created == len(s) and most <= 1


@settings(max_examples=40)
@given(ses_patterns(max_vars=3), streams(max_size=4))
def test_never_branches_agrees_with_the_engine(p: SESPattern, s: Stream) -> None:
    """Proved (up to 4 events): the engine does not branch on a stream of ≤ 4 events;
    refuted: it branches on the counterexample."""
    n = ses_automaton(p)
    r = never_branches(n, bound=4)
    if isinstance(r, Proved):
        assert branches(n, s) == 0
    else:
        assert isinstance(r, CounterExample) and branches(n, r.stream) > 0
