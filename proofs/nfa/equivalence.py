"""Bounded equivalence of the seed 003 NFAs and the operator reference, and witnesses
that drive the eager NFA's transitions (seed 003 Sec. 2.2 and Sec. 6).

:func:`equivalence`: for every stream of at most ``bound`` events, each engine
(the eager NFA, the chains, the Multi-Chain and the Tree NFA that claim the
pattern) reports exactly the reference's matches, each once. The streams are
the classes of :mod:`.classes` (every stream of that length is like one of
them for the pattern), so running the engines on them decides the claim; a
difference is a :class:`CounterExample` (the stream, and a match missing or
extra), too many classes an :class:`Unknown`.

:func:`coverage`: the transitions of the eager NFA (``iter_transitions``) each
class stream drives along the accepting path of one of its matches (the eager
NFA binds in stream order, Sec. 2.2: the state is the set of variables bound
so far, an event of an iterated variable bound again loops, an event read in
between is skipped); the first (shortest) stream that drives a transition is
its *witness*. Transitions no match drives within the bound are listed: they
may still fire in a run that never completes.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, replace

from kleene.conformance.differential import reference_matches
from kleene.engines.protocol import Compiled, Query, Transition, WindowReading, claims
from kleene.engines.registry import engine
from kleene.proofs.nfa.classes import stream_classes
from kleene.proofs.results import CounterExample, Proved, Result, Unknown
from kleene.proofs.schema import Schema
from kleene.proofs.solver import TIMEOUT_MS, TooManyModels
from kleene.reference.errors import Unsupported
from kleene.reference.events import Stream
from kleene.reference.match import Match
from kleene.reference.operators.pattern import OperatorPattern

#: The NFA engines of seed 003, eager first.
NFA_ENGINES = ("nfa-eager", "nfa-chain", "nfa-chain-fc", "nfa-multichain", "nfa-tree")
#: The default bound (the issue asks for at least 5 events).
BOUND = 5


def claiming(pattern: OperatorPattern, policy: str = "any",
             reading: WindowReading = "inclusive",
             names: Iterable[str] = NFA_ENGINES) -> dict[str, Compiled]:
    """The engines of ``names`` that claim the query, compiled."""
    query = Query.of(pattern, policy=policy, reading=reading)
    out: dict[str, Compiled] = {}
    for name in names:
        e = engine(name)
        if claims(e, query):
            try:
                out[name] = e.compile(query)
            except Unsupported:
                continue
    return out


def difference(got: Sequence[Match], expected: set[Match]) -> tuple[Match | None, str]:
    missing, extra = expected - set(got), set(got) - expected
    twice = [m for m, k in Counter(got).items() if k > 1]
    if missing:
        m = min(missing)
        return m, f"the reference finds {m} and the engine does not"
    if extra:
        m = min(extra)
        return m, f"the engine reports {m}, which the reference does not find"
    if twice:
        return twice[0], f"the engine reports {twice[0]} more than once"
    return None, ""


def runs(pattern: OperatorPattern, policies: Sequence[str] = ("any",),
         reading: WindowReading = "inclusive") -> dict[str, tuple[Compiled, str]]:
    """Every claiming engine under each policy, compiled, labelled ``name`` (one policy)
    or ``name under policy``."""
    out: dict[str, tuple[Compiled, str]] = {}
    for policy in policies:
        for name, c in claiming(pattern, policy, reading).items():
            out[name if len(policies) == 1 else f"{name} under {policy}"] = (c, policy)
    return out


def equivalence(pattern: OperatorPattern, *, compiled: dict[str, Compiled] | None = None,
                policy: str = "any", policies: Sequence[str] | None = None,
                reading: WindowReading = "inclusive", bound: int = BOUND,
                timeout_ms: int = TIMEOUT_MS, witnesses: list[Stream] | None = None,
                seconds: float | None = None, schema: Schema | None = None
                ) -> dict[str, Result]:
    """Per engine (and policy, with ``policies``): :class:`Proved` (for at most ``bound``
    events) that it reports exactly the reference's matches, a :class:`CounterExample`,
    or :class:`Unknown` (too many classes, or more than ``seconds`` spent).
    ``compiled`` replaces the claiming engines (run under ``policy``); ``witnesses``,
    when given, receives the class streams."""
    engines = (runs(pattern, policies or (policy,), reading) if compiled is None
               else {name: (c, policy) for name, c in compiled.items()})
    claims_of = {name: f"{name} reports exactly the reference's matches" for name in engines}
    twin = twins(engines)
    found: dict[str, Result] = {}
    done = -1   # every stream of at most `done` events is decided
    deadline = None if seconds is None else time.monotonic() + seconds
    try:
        for s in stream_classes(pattern, bound, schema=schema, timeout_ms=timeout_ms):
            if deadline is not None and time.monotonic() > deadline:
                raise TooManyModels(f"stopped after {seconds:g} s at {len(s)} events")
            done = len(s) - 1
            if witnesses is not None:
                witnesses.append(s)
            expected: dict[str, set[Match]] = {}
            for name, (c, p) in engines.items():
                if name in found or name in twin:
                    continue
                if p not in expected:
                    expected[p] = reference_matches(pattern, s, p, reading=reading)
                match, note = difference(list(c.run(s)), expected[p])
                if note:
                    found[name] = CounterExample(claims_of[name], s, match, note)
            if len(found) + len(twin) == len(engines):   # every engine refuted
                break
    except TooManyModels as err:
        partial = (f"the same matches as the reference on every stream of at most {done} "
                   "events; " if done > 0 else "")
        out = {name: found.get(name) or Unknown(claims_of[name], f"{partial}{err}")
               for name in engines}
    else:
        out = {name: found.get(name) or Proved(claims_of[name], bound) for name in engines}
    return {name: replace(out[twin[name]], claim=claims_of[name]) if name in twin else r
            for name, r in out.items()}


def twins(engines: dict[str, tuple[Compiled, str]]) -> dict[str, str]:
    """Each engine whose compiled automaton, under the same policy, equals (as a value,
    before any run) an earlier one's, mapped to that one: a run reads nothing but the
    compiled value and the stream, so the two answer alike on every stream and one is
    run (``nfa-multichain`` compiles a pattern without ``OR`` as ``nfa-chain`` does)."""
    out: dict[str, str] = {}
    seen: list[tuple[str, Compiled, str]] = []
    for name, (c, p) in engines.items():
        same = next((n for n, d, q in seen if q == p and type(d) is type(c) and d == c), None)
        if same is None:
            seen.append((name, c, p))
        else:
            out[name] = same
    return out


@dataclass(frozen=True)
class Coverage:
    """The eager NFA's transitions, each with its witness stream (``None``: not driven)."""

    witnesses: dict[Transition, Stream | None]

    @property
    def covered(self) -> int:
        return sum(s is not None for s in self.witnesses.values())

    def __str__(self) -> str:
        return f"{self.covered} of {len(self.witnesses)} transitions driven"


def driven(m: Match, branch: int = 0) -> set[tuple[Hashable, Hashable, str | None]]:
    """``(source, target, variable)`` of the eager NFA's transitions on ``m``'s path."""
    order = sorted((p, v) for v in m.variables for p in m[v])
    bound: frozenset[str] = frozenset()
    out: set[tuple[Hashable, Hashable, str | None]] = set()
    at = {p for p, _ in order}
    for p in range(m.first, m.last + 1):
        here = (branch, bound)
        if p not in at:
            out.add((here, here, None))
            continue
        v = next(v for q, v in order if q == p)
        bound = bound | {v}
        out.add((here, (branch, bound), v))
    return out


def off_paths(compiled: Compiled) -> dict[Transition, str]:
    """The eager NFA's skip loops that lie on no match's path (:func:`driven`), and why: a
    path runs from a match's first event to its last, so it skips nothing in the start
    state, nor in an accepting one that no loop leaves for a later event."""
    transitions = list(compiled.iter_transitions())
    loops = {t.source for t in transitions if t.source == t.target and t.variable}
    out: dict[Transition, str] = {}
    for t in transitions:
        if t.variable is not None:
            continue
        if t.source in compiled.initial:
            out[t] = "a match's path starts with its first event"
        elif t.source in compiled.accepting and t.source not in loops:
            out[t] = "a match's path ends with its last event, and no loop leaves this state"
    return out


def coverage(pattern: OperatorPattern, streams: Iterable[Stream], *,
             compiled: Compiled | None = None, policy: str = "any",
             reading: WindowReading = "inclusive") -> Coverage:
    """Which of the eager NFA's transitions the ``streams`` drive (module docstring)."""
    compiled = compiled or engine("nfa-eager").compile(
        Query.of(pattern, policy=policy, reading=reading))
    transitions = list(compiled.iter_transitions())
    witnesses: dict[Transition, Stream | None] = dict.fromkeys(transitions)
    index = {(t.source, t.target, t.variable): t for t in transitions}
    for s in streams:
        for m in reference_matches(pattern, s, policy, reading=reading):
            for key in driven(m):
                t = index.get(key)
                if t is not None and witnesses[t] is None:
                    witnesses[t] = s
    return Coverage(witnesses)


def coverage_results(cov: Coverage, bound: int, *, by: str = "match") -> dict[Transition, Result]:
    """Per transition: a witness (refuting "it never fires") or :class:`Unknown`; ``by``
    says what takes transitions: a ``match``'s path (eager) or a ``run`` (lazy traces)."""
    out: dict[Transition, Result] = {}
    for t, s in cov.witnesses.items():
        claim = f"{t.source} -> {t.target} never fires"
        out[t] = (CounterExample(claim, s, note=f"a {by} takes it") if s is not None
                  else Unknown(claim, f"no {by} on a stream of at most {bound} events "
                                      "takes it"))
    return out
