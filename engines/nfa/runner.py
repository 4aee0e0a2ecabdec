"""One pass over the events, shared by every NFA here (seed 003 Sec. 2.2's execution).

A :class:`Runner` holds the live instances of one :class:`~.partial.Plan`. For
each event it releases the held-back matches whose window has passed,
forgets what the window has left behind (instances, buffers), lets the NFA
take the event (:meth:`Runner.take`, the eager or the lazy way), and records
the live instances (``peak_instances``). :meth:`Runner.close` releases what
is still held back at the end of the stream.
"""

from __future__ import annotations

from kleene.engines.nfa.partial import NegationBuffers, Partial, Pending, Plan
from kleene.engines.protocol import Counters
from kleene.reference.events import Event
from kleene.reference.match import Match


class Runner:
    """Live instances of one plan and the step every NFA shares."""

    def __init__(self, plan: Plan, counters: Counters) -> None:
        self.plan = plan
        self.c = counters
        self.live: list[Partial] = []
        self.negbuf = NegationBuffers(plan, counters)
        self.pending = Pending(plan)
        self.out: list[Match] = []
        self._oldest = float("inf")  # the smallest first ts among live instances

    def step(self, e: Event) -> list[Match]:
        """Feed ``e``; the matches that became final."""
        plan, c = self.plan, self.c
        self.out = out = []
        for p in self.pending.due(e.ts):
            out.extend(plan.release(p, c, self.negbuf))
        self.negbuf.prune(e.ts)
        if plan.bound is not None and e.ts - self._oldest > plan.bound:
            self.live = [p for p in self.live if plan.alive(p, e.ts)]
            self._oldest = min((p.first for p in self.live), default=float("inf"))
        self.expire(e.ts)
        added: list[Partial] = []
        self.take(e, added)
        for p in added:
            if p.first < self._oldest:
                self._oldest = p.first
        self.live.extend(added)
        if e.type in self.plan.neg_types or None in self.plan.neg_types:
            self.negbuf.add(e)
        self.remember(e)
        c.observe_active(len(self.live))
        plan.check_budget(len(self.live))
        return out

    def close(self) -> list[Match]:
        out: list[Match] = []
        for p in self.pending.rest():
            out.extend(self.plan.release(p, self.c, self.negbuf))
        return out

    def finish(self, p: Partial) -> None:
        """``p`` is complete: its match now, later or never."""
        self.out.extend(self.plan.finish(p, self.c, self.negbuf, self.pending))

    # ------------------------------------------------------------ per NFA

    def take(self, e: Event, added: list[Partial]) -> None:
        raise NotImplementedError

    def expire(self, ts: float) -> None:
        """Forget buffered events the window has left behind (the lazy NFA's buffers)."""

    def remember(self, e: Event) -> None:
        """Buffer ``e`` if the NFA reads it later (the lazy NFA)."""

