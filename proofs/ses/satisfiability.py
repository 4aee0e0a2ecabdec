"""Satisfiability: dead variables, patterns without matches, dead transitions.

- A variable is *dead* when no single event satisfies its properties Θp_v
  (seed 001 Sec. 3; :func:`kleene.reference.ses.filtering.satisfies`): no
  match can bind it, so the pattern has no match at all.
- A pattern is *unsatisfiable up to k* when no stream of at most k events has
  a match (seed 001 Def. 2, conditions 1--3): one Z3 query per length over
  every candidate substitution (:func:`kleene.proofs.ses.symbolic.is_match`). A
  match in a stream of n events needs only its own events, so the lengths
  ``m..k`` are searched (m the number of variables), shortest first.
- A transition of the SES automaton (seed 000 Def. 3) is *dead* when no run
  fires it: :func:`kleene.proofs.ses.witnesses.transition_witness`.

Each claim is stated as "... is dead"/"... has no match": :class:`Proved` is
the unhealthy outcome, and its counterexample is a witness, replayed through
the reference before it is returned.
"""

from __future__ import annotations

from kleene.engines.ses.automaton import SESAutomaton, SESTransition
from kleene.engines.ses.run import CompiledSES
from kleene.proofs.encode import concrete_event, holds_for, symbolic_event
from kleene.proofs.results import CounterExample, Proved, Result, Unknown
from kleene.proofs.schema import Schema, schema_for
from kleene.proofs.ses.symbolic import assignment, is_match, match_from, stream_from, sym_stream
from kleene.proofs.ses.witnesses import BOUND, transition_witnesses
from kleene.proofs.solver import TIMEOUT_MS, solve
from kleene.reference.events import Stream
from kleene.reference.ses.filtering import satisfies
from kleene.reference.ses.matching import all_matches
from kleene.reference.ses.pattern import SESPattern


def pattern_schema(pattern: SESPattern) -> Schema:
    """The default schema of ``pattern`` (sorts from its constants, see :mod:`.schema`)."""
    return schema_for(pattern.conditions, pattern.window)


def dead_variable(pattern: SESPattern, name: str, *, schema: Schema | None = None,
                  timeout_ms: int = TIMEOUT_MS) -> Result:
    """"No event satisfies the properties of ``name``": proved, or a one-event witness."""
    schema = schema or pattern_schema(pattern)
    claim = f"no event satisfies the properties of {name}"
    e = symbolic_event(schema, "e0")
    out = solve([*e.constraints, holds_for(pattern.property_of(name), name, e)], timeout_ms)
    if out.status == "unsat":
        return Proved(claim)
    if out.status == "unknown" or out.model is None:
        return Unknown(claim, out.reason)
    stream = Stream((concrete_event(out.model, e, 0),))
    if not satisfies(pattern, name, stream[0]):
        return Unknown(claim, "Z3's witness does not satisfy the properties in the reference")
    return CounterExample(claim, stream, note=f"this event satisfies the properties of {name}")


def dead_variables(pattern: SESPattern, *, schema: Schema | None = None,
                   timeout_ms: int = TIMEOUT_MS) -> dict[str, Result]:
    """:func:`dead_variable` for every variable of ``pattern``."""
    schema = schema or pattern_schema(pattern)
    return {v: dead_variable(pattern, v, schema=schema, timeout_ms=timeout_ms)
            for v in pattern.names}


def no_match(pattern: SESPattern, *, schema: Schema | None = None, bound: int = BOUND,
             timeout_ms: int = TIMEOUT_MS) -> Result:
    """"No stream of at most ``bound`` events has a match": proved, or the shortest witness."""
    schema = schema or pattern_schema(pattern)
    claim = f"no stream of at most {bound} events has a match"
    for n in range(len(pattern.names), bound + 1):
        s = sym_stream(schema, n, pattern.window)
        g = assignment(pattern.names, n)
        out = solve([*s.constraints, *g.constraints, g.bound(0), is_match(pattern, s, g)],
                    timeout_ms)
        if out.status == "unknown":
            return Unknown(claim, out.reason)
        if out.status == "sat" and out.model is not None:
            stream, gamma = stream_from(out.model, s), match_from(out.model, g)
            if gamma not in all_matches(pattern, stream):
                return Unknown(claim, "the reference does not find Z3's match")
            return CounterExample(claim, stream, gamma, "a match")
    return Proved(claim, bound)


def dead_transitions(compiled: SESAutomaton | CompiledSES, *, schema: Schema | None = None,
                     bound: int = BOUND,
                     timeout_ms: int = TIMEOUT_MS) -> dict[SESTransition, Result]:
    """"δ never fires" for every transition δ of the automaton (proved: δ is dead)."""
    return transition_witnesses(compiled, schema=schema, bound=bound, timeout_ms=timeout_ms)
