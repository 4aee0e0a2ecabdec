"""Continuous matching over Spark Structured Streaming: the Python API (issue 14, item 2).

docs/architecture.md, "Continuous matching". A :class:`ContinuousMatch` reads a
directory where event files arrive (CSV with a header, JSON Lines or Parquet;
Spark's file source takes them in order of modification time), and writes every
match once, when it is final (:mod:`.contract`), to ``output`` (Parquet or JSON
Lines, one ``batch=k`` folder per micro-batch that made matches final), with
its state in ``checkpoint`` (:mod:`.store`). Everything a user can get wrong is
checked in the constructor, before any query starts: the pattern and policy,
whether its matches can be decided before the stream ends, the watermark, the
source's columns and the timestamp's type, and a checkpoint whose stream was
ended. ``source`` may be a glob (``'in/*.csv'``), as Spark's file source reads
it. Socket and Kafka sources are not offered: neither is installed here (the
Kafka source needs the ``spark-sql-kafka`` package), and a socket source cannot
be replayed after a crash, so it could not give exactly-once output.

Example::

    run = ContinuousMatch(spark, "in/", pattern_text, output="out/matches.parquet",
                          checkpoint="ckpt/", ts="ts", time_unit="ms")
    query = run.start()             # continuous; or run.run_available() then run.end()

**Why foreachBatch with an explicit state store** (not ``applyInPandasWithState``
or ``transformWithState``): a match's verdict and the events' positions depend
on the whole stream's order, not on one key's events (an unkeyed pattern would
put every event in one key's state, and positions are global).
``foreachBatch`` hands each micro-batch to :func:`.step.run_batch` (one Spark
job, then the driver); the state is versioned by batch id next to Spark's
offset log, so a batch run again after a crash
recomputes the same output and finds it committed: exactly-once output with a
replayable file source, where the stateful operators would give it only
through Spark's own sinks.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Callable, Sequence
from typing import Any

from kleene.data.loaders import detect_format
from kleene.data.outputs import OutputError, refuse_inputs
from kleene.engines.protocol import Engine, Query
from kleene.engines.spark.frames import _check_columns, _csv, check_ddl
from kleene.engines.spark.plan import attributes_read
from kleene.engines.spark.pushdown import to_column
from kleene.engines.spark.runner import engine_for
from kleene.engines.spark.session import worker_python
from kleene.engines.spark.stream.contract import StreamSetupError, finality
from kleene.engines.spark.stream.step import CORRUPT, Progress, Setup, run_batch
from kleene.engines.spark.stream.store import StateStore, _join
from kleene.engines.spark.text_splits import local_path
from kleene.reference.errors import StreamError
from kleene.reference.pattern import Pattern

#: The source formats (``--format``), as the loaders name them.
FORMATS = ("csv", "jsonl", "parquet")

_NUMERIC = ("tinyint", "smallint", "int", "bigint", "float", "double")
_DATETIME = ("timestamp", "timestamp_ntz", "date")


def _local_files(source: str) -> list[str]:
    """The files present in a local source directory, or matching a local glob."""
    path = source.removeprefix("file://")
    if "://" in path:
        return []
    if any(c in path for c in "*?["):
        return sorted(os.path.basename(p) for p in glob.glob(path))
    if not os.path.isdir(path):
        return []
    return sorted(n for n in os.listdir(path) if not n.startswith((".", "_")))


def source_format(source: str, format: str | None) -> str:
    """The format named, or the one of the files present."""
    if format is not None:
        if format not in FORMATS:
            raise StreamSetupError(f"unknown source format {format!r}; use one of "
                                   f"{', '.join(FORMATS)}")
        return format
    files = _local_files(source)
    if not files:
        raise StreamSetupError(f"{source}: no file yet to tell the format from; give "
                               "--format csv, jsonl or parquet")
    found = detect_format(files[0])
    if found not in FORMATS:
        raise StreamSetupError(f"{source}: {files[0]} is {found}; a continuous source holds "
                               f"{', '.join(FORMATS)} files")
    return found


def source_schema(spark: Any, source: str, fmt: str, ddl: str | None, ts: str = "ts") -> Any:
    """The columns of the arriving files: declared (``ddl``), or read from the files
    present (CSV cells typed as :mod:`kleene.engines.spark.text_columns` types them; a
    CSV or JSON Lines ``ts`` column typed text only by some cells:
    :func:`_timestamp_type`)."""
    if ddl is not None:
        check_ddl(spark, ddl)
        return spark.createDataFrame([], ddl).schema
    if not _local_files(source) and "://" not in source.removeprefix("file://"):
        if not os.path.isdir(source) and not any(c in source for c in "*?["):
            raise StreamSetupError(f"{source}: no such directory")
        raise StreamSetupError(f"{source}: no file yet to read the columns from; declare "
                               "them with --schema, e.g. 'ts BIGINT, type STRING'")

    if fmt == "parquet":
        df = spark.read.parquet(source)
    else:
        df = _csv(spark, source, None)[0] if fmt == "csv" else spark.read.json(source)
        df = df.withColumn(ts, df[ts].cast(_timestamp_type(df, ts))) \
            if ts in df.columns else df
    from pyspark.sql.types import StructType

    return StructType([f for f in df.schema.fields if f.name not in (CORRUPT,
                                                                      "_corrupt_record")])


#: The types a CSV ``ts`` column's cells are tried as, in order of preference.
_TS_TYPES = ("bigint", "double", "timestamp")


def _timestamp_type(df: Any, ts: str) -> str:
    """The type of a CSV or JSON Lines ``ts`` column read as text because some of its
    cells are not numbers (``abc``, ``"abc"``): the type under which the most cells read
    (``bigint``, else ``double``, else ``timestamp``), so that the file's other rows are
    events and those cells are malformed rows, written with the reason to
    ``OUTPUT/_late`` (docs/spark.md, "Continuous matching"); ``string`` when no cell reads as
    any (then refused: :func:`check_timestamp`). Another type is kept."""
    from pyspark.sql import functions as F

    kind = df.schema[ts].dataType.simpleString()
    if kind != "string":
        return str(kind)
    name = ts.replace("`", "``")
    counts = df.select(*(F.count(F.expr(f"try_cast(`{name}` AS {t})")).alias(t)
                         for t in _TS_TYPES)).first()
    best = max(_TS_TYPES, key=lambda t: counts[t])
    return best if counts[best] else "string"


def check_timestamp(schema: Any, ts: str, source: str) -> str | None:
    """One line unless ``ts`` is a numeric or datetime column; the unit datetimes imply."""
    names = [f.name for f in schema.fields]
    _check_columns(names, ts=ts, type=None, require=(), source=source)
    kind = schema[ts].dataType.simpleString()
    if kind in _NUMERIC or kind.startswith("decimal"):
        return None
    if kind in _DATETIME:
        return "ms"
    raise StreamError(f"the timestamp column has type {kind}; a continuous source needs "
                      "numbers or datetimes (declare it with --schema, e.g. 'ts BIGINT')",
                      field=ts, source=source)


def check_targets(source: str, *, output: str, checkpoint: str) -> None:
    """Before anything is read: the output and the checkpoint are folders (an existing
    file is no output), and neither holds nor lies in the source folder (a glob's folder;
    its output would come back as events; :func:`kleene.data.outputs.refuse_inputs`)."""
    for option, folder in (("--output", output), ("--checkpoint", checkpoint)):
        local = local_path(folder)
        if local is None:
            continue
        if os.path.lexists(local) and not os.path.isdir(local):
            raise OutputError(f"{option} {folder} is a file; a stream writes a folder there "
                              "(choose a new path)")
        source_path = local_path(source)
        sources = [] if source_path is None else [source_path] if not glob.has_magic(
            source_path) else [os.path.dirname(source_path) or ".", *glob.glob(source_path)]
        refuse_inputs(local, sources, option=option, folder=True)


class Continuous:
    """What every continuous run shares (:class:`ContinuousMatch`, and
    :class:`~kleene.engines.spark.stream.recognition.ContinuousRecognition` for
    ``MATCH_RECOGNIZE``): the stream of the source's files, the trigger, the end of the
    stream, the output and the counts. A subclass's constructor checks everything and
    sets ``spark``, ``source``, ``checkpoint``, ``format``, ``raw`` (the files' schema),
    ``columns`` (those read), ``computed`` (``(name, Column)`` added to each row),
    ``max_files``, ``store``, ``on_progress`` and ``setup`` (its ``output`` and
    ``output_format``); :meth:`_run` processes one micro-batch."""

    spark: Any
    source: str
    checkpoint: str
    format: str
    raw: Any
    columns: tuple[str, ...]
    computed: tuple[tuple[str, Any], ...]
    max_files: int | None
    store: StateStore
    on_progress: Callable[[Progress], None] | None
    setup: Any
    query: Any = None

    def _run(self, batch_df: Any | None, batch_id: int, *, end: bool = False,
             ) -> Progress | None:
        raise NotImplementedError

    def _stream(self) -> Any:
        from pyspark.sql.types import StringType, StructField, StructType

        reader = self.spark.readStream
        if self.max_files:
            reader = reader.option("maxFilesPerTrigger", self.max_files)
        if self.format == "parquet":
            df = reader.schema(self.raw).parquet(self.source)
        else:
            declared = StructType([*self.raw.fields, StructField(CORRUPT, StringType())])
            reader = reader.schema(declared).option("columnNameOfCorruptRecord", CORRUPT) \
                .option("mode", "PERMISSIVE")
            df = reader.option("header", True).csv(self.source) if self.format == "csv" \
                else reader.json(self.source)
        extra = [CORRUPT] if CORRUPT in df.columns else []
        df = df.select(*self.columns, *extra)
        for name, column in self.computed:
            df = df.withColumn(name, column)
        return df

    def _batch(self, batch_df: Any, batch_id: int) -> None:
        done = self._run(batch_df, batch_id)
        if done is not None and self.on_progress is not None:
            self.on_progress(done)

    def start(self, *, available_now: bool = False, interval: str | None = None) -> Any:
        """Start the query (``available_now``: the files present, then stop;
        ``interval``: a processing-time trigger such as ``'1 second'``)."""
        writer = self._stream().writeStream.foreachBatch(self._batch) \
            .option("checkpointLocation", _join(self.checkpoint, "spark"))
        if available_now:
            writer = writer.trigger(availableNow=True)
        elif interval:
            writer = writer.trigger(processingTime=interval)
        self.query = writer.start()
        return self.query

    def run_available(self) -> None:
        """Process every file present now, then return."""
        self.start(available_now=True).awaitTermination()

    def end(self) -> Progress | None:
        """Declare the end of the stream: every pending match is final; flush them
        (one more committed batch, after which the checkpoint refuses to restart)."""
        if self.query is not None and self.query.isActive:
            self.query.stop()
        last = self.store.latest()
        if last.ended:
            return None
        done = self._run(None, last.batch + 1, end=True)
        if done is not None and self.on_progress is not None:
            self.on_progress(done)
        return done

    def matches(self) -> Any:
        """The match rows written so far (a DataFrame; empty before any)."""
        fs = self.store.fs
        if not any(n.startswith("batch=") for n in fs.children(self.setup.output)):
            return None
        if self.setup.output_format == "parquet":
            return self.spark.read.parquet(self.setup.output)
        return self.spark.read.json(self.setup.output)

    def counts(self) -> dict[str, int]:
        """The running counts of the last committed batch (events, late, rejected,
        settled, matches)."""
        return dict(self.store.latest().counts)




class ContinuousMatch(Continuous):
    """The matches of ``pattern`` on the files arriving in ``source``, each written once
    to ``output`` when final (see the module docstring). ``watermark`` is the
    out-of-order delay (``'500 ms'`` or timestamp units; default τ, at least τ);
    ``max_files`` the files per micro-batch; ``pattern`` its text, an AST or a
    :class:`Query`, decided here once (:meth:`Query.ask`: the language's default
    ``policy`` and window ``reading`` unless given, as ``kleene match``);
    ``budget`` each micro-batch's step budget (None: the defaults); ``on_progress``
    receives a :class:`~.step.Progress` per micro-batch."""

    def __init__(self, spark: Any, source: str, pattern: str | Pattern | Query, *,
                 output: str, checkpoint: str, policy: str | None = None,
                 reading: str | None = None, engine: str | Engine | None = None,
                 format: str | None = None, ts: str = "ts", type: str | None = "type",
                 time_unit: str | None = None, watermark: str | int | float | None = None,
                 schema: str | None = None, columns: Sequence[str] = (),
                 max_files: int | None = None, budget: int | None = None,
                 on_progress: Callable[[Progress], None] | None = None) -> None:
        from pyspark.sql import functions as F
        from pyspark.sql.types import StructField, StructType

        self.spark, self.source, self.checkpoint = spark, source, checkpoint
        self.on_progress = on_progress
        query = Query.ask(pattern, policy=policy, reading=reading, time_unit=time_unit,
                          door="ContinuousMatch (kleene stream)")
        check_targets(source, output=output, checkpoint=checkpoint)
        eng = engine_for(engine, query)
        self.format = source_format(source, format)
        raw = source_schema(spark, source, self.format, schema, ts)
        unit = check_timestamp(raw, ts, source)
        query = query.with_time_unit(unit)
        eng.compile(query)
        fin = finality(eng, query, watermark=watermark)
        pattern = query.pattern
        names = [f.name for f in raw.fields]
        read = sorted(attributes_read(pattern))
        _check_columns(names, ts=ts, type=type, require=[*read, *columns], source=source)
        type = type if type in names else None
        alias = {"ts": ts, "type": type or "type"}
        fields = tuple(dict.fromkeys([ts, *([type] if type else []),
                                      *(alias.get(a, a) for a in read), *columns]))
        self.raw = raw
        ts_type = "double" if raw[ts].dataType.simpleString() in ("float", "double") \
            or raw[ts].dataType.simpleString().startswith("decimal") else "bigint"
        kept = StructType([raw[n] if n != ts else StructField(ts, _spark_type(ts_type))
                           for n in fields])
        keep = None
        if fin.plan.filter is not None:
            condition = fin.plan.filter
            types = {f.name: f.dataType.simpleString() for f in kept.fields}
            ts_name, type_name = ts, type or "type"

            def keep() -> Any:
                return to_column(condition, types, ts=ts_name, type_=type_name)
        output_format = "jsonl" if output.rstrip("/").endswith((".jsonl", ".json", ".ndjson")) \
            else "parquet"
        attributes = tuple(dict.fromkeys(alias.get(a, a) for a in read
                                         if alias.get(a, a) not in (ts, type)))
        self.setup = Setup(engine=eng, query=query, finality=fin, ts=ts, type=type,
                           fields=fields, attributes=attributes, columns=tuple(columns),
                           output=output, output_format=output_format, schema=kept, keep=keep,
                           budget=budget)
        self.columns = tuple(fields)
        self.computed = ((ts, F.unix_millis(F.col(ts).cast("timestamp")) if unit
                          else F.col(ts).cast(ts_type)),)
        self.max_files = max_files
        worker_python(spark)
        self.store = StateStore(spark, checkpoint)
        if self.store.latest().ended:
            raise StreamSetupError(f"{checkpoint}: this stream was ended (flushed); start "
                                   "again with a new checkpoint and output")
        self.query = None

    def _run(self, batch_df: Any | None, batch_id: int, *, end: bool = False,
             ) -> Progress | None:
        return run_batch(self.setup, self.store, batch_df, batch_id, end=end)


def _spark_type(name: str) -> Any:
    from pyspark.sql.types import DoubleType, LongType

    return DoubleType() if name == "double" else LongType()


__all__ = ["FORMATS", "Continuous", "ContinuousMatch", "check_timestamp", "source_format",
           "source_schema"]
