"""``MATCH_RECOGNIZE`` on Spark over one local Parquet file that the Python tasks read
themselves: no row of it in the JVM (issue 30, item 4).

The general door (:mod:`.match_recognize`) has Spark read the file, number its rows,
shuffle them by key (or range-partition them by the ``ORDER BY`` keys) and hand them to
the Python tasks as Arrow. On the stock stream ×10 the JVM's read, shuffle and
row-to-Arrow conversion cost more than one process's whole answer (docs/benchmarks.md,
"Spark: where the V shape's seconds went"). When the DataFrame is exactly one local
Parquet file as Spark reads it (:func:`parquet_source`: an unmodified scan of one file, no
partition columns, every column the recognition reads of a type pyarrow reads as Spark
does), each task of a Spark job of ``n`` rows (``spark.range``) reads the file with
pyarrow instead and hands the matcher exactly the rows the general door would:

- the columns the general door keeps (:func:`.match_recognize._read_columns`), cast to the
  Arrow schema Spark would send, the rows in the file's order, each numbered by its place
  in the file (the general door's ``monotonically_increasing_id`` numbers them in the
  same order, which is all the tasks and the output's order read of it);
- with ``PARTITION BY``, or without it where the recognition runs in one task: task ``j``
  keeps the rows of the SQL partitions :func:`owners` gives it (the single process's
  partitions, :func:`~kleene.engines.match_recognize.order.partition_ranks`, each whole
  in one task) and runs :func:`.match_recognize.recognize_task` over them, the function
  the general door's tasks run;
- without ``PARTITION BY``, in ranges of rows (the rule:
  :mod:`kleene.reference.match_recognize.ranges`, on Spark :mod:`.mr_ranges`): every task
  orders the rows as the single process does
  (:func:`~kleene.engines.match_recognize.order.ordered`), task ``j`` owns the start rows
  ``[⌊jN/n⌋, ⌊(j+1)N/n⌋)`` of that order and takes them widened by the rule's ``before``
  rows before and ``after`` rows after, so it finds every candidate it owns alone
  (:func:`.mr_ranges.found`: the search at a start row reads no row outside that
  widening); one task then keeps the single process's matches among all the candidates
  (:func:`.mr_ranges.chosen`). No edge rows travel.

Every task reads the file's kept columns whole (its rows are spread over every row group
by key, or ordered by keys a row group does not bound), so the job runs
``spark.sparkContext.defaultParallelism`` tasks unless ``--tasks`` says otherwise, and the
path is for files a task holds (a key too large for one is refused as in the general
door, :mod:`.mr_sizes`). The file is opened by its path: the executors must see the
driver's file system (a local master, or ``local-cluster``).
"""

from __future__ import annotations

import heapq
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from urllib.parse import unquote, urlparse

import numpy as np
import pyarrow as pa
from pyspark.sql import DataFrame
from pyspark.sql import types as T
from pyspark.sql.pandas.types import to_arrow_schema

from kleene.engines.match_recognize.order import ordered, partition_ranks
from kleene.engines.spark.mr_ranges import Ranged, chosen, found, from_ipc, to_ipc
from kleene.engines.spark.mr_sizes import row_bytes
from kleene.engines.spark.text_splits import read_by_task
from kleene.engines.spark.worker import task_threads
from kleene.reference.match_recognize.ast import MatchRecognize

#: The Spark types whose values pyarrow reads from Parquet as Spark does (no time zone,
#: no calendar rebasing, no precision of Spark's own): a column of another type read by
#: the recognition keeps the general door.
READABLE = (T.BooleanType, T.ByteType, T.ShortType, T.IntegerType, T.LongType, T.FloatType,
            T.DoubleType, T.StringType)
#: What one range task sends (one row): its number and its candidates (Arrow IPC).
SENT = "part long, cands binary"


@dataclass(frozen=True)
class ParquetSource:
    """One local Parquet file as the tasks read it: its path, the columns read (as the
    file and the DataFrame name them) and the Arrow schema Spark would send them in."""

    path: str
    schema: pa.Schema

    def read(self) -> pa.Table:
        """The columns, every row, in the file's order, as Spark would send them."""
        import pyarrow.parquet as pq  # noqa: PLC0415 (lazy: in the task)

        with pq.ParquetFile(self.path) as parquet:
            table = parquet.read(columns=self.schema.names)
        return table.cast(self.schema)


def parquet_source(df: DataFrame, read: T.StructType) -> ParquetSource | None:
    """The file ``df`` reads, if ``df`` is exactly Spark's scan of one local Parquet file
    (no operator over it, no partition columns) and every column of ``read`` (the columns
    the recognition keeps) is in the file under its name, of a :data:`READABLE` type whose
    Arrow type in the file is the one Spark sends (strings may be large or dictionary
    encoded); else ``None``, and the general door runs."""
    try:
        plan = df._jdf.queryExecution().analyzed()
        if plan.getClass().getSimpleName() != "LogicalRelation":
            return None
        relation = plan.relation()
        if (relation.getClass().getSimpleName() != "HadoopFsRelation"
                or relation.fileFormat().getClass().getSimpleName() != "ParquetFileFormat"
                or relation.partitionSchema().length() != 0):
            return None
        files = df.inputFiles()
    except Exception:  # Spark Connect (no JVM here), a plan of another kind: the general door
        return None
    if len(files) != 1:
        return None
    url = urlparse(files[0])
    local = unquote(url.path) if url.scheme in ("", "file") else None
    if local is None or not os.path.isfile(local):
        return None
    large = str(df.sparkSession.conf.get("spark.sql.execution.arrow.useLargeVarTypes",
                                         "false")).lower() == "true"
    try:
        import pyarrow.parquet as pq  # noqa: PLC0415

        stored = pq.read_schema(local)
    except Exception:  # not readable by pyarrow: Spark's reader says why
        return None
    if not all(isinstance(f.dataType, READABLE) for f in read.fields):
        return None
    schema = to_arrow_schema(read, timezone="UTC", prefers_large_types=large)
    for field in schema:
        if stored.get_field_index(field.name) < 0:   # absent, or named twice
            return None
        kind = stored.field(field.name).type
        if pa.types.is_dictionary(kind):
            kind = kind.value_type
        if kind != field.type and not (pa.types.is_string(field.type) and
                                       pa.types.is_large_string(kind)) and not (
                pa.types.is_large_string(field.type) and pa.types.is_string(kind)):
            return None
    read_by_task(local)
    return ParquetSource(local, schema)


def tasks_frame(df: DataFrame, n: int) -> DataFrame:
    """One row per task (column ``id``), task ``j`` in Spark partition ``j``."""
    return df.sparkSession.range(0, n, 1, n)


def owners(ranks: np.ndarray, n: int) -> np.ndarray:
    """The task (``0 ≤ j < n``) of each row by its partition's rank: the partitions by
    their rows, most first (ties: the partition whose first row is first), each to the
    task with the fewest rows so far (ties: the lower task). Every task computes the same
    from the same ranks."""
    counts = np.bincount(ranks) if len(ranks) else np.zeros(0, dtype=np.int64)
    task = np.zeros(len(counts), dtype=np.int64)
    heap = [(0, j) for j in range(n)]
    for p in np.argsort(-counts, kind="stable").tolist():
        rows, j = heapq.heappop(heap)
        task[p] = j
        heapq.heappush(heap, (rows + int(counts[p]), j))
    return task[ranks]


def keyed_task(source: ParquetSource, clause: MatchRecognize, n: int, row: str,
               recognize: Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]],
               batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """The ``mapInArrow`` function of the keyed path (module docstring): the rows of the
    partitions :func:`owners` gives this task, numbered (``row``) by their place in the
    file, through ``recognize`` (the general door's task)."""
    task_threads()
    for batch in batches:
        for j in batch.column(0).to_pylist():
            table = source.read()
            mine = np.flatnonzero(owners(partition_ranks(clause, table), n) == j)
            rows = table.take(pa.array(mine)).append_column(row, pa.array(mine, pa.int64()))
            yield from recognize(iter(rows.to_batches()))


def keyed_frame(df: DataFrame, source: ParquetSource, clause: MatchRecognize, n: int,
                row: str, recognize: Callable[[Iterator[pa.RecordBatch]],
                                              Iterator[pa.RecordBatch]],
                out: T.StructType) -> DataFrame:
    """The general door's task output (``out``) over ``n`` tasks reading ``source``."""
    return tasks_frame(df, n).mapInArrow(
        partial(keyed_task, source, clause, n, row, recognize), out)


def range_task(source: ParquetSource, job: Ranged, n: int,
               batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """Range ``j`` of ``n`` (module docstring): the candidates at the start rows it owns,
    found over them widened by the rule's rows."""
    task_threads()
    b = job.bounds
    for batch in batches:
        for j in batch.column(0).to_pylist():
            table = source.read()
            order = ordered(job.clause, table)[0]
            total = len(order)
            lo, hi = total * j // n, total * (j + 1) // n
            if lo >= hi:
                continue
            first, last = max(0, lo - b.before), min(total, hi + b.after)
            window = order[first:last]
            data = (table.slice(first, last - first) if _in_place(window, first)
                    else table.take(pa.array(window)))
            if job.sizes is not None:
                job.sizes.check((), data.num_rows, int(row_bytes(data).sum()), where=(
                    "a range of the rows in ORDER BY order (no PARTITION BY)"))
            owned = np.zeros(data.num_rows, dtype=bool)
            owned[lo - first:hi - first] = True
            yield pa.record_batch([pa.array([j], pa.int64()),
                                   pa.array([to_ipc(found(job, data, first, owned))],
                                            pa.binary())], names=["part", "cands"])


def _in_place(window: np.ndarray, first: int) -> bool:
    """Whether the ordered rows ``window`` are the file's rows from ``first`` on (a file
    already in ``ORDER BY`` order: a slice, no copy)."""
    return bool((window == np.arange(first, first + len(window))).all())


def final_task(job: Ranged, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """The single process's matches among every range's candidates, in its order."""
    received = list(batches)
    if not received:
        return
    sent = sorted(pa.Table.from_batches(received).to_pylist(), key=lambda r: r["part"])
    yield from chosen([from_ipc(r["cands"]) for r in sent], job.schema)


def ranged_frame(df: DataFrame, source: ParquetSource, n: int, job: Ranged,
                 out: T.StructType) -> DataFrame:
    """The recognition in ``n`` ranges read from ``source`` (module docstring)."""
    return (tasks_frame(df, n).mapInArrow(partial(range_task, source, job, n), SENT)
            .repartition(1).mapInArrow(partial(final_task, job), out))


def source_and_tasks(df: DataFrame, read: T.StructType,
                     tasks: int | None) -> tuple[ParquetSource, int] | None:
    """:func:`parquet_source` and the number of tasks (``tasks``, else the session's
    default parallelism), or ``None``."""
    source = parquet_source(df, read)
    if source is None:
        return None
    return source, tasks or max(1, df.sparkSession.sparkContext.defaultParallelism)

