"""One micro-batch of a continuous run: settle, number, match, emit what is final.

docs/architecture.md, "Continuous matching". ``foreachBatch`` calls :func:`run_batch`
with batch ``k``'s new rows. From the state of batch ``k − 1``
(:mod:`.store`):

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
   (:meth:`.contract.Finality.keep_from`) go through
   :func:`kleene.engines.spark.runner.match_dataframe` with their positions:
   the engine per partition of the batch runner (keys, slices, ``mapInArrow``).
5. **Emit.** The matches whose first event's ``ts`` lies in
   ``[frontier_prev, frontier)`` are final and not yet written: they are written
   to ``<output>/batch=k`` (one rename), then the state (one rename).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from kleene.engines.protocol import Engine
from kleene.engines.spark.frames import POSITION
from kleene.engines.spark.layout import boundaries
from kleene.engines.spark.runner import match_dataframe, write_matches
from kleene.engines.spark.stream.contract import Finality
from kleene.engines.spark.stream.store import Meta, StateStore, _join

#: Internal columns: the micro-batch, the file and the row of arrival; the reason a
#: row was set aside.
BATCH, FILE, ROW, REASON = "_kleene_batch", "_kleene_file", "_kleene_row", "_kleene_reason"

#: The column of a malformed CSV or JSON row (the reader's corrupt-record column).
CORRUPT = "_kleene_corrupt"


@dataclass(frozen=True)
class Setup:
    """What every micro-batch of one query needs (checked before it starts).

    ``fields`` are the event columns kept (timestamp, type, the attributes the
    pattern reads, the ``columns`` copied to each match row); ``keep`` the Thm 1
    filter as a Column factory (``None``: keep every event); ``schema`` the Spark
    schema of the kept event columns."""

    engine: Engine
    pattern: Any
    policy: str
    finality: Finality
    ts: str
    type: str | None
    time_unit: str | None
    fields: tuple[str, ...]
    columns: tuple[str, ...]
    output: str
    output_format: str
    schema: Any
    keep: Callable[[], Any] | None = None
    tasks: int | None = None


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

    def line(self) -> str:
        def at(x: float) -> str:
            if not math.isfinite(x):
                return "end" if x > 0 else "start"
            return str(int(x)) if x.is_integer() else f"{x:g}"

        extra = f", {self.late} late" if self.late else ""
        extra += f", {self.rejected} rejected" if self.rejected else ""
        return (f"batch {self.batch}: {self.events} events{extra}, {self.settled} settled, "
                f"{self.matches} match{'' if self.matches == 1 else 'es'} final (watermark "
                f"{at(self.watermark)}, "
                f"final before ts {at(self.frontier)})")


def _read(spark: Any, path: str | None, schema: Any) -> Any:
    if path is None:
        return spark.createDataFrame([], schema)
    return spark.read.schema(schema).parquet(path)


def _pending_schema(setup: Setup) -> Any:
    from pyspark.sql.types import LongType, StringType, StructField, StructType

    return StructType([*setup.schema.fields, StructField(BATCH, LongType()),
                       StructField(FILE, StringType()), StructField(ROW, LongType())])


def _kept_schema(setup: Setup) -> Any:
    from pyspark.sql.types import LongType, StructField, StructType

    return StructType([*setup.schema.fields, StructField(POSITION, LongType())])


def arrivals(setup: Setup, batch_df: Any, batch_id: int) -> Any:
    """Batch ``batch_id``'s rows with their arrival order (file, row within it)."""
    from pyspark.sql import functions as F

    df = batch_df.withColumn(FILE, F.input_file_name()) \
        .withColumn(ROW, F.monotonically_increasing_id()).withColumn(BATCH, F.lit(batch_id))
    reason = F.when(F.col(setup.ts).isNull(), F.lit("missing timestamp"))
    if CORRUPT in batch_df.columns:
        reason = F.when(F.col(CORRUPT).isNotNull(),
                        F.concat(F.lit("malformed row: "), F.substring(F.col(CORRUPT), 1, 80))) \
            .otherwise(reason)
    return df.withColumn(REASON, reason)


def _set_aside(setup: Setup, rows: Any, batch_id: int) -> None:
    path = _join(setup.output, "_late", f"batch={batch_id}")
    rows.write.mode("overwrite").json(path)


def _owned(matches: Any, ts: str, low: float, high: float) -> Any:
    """The match rows of the matches whose first event has ``low ≤ ts < high``."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    first_ts = F.min(F.col(ts)).over(Window.partitionBy("match_id"))
    owned = matches.withColumn("_first_ts", first_ts)
    cond = F.col("_first_ts") < F.lit(high) if math.isfinite(high) else F.lit(True)
    if math.isfinite(low):
        cond = cond & (F.col("_first_ts") >= F.lit(low))
    return owned.filter(cond).drop("_first_ts")


def run_batch(setup: Setup, store: StateStore, batch_df: Any, batch_id: int, *,
              end: bool = False) -> Progress | None:
    """Process micro-batch ``batch_id`` (``end``: declare the end of the stream and
    flush); ``None`` when it was already committed (a batch run again after a crash)."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    if store.committed(batch_id):
        return None
    spark, fin, ts = store.spark, setup.finality, setup.ts
    prev = store.latest(before=batch_id)
    new = arrivals(setup, batch_df, batch_id).persist()
    is_late = F.col(ts) < F.lit(prev.watermark) if math.isfinite(prev.watermark) \
        else F.lit(False)
    stats = new.agg(F.count(F.lit(1)).alias("n"),
                    F.max(F.when(F.col(REASON).isNull(), F.col(ts))).alias("max_ts"),
                    F.min(F.when(F.col(REASON).isNull(), F.col(ts))).alias("min_ts"),
                    F.sum(F.when(F.col(REASON).isNotNull(), 1).otherwise(0)).alias("bad"),
                    F.sum(F.when(F.col(REASON).isNull() & is_late, 1).otherwise(0))
                    .alias("late")).first()
    events, bad, late = int(stats["n"]), int(stats["bad"] or 0), int(stats["late"] or 0)
    if bad or late:
        aside = new.filter(F.col(REASON).isNotNull() | is_late) \
            .withColumn(REASON, F.coalesce(F.col(REASON), F.lit("late: ts below the watermark")))
        _set_aside(setup, aside.drop(BATCH, ROW).withColumnRenamed(FILE, "file")
                   .withColumnRenamed(REASON, "reason"), batch_id)
    watermark = math.inf if end else fin.watermark(prev.watermark, stats["max_ts"])
    fresh = new.filter(F.col(REASON).isNull() & ~is_late).select(*_pending_schema(setup).names)
    pending = _read(spark, store.table(prev, "pending"), _pending_schema(setup)).unionByName(fresh)
    below = F.col(ts) < F.lit(watermark) if math.isfinite(watermark) else F.lit(True)
    order = Window.orderBy(F.col(ts), F.col(BATCH), F.col(FILE), F.col(ROW))
    settled = pending.filter(below).withColumn(
        POSITION, (F.row_number().over(order) + F.lit(prev.next_position - 1)).cast("long")
    ).persist()
    n_settled = settled.count()
    kept_new = settled if setup.keep is None else settled.filter(setup.keep())
    kept = _read(spark, store.table(prev, "kept"), _kept_schema(setup)) \
        .unionByName(kept_new.select(*_kept_schema(setup).names))
    frontier = fin.frontier(watermark)
    written = 0
    if frontier > prev.frontier:
        span = (fin.keep_from(prev.frontier) if math.isfinite(prev.frontier) else stats["min_ts"],
                frontier if math.isfinite(frontier) else stats["max_ts"])
        written = _emit(setup, store, kept, prev.frontier, frontier, batch_id,
                        _slices(setup, spark, span))
    staging = store.staging(batch_id)
    if math.isfinite(watermark):
        pending.filter(~below).write.parquet(_join(staging, "pending"))
        keep_from = fin.keep_from(frontier)
        kept.filter(F.col(ts) >= F.lit(keep_from) if math.isfinite(keep_from) else F.lit(True)) \
            .write.parquet(_join(staging, "kept"))
    meta = prev.advanced(batch_id, watermark=watermark, frontier=frontier,
                         next_position=prev.next_position + n_settled, ended=end,
                         add={"events": events, "late": late, "rejected": bad,
                              "settled": n_settled, "matches": written})
    store.commit(batch_id, meta)
    settled.unpersist()
    new.unpersist()
    return Progress(batch_id, events, late, bad, n_settled, written, watermark, frontier, end)


def _slices(setup: Setup, spark: Any, span: tuple[Any, Any]) -> Sequence[float] | None:
    """Time-slice boundaries cut evenly over ``span`` (the timestamps a batch's matches
    start in), so the batch runner needs no sampling job; ``None`` (sample) when the
    span is unknown. Boundaries only balance the work: any cut is sound."""
    low, high = span
    if low is None or high is None or not math.isfinite(low) or not math.isfinite(high) \
            or high <= low:
        return None
    count = setup.tasks or spark.sparkContext.defaultParallelism
    fin = setup.finality
    gap = 4 * sum(fin.reach) * fin.tau
    return boundaries([low + (high - low) * j / (count * 4) for j in range(count * 4 + 1)],
                      count, min_gap=gap)


def _emit(setup: Setup, store: StateStore, kept: Any, low: float, high: float,
          batch_id: int, slices: Sequence[float] | None) -> int:
    """Write the matches final in ``[low, high)``; their number."""
    columns: Sequence[str] = tuple(dict.fromkeys([setup.ts, *setup.columns]))
    matches = match_dataframe(kept, setup.pattern, engine=setup.engine, policy=setup.policy,
                              ts=setup.ts, type=setup.type, time_unit=setup.time_unit,
                              position=POSITION, columns=columns,
                              tasks=setup.tasks or store.spark.sparkContext.defaultParallelism,
                              slices=slices)
    owned = _owned(matches, setup.ts, low, high).persist()
    count = owned.select("match_id").distinct().count()
    target = _join(setup.output, f"batch={batch_id}")
    if count and not store.fs.exists(target):
        staging = _join(setup.output, f"_staging-{batch_id}")
        store.fs.delete(staging)
        write_matches(owned, staging, format=setup.output_format)
        store.fs.rename(staging, target)
    owned.unpersist()
    return count


__all__ = ["BATCH", "CORRUPT", "FILE", "REASON", "ROW", "Meta", "Progress", "Setup",
           "arrivals", "run_batch"]
