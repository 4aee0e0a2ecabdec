"""Bounded equivalence of the SES automaton and the reference under ``next``.

Proved up to k = 5 events for the paper's Q1 and for a pattern with group
variables and ``prev``; refuted for deliberately broken automata (a guard
dropped, a time constraint dropped), with the stream confirmed on both the
reference and the engine running the broken automaton. A few generated
patterns are checked so that the encoding is exercised beyond hand examples.
"""

from __future__ import annotations

import dataclasses

from hypothesis import given, settings

from kleene.conformance.strategies import ses_patterns
from kleene.engines.ses.automaton import SESAutomaton, SESTransition, ses_automaton
from kleene.engines.ses.run import CompiledSES
from kleene.proofs.results import CounterExample, Proved
from kleene.proofs.ses.equivalence import equivalent
from kleene.reference.conditions import Attr, Cmp
from kleene.reference.ses.pattern import SESPattern
from kleene.reference.ses.policies import matches
from kleene.reference.ses.text import parse_ses
from tests.helpers import Q1

RISING = parse_ses("""PATTERN <{a, b+}, {c}>
WHERE a.L = 'A' AND b.L != 'A' AND prev(b.V) < b.V AND a.V <= b.V AND c.V > a.V
WITHIN 4""")


def test_the_automaton_equals_the_reference_up_to_five_events() -> None:
    for p in (Q1, RISING):
        r = equivalent(p, bound=5)
        assert isinstance(r, Proved) and r.bound == 5


def _without(n: SESAutomaton, keep) -> SESAutomaton:
    """``n`` with each transition's conditions filtered by ``keep(delta, theta)``."""
    changed = tuple(SESTransition(d.source, d.variable,
                                  tuple(t for t in d.conditions if keep(d, t)))
                    for d in n.transitions)
    return dataclasses.replace(n, transitions=changed)


def _confirm(p: SESPattern, broken: SESAutomaton, r: CounterExample) -> None:
    """The reference and the broken engine really disagree on the counterexample."""
    expected = matches(p, r.stream, "next")
    got = set(CompiledSES(p, broken, filter="none").run(r.stream))
    assert (r.match in expected) != (r.match in got)
    assert got != expected


def test_a_dropped_guard_is_caught() -> None:
    """Drop ``c.V > a.V`` where c is bound: the automaton accepts c with a small V."""
    broken = _without(ses_automaton(RISING), lambda d, t: t != RISING.conditions[4])
    r = equivalent(RISING, broken, bound=5)
    assert isinstance(r, CounterExample)
    assert r.note == "the automaton reports it, the reference (next) does not"
    _confirm(RISING, broken, r)


def test_a_dropped_time_constraint_is_caught() -> None:
    """Without ``v'.T < v.T`` at the concatenation (Sec. 4.2.2), b can take a tie."""
    def keep(d: SESTransition, t) -> bool:
        return not (isinstance(t, Cmp) and isinstance(t.left, Attr) and t.left.attr == "ts"
                    and t.op == "<")
    broken = _without(ses_automaton(RISING), keep)
    r = equivalent(RISING, broken, bound=5)
    assert isinstance(r, CounterExample)
    _confirm(RISING, broken, r)
    assert r.match is not None
    c = r.match["c"][0]
    assert any(r.stream[c].ts <= r.stream[q].ts for v in ("a", "b") for q in r.match[v])


@settings(max_examples=8)
@given(ses_patterns(max_vars=3))
def test_generated_patterns_are_equivalent_up_to_four_events(p: SESPattern) -> None:
    assert isinstance(equivalent(p, bound=4), Proved)
