"""Witnesses for the transitions of the lazy NFAs by symbolic streams, or proofs that
no run takes them (seed 003 Secs. 3–7; :mod:`.coverage` reads the run traces).

A lazy NFA's instance in state ``S`` (its bound slots) was built by binding one slot
at a time, each bind admitted by :meth:`~kleene.engines.nfa.partial.Plan.admits`:
the slot's type and size, the strict ``ts`` order with the bound slots before and
after it, the window, distinct events, the group-by attribute and the incremental
conditions whose slots are all bound. Each of these, true of an instance, stays true
when events are removed from it (an iterated slot keeping at least one; the
conditions are monotone, ``reference.operators.derivations.monotone``), so an
instance binding ``S`` exists on some stream iff one binding one event per slot of
``S`` does (two for a loop's slot). :func:`witness` asks Z3 for such a stream (an
extra event after it for a skip loop: the instance must see one), then *replays* it
through the engine's trace (:func:`.coverage.traced`): a witness counts only when
the run takes the transition. *unsat* proves the transition dead on every stream,
whatever its length: no instance in its source (a take, a loop) or target state can
exist. Some transitions are dead by the runners' own rules, and the answer says which:
an iterated slot is closed (:meth:`Plan.is_open`) once a slot that follows it in ``ts``
is bound, so its loop there never fires; an instance that cannot grow is not kept
(``_grows`` of the chain and the Tree NFA), nor is an empty one (the start), so its
state's skip loop never fires.
"""

from __future__ import annotations

from dataclasses import dataclass

from kleene.engines.nfa.engine import CompiledNFA
from kleene.engines.nfa.partial import Plan
from kleene.engines.protocol import Transition
from kleene.proofs.encode import (
    Lit,
    compare,
    concrete_event,
    conj,
    holds_over,
    implies,
    neg,
    symbolic_event,
)
from kleene.proofs.nfa.coverage import traced
from kleene.proofs.nfa.definition import Symbolic
from kleene.proofs.results import CounterExample, Proved, Result, Unknown
from kleene.proofs.schema import Schema
from kleene.proofs.ses.symbolic import assignment
from kleene.proofs.solver import TIMEOUT_MS, solve
from kleene.reference.events import Stream


@dataclass(frozen=True)
class Step:
    """What a transition asks of an instance: its branch, the slots bound once it is
    taken (``sizes``: events per slot, two for the looped slot), and a skip's extra event."""

    branch: int
    sizes: dict[int, int]
    skip: bool


def step_of(c: CompiledNFA, t: Transition) -> Step | str:
    """The :class:`Step` of ``t`` in ``c`` (states as :meth:`CompiledNFA.iter_transitions`
    names them), or why it is dead by the run's rules."""
    assert isinstance(t.source, tuple)   # (branch, state): every NFA state is a pair
    b: int = t.source[0]
    here = t.source[1]
    plan = c.plans[b]
    slots = plan.shape.slots
    if c.kind == "chain":
        bound = list(c.orders[b][:here])
    else:
        bound = [s.index for s in slots if s.var in here]
    sizes = dict.fromkeys(bound, 1)
    if t.variable is None:
        return _lives(c, plan, b, bound) or Step(b, sizes, True)
    i = next(s.index for s in slots if s.var == t.variable)
    if t.source == t.target:   # a loop: the slot takes a second event
        closing = [slots[x].var for x in plan.shape.after[i] if x in sizes]
        first = c.kind != "chain" or c.orders[b].index(i) + 1 == here
        if closing and not first:
            return (f"{t.variable} is closed once {', '.join(closing)} is bound "
                    "(an iterated slot takes no event after a later slot's)")
        sizes[i] = 2
    else:
        sizes[i] = 1
    return Step(b, sizes, False)


def _lives(c: CompiledNFA, plan: Plan, b: int, bound: list[int]) -> str:
    """Why an instance binding ``bound`` is never kept alive (the runners' ``_grows``),
    or ``""``: a complete one only while an iterated slot is open, a chain's while its
    next slot follows no bound slot in ``ts``."""
    slots, after = plan.shape.slots, plan.shape.after
    if not bound:
        return "the start holds no instance: a lazy run creates one by binding a slot"
    if len(bound) == plan.n:
        if any(s.iterated and not after[s.index] for s in slots):
            return ""
        return "a complete instance is kept only while an iterated slot is open"
    if c.kind == "chain":
        nxt = c.orders[b][len(bound)]
        late = [slots[x].var for x in after[nxt] if x in bound]
        if late:
            return (f"the instance waits for {slots[nxt].var}, which must precede "
                    f"{', '.join(late)}, bound already: it is not kept")
    return ""


def admitted(plan: Plan, s: Symbolic, sizes: dict[int, int]) -> Lit:
    """γ binds ``sizes[i]`` events to each slot ``i`` (none to the others) and every
    bind was admitted (module docstring)."""
    shape, slots = plan.shape, plan.shape.slots
    out: list[Lit] = [neg(s.is_bound(x.var)) for x in slots if x.index not in sizes]
    for i, k in sizes.items():
        out.append(conj(s.count(slots[i].var) == k,
                        *(implies(s.gamma.binds(p, slots[i].var), s.is_type(p, slots[i].type))
                          for p in range(s.n))))
        out += [s.before(frozenset({slots[t].var}), frozenset({slots[i].var}))
                for t in shape.before[i] if t in sizes]
        attr = plan.groups[i]
        if attr is not None and k > 1:
            out += [implies(conj(s.gamma.binds(p, slots[i].var), s.gamma.binds(q, slots[i].var)),
                            compare("=", s.events[p].value(attr), s.events[q].value(attr))[0])
                    for p in range(s.n) for q in range(p + 1, s.n)]
    out.append(s.window())
    members = s.members()
    for i in sizes:
        out += [holds_over(cond, members) for cond, where in plan.placed.incremental[i]
                if all(x in sizes for x in where)]
    return conj(*out)


def witness(c: CompiledNFA, t: Transition, schema: Schema,
            timeout_ms: int = TIMEOUT_MS) -> Result:
    """"``t`` never fires": refuted by a stream whose run takes it, proved when no
    instance can be in its state, :class:`Unknown` otherwise (with the reason)."""
    claim = f"{t.source} -> {t.target} never fires"
    step = step_of(c, t)
    if isinstance(step, str):
        return Proved(claim, note=step)
    plan = c.plans[step.branch]
    n = sum(step.sizes.values()) + step.skip
    events = tuple(symbolic_event(schema, f"e{i}") for i in range(n))
    window = c.pattern.window
    tau = None if window is None else window.in_units_of(c.time_unit)
    names = sorted(x.var for x in plan.shape.slots)
    s = Symbolic(events, assignment(names, n), tau, c.reading)
    given = [*s.constraints, admitted(plan, s, step.sizes)]
    got = solve(given, timeout_ms)
    if got.status == "unsat":
        return Proved(claim, note="no instance can bind its slots on any stream")
    if got.status != "sat":
        return Unknown(claim, f"Z3 gave up ({got.reason}) on {n} events")
    last = n - 1
    # a skip: the last event unbound, of each slot's type in turn, while the instance lives
    tries = [[neg(s.gamma.bound(last)), s.is_type(last, kind),
              *(implies(s.gamma.bound(p), s.fits(p, last)) for p in range(last))]
             for kind in dict.fromkeys(x.type for x in plan.shape.slots)] if step.skip else [[]]
    for extra in tries:
        got = solve([*given, *extra], timeout_ms)
        if got.status == "sat" and got.model is not None:
            stream = Stream(tuple(concrete_event(got.model, e, i)
                                  for i, e in enumerate(events)))
            if (t.source, t.target, t.variable) in traced(c, stream):
                return CounterExample(claim, stream, note="a run takes it")
    return Unknown(claim, f"an instance can bind its slots ({n} events), and no run on "
                          "Z3's streams takes it")
