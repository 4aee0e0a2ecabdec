"""What an NFA engine's compiled plans accept, over a symbolic stream (seed 003 Sec. 2.2).

Every NFA engine of seed 003 (eager, chains, Multi-Chain, Tree) runs the same
:class:`~kleene.engines.nfa.partial.Plan`\\ s, one per ``OR``-free conjunct of the
DNF; they differ in the order they bind slots, not in what a complete instance
must satisfy. This module encodes, from the plans alone (never the pattern), the
condition under which a complete instance holding γ becomes a match
(:meth:`Plan.admits` on every edge, then :meth:`Plan.finish`):

- γ binds exactly the branch's slots, each ``max(low, 1)`` to ``high`` events of the
  slot's type (:attr:`Slot.low`, :attr:`Slot.high`);
- ``shape.before``: every event of slot t has a smaller ``ts`` than every event of
  slot i, for t in ``before[i]``;
- the window (the compiled pattern's τ and reading, as a run binds it) over the
  instance's span;
- the incremental conditions (``placed.incremental``, each checked over all its
  instantiations once all its slots are bound) and the final ones
  (``placed.final``), decomposed (:func:`kleene.proofs.encode.holds_over`);
- Sec. 4.5.3's group-by attribute (``plan.groups``): the events of an iterated slot
  share a present value of it;
- no negation forbids it (:func:`kleene.engines.nfa.negation.forbidden`): an event
  not taken, of the negated type, strictly after every event of the ``lo`` slots
  and before every one of the ``hi`` slots, in one window with the instance, on
  which every condition of the negation holds;
- ``plan.contiguous``: γ binds every event between its first and last.

The premise: a run reports, each once, exactly the complete instances that satisfy
this (the order of binding changes when an instance is built, not whether).
A counterexample is therefore replayed through the engine's own run.
"""

from __future__ import annotations

import itertools

from kleene.engines.nfa.engine import CompiledNFA
from kleene.engines.nfa.partial import Plan
from kleene.proofs.encode import Lit, compare, conj, disj, holds_over, implies, neg
from kleene.proofs.nfa.definition import Symbolic


def _branch(plan: Plan, here: Symbolic, names: tuple[str, ...]) -> Lit:
    """γ is a match of the instance of ``plan`` that binds it (module docstring); τ is
    ``here``'s."""
    shape, placed = plan.shape, plan.placed
    mine = {x.var for x in shape.slots}
    out: list[Lit] = [neg(here.is_bound(v)) for v in names if v not in mine]
    for slot in shape.slots:
        out.append(here.sized(slot.var, slot.type, slot.low, slot.high))
        for t in shape.before[slot.index]:
            out.append(here.before(frozenset({shape.slots[t].var}), frozenset({slot.var})))
        attr = plan.groups[slot.index]
        if attr is not None:
            out += [implies(conj(here.gamma.binds(i, slot.var), here.gamma.binds(j, slot.var)),
                            compare("=", here.events[i].value(attr),
                                    here.events[j].value(attr))[0])
                    for i, j in itertools.combinations(range(here.n), 2)]
    out.append(here.window())
    members = here.members()
    incremental = dict.fromkeys(c for per in placed.incremental for c, _ in per)
    out += [holds_over(c, members) for c in (*incremental, *placed.final)]
    for k, x in enumerate(shape.negations):
        after = tuple(frozenset({shape.slots[i].var}) for i in x.lo)
        before = tuple(frozenset({shape.slots[i].var}) for i in x.hi)
        out.append(neg(disj(*(here.forbidden_at(e, x.var, x.type, after, before,
                                                placed.negation[k], gated=False)
                              for e in range(here.n)))))
    if plan.contiguous:
        out.append(here.contiguous())
    return conj(*out)


def nfa_accepts(compiled: CompiledNFA, s: Symbolic) -> Lit:
    """γ is a match some plan of ``compiled`` reports (module docstring): τ is the
    compiled pattern's window in the compiled time unit, read as compiled (what a run
    gives its plans, :func:`kleene.engines.protocol.window_in_units`)."""
    window = compiled.pattern.window
    tau = None if window is None else window.in_units_of(compiled.time_unit)
    here = Symbolic(s.events, s.gamma, tau, compiled.reading)
    return disj(*(_branch(p, here, s.gamma.names) for p in compiled.plans))
