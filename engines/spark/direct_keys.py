"""Def. 6 partitions read straight from the parsed splits: no JVM shuffle (issue 33).

The direct slices (:mod:`.direct`) cut a file's events into time slices that overlap by
the pattern's reach (``[b_j − L·τ, b_{j+1} + A·τ]``). Where τ is long beside the
stream that costs much: the 1 M-row click log of ``examples/funnel`` spans about 70
minutes and its funnel's window is 30 minutes, so four slices each hold the rows of
~45 minutes, and the engine stage matched ~2.7 times the rows one process matches. When the
plan has Def. 6 keys (seed 001 Sec. 4.4: the matches of the stream are the union of the
matches of each key's events), a task can instead keep the rows of some keys: task
``j`` of ``n`` reads every parsed split (memory-mapped, :func:`split_rows`) and keeps
the rows whose key :func:`owners` gives it, in position order, and the engine runs on
them as one stream — a stream of whole Def. 6 parts, whose matches are the union of
its parts' matches by the same theorem, mapped back to the file's positions. Rows
that miss a key are in no match and veto no run (:mod:`.layout`): dropped, as the
general layout drops them. Every row is read by each of the ``n`` tasks, but matched
by one; :func:`overlap` says how many times the slices would match each row, and the
runner takes the keys when that is more than :data:`MOST_OVERLAP`.

A key's task is a stable digest of its value (CRC-32 of its text, floats with
``-0.0`` as ``0.0``), the same in every task and every run; it need not be Spark's
hash partitioning, since no row goes through Spark's exchange.
"""

from __future__ import annotations

import bisect
import zlib
from collections.abc import Sequence
from typing import Any

from kleene.engines.spark.csv_arrow import CsvScan
from kleene.engines.spark.csv_arrow import split_events as csv_split_events
from kleene.engines.spark.layout import extent
from kleene.engines.spark.stock_arrow import Scanned, Within, split_events

#: The slices are dropped for the keys when they would match each row more than this
#: many times on average (the funnel above: ~2.7; the stock stream ×10: ~1.0).
MOST_OVERLAP = 1.5


def split_rows(scanned: Scanned | CsvScan, part: int, schema: Any,
               within: Within | None = None) -> Any:
    """The typed rows of split ``part`` of a stock or CSV file (in ``within``: all when
    ``None``), with their positions."""
    if isinstance(scanned, CsvScan):
        return csv_split_events(scanned, part, schema, within)
    return split_events(scanned, part, schema, within)


def overlap(samples: Sequence[int | float], bounds: Sequence[int | float],
            reach: tuple[int, int], tau: int | float) -> float:
    """How many slices hold a sampled timestamp, on average: 1 when the slices do not
    overlap, more as their extended ranges (:func:`.layout.extent`) cover each other."""
    if not samples:
        return 1.0
    ordered = sorted(samples)
    held = 0
    for j in range(len(bounds) + 1):
        first, last = extent(bounds, reach, tau, j)
        held += bisect.bisect_right(ordered, last) - bisect.bisect_left(ordered, first)
    return held / len(ordered)


def _digests(values: Any) -> Any:
    """A stable 32-bit digest of each distinct value of a dictionary."""
    import numpy as np

    return np.fromiter((zlib.crc32(repr(v).encode()) for v in values.to_pylist()),
                       dtype=np.uint64, count=len(values))


def owners(table: Any, keys: Sequence[str], n: int) -> Any:
    """The task (``0 ≤ j < n``) of each row by its key columns, ``-1`` for a row that
    misses a key (null, or a float NaN)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    rows = table.num_rows
    acc = np.zeros(rows, dtype=np.uint64)
    missing = np.zeros(rows, dtype=bool)
    for key in keys:
        column = table.column(key).combine_chunks()
        if pa.types.is_floating(column.type):
            column = pc.if_else(pc.is_nan(column), None, pc.add(column, 0.0))  # -0.0 is 0.0
        encoded = pc.dictionary_encode(column)
        missing |= np.asarray(encoded.is_null().to_numpy(zero_copy_only=False), dtype=bool)
        codes = encoded.indices.fill_null(0).to_numpy(zero_copy_only=False)
        digests = _digests(encoded.dictionary)
        if len(digests):
            acc = (acc * np.uint64(1_000_003)) ^ digests[codes]
    out = (acc % np.uint64(n)).astype(np.int64)
    out[missing] = -1
    return out


def key_rows(scanned: Scanned | CsvScan, schema: Any, keys: Sequence[str], j: int,
             n: int) -> Any:
    """The rows of task ``j`` of ``n``: those of every split whose keys :func:`owners`
    gives ``j``, in position order."""
    import pyarrow as pa

    tables = []
    for span in scanned.spans:
        if span.count:
            table = split_rows(scanned, span.part, schema)
            tables.append(table.filter(pa.array(owners(table, keys, n) == j)))
    return pa.concat_tables(tables) if tables else schema.empty_table()
