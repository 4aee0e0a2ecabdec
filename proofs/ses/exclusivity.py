"""Mutual exclusivity (seed 000 Def. 6), Lemma 1's determinism, Theorem 1's bound.

Def. 6, read semantically: variables v and w are *mutually exclusive* iff no
single event satisfies the properties of both (Θp_v ∧ Θp_w is unsatisfiable;
the paper asks for one property ``v.A φ C`` of each that no event satisfies
together, which implies it). :func:`determinism_certificate` proves every pair
exclusive; by Lemma 1 the SES automaton then never branches: every guard of a
transition binding v contains Θp_v, so two transitions leaving one state can
never both take one event. Theorem 1 follows: one instance per start event.

:func:`never_branches` checks the automaton itself (it can succeed where Def. 6
fails, e.g. when relationships separate the guards): "no event enables two
transitions of the state an instance is in". It first tries an arbitrary
buffer (unsatisfiable: proved for every stream); otherwise it searches runs of
at most k events for a branching one, and confirms a counterexample by running
the engine: ``instances_created`` exceeds the number of events exactly when
some instance branched (``run.py``, ``Execution._consume``).
"""

from __future__ import annotations

import itertools

from kleene.engines.protocol import Counters
from kleene.engines.ses.automaton import SESAutomaton, SESTransition
from kleene.engines.ses.run import CompiledSES, Execution
from kleene.engines.spans import Window
from kleene.proofs.encode import Lit, concrete_event, conj, disj, holds_for, symbolic_event
from kleene.proofs.results import CounterExample, Proved, Result, Unknown
from kleene.proofs.schema import Schema, schema_for
from kleene.proofs.ses.runs import RunEncoding, any_buffer_guard
from kleene.proofs.ses.symbolic import assignment, stream_from, sym_stream
from kleene.proofs.ses.witnesses import BOUND, automaton_of, automaton_schema
from kleene.proofs.solver import TIMEOUT_MS, solve
from kleene.reference.events import Stream
from kleene.reference.ses.filtering import satisfies
from kleene.reference.ses.pattern import SESPattern

LEMMA_1 = ("every pair of variables is mutually exclusive, so the SES automaton never "
           "branches (seed 000 Def. 6, Lemma 1)")


def mutually_exclusive(pattern: SESPattern, v: str, w: str, *, schema: Schema | None = None,
                       timeout_ms: int = TIMEOUT_MS) -> Result:
    """"v and w are mutually exclusive": proved, or an event satisfying both."""
    schema = schema or schema_for(pattern.conditions, pattern.window)
    claim = f"{v} and {w} are mutually exclusive (seed 000 Def. 6)"
    e = symbolic_event(schema, "e0")
    both = conj(holds_for(pattern.property_of(v), v, e), holds_for(pattern.property_of(w), w, e))
    out = solve([*e.constraints, both], timeout_ms)
    if out.status == "unsat":
        return Proved(claim)
    if out.model is None:
        return Unknown(claim, out.reason)
    stream = Stream((concrete_event(out.model, e, 0),))
    if not (satisfies(pattern, v, stream[0]) and satisfies(pattern, w, stream[0])):
        return Unknown(claim, "the reference does not confirm Z3's event")
    return CounterExample(claim, stream, note="this event satisfies the properties of both")


def exclusivity(pattern: SESPattern, *, schema: Schema | None = None,
                timeout_ms: int = TIMEOUT_MS) -> dict[tuple[str, str], Result]:
    """:func:`mutually_exclusive` for every pair of variables (in pattern order)."""
    schema = schema or schema_for(pattern.conditions, pattern.window)
    return {(v, w): mutually_exclusive(pattern, v, w, schema=schema, timeout_ms=timeout_ms)
            for v, w in itertools.combinations(pattern.names, 2)}


def determinism_certificate(pattern: SESPattern, *, schema: Schema | None = None,
                            timeout_ms: int = TIMEOUT_MS) -> Result:
    """Lemma 1's premise: proved when every pair is exclusive, else the first pair's result."""
    for result in exclusivity(pattern, schema=schema, timeout_ms=timeout_ms).values():
        if not isinstance(result, Proved):
            return result
    return Proved(LEMMA_1)


def branches(n: SESAutomaton, s: Stream) -> int:
    """How many extra instances the engine creates on ``s`` by branching (0: never branched)."""
    counters = Counters()
    ex = Execution(n, win=Window(n.window.in_units_of(s.time_unit)), policy="next",
                   variant="corrected", counters=counters)
    for e in s:
        ex.step(e)
    ex.finish()
    return counters.instances_created - len(s)


def _pairs(n: SESAutomaton) -> list[tuple[SESTransition, SESTransition]]:
    """Every two transitions that leave one state."""
    return [(a, b) for q in n.states
            for a, b in itertools.combinations(n.outgoing(q), 2)]


def _arbitrary_buffer_branches(n: SESAutomaton, schema: Schema, timeout_ms: int) -> str:
    """Can one event enable two transitions of one state with *some* buffer? (status)"""
    for a, b in _pairs(n):
        e = symbolic_event(schema, "new")
        ga, buffer = any_buffer_guard(a, schema, e)
        gb, buffer = any_buffer_guard(b, schema, e, buffer)
        constraints = [*e.constraints, *(c for x in buffer.values() for c in x.constraints)]
        out = solve([*constraints, ga, gb], timeout_ms)
        if out.status != "unsat":
            return out.status
    return "unsat"


def never_branches(compiled: SESAutomaton | CompiledSES, *, schema: Schema | None = None,
                   bound: int = BOUND, timeout_ms: int = TIMEOUT_MS) -> Result:
    """"No event enables two transitions of an instance's state": proved, or a stream on
    which the engine branches."""
    n = automaton_of(compiled)
    schema = schema or automaton_schema(n)
    claim = "no instance of the SES automaton ever branches"
    if _arbitrary_buffer_branches(n, schema, timeout_ms) == "unsat":
        return Proved(claim)
    names = tuple(sorted(n.variables))
    for r in range(1, bound + 1):
        s = sym_stream(schema, r, n.window)
        run = RunEncoding(n, s, assignment(names, r))
        last = r - 1
        two: Lit = disj(*(conj(run.fires(last, a), run.fires(last, b)) for a, b in _pairs(n)))
        out = solve([*s.constraints, *run.g.constraints, run.path(last), s.within(0, last),
                     two], timeout_ms)
        if out.status == "unknown":
            return Unknown(claim, out.reason)
        if out.status == "sat" and out.model is not None:
            stream = stream_from(out.model, s)
            if branches(n, stream) <= 0:
                return Unknown(claim, "the engine did not branch on Z3's stream")
            return CounterExample(claim, stream, note="the engine branches on this stream")
    return Proved(claim, bound)
