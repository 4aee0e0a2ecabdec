"""One pass over the events, shared by every NFA here (seed 003 Sec. 2.2's execution).

A :class:`Runner` holds the live instances of one :class:`~.partial.Plan`. For
each event it releases the held-back matches whose window has passed,
forgets what the window has left behind (instances, buffers), lets the NFA
take the event (:meth:`Runner.take`, the eager or the lazy way), and records
the live instances (``peak_instances``). :meth:`Runner.close` releases what
is still held back at the end of the stream.
"""

from __future__ import annotations

from kleene.engines.nfa.held import NegationBuffers, Pending
from kleene.engines.nfa.partial import Partial, Plan
from kleene.engines.protocol import Counters
from kleene.reference.events import Event
from kleene.reference.match import Match


class Runner:
    """Live instances of one plan and the step every NFA shares."""

    def __init__(self, plan: Plan, counters: Counters) -> None:
        self.plan = plan
        self.c = counters
        self.live: list[Partial] = []
        self.negbuf = NegationBuffers(plan.neg_types, plan.bound, counters)
        self.pending = Pending[Partial](plan.bound)
        self.out: list[Match] = []
        self._oldest = float("inf")  # the smallest first ts among live instances
        self._pruned = -float("inf")  # when the buffers were last pruned

    def step(self, e: Event) -> list[Match]:
        """Feed ``e``; the matches that became final."""
        plan, c = self.plan, self.c
        out: list[Match] = []
        self.out = out
        ts = e.ts
        if self.pending.heap and self.pending.heap[0][0] < ts:
            for p in self.pending.due(ts):
                out.extend(plan.release(p, c, self.negbuf))
        bound = plan.bound
        if bound is not None:
            if self.negbuf.events:
                self.negbuf.prune(ts)
            if not bound.fits(ts - self._oldest):
                self.live = [p for p in self.live if bound.fits(ts - p.first)]
                self._oldest = min((p.first for p in self.live), default=float("inf"))
            if ts - self._pruned > bound.tau / 2:
                self._pruned = ts
                self.expire(ts)
        added: list[Partial] = []
        self.take(e, added)
        if added:
            for p in added:
                if p.first < self._oldest:
                    self._oldest = p.first
            self.live.extend(added)
        if self.negbuf.events and (e.type in plan.neg_types or None in plan.neg_types):
            self.negbuf.add(e)
        self.remember(e)
        live = len(self.live)
        if live > c.peak_instances:
            c.peak_instances = live
            plan.check_budget(live)
        return out

    def close(self) -> list[Match]:
        out: list[Match] = []
        for p in self.pending.rest():
            out.extend(self.plan.release(p, self.c, self.negbuf))
        return out

    def finish(self, p: Partial) -> None:
        """``p`` is complete: its match now, later or never."""
        self.out.extend(self.plan.finish(p, self.c, self.negbuf, self.pending))
        if len(self.out) > self.plan.most_instances:   # an event's matches, held at once
            self.plan.check_budget(len(self.out))

    # ------------------------------------------------------------ per NFA

    def take(self, e: Event, added: list[Partial]) -> None:
        raise NotImplementedError

    def expire(self, ts: float) -> None:
        """Forget buffered events the window has left behind (the lazy NFA's buffers;
        called every half window: the buffers' readers bound ``ts`` themselves)."""

    def remember(self, e: Event) -> None:
        """Buffer ``e`` if the NFA reads it later (the lazy NFA)."""

