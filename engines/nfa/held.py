"""What the NFAs hold beside their instances (seed 003 Sec. 4.4): the negation buffers,
and the complete instances held back until no later event can forbid them.

A negated event forbids a match only within one window of it, so the buffers keep the
negated types' events for twice the window; a match whose negation is open to the
future (a trailing ``NOT``, or one under ``AND``) waits until the window after its
first event has passed (Sec. 4.4.1: the ``timeout`` edge).
"""

from __future__ import annotations

import heapq
import itertools
from collections import deque
from collections.abc import Iterable, Iterator
from typing import Generic, Protocol, TypeVar

from kleene.engines.protocol import Counters
from kleene.engines.spans import Window
from kleene.reference.events import Event

_INF = float("inf")


class NegationBuffers:
    """The events of the negated types, kept for twice the window (Sec. 4.4)."""

    def __init__(self, types: Iterable[str | None], bound: Window | None, c: Counters) -> None:
        self.bound = bound
        self.c = c
        self.events: dict[str | None, deque[Event]] = {t: deque() for t in types}

    def of(self, t: str | None) -> Iterable[Event]:
        return self.events[t]

    def merged(self, types: Iterable[str | None]) -> list[Event]:
        """The buffered events of ``types``, each once, in stream order."""
        found = {e.position: e for t in types for e in self.events[t]}
        return [found[i] for i in sorted(found)]

    def add(self, e: Event) -> None:
        for t, q in self.events.items():
            if t is None or t == e.type:
                q.append(e)
                self.c.buffer_operations += 1

    def prune(self, ts: float) -> None:
        bound = self.bound
        if bound is None:
            return
        # an instance alive at ts, or a match pending at ts, has its first event f
        # at or after earliest(ts); an N event forbids it only if it fits with f too
        oldest = bound.earliest(bound.earliest(ts))
        for q in self.events.values():
            while q and q[0].ts < oldest:
                q.popleft()
                self.c.buffer_operations += 1


class Timed(Protocol):
    """What :class:`Pending` holds: something with the ts of its first event."""

    @property
    def first(self) -> float: ...


T = TypeVar("T", bound=Timed)


class Pending(Generic[T]):
    """Complete instances held back until the window after their first event has passed."""

    def __init__(self, bound: Window | None) -> None:
        self.bound = bound
        self.heap: list[tuple[float, int, T]] = []
        self.tick = itertools.count()

    def push(self, p: T) -> None:
        # due once an event at ts > deadline arrives: exactly when ts no longer fits
        deadline = _INF if self.bound is None else self.bound.latest(p.first)
        heapq.heappush(self.heap, (deadline, next(self.tick), p))

    def due(self, ts: float) -> Iterator[T]:
        while self.heap and self.heap[0][0] < ts:
            yield heapq.heappop(self.heap)[2]

    def rest(self) -> Iterator[T]:
        while self.heap:
            yield heapq.heappop(self.heap)[2]

    def __len__(self) -> int:
        return len(self.heap)
