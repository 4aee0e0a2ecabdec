"""The streaming run of an SRT (seed 004, report Alg. 1) over the columns of a stream.

Most elements of a stream can take no transition of an SRT but its ``TRUE``
ones: they satisfy none of the guards' *head-only* conjuncts (those that read
no register, :func:`kleene.engines.srt.skip.skipping`). Such an element only
moves the live runs along their ``TRUE`` transitions (unmarked, writing
nothing, clocks tested on its timestamp) and, when no run is alive, changes
nothing at all. Over a loaded stream (:attr:`~kleene.reference.events.Stream.columns`,
:func:`~kleene.data.source.column_batches`) this module finds the
*candidates*, the rows satisfying some head-only conjunct, with Arrow's
vector kernels (:class:`~kleene.engines.columns.ArrowColumns`, the
reference's three-valued comparisons), builds events for those rows only
(positions preserved), and hands the other rows to
:meth:`~kleene.engines.srt.execution.Execution.skip_rows` by their timestamps. The
configurations after every row are those of :meth:`Execution.step` on every
event, so no match changes (tests/test_srt_differential.py runs both).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from kleene.engines.columns import ArrowColumns
from kleene.reference.conditions import Condition, conjuncts
from kleene.reference.events import Event
from kleene.reference.match import Match
from kleene.reference.sremo.expressions import HEAD

#: Rows of a loaded stream filtered at once.
ROWS = 65_536
#: Batches with fewer rows are read event by event (:meth:`Execution.step`).
SMALL = 2_048
#: Candidate rows made events at once.
CHUNK = 512


#: At most this many conditions are kept per row as bits (an int64).
MAX_BITS = 62


def candidates(part: Any, relevant: Sequence[Condition]) -> tuple[np.ndarray, np.ndarray]:
    """The rows of the columns ``part`` where one of ``relevant`` holds (sorted indexes),
    and for each such row the bits of the conditions it satisfies (bit ``i``:
    ``relevant[i]``; all bits set beyond :data:`MAX_BITS` conditions)."""
    cols = ArrowColumns(part, HEAD)
    bits = np.zeros(len(part), dtype=np.int64)
    seen: dict[Condition, np.ndarray] = {}   # conjuncts shared by several conditions
    for i, c in enumerate(relevant):
        held = None
        for part_ in conjuncts(c):           # a conjunction is true iff each conjunct is
            one = seen.get(part_)
            if one is None:
                one = seen[part_] = cols.holds(part_)
            held = one if held is None else held & one
        if held is None:                     # TRUE
            held = np.ones(len(part), dtype=bool)
        bits |= held.astype(np.int64) << (i if len(relevant) <= MAX_BITS else 0)
    rows = np.flatnonzero(bits)
    if len(relevant) > MAX_BITS:
        return rows, np.full(len(rows), -1, dtype=np.int64)
    return rows, bits[rows]


def drive(ex: Any, batches: Iterable[tuple[int, Any]]) -> Iterator[Match]:
    """Run the :class:`~kleene.engines.srt.execution.Execution` ``ex`` over ``(offset,
    columns)`` batches, yielding the reports of each candidate row as it is read.

    While no run is alive only a fresh run can act, so the rows up to the next one
    that a fresh run can take (``ex.starting``) are skipped at once; events are built
    for the candidates actually read, :data:`CHUNK` at a time."""
    relevant = ex.relevant
    assert relevant is not None
    for start, part in batches:
        n = len(part)
        if n < SMALL:   # the vector kernels' fixed cost exceeds the rows' (a partition)
            for u in part.events(offset=start):
                found = ex.step(u)
                if found:
                    ex.flush()
                    yield from found
            continue
        rows, bits = candidates(part, relevant)
        ex.evaluations += n * len(relevant)
        jumps: np.ndarray | None = None
        if ex.starting is not None and ex.fresh_dies:
            opening = np.zeros(n, dtype=bool)
            opening[candidates(part, ex.starting)[0]] = True
            jumps = np.flatnonzero(opening[rows])    # indexes into rows
            ex.evaluations += n * len(ex.starting)
        stamps: list[Any] | None = None
        built: dict[int, list[Event]] = {}
        previous = p = 0
        m = len(rows)
        while p < m:
            if jumps is not None and not ex.groups:
                at = int(np.searchsorted(jumps, p))
                if at == len(jumps):
                    break
                p = int(jumps[at])
            j = int(rows[p])
            if j > previous:
                if stamps is None and (ex.groups or not ex.fresh_dies):
                    stamps = part.ts.to_pylist()
                ex.skip_rows(stamps or (), previous, j)
            chunk = built.get(p // CHUNK)
            if chunk is None:
                lo = p - p % CHUNK
                chunk = built[p // CHUNK] = part.events(rows[lo:lo + CHUNK], offset=start)
            ex.fresh()
            found = ex.advance(chunk[p % CHUNK], int(bits[p]))
            if found:
                ex.flush()
                yield from found
            previous = j + 1
            p += 1
        if n > previous:
            if stamps is None and (ex.groups or not ex.fresh_dies):
                stamps = part.ts.to_pylist()
            ex.skip_rows(stamps or (), previous, n)
