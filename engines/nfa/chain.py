"""The lazy Chain NFA of seed 003 Secs. 3–4.

The slots are evaluated in an order σ, ascending in the frequency of their
event types (Sec. 3: "the least frequent event type first"); every arriving
event is stored in the buffer of its type, and an instance is created only
when an event of σ's first type arrives. An instance that has bound σ1 … σk
(state k) then

- on entering state k, looks into the buffer of σ(k+1)'s type for the events
  that already arrived and fit (the "lazy" edges of Sec. 3: the predicate is
  evaluated on the buffered events only now), creating an instance in state
  k+1 for each (for an iterated slot, Sec. 4.5, for each non-empty subset);
- stays in state k and takes the later events of σ(k+1)'s type as they
  arrive, unless a slot ordered after σ(k+1) is already bound (then no later
  event can fill it: the instance is not kept);
- keeps taking later events into each iterated slot it has bound (Sec. 4.5)
  until a slot after it is bound or it is full.

Every match is created exactly once: each of its events is taken either from
the buffer (it arrived before its slot's state was entered) or on arrival.
Sequences (4.1), conjunctions (4.2), partial sequences (4.3) are the same
chain over different orders among slots (:mod:`.shape`); negation is
post-processed (4.4.1) or checked at the first chance (4.4.2, ``first_chance``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from kleene.engines.nfa.buffers import Buffer
from kleene.engines.nfa.iteration import grouped_subsets
from kleene.engines.nfa.partial import Partial, Plan
from kleene.engines.nfa.runner import Runner
from kleene.engines.nfa.subpattern import Piece, chains, grouped, pieces
from kleene.engines.protocol import Counters
from kleene.reference.events import Event
from kleene.reference.match import Match

_INF = float("inf")
_NONE: list[Match] = []


def chain_order(plan: Plan, frequencies: Mapping[str, float] | None) -> tuple[int, ...]:
    """σ: the slots by ascending frequency of their types (ties: pattern order), the
    iterated slots last "regardless of [their] actual arrival rate" (Sec. 4.5: the
    subsets of B events are the most frequent "events").

    ``frequencies`` gives events per unit of time (or counts) per type; a slot
    of any type (``ANY``) counts every event. ``None``: the pattern's order
    (iterated slots and units last).
    """
    slots = plan.shape.slots
    total = sum(frequencies.values()) if frequencies is not None else 0.0

    def rate(i: int) -> float:
        if frequencies is None:
            return 0.0
        t = slots[i].type
        return total if t is None else frequencies.get(t, 0.0)

    return tuple(sorted(range(len(slots)), key=lambda i: (slots[i].deferred, rate(i), i)))


class ChainRunner(Runner):
    """The lazy chain NFA over the order ``sigma`` (see the module docstring)."""

    def __init__(self, plan: Plan, counters: Counters, sigma: tuple[int, ...], *,
                 observed: bool = False) -> None:
        """``observed``: every instance goes through :meth:`Plan.bind` (a trace watches
        ``bind``), the last slot's matches included."""
        super().__init__(plan, counters)
        self.sigma = sigma
        self.buffers: dict[str | None, Buffer] = {t: Buffer() for t in plan.shape.buffered}
        self.iterated = tuple(i for i in sigma if plan.shape.slots[i].iterated)
        self._added: list[Partial] = []
        #: per slot: whether it is a unit (a Kleene operator over a sub-pattern)
        self.units = tuple(sl.unit is not None for sl in plan.shape.slots)
        # the fast path of :meth:`step`: only for typed slots and no negation
        first = plan.types[sigma[0]] if sigma else None
        self._starts: frozenset[str | None] = frozenset({first})  # the types that start one
        self._fast = (bool(sigma) and first is not None and None not in self.buffers
                      and not plan.neg_types and not plan.shape.units)
        # the last slot's events become matches at once when nothing else is checked then
        self._direct = not (observed or plan.first_chance or plan.placed.final
                            or plan.shape.negations or plan.contiguous or self.iterated
                            or plan.shape.units)
        # the slots whose buffered candidates need no predicate but between()'s: a
        # single typed event, no condition, a type no other slot has (so never taken)
        types = [sl.type for sl in plan.shape.slots]
        self._free = tuple(
            sl.type is not None and not sl.deferred and not plan.placed.incremental[sl.index]
            and types.count(sl.type) == 1 for sl in plan.shape.slots)

    def step(self, e: Event) -> list[Match]:
        """:meth:`Runner.step`; while no instance is alive, an event that starts none
        (not of σ's first type) is only buffered, which is all the full step would do."""
        if self._fast and not self.live and e.type not in self._starts:
            b = self.buffers.get(e.type)
            if b is not None:
                bound = self.plan.bound
                if bound is not None and e.ts - self._pruned > bound.tau / 2:
                    self._pruned = e.ts
                    self.expire(e.ts)
                b.add(e)
                self.c.buffer_operations += 1
            return _NONE
        return super().step(e)

    def expire(self, ts: float) -> None:
        if self.plan.bound is not None:
            for b in self.buffers.values():
                b.prune(self.plan.bound.earliest(ts), self.c)

    def remember(self, e: Event) -> None:
        for t, b in self.buffers.items():
            if t is None or t == e.type:
                b.add(e)
                self.c.buffer_operations += 1

    def take(self, e: Event, added: list[Partial]) -> None:
        plan, c, sigma, n = self.plan, self.c, self.sigma, self.plan.n
        self._added = added
        one = (e,)
        types, t = plan.types, e.type
        iterated = self.iterated
        units = self.units
        for p in self.live:
            k = p.stage
            if k < n:
                s = sigma[k]
                if units[s]:
                    for chain in self.unit_chains(p, s, e):
                        self._enter(plan.bind_unit(p, s, chain, k + 1, c), s)
                elif (types[s] is None or types[s] == t) and plan.admits(p, s, one, c):
                    self._enter(plan.bind(p, s, one, k + 1, c), s)
            if not iterated:
                continue
            for i in iterated:
                if (p.binds[i] and plan.accepts(i, e) and plan.is_open(p, i)
                        and plan.admits(p, i, one, c)):
                    q = plan.bind(p, i, one, k, c)
                    if k == n and plan.complete(q):
                        self.finish(q)
                    if self._grows(q):
                        added.append(q)
        if units[sigma[0]]:
            for chain in self.unit_chains(plan.empty, sigma[0], e):
                self._enter(plan.bind_unit(plan.empty, sigma[0], chain, 1, c), sigma[0])
        elif plan.accepts(sigma[0], e) and plan.admits(plan.empty, sigma[0], one, c):
            self._enter(plan.bind(plan.empty, sigma[0], one, 1, c), sigma[0])

    def _grows(self, q: Partial) -> bool:
        """Whether a later event can still extend ``q``."""
        plan = self.plan
        if q.stage < plan.n:
            nxt = self.sigma[q.stage]
            return not any(q.binds[t] for t in plan.shape.after[nxt])
        return any(plan.is_open(q, i) for i in self.iterated)

    def _enter(self, q: Partial, slot: int) -> None:
        """``q`` has just bound ``slot`` and entered state ``q.stage``: catch up."""
        plan, c = self.plan, self.c
        if plan.first_chance and not plan.first_chance_ok(q, slot, self.negbuf, c):
            return
        k = q.stage
        if k == plan.n:
            if plan.complete(q):
                self.finish(q)
        if self._grows(q):
            self._added.append(q)
            plan.check_budget(len(self.live) + len(self._added))
        if k == plan.n:
            return
        s = self.sigma[k]
        shape = plan.shape
        if self.units[s]:
            for chain in self.unit_chains(q, s, None):
                self._enter(plan.bind_unit(q, s, chain, k + 1, c), s)
            return
        after = max((q.binds[t][-1].ts for t in shape.before[s] if q.binds[t]), default=-_INF)
        upto = min((q.binds[t][0].ts for t in shape.after[s] if q.binds[t]), default=_INF)
        if plan.bound is None:
            low, high = -_INF, _INF
        else:
            low, high = plan.bound.earliest(q.last), plan.bound.latest(q.first)
        found = self.buffers[shape.slots[s].type].between(after, upto, low, high)
        if self._free[s]:
            # admits() would hold: between() bounds ts by the order and the window
            c.predicate_evaluations += len(found)
            ok = found
        else:
            ok = [b for b in found if plan.admits(q, s, (b,), c)]
        if not shape.slots[s].iterated:
            if self._direct and k + 1 == plan.n:
                # what _enter(bind(...)) would do: count the instance, report its match
                c.instances_created += len(ok)
                self.out.extend(plan.match_with(q, s, b) for b in ok)
                return
            for b in ok:
                self._enter(plan.bind(q, s, (b,), k + 1, c), s)
            return
        most = plan.most_instances
        for made, subset in enumerate(grouped_subsets(ok, shape.slots[s].high, plan.groups[s])):
            c.subsets += 1
            if made > most:   # one instance per subset, made on this event
                plan.check_budget(made)
            if len(subset) > 1:
                c.predicate_evaluations += 1
                if (plan.bound is not None and not plan.bound.fits(
                        max(q.last, subset[-1].ts) - min(q.first, subset[0].ts))):
                    continue
            self._enter(plan.bind(q, s, subset, k + 1, c), s)

    def unit_chains(self, q: Partial, s: int, ending: Event | None) -> Iterator[Piece]:
        """The chains the unit ``s`` can bind in ``q`` (:mod:`.subpattern`): among the
        buffered events when ``ending`` is ``None`` (on entering the state), else those
        whose last event is ``ending`` (its arrival), hashed by the unit's group
        attribute (Sec. 4.5.3). Each is checked by :meth:`Plan.admits_unit`."""
        plan, shape = self.plan, self.plan.shape
        unit = shape.slots[s].unit
        assert unit is not None
        if ending is not None and not unit.types & {None, ending.type}:
            return  # no piece ends with an event of another type
        after = max((q.binds[t][-1].ts for t in shape.before[s] if q.binds[t]), default=-_INF)
        upto = min((q.binds[t][0].ts for t in shape.after[s] if q.binds[t]), default=_INF)
        low, high = -_INF, _INF
        bound = plan.bound
        if bound is not None:
            latest = max(q.last, -_INF if ending is None else ending.ts)
            if latest > -_INF:
                low = bound.earliest(latest)
            if q.first < _INF:
                high = bound.latest(q.first)
        found: dict[int, Event] = {}
        for t in unit.types:
            for b in self.buffers[t].between(after, upto, low, high):
                found[b.position] = b
        if ending is not None:
            if not (after < ending.ts < upto and low <= ending.ts <= high):
                return
            found[ending.position] = ending
        pool = [found[i] for i in sorted(found) if i not in q.taken]
        spend = plan.check_budget
        body = pieces(unit.body, pool, spend, plan.unary)
        for group in grouped(body, plan.groups[s]):
            for chain in chains(group, unit.low, unit.high, spend, ending):
                self.c.subsets += 1
                if plan.admits_unit(q, s, chain, self.c):
                    yield chain
