"""All matches of an SES pattern: seed 001 Def. 2 (= seed 000 Def. 2, conditions 1–3).

A substitution γ binds each singleton variable to one event and each group
variable to a non-empty sequence of events (in stream order); all events of γ
are distinct (seed 000 Sec. 3.2). γ is a *match* iff

1. every instantiation of every condition of Θ holds (:func:`~kleene.reference.conditions.holds`);
2. every event bound to a variable of B_i occurs strictly before (in ``ts``)
   every event bound to a variable of B_{i+1};
3. any two events of γ are at most τ apart: ``max ts − min ts ≤ τ``.

The enumeration is organised by the match's first event ``f``: all other
events lie in the match window W_f of seed 001 Def. 3 (``0 ≤ e.ts − f.ts ≤ τ``,
positions after ``f``), so :func:`matches_starting_at` is exactly the
interface A(P, W) of seed 001 Def. 4, and :func:`all_matches` is their union
over f. The search backtracks variable by variable, checking each condition as
soon as all its variables are bound, and draws every step from a
:class:`~kleene.reference.budget.Budget`.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence

from kleene.reference.budget import Budget
from kleene.reference.conditions import Condition, holds, variables
from kleene.reference.durations import fits
from kleene.reference.events import Event, Stream
from kleene.reference.match import Match
from kleene.reference.ses.pattern import SESPattern

Gamma = dict[str, tuple[Event, ...]]


def window_of(pattern: SESPattern, s: Stream) -> int | float:
    """τ in the stream's timestamp units (a reading decides it with
    :func:`~kleene.reference.durations.fits`)."""
    return pattern.window.in_units_of(s.time_unit)


def match_window(s: Stream, f: int, tau: int | float,
                 reading: str = "inclusive") -> tuple[Event, ...]:
    """W_f of seed 001 Def. 3: events from position ``f`` on with ``e.ts − s[f].ts ≤ τ``
    (``< τ`` under the strict reading: :func:`~kleene.reference.durations.fits`)."""
    start = s[f].ts
    out = []
    for e in s.events[f:]:
        if not fits(e.ts - start, tau, reading):
            break
        out.append(e)
    return tuple(out)


def _checks(pattern: SESPattern, order: Sequence[str]) -> list[list[Condition]]:
    """For each step of ``order``, the conditions whose last variable is bound there."""
    steps: list[list[Condition]] = [[] for _ in order]
    for c in pattern.conditions:
        needed = variables(c)
        last = max((order.index(v) for v in needed), default=0)
        steps[last].append(c)
    return steps


def _ordered(pattern: SESPattern, gamma: Gamma, name: str, chosen: Sequence[Event]) -> bool:
    """Condition 2 for the new binding ``name/chosen`` against what ``gamma`` already binds."""
    i = pattern.set_index(name)
    first, last = chosen[0].ts, chosen[-1].ts
    for other, events in gamma.items():
        j = pattern.set_index(other)
        if j == i - 1 and not events[-1].ts < first:
            return False
        if j == i + 1 and not last < events[0].ts:
            return False
    return True


def matches_in(pattern: SESPattern, events: Sequence[Event], *, anchor: Event | None = None,
               budget: Budget | None = None) -> Iterator[Match]:
    """Every match of ``pattern`` whose events are all in ``events`` (conditions 1 and 2;
    the caller restricts ``events`` to a window for condition 3). With ``anchor``,
    only the matches that bind ``anchor`` (used for "starts at e1")."""
    budget = budget or Budget()
    budget.check()   # the deadline and the memory ceiling, once per window
    candidates = {v.name: [e for e in events if all(holds(c, {v.name: (e,)})
                                                     for c in pattern.properties(v.name))]
                  for v in pattern.variables}
    # Bind the most selective variables first; a different order changes no result.
    order = sorted(pattern.names, key=lambda n: (len(candidates[n]), pattern.set_index(n)))
    checks = _checks(pattern, order)

    def bindings(name: str, used: set[int], must: Event | None) -> Iterator[tuple[Event, ...]]:
        free = [e for e in candidates[name] if e.position not in used and e is not must]
        if not pattern.variable(name).group:
            yield from ((e,) for e in ([must] if must is not None else free))
            return
        if must is None:
            for size in range(1, len(free) + 1):
                yield from itertools.combinations(free, size)
            return
        rest = [e for e in free if e.position > must.position]
        for size in range(0, len(rest) + 1):  # the anchor is first: the others follow it
            for more in itertools.combinations(rest, size):
                yield (must, *more)

    def search(k: int, gamma: Gamma, used: set[int], owner: str | None) -> Iterator[Match]:
        if k == len(order):
            yield Match.of(gamma)
            return
        name = order[k]
        must = anchor if name == owner else None
        for chosen in bindings(name, used, must):
            budget.spend()
            if not _ordered(pattern, gamma, name, chosen):
                continue
            gamma[name] = chosen
            if all(holds(c, gamma) for c in checks[k]):
                yield from search(k + 1, gamma, used | {e.position for e in chosen}, owner)
            del gamma[name]

    if anchor is None:
        yield from search(0, {}, set(), None)
        return
    # The anchor is bound to exactly one variable: try each that can take it.
    for owner in order:
        if any(e is anchor for e in candidates[owner]):
            yield from search(0, {}, {anchor.position}, owner)


def matches_starting_at(pattern: SESPattern, s: Stream, f: int, *,
                        budget: Budget | None = None, reading: str = "inclusive") -> set[Match]:
    """A(P, W_f) of seed 001 Def. 4: all matches whose first event is ``s[f]``.

    "First" is the least position; every other event of such a match lies in
    W_f (Def. 3), which gives condition 3.
    """
    window = match_window(s, f, window_of(pattern, s), reading)
    return {m for m in matches_in(pattern, window, anchor=s[f], budget=budget) if m.first == f}


def all_matches(pattern: SESPattern, s: Stream, *, budget: Budget | None = None,
                reading: str = "inclusive") -> set[Match]:
    """Γ: every substitution that satisfies conditions 1–3 (the policy ``any``);
    ``reading`` ``strict`` reads condition 3 as ``max ts − min ts < τ``."""
    budget = budget or Budget()
    out: set[Match] = set()
    for f in range(len(s)):
        out |= matches_starting_at(pattern, s, f, budget=budget, reading=reading)
    return out
