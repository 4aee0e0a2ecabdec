"""Bounded equivalence of the seed 003 NFAs and the reference by symbolic streams.

For each length ``n`` up to the bound, one Z3 query per engine asks for a stream of
``n`` symbolic events (types, attributes, timestamps) and a symbolic substitution γ
on which the reference's match condition (:mod:`.definition`, from the pattern)
and the engine's (:mod:`.plans`, from its compiled plans) disagree. *unsat* at
every length proves "E reports exactly the reference's matches on every stream of
at most ``bound`` events"; one query covers every stream of that length at once, so
no class of streams is enumerated and comparisons between events cost no more
than properties (:mod:`.classes` enumerates them instead and runs the engines).

A *sat* answer is a stream and a γ; it is replayed (the engine's own run and the
reference, :func:`kleene.conformance.differential.reference_matches`): a
difference is a :class:`CounterExample`; none, an :class:`Unknown` saying the
encoding of the plans and the run disagree (never a silent pass). A time limit
(``seconds``) or Z3's ``unknown`` (twice: a query that gives up is asked again with
another random seed) stops with an :class:`Unknown` naming the largest length
decided. The premise (:mod:`.plans`): a run reports exactly the
complete instances its plans accept, each once; duplicates are the class
enumeration's to find.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace

import z3

from kleene.conformance.differential import reference_matches
from kleene.engines.nfa.engine import CompiledNFA
from kleene.engines.protocol import Compiled, WindowReading
from kleene.proofs.encode import as_z3, concrete_event, symbolic_event
from kleene.proofs.nfa.classes import schema_of, window_bound
from kleene.proofs.nfa.definition import Symbolic, reference_match
from kleene.proofs.nfa.equivalence import difference, runs, twins
from kleene.proofs.nfa.plans import nfa_accepts
from kleene.proofs.results import CounterExample, Proved, Result, Unknown
from kleene.proofs.schema import Schema
from kleene.proofs.ses.symbolic import assignment, match_from
from kleene.proofs.solver import TIMEOUT_MS, solve
from kleene.reference.errors import Unsupported
from kleene.reference.events import Stream
from kleene.reference.operators.pattern import OperatorPattern, positive_variables

#: The default bound of the symbolic equivalence.
SYMBOLIC_BOUND = 8
#: Z3's random seed for the second try of a query that gave up.
RETRY_SEED = 7


def symbolic_stream(pattern: OperatorPattern, schema: Schema, n: int,
                    reading: WindowReading = "inclusive") -> Symbolic:
    """``n`` fresh symbolic events over ``schema`` and a substitution of the pattern's
    positive variables over them; τ the pattern's."""
    events = tuple(symbolic_event(schema, f"e{i}") for i in range(n))
    names = sorted(positive_variables(pattern.expr))
    return Symbolic(events, assignment(names, n), window_bound(pattern), reading)


def symbolic_equivalence(pattern: OperatorPattern, *,
                         compiled: dict[str, Compiled] | None = None,
                         policies: Sequence[str] = ("any",),
                         reading: WindowReading = "inclusive", bound: int = SYMBOLIC_BOUND,
                         timeout_ms: int = TIMEOUT_MS, seconds: float | None = None,
                         schema: Schema | None = None) -> dict[str, Result]:
    """Per engine (and policy): :class:`Proved` for streams of at most ``bound`` events,
    a replayed :class:`CounterExample`, or :class:`Unknown` with the reason and the
    length decided. ``compiled`` replaces the claiming engines (run under the first
    policy). :class:`~kleene.reference.errors.Unsupported` when the pattern is outside
    the encoding (an iterated or negated sub-pattern)."""
    engines = (runs(pattern, policies, reading) if compiled is None
               else {name: (c, policies[0]) for name, c in compiled.items()})
    schema = schema or schema_of(pattern)
    reference_match(pattern, symbolic_stream(pattern, schema, 1))   # Unsupported: before any run
    claims = {name: f"{name} reports exactly the reference's matches" for name in engines}
    twin = twins(engines)
    out: dict[str, Result] = {}
    deadline = None if seconds is None else time.monotonic() + seconds
    for n in range(1, bound + 1):
        s = symbolic_stream(pattern, schema, n, reading)
        expected = {p: reference_match(pattern, s, p) for p in dict.fromkeys(
            p for _, p in engines.values())}
        for name, (c, policy) in engines.items():
            if name in out or name in twin:
                continue
            if not isinstance(c, CompiledNFA):
                raise Unsupported(f"{name} compiles no NFA plans")
            done = f"the same matches on every stream of at most {n - 1} events; " \
                if n > 1 else ""
            if deadline is not None and time.monotonic() > deadline:
                out[name] = Unknown(claims[name], f"{done}stopped after {seconds:g} s at "
                                                  f"{n} events")
                continue
            query = [*s.constraints, as_z3(expected[policy]) != as_z3(nfa_accepts(c, s))]
            got = solve(query, timeout_ms)
            if got.status == "unknown":   # Z3's string search times out at random: once more
                got = solve(query, timeout_ms, seed=RETRY_SEED)
            if got.status == "unknown":
                out[name] = Unknown(claims[name], f"{done}Z3 gave up at {n} events "
                                                  f"({got.reason})")
            elif got.status == "sat" and got.model is not None:
                out[name] = replayed(claims[name], pattern, c, policy, reading, s, got.model)
    result = {name: out.get(name) or Proved(claims[name], bound) for name in engines}
    return {name: replace(result[twin[name]], claim=claims[name]) if name in twin else r
            for name, r in result.items()}


def replayed(claim: str, pattern: OperatorPattern, c: Compiled, policy: str,
             reading: WindowReading, s: Symbolic, model: z3.ModelRef) -> Result:
    """Z3's stream, run through the engine and the reference: the difference, if any."""
    stream = Stream(tuple(concrete_event(model, e, i) for i, e in enumerate(s.events)))
    gamma = match_from(model, s.gamma)
    expected = reference_matches(pattern, stream, policy, reading=reading)
    got = list(c.run(stream))
    if gamma is not None and (gamma in expected) != (gamma in got):
        side = ("the reference finds it and the engine does not" if gamma in expected
                else "the engine reports it, which the reference does not find")
        return CounterExample(claim, stream, gamma, f"{gamma}: {side}")
    match, note = difference(got, expected)
    if note:
        return CounterExample(claim, stream, match, note)
    return Unknown(claim, f"Z3's stream of {s.n} events, on which the encodings differ "
                          f"on {gamma}, replays equal: the encoding of the plans and the "
                          "run disagree")
