"""SES ``next-literal``, seed 000 Def. 2 conditions 4 and 5 as printed: the engine
``ses-next-literal``.

The policy (:mod:`kleene.reference.ses.policies`, ``_next_literal``; read literally one
patient's substitutions veto another's: docs/errata.md) keeps the matches m of Γ with

4. for each variable v, no event q *bound to v in some match of Γ* and not in m[v] with
   ``t0 < q.ts < max ts of m[v]`` (t0 the least timestamp of m: condition 4's pairs
   range over every binding of m, the earliest gives the weakest left end);
5. no g ∈ Γ with the same first binding (least ``(ts, position)``) that strictly
   contains m (every variable's events a superset).

*Usable events.* Let B(v) be the events bound to v in some match of Γ. SES conditions
hold for every instantiation (:func:`~kleene.reference.conditions.holds`: a property
for every bound event, a relationship for every pair, ``prev`` for every consecutive
pair; SES has no aggregates), so a match with every variable cut down to one of its
events is a match (conditions 2 and 3 hold for subsets; a ``prev`` condition holds
vacuously on one event). Hence B(v) is the same projection of Γ₁, the matches of the
pattern with every variable a singleton and the ``prev`` conditions dropped
(:func:`singleton_pattern`), which the engine ``windows+ses`` enumerates under ``any``
(a polynomial set: no group variable, no subsets).

*Candidates.* By 4, once the first binding ``(v0, e0)`` (t0 = e0.ts) is fixed, a
singleton v binds an event of B(v) at t0 or at T_v, the least timestamp of B(v) after
t0; a group v binds some of B(v)'s events at t0, *all* of those strictly between t0 and
its last timestamp L, and some of those at L. The search (:meth:`Literal.starting_at`)
binds the variables in set order over those choices, checks conditions 1–3 as soon as
their variables are bound, and keeps a match when 5 holds.

*Maximality (5).* If no condition reads ``prev`` of a group variable together with
another group variable (*coupled*), a larger match g with the same first binding exists
iff (a) m with one more event bound to one group variable read by no ``prev`` is a
match, or (b) m with one ``prev`` group variable b bound to g[b] is: every instance
of the conditions of that smaller match is an instance over m or over g. (a) is tried
per event; (b) is a path search over the events b may take (each checked against m's
other bindings), pairs checked by the ``prev`` conditions (:meth:`Literal.extends_path`).
A coupled pattern searches the supersets of m (:meth:`Literal.any_superset`, exponential
in the events a window offers the group variables, each superset tried a candidate).

*Bound.* Γ₁ as ``any`` under ``windows+ses`` (``O(n · k)`` plus its matches: at most
``n · c^(k-1)`` for c events of B in a window), then for each event of B(v0) with v0 in
the first set: a choice per singleton among the ties at t0 and T_v, per group variable
among the timestamps L of a window and the subsets of ties at t0 and L; 5 in
``O(c · |Θ|)`` per match, ``O(c²)`` with a ``prev`` group variable. With boundedly many
events per window and timestamp (no ties of a variable's candidates grow with n), linear
in the stream. The stream is read twice (B is known only after the whole stream:
condition 4 reads the matches of every part; a one-shot iterable is held to be read
again); the events of B are held, no other; the budget's held limit bounds the
candidates tried from one first event (ties make subsets).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import partial

from kleene.engines.protocol import Counters, Feature, Query, require, window_in_units
from kleene.engines.registry import register
from kleene.engines.ses.automaton import SESAutomaton, required_features, ses_automaton
from kleene.engines.ses.run import PicturedSES
from kleene.engines.ses.usable import usable as usable_events
from kleene.engines.ses.usable import with_implied_properties
from kleene.engines.spans import Window
from kleene.reference.budget import Budget
from kleene.reference.conditions import Condition, holds, prev_variables, variables
from kleene.reference.errors import Unsupported
from kleene.reference.events import Event
from kleene.reference.languages import STRICT_WINDOW
from kleene.reference.match import Match
from kleene.reference.ses.features import CONSTRUCTS
from kleene.reference.ses.pattern import SESPattern, Variable

#: The policy this engine computes.
POLICY = "next-literal"

Gamma = dict[str, tuple[Event, ...]]
Admits = Callable[[tuple[Event, ...]], bool]


def singleton_pattern(p: SESPattern) -> SESPattern:
    """The pattern with every variable a singleton and the ``prev`` conditions dropped:
    its matches are the matches of ``p`` cut down to one event per variable."""
    sets = tuple(tuple(Variable(v.name) for v in b) for b in p.sets)
    return replace(p, sets=sets, conditions=tuple(c for c in p.conditions
                                                  if not prev_variables(c)))


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
        self.about = {v: tuple(c for c in self.relations if v in variables(c))
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
        return all(holds(c, g) for c in self.about[v])

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


@dataclass
class CompiledNextLiteral(PicturedSES):
    """An SES pattern under ``next-literal``: its automaton (drawn) and Γ₁'s engine."""

    pattern: SESPattern
    automaton: SESAutomaton
    policy: str
    singletons: SESPattern
    time_unit: str | None = None
    reading: str = "inclusive"

    def run(self, events: Iterable[Event], *, counters: Counters | None = None,
            budget: Budget | None = None) -> Iterator[Match]:
        """Γ₁ (B(v) for every v) in one pass of ``windows+ses``, then the search from
        each usable first event; ``budget``'s held limit bounds the candidates tried from
        one first event."""
        if self.policy != POLICY:   # compiled to be drawn: it runs only next-literal
            raise Unsupported(f"ses-next-literal computes the policy {POLICY}, "
                              f"not {self.policy!r}")
        c = Counters() if counters is None else counters
        win = window_in_units(self.pattern.window, self.time_unit, events, self.reading)
        usable, at = usable_events(self.singletons, events, win, c, budget)
        if not at:
            return
        search = Literal(self.pattern, at, usable, win, budget)
        found: list[Match] = []
        for v0 in self.pattern.sets[0]:
            for q in search.b_pos[v0.name]:
                found.extend(search.starting_at(v0.name, at[q]))
        c.literal_matches += len(found)
        yield from sorted(found, key=lambda m: (max(p for _, ps in m.bindings for p in ps),
                                                m.bindings))


@dataclass(frozen=True)
class NextLiteralEngine:
    """``next-literal`` by Γ₁'s usable events and the search of the module docstring.
    A query under another policy compiles (its automaton is drawn) but does not run."""

    name: str = "ses-next-literal"

    @property
    def capabilities(self) -> frozenset[Feature]:
        return Feature.of("ses", *CONSTRUCTS, STRICT_WINDOW, POLICY)

    def compile(self, query: Query) -> CompiledNextLiteral:
        p = query.pattern
        if not isinstance(p, SESPattern):
            raise Unsupported(f"the SES engines take SES patterns, not {type(p).__name__}")
        require(self, required_features(p))
        one = with_implied_properties(singleton_pattern(p))
        return CompiledNextLiteral(p, ses_automaton(p), query.policy, one,
                                   query.time_unit, query.reading)


register("ses-next-literal", NextLiteralEngine)
