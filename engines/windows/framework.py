"""Algorithm 1 of seed 001 (``Match(P, E, A)``): the two-phase strategy of Sec. 4.

Pre-processing buffers the events in match windows and prunes; A is called
lazily. Per event ``e`` in stream order (``foreach e ∈ E ordered by T``):

- *filtering* (Thm 1, ``if Θp_v1(e) or ... or Θp_vm(e)``): ``e`` is dropped
  unless it has the properties of some variable, ē ≠ 0
  (:class:`~kleene.engines.columns.PropertyBits`, evaluated over the
  columns of a batch of events at once);
- *partitioning* (Def. 6, ``K′ ← (e.X1, ..., e.Xk)``): the hash table H maps
  the partition key (``e``'s values of the partitioning attributes, compared
  as ``=`` compares them: :func:`kleene.reference.ses.partitioning.partition_key`)
  to an entry ``(K, W, S)``: a match window and its summary statistics. An
  event that misses a key value can be in no match and is dropped;
- *lazy calls of A* (``while |W| > 0 and e.T − W[1].T > τ``): while ``e`` is
  more than τ after W's first event, W is complete (every event within τ of
  its first is in it): if W satisfies the *necessary match conditions* (Thm 2
  (4), (5), and (6) ∧ (7) as ``∀ cnt > 0`` by Thm 3 on the summary statistics
  of Def. 5), A(P, W) is called; then W's first event is dequeued and S
  updated. Then ``e`` is enqueued (``enqueue(W, e); Update S``);
- *the end of the stream* (the final loop, lines 17–20): what is left in
  each window.

Corrected reading (default), against the algorithm as printed
(``paper_faithful=True``):

- S is Def. 5 (:class:`~kleene.engines.windows.statistics.BitStatistics`),
  not the printed update rule (:class:`~kleene.engines.windows.statistics.PaperBitStatistics`,
  ``docs/errata.md#seed-001-statistics-update-rule``);
- the final loop dequeues every window and calls A on each candidate; the
  printed loop stops at the first window that is no candidate
  (``docs/errata.md#seed-001-algorithm-1-final-loop``);
- a window of another partition is also completed when time passes it (at
  the end of each batch of events), so its matches are emitted within one
  batch and H keeps only entries with events; the printed algorithm completes
  a partition's window only when an event of that partition arrives. The
  windows passed to A are the same.

Conventions: ``e`` an event, ``W`` a match window, ``win`` the window
(:class:`~kleene.engines.spans.Window`: τ in timestamp units and its reading).
"""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from itertools import islice
from typing import Generic, TypeVar

import numpy as np

from kleene.data.columnar import Columns as EventColumns
from kleene.data.source import column_batches
from kleene.engines.columns import PropertyBits
from kleene.engines.protocol import Counters
from kleene.engines.spans import Window
from kleene.engines.windows.matching import WindowMatcher
from kleene.engines.windows.pruning import Candidates
from kleene.engines.windows.statistics import BitStatistics, Layout, PaperBitStatistics
from kleene.reference.events import Event
from kleene.reference.ses.partitioning import partition_key
from kleene.reference.ses.pattern import SESPattern

#: What A reports of each match (:data:`~kleene.engines.windows.matching.R`).
R = TypeVar("R")

#: Events read (and filtered over their columns) at once.
BATCH = 4096
#: Rows of a loaded stream's columns filtered at once.
ROWS = 65_536


class Entry:
    """``(K, W, S)`` of Algorithm 1: a match window (events and their ē) and its statistics."""

    __slots__ = ("key", "window", "bits", "stats")

    def __init__(self, key: object, stats: BitStatistics | PaperBitStatistics | None) -> None:
        self.key = key
        self.window: deque[Event] = deque()
        self.bits: deque[int] = deque()
        self.stats = stats


class MatchWindows(Generic[R]):
    """One run of Algorithm 1 over a stream, calling ``A`` on complete windows (what A
    reports of each match, a match or an instance, is what the run yields).

    ``attributes`` are the partitioning attributes (none: one window);
    ``filtering`` and ``conditions`` switch Thm 1 and Thm 2/3 on; ``batch`` is the
    number of events whose properties are evaluated at once (matches are
    emitted at the end of each batch), ``rows`` the same for the rows of a
    loaded stream's columns.
    """

    def __init__(self, pattern: SESPattern, A: WindowMatcher[R], *, win: Window,
                 attributes: Sequence[str] = (), filtering: bool = True,
                 conditions: bool = True, paper_faithful: bool = False,
                 counters: Counters | None = None, batch: int = BATCH,
                 rows: int = ROWS) -> None:
        self.A, self.win, self.attributes = A, win, tuple(attributes)
        self.filtering, self.conditions, self.faithful = filtering, conditions, paper_faithful
        self.counters = counters if counters is not None else Counters()
        self.batch, self.rows = max(1, batch), max(1, rows)
        self.layout = Layout.of(pattern)
        # ē: for the filter, the statistics, and A when it reads properties off ē.
        self.properties = PropertyBits(pattern) if filtering or conditions or A.reads_bits \
            else None
        self.table: dict[object, Entry] = {}          # H
        self.heads: list[tuple[int | float, int, object]] = []   # (W[0].ts, position, K)

    # ------------------------------------------------------------ the main loop

    def run(self, events: Iterable[Event]) -> Iterator[R]:
        """Algorithm 1 over ``events``: every match A returns, as soon as its window is done.

        Over the columns of a loaded stream (:func:`~kleene.data.source.column_batches`),
        batch by batch, the filter reads the columns, and events are built only
        for the rows that pass it and can be in a window A is called on
        (:mod:`kleene.engines.windows.pruning`; positions preserved).
        """
        batches = column_batches(events, self.rows)
        if batches is not None:
            yield from self._run_batches(batches)
            return
        it = iter(events)
        while batch := list(islice(it, self.batch)):
            yield from self._read(batch)
        yield from self._finish()

    def _run_batches(self, batches: Iterable[tuple[int, EventColumns]]) -> Iterator[R]:
        """:meth:`run` over batches of columns ``(offset, columns)``."""
        prune = self.filtering and self.conditions and not self.faithful \
            and self.properties is not None
        pending = Candidates(self.layout, self.win, prune)
        counters = self.counters
        for offset, part in batches:
            n = len(part)
            counters.events_read += n
            if self.properties is None:
                kept, bits = np.arange(n), np.zeros(n, dtype=np.int64)
            else:
                every = self.properties.of(part)
                counters.predicate_evaluations += n * len(self.properties.masks)
                kept = np.flatnonzero(every) if self.filtering else np.arange(n)
                counters.events_filtered += n - len(kept)
                bits = every[kept]
            for events, chunk, now in pending.push(offset, part, kept, bits):
                yield from self._loop(zip(events, chunk, strict=True), now)
        for events, chunk, now in pending.finish():
            yield from self._loop(zip(events, chunk, strict=True), now)
        yield from self._finish()

    def _read(self, batch: list[Event]) -> Iterator[R]:
        """The main loop for each event of ``batch``."""
        self.counters.events_read += len(batch)
        yield from self._loop(self._passing(batch), batch[-1].ts)

    def _loop(self, passing: Iterable[tuple[Event, int]],
              last: int | float | None) -> Iterator[R]:
        """The main loop for each event that passed the filter; ``last`` is the timestamp
        of the batch's last event (filtered or not). The matches of each window as A
        returns them: no more than one window's are held here (issue 33 item 5)."""
        win = self.win
        for e, bits in passing:
            entry = self._entry(e)
            if entry is None:
                continue
            window = entry.window
            while window and not win.fits(e.ts - window[0].ts):    # W exceeds τ with e
                yield from self._complete(entry)
            self._enqueue(entry, e, bits)
        if not self.faithful and last is not None:
            yield from self._pass_time(last)

    def _passing(self, batch: list[Event]) -> Iterable[tuple[Event, int]]:
        """The events that pass the filter (Thm 1), each with its ē."""
        if self.properties is None:
            return ((e, 0) for e in batch)
        bits = self.properties.of(batch)
        self.counters.predicate_evaluations += len(batch) * len(self.properties.masks)
        if not self.filtering:
            return zip(batch, bits.tolist(), strict=True)
        kept = np.flatnonzero(bits)
        self.counters.events_filtered += len(batch) - len(kept)
        return zip([batch[i] for i in kept.tolist()], bits[kept].tolist(), strict=True)

    def _entry(self, e: Event) -> Entry | None:
        """The entry of ``e``'s partition key in H (created empty if new)."""
        key = partition_key(e, self.attributes) if self.attributes else ()
        if key is None:
            return None                                      # it can be in no match
        entry = self.table.get(key)
        if entry is None:
            stats = None
            if self.conditions:
                stats = (PaperBitStatistics if self.faithful else BitStatistics)(self.layout)
            entry = self.table[key] = Entry(key, stats)
        return entry

    def _enqueue(self, entry: Entry, e: Event, bits: int) -> None:
        """``enqueue(W, e); Update S``."""
        if not entry.window and self.attributes and not self.faithful:
            heapq.heappush(self.heads, (e.ts, e.position, entry.key))
        entry.window.append(e)
        entry.bits.append(bits)
        if entry.stats is not None:
            entry.stats.enqueue(e.ts, bits)

    def _candidate(self, entry: Entry) -> bool:
        """Thm 2 (4) |W| ≥ m, (5) ∃v ∈ B1 Θp_v(W[1]), and (6) ∧ (7) as ∀(v, cnt) ∈ S (cnt > 0)."""
        layout, stats = self.layout, entry.stats
        return (len(entry.window) >= layout.m and entry.bits[0] & layout.b1 != 0
                and stats is not None and stats.positive == layout.full)

    def _complete(self, entry: Entry) -> list[R]:
        """Call A on the complete window W if it is a candidate; ``dequeue(W); Update S``."""
        out: list[R] = []
        window = entry.window
        if not self.conditions or self._candidate(entry):
            self.counters.calls_to_a += 1
            self.counters.events_to_a += len(window)
            out = self.A(list(window), list(entry.bits) if self.properties is not None else None)
        window.popleft()
        bits = entry.bits.popleft()
        if entry.stats is not None:
            entry.stats.dequeue(bits)
        if window and self.attributes and not self.faithful:
            heapq.heappush(self.heads, (window[0].ts, window[0].position, entry.key))
        return out

    # ------------------------------------------------------------ time and the end

    def _pass_time(self, now: int | float) -> Iterator[R]:
        """Complete the windows whose first event is more than τ before ``now``
        (they can get no more events); drop the entries left empty."""
        if not self.attributes:
            entry = self.table.get(())
            while (entry is not None and entry.window
                   and not self.win.fits(now - entry.window[0].ts)):
                yield from self._complete(entry)
            return
        heads, table = self.heads, self.table
        while heads and not self.win.fits(now - heads[0][0]):
            _, position, key = heapq.heappop(heads)
            entry = table.get(key)
            if entry is None or not entry.window or entry.window[0].position != position:
                continue                                     # a stale head
            while entry.window and not self.win.fits(now - entry.window[0].ts):
                yield from self._complete(entry)
            if not entry.window:
                del table[key]

    def _finish(self) -> Iterator[R]:
        """The final loop (lines 17–20): the windows left when the stream ends."""
        stop_early = self.faithful and self.conditions
        for entry in self.table.values():
            while entry.window:
                if stop_early and not self._candidate(entry):
                    break                                    # the printed loop ends here
                yield from self._complete(entry)
        self.table.clear()
        self.heads.clear()
