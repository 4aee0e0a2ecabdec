"""Bounded equivalence of the seed 003 NFAs and the reference by symbolic streams
(proofs/nfa/bounded.py, definition.py, plans.py), and witnesses or proofs of death for
the lazy NFAs' transitions (proofs/nfa/reach.py).

Proved: every NFA engine on patterns with a comparison between two variables, a
negation and an aggregate, to 8 events. Refuted, with the counterexample stream run
through the broken engine and the reference: engines compiled for a pattern without
the window, with ``<=`` for ``<``, without the ``NOT``, reading ``MAX`` for ``SUM`` or
``SUM`` for ``AVG``.
The encoding of the reference is checked against the reference itself on concrete
streams (the reference is the oracle).
"""

from __future__ import annotations

import pytest
import z3

from kleene.conformance.differential import check_engine, reference_matches
from kleene.engines.nfa.engine import CompiledNFA
from kleene.engines.protocol import Compiled
from kleene.engines.registry import engine
from kleene.proofs.encode import as_z3
from kleene.proofs.nfa import bounded
from kleene.proofs.nfa.bounded import symbolic_equivalence, symbolic_stream
from kleene.proofs.nfa.classes import schema_of, stream_classes
from kleene.proofs.nfa.coverage import drawn_order, traced
from kleene.proofs.nfa.definition import reference_match
from kleene.proofs.nfa.equivalence import NFA_ENGINES, claiming
from kleene.proofs.nfa.reach import witness
from kleene.proofs.results import CounterExample, Proved, Unknown
from kleene.proofs.solver import Outcome
from kleene.reference.errors import Unsupported
from kleene.reference.events import Event, Stream
from kleene.reference.match import Match
from kleene.reference.operators.text import parse_operator
from kleene.reference.query import Query

COMPARED = "PATTERN SEQ(A a, B b) WHERE a.V < b.V WITHIN 10"
NEGATED = "PATTERN SEQ(A a, NOT(C c), B b) WHERE a.V < b.V AND c.V = a.V WITHIN 10"
SUMMED = "PATTERN SEQ(A a, B+ b[]) WHERE SUM(b.V) > a.V"


def _compiled(text: str) -> Compiled:
    return engine("nfa-eager").compile(Query.of(parse_operator(text)))


def _refuted(pattern_text: str, wrong_text: str, bound: int) -> CounterExample:
    """The counterexample against the eager NFA compiled for ``wrong_text``, checked by
    running that engine and the reference on its stream."""
    pattern, wrong = parse_operator(pattern_text), _compiled(wrong_text)
    r = symbolic_equivalence(pattern, compiled={"wrong": wrong}, bound=bound)["wrong"]
    assert isinstance(r, CounterExample) and r.match is not None, r
    assert (r.match in set(wrong.run(r.stream))) != (
        r.match in reference_matches(pattern, r.stream, "any"))
    return r


def test_a_comparison_between_two_variables_is_proved_for_eight_events():
    results = symbolic_equivalence(parse_operator(COMPARED), bound=8)
    assert set(results) == set(NFA_ENGINES)
    for name, r in results.items():
        assert isinstance(r, Proved) and r.bound == 8, (name, r)


@pytest.mark.parametrize("text", [NEGATED, SUMMED,
                                  "PATTERN OR(SEQ(A a, B b), SEQ(C c, A d)) WITHIN 5",
                                  "PATTERN AND(A a, B{2,3} b[]) WHERE prev(b.V) < b.V"])
def test_negation_aggregates_or_and_prev_are_proved_under_both_policies(text):
    results = symbolic_equivalence(parse_operator(text), policies=("any", "contiguous"),
                                   bound=5)
    assert results
    for name, r in results.items():
        assert isinstance(r, Proved) and r.bound == 5, (name, r)


def test_an_engine_without_the_window_is_refuted():
    r = _refuted("PATTERN SEQ(A a, B b) WITHIN 2", "PATTERN SEQ(A a, B b)", 3)
    assert r.match is not None
    a, b = r.stream[r.match["a"][0]], r.stream[r.match["b"][0]]
    assert b.ts - a.ts > 2   # by hand: only a pair further apart than τ tells them apart


def test_an_engine_comparing_with_le_for_lt_is_refuted():
    r = _refuted(COMPARED, COMPARED.replace("a.V < b.V", "a.V <= b.V"), 4)
    assert r.match is not None
    a, b = r.stream[r.match["a"][0]], r.stream[r.match["b"][0]]
    assert a.attrs["V"] == b.attrs["V"]   # by hand: they differ on equal values only


def test_an_engine_without_the_negation_is_refuted():
    r = _refuted(NEGATED, "PATTERN SEQ(A a, B b) WHERE a.V < b.V WITHIN 10", 4)
    assert r.match is not None
    a, b = r.stream[r.match["a"][0]], r.stream[r.match["b"][0]]
    # by hand: a C strictly between them with c.V = a.V forbids the match
    assert any(e.type == "C" and a.ts < e.ts < b.ts and e.attrs.get("V") == a.attrs["V"]
               for e in r.stream.events)


def test_an_engine_reading_max_for_sum_is_refuted():
    r = _refuted(SUMMED, SUMMED.replace("SUM", "MAX"), 4)
    assert r.match is not None
    a = r.stream[r.match["a"][0]].attrs["V"]
    numbers = [v for p in r.match["b"] if isinstance(v := r.stream[p].attrs.get("V"),
                                                          int | float)]
    assert isinstance(a, int | float)
    # by hand: SUM and MAX over the b events disagree against a.V
    assert len(numbers) >= 2 and (sum(numbers) > a) != (max(numbers) > a)


def test_an_engine_reading_sum_for_avg_is_refuted():
    text = "PATTERN SEQ(A a, B{1,3} b[]) WHERE AVG(b.V) > a.V AND MIN(b.V) >= 0 WITHIN 5"
    r = _refuted(text, text.replace("AVG", "SUM"), 4)
    assert r.match is not None
    a = r.stream[r.match["a"][0]].attrs["V"]
    numbers = [v for p in r.match["b"] if isinstance(v := r.stream[p].attrs.get("V"),
                                                          int | float)]
    assert isinstance(a, int | float) and len(numbers) >= 2
    # by hand: the sum passes a.V and the mean does not (or the other way round)
    assert (sum(numbers) > a) != (sum(numbers) / len(numbers) > a)


def test_the_time_limit_and_z3s_unknown_name_the_length_decided(monkeypatch):
    pattern = parse_operator(COMPARED)
    r = symbolic_equivalence(pattern, bound=8, seconds=0)
    assert all(isinstance(x, Unknown) and x.reason == "stopped after 0 s at 1 events"
               for x in r.values()), r
    real = bounded.solve

    seeds: list[int | None] = []

    def gives_up_at_three(constraints, timeout_ms, seed=None):
        constraints = list(constraints)
        if any("e2.ts" in str(c) for c in constraints):
            seeds.append(seed)
            return Outcome("unknown", reason="timeout")
        return real(constraints, timeout_ms, seed)
    monkeypatch.setattr(bounded, "solve", gives_up_at_three)
    r = symbolic_equivalence(pattern, bound=8)
    assert all(isinstance(x, Unknown) and x.reason == (
        "the same matches on every stream of at most 2 events; Z3 gave up at 3 events "
        "(timeout)") for x in r.values()), r
    assert seeds[:2] == [None, bounded.RETRY_SEED]   # asked twice, with another seed

    def once_more(constraints, timeout_ms, seed=None):   # the second seed succeeds
        return (Outcome("unknown", reason="timeout") if seed is None
                else real(constraints, timeout_ms, seed))
    monkeypatch.setattr(bounded, "solve", once_more)
    r = symbolic_equivalence(pattern, bound=4)
    assert all(isinstance(x, Proved) and x.bound == 4 for x in r.values()), r


def test_an_iterated_sub_pattern_is_outside_the_encoding():
    with pytest.raises(Unsupported):
        symbolic_equivalence(parse_operator("PATTERN SEQ(A a, SEQ(B b, C c)+)"), bound=2,
                             compiled={})


STREAM = Stream(tuple(Event(i, ts, t, {"V": v}) for i, (ts, t, v) in enumerate(
    [(0, "A", 1), (1, "C", 1), (2, "B", 3), (3, "A", 2), (4, "C", 5), (12, "B", 4)])))


@pytest.mark.parametrize("text", [COMPARED, NEGATED, SUMMED,
                                  "PATTERN AND(A a, NOT(C c), B b) WHERE c.V > b.V WITHIN 3",
                                  "PATTERN SEQ(A{1,2} a[], OR(B b, C c)) WHERE COUNT(a) = 2",
                                  "PATTERN SEQ(A a, C c) PARTITION BY V WITHIN 10"])
@pytest.mark.parametrize("policy", ["any", "contiguous"])
def test_the_encoded_reference_is_the_reference_on_a_concrete_stream(text, policy):
    """Every substitution over STREAM: the encoding holds iff the reference reports it."""
    pattern = parse_operator(text)
    s = symbolic_stream(pattern, schema_of(pattern), len(STREAM))
    fixed = []
    for e, sym in zip(STREAM.events, s.events, strict=True):
        fixed += [sym.ts == e.ts, sym.value("type").kinds[0][2] == z3.StringVal(str(e.type))]
        if "V" in sym.slots:   # an attribute no condition reads is not in the schema
            fixed += [as_z3(sym.value("V").present), sym.value("V").kinds[0][2] == e.attrs["V"]]
    solver = z3.Solver()
    solver.add(*[as_z3(c) for c in s.constraints], *fixed, as_z3(reference_match(pattern, s,
                                                                               policy)))
    found: set[Match] = set()
    while solver.check() == z3.sat:
        m = solver.model()
        xs = [m.eval(x, model_completion=True).as_long() for x in s.gamma.x]
        binds: dict[str, list[int]] = {}
        for i, k in enumerate(xs):
            if k >= 0:
                binds.setdefault(s.gamma.names[k], []).append(i)
        found.add(Match.of(binds))
        solver.add(z3.Or(*[x != v for x, v in zip(s.gamma.x, xs, strict=True)]))
    expected = reference_matches(pattern, STREAM, policy)
    assert found == expected
    assert expected or policy == "contiguous"   # the stream has matches to agree on


# ---------------------------------------------------------------- lazy coverage (reach.py)

DEAD_TAKE = "PATTERN SEQ(A a, C c) WHERE c.V > 1 AND a.V > c.V AND a.V < 0"


def _lazy(text: str) -> dict[str, CompiledNFA]:
    pattern = parse_operator(text)
    return {name: drawn_order(c) for name, c in claiming(pattern).items()
            if name != "nfa-eager" and isinstance(c, CompiledNFA)}


def test_a_take_no_instance_can_make_is_proved_dead():
    # by hand: a.V < 0 and a.V > c.V > 1 cannot all hold, so no instance binds a and c
    pattern = parse_operator(DEAD_TAKE)
    for name, c in _lazy(DEAD_TAKE).items():
        both = (0, 2) if c.kind == "chain" else (0, frozenset({"a", "c"}))
        takes = [witness(c, t, schema_of(pattern)) for t in c.iter_transitions()
                 if t.variable == "c" and t.target == both and t.source != t.target]
        assert takes, name
        for r in takes:
            assert isinstance(r, Proved), (name, r)
            assert r.note == "no instance can bind its slots on any stream"


@pytest.mark.slow   # about a minute: every transition's witness against every class stream
@pytest.mark.parametrize("text", ["PATTERN SEQ(A a, B+ b[], C c) WHERE a.V < c.V WITHIN 5",
                                  "PATTERN AND(A a, B b) WHERE a.V < b.V", DEAD_TAKE])
def test_witnesses_are_taken_by_the_run_and_dead_transitions_by_no_class_stream(text):
    pattern = parse_operator(text)
    streams = list(stream_classes(pattern, 3))
    for name, c in _lazy(text).items():
        seen = set().union(*(traced(c, s) for s in streams))
        for t in c.iter_transitions():
            r = witness(c, t, schema_of(pattern))
            key = (t.source, t.target, t.variable)
            if isinstance(r, CounterExample):
                assert key in traced(c, r.stream)
                check_engine(engine(name), "any", pattern, r.stream)
            elif isinstance(r, Proved):   # by Z3 or by the run's rule: no run takes it
                assert key not in seen, (name, t, r)


def test_a_witness_drives_what_the_short_class_streams_do_not():
    pattern = parse_operator(COMPARED)
    c = _lazy(COMPARED)["nfa-chain"]
    short = set().union(*(traced(c, s) for s in stream_classes(pattern, 1)))
    take_b = next(t for t in c.iter_transitions() if t.variable == "b")
    assert (take_b.source, take_b.target, "b") not in short   # one event binds no pair
    r = witness(c, take_b, schema_of(pattern))
    assert isinstance(r, CounterExample) and len(r.stream) == 2
    a, b = r.stream.events   # by hand: an A, then a B within 10 with a larger V
    assert a.type == "A" and b.type == "B" and a.ts < b.ts <= a.ts + 10
    assert isinstance(a.attrs.get("V"), int) and isinstance(b.attrs.get("V"), int)
    assert a.attrs["V"] < b.attrs["V"]   # type: ignore[operator]
