"""Time (or position) slices read straight from the parsed splits: no shuffle.

Issue 14 (``local[1]`` within 2× of one process). The general layout
(:mod:`.layout`) hands every event from the reading stage to the JVM, filters
it there (Thm 1 as a Column), copies it into each slice whose extended range
holds it (``explode``), shuffles and sorts. For a stock file read in local
splits (:mod:`.stock_arrow`) the driver already knows, for every split, the
position of its first row, its number of rows and its first and last
timestamps; so the task of slice ``j`` can read the splits that overlap the
slice's extended range itself (:func:`.stock_arrow.split_events`: the batch
the reading job parsed, or the text parsed again where that is not here), keep
the rows in the range (:func:`.layout.extent`, the rows :func:`.layout.slice_column`
would send to slice ``j``), apply the Thm 1 filter over the Arrow columns
(:class:`kleene.engines.columns.ArrowColumns`, the reference's truth of
the condition), and run the engine on them (:func:`.worker.run_groups`, as
in the general path). The engine sees the same rows in the same order — the
rows of slice ``j`` sorted by position — so it reports the same matches. Each
row is validated once (issue 33 item 2): the stream the filter reads is the
engine's, its kept rows taken (:meth:`kleene.data.columnar.Columns.take`).

Used when the plan cuts slices and the events are one stock file (:func:`usable`;
Def. 6 keys, if any, are then not used); every other run keeps the general layout.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from kleene.engines.spark.csv_arrow import CsvScan
from kleene.engines.spark.direct_keys import key_rows, split_rows
from kleene.engines.spark.layout import SLICE, Layout, extent
from kleene.engines.spark.plan import Plan
from kleene.engines.spark.stock_arrow import Scanned
from kleene.engines.spark.worker import Group, Task, group_stream, run_groups, task_threads
from kleene.reference.conditions import Condition
from kleene.reference.events import Stream


@dataclass(frozen=True)
class Source:
    """The parsed splits of a stock or CSV file, as :class:`~.frames.EventFrame` keeps them:
    what :func:`.stock_arrow.scan` learnt, the position column, the events' Arrow
    schema, the number of events kept (``limit``; ``None``: all), and the DataFrame
    of exactly those events (on the driver only: a frame whose ``df`` was changed
    since, filtered say, is not read from the splits)."""

    scanned: Scanned | CsvScan
    position: str
    schema: Any
    limit: int | None = None
    df: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Slices:
    """What each slice task needs beside the :class:`~.worker.Task`: where the rows
    come from, the cut (``bounds``, ``reach``, ``tau``, by position or timestamp),
    the Thm 1 filter and the columns the engine stage reads."""

    source: Source
    bounds: tuple[int | float, ...]
    reach: tuple[int, int]
    tau: int | float
    by_position: bool
    filter: Condition | None
    ts: str
    columns: tuple[str, ...]
    keys: tuple[str, ...] = ()      # :mod:`.direct_keys`: tasks by key, not slices
    parts: int = 0                  # the number of those tasks


def usable(source: Source | None, df: Any, plan: Plan, streams: Sequence[str],
           bounds: Sequence[int | float]) -> bool:
    """Whether a run on the events ``df`` can read its slices straight from the parsed
    splits: they are the splits of ``df``, and the plan cuts slices. Def. 6 keys, if
    the plan has them, are then not used: partitioning is a choice, never needed for
    the matches (the slices alone are sound: :class:`~kleene.reference.pruning.Pruning`'s
    reach), and here it would cost what the direct slices save (every row through the
    JVM, shuffled by key)."""
    return (source is not None and source.df is df and source.scanned.splits is not None
            and plan.reach is not None and plan.tau is not None and len(bounds) > 0
            and not streams)


def for_tasks(source: Source) -> Source:
    """``source`` without its DataFrame (what the tasks receive)."""
    return replace(source, df=None)


def layout(spark: Any, slices: Slices) -> tuple[Any, Layout]:
    """One row per slice (its number, column ``id``), slice ``j`` in Spark partition
    ``j``, and the :class:`~.layout.Layout` the worker reads."""
    if slices.keys:
        return spark.range(0, slices.parts, 1, slices.parts), Layout((), (), False, slices.parts)
    n = len(slices.bounds) + 1
    return (spark.range(0, n, 1, n),
            Layout((SLICE,), slices.bounds, True, n))


def _splits(slices: Slices, first: int | float, last: int | float) -> list[int]:
    """The splits that hold a row with its position (or timestamp) in ``[first, last]``."""
    parts = []
    limit = slices.source.limit
    for span in slices.source.scanned.spans:
        if not span.count or (limit is not None and span.offset >= limit):
            continue
        lo, hi = ((span.offset, span.offset + span.count - 1) if slices.by_position
                  else (span.first, span.last))
        assert lo is not None and hi is not None
        if hi >= first and lo <= last:
            parts.append(span.part)
    return parts


def slice_rows(slices: Slices, task: Task, j: int) -> Group | None:
    """Slice ``j`` as the engine takes it (:data:`.worker.Group`), or ``None`` when no
    row is left: each split's rows in its extended range (found by
    :func:`.stock_arrow.split_events`), sorted by position, validated once as a stream
    (:func:`.worker.group_stream`: a bad value is named as the engine stage names it),
    and the rows that pass the Thm 1 filter kept, of the stream (renumbered) and of the
    columns the engine stage reads alike. Nothing is validated again downstream: the
    filter keeps the columns' types, their order and every check ``group_stream`` made."""
    # lazy: NumPy and Arrow in the task that cuts a slice, not on the driver
    import numpy as np
    import pyarrow as pa

    from kleene.engines.columns import ArrowColumns

    source = slices.source
    if slices.keys:     # task j of the Def. 6 keys (:mod:`.direct_keys`)
        table = key_rows(source.scanned, source.schema, slices.keys, j, slices.parts)
    else:
        first, last = extent(slices.bounds, slices.reach, slices.tau, j)
        within = (None if slices.by_position else slices.ts, first, last)
        tables = [split_rows(source.scanned, part, source.schema, within)
                  for part in _splits(slices, first, last)]
        table = pa.concat_tables(tables) if tables else source.schema.empty_table()
    if source.limit is not None:
        table = table.filter(pa.array(table.column(source.position).to_numpy() < source.limit))
    table = table.select(list(slices.columns))
    if not table.num_rows:
        return None
    stream, origin = group_stream(task, table)
    if slices.filter is not None:
        assert stream.columns is not None
        kept = np.flatnonzero(ArrowColumns(stream.columns).holds(slices.filter))
        if not len(kept):
            return None
        if len(kept) < table.num_rows:
            table, origin = table.take(pa.array(kept)), origin[kept]
            stream = Stream.from_columns(stream.columns.take(kept), stream.time_unit)
    return (j,), table, stream, origin


def run_slices(slices: Slices, task: Task, batches: Iterator[Any]) -> Iterator[Any]:
    """The ``mapInArrow`` function: the engine over each slice this partition names."""
    task_threads()
    for batch in batches:
        for j in batch.column(0).to_pylist():
            group = slice_rows(slices, task, j)
            if group is not None:
                yield from run_groups(task, [group])
