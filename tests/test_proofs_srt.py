"""Z3 proofs about the DSRT (report Alg. 7, Thm 41) and the complement (Alg. 8, Cor. 43):
each property proves on the engines' automata and fails on a deliberately broken one.

Expected verdicts by hand: the minterms of the atoms ``~.L = 'A'`` and
``~.L = 'B'`` are {A, not B}, {B, not A}, {not A, not B} (``plausible`` drops
{A, B}). Without their "not" halves they are {A}, {B} and {} (TRUE), and an
element with L = 'A' satisfies both {A} and {}; with {not A, not B} dropped, an
element whose L is neither 'A' nor 'B' satisfies none.
"""

from __future__ import annotations

import pytest

from kleene.engines.srt.automaton import SRT, Edge, compile_edge
from kleene.engines.srt.compile import MAX_STATES, compile_sremo
from kleene.engines.srt.complement import Minterm, determinize, minterms
from kleene.engines.srt.dsrt import compile_dsrt
from kleene.engines.srt.run import CompiledSRT
from kleene.proofs.results import CounterExample, Proved
from kleene.proofs.srt.dsrt import (
    complete,
    deterministic,
    dsrt_equivalence,
    equivalent,
    minterms_partition,
)
from kleene.proofs.srt.negation import complement_exact, negation_exact
from kleene.proofs.srt.symbolic import accepts
from kleene.reference.conditions import TRUE, Attr, Cmp, Const
from kleene.reference.query import Query
from kleene.reference.sremo import parse_sremo
from kleene.reference.sremo.expressions import Window
from kleene.reference.sremo.semantics import accepts as reference_accepts

A_THEN_B = "(mark {~.L = 'A'} ; {TRUE}* ; mark {~.L = 'B'})[1..3]"
WINDOWED = [
    A_THEN_B,
    "(mark {~.L = 'A'} -> r ; {TRUE}* ; mark {~.ID = r.ID})[1..3]",
    "ANY(mark {~.L = 'A'} -> r, mark {~.L = 'B'}, mark {~.V > r.V})[1..4]",
]
IS_A = Cmp("=", Attr("~", "L"), Const("A"))
IS_B = Cmp("=", Attr("~", "L"), Const("B"))
V_ABOVE_R = Cmp(">", Attr("~", "V"), Attr("r", "V"))


def test_alg7_minterms_are_disjoint_and_exhaustive():
    disjoint, exhaustive = minterms_partition((IS_A, IS_B, V_ABOVE_R))
    assert isinstance(disjoint, Proved) and isinstance(exhaustive, Proved)


def test_dropping_a_minterm_leaves_an_element_uncovered():
    terms = [m for m in minterms((IS_A, IS_B)) if m[0]]   # drop {not A, not B}
    _, exhaustive = minterms_partition((IS_A, IS_B), terms)
    assert isinstance(exhaustive, CounterExample)
    u = exhaustive.stream[-1]
    assert u.value("L") not in ("A", "B")


def test_forgetting_the_not_half_makes_minterms_overlap():
    terms: list[Minterm] = [(yes, frozenset()) for yes, _ in minterms((IS_A, IS_B))]
    disjoint, _ = minterms_partition((IS_A, IS_B), terms)
    assert isinstance(disjoint, CounterExample)   # {} overlaps {A} on an element A
    assert disjoint.stream[-1].value("L") in ("A", "B")


@pytest.mark.parametrize("text", WINDOWED)
def test_the_dsrt_is_deterministic_complete_and_equals_the_srt(text):
    e = parse_sremo(text)
    assert isinstance(e, Window)
    d = compile_dsrt(e).dsrt
    assert isinstance(deterministic(d), Proved)
    assert isinstance(complete(d), Proved)
    r = dsrt_equivalence(e)
    assert isinstance(r, Proved) and r.bound == e.width


def test_an_extra_edge_breaks_determinism_and_the_example_fires_both():
    d = compile_dsrt(parse_sremo(A_THEN_B)).dsrt
    broken = SRT(d.size, d.start, d.finals, (*d.edges, Edge(d.start, d.start, TRUE)))
    r = deterministic(broken)
    assert isinstance(r, CounterExample)
    u = r.stream[-1]
    fired = [e for e in broken.out[d.start] if compile_edge(e, {})(u, ())]
    assert len(fired) == 2


def test_a_missing_edge_breaks_completeness():
    d = compile_dsrt(parse_sremo(A_THEN_B)).dsrt
    dropped = d.out[d.start][0]
    broken = SRT(d.size, d.start, d.finals, tuple(e for e in d.edges if e is not dropped))
    r = complete(broken)
    assert isinstance(r, CounterExample)
    assert compile_edge(dropped, {})(r.stream[-1], ())   # the dropped minterm's element


def test_a_dsrt_with_a_final_state_lost_differs_from_the_srt():
    e = parse_sremo(A_THEN_B)
    a, d = compile_sremo(e), compile_dsrt(e).dsrt
    broken = SRT(d.size, d.start, frozenset(), d.edges)   # accepts nothing
    r = equivalent(a, broken, 3)
    assert isinstance(r, CounterExample)
    assert accepts(a, r.stream) and reference_accepts(e, r.stream)
    assert [u.value("L") for u in r.stream][0] == "A" and r.stream[-1].value("L") == "B"


@pytest.mark.parametrize("text", [A_THEN_B,
                                  "(mark {~.L = 'A'} + {~.V > 1} ; mark {~.L = 'B'})[1..2]"])
def test_the_complement_accepts_exactly_what_the_srt_rejects(text):
    r = negation_exact(parse_sremo(text))
    assert isinstance(r, Proved) and r.bound is not None


def test_a_complement_without_swapped_finals_is_refuted():
    a = compile_sremo(parse_sremo(A_THEN_B))
    d, _ = determinize(a, MAX_STATES)   # Alg. 7 without Alg. 8's swap: the same language
    r = complement_exact(a, d, 3)
    assert isinstance(r, CounterExample)
    assert accepts(a, r.stream) == accepts(d, r.stream)


def test_srt_equals_dsrt_is_refuted_for_a_broken_dsrt_engine(monkeypatch):
    from kleene.proofs.srt import dsrt as module

    def without_finals(e):
        c = compile_dsrt(e)
        c.dsrt = SRT(c.dsrt.size, c.dsrt.start, frozenset(), c.dsrt.edges)
        return c
    monkeypatch.setattr(module, "compile_dsrt", without_finals)
    r = dsrt_equivalence(parse_sremo(A_THEN_B))
    assert isinstance(r, CounterExample)
    assert "the reference accepts it, the srt engine accepts it, the dsrt engine rejects " \
           "it" in r.note


def test_prove_names_each_srt_edge_as_the_picture_labels_it():
    from kleene.engines.registry import engine
    from kleene.engines.srt.draw import compiled_srt_graph, edge_name

    e = parse_sremo("({~.L = 'A'} -> r ; mark {~.V > r.V AND ~.L = 'B'})[1..3]")
    compiled = engine("srt").compile(Query.of(e, policy="literal"))
    assert isinstance(compiled, CompiledSRT)
    g = compiled_srt_graph(compiled, guards="full")
    drawn = [(u, v, d) for u, v, d in g.edges(data=True) if isinstance(d.get("ident"), Edge)]
    assert len(drawn) == 2
    for u, v, d in drawn:
        *guard, output = d["label"].split("\n")
        assert edge_name(d["ident"]) == (f"{g.nodes[u]['label']} --{' ∧ '.join(guard)} "
                                         f"{output}--> {g.nodes[v]['label']}")
    assert edge_name(drawn[1][2]["ident"]) == "q1 --~.V > r.V ∧ ~.L = 'B' ↑ ●--> q2"


WRITES_THEN_READS = "(mark {~.L = 'A'} -> r ; {TRUE}* ; mark {~.V > r.V})[1..3]"


def test_a_body_that_writes_then_reads_is_complemented_with_register_copies():
    from kleene.proofs.srt.negation import complement_of

    e = parse_sremo(WRITES_THEN_READS)
    c = complement_of(e)
    assert any(x.writes for x in c.edges)   # the copies r@d, written and read
    r = negation_exact(e, timeout_ms=20_000)
    assert isinstance(r, Proved) and r.bound == 3


def test_a_complement_whose_copies_are_never_written_is_refuted():
    from dataclasses import replace

    from kleene.proofs.srt.negation import complement_of

    e = parse_sremo(WRITES_THEN_READS)
    c = complement_of(e)
    forgetful = SRT(c.size, c.start, c.finals, tuple(replace(x, writes=()) for x in c.edges))
    r = complement_exact(compile_sremo(e), forgetful, 3, timeout_ms=20_000)
    assert isinstance(r, CounterExample)
    # the forgetful complement compares with empty copies (false, Def. 13): a string
    # both automata accept or both reject, replayed through the engine's edge tests
    assert accepts(compile_sremo(e), r.stream) == accepts(forgetful, r.stream)


def test_a_register_read_outside_a_count_window_keeps_the_reason():
    from kleene.proofs.srt.negation import complement_of
    from kleene.reference.errors import Unsupported

    with pytest.raises(Unsupported, match=r"reads register\(s\) it writes \(r\).*count window"):
        complement_of(parse_sremo("mark {~.L = 'A'} -> r ; mark {~.V > r.V}"))


TIMED = "(mark {~.L = 'A'} ; {TRUE}* ; mark {~.L = 'B'})[WITHIN 5]"


def test_the_clocks_of_a_time_window_are_proved_against_its_definition():
    from kleene.proofs.srt.clocks import time_window_exact

    for text in (TIMED, "(mark {~.L = 'A'} -> r ; mark {~.V > r.V})[WITHIN 3]"):
        r = time_window_exact(parse_sremo(text), 4)
        assert isinstance(r, Proved) and r.bound == 4, text


def test_clocks_of_a_wider_window_are_refuted_by_a_string_the_reference_rejects():
    from kleene.proofs.srt.clocks import time_window_exact

    e = parse_sremo(TIMED)
    wide = compile_sremo(parse_sremo(TIMED.replace("WITHIN 5", "WITHIN 6")))
    r = time_window_exact(e, 4, clocked=wide)
    assert isinstance(r, CounterExample)
    # by hand: the body's strings start with the marked A and end with the marked B; 6
    # apart (span 6 > 5) the wide clocks accept, Def. 18 does not
    assert accepts(wide, r.stream) and not reference_accepts(e, r.stream)
    assert 5 < r.stream[-1].ts - r.stream[0].ts <= 6
