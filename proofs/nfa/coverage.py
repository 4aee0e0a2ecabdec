"""Transition coverage of the lazy NFAs of seed 003 (the chains of Secs. 3–4, the
Multi-Chain of Sec. 5, the Tree NFA of Sec. 7), derived from their run traces.

A lazy NFA evaluates an event when an instance looks for it, possibly long after
it arrived (Sec. 3), so which transition an event drives depends on the
evaluation order, not on the stream order as for the eager NFA
(:func:`kleene.proofs.nfa.equivalence.coverage`). The engine's own trace
(:func:`kleene.engines.nfa.trace.trace_nfa`, which observes every instance the
runners create through ``Plan.bind``) says it: an instance created from the bound
slots ``S`` by binding slot ``s`` took the transition ``S --s--> S ∪ {s}``
(``(b, |S|) → (b, |S| + 1)`` in a chain, ``(b, S) → (b, S ∪ {s})`` in the Tree
NFA), an iterated slot bound again takes its loop, and an instance alive before
and after an event of the pattern's types took its state's skip loop.

The chains are traced with the order ``kleene draw`` draws (the pattern's order,
iterated slots last: :func:`kleene.engines.nfa.chain.chain_order` without
frequencies), so the transitions are those of the picture; a run of the engine
itself orders the chain by the stream's frequencies. The first (shortest) stream
whose trace takes a transition is its witness. The Tree NFA (Sec. 7) draws every
order's states and bolds its current one; a run in that order takes only the
transitions along it (:func:`off_order` names the others, which a run takes only
once the buffers' counts pick another order).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import replace

from kleene.engines.nfa.engine import CompiledNFA
from kleene.engines.nfa.trace import trace_nfa
from kleene.engines.protocol import Transition
from kleene.proofs.nfa.equivalence import Coverage
from kleene.reference.events import Stream

#: A transition as the trace shows it: (source, target, variable); ``None`` a skip loop.
Key = tuple[Hashable, Hashable, str | None]


def drawn_order(compiled: CompiledNFA) -> CompiledNFA:
    """``compiled`` with the chain order of its picture fixed (runs do not re-sample it)."""
    return replace(compiled, frequencies={}, orders=compiled.orders)


def _state(c: CompiledNFA, b: int, slots: frozenset[int]) -> Hashable:
    """The state of :meth:`CompiledNFA.iter_transitions` in which ``slots`` are bound."""
    if c.kind == "chain":
        return (b, len(slots))
    return (b, frozenset(c.plans[b].shape.slots[i].var for i in slots))


def traced(c: CompiledNFA, s: Stream) -> set[Key]:
    """The transitions the run of ``c`` on ``s`` takes (module docstring)."""
    out: set[Key] = set()
    before: dict[int, tuple[int, frozenset[int]]] = {}
    for step in trace_nfa(c, s).steps:
        if not step.relevant:
            continue
        for _, p in step.live:
            if id(p) in before:
                here = _state(c, *before[id(p)])
                out.add((here, here, None))
        for x in step.created:
            var = c.plans[x.branch].shape.slots[x.slot].var
            source = _state(c, x.branch, x.source)
            bound = x.source | {x.slot}
            target = _state(c, x.branch, bound)
            out.add((source, target, var))
            if len(x.new) > 1:   # an iteration bound several events at once: its loop
                out.add((target, target, var))
        before = {id(p): (b, frozenset(i for i, v in enumerate(p.binds) if v))
                  for b, p in step.live}
    return out


def lazy_coverage(compiled: CompiledNFA, streams: Iterable[Stream]) -> Coverage:
    """Which transitions of the lazy NFA ``compiled`` (in its drawn order) the runs on
    ``streams`` take, each with the first stream that takes it."""
    c = drawn_order(compiled)
    transitions = list(c.iter_transitions())
    witnesses: dict[Transition, Stream | None] = dict.fromkeys(transitions)
    index: dict[Key, list[Transition]] = {}
    for t in transitions:
        index.setdefault((t.source, t.target, t.variable), []).append(t)
    left = len(transitions)
    for s in streams:
        for key in traced(c, s):
            for t in index.get(key, ()):
                if witnesses[t] is None:
                    witnesses[t] = s
                    left -= 1
        if not left:
            break
    return Coverage(witnesses)


def off_order(compiled: CompiledNFA) -> set[Transition]:
    """The transitions of a Tree NFA off its current order (the bold path of its picture,
    ``compiled.orders``): a run in that order never takes them. Empty for a chain."""
    if compiled.kind != "tree":
        return set()
    path = {(b, frozenset(plan.shape.slots[i].var for i in compiled.orders[b][:k]))
            for b, plan in enumerate(compiled.plans) for k in range(plan.n + 1)}
    return {t for t in compiled.iter_transitions()
            if t.source not in path or t.target not in path}
