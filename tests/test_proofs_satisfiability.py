"""Dead variables, unsatisfiable patterns, dead transitions and transition witnesses.

Each property is shown both ways: proved on a pattern where it holds, refuted
by a stream (checked again here against the reference or the engine) where it
does not.
"""

from __future__ import annotations

from kleene.conformance.differential import assert_same_matches
from kleene.engines.registry import engine
from kleene.engines.ses.automaton import ses_automaton
from kleene.engines.ses.run import CompiledSES
from kleene.proofs.results import CounterExample, Proved
from kleene.proofs.ses.satisfiability import dead_transitions, dead_variables, no_match
from kleene.proofs.ses.witnesses import (
    coverage,
    fired_transitions,
    path_of,
    transition_witnesses,
    witness_streams,
)
from kleene.reference.query import Query
from kleene.reference.ses.filtering import satisfies
from kleene.reference.ses.matching import all_matches
from kleene.reference.ses.policies import matches
from kleene.reference.ses.text import parse_ses
from tests.helpers import Q1

GROUPS = parse_ses("""PATTERN <{a, b+}, {c}>
WHERE a.L = 'A' AND b.L != 'A' AND prev(b.V) < b.V AND a.V < b.V AND c.V = a.V
WITHIN 4""")


def test_live_variables_have_a_one_event_witness() -> None:
    results = dead_variables(Q1)
    assert all(isinstance(r, CounterExample) for r in results.values())
    for v, r in results.items():
        assert isinstance(r, CounterExample) and satisfies(Q1, v, r.stream[0])


def test_a_contradictory_variable_is_proved_dead() -> None:
    p = parse_ses("PATTERN <{a}, {b}> WHERE a.L = 'A' AND a.L = 'B' WITHIN 5")
    results = dead_variables(p)
    assert results["a"] == Proved("no event satisfies the properties of a")
    assert isinstance(results["b"], CounterExample)     # b has no property: any event


def test_missing_attributes_count_as_unknown() -> None:
    """``NOT (a.L = 'A')`` needs a present L: a missing one makes it unknown, not true."""
    p = parse_ses("PATTERN <{a}> WHERE NOT (a.L = 'A') AND NOT (a.L != 'A') WITHIN 5")
    assert isinstance(dead_variables(p)["a"], Proved)


def test_a_satisfiable_pattern_has_a_shortest_match() -> None:
    for p in (Q1, GROUPS):
        r = no_match(p, bound=5)
        assert isinstance(r, CounterExample) and r.match is not None
        assert len(r.stream) == len(p.names)
        assert r.match in all_matches(p, r.stream)


def test_a_cyclic_pattern_has_no_match_up_to_the_bound() -> None:
    p = parse_ses("PATTERN <{a, b, c}> WHERE a.V < b.V AND b.V < c.V AND c.V < a.V WITHIN 5")
    assert no_match(p, bound=5) == Proved("no stream of at most 5 events has a match", 5)


def test_order_makes_a_transition_dead_only_through_reachability() -> None:
    """From {b}, a arrives after b, so ``a.ts < b.ts`` fails for every *reachable*
    buffer (ts never decreases), though an arbitrary buffer satisfies it."""
    p = parse_ses("PATTERN <{a, b}> WHERE a.V < b.V AND a.ts < b.ts WITHIN 5")
    n = ses_automaton(p)
    results = {(tuple(sorted(d.source)), d.variable): r for d, r in dead_transitions(n).items()}
    dead = results[(("b",), "a")]
    assert isinstance(dead, Proved) and dead.bound == 6
    assert isinstance(results[(("a",), "b")], CounterExample)


def test_a_contradictory_guard_is_dead_for_every_stream() -> None:
    p = parse_ses("PATTERN <{a}, {b}> WHERE a.V < b.V AND b.V < a.V WITHIN 5")
    results = list(dead_transitions(ses_automaton(p)).values())
    assert isinstance(results[0], CounterExample)              # {} --a--> {a}
    assert isinstance(results[1], Proved) and results[1].bound is None
    # the engine's compiled form
    compiled = engine("ses-automaton").compile(Query.of(p, policy="next"))
    assert isinstance(compiled, CompiledSES)
    assert list(dead_transitions(compiled).values())[1] == results[1]


def test_every_transition_has_a_witness_that_the_engine_fires() -> None:
    for p in (Q1, GROUPS):
        n = ses_automaton(p)
        for d, r in dead_transitions(n).items():
            assert isinstance(r, CounterExample), d
            assert d in fired_transitions(n, r.stream) and r.match is not None
            assert len(r.stream) == len(r.match.positions)


def test_coverage_names_the_transitions_each_witness_fires() -> None:
    n = ses_automaton(GROUPS)
    results = transition_witnesses(n)
    streams = [r.stream for r in results.values() if isinstance(r, CounterExample)]
    cover = coverage(n, streams)
    assert set(cover) == set(n.transitions) and all(cover.values())
    # A witness fires at least the whole path of its own run, the loop of b included.
    loop = next(d for d in n.transitions if d.is_loop and d.source == frozenset({"a", "b"}))
    r = results[loop]
    assert isinstance(r, CounterExample) and r.match is not None
    path = path_of([(p, v) for v, ps in r.match.bindings for p in ps], n)
    assert path[-1] == loop and set(path) <= fired_transitions(n, r.stream)
    assert streams.index(r.stream) in cover[loop]
    exported = witness_streams(GROUPS)
    assert 0 < len(exported) <= len(n.transitions) and len(set(map(str, exported))) == len(
        exported)


def test_witness_streams_feed_the_differential_check() -> None:
    automaton = engine("ses-automaton")
    for p in (Q1, GROUPS):
        for s in witness_streams(p):
            got = list(automaton.compile(Query.of(p, policy="next")).run(s))
            assert_same_matches(automaton, pattern=p, stream=s, got=got,
                                expected=matches(p, s, "next"))
