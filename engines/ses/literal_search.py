"""The search of ``ses-next-literal`` (engines/ses/next_literal.py, whose docstring
argues it): from each first binding, the options condition 4 leaves each variable, the
checks of conditions 1-3 as they are bound, and condition 5 by the larger matches with the
same first binding.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import partial

from kleene.engines.spans import Window
from kleene.reference.budget import Budget
from kleene.reference.conditions import (
    Condition,
    Instance,
    evaluate,
    holds,
    prev_variables,
    variables,
)
from kleene.reference.events import Event
from kleene.reference.match import Match
from kleene.reference.ses.pattern import SESPattern

Gamma = dict[str, tuple[Event, ...]]
Admits = Callable[[tuple[Event, ...]], bool]


def _grown(prefix: tuple[Event, ...], events: Sequence[Event], admits: Admits, *,
           empty: bool = True) -> Iterator[tuple[Event, ...]]:
    """``prefix`` followed by each subset of ``events`` (in their order) that ``admits``
    accepts, every prefix of it accepted too (depth first: a refused one is not grown);
    the bare ``prefix`` too when ``empty``, unchecked."""
    if empty:
        yield prefix

    def grow(base: tuple[Event, ...], i: int) -> Iterator[tuple[Event, ...]]:
        for k in range(i, len(events)):
            t = base + (events[k],)
            if admits(t):
                yield t
                yield from grow(t, k + 1)

    yield from grow(prefix, 0)


def _by_position(events: Iterable[Event]) -> tuple[Event, ...]:
    return tuple(sorted(events, key=lambda e: e.position))


class Literal:
    """The search of the module docstring over the events ``at`` (by position), given
    ``usable`` (B(v), positions) for each variable."""

    def __init__(self, pattern: SESPattern, at: dict[int, Event],
                 usable: dict[str, set[int]], win: Window, budget: Budget | None) -> None:
        self.p, self.at, self.win, self.budget = pattern, at, win, budget
        self.explored = 0   # the candidates tried from the current first binding
        self.names = pattern.names
        self.set_of = {v: pattern.set_index(v) for v in self.names}   # asked per candidate
        self.group = {v.name for v in pattern.variables if v.group}
        self.b_pos = {v: sorted(usable[v]) for v in self.names}
        self.b_ts = {v: [at[q].ts for q in self.b_pos[v]] for v in self.names}
        self.prev_of = {v: tuple(c for c in pattern.conditions if v in prev_variables(c))
                        for v in self.group}
        self.prev_group = {v for v in self.group if self.prev_of[v]}
        self.coupled = any(prev_variables(c) & self.group and len(variables(c) & self.group) > 1
                           for c in pattern.conditions)
        # A property (one variable, no prev) holds on every event of B(v): every event the
        # search binds to v is one, so only the other conditions are checked.
        self.relations = tuple(c for c in pattern.conditions
                               if len(variables(c)) != 1 or prev_variables(c))
        # The conditions reading v, and whether each reads prev (no instance on one event).
        self.about = {v: tuple((c, bool(prev_variables(c))) for c in self.relations
                               if v in variables(c))
                      for v in self.names}
        bound: set[str] = set()
        self.checks: list[list[Condition]] = []
        for v in self.names:   # conditions checked once their variables are bound
            bound.add(v)
            self.checks.append([c for c in self.relations
                                if v in variables(c) and variables(c) <= bound])

    def step(self) -> None:
        """One candidate tried from the current first binding; the budget's held limit
        bounds them (a tie of n candidates has 2^n subsets)."""
        self.explored += 1
        if self.budget is not None and self.explored > self.budget.most_held:
            self.budget.hold(self.explored, "candidates of a next-literal search from one "
                                            "first event")

    # -- conditions 1-3
    def _ordered(self, gamma: Gamma, name: str, chosen: Sequence[Event]) -> bool:
        set_of = self.set_of
        i = set_of[name]
        for other, events in gamma.items():
            j = set_of[other]
            if j == i - 1 and not events[-1].ts < chosen[0].ts:
                return False
            if j == i + 1 and not chosen[-1].ts < events[0].ts:
                return False
        return True

    def is_match(self, gamma: Gamma) -> bool:
        """Conditions 1–3 of Def. 2 for a full substitution binding each v to events of
        B(v) (whose properties hold)."""
        seen: set[int] = set()
        for es in gamma.values():
            for e in es:
                if e.position in seen:
                    return False
                seen.add(e.position)
        if not all(self._ordered({o: es for o, es in gamma.items() if o != v}, v, es)
                   for v, es in gamma.items()):
            return False
        stamps = [e.ts for es in gamma.values() for e in es]
        return self.win.fits(max(stamps) - min(stamps)) and \
            all(holds(c, gamma) for c in self.relations)

    # -- the candidates of condition 4
    def _window(self, v: str, t0: int | float) -> tuple[int, int]:
        """The indices of B(v) with ``t0 ≤ ts`` that fit the window from t0."""
        ts = self.b_ts[v]
        lo = bisect.bisect_left(ts, t0)
        hi = lo
        while hi < len(ts) and self.win.fits(ts[hi] - t0):
            hi += 1
        return lo, hi

    def first_after(self, w: str, t0: int | float) -> int | float | None:
        """T_w: the least timestamp of B(w) after t0 within the window from t0 (``None``
        when there is none)."""
        lo, hi = self._window(w, t0)
        ts = self.b_ts[w]
        j = bisect.bisect_right(ts, t0, lo, hi)
        return ts[j] if j < hi else None

    def limits(self, t0: int | float) -> list[int | float] | None:
        """For each set i, a bound every event of its variables lies below in a match with
        least timestamp t0: a variable w of a later set binds events after t0 (they follow
        set i's, which are at t0 or later), so by condition 4 its first event is at T_w,
        and set i's events precede it. ``None`` when some such w has no T_w (no match)."""
        sets = self.p.sets
        out: list[int | float] = [math.inf] * len(sets)
        for i in range(len(sets) - 1, 0, -1):
            bound = out[i]
            for w in sets[i]:
                t = self.first_after(w.name, t0)
                if t is None:
                    return None
                bound = min(bound, t)
            out[i - 1] = bound
        return out

    def options(self, v: str, v0: str, e0: Event, admits: Admits,
                limit: int | float = math.inf) -> Iterator[tuple[Event, ...]]:
        """What condition 4 lets v bind in a match whose first binding is ``v0/e0``, its
        events below ``limit`` (:meth:`limits`), that ``admits`` accepts. A group's
        options are grown at their end, an option ``admits`` refuses is not grown (its
        failing instances stay in every extension)."""
        t0, pos, at = e0.ts, self.b_pos[v], self.at
        lo, hi = self._window(v, t0)
        ts = self.b_ts[v]
        hi = bisect.bisect_left(ts, limit, lo, hi)
        j = lo
        while j < hi and ts[j] == t0:
            j += 1
        # A variable of a later set than the first binding's binds only events after t0.
        same = [at[q] for q in pos[lo:j] if q > e0.position] if self.set_of[v] == 0 else []
        ties: list[list[Event]] = []   # B(v)'s events after t0 in the window, by timestamp
        for k in range(j, hi):
            if k == j or ts[k] != ts[k - 1]:
                ties.append([])
            ties[-1].append(at[pos[k]])
        if v not in self.group:
            if v == v0:
                singles = [e0]
            else:
                singles = same + (ties[0] if ties else [])
            yield from (c for c in ((e,) for e in singles) if admits(c))
            return
        first = (e0,) if v == v0 else ()
        if first and not admits(first):   # every option of v0 starts with e0
            return
        heads = list(_grown(first, same, admits))
        yield from (h for h in heads if h)
        middle: tuple[Event, ...] = ()
        for tie in ties:
            live = []
            for h in heads:   # h + middle is a prefix of every later option from h
                if h + middle and not admits(h + middle):
                    continue
                live.append(h)
                yield from _grown(h + middle, tie, admits, empty=False)
            heads = live
            middle += tuple(tie)

    def starting_at(self, v0: str, e0: Event) -> Iterator[Match]:
        """The next-literal matches whose first binding is ``v0/e0``."""
        names, checks = self.names, self.checks
        self.explored = 0
        if self.budget is not None:
            self.budget.check()   # the deadline and the memory ceiling
        limits = self.limits(e0.ts)
        if limits is None:
            return
        below = {v: limits[self.set_of[v]] for v in names}
        gamma: Gamma = {}
        used: set[int] = set()

        def admits(k: int, v: str, chosen: tuple[Event, ...]) -> bool:
            """Conditions 1-3 for ``v/chosen`` against the bindings so far: what fails
            here fails for every option that extends ``chosen`` at its end."""
            self.step()
            if any(e.position in used for e in chosen) or \
                    not self._ordered(gamma, v, chosen):
                return False
            gamma[v] = chosen
            ok = all(holds(c, gamma) for c in checks[k]) and \
                self.win.fits(max(e.ts for e in chosen) - e0.ts)
            del gamma[v]
            return ok

        def search(k: int) -> Iterator[Match]:
            if k == len(names):
                if self.maximal(gamma, e0):
                    yield Match.of(gamma)
                return
            v = names[k]
            for chosen in self.options(v, v0, e0, partial(admits, k, v), below[v]):
                gamma[v] = chosen
                used.update(e.position for e in chosen)
                yield from search(k + 1)
                used.difference_update(e.position for e in chosen)
                del gamma[v]

        yield from search(0)

    # -- condition 5
    def extra(self, v: str, gamma: Gamma, e0: Event) -> list[Event]:
        """The events of B(v) a larger match with first binding ``e0`` may add to v: in
        the window, after e0, and (condition 2: a larger match binds what ``gamma`` binds)
        after the events of v's previous set and before those of its next."""
        lo, hi = self._window(v, e0.ts)
        i, ts = self.set_of[v], self.b_ts[v]
        after = [e.ts for w, es in gamma.items() if self.set_of[w] == i - 1 for e in es]
        before = [e.ts for w, es in gamma.items() if self.set_of[w] == i + 1 for e in es]
        if after:
            lo = max(lo, bisect.bisect_right(ts, max(after), lo, hi))
        if before:
            hi = bisect.bisect_left(ts, min(before), lo, hi)
        bound = {e.position for es in gamma.values() for e in es}
        return [self.at[q] for q in self.b_pos[v][lo:hi]
                if q not in bound and (self.at[q].ts, q) > (e0.ts, e0.position)]

    def adds(self, v: str, gamma: Gamma, x: Event) -> bool:
        """Whether the instances that binding x to v adds to the match ``gamma`` hold, x
        one of :meth:`extra` (so conditions 1-3 but Θ hold): ``gamma`` with v bound to
        (x,) is a match, and so is ``gamma`` with x added to v when no condition reads
        ``prev`` of v (its instances are gamma's and those with v bound to x)."""
        g = {**gamma, v: (x,)}
        if all(len(es) == 1 for es in g.values()):   # one instance, or none with prev
            inst = Instance({w: es[0] for w, es in g.items()}, {}, g)
            return all(prev or evaluate(c, inst) is True for c, prev in self.about[v])
        return all(holds(c, g) for c, _ in self.about[v])

    def maximal(self, gamma: Gamma, e0: Event) -> bool:
        """Condition 5: no match with the same first binding strictly contains ``gamma``."""
        for v in sorted(self.group - self.prev_group):
            for x in self.extra(v, gamma, e0):
                if self.adds(v, gamma, x):
                    return False
        if self.coupled:
            return not self.any_superset(gamma, e0)
        return not any(self.extends_path(b, gamma, e0) for b in sorted(self.prev_group))

    def extends_path(self, b: str, gamma: Gamma, e0: Event) -> bool:
        """Whether ``gamma`` with b bound to a strict superset of ``gamma[b]`` is a match:
        a path through the events b may take, every required one on it, consecutive
        pairs checked by the ``prev`` conditions on b."""
        required = gamma[b]
        free = [x for x in self.extra(b, gamma, e0) if self.adds(b, gamma, x)]
        if not free:
            return False
        nodes = _by_position((*required, *free))
        conds = self.prev_of[b]

        def pair(y: Event, x: Event) -> bool:
            g = {**gamma, b: (y, x)}
            return all(holds(c, g) for c in conds)

        req = {e.position: i for i, e in enumerate(required)}
        stack: list[tuple[int, int, bool]] = []
        for i, x in enumerate(nodes):
            if x.position > required[0].position:
                break
            stack.append((i, 1, False) if x.position in req else (i, 0, True))
        seen = set(stack)
        while stack:
            i, j, added = stack.pop()
            self.step()
            if j == len(required) and added:
                return True
            for k in range(i + 1, len(nodes)):
                y = nodes[k]
                if j < len(required) and y.position > required[j].position:
                    break
                state = (k, j + 1, added) if y.position in req else (k, j, True)
                if state not in seen and pair(nodes[i], y):
                    seen.add(state)
                    stack.append(state)
        return False

    def any_superset(self, gamma: Gamma, e0: Event) -> bool:
        """Whether some strict superset of ``gamma`` (more events on group variables) is a
        match: every way to add the events a window offers, one budget step each."""
        offers = [(v, x) for v in sorted(self.group) for x in self.extra(v, gamma, e0)]

        def grow(i: int, g: Gamma, used: frozenset[int], added: bool) -> bool:
            self.step()
            if added and self.is_match(g):
                return True
            for k in range(i, len(offers)):
                v, x = offers[k]
                if x.position not in used and \
                        grow(k + 1, {**g, v: _by_position((*g[v], x))},
                             used | {x.position}, True):
                    return True
            return False

        return grow(0, dict(gamma), frozenset(), False)
