"""Satisfiability of operator patterns and SREMO (proofs/nfa/satisfiability.py,
proofs/srt/satisfiability.py): dead variables and branches, empty languages, register
reads no path has written, dead transitions.

Expected verdicts by hand: ``a.V > 3 AND a.V < 2`` leaves a no event; the first
branch of ``OR(SEQ(A a, B b), C c)`` needs ``a.V > b.V`` and ``b.V > a.V``; in
``({~.L = 'A'} -> r + {~.L = 'B'}) ; mark {~.V = r.V}`` the B branch reaches the
read of ``r`` without writing it (Def. 13 case 2: the comparison is false there).
"""

from __future__ import annotations

from kleene.engines.srt.compile import compile_sremo
from kleene.proofs.nfa.satisfiability import dead_branches, dead_variables, no_match
from kleene.proofs.results import CounterExample, Proved
from kleene.proofs.srt.satisfiability import dead_branches as dead_choices
from kleene.proofs.srt.satisfiability import (
    dead_transitions,
    nonempty,
    unwritten_reads,
)
from kleene.reference.operators.policies import matches
from kleene.reference.operators.text import parse_operator
from kleene.reference.sremo import parse_sremo
from kleene.reference.sremo.semantics import accepts


def test_a_contradictory_property_makes_its_variable_and_the_pattern_dead():
    p = parse_operator("PATTERN SEQ(A a, OR(B b, C c), D d) WHERE a.V > 3 AND a.V < 2")
    dead = dead_variables(p)
    assert isinstance(dead["a"], Proved)
    assert all(isinstance(dead[v], CounterExample) for v in "bcd")
    assert all(isinstance(r, Proved) for r in dead_branches(p).values())
    assert isinstance(no_match(p), Proved)


def test_one_dead_branch_and_one_live_branch():
    p = parse_operator("PATTERN OR(SEQ(A a, B b), C c) WHERE a.V > b.V AND b.V > a.V")
    r = dead_branches(p)
    assert isinstance(r["SEQ(A a, B b)"], Proved)
    live = r["C c"]
    assert isinstance(live, CounterExample) and live.match is not None
    assert live.match in matches(p, live.stream, "any")


def test_a_negation_does_not_make_the_pattern_unsatisfiable():
    p = parse_operator("PATTERN SEQ(A a, NOT(B n), C c) WITHIN 10")
    r = no_match(p)
    assert isinstance(r, CounterExample) and r.match in matches(p, r.stream, "any")


def test_an_empty_language_and_a_dead_choice():
    e = parse_sremo("(mark {~.V > 3 AND ~.V < 2} + mark {~.L = 'B'})[1..2]")
    r = nonempty(e)
    assert isinstance(r, CounterExample) and accepts(e, r.stream)
    parts = dead_choices(e)
    assert isinstance(parts["mark {~.V > 3 AND ~.V < 2}"], Proved)
    assert isinstance(parts["mark {~.L = 'B'}"], CounterExample)
    assert isinstance(nonempty(parse_sremo("mark {~.V > 3 AND ~.V < 2}")), Proved)


def test_a_read_no_path_has_written_is_found_and_its_transition_is_dead():
    a = compile_sremo(parse_sremo("({~.L = 'A'} -> r + {~.L = 'B'}) ; mark {~.V = r.V}"))
    reads = unwritten_reads(a)
    never = [e for e, r in reads.items() if isinstance(r, Proved)]
    written = [e for e, r in reads.items() if isinstance(r, CounterExample)]
    assert len(never) == 1 and len(written) == 1
    dead = dead_transitions(a)
    assert isinstance(dead[never[0]], Proved)
    fired = dead[written[0]]
    assert isinstance(fired, CounterExample)
    held, u = fired.stream[0], fired.stream[-1]
    assert held.value("V") == u.value("V")   # the register's element and the head agree


def test_the_first_l_events_of_a_repetition_are_the_candidate():
    # B{3}: three consecutive b events with distinct integer V strictly between 0 and 2
    # cannot exist; with V real they can (1, 1.5, 1)
    text = "PATTERN SEQ(A a, B{3,3} b[]) WHERE b.V != prev(b.V) AND b.V < 2 AND b.V > 0"
    p = parse_operator(text)
    assert isinstance(no_match(p), Proved)
    from kleene.proofs.nfa.classes import schema_of

    r = no_match(p, schema=schema_of(p, declared={"V": "real"}))
    assert isinstance(r, CounterExample) and r.match is not None
    assert len(r.match["b"]) == 3 and r.match in matches(p, r.stream, "any")


def test_an_aggregate_is_encoded_over_as_many_events_as_the_bound_allows():
    from kleene.proofs.nfa.classes import schema_of

    # by hand: every b.V is an integer below 4, so a SUM above 10 needs four B events
    live = parse_operator("PATTERN SEQ(A a, B+ b[]) WHERE SUM(b.V) > 10 AND b.V < 4")
    (r,) = dead_branches(live, schema=schema_of(live, declared={"V": "int"})).values()
    assert isinstance(r, CounterExample)
    assert r.match is not None and len(r.match["b"]) >= 4
    assert r.match in matches(live, r.stream, "any")
    # at most three of them: 3 + 3 + 3 = 9, never above 10
    dead = parse_operator("PATTERN SEQ(A a, B{1,3} b[]) WHERE SUM(b.V) > 10 AND b.V < 4")
    (r,) = dead_branches(dead, schema=schema_of(dead, declared={"V": "int"})).values()
    assert isinstance(r, Proved) and r.bound == 5
    # AVG never exceeds MAX over the same numbers
    never = parse_operator("PATTERN SEQ(A a, B+ b[]) WHERE AVG(b.V) > a.V AND MAX(b.V) < a.V")
    (r,) = dead_branches(never).values()
    assert isinstance(r, Proved) and "with at most 5 events" in r.claim
