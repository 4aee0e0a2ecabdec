"""Which filtered events can be in a window that Algorithm 1 hands to A, decided on
columns as batches arrive (seed 001 Thm 2, weakened so that it is cheap and monotone).

For each event i that passed the filter (Thm 1), W_i is the filtered events
from i to the last within τ of it. A window of Algorithm 1 (of any partition,
Def. 6) that starts at i is a subset of W_i, and its summary statistics count
no more than W_i's events with each property (Def. 5: a counter counts events
of the window with the variable's properties, some of them only), so if it
passes Thm 2's test then W_i has |W_i| ≥ m, Θp_v(e_i) for some v ∈ B1, and an
event with the properties of every variable (the *weak test*). An event that
lies in no W_i passing the weak test is in no window A is called on, and is
never enqueued: every window A is called on keeps all its events, and a window
that fails the weak test also fails it with fewer events (the test is
monotone), so the windows A sees, and the matches, are the same.

The decision about event p needs the events up to τ after it (the windows
that start at p) and the decisions about the events up to τ before it (the
windows that contain p): :class:`Candidates` keeps the filtered events of
the last 2τ of the stream, and releases an event once an event that does not
fit with it (:func:`kleene.reference.durations.fits`) has been read. Memory
is bounded by the batch and the window, not by the stream.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from kleene.data.columnar import Columns
from kleene.engines.spans import Window
from kleene.engines.windows.statistics import Layout
from kleene.reference.events import Event

#: A released run of events: the events (positions preserved), their ē, and the
#: timestamp of the last (time has passed it: no event earlier will follow).
Released = tuple[list[Event], list[int], int | float]


class Candidates:
    """The filtered events not yet released, as columns; ``prune`` applies the weak test."""

    def __init__(self, layout: Layout, win: Window, prune: bool) -> None:
        self.layout, self.win, self.prune = layout, win, prune
        self.ts: np.ndarray = np.zeros(0, dtype=np.float64)  # the batches' own dtype once read
        self.bits = np.zeros(0, dtype=np.int64)
        self.rows = np.zeros(0, dtype=np.int64)        # row within its batch
        self.batch = np.zeros(0, dtype=np.int64)       # which batch
        self.batches: dict[int, tuple[int, Columns]] = {}
        self.carry: int | float = -math.inf  # the latest start released that passed the weak test
        self.count = 0

    def push(self, offset: int, part: Columns, kept: np.ndarray,
             bits: np.ndarray) -> Iterator[Released]:
        """Add the filtered rows ``kept`` (ē ``bits``) of the batch ``part`` (its first row
        at position ``offset``); release what is decided."""
        if len(part) == 0:
            return iter(())
        ident = self.count
        self.count += 1
        self.batches[ident] = (offset, part)
        stamps = np.asarray(part.ts.to_numpy())   # ints stay ints (exact past 2**53)
        held = self.ts if len(self.ts) else self.ts.astype(stamps.dtype)
        self.ts = np.concatenate((held, stamps[kept]))
        self.bits = np.concatenate((self.bits, bits))
        self.rows = np.concatenate((self.rows, kept))
        self.batch = np.concatenate((self.batch, np.full(len(kept), ident, dtype=np.int64)))
        return self._release(stamps[-1].item())

    def finish(self) -> Iterator[Released]:
        """The end of the stream: release everything."""
        return self._release(math.inf)

    def _release(self, last: int | float) -> Iterator[Released]:
        # p is decided once an event that does not fit with it was read: the
        # candidates before the first that fits with ``last`` (spans.Window.starts)
        k = int(self.win.starts(self.ts, last)) if self.prune else len(self.ts)
        if k == 0:
            return iter(())
        keep = self._weak_test(k) if self.prune else np.ones(k, dtype=bool)
        out = list(self._events(np.flatnonzero(keep)))
        self.ts, self.bits = self.ts[k:], self.bits[k:]
        self.rows, self.batch = self.rows[k:], self.batch[k:]
        alive = set(self.batch.tolist())      # (np.unique would import numpy.ma)
        for ident in [i for i in self.batches if i not in alive]:
            del self.batches[ident]
        return iter(out)

    def _weak_test(self, k: int) -> np.ndarray:
        """Which of the first ``k`` candidates lie in some W_i passing the weak test."""
        layout, ts, bits = self.layout, self.ts, self.bits
        start = np.arange(k)
        end = self.win.ends(ts, ts[:k])
        ok = ((end - start) >= layout.m) & ((bits[:k] & layout.b1) != 0)
        for j in range(layout.m):
            has = np.concatenate(([0], np.cumsum((bits >> j) & 1)))
            ok &= (has[end] - has[start]) > 0
        cover = np.zeros(len(ts) + 1, dtype=np.int64)
        np.add.at(cover, start[ok], 1)
        np.add.at(cover, end[ok], -1)
        covered = (np.cumsum(cover[:k]) > 0) | (ts[:k] <= self.win.latest(self.carry))
        if ok.any():
            self.carry = max(self.carry, ts[:k][ok].max().item())
        return covered

    def _events(self, index: np.ndarray) -> Iterator[Released]:
        """The events of the candidates at ``index``, one run per batch."""
        if not len(index):
            return
        batch = self.batch[index]
        cuts = np.flatnonzero(np.diff(batch)) + 1
        for run in np.split(index, cuts):
            offset, part = self.batches[int(self.batch[run[0]])]
            events = part.events(self.rows[run], offset=offset)
            yield events, self.bits[run].tolist(), self.ts[run[-1]].item()
