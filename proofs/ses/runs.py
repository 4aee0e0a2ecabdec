"""Runs of an SES automaton over symbolic streams: seed 000 Def. 4, Algorithms 1--2.

The encoding reads the automaton (:class:`~kleene.engines.ses.automaton.SESAutomaton`:
states, transitions with their conditions Θ_δ, start, accepting, window), never
the pattern, so a broken automaton shows up as a difference. It models the
run of *one* instance, the one started at e_0 (instances never interact in
Alg. 1, and a run started later is a run started at e_0 of a shorter
stream), along the symbolic substitution γ (:class:`~kleene.proofs.ses.symbolic.Assignment`):

- the instance's state before e_j is the set of variables γ binds before e_j
  (Def. 3: ``q ∪ {v}``), and e_j is bound to ``v`` by the transition
  ``(state, v)`` if its Θ_δ holds (:meth:`RunEncoding.fires`);
- Θ_δ is evaluated as ``run.py``'s ``Execution._fire`` does it: only the
  instantiations in which the new event is ``v``'s current event (with ``v``'s
  last buffered event as ``prev``), the others having been evaluated when their
  last event was bound;
- ``next`` (the corrected Alg. 1): the instance takes every event it can
  within τ of e_0 (:meth:`RunEncoding.never_skips`); branches are other
  instances, so one γ is one branch. An instance is reported with its final
  buffer when accepting, so γ is *accepted* (:meth:`RunEncoding.accepted`) iff
  the run along γ takes each bound event, skips no takeable one, stays within
  τ, and ends in the accepting state.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kleene.engines.ses.automaton import SESAutomaton, SESTransition, State
from kleene.proofs.encode import (
    Lit,
    Member,
    SymEvent,
    conj,
    disj,
    holds_over,
    implies,
    neg,
    symbolic_event,
)
from kleene.proofs.schema import Schema
from kleene.proofs.ses.symbolic import Assignment, SymStream


@dataclass
class RunEncoding:
    """The run of automaton ``n`` started at e_0 of ``s`` along substitution ``g``."""

    n: SESAutomaton
    s: SymStream
    g: Assignment
    _fires: dict[tuple[int, SESTransition], Lit] = field(default_factory=dict, repr=False)

    @property
    def variables(self) -> tuple[str, ...]:
        return self.g.names

    def in_state(self, j: int, q: State) -> Lit:
        """Before e_j, the instance is in state ``q``: γ bound exactly ``q`` so far."""
        return conj(*(self.g.bound_before(v, j) if v in q else neg(self.g.bound_before(v, j))
                      for v in self.variables))

    def guard(self, delta: SESTransition, j: int) -> Lit:
        """Θ_δ holds for β ∪ {v/e_j}, β being what γ binds before e_j (Alg. 2 line 3)."""
        members = self.g.members(self.s, upto=j)
        v = delta.variable
        members[v] = members[v] + [(True, self.s.events[j])]
        return conj(*(holds_over(theta, members, {v: j}) for theta in delta.conditions))

    def fires(self, j: int, delta: SESTransition) -> Lit:
        """The instance is in δ's source before e_j and δ's guard holds for e_j."""
        key = (j, delta)
        if key not in self._fires:
            self._fires[key] = conj(self.in_state(j, delta.source), self.guard(delta, j))
        return self._fires[key]

    def enabled(self, j: int) -> Lit:
        """Some transition can take e_j."""
        return disj(*(self.fires(j, d) for d in self.n.transitions))

    def takes(self, j: int) -> Lit:
        """If γ binds e_j to ``v``, the transition (state, v) takes it."""
        return implies(self.g.bound(j), disj(*(
            conj(self.g.binds(j, d.variable), self.fires(j, d)) for d in self.n.transitions)))

    def never_skips(self, j: int) -> Lit:
        """``next``: an event within τ that γ leaves unbound enables no transition."""
        return implies(conj(neg(self.g.bound(j)), self.s.within(0, j)), neg(self.enabled(j)))

    def path(self, r: int) -> Lit:
        """e_0..e_{r-1} are all bound, each taken, all within τ of e_0."""
        return conj(*(conj(self.g.bound(j), self.takes(j), self.s.within(0, j))
                      for j in range(r)))

    def accepted(self) -> Lit:
        """γ is a buffer the instance started at e_0 reports (corrected Alg. 1, ``next``)."""
        n = len(self.s.events)
        parts: list[Lit] = [self.g.bound(0), self.in_state(n, self.n.accepting)]
        for j in range(n):
            parts += [self.takes(j), implies(self.g.bound(j), self.s.within(0, j))]
            if j:
                parts.append(self.never_skips(j))
        return conj(*parts)


def any_buffer_guard(delta: SESTransition, schema: Schema, e: SymEvent,
                     buffer: dict[str, SymEvent] | None = None) -> tuple[Lit, dict[str, SymEvent]]:
    """Θ_δ for event ``e`` and an *arbitrary* buffer: one symbolic event per variable of
    δ's source (reachable or not). If this is unsatisfiable, δ never fires: a buffer
    that satisfies Θ_δ keeps satisfying it when each variable keeps only its last event
    (every instantiation of the smaller buffer is one of the larger)."""
    buffer = dict(buffer or {})
    for u in sorted(delta.source):
        buffer.setdefault(u, symbolic_event(schema, f"buf.{u}"))
    members: dict[str, list[Member]] = {u: [(True, b)] for u, b in buffer.items()}
    v = delta.variable
    members[v] = members.get(v, []) + [(True, e)]
    guard = conj(*(holds_over(theta, members, {v: len(members[v]) - 1})
                   for theta in delta.conditions))
    return guard, buffer
