"""Z3 proofs about the DSRT with marks (proofs/srt/marked.py; engines/srt/lazy_dsrt.py, seed 004
report Thm 41 / Alg. 7 with register copies): time windows and bodies that write then read a
register, proved up to a bound on symbolic strings with symbolic timestamps, and refuted on
deliberately broken DSRTs by a string that really tells them apart (replayed through the
broken DSRT's own run, the ``srt`` engine and the reference).

Expected verdicts by hand:

- ``(mark A ; TRUE* ; mark B)[WITHIN 5]`` with clocks one wider (``≤ 6``) reports the
  marks ``{A, B}`` of an A and a B exactly 6 apart (integer timestamps), which the
  definition rejects (span 6 > 5);
- ``TRUE* ; A -> r ; TRUE* ; mark {B, ~.V > r.V}`` keeps one copy of ``r`` per earlier A
  (each start of a run may have written it); a DSRT that keeps only the oldest copy (the
  others dropped) misses the B whose V exceeds a later A's V but not the first A's.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kleene.conformance.sremo_strategies import gapped_sremo_expressions, sremo_expressions
from kleene.engines.protocol import Query
from kleene.engines.registry import engine
from kleene.engines.srt import lazy_dsrt as module
from kleene.engines.srt.compile import compile_sremo
from kleene.engines.srt.lazy_dsrt import LazyDSRT, Member
from kleene.engines.srt.lazy_pass import Table
from kleene.proofs.results import CounterExample, Proved, Unknown
from kleene.proofs.srt import marked
from kleene.proofs.srt.marked import lazy_dsrt, marked_complement, marked_equivalence
from kleene.proofs.srt.report import prove
from kleene.proofs.srt.symbolic import accepts
from kleene.reference.events import Stream
from kleene.reference.match import MARKED, Match
from kleene.reference.sremo import parse_sremo

TIMED = "(mark {~.L = 'A'} ; {TRUE}* ; mark {~.L = 'B'})[WITHIN 5]"
COPIES = "{TRUE}* ; {~.L = 'A'} -> r ; {TRUE}* ; mark {~.L = 'B' AND ~.V > r.V}"
PROVED = [
    TIMED,
    "mark {~.L = 'A'} -> r ; mark {~.V > r.V}",                       # writes then reads
    "(mark {~.L = 'A'} -> r ; {TRUE}* ; mark {~.V > r.V})[WITHIN 3]",  # both
    "(mark {~.L = 'A'} ; !({~.L = 'C'}) ; mark {~.L = 'B'})[WITHIN 5]",  # a negation inside
    COPIES,
]


@pytest.mark.parametrize("text", PROVED)
def test_the_engines_dsrt_with_marks_equals_the_srt_and_complements_it(text):
    e = parse_sremo(text)
    # the automaton proved is the one the engine runs
    assert isinstance(engine("dsrt").compile(Query.of(e, policy="stream")), LazyDSRT)
    for prove_it in (marked_equivalence, marked_complement):
        r = prove_it(e, 4, timeout_ms=20_000)
        assert isinstance(r, Proved) and r.bound == 4, (prove_it.__name__, r)


class WiderClocks(LazyDSRT):
    """A DSRT whose clocks are one wider than the SRT's (an off-by-one window)."""

    def _table(self, s: frozenset[Member]) -> Table:
        t = super()._table(s)
        atoms = list(t.atoms)
        for i, slot, bound, inside in t.clocks:
            atoms[i] = module._clock(slot, bound + 1, inside)
        return replace(t, atoms=tuple(atoms), clocks=tuple(
            (i, slot, bound + 1, inside) for i, slot, bound, inside in t.clocks))


class OneCopy(LazyDSRT):
    """A DSRT that keeps, per SRT state, only the member holding the oldest elements: the
    other register copies are dropped."""

    def _out(self, reached: set[Member], is_marked: bool, width: int
             ) -> tuple[int, tuple[int, ...] | None, bool]:
        oldest: dict[int, Member] = {}
        for q, slots in sorted(reached):
            oldest.setdefault(q, (q, slots))
        return super()._out(set(oldest.values()), is_marked, width)


class StoppedClocks(LazyDSRT):
    """A DSRT whose clock tests never hold, while its tables still say which clocks they
    test (what the proof encodes): only running it shows the difference."""

    def _table(self, s: frozenset[Member]) -> Table:
        t = super()._table(s)
        atoms = list(t.atoms)
        for i, *_ in t.clocks:
            atoms[i] = lambda u, regs: False
        return replace(t, atoms=tuple(atoms))


def _mutant(cls: type[LazyDSRT], text: str) -> LazyDSRT:
    d = lazy_dsrt(parse_sremo(text))
    return cls(d.srt, "literal", d.max_states)


def _reports(d: LazyDSRT, text: str, s: Stream
             ) -> tuple[set[Match], set[Match], set[Match]]:
    query = Query.of(parse_sremo(text), policy="literal")
    return set(d.run(s)), set(engine("srt").compile(query).run(s)), query.reference(s)


def test_an_off_by_one_window_is_refuted_by_marks_6_apart():
    d = _mutant(WiderClocks, TIMED)
    r = marked_equivalence(parse_sremo(TIMED), 4, dsrt=d)
    assert isinstance(r, CounterExample), r
    got, srt, reference = _reports(d, TIMED, r.stream)
    assert srt == reference and got != srt
    for m in got - srt:   # by hand: an A and a B marked exactly 6 apart
        first, last = (r.stream[p] for p in (min(m[MARKED]), max(m[MARKED])))
        assert (first.value("L"), last.value("L")) == ("A", "B")
        assert last.ts - first.ts == 6
    assert not srt - got
    assert "the srt engine" in r.note and "the reference" in r.note


def test_the_complement_of_an_off_by_one_window_is_refuted():
    e = parse_sremo(TIMED)
    d = _mutant(WiderClocks, TIMED)
    r = marked_complement(e, 4, dsrt=d)
    assert isinstance(r, CounterExample), r
    # replayed: the SRT accepts the string iff the broken complement does (both accept)
    got, _, _ = _reports(d, TIMED, r.stream)
    assert accepts(compile_sremo(e), r.stream) == (not got)
    # by hand: the wider DSRT accepts a superset, so both reject: the SRT an A ... B 6
    # apart (the whole string, policy literal), which the wider clocks accept
    assert not accepts(compile_sremo(e), r.stream) and got
    assert (r.stream[0].value("L"), r.stream[-1].value("L")) == ("A", "B")
    assert r.stream[-1].ts - r.stream[0].ts == 6


def test_a_dropped_register_copy_is_refuted_by_a_later_smaller_a():
    d = _mutant(OneCopy, COPIES)
    r = marked_equivalence(parse_sremo(COPIES), 4, dsrt=d)
    assert isinstance(r, CounterExample), r
    got, srt, reference = _reports(d, COPIES, r.stream)
    assert srt == reference and got != srt
    assert not got - srt
    for m in srt - got:  # by hand: the first A's V is not exceeded, a later A's is
        (b,) = m[MARKED]
        values = [u.value("V") for u in r.stream[:b] if u.value("L") == "A"]
        v = r.stream[b].value("V")
        assert len(values) >= 2 and not _above(v, values[0])
        assert any(_above(v, x) for x in values[1:])


def _above(v: object, x: object) -> bool:
    """``v > x`` is true (a missing value makes the comparison unknown: not true)."""
    return isinstance(v, int) and isinstance(x, int) and v > x


def test_a_dsrt_whose_tests_differ_from_its_tables_is_caught_by_replaying_its_walks():
    d = _mutant(StoppedClocks, TIMED)
    r = marked_equivalence(parse_sremo(TIMED), 4, dsrt=d)
    assert isinstance(r, CounterExample), r
    got, srt, reference = _reports(d, TIMED, r.stream)
    # by hand: the first accepting walk is an A then a B within 5, which srt reports and
    # a DSRT whose clocks never hold does not
    assert not got and srt == reference == {Match.marked((0, 1))}


def test_proved_says_how_many_accepting_walks_were_replayed():
    r = marked_equivalence(parse_sremo(TIMED), 4)
    # by hand: the marks A·B, A·x·B, A·x·y·B; a gap element x, y (unmarked, within 5 of
    # the A) is two minterms, a B or not (the state tests ~.L = 'B' and the clock):
    # 1 + 2 + 4 walks
    assert isinstance(r, Proved) and r.note.startswith("the dsrt's 7 accepting walks")


def test_the_walk_cap_says_the_length_it_decided(monkeypatch):
    monkeypatch.setattr(marked, "MAX_WALKS", 3)
    r = marked_equivalence(parse_sremo(TIMED), 4)
    assert isinstance(r, Unknown)
    # by hand: 1 walk after one element (a marked A), 3 after two (A then B or a gap)
    assert "more than 3 walks" in r.reason and "decided up to 2 elements" in r.reason


def test_prove_answers_a_time_window_and_register_copies():
    for text in (TIMED, "mark {~.L = 'A'} -> r ; mark {~.V > r.V}"):
        checks = list(prove(parse_sremo(text), sections=("dsrt", "negation")))
        assert [(c.section, c.subject) for c in checks] == [
            ("dsrt", "srt = dsrt (marks)"), ("negation", "complement (marks)")]
        assert all(isinstance(c.result, Proved) and c.result.bound == 4 for c in checks)


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(e=st.one_of(gapped_sremo_expressions(), sremo_expressions(max_depth=2,
                                                                time_windows=True)))
def test_the_engines_dsrt_with_marks_is_never_refuted_on_drawn_expressions(e):
    """The engine is checked against the reference elsewhere (test_srt_dsrt_time): on a
    drawn expression neither proof finds a counterexample, and every model of Z3 replays
    (one that did not would be an encoding that differs from the engine's tests)."""
    for prove_it in (marked_equivalence, marked_complement):
        r = prove_it(e, 3, timeout_ms=20_000)
        assert not isinstance(r, CounterExample), (r.note, r.stream)
        assert not isinstance(r, Unknown) or "did not replay" not in r.reason, r
