"""One micro-batch of a continuous run: settle, number, match, emit what is final.

docs/architecture.md, "Continuous matching". ``foreachBatch`` calls :func:`run_batch`
with batch ``k``'s new rows. Each micro-batch is **one Spark job**: its rows,
with their arrival order (file, row), the reason a row is rejected and the
Thm 1 filter's verdict computed in the JVM, come to the driver as one Arrow
table (:func:`arrivals`). The rest runs on the driver over Arrow columns, with
the state of batch ``k − 1`` (:mod:`.store`: the window's tail, kept in
memory between batches and committed with the output):

1. **Late and bad rows.** A row whose ``ts`` is below the previous watermark
   arrived after the stream was settled up to it; a row without a timestamp, or
   one the reader could not parse, has no place either. Both are counted and
   written to ``<output>/_late/batch=k`` with the reason; nothing is dropped silently.
2. **Watermark.** ``W = max(W_prev, max ts − delay)``
   (:meth:`.contract.Finality.watermark`); at the declared end of the stream,
   ``W = ∞``.
3. **Settle and number.** The pending events (kept from earlier batches, and
   this batch's) with ``ts < W`` can no longer be preceded by an arriving event;
   they get their stream positions in the order (``ts``, batch, file, row in
   the file): the stable sort by timestamp of the arrival order, which is what
   ``kleene match --sort`` does on the files concatenated in arrival order.
4. **Match.** The settled events that pass the Thm 1 filter (the pushdown of
   the batch runner) and that a match not yet final can read
   (:meth:`.contract.Finality.keep_from`) go through the engine with their
   positions, by :func:`kleene.engines.spark.worker.run_partition` (what each
   task of the batch runner runs), on the driver: after the filter they are
   few (the window's tail and this batch's relevant events), and the second
   Spark job this took before (a shuffle, the engine in ``mapInArrow``, a
   write, each a job) cost seconds per micro-batch whatever its size.
5. **Emit.** The matches whose first event's ``ts`` lies in
   ``[frontier_prev, frontier)`` are final and not yet written: they are written
   to ``<output>/batch=k`` (one rename), then the state (one rename).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from kleene.engines.protocol import Engine, Query
from kleene.engines.spark.frames import POSITION
from kleene.engines.spark.runner import job_errors
from kleene.engines.spark.stream.contract import Finality
from kleene.engines.spark.stream.store import Meta, StateStore, _join
from kleene.engines.spark.worker import Task, run_partition

#: Internal columns: the micro-batch, the file and the row of arrival; the reason a
#: row was set aside.
BATCH, FILE, ROW, REASON = "_kleene_batch", "_kleene_file", "_kleene_row", "_kleene_reason"

#: Internal column: the row passes the Thm 1 filter (a match can read it).
KEEP = "_kleene_keep"

#: The column of a malformed CSV or JSON row (the reader's corrupt-record column).
CORRUPT = "_kleene_corrupt"


@dataclass(frozen=True)
class Setup:
    """What every micro-batch of one query needs (checked before it starts).

    ``fields`` are the event columns kept (timestamp, type, the ``attributes``
    the pattern reads, the ``columns`` copied to each match row); ``keep`` the Thm 1
    filter as a Column factory (``None``: keep every event); ``schema`` the Spark
    schema of the kept event columns."""

    engine: Engine
    query: Query
    finality: Finality
    ts: str
    type: str | None
    fields: tuple[str, ...]
    attributes: tuple[str, ...]
    columns: tuple[str, ...]
    output: str
    output_format: str
    schema: Any
    keep: Callable[[], Any] | None = None
    budget: int | None = None           # each micro-batch's step budget (None: the defaults)


class Arriving(Protocol):
    """What :func:`arrivals`, :func:`_collect` and :func:`_set_aside` read of a query's
    setup (:class:`Setup`; a continuous ``MATCH_RECOGNIZE``'s, :mod:`.recognition`): the
    timestamp column, the event columns kept, the filter, their Spark schema, the output."""

    @property
    def ts(self) -> str: ...

    @property
    def fields(self) -> tuple[str, ...]: ...

    @property
    def keep(self) -> Callable[[], Any] | None: ...

    @property
    def schema(self) -> Any: ...

    @property
    def output(self) -> str: ...


@dataclass(frozen=True)
class Progress:
    """What one micro-batch did (``matches``: the matches it made final and wrote)."""

    batch: int
    events: int
    late: int
    rejected: int
    settled: int
    matches: int
    watermark: float
    frontier: float
    ended: bool = False
    #: Wall seconds of this micro-batch's parts: the Spark job (the rows to the driver
    #: as Arrow), the driver (late rows, settling, numbering, matching) and the sink
    #: (writing the matches, the late rows and the state).
    job_s: float = 0.0
    driver_s: float = 0.0
    sink_s: float = 0.0
    #: What ``matches`` counts: matches, or a ``MATCH_RECOGNIZE``'s output rows.
    noun: str = "match"

    def line(self) -> str:
        def at(x: float) -> str:
            if not math.isfinite(x):
                return "end" if x > 0 else "start"
            return str(int(x)) if float(x).is_integer() else f"{x:g}"

        suffix = "" if self.matches == 1 else "es" if self.noun == "match" else "s"
        extra = f", {self.late} late" if self.late else ""
        extra += f", {self.rejected} rejected" if self.rejected else ""
        return (f"batch {self.batch}: {self.events} events{extra}, {self.settled} settled, "
                f"{self.matches} {self.noun}{suffix} final (watermark "
                f"{at(self.watermark)}, "
                f"final before ts {at(self.frontier)})")


def arrivals(setup: Arriving, batch_df: Any, watermark: float) -> Any:
    """A batch's rows as the driver receives them: the timestamp; the other event
    columns only where a match or the late-row output can need them (the row
    passes the Thm 1 filter, :data:`KEEP`, or is late or rejected), else null;
    the name of the row's file (:data:`FILE`); the reason a row is rejected
    (``null``: none); all computed in the JVM. A row's place in its file is its
    place in the collected table (:func:`_collect`)."""
    from pyspark.sql import functions as F

    ts = F.col(setup.ts)
    reason = F.when(ts.isNull(), F.lit("missing timestamp"))
    if CORRUPT in batch_df.columns:
        reason = F.when(F.col(CORRUPT).isNotNull(),
                        F.concat(F.lit("malformed row: "), F.substring(F.col(CORRUPT), 1, 80))) \
            .otherwise(reason)
    keep = F.lit(True) if setup.keep is None else F.coalesce(setup.keep(), F.lit(False))
    needed = keep | reason.isNotNull()
    if math.isfinite(watermark):
        needed = needed | (ts < F.lit(watermark))
    return batch_df.select(ts, *(F.when(needed, F.col(c)).alias(c)
                                 for c in setup.fields if c != setup.ts),
                           F.input_file_name().alias(FILE), reason.alias(REASON),
                           keep.alias(KEEP))


def _collect(setup: Arriving, batch_df: Any, batch_id: int, watermark: float) -> Any:
    """The one Spark job of a micro-batch: :func:`arrivals` as an Arrow table, with
    :data:`BATCH`, :data:`FILE` as the rank of the file among the batch's files
    sorted by name (1, 2, ...; the names returned, ``[None, *names]``) and
    :data:`ROW` as the row's index in the table.

    The index orders a file's rows as they were read: the table holds Spark's
    partitions in order (PySpark reorders the Arrow batches by partition, which
    is what makes ``orderBy(...).toArrow()`` sorted) and a partition reads its
    files' rows in order. The names travel (about 40 bytes a row) and are ranked
    here, through a dictionary of the few distinct names: comparing every row's
    name with the batch's list in the JVM (``array_position``) cost more than
    shipping it, about 1 s per million rows at 120 files a batch."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    with job_errors():
        new = arrivals(setup, batch_df, watermark).toArrow()
    names = pc.dictionary_encode(new.column(FILE)).combine_chunks()
    order = pc.rank(names.dictionary, sort_keys="ascending")     # distinct: 1..n
    rank = pc.take(order, names.indices).cast(pa.int64())
    files = sorted(names.dictionary.to_pylist())
    n = new.num_rows
    new = new.set_column(new.schema.get_field_index(FILE), FILE, rank)
    new = new.append_column(ROW, pa.array(np.arange(n, dtype=np.int64)))
    new = new.append_column(BATCH, pa.array(np.full(n, batch_id, dtype=np.int64)))
    return new, [None, *files]


def _no_rows(setup: Arriving) -> Any:
    """An empty table of :func:`arrivals`'s columns (the end of the stream: no job)."""
    import pyarrow as pa
    from pyspark.sql.pandas.types import to_arrow_schema

    events = to_arrow_schema(setup.schema)
    return pa.schema([events.field(n) for n in setup.fields]).append(
        pa.field(FILE, pa.int64())).append(pa.field(REASON, pa.string())).append(
        pa.field(KEEP, pa.bool_())).append(pa.field(ROW, pa.int64())).append(
        pa.field(BATCH, pa.int64())).empty_table()


def _concat(*tables: Any) -> Any:
    import pyarrow as pa

    present = [t for t in tables if t is not None]
    return pa.concat_tables(present, promote_options="default") if len(present) > 1 \
        else present[0]


def _mask(values: Any) -> Any:
    import numpy as np

    return np.asarray(values, dtype=bool)


def _numbers(table: Any, column: str) -> Any:
    """A numeric column as an array: integers without nulls stay integers (nanoseconds
    since 1970 are above 2^53, where floats round), else floats (a null becomes NaN:
    below no bound)."""
    import numpy as np
    import pyarrow as pa

    values = table.column(column)
    if pa.types.is_integer(values.type) and values.null_count == 0:
        return np.asarray(values.to_numpy(), dtype=np.int64)
    return np.asarray(values.to_numpy(zero_copy_only=False), dtype=float)


@dataclass(frozen=True)
class Arrival:
    """A micro-batch's rows as they arrived (:func:`arrive`): the table of
    :func:`arrivals` (``new``), its rows' timestamps (``stamps``), the masks of the rows
    rejected (``bad``), late (below the previous watermark) and kept (``good``), the kept
    rows' largest timestamp (``None``: none), and the wall seconds of the Spark job and of
    writing the rows set aside."""

    new: Any
    stamps: Any
    bad: Any
    late: Any
    good: Any
    max_ts: int | float | None
    job_s: float
    sink_s: float

    def pending(self, tail: dict[str, Any], columns: Sequence[str], ts: str,
                watermark: float) -> tuple[Any, Any]:
        """The rows not yet settled (``tail``'s, then the kept new rows' ``columns``) and
        the mask of those whose ``ts`` is below ``watermark``, settled now."""
        import pyarrow as pa

        fresh = self.new.filter(pa.array(self.good)).select(list(columns))
        pending = _concat(tail.get("pending"), fresh)
        return pending, _numbers(pending, ts) < watermark


def arrive(setup: Arriving, store: StateStore, batch_df: Any | None, batch_id: int,
           watermark: float) -> Arrival:
    """Micro-batch ``batch_id``'s rows (``batch_df`` ``None``: none, no job), split as
    every continuous query splits them (module docstring, 1): rejected and late rows
    (below ``watermark``, the previous one) written aside with the reason, the others
    kept; shared by :func:`run_batch` and the continuous ``MATCH_RECOGNIZE``
    (:mod:`.recognition`)."""
    import time

    began = time.perf_counter()
    new, files = (_no_rows(setup), [None]) if batch_df is None else \
        _collect(setup, batch_df, batch_id, watermark)
    job = time.perf_counter() - began
    stamps = _numbers(new, setup.ts)
    bad = _mask(new.column(REASON).is_valid())
    late = ~bad & (stamps < watermark)
    good = ~bad & ~late
    sink = 0.0
    if bad.any() or late.any():
        aside = time.perf_counter()
        _set_aside(setup, store, new, bad, late, batch_id, files)
        sink = time.perf_counter() - aside
    max_ts = stamps[good].max().item() if good.any() else None
    return Arrival(new, stamps, bad, late, good, max_ts, job, sink)


def run_batch(setup: Setup, store: StateStore, batch_df: Any | None, batch_id: int, *,
              end: bool = False) -> Progress | None:
    """Process micro-batch ``batch_id`` (``batch_df`` ``None``: no new rows; ``end``:
    declare the end of the stream and flush); ``None`` when it was already committed
    (a batch run again after a crash)."""
    import time

    import numpy as np
    import pyarrow as pa

    if store.committed(batch_id):
        return None
    fin, ts = setup.finality, setup.ts
    began = time.perf_counter()
    prev = store.latest(before=batch_id)
    tail = store.tail(prev)
    got = arrive(setup, store, batch_df, batch_id, prev.watermark)
    new, late, bad = got.new, got.late, got.bad
    job, sink = got.job_s, got.sink_s
    watermark = math.inf if end else fin.watermark(prev.watermark, got.max_ts)
    pending, below = got.pending(tail, [*setup.fields, BATCH, FILE, ROW, KEEP], ts, watermark)
    settled = pending.filter(pa.array(below)).sort_by(
        [(ts, "ascending"), (BATCH, "ascending"), (FILE, "ascending"), (ROW, "ascending")])
    n_settled = settled.num_rows
    settled = settled.append_column(POSITION, pa.array(
        np.arange(prev.next_position, prev.next_position + n_settled, dtype=np.int64)))
    kept_new = settled.filter(settled.column(KEEP)).select([*setup.fields, POSITION])
    kept = _concat(tail.get("kept"), kept_new)
    frontier = fin.frontier(watermark)
    written = 0
    if frontier > prev.frontier:
        written, wrote = _emit(setup, store, kept, prev.frontier, frontier, batch_id)
        sink += wrote
    keep_from = fin.keep_from(frontier)
    meta = prev.advanced(batch_id, watermark=watermark, frontier=frontier,
                         next_position=prev.next_position + n_settled, ended=end,
                         add={"events": new.num_rows, "late": int(late.sum()),
                              "rejected": int(bad.sum()), "settled": n_settled,
                              "matches": written})
    state = {"pending": pending.filter(pa.array(~below)),
             "kept": kept.filter(pa.array(_numbers(kept, ts) >= keep_from))}
    committing = time.perf_counter()
    store.commit(batch_id, meta, state)
    done = time.perf_counter()
    sink += done - committing
    return Progress(batch_id, new.num_rows, int(late.sum()), int(bad.sum()), n_settled,
                    written, watermark, frontier, end, job_s=job,
                    driver_s=done - began - job - sink, sink_s=sink)


def _set_aside(setup: Arriving, store: StateStore, new: Any, bad: Any, late: Any,
               batch_id: int, files: Sequence[str | None]) -> None:
    """Write the late and rejected rows of a batch, with the reason, as JSON Lines."""
    import pyarrow as pa

    aside = new.filter(pa.array(bad | late))
    reasons = [r if r is not None else "late: ts below the watermark"
               for r in aside.column(REASON).to_pylist()]
    rows = aside.select(list(setup.fields)).to_pylist()
    for row, file, reason in zip(rows, aside.column(FILE).to_pylist(), reasons, strict=True):
        row["file"], row["reason"] = files[file], reason
    folder = _join(setup.output, "_late", f"batch={batch_id}")
    store.fs.delete(folder)
    store.fs.write_bytes(_join(folder, "part-00000.json"), _json_lines(rows))


def _json_lines(rows: Sequence[dict[str, Any]]) -> bytes:
    import json

    return "".join(json.dumps(r, default=str) + "\n" for r in rows).encode()


def _task(setup: Setup, events: Any, columns: Sequence[str]) -> Task:
    """The batch runner's task over one group holding every kept event."""
    import pyarrow as pa

    schema = pa.schema([pa.field("match_id", pa.string(), False),
                        pa.field("first", pa.int64()), pa.field("variable", pa.string()),
                        pa.field("position", pa.int64()),
                        *(events.schema.field(c) for c in columns)])
    return Task(engine=setup.engine, query=setup.query, ts=setup.ts, type=setup.type,
                position=POSITION,
                attributes=setup.attributes, groups=(), streams=(), columns=tuple(columns),
                slice_column=None, bounds=(), schema=schema, budget=setup.budget)


def _emit(setup: Setup, store: StateStore, kept: Any, low: float, high: float,
          batch_id: int) -> tuple[int, float]:
    """Write the matches whose first event's ``ts`` lies in ``[low, high)``; their number
    and the wall seconds the writing took."""
    import time

    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    if not kept.num_rows:
        return 0, 0.0
    columns = tuple(dict.fromkeys([setup.ts, *setup.columns]))
    task = _task(setup, kept, columns)
    rows = pa.Table.from_batches(list(run_partition(task, iter(kept.to_batches()))),
                                 schema=task.schema)
    positions = kept.column(POSITION).to_numpy()
    first_ts = _numbers(kept, setup.ts)[np.searchsorted(positions,
                                                        rows.column("first").to_numpy())]
    owned = rows.filter(pa.array((first_ts >= low) & (first_ts < high)))
    count = int(pc.count_distinct(owned.column("match_id")).as_py()) if owned.num_rows else 0
    began = time.perf_counter()
    if count:
        write_batch(store, setup.output, setup.output_format, owned, batch_id)
    return count, time.perf_counter() - began


def write_batch(store: StateStore, output: str, output_format: str, rows: Any,
                batch_id: int) -> None:
    """The Arrow table ``rows`` as ``<output>/batch=k`` in ``output_format`` (``parquet``
    or JSON Lines), through a staging folder renamed into place; nothing when a run
    before a crash committed it (the exactly-once sink, docs/spark.md)."""
    import pyarrow as pa

    target = _join(output, f"batch={batch_id}")
    if store.fs.exists(target):
        return
    staging = _join(output, f"_staging-{batch_id}")
    store.fs.delete(staging)
    if output_format == "parquet":
        import pyarrow.parquet as pq

        sink = pa.BufferOutputStream()
        pq.write_table(rows, sink)
        data, name = sink.getvalue().to_pybytes(), "part-00000.parquet"
    else:
        data, name = _json_lines(rows.to_pylist()), "part-00000.json"
    store.fs.write_bytes(_join(staging, name), data)
    store.fs.rename(staging, target)


__all__ = ["BATCH", "CORRUPT", "FILE", "KEEP", "REASON", "ROW", "Arrival", "Arriving", "Meta",
           "Progress", "Setup", "arrivals", "arrive", "run_batch", "write_batch"]
