"""The eager NFA of seed 003 Sec. 2.2 (SASE+): the baseline of every lazy NFA.

Each arriving event is offered to every live instance at once: an instance
whose state (the set of slots it has bound, an order ideal of the pattern's
partial order) has an outgoing edge for the event's type takes it into a new
instance, and stays where it is (skip-till-any-match: "an instance is
duplicated ... one copy takes the event, the other ignores it"). A slot can be
bound when every slot before it is bound (its events are earlier, and any
later event could not precede it), so for ``SEQ`` the states are the prefixes
of Sec. 2.2, for ``AND`` every subset (Sec. 4.2's eager conjunction), for a
partial sequence the order ideals. An iterated slot keeps its loop
("take") edge until a later slot is bound or it is full (Sec. 4.5).

Every instance is created on arrival of its newest event; nothing is
buffered except for negation (post-processing, Sec. 4.4.1).
"""

from __future__ import annotations

from kleene.engines.nfa.partial import Partial
from kleene.engines.nfa.runner import Runner
from kleene.reference.events import Event


class EagerRunner(Runner):
    """The eager NFA (see the module docstring)."""

    def take(self, e: Event, added: list[Partial]) -> None:
        plan, c = self.plan, self.c
        shape = plan.shape
        slots = [i for i in range(plan.n) if plan.accepts(i, e)]
        if not slots:
            return
        one = (e,)
        for p in [plan.empty, *self.live]:
            binds = p.binds
            for i in slots:
                if binds[i]:
                    if not plan.is_open(p, i):
                        continue
                elif not all(len(binds[t]) >= shape.slots[t].low for t in shape.before[i]):
                    continue
                if not plan.admits(p, i, one, c):
                    continue
                q = plan.bind(p, i, one, 0, c)
                if plan.first_chance and not plan.first_chance_ok(q, i, self.negbuf, c):
                    continue
                complete = plan.complete(q)
                if complete:
                    self.finish(q)
                if not complete or any(plan.is_open(q, j) for j in range(plan.n)):
                    added.append(q)
