"""Continuous ``MATCH_RECOGNIZE`` on Spark Structured Streaming (issue 30, item 2).

docs/match-recognize-spark.md, "Continuous". The same door and commit as the other
languages' continuous matching (:mod:`.query`, :mod:`.step`, :mod:`.store`): files arrive
in a folder, each micro-batch is one Spark job bringing its rows to the driver, rows
below the event-time watermark are settled, and the output rows that no later row can
change are written once, with the state, by one rename each. What differs is the state
and the rule: per ``PARTITION BY`` key, the rows a search can still read and the cursor
(:mod:`.recognizing`), and the finality of
:mod:`kleene.reference.match_recognize.finality`.

The statement is ``SELECT * FROM <source> MATCH_RECOGNIZE (…)``: the SQL around a
recognition (``WHERE``, ``ORDER BY``, aggregates) reads the whole output, which an
unbounded stream never has; run it over the output folder. The first ``ORDER BY`` key,
ascending, is the event time (the ``--ts`` column, a number or a datetime): a key's rows
arrive in its order up to the watermark's delay. Without ``PARTITION BY`` every row is
one key's (:data:`ONE_KEY`, said once).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from kleene.data.sql import arrow_of
from kleene.engines.spark.match_recognize import _check_columns
from kleene.engines.spark.mr_types import output_schema, typed
from kleene.engines.spark.session import worker_python
from kleene.engines.spark.stream.contract import StreamSetupError, parse_duration
from kleene.engines.spark.stream.query import (
    Continuous,
    check_targets,
    check_timestamp,
    source_format,
    source_schema,
)
from kleene.engines.spark.stream.recognizing import Recognitions
from kleene.engines.spark.stream.step import BATCH, FILE, ROW, Progress, arrive, write_batch
from kleene.engines.spark.stream.store import StateStore
from kleene.reference.budget import Budget
from kleene.reference.errors import Unsupported
from kleene.reference.match_recognize.ast import Column, MatchRecognize, Statement, Subquery
from kleene.reference.match_recognize.expressions import walk
from kleene.reference.match_recognize.features import expressions_of
from kleene.reference.query import Query

#: Said when the clause has no ``PARTITION BY``.
ONE_KEY = ("no PARTITION BY: every row is one key's, recognized in arrival order on the "
           "driver; its state is the rows from the earliest row a match can still start at")
#: The event time of a datetime ``ORDER BY`` key, in epoch milliseconds (internal).
EVENT_MS = "_kleene_event_ms"
_ONLY = re.compile(r"^\s*SELECT\s+\*\s+FROM\s*$", re.IGNORECASE)
_COMMENT = re.compile(r"--[^\n]*|/\*.*?\*/", re.DOTALL)


def streamed_clause(query: Query) -> MatchRecognize:
    """The clause of a statement ``kleene stream`` takes (module docstring), or one line."""
    statement = query.pattern
    assert isinstance(statement, Statement)
    said = ("kleene stream runs SELECT * FROM <source> MATCH_RECOGNIZE (...) alone: the SQL "
            "around a recognition reads its whole output, which a stream never has (run it "
            "over the output folder)")
    if len(statement.recognitions) != 1:
        raise Unsupported(said)
    r = statement.recognitions[0]
    head = _COMMENT.sub(" ", statement.text[:r.start])
    rest = _COMMENT.sub(" ", statement.text[r.end:]).strip().rstrip(";").strip()
    if isinstance(r.source, Statement) or not _ONLY.match(head) \
            or not re.fullmatch(r"(?:AS\s+)?\w*", rest, re.IGNORECASE):
        raise Unsupported(said)
    clause = r.clause
    if any(isinstance(x, Subquery) for e in expressions_of(clause) for x in walk(e)):
        raise Unsupported("a subquery inside MATCH_RECOGNIZE: on a stream, compute it and "
                          "write its value")
    first = clause.order_by[0] if clause.order_by else None
    if first is None or not isinstance(first.expr, Column) or first.descending:
        raise Unsupported("a continuous MATCH_RECOGNIZE needs ORDER BY <event time column> "
                          "(ascending) first: the rows of a key arrive in that order")
    return clause


@dataclass(frozen=True)
class RecognitionSetup:
    """What every micro-batch of one continuous recognition needs (checked before it
    starts): the clause; ``ts`` the numeric event-time column the watermark reads (the
    ``ORDER BY`` column ``event_time``, or :data:`EVENT_MS` beside a datetime one);
    ``fields`` the columns collected (the source's, and ``ts``), ``schema`` their Spark
    schema, ``rows`` the Arrow schema of the source's columns, ``typed`` the output's;
    ``delay`` the watermark's;
    ``numeric`` whether the ``ORDER BY`` key is the number ``ts`` (then the watermark is
    the floor ``WITHIN`` reads)."""

    clause: MatchRecognize
    event_time: str
    ts: str
    fields: tuple[str, ...]
    schema: Any
    rows: pa.Schema
    typed: pa.Schema
    output: str
    output_format: str
    delay: int | float
    numeric: bool
    keep: Callable[[], Any] | None = None
    budget: int | None = None


class StateCache:
    """The last committed state of this run, in memory (else read back after a restart)."""

    def __init__(self) -> None:
        self.batch, self.state = -1, None  # type: tuple[int, Recognitions | None]

    def take(self, setup: RecognitionSetup, store: StateStore, batch: int,
             tables: dict[str, Any]) -> Recognitions:
        state, self.batch, self.state = (self.state if self.batch == batch else None), -1, None
        return state or Recognitions.from_tables(setup.clause, setup.rows, tables)

    def put(self, batch: int, state: Recognitions) -> None:
        self.batch, self.state = batch, state


def run_recognition_batch(setup: RecognitionSetup, store: StateStore, cache: StateCache,
                          batch_df: Any | None, batch_id: int, *,
                          end: bool = False) -> Progress | None:
    """Process micro-batch ``batch_id`` (as :func:`.step.run_batch`: ``None`` when it was
    committed already); the output rows it made final are written to
    ``<output>/batch=k``."""
    import time

    if store.committed(batch_id):
        return None
    began = time.perf_counter()
    prev = store.latest(before=batch_id)
    tail = store.tail(prev)
    state = cache.take(setup, store, prev.batch, tail)
    got = arrive(setup, store, batch_df, batch_id, prev.watermark)
    new, late, bad, job, sink = got.new, got.late, got.bad, got.job_s, got.sink_s
    watermark = math.inf if end else max(prev.watermark, -math.inf if got.max_ts is None
                                         else got.max_ts - setup.delay)
    pending, below = got.pending(tail, [*setup.fields, BATCH, FILE, ROW], setup.ts,
                                 watermark)
    settled = pending.filter(pa.array(below)).sort_by(
        [(BATCH, "ascending"), (FILE, "ascending"), (ROW, "ascending")])
    floor = watermark if setup.numeric and math.isfinite(watermark) else None
    budget = Budget(what="recognizing a row pattern") if setup.budget is None else \
        Budget(limit=setup.budget, what="recognizing a row pattern")
    out = state.advance(settled, floor=floor, ended=end, budget=budget)
    writing = time.perf_counter()
    if out.rows:
        write_batch(store, setup.output, setup.output_format,
                    typed(arrow_of(out, like=setup.rows), setup.typed), batch_id)
    sink += time.perf_counter() - writing
    meta = prev.advanced(batch_id, watermark=watermark, frontier=watermark, ended=end,
                         next_position=prev.next_position + settled.num_rows,
                         add={"events": new.num_rows, "late": int(late.sum()),
                              "rejected": int(bad.sum()), "settled": settled.num_rows,
                              "matches": len(out.rows)})
    committing = time.perf_counter()
    store.commit(batch_id, meta, {"pending": pending.filter(pa.array(~below)),
                                  **state.tables()})
    cache.put(batch_id, state)
    done = time.perf_counter()
    sink += done - committing
    return Progress(batch_id, new.num_rows, int(late.sum()), int(bad.sum()),
                    settled.num_rows, len(out.rows), watermark, watermark, end, job_s=job,
                    driver_s=done - began - job - sink, sink_s=sink, noun="row")


def recognition_setup(clause: MatchRecognize, raw: Any, *, ts: str | None, output: str,
                      watermark: str | int | float | None, time_unit: str | None,
                      budget: int | None) -> tuple[RecognitionSetup, Any]:
    """The setup of ``clause`` over files of Spark schema ``raw`` (every check, one line
    each, before any job), and the expression of its ``ts`` column."""
    from pyspark.sql import functions as F
    from pyspark.sql.pandas.types import to_arrow_schema
    from pyspark.sql.types import LongType, StructField, StructType

    columns = {f.name.upper(): f for f in raw.fields}
    _check_columns(clause, columns)
    first = clause.order_by[0].expr
    assert isinstance(first, Column)
    order = columns[first.name.upper()].name
    if ts is not None and ts.upper() != order.upper():
        raise StreamSetupError(f"--ts {ts}: the event time of a MATCH_RECOGNIZE is its first "
                               f"ORDER BY column, {order}")
    unit = check_timestamp(raw, order, "the source")
    typed = output_schema(clause, raw)
    names = tuple(f.name for f in raw.fields)
    delay = 0 if watermark is None else parse_duration(watermark, unit or time_unit)
    if unit is None:
        event, schema, expr = order, raw, None
    else:
        event, expr = EVENT_MS, F.unix_millis(F.col(order).cast("timestamp"))
        schema = StructType([*raw.fields, StructField(EVENT_MS, LongType())])
    fields = names if unit is None else (*names, EVENT_MS)
    output_format = "jsonl" if output.rstrip("/").endswith((".jsonl", ".json", ".ndjson")) \
        else "parquet"
    setup = RecognitionSetup(clause=clause, event_time=order, ts=event, fields=fields,
                             schema=schema, rows=to_arrow_schema(raw, timezone="UTC"),
                             typed=to_arrow_schema(typed, timezone="UTC"), output=output,
                             output_format=output_format, delay=delay, numeric=unit is None,
                             budget=budget)
    return setup, expr


class ContinuousRecognition(Continuous):
    """The output rows of a ``SELECT * FROM t MATCH_RECOGNIZE (…)`` ``query`` over the
    files arriving in ``source``, each written once to ``output`` when final (module
    docstring); the options as :class:`~.query.ContinuousMatch`'s (``ts``: default and
    only choice the first ``ORDER BY`` column; ``watermark`` default 0: rows arrive in
    order). Every check is made here, before any job; ``notes`` says what to tell the
    user (:data:`ONE_KEY`)."""

    def __init__(self, spark: Any, source: str, query: Query, *, output: str,
                 checkpoint: str, format: str | None = None, ts: str | None = None,
                 time_unit: str | None = None, watermark: str | int | float | None = None,
                 schema: str | None = None, max_files: int | None = None,
                 budget: int | None = None,
                 on_progress: Callable[[Progress], None] | None = None) -> None:
        clause = streamed_clause(query)
        check_targets(source, output=output, checkpoint=checkpoint)
        self.spark, self.source, self.checkpoint = spark, source, checkpoint
        self.on_progress = on_progress
        self.format = source_format(source, format)
        first = clause.order_by[0].expr
        assert isinstance(first, Column)
        self.raw = source_schema(spark, source, self.format, schema, first.name)
        self.setup, expr = recognition_setup(clause, self.raw, ts=ts, output=output,
                                             watermark=watermark, time_unit=time_unit,
                                             budget=budget)
        self.columns = tuple(f.name for f in self.raw.fields)
        self.computed = () if expr is None else ((EVENT_MS, expr),)
        self.max_files = max_files
        self.notes = () if clause.partition_by else (ONE_KEY,)
        worker_python(spark)
        self.store = StateStore(spark, checkpoint)
        if self.store.latest().ended:
            raise StreamSetupError(f"{checkpoint}: this stream was ended (flushed); start "
                                   "again with a new checkpoint and output")
        self.cache = StateCache()
        self.query = None

    def _run(self, batch_df: Any | None, batch_id: int, *, end: bool = False,
             ) -> Progress | None:
        return run_recognition_batch(self.setup, self.store, self.cache, batch_df, batch_id,
                                     end=end)


__all__ = ["EVENT_MS", "ONE_KEY", "ContinuousRecognition", "RecognitionSetup", "StateCache",
           "recognition_setup", "run_recognition_batch", "streamed_clause"]
