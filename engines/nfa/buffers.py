"""Per-type event buffers of the lazy NFA (seed 003 Sec. 3: "each event type has a
buffer"; an event is stored on arrival and removed when the window passes).

Events arrive in ``ts`` order, so a buffer is sorted by ``ts`` and the lazy NFA
finds the events that can fill a slot between two timestamps by binary
search before evaluating the edge's predicate on each of them.
"""

from __future__ import annotations

import bisect

from kleene.engines.protocol import Counters
from kleene.reference.events import Event


class Buffer:
    """The events of one type within the window, oldest first."""

    __slots__ = ("events", "times", "head")

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.times: list[float] = []
        self.head = 0

    def add(self, e: Event) -> None:
        self.events.append(e)
        self.times.append(e.ts)

    def prune(self, oldest: float, c: Counters) -> None:
        """Drop the events before ``oldest`` (each drop is a buffer operation)."""
        h = bisect.bisect_left(self.times, oldest, self.head)
        c.buffer_operations += h - self.head
        self.head = h
        if h > 4096 and h * 2 > len(self.events):
            del self.events[:h], self.times[:h]
            self.head = 0

    def between(self, after: float, upto: float, low: float, high: float) -> list[Event]:
        """The events with ``after < ts < upto`` and ``low <= ts <= high``."""
        start = max(bisect.bisect_right(self.times, after, self.head),
                    bisect.bisect_left(self.times, low, self.head))
        end = min(bisect.bisect_left(self.times, upto, start),
                  bisect.bisect_right(self.times, high, start))
        return self.events[start:end]

    def __len__(self) -> int:
        return len(self.events) - self.head
