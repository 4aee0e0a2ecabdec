"""Witness streams: for every transition of an SES automaton, a short stream that fires it.

For transition δ = (q, v, Θ_δ) of seed 000 Def. 3, Z3 looks for the shortest
stream e_0..e_{r-1} such that the instance started at e_0 takes every event
along a path of transitions that reaches q, and then takes e_{r-1} by δ
(:meth:`~kleene.proofs.ses.runs.RunEncoding.path`). Every event of the witness is
taken, so under ``next`` (where an instance branches on every enabled
transition) the engine runs that path too. Runs that skip events need not be
searched: dropping the skipped events leaves every guard's verdict unchanged
(a guard reads only the buffer and the new event) and the window narrower.
Before the bounded search, Θ_δ is tried against an arbitrary buffer
(:func:`~kleene.proofs.ses.runs.any_buffer_guard`): if even that is
unsatisfiable, δ is dead for streams of any length.

The claim checked per transition is "δ never fires": a witness is its
counterexample, and :func:`fired_transitions` confirms it by driving the
engine's :class:`~kleene.engines.ses.run.Execution` over the witness and
reading back, from every buffer it holds or reports, the transitions taken.
:func:`witness_streams` exports the witnesses for the differential tests;
:func:`coverage` says which transitions each stream fires.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from kleene.engines.protocol import Counters
from kleene.engines.ses.automaton import SESAutomaton, SESTransition, ses_automaton
from kleene.engines.ses.run import CompiledSES, Execution
from kleene.engines.spans import Window
from kleene.proofs.encode import symbolic_event
from kleene.proofs.results import CounterExample, Proved, Result, Unknown
from kleene.proofs.schema import Schema, schema_for
from kleene.proofs.ses.runs import RunEncoding, any_buffer_guard
from kleene.proofs.ses.symbolic import assignment, match_from, stream_from, sym_stream
from kleene.proofs.solver import TIMEOUT_MS, solve
from kleene.reference.events import Event, Stream
from kleene.reference.match import Match
from kleene.reference.ses.pattern import SESPattern

#: The default bound on the length of a witness.
BOUND = 6


def automaton_of(compiled: SESAutomaton | CompiledSES) -> SESAutomaton:
    """The SES automaton itself, given it or the engine's compiled form."""
    return compiled.automaton if isinstance(compiled, CompiledSES) else compiled


def automaton_schema(n: SESAutomaton) -> Schema:
    """The default schema of the attributes ``n``'s guards read."""
    return schema_for([c for d in n.transitions for c in d.conditions], n.window)


def path_of(bindings: Iterable[tuple[int, str]], n: SESAutomaton) -> list[SESTransition]:
    """The transitions a buffer took: its (position, variable) pairs in stream order."""
    by_key = {(d.source, d.variable): d for d in n.transitions}
    state: frozenset[str] = n.start
    out = []
    for _, v in sorted(bindings):
        out.append(by_key[(state, v)])
        state = state | {v}
    return out


def _pairs(beta: Mapping[str, Sequence[Event]] | Match) -> list[tuple[int, str]]:
    if isinstance(beta, Match):
        return [(p, v) for v, ps in beta.bindings for p in ps]
    return [(e.position, v) for v, es in beta.items() for e in es]


def fired_transitions(n: SESAutomaton, s: Stream) -> set[SESTransition]:
    """Every transition the engine (``next``, corrected, unfiltered) takes on ``s``."""
    ex = Execution(n, win=Window(n.window.in_units_of(s.time_unit)), policy="next",
                   variant="corrected", counters=Counters())
    buffers: list[Mapping[str, Sequence[Event]] | Match] = []
    for e in s:
        buffers += ex.step(e)
        buffers += [inst.beta for inst in ex.omega]
    buffers += ex.finish()
    return {d for beta in buffers for d in path_of(_pairs(beta), n)}


def transition_witness(n: SESAutomaton, delta: SESTransition, *, schema: Schema | None = None,
                       bound: int = BOUND, timeout_ms: int = TIMEOUT_MS) -> Result:
    """"δ never fires": proved (dead), or refuted by the shortest witness stream."""
    schema = schema or automaton_schema(n)
    claim = f"transition {delta} never fires"
    e = symbolic_event(schema, "new")
    guard, buffer = any_buffer_guard(delta, schema, e)
    constraints = [*e.constraints, *(c for b in buffer.values() for c in b.constraints), guard]
    quick = solve(constraints, timeout_ms)
    if quick.status == "unsat":
        return Proved(claim)          # not even an arbitrary buffer lets Θ_δ hold
    names = tuple(sorted(n.variables))
    for r in range(len(delta.source) + 1, bound + 1):
        s = sym_stream(schema, r, n.window)
        g = assignment(names, r)
        run = RunEncoding(n, s, g)
        out = solve([*s.constraints, *g.constraints, run.path(r),
                     run.in_state(r - 1, delta.source), g.binds(r - 1, delta.variable)],
                    timeout_ms)
        if out.status == "unknown":
            return Unknown(claim, out.reason)
        if out.status == "sat":
            assert out.model is not None
            stream = stream_from(out.model, s)
            if delta not in fired_transitions(n, stream):
                return Unknown(claim, "the engine did not fire it on Z3's witness")
            return CounterExample(claim, stream, match_from(out.model, g), "fired by this stream")
    return Proved(claim, bound)


def transition_witnesses(compiled: SESAutomaton | CompiledSES, *, schema: Schema | None = None,
                         bound: int = BOUND,
                         timeout_ms: int = TIMEOUT_MS) -> dict[SESTransition, Result]:
    """:func:`transition_witness` for every transition of the automaton."""
    n = automaton_of(compiled)
    schema = schema or automaton_schema(n)
    return {d: transition_witness(n, d, schema=schema, bound=bound, timeout_ms=timeout_ms)
            for d in n.transitions}


def witness_streams(pattern: SESPattern, *, schema: Schema | None = None, bound: int = BOUND,
                    timeout_ms: int = TIMEOUT_MS) -> tuple[Stream, ...]:
    """One stream per live transition of ``pattern``'s SES automaton (duplicates kept
    once), for the differential tests."""
    n = ses_automaton(pattern)
    schema = schema or schema_for(pattern.conditions, pattern.window)
    out: list[Stream] = []
    for result in transition_witnesses(n, schema=schema, bound=bound,
                                       timeout_ms=timeout_ms).values():
        if isinstance(result, CounterExample) and result.stream not in out:
            out.append(result.stream)
    return tuple(out)


def coverage(n: SESAutomaton, streams: Sequence[Stream]) -> dict[SESTransition, list[int]]:
    """For each transition of ``n``, the indexes of the ``streams`` on which it fires."""
    fired = [fired_transitions(n, s) for s in streams]
    return {d: [i for i, f in enumerate(fired) if d in f] for d in n.transitions}
