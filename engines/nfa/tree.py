"""The lazy Tree NFA of seed 003 Sec. 7: the order of evaluation chosen while running.

Sec. 7: "each state [has] knowledge regarding the current frequency of each
event type", read from the input buffer (the events of each type within the
window), and an instance "chooses the next event type to process according to
the current frequencies". Here an instance chooses, on entering a state (a
set of bound slots), the unbound slot whose type currently has the fewest
buffered events, looks for it in the buffer, and takes later events of that
type as they arrive (:mod:`.chain`'s step with a per-instance next slot). Any
choice finds every extension of the instance exactly once, so the choice is
free per instance.

The root (the state with nothing bound) is the delicate part: it creates
instances on arrival of its slot's events, and when the rarest type changes
it switches slot. Switch j happens at the event in position ``t_j`` and makes
``s_j`` the root's slot. A match belongs to the last epoch ``k`` whose slot's
first event in the match is at or after ``t_k``; the root of epoch ``k`` keeps
creating instances (until no match of its epoch can start any more), and every
instance of epoch ``k`` refuses, for every later switch ``j``, to bind
``s_j``'s first event at or after ``t_j`` (that match belongs to epoch ``j``
or later). So each match is found once, by its epoch's root. Adaptation needs
a window (without one the roots would live forever): without ``WITHIN`` the
tree keeps its first root.

A unit (a Kleene operator over a sub-pattern, :mod:`.subpattern`) counts as the
most frequent slot, as an iterated one does; its chain arrives with its last
event, so that event plays the part of "s_j's first event" above.
"""

from __future__ import annotations

from kleene.engines.nfa.buffers import Buffer
from kleene.engines.nfa.chain import ChainRunner
from kleene.engines.nfa.iteration import grouped_subsets
from kleene.engines.nfa.partial import Partial, Plan
from kleene.engines.protocol import Counters
from kleene.reference.events import Event

_INF = float("inf")

#: A switch of the root's slot needs the new slot's type this much rarer (hysteresis).
SWITCH_RATIO = 0.5


class TreeRunner(ChainRunner):
    """The Tree NFA (see the module docstring); ``p.stage`` is the instance's next slot
    (``n`` when every slot is bound), ``p.epoch`` its root's epoch."""

    def __init__(self, plan: Plan, counters: Counters, sigma: tuple[int, ...], *,
                 observed: bool = False) -> None:
        super().__init__(plan, counters, sigma, observed=observed)
        # the fast path of ChainRunner.step: while no instance is alive, an event no
        # root takes is only buffered (the root's choice waits for the next full step:
        # when a switch happens changes no match, only the cost)
        self._fast = None not in self.buffers and not plan.neg_types and not plan.shape.units
        #: switch j: (slot s_j, position t_j, ts of t_j); switch 0 is the start
        self.switches: list[tuple[int, int, float]] = [(sigma[0], -1, -_INF)]
        #: the epochs whose root still creates instances
        self.roots: list[int] = [0]
        #: per slot: iterated, its type's buffer, its index (:meth:`_counts`)
        self._slot_buffers = [(sl.deferred, self.buffers.get(sl.type, Buffer()), sl.index)
                              for sl in plan.shape.slots]
        #: the slots' counts while the current event is taken (:meth:`_counts`)
        self._now = self._counts()
        counters.switches = 0

    # ------------------------------------------------------------ frequencies

    def _counts(self) -> list[tuple[tuple[bool, int], int]]:
        """``((iterated, frequency), i)`` for every slot ``i``, read once (the buffers do
        not change while one event is taken): an iterated slot counts as the most
        frequent (Sec. 4.5: its subsets are)."""
        return [((it, len(b.events) - b.head), i) for it, b, i in self._slot_buffers]

    def _next_slot(self, p: Partial) -> int:
        free = [c for c in self._now if not p.binds[c[1]]]
        if not free:
            return self.plan.n
        return min(free)[1]

    def _maybe_switch(self, e: Event) -> None:
        plan = self.plan
        self._now = self._counts()
        if plan.bound is None:
            return
        current = self.switches[-1][0]
        best = min(self._now)[1]
        (best_iterated, best_count), (now_iterated, now_count) = (self._now[best][0],
                                                                  self._now[current][0])
        if best != current and (now_iterated > best_iterated
                                or best_count < SWITCH_RATIO * now_count):
            self.switches.append((best, e.position, e.ts))
            self.roots.append(len(self.switches) - 1)
            self.c.switches += 1
        # a root of epoch k is done once switch k+1 is out of the window
        if len(self.roots) > 1:
            self.roots = [k for k in self.roots if k == len(self.switches) - 1
                          or plan.bound.fits(e.ts - self.switches[k + 1][2])]
        self._starts = frozenset(plan.types[self.switches[k][0]] for k in self.roots)

    def _epoch_ok(self, epoch: int, slot: int, first: Event) -> bool:
        for s, t, _ in self.switches[epoch + 1:]:
            if s == slot and first.position >= t:
                return False
        return True

    # ------------------------------------------------------------ the step

    def take(self, e: Event, added: list[Partial]) -> None:
        plan, c, n = self.plan, self.c, self.plan.n
        self._maybe_switch(e)
        self._added = added
        one = (e,)
        types, t = plan.types, e.type
        newest = len(self.switches) - 1  # an instance of the newest epoch refuses nothing
        iterated = self.iterated
        units = self.units
        for p in self.live:
            s = p.stage
            epoch = p.epoch
            if s < n and units[s]:
                # a chain arrives with its last event, e: that event decides its epoch
                if epoch == newest or self._epoch_ok(epoch, s, e):
                    for chain in self.unit_chains(p, s, e):
                        self._enter(plan.bind_unit(p, s, chain, -1, c), s)
            elif (s < n and (types[s] is None or types[s] == t)
                    and (epoch == newest or self._epoch_ok(epoch, s, e))
                    and plan.admits(p, s, one, c)):
                self._enter(plan.bind(p, s, one, -1, c), s)
            if not iterated:
                continue
            for i in iterated:
                if (p.binds[i] and plan.accepts(i, e) and plan.is_open(p, i)
                        and plan.admits(p, i, one, c)):
                    q = self._bind(p, i, one, epoch, p.stage)
                    if s == n and plan.complete(q):
                        self.finish(q)
                    if self._grows(q):
                        added.append(q)
        for k in self.roots:
            s = self.switches[k][0]
            if units[s]:
                if self._epoch_ok(k, s, e):
                    root = Partial(plan.empty.binds, _INF, -_INF, plan.empty.taken, 0, k)
                    for chain in self.unit_chains(root, s, e):
                        self._enter(plan.bind_unit(root, s, chain, -1, c), s)
            elif (plan.accepts(s, e) and self._epoch_ok(k, s, e)
                    and plan.admits(plan.empty, s, one, c)):
                root = Partial(plan.empty.binds, _INF, -_INF, plan.empty.taken, 0, k)
                self._enter(self._bind(root, s, one, k), s)

    def _bind(self, p: Partial, slot: int, new: tuple[Event, ...], epoch: int,
              stage: int | None = None) -> Partial:
        q = self.plan.bind(p, slot, new, -1 if stage is None else stage, self.c)
        assert q.epoch == epoch
        return q

    def _grows(self, q: Partial) -> bool:
        plan = self.plan
        if q.stage < plan.n:
            nxt = q.stage
            if any(q.binds[t] for t in plan.shape.after[nxt]):
                return False
            epoch = q.epoch
            return all(s != nxt for s, _, _ in self.switches[epoch + 1:])
        return any(plan.is_open(q, i) for i in self.iterated)

    def _enter(self, q: Partial, slot: int) -> None:
        plan, c = self.plan, self.c
        if plan.first_chance and not plan.first_chance_ok(q, slot, self.negbuf, c):
            return
        if q.stage == -1:
            q.stage = self._next_slot(q)
        s = q.stage
        epoch = q.epoch
        if s == plan.n and plan.complete(q):
            self.finish(q)
        if self._grows(q):
            self._added.append(q)
            plan.check_budget(len(self.live) + len(self._added))
        if s == plan.n:
            return
        shape = plan.shape
        if self.units[s]:
            for chain in self.unit_chains(q, s, None):
                if self._epoch_ok(epoch, s, chain.last):  # its last event decides
                    self._enter(plan.bind_unit(q, s, chain, -1, c), s)
            return
        after = max((q.binds[t][-1].ts for t in shape.before[s] if q.binds[t]), default=-_INF)
        upto = min((q.binds[t][0].ts for t in shape.after[s] if q.binds[t]), default=_INF)
        low, high = ((-_INF, _INF) if plan.bound is None
                     else (plan.bound.earliest(q.last), plan.bound.latest(q.first)))
        found = self.buffers[shape.slots[s].type].between(after, upto, low, high)
        if self._free[s]:  # as the chain: admits() would hold
            c.predicate_evaluations += len(found)
            ok = found
        else:
            ok = [b for b in found if plan.admits(q, s, (b,), c)]
        if not shape.slots[s].iterated:
            if len(self.switches) > epoch + 1:
                ok = [b for b in ok if self._epoch_ok(epoch, s, b)]
            if self._direct and all(q.binds[t] for t in range(plan.n) if t != s):
                # as the chain: the last slot's events are matches, counted as instances
                c.instances_created += len(ok)
                self.out.extend(plan.match_with(q, s, b) for b in ok)
                return
            for b in ok:
                self._enter(self._bind(q, s, (b,), epoch), s)
            return
        most = plan.most_instances
        for made, subset in enumerate(grouped_subsets(ok, shape.slots[s].high, plan.groups[s])):
            c.subsets += 1
            if made > most:   # one instance per subset, made on this event
                plan.check_budget(made)
            if not self._epoch_ok(epoch, s, subset[0]):  # the slot's first event decides
                continue
            if len(subset) > 1:
                c.predicate_evaluations += 1
                if (plan.bound is not None and not plan.bound.fits(
                        max(q.last, subset[-1].ts) - min(q.first, subset[0].ts))):
                    continue
            self._enter(self._bind(q, s, subset, epoch), s)
