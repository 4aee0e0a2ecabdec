"""Partial matches and what every NFA here does with them (seed 003 Sec. 2.2).

A :class:`Partial` is an NFA instance: the events bound to each slot so far,
its ``ts`` span, the positions it took and, for the chain, how many slots of
its order it has passed (its state). :class:`Plan` holds the shape, the placed
conditions and the window, and implements the parts shared by the eager and
the lazy NFAs:

- :meth:`Plan.admits`: the edge predicate, evaluated where it happens (strict
  ``ts`` order with the bound slots before and after, distinct events, the
  window, the slot's size, the incremental conditions on the new instantiations);
- :meth:`Plan.finish`: a complete instance becomes a match once the final
  conditions hold and no negation forbids it (post-processing, Sec. 4.4.1),
  possibly after the window has passed (a negation open to the future);
- the negation buffers and the matches held back (:mod:`.held`), counters and the
  instance budget.

Under a window (``bound``, a :class:`~kleene.engines.spans.Window`), an instance
whose first event does not fit with the current event can take nothing more and dies.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from kleene.engines.nfa.conditions import Placed
from kleene.engines.nfa.held import NegationBuffers, Pending
from kleene.engines.nfa.iteration import group_attribute, same_group
from kleene.engines.nfa.negation import forbidden, forbidding_piece, interval
from kleene.engines.nfa.shape import Shape, Slot
from kleene.engines.nfa.subpattern import Piece
from kleene.engines.nfa.subpattern import group_attribute as unit_group
from kleene.engines.protocol import Counters
from kleene.engines.spans import Window
from kleene.reference.budget import Budget
from kleene.reference.condition_text import format_condition
from kleene.reference.conditions import Condition, holds, variables
from kleene.reference.errors import BudgetExceeded
from kleene.reference.events import Event
from kleene.reference.match import Match
from kleene.reference.operators.derivations import monotone

Binds = tuple[tuple[Event, ...], ...]

#: Default budget: the most instances alive at once (``any`` with an unbounded
#: Kleene operator creates exponentially many; beyond this a run stops with
#: :class:`~kleene.reference.errors.BudgetExceeded`).
DEFAULT_MAX_INSTANCES = 200_000

_INF = float("inf")


class Partial:
    """An NFA instance: ``binds[i]`` the events of slot ``i`` (empty: unbound)."""

    __slots__ = ("binds", "first", "last", "taken", "stage", "epoch", "sub")

    def __init__(self, binds: Binds, first: float, last: float, taken: frozenset[int],
                 stage: int = 0, epoch: int = 0,
                 sub: tuple[tuple[str, tuple[Event, ...]], ...] = ()) -> None:
        self.binds = binds
        self.first = first
        self.last = last
        self.taken = taken
        self.stage = stage
        self.epoch = epoch  # the Tree NFA's root epoch (:mod:`.tree`)
        self.sub = sub  # the variables the units bound (:mod:`.subpattern`)


EMPTY_TAKEN: frozenset[int] = frozenset()


@dataclass
class Plan:
    """What an NFA needs to run one branch: shape, conditions, window, policy filter."""

    shape: Shape
    placed: Placed
    bound: Window | None
    contiguous: bool = False
    first_chance: bool = False
    max_instances: int = DEFAULT_MAX_INSTANCES
    #: apply the group-by-attribute optimisation (Sec. 4.5.3, :mod:`.iteration`)
    group_by: bool = True
    #: the run's budget, whose limit bounds the instances alive (``None``: ``max_instances``)
    budget: Budget | None = None

    def __post_init__(self) -> None:
        self.n = len(self.shape.slots)
        #: per slot: the attribute its events must share (Sec. 4.5.3), or ``None``
        self.groups: tuple[str | None, ...] = tuple(self._group(s) for s in self.shape.slots)
        self.empty = Partial(tuple(() for _ in range(self.n)), _INF, -_INF, EMPTY_TAKEN)
        # in the order of the negations (a trace lists their buffers so, whatever the hash seed)
        self.neg_types = tuple(dict.fromkeys(
            t for x in self.shape.negations
            for t in sorted(x.types, key=lambda t: (t is None, t or ""))))
        self.types = tuple(s.type for s in self.shape.slots)
        self.fc = tuple(self._first_chance_set(k) for k in range(len(self.shape.negations)))
        #: (variable, slot) sorted by variable: the order of a match's bindings
        self.named = tuple(sorted((s.var, s.index) for s in self.shape.slots
                                  if s.unit is None))
        #: the unary conditions of the variables of units and negated sub-patterns
        #: (:data:`.subpattern.Unary`): a piece's events are filtered by them
        self.unary = self._unary()
        #: a unit's body has an OR: some of its variables may stay unbound
        self.loose = any(s.unit is not None and s.unit.loose for s in self.shape.slots)

    def _unary(self) -> dict[str, tuple[Condition, ...]]:
        out: dict[str, list[Condition]] = {}
        placed = [c for s in self.shape.slots if s.unit is not None
                  for c, _ in self.placed.incremental[s.index]]
        placed += [c for k, n in enumerate(self.shape.negations) if n.part is not None
                   for c in self.placed.negation[k]]
        for c in placed:
            names = variables(c)
            if len(names) == 1 and monotone(c):
                out.setdefault(next(iter(names)), []).append(c)
        return {v: tuple(cs) for v, cs in out.items()}

    def _group(self, s: Slot) -> str | None:
        """The attribute slot ``s``'s events must share (Sec. 4.5.3), if any."""
        if not self.group_by:
            return None
        if s.unit is not None:
            return unit_group(s.unit, [c for c, _ in self.placed.incremental[s.index]])
        return group_attribute(s.var, self.placed.final) if s.iterated else None

    # ------------------------------------------------------------ edges

    def accepts(self, slot: int, e: Event) -> bool:
        t = self.types[slot]
        return t is None or t == e.type

    def admits(self, p: Partial, slot: int, new: tuple[Event, ...], c: Counters) -> bool:
        """Whether ``p`` may add the events ``new`` to ``slot`` (one predicate evaluation
        for order, window and size, one per condition)."""
        c.predicate_evaluations += 1
        s = self.shape.slots[slot]
        have = p.binds[slot]
        if s.high is not None and len(have) + len(new) > s.high:
            return False
        group = self.groups[slot]
        if have and group is not None and not same_group(group, have, new):
            return False
        if not self.fits(p, slot, new):
            return False
        binds = p.binds
        var = s.var
        for cond, slots in self.placed.incremental[slot]:
            gamma = {}
            for t in slots:
                if t == slot:
                    gamma[var] = new
                elif binds[t]:
                    gamma[self.shape.slots[t].var] = binds[t]
                    if p.sub:
                        gamma.update(p.sub)
                else:
                    break
            else:
                if self.loose and not variables(cond) <= gamma.keys():
                    continue  # a variable of an OR branch no iteration took
                c.predicate_evaluations += 1
                if not holds(cond, gamma):
                    return False
        return True

    def fits(self, p: Partial, slot: int, new: Sequence[Event]) -> bool:
        """Whether ``new`` (a slot's events, or a unit's chain) fits ``p`` where it goes:
        within the window of ``p``'s first event, none already bound by ``p``, after the
        slots ordered before ``slot`` and before those ordered after it."""
        lo, hi = new[0].ts, new[-1].ts
        if self.bound is not None and not self.bound.fits(max(p.last, hi) - min(p.first, lo)):
            return False
        taken = p.taken
        for e in new:
            if e.position in taken:
                return False
        binds = p.binds
        for t in self.shape.before[slot]:
            if binds[t] and binds[t][-1].ts >= lo:
                return False
        for t in self.shape.after[slot]:
            if binds[t] and binds[t][0].ts <= hi:
                return False
        return True

    def refusal(self, p: Partial, slot: int, new: tuple[Event, ...]) -> str:
        """Why :meth:`admits` refuses ``new`` to ``slot`` of ``p``, read in its order: the
        first check that fails, named (a condition as pattern text). Only a trace asks
        (:mod:`.trace`, after ``admits`` said no): the run itself never names a reason."""
        s = self.shape.slots[slot]
        have, binds, lo, hi = p.binds[slot], p.binds, new[0].ts, new[-1].ts
        group = self.groups[slot]
        slots = self.shape.slots
        if s.high is not None and len(have) + len(new) > s.high:
            return f"{s.var} takes at most {s.high} events"
        if have and group is not None and not same_group(group, have, new):
            return f"{s.var}'s events share one {group} (Sec. 4.5.3)"
        if self.bound is not None and not self.bound.fits(max(p.last, hi) - min(p.first, lo)):
            return "outside the window (τ) of the instance's first event"
        if any(e.position in p.taken for e in new):
            return "already bound by this instance"
        for t in self.shape.before[slot]:
            if binds[t] and binds[t][-1].ts >= lo:
                return f"not after {slots[t].var}"
        for t in self.shape.after[slot]:
            if binds[t] and binds[t][0].ts <= hi:
                return f"not before {slots[t].var}"
        for cond, where in self.placed.incremental[slot]:
            gamma = {slots[t].var: (new if t == slot else binds[t]) for t in where}
            if all(gamma.values()) and not holds(cond, gamma):
                return f"{format_condition(cond)} is false"
        return "admitted"

    def bind(self, p: Partial, slot: int, new: tuple[Event, ...], stage: int,
             c: Counters) -> Partial:
        """The instance ``p`` with ``new`` added to ``slot`` (a new instance)."""
        c.instances_created += 1
        binds = list(p.binds)
        binds[slot] = binds[slot] + new if binds[slot] else new
        return Partial(tuple(binds), min(p.first, new[0].ts), max(p.last, new[-1].ts),
                       p.taken.union(e.position for e in new), stage, p.epoch, p.sub)

    def admits_unit(self, p: Partial, slot: int, chain: Piece, c: Counters) -> bool:
        """Whether ``p`` may bind the unit ``slot`` to ``chain`` (:mod:`.subpattern`): the
        window, distinct events, the order with the bound slots, and every condition
        placed on the unit whose variables are then all bound (on all of them: a
        condition that fails on part of a substitution fails on all of it)."""
        c.predicate_evaluations += 1
        if not self.fits(p, slot, chain.events):
            return False
        gamma = {**self.gamma(p), **dict(chain.binds)}
        for cond, _ in self.placed.incremental[slot]:
            if variables(cond) <= gamma.keys():
                c.predicate_evaluations += 1
                if not holds(cond, gamma):
                    return False
        return True

    def bind_unit(self, p: Partial, slot: int, chain: Piece, stage: int,
                  c: Counters) -> Partial:
        """The instance ``p`` with the unit ``slot`` bound to ``chain`` (a new instance)."""
        c.instances_created += 1
        binds = list(p.binds)
        binds[slot] = chain.events
        return Partial(tuple(binds), min(p.first, chain.first.ts), max(p.last, chain.last.ts),
                       p.taken.union(e.position for e in chain.events), stage, p.epoch,
                       p.sub + chain.binds)

    def is_open(self, p: Partial, slot: int) -> bool:
        """Whether iterated ``slot`` is bound and may still take later events."""
        s = self.shape.slots[slot]
        have = p.binds[slot]
        if not have or not s.iterated or (s.high is not None and len(have) >= s.high):
            return False
        return not any(p.binds[t] for t in self.shape.after[slot])

    def complete(self, p: Partial) -> bool:
        return all(len(b) >= s.low for b, s in zip(p.binds, self.shape.slots, strict=True))

    def alive(self, p: Partial, ts: float) -> bool:
        """Whether ``p`` can still take an event at ``ts`` (the window)."""
        return self.bound is None or self.bound.fits(ts - p.first)

    # ------------------------------------------------------------ negation

    def _first_chance_set(self, k: int) -> frozenset[int] | None:
        """The slots that decide negation ``k`` early (Sec. 4.4.2), or ``None`` when
        first-chance checking would not be exact (see :mod:`.negation`)."""
        neg = self.shape.negations[k]
        if not neg.lo or not neg.hi or neg.part is not None or self.shape.units:
            return None
        index = {s.var: s.index for s in self.shape.slots}

        needed = set(neg.lo) | set(neg.hi)
        for cond in self.placed.negation[k]:
            needed |= {index[v] for v in variables(cond) if v in index}
        needed |= {s.index for s in self.shape.slots
                   if s.type is None or neg.type is None or s.type == neg.type}
        if any(self.shape.slots[i].iterated for i in needed):
            return None
        return frozenset(needed)

    def gamma(self, p: Partial) -> dict[str, tuple[Event, ...]]:
        out = {s.var: b for s, b in zip(self.shape.slots, p.binds, strict=True)
               if b and s.unit is None}
        if p.sub:
            out.update(p.sub)
        return out

    def forbids(self, k: int, p: Partial, negbuf: NegationBuffers, c: Counters) -> bool:
        """Whether an event of negation ``k``'s buffer forbids ``p`` (:meth:`forbidder`)."""
        return self.forbidder(k, p, negbuf, c) is not None

    def forbidder(self, k: int, p: Partial, negbuf: NegationBuffers,
                  c: Counters) -> Event | None:
        """The first event of negation ``k``'s buffer that forbids ``p``, if any."""
        neg = self.shape.negations[k]
        low, high = interval(p.binds, neg.lo, neg.hi)
        count = [0]
        if neg.part is not None:
            return forbidding_piece(neg.part, negbuf.merged(neg.types), self.gamma(p),
                                    self.placed.negation[k], low, high, p.first, p.last,
                                    self.bound, p.taken, count, self.check_budget, self.unary)
        out = forbidden(negbuf.of(neg.type), self.gamma(p), neg.var, self.placed.negation[k],
                        low, high, p.first, p.last, self.bound, p.taken, count)
        c.predicate_evaluations += count[0]
        return out

    def first_chance_ok(self, p: Partial, slot: int, negbuf: NegationBuffers,
                        c: Counters) -> bool:
        """Sec. 4.4.2: ``False`` when a negation decided by binding ``slot`` forbids ``p``."""
        for k, needed in enumerate(self.fc):
            if needed is not None and slot in needed and all(p.binds[i] for i in needed):
                if self.forbids(k, p, negbuf, c):
                    return False
        return True

    # ------------------------------------------------------------ matches

    def match(self, p: Partial) -> Match:
        """The match of ``p``: its bindings sorted by variable (a slot's events are in
        stream order, distinct, by construction), as :meth:`Match.of` would sort them."""
        binds = p.binds
        out = tuple((var, tuple(e.position for e in binds[i]))
                    for var, i in self.named if binds[i])
        if p.sub:
            out = tuple(sorted(out + tuple((var, tuple(e.position for e in es))
                                           for var, es in p.sub)))
        return Match(out)

    def match_with(self, p: Partial, slot: int, e: Event) -> Match:
        """The match of ``p`` with ``e`` bound to its last unbound ``slot`` (no new instance)."""
        binds = p.binds
        return Match(tuple((var, (e.position,) if i == slot
                            else tuple(x.position for x in binds[i]))
                           for var, i in self.named))

    def finish(self, p: Partial, c: Counters, negbuf: NegationBuffers,
               pending: Pending[Partial]) -> Iterator[Match]:
        """A complete instance: a match now, later (a negation open to the future), or none."""
        if self.placed.final:
            gamma = self.gamma(p)
            c.predicate_evaluations += len(self.placed.final)
            if not all(holds(cond, gamma) for cond in self.placed.final
                       if variables(cond) <= gamma.keys()):
                return
        later = False
        for k, neg in enumerate(self.shape.negations):
            if self.first_chance and self.fc[k] is not None:
                continue  # decided when its slots were bound
            if not neg.hi:
                later = True
            elif self.forbids(k, p, negbuf, c):
                return
        if later:
            pending.push(p)
        else:
            yield from self._emit(p)

    def release(self, p: Partial, c: Counters, negbuf: NegationBuffers) -> Iterator[Match]:
        """A held-back match once every event that could forbid it has arrived."""
        for k, neg in enumerate(self.shape.negations):
            if not neg.hi and self.forbids(k, p, negbuf, c):
                return
        yield from self._emit(p)

    def _emit(self, p: Partial) -> Iterator[Match]:
        m = self.match(p)
        if self.contiguous:
            ps = m.positions
            if ps[-1] - ps[0] + 1 != len(ps):
                return
        yield m

    @property
    def most_instances(self) -> int:
        """The instance budget: what ``budget`` (the run's
        :class:`~kleene.reference.budget.Budget`, ``kleene match --budget``) lets an
        engine hold at once when given, else ``max_instances``."""
        return self.max_instances if self.budget is None else self.budget.most_held

    def check_budget(self, live: int) -> None:
        """Stop once more than the instance budget (:attr:`most_instances`) are alive, or
        made on one event (the subsets of an iteration, the matches held until the
        event's end)."""
        b = self.budget
        limit = self.most_instances
        if live > limit:
            name, what = ("nfa-instances", "running an NFA") if b is None else (b.name, b.what)
            raise BudgetExceeded(name, limit,
                                 f"{what}: NFA instances alive at once (skip-till-any-match "
                                 "over an iteration creates one per subset)")
