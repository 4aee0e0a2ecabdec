"""The event filter of seed 000 Sec. 4.5, for the SES engines.

The filter (``filter=`` of :class:`~kleene.engines.ses.run.SESAutomatonEngine`)
drops an event before any instance of the automaton sees it. ``"paper"`` keeps
the events that satisfy at least one property ``v.A φ C`` of Θ, as printed; this
loses matches when some variable has no property (docs/errata.md). ``"sound"``
(default) keeps the events that satisfy every property of some variable, and
filters nothing if a variable has none: an event it drops enables no transition,
so the match set is unchanged. ``"none"`` keeps everything.

Over a loaded stream the filter is evaluated on the columns and only the rows it
keeps become :class:`~kleene.reference.events.Event` objects (:func:`candidates`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from kleene.data.source import column_batches
from kleene.engines.columns import ArrowColumns
from kleene.engines.protocol import Counters
from kleene.reference.conditions import Condition, conjunction, holds, rename
from kleene.reference.errors import Unsupported
from kleene.reference.events import Event
from kleene.reference.ses.filtering import EVENT
from kleene.reference.ses.pattern import SESPattern

FILTERS = ("sound", "paper", "none")


def event_filter(pattern: SESPattern, mode: str,
                 counters: Counters) -> Callable[[Event], bool] | None:
    """The filter of Sec. 4.5 as a predicate on events (``None`` keeps everything)."""
    if mode not in FILTERS:
        raise Unsupported(f"unknown filter {mode!r}; choose one of {', '.join(FILTERS)}")
    props = {v: pattern.properties(v) for v in pattern.names}

    def test(theta: Condition, v: str, e: Event) -> bool:
        counters.predicate_evaluations += 1
        return holds(theta, {v: (e,)})

    if mode == "none" or (mode == "sound" and not all(props.values())):
        return None
    if mode == "paper":
        return lambda e: any(test(theta, v, e) for v, ps in props.items() for theta in ps)
    return lambda e: any(all(test(theta, v, e) for theta in ps) for v, ps in props.items())


def candidates(pattern: SESPattern, mode: str, events: Iterable[Event],
               counters: Counters) -> tuple[Iterable[Event], Callable[[Event], bool] | None]:
    """The events to drive and the filter left to apply to them.

    Over a loaded stream (:attr:`Stream.columns`) the filter of Sec. 4.5 is
    evaluated over the columns (:class:`~kleene.engines.columns.ArrowColumns`)
    and only the rows it keeps become events (positions preserved). A dropped
    event changes no instance: it enables no transition, and an instance it
    would expire expires on the next kept event or at the end with the same
    verdict (timestamps do not decrease), so the matches are the same.
    """
    keep = event_filter(pattern, mode, counters)
    batches = column_batches(events, ROWS) if keep is not None else None
    if batches is None:
        return events, keep
    props = [[rename(theta, {v: EVENT}) for theta in pattern.properties(v)]
             for v in pattern.names]
    tests = [theta for ps in props for theta in ps] if mode == "paper" \
        else [conjunction(ps) for ps in props]
    return _rows(batches, tests, counters), None


#: Rows of a loaded stream filtered at once.
ROWS = 65_536


def _rows(batches: Iterable[tuple[int, Any]], tests: Sequence[Condition],
          counters: Counters) -> Iterator[Event]:
    """The events of the batches of columns that satisfy one of ``tests``."""
    for start, part in batches:
        cols = ArrowColumns(part)
        kept = np.zeros(len(part), dtype=bool)
        for theta in tests:
            kept |= cols.holds(theta)
        counters.predicate_evaluations += len(part) * len(tests)
        index = np.flatnonzero(kept)
        counters.events_read += len(part) - len(index)
        counters.events_filtered += len(part) - len(index)
        yield from part.events(index, offset=start)
