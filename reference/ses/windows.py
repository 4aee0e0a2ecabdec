"""Match windows and the matching interface A: seed 001 Def. 3 and Def. 4.

Def. 3 (Match Window): for a pattern with duration τ, the match window
starting at event e_i is ``W_i = <e ∈ E | 0 ≤ e.T − e_i.T ≤ τ>``, "a maximal
subsequence of E that starts at an event e_i". Def. 4 (Event Pattern Matching
Algorithm): for a match window ``W = <e_1, ..., e_n>``, ``A(P, W)`` returns
the set of all matches that start at ``e_1``.

Normative reading of Def. 3 under ties: the set former ``0 ≤ e.T − e_i.T``
would also admit events *before* e_i (in the stream's total order) that share
its timestamp, and then the window would not start at e_i. We keep the
sentence that follows the definition: W_i starts at e_i and holds the events
from e_i's position on (``docs/errata.md#seed-001-def-3-ties``). This is also
what :func:`kleene.reference.ses.matching.match_window` computes.

The pruning steps of seed 001 Sec. 4 produce *subsequences* of the stream: a
filtered stream (Thm 1) or a partition (Def. 6). Their events keep their
original positions (so matches compare with the whole stream's), which is why
this module works on any sequence of events in stream order, not only on a
:class:`~kleene.reference.events.Stream`:

- :func:`window_at`: W_i over such a subsequence;
- :func:`window_matches`: A(P, W) for an arbitrary window W;
- :func:`matches_over`: the union over i of A(P, W_i): all matches whose
  events all lie in the subsequence;
- :func:`as_stream` / :func:`restore`: renumber a subsequence into a stream
  (what an engine downstream of the pruning sees) and map matches back.

Conventions: ``e: Event``, ``s: Stream``, ``m: Match``, ``W`` a window
(a sequence of events whose first event is its start), ``tau`` τ in
timestamp units.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from kleene.reference.budget import Budget
from kleene.reference.durations import fits
from kleene.reference.errors import StreamError
from kleene.reference.events import Event, Stream
from kleene.reference.match import Match
from kleene.reference.ses.matching import match_window, matches_in, matches_starting_at, window_of
from kleene.reference.ses.pattern import SESPattern

__all__ = ["match_window", "matches_starting_at", "window_of", "tau_of", "check_order",
           "window_at", "windows", "window_matches", "matches_over", "as_stream", "restore"]


def tau_of(pattern: SESPattern, time_unit: str | None) -> int | float:
    """τ of ``pattern`` in timestamp units of events whose ``ts`` is in ``time_unit``."""
    return pattern.window.in_units_of(time_unit)


def check_order(events: Sequence[Event]) -> None:
    """Raise :class:`StreamError` unless ``events`` are in stream order: strictly
    increasing positions and non-decreasing timestamps (a subsequence of a stream)."""
    for before, after in itertools.pairwise(events):
        if after.position <= before.position:
            raise StreamError(f"position {after.position} follows position {before.position}; "
                              "a window is a subsequence of the stream, in stream order",
                              row=after.position, field="position")
        if after.ts < before.ts:
            raise StreamError(f"timestamp {after.ts} is earlier than the previous event's "
                              f"{before.ts}", row=after.position, field="ts")


def window_at(events: Sequence[Event], i: int, tau: int | float,
              reading: str = "inclusive") -> tuple[Event, ...]:
    """W_i of Def. 3 over the subsequence ``events``: ``events[i]`` and the events
    after it whose timestamp is at most τ later (``i`` indexes ``events``; the
    window decided by :func:`~kleene.reference.durations.fits`)."""
    start = events[i].ts
    return tuple(itertools.takewhile(lambda e: fits(e.ts - start, tau, reading), events[i:]))


def windows(events: Sequence[Event], tau: int | float) -> list[tuple[Event, ...]]:
    """Every match window W_1, ..., W_n of ``events`` (Fig. 4: one per event)."""
    return [window_at(events, i, tau) for i in range(len(events))]


def window_matches(pattern: SESPattern, W: Sequence[Event], *, time_unit: str | None = None,
                   budget: Budget | None = None) -> set[Match]:
    """A(P, W) of Def. 4: every match of ``pattern`` (seed 001 Def. 2) whose events
    lie in ``W`` and whose first event is ``W[0]``.

    ``W`` is any sequence of events in stream order (a filtered or partitioned
    window included); events more than τ after ``W[0]`` cannot be in such a
    match (condition 3) and are ignored. Positions are the events' own.
    """
    if not W:
        return set()
    check_order(W)
    tau = tau_of(pattern, time_unit)
    inside = window_at(W, 0, tau)
    first = W[0]
    return {m for m in matches_in(pattern, inside, anchor=first, budget=budget)
            if m.first == first.position}


def matches_over(pattern: SESPattern, events: Sequence[Event], *,
                 time_unit: str | None = None, budget: Budget | None = None) -> set[Match]:
    """All matches (the policy ``any``) whose events all lie in ``events``: the union
    of A(P, W_i) over the match windows of ``events`` (Sec. 4.1, Fig. 3)."""
    check_order(events)
    budget = budget or Budget()
    out: set[Match] = set()
    for W in windows(events, tau_of(pattern, time_unit)):
        out |= window_matches(pattern, W, time_unit=time_unit, budget=budget)
    return out


def as_stream(events: Sequence[Event], time_unit: str | None = None) -> tuple[Stream,
                                                                               tuple[int, ...]]:
    """``events`` renumbered 0..n−1 as a :class:`Stream`, and ``origin`` with
    ``origin[i]`` the original position of the stream's event i."""
    check_order(events)
    renumbered = tuple(Event(i, e.ts, e.type, e.attrs) for i, e in enumerate(events))
    return Stream(renumbered, time_unit), tuple(e.position for e in events)


def restore(m: Match, origin: Sequence[int]) -> Match:
    """The match ``m`` over a renumbered stream, with its original positions."""
    return Match.of({var: [origin[p] for p in ps] for var, ps in m.bindings})
