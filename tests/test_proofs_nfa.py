"""Bounded equivalence of the seed 003 NFAs and the operator reference (proofs/nfa/),
and witness streams driving the eager NFA's transitions, fed to the differential runner.

The failing case is built to fail: the eager NFA compiled for the pattern without
its window reports, on a stream whose A and B are more than τ apart, a match the
reference (with the window) does not find.
"""

from __future__ import annotations

from collections.abc import Hashable

import pytest

from kleene.conformance.differential import check_engine, reference_matches
from kleene.engines.nfa.engine import CompiledNFA
from kleene.engines.protocol import Compiled
from kleene.engines.registry import engine
from kleene.proofs.nfa.classes import stream_classes
from kleene.proofs.nfa.equivalence import (
    NFA_ENGINES,
    claiming,
    coverage,
    driven,
    equivalence,
)
from kleene.proofs.results import CounterExample, Proved, Unknown
from kleene.reference.match import Match
from kleene.reference.operators.text import parse_operator
from kleene.reference.query import Query

SAME_TYPE = "PATTERN SEQ(A a, A b)"


def _nfa(compiled: Compiled) -> CompiledNFA:
    assert isinstance(compiled, CompiledNFA)
    return compiled


def _ideal(state: Hashable) -> frozenset[str]:
    """The bound variables of a lazy NFA state ``(branch, variables)``."""
    assert isinstance(state, tuple)
    return frozenset(state[1])


def test_every_nfa_engine_equals_the_reference_on_streams_of_five_events():
    results = equivalence(parse_operator(SAME_TYPE), bound=5)
    assert set(results) == set(NFA_ENGINES)
    for name, r in results.items():
        assert isinstance(r, Proved) and r.bound == 5, (name, r)


def test_an_engine_without_the_window_is_refuted_with_a_stream():
    pattern = parse_operator("PATTERN SEQ(A a, B b) WITHIN 2")
    loose = engine("nfa-eager").compile(Query.of(parse_operator("PATTERN SEQ(A a, B b)")))
    r = equivalence(pattern, compiled={"loose": loose}, bound=3)["loose"]
    assert isinstance(r, CounterExample) and r.match is not None
    assert r.match not in reference_matches(pattern, r.stream, "any")
    a, b = r.stream[r.match["a"][0]], r.stream[r.match["b"][0]]
    assert b.ts - a.ts > 2   # the window is what the loose engine forgot


def test_the_class_limit_makes_the_verdict_unknown(monkeypatch):
    from kleene.proofs.nfa import equivalence as module

    def few(pattern, bound, **options):
        return stream_classes(pattern, bound, limit=10, **options)
    monkeypatch.setattr(module, "stream_classes", few)
    r = module.equivalence(parse_operator(SAME_TYPE), bound=5)
    assert all(isinstance(x, Unknown) and "more than 10 classes" in x.reason
               for x in r.values())


def test_the_eager_path_of_a_match_binds_in_stream_order():
    m = Match.of({"a": [0], "b": [2, 3]})
    start: tuple[int, frozenset[str]] = (0, frozenset())
    a, ab = (0, frozenset({"a"})), (0, frozenset({"a", "b"}))
    assert driven(m) == {(start, a, "a"), (a, a, None), (a, ab, "b"), (ab, ab, "b")}


@pytest.mark.parametrize(("text", "k"), [("PATTERN SEQ(A a, A+ b[])", 4),
                                         ("PATTERN SEQ(A a, NOT(B n), C c) WITHIN 10", 3)])
def test_witnesses_drive_the_eager_transitions_and_pass_the_differential_runner(text, k):
    pattern = parse_operator(text)
    streams = list(stream_classes(pattern, k))
    cov = coverage(pattern, streams)
    binding = [t for t in cov.witnesses if t.kind == "bind"]
    assert binding and all(cov.witnesses[t] is not None for t in binding)
    (waiting,) = [t for t in cov.witnesses if t.kind == "skip" and t.source == (0, frozenset())]
    assert cov.witnesses[waiting] is None   # a match's path starts with its first event
    assert str(cov) == f"{cov.covered} of {len(cov.witnesses)} transitions driven"
    witnesses = {id(s): s for s in cov.witnesses.values() if s is not None}
    for s in witnesses.values():
        for name in claiming(pattern):
            check_engine(engine(name), "any", pattern, s)


def test_timestamps_and_values_enumerated_apart_give_the_joint_classes(monkeypatch):
    from kleene.proofs.nfa import classes

    pattern = parse_operator("PATTERN SEQ(A a, B b) WHERE a.V < b.V WITHIN 10")
    apart = list(stream_classes(pattern, 2))   # timestamps by regions.py, values by Z3
    monkeypatch.setattr(classes, "reads_ts", lambda pattern: True)   # everything by Z3,
    monkeypatch.setattr(classes, "_timed", lambda atom: None)        # in one enumeration
    joint = list(stream_classes(pattern, 2))
    assert len(apart) == len(joint) > 0
    # by hand, streams of two events A then B: ts tie or not, times the window's three
    # cases (< τ, = τ, > τ) when apart, times V below / not below / unknown
    ab = [s for s in apart if [e.type for e in s] == ["A", "B"]]
    assert len(ab) == (1 + 3) * 3


def test_lazy_coverage_comes_from_the_run_traces_and_witnesses_pass_the_runner():
    from kleene.engines.nfa.trace import trace_nfa
    from kleene.proofs.nfa.coverage import drawn_order, lazy_coverage, off_order, traced

    pattern = parse_operator("PATTERN SEQ(A a, A+ b[])")
    streams = list(stream_classes(pattern, 4))
    compiled = {name: _nfa(c) for name, c in claiming(pattern).items()}
    # by hand: the chain a → b (iterated slots last, Sec. 4.5) has the skip loops of ∅
    # and a, the takes of a and b and b's loop; only the start's skip lies on no run
    chain = lazy_coverage(compiled["nfa-chain"], streams)
    assert str(chain) == "4 of 5 transitions driven"
    assert [t.kind for t, s in chain.witnesses.items() if s is None] == ["skip"]
    # the Tree NFA never roots at the iterated b while a is free (Sec. 4.5): every
    # transition out of ∅ by b, and all that follow it, are never taken
    tree = lazy_coverage(compiled["nfa-tree"], streams)
    never = {(_ideal(t.source), _ideal(t.target), t.variable)
             for t, s in tree.witnesses.items() if s is None}
    b, ab = frozenset({"b"}), frozenset({"a", "b"})
    assert never == {(frozenset(), frozenset(), None), (frozenset(), b, "b"),
                     (b, b, None), (b, ab, "a"), (b, b, "b")}
    # those off the current order a, b (its picture's bold path) are named so: all but
    # the start's skip loop
    off = {(_ideal(t.source), _ideal(t.target), t.variable) for t in off_order(drawn_order(
        compiled["nfa-tree"]))}
    assert off == never - {(frozenset(), frozenset(), None)}
    assert off_order(drawn_order(compiled["nfa-chain"])) == set()
    for name in ("nfa-chain", "nfa-chain-fc", "nfa-multichain", "nfa-tree"):
        cov = lazy_coverage(compiled[name], streams)
        nfa = drawn_order(compiled[name])
        for t, s in cov.witnesses.items():
            if s is None:
                continue
            assert (t.source, t.target, t.variable) in traced(nfa, s)
            assert set(trace_nfa(nfa, s).matches) == reference_matches(pattern, s, "any")
            check_engine(engine(name), "any", pattern, s)


def test_a_take_no_event_can_satisfy_is_never_driven():
    from kleene.proofs.nfa.coverage import lazy_coverage

    pattern = parse_operator("PATTERN SEQ(A a, C c) WHERE c.V > 1 AND c.V < 1")
    streams = list(stream_classes(pattern, 3))
    for name, c in claiming(pattern).items():
        if name == "nfa-eager":
            continue
        cov = lazy_coverage(_nfa(c), streams)
        dead = [t for t, s in cov.witnesses.items() if s is None and t.variable == "c"]
        assert dead, name   # the take of c (and what follows it) is never driven
        assert cov.covered < len(cov.witnesses)


def test_aggregates_are_atoms_of_the_nfa_equivalence():
    pattern = parse_operator("PATTERN SEQ(A a, B+ b[]) WHERE SUM(b.V) > a.V")
    results = equivalence(pattern, bound=3)
    assert set(results) == set(NFA_ENGINES)
    assert all(isinstance(r, Proved) and r.bound == 3 for r in results.values()), results


def test_an_engine_that_reads_max_for_sum_is_refuted():
    pattern = parse_operator("PATTERN SEQ(A a, B+ b[]) WHERE SUM(b.V) > a.V")
    wrong = engine("nfa-eager").compile(
        Query.of(parse_operator("PATTERN SEQ(A a, B+ b[]) WHERE MAX(b.V) > a.V")))
    r = equivalence(pattern, compiled={"max": wrong}, bound=3)["max"]
    assert isinstance(r, CounterExample) and r.match is not None
    # by hand: the two differ only when several b add up past a.V while none alone does
    a = r.stream[r.match["a"][0]].attrs["V"]
    assert isinstance(a, int | float)
    bs = [r.stream[p].attrs.get("V") for p in r.match["b"]]
    numbers = [v for v in bs if isinstance(v, int | float)]
    assert len(r.match["b"]) >= 2 and (sum(numbers) > a) != (max(numbers) > a)


def test_an_engine_compiled_to_the_same_automaton_is_run_once():
    from kleene.proofs.nfa.equivalence import runs, twins

    compiled = runs(parse_operator("PATTERN SEQ(A a, B b) WITHIN 3"), ("any", "contiguous"))
    # nfa-multichain reads its flag only to refuse OR: without OR it is nfa-chain's
    # automaton; first-chance negation (nfa-chain-fc) and the Tree NFA are not
    assert twins(compiled) == {"nfa-multichain under any": "nfa-chain under any",
                               "nfa-multichain under contiguous": "nfa-chain under contiguous"}
    assert twins(runs(parse_operator("PATTERN OR(SEQ(A a, B b), SEQ(C c, A d))"))) == {}
    # a twin of a refuted engine is refuted with its own name
    loose = engine("nfa-eager").compile(Query.of(parse_operator("PATTERN SEQ(A a, B b)")))
    same = engine("nfa-eager").compile(Query.of(parse_operator("PATTERN SEQ(A a, B b)")))
    r = equivalence(parse_operator("PATTERN SEQ(A a, B b) WITHIN 2"),
                    compiled={"loose": loose, "same": same}, bound=3)
    assert isinstance(r["same"], CounterExample) and r["same"].claim.startswith("same ")
    assert isinstance(r["loose"], CounterExample) and r["same"].stream == r["loose"].stream


@pytest.mark.parametrize("window", [None, 10])
def test_the_timestamp_classes_enumerated_directly_are_z3s(monkeypatch, window):
    from fractions import Fraction

    from kleene.proofs.nfa import classes
    from kleene.proofs.nfa.regions import stamp_classes

    text = "PATTERN SEQ(A a, B b)" + ("" if window is None else f" WITHIN {window}")
    pattern = parse_operator(text)
    direct = list(stream_classes(pattern, 3))
    monkeypatch.setattr(classes, "reads_ts", lambda pattern: True)   # Z3's enumeration
    assert len(direct) == len(list(stream_classes(pattern, 3)))
    tau = None if window is None else Fraction(window)
    # by hand, two typed events: tied or not, and apart below, at or beyond τ
    assert len(stamp_classes((True, True), tau)) == (2 if window is None else 4)
    # an event of another type has no timestamp atom: it adds no class
    assert stamp_classes((True, False, True), tau) == tuple(
        (x[0], x[0], x[1]) for x in stamp_classes((True, True), tau))
    # each class differs from the others in some atom (no stream is run twice)
    stamps = stamp_classes((True,) * 4, tau)
    def atoms(ts):
        return tuple((ts[i] < ts[j], tau is None or ts[j] - ts[i] <= tau,
                      tau is None or ts[j] - ts[i] < tau)
                     for i in range(4) for j in range(i + 1, 4))
    assert len({atoms(x) for x in stamps}) == len(stamps) == (8 if window is None else 88)


def test_every_nfa_engine_equals_the_reference_on_two_types_and_five_events():
    # 1,956 classes: the timestamps enumerated directly, the engine twins run once
    results = equivalence(parse_operator("PATTERN SEQ(A a, B b)"), bound=5)
    assert all(isinstance(r, Proved) and r.bound == 5 for r in results.values()), results


def test_a_timestamp_enumeration_without_the_open_cells_misses_classes(monkeypatch):
    from fractions import Fraction

    from kleene.proofs.nfa import regions

    full = len(regions.stamp_classes((True,) * 3, Fraction(10)))
    points_only = regions._candidates

    def no_cells(stamps, typed, tau):   # each point, but nothing between two of them
        out = points_only(stamps, typed, tau)
        return [t for t in out if t.denominator == 1][:-1] or out[:1]
    monkeypatch.setattr(regions, "_candidates", no_cells)
    regions.stamp_classes.cache_clear()
    try:
        assert len(regions.stamp_classes((True,) * 3, Fraction(10))) < full == 18
    finally:
        regions.stamp_classes.cache_clear()
