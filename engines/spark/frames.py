"""Events as a Spark DataFrame: read, typed like the loaders, validated, numbered.

docs/architecture.md, "Layers": ``events (CSV/JSONL/Parquet/Spark DataFrame) ──validate──▶``.
:func:`read_events` reads a file in the formats of :mod:`kleene.data.loaders`
(the same extensions, the same defaults: ``ts``, or ``stock_time`` in ms for
stock lines) and :func:`from_dataframe` takes a DataFrame; both return an
:class:`EventFrame` whose timestamp column is numeric (datetimes become epoch
milliseconds) and whose position column is each event's 0-based row index
(:mod:`.index`). Mistakes raise :class:`~kleene.reference.errors.StreamError`
or :class:`~kleene.reference.errors.PatternError` in one line: a missing
timestamp column or one of the wrong type, and a pattern attribute that is no
column, before any Spark job; a bad row (missing timestamp, unsorted
timestamps, a line that does not parse) after one pass, naming the row and field.

Typing (:mod:`.text_columns`). CSV cells and stock-line values are text; the
loaders type each cell. Spark types a column: integer literals throughout make
``bigint``, decimal literals ``double``, anything else stays a string (a column
that mixes numbers and words is all strings on Spark). JSON and Parquet keep
their own types. Stock lines are parsed in one pass by the loader's Arrow reader
inside Spark tasks (``stock="arrow"``, the default, :mod:`.stock_arrow`; a file
it cannot read goes to the next reader, which names the bad line), in Spark SQL
(``stock="sql"``: regular expressions in the JVM, three passes) or by the Python
loader on the driver and shipped with Arrow (``stock="python"``);
``bench/spark_bench.py`` measures them.

Positions. A file's rows are numbered by one pass (:mod:`.index`), except a
local Parquet file whose timestamps the driver checks (:mod:`.parquet_files`):
Spark's ``_metadata.row_index`` numbers it, and no pass runs.

Order. A file's rows are numbered in the order Spark reads one file: its splits
in offset order. A directory of several files has no defined order; give one file.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from kleene.data.loaders import STOCK_TS, check_header, detect_format, is_gzip, load_events
from kleene.data.stock import stock_layout
from kleene.engines.spark import csv_arrow
from kleene.engines.spark.direct import Source
from kleene.engines.spark.index import PROBLEM, SAMPLE_EVERY, problem, with_positions
from kleene.engines.spark.parquet_files import ROW_INDEX, checked, converted_time_unit
from kleene.engines.spark.parquet_files import read_parquet as _parquet
from kleene.engines.spark.stock_arrow import events, scan, spark_schema
from kleene.engines.spark.text_columns import (
    STOCK_PROBLEM,
    csv_header,
    first_lines,
    infer_types,
    rounded_integers,
    stock_columns,
    text_timestamps,
    typed,
)
from kleene.engines.spark.text_splits import local_path
from kleene.reference.errors import PatternError, StreamError
from kleene.reference.events import Stream

#: The position column of an :class:`EventFrame` (internal; matches carry ``position``).
POSITION = "_kleene_position"

_CORRUPT = "_kleene_corrupt"
#: The problems of the timestamp cells as read (before ``ts`` becomes numeric).
TS_PROBLEM = "_kleene_ts_problem"
#: The problems of a CSV file's integer timestamps that a double would round.
ROUNDED = "_kleene_rounded"
_NUMERIC = ("tinyint", "smallint", "int", "bigint", "float", "double")


class MissingAttributes(PatternError):
    """The events lack an attribute the pattern reads (checked before any job);
    ``columns`` are the columns they have, so a door that holds the pattern's text can
    name where the pattern reads it (``kleene match --spark``:
    :func:`~kleene.reference.schema.check_pattern`)."""

    def __init__(self, message: str, *, columns: tuple[str, ...]) -> None:
        super().__init__(message)
        self.columns = columns


@dataclass(frozen=True)
class EventFrame:
    """A DataFrame of events: ``ts`` numeric, ``position`` the row index (0-based,
    per stream when ``streams`` name several independent streams), ``type`` the
    event type column (``None``: none), ``samples`` timestamps in stream order."""

    df: Any
    ts: str
    type: str | None
    time_unit: str | None
    position: str = POSITION
    streams: tuple[str, ...] = ()
    source: str = "<events>"
    count: int | None = None
    samples: tuple[int | float, ...] = ()
    splits: Source | None = None     # a stock file's parsed splits (:mod:`.direct`)

    def column_of(self, attribute: str) -> str:
        """The column that holds a pattern attribute (``ts`` and ``type`` are aliases)."""
        if attribute == "ts":
            return self.ts
        if attribute == "type" and self.type is not None:
            return self.type
        return attribute


def read_events(spark: Any, path: str, *, format: str | None = None, ts: str | None = None,
                type: str | None = "type", time_unit: str | None = None,
                schema: str | None = None, require: Iterable[str] = (),
                stock: str = "arrow", limit: int | None = None) -> EventFrame:
    """The events of ``path`` (options as :func:`kleene.data.loaders.load_events`;
    ``schema`` a DDL string that replaces inference for CSV and JSON Lines;
    ``require`` the attributes a pattern reads, checked before any job;
    ``limit`` keeps the first events only)."""
    fmt = (format or detect_format(path)).lower()
    source = str(path)
    local = local_path(source)
    if local is not None:
        if not os.path.exists(local):
            raise StreamError("cannot read the events: no such file", source=source)
        if not os.path.isdir(local) and is_gzip(local) and not local.endswith(".gz"):
            raise StreamError("the file is gzip-compressed but its name does not end in .gz; "
                              "Spark recognises compression by the name", source=source)
    if fmt == "stock":
        ts, time_unit = ts or STOCK_TS, time_unit or "ms"
        if stock == "arrow":
            frame = _stock_arrow(spark, source, ts=ts, type=type, time_unit=time_unit,
                                 require=require, limit=limit)
            if frame is not None:
                return frame
            stock = "sql"   # a file the fast path does not read: Spark SQL names the problem
        if stock == "python":
            return from_stream(spark, load_events(path, format="stock", ts=ts, type=type,
                                                  time_unit=time_unit, limit=limit),
                               ts=ts, type=type, source=source, require=require)
        if stock != "sql":
            raise StreamError(f"unknown stock reader {stock!r}; use arrow, sql or python",
                              source=source)
    ts = ts or "ts"
    if fmt == "csv" and schema is None:
        frame = _csv_arrow(spark, source, ts=ts, type=type, time_unit=time_unit,
                           require=require, limit=limit)
        if frame is not None:
            return frame     # else Spark SQL reads the file, and names any problem
    if fmt == "parquet" and time_unit is None:
        time_unit = converted_time_unit(source)
    readers: dict[str, Callable[[Any, str, str | None], tuple[Any, list[Any]]]] = {
        "csv": partial(_csv, ts=ts), "jsonl": _jsonl, "parquet": _parquet, "stock": _stock}
    if fmt not in readers:
        raise StreamError(f"unknown event format {fmt!r}; use one of {', '.join(readers)}",
                          source=source)
    if schema is not None:
        check_ddl(spark, schema)
    df, problems = readers[fmt](spark, source, schema)
    _check_types(df, require, source)
    known = checked(source, ts, limit) if fmt == "parquet" else None
    if known is not None and POSITION not in df.columns:
        from pyspark.sql import functions as F

        df = df.withColumn(POSITION, F.col(ROW_INDEX))   # no numbering pass
    return _finish(df, problems, ts=ts, type=type, time_unit=time_unit, source=source,
                   require=require, limit=limit, known=known)


def from_dataframe(df: Any, *, ts: str = "ts", type: str | None = "type",
                   time_unit: str | None = None, position: str | None = None,
                   streams: Sequence[str] = (), require: Iterable[str] = (),
                   source: str = "<dataframe>") -> EventFrame:
    """``df`` as events. Without ``position`` its rows are numbered in the
    DataFrame's order (which must be deterministic, as it is for a file scan);
    with ``position`` (an integer column) the rows are taken as positioned, per
    stream of ``streams``, and their order is checked as the engine runs."""
    if position is None:
        if streams:
            raise StreamError("several streams in one DataFrame need a position column",
                              source=source)
        # The rows are numbered by monotonically_increasing_id() in one pass and used in
        # later ones; a DataFrame not read from files (createDataFrame, say) may be split
        # into partitions differently by each plan, and the numbers with it. A local
        # checkpoint pins the rows of every partition once.
        return _finish(df.localCheckpoint(eager=False), [], ts=ts, type=type,
                       time_unit=time_unit, source=source, require=require)
    _check_columns(df.columns, ts=ts, type=type, require=[*require, position, *streams],
                   source=source)
    if df.schema[position].dataType.simpleString() not in _NUMERIC[:4]:
        raise StreamError(f"the position column has type "
                          f"{df.schema[position].dataType.simpleString()}; it must be an "
                          "integer", field=position, source=source)
    df, unit, _ = _numeric_ts(df, ts, source)
    return EventFrame(df, ts, type if type in df.columns else None, unit or time_unit,
                      position, tuple(streams), source)


def from_stream(spark: Any, s: Stream, *, ts: str = "ts", type: str | None = "type",
                source: str = "<stream>", require: Iterable[str] = ()) -> EventFrame:
    """A validated :class:`Stream` (read by the Python loaders) shipped to Spark
    with Arrow: positions and order are the stream's own. A loaded stream's
    columns go as they are (no event is built)."""
    import pyarrow as pa

    if s.columns is not None:
        return _from_columns(spark, s, ts=ts, type=type, source=source, require=require)
    names: list[str] = []
    for e in s:
        names.extend(k for k in e.attrs if k not in names)
    columns: dict[str, Any] = {POSITION: pa.array([e.position for e in s], pa.int64()),
                               ts: pa.array([e.ts for e in s])}
    if type is not None and any(e.type is not None for e in s):
        columns[type] = pa.array([e.type for e in s], pa.string())
    for name in names:
        values = [e.attrs.get(name) for e in s]
        try:
            columns[name] = pa.array(values)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            raise StreamError("the column mixes strings and numbers; Spark needs one type "
                              "per column", field=name, source=source) from None
    table = pa.table(columns)
    _check_columns(table.column_names, ts=ts, type=type, require=require, source=source)
    df = spark.createDataFrame(table)
    samples = tuple(e.ts for e in s.events[::SAMPLE_EVERY])
    return EventFrame(df, ts, type if type in columns else None, s.time_unit, POSITION, (),
                      source, len(s), samples)


def _from_columns(spark: Any, s: Stream, *, ts: str, type: str | None, source: str,
                  require: Iterable[str]) -> EventFrame:
    """:func:`from_stream` for a stream held as Arrow columns."""
    import pyarrow as pa

    cols = s.columns
    n = len(cols)
    columns: dict[str, Any] = {POSITION: pa.array(range(n), pa.int64()), ts: cols.ts}
    if type is not None and cols.types is not None:
        columns[type] = cols.types
    for name in cols.attrs.column_names:
        if cols.kinds[name] == "text":
            raise StreamError("the column mixes strings and numbers; Spark needs one type "
                              "per column", field=name, source=source)
        columns[name] = cols.attrs.column(name)
    table = pa.table(columns)
    _check_columns(table.column_names, ts=ts, type=type, require=require, source=source)
    df = spark.createDataFrame(table)
    samples = tuple(cols.ts.slice(0, n).to_pylist()[::SAMPLE_EVERY])
    return EventFrame(df, ts, type if type in columns else None, s.time_unit, POSITION, (),
                      source, n, samples)


# ---------------------------------------------------------------- checks


#: The prefix of the columns Kleene adds to a frame (positions, problems, the reader's
#: corrupt records): never the events' own, so never listed as theirs.
INTERNAL = "_kleene_"


def shown(columns: Iterable[str]) -> str:
    """The events' own columns, as a message lists them (no :data:`INTERNAL` column)."""
    return ", ".join(c for c in columns if not c.startswith(INTERNAL))


def _check_columns(columns: Sequence[str], *, ts: str, type: str | None,
                   require: Iterable[str], source: str) -> None:
    if ts not in columns:
        raise StreamError(f"no timestamp column {ts!r}; columns: {shown(columns)} "
                          "(name it with --ts)", field=ts, source=source)
    aliases = {"ts": ts, "type": type or "type"}
    missing = sorted({aliases.get(a, a) for a in require} - set(columns))
    if missing:
        raise MissingAttributes(f"the pattern reads {', '.join(missing)}, which the events "
                                f"of {source} do not have; columns: {shown(columns)}",
                                columns=tuple(columns))


def _numeric_ts(df: Any, ts: str, source: str) -> tuple[Any, str | None, list[Any]]:
    """``df`` with ``ts`` as bigint or double (datetimes: epoch ms), the unit that
    implies, and the problems to report per row."""
    from pyspark.sql import functions as F

    converted, unit, problems = _ts_column(df, ts, source)
    # the problems read the cells as written: checked before ts is replaced (a cell
    # that does not convert is null afterwards, and was reported as missing)
    checked = df.withColumn(TS_PROBLEM, F.coalesce(*problems) if len(problems) > 1
                            else problems[0])
    return checked.withColumn(ts, converted), unit, [F.col(TS_PROBLEM)]


def _ts_column(df: Any, ts: str, source: str) -> tuple[Any, str | None, list[Any]]:
    """The numeric ``ts`` column, its unit, and the problems of the raw cells."""
    from pyspark.sql import functions as F

    kind = df.schema[ts].dataType.simpleString()
    col = F.col(ts)
    problems = [F.when(col.isNull(), problem(ts, "missing timestamp"))]
    if kind in ("tinyint", "smallint", "int", "bigint"):
        return col.cast("bigint"), None, problems
    if kind.startswith("decimal(") and kind.endswith(",0)"):   # Parquet's uint64, say
        wide = col.try_cast("bigint").isNull() & col.isNotNull()
        return col.try_cast("bigint"), None, problems + [F.when(wide, problem(ts, F.concat(
            F.lit("timestamp "), col.cast("string"),
            F.lit(" does not fit a 64-bit signed integer"))))]
    if kind in ("float", "double") or kind.startswith("decimal"):
        bad = F.isnan(col) | (F.abs(col) == F.lit(float("inf")))
        return col.cast("double"), None, problems + [F.when(bad, problem(ts, F.concat(
            F.lit("timestamp must be finite, got "), col.cast("string"))))]
    if kind in ("timestamp", "timestamp_ntz", "date"):
        return F.unix_millis(col.cast("timestamp")), "ms", problems
    if kind == "string":
        converted, unit, bad = text_timestamps(df, ts)
        return converted, unit, [*problems, bad]
    raise StreamError(f"timestamp column has type {kind}; it must hold numbers or datetimes",
                      field=ts, source=source)


def _finish(df: Any, problems: list[Any], *, ts: str, type: str | None,
            time_unit: str | None, source: str, require: Iterable[str],
            limit: int | None = None,
            known: tuple[int, tuple[int | float, ...]] | None = None) -> EventFrame:
    """Check the columns, make ``ts`` numeric, and number the rows (one pass), unless
    the rows are ``known`` (their number and sampled timestamps; :mod:`.row_index`):
    then ``df`` holds their positions and was checked."""
    from pyspark.sql import functions as F

    _check_columns(df.columns, ts=ts, type=type, require=require, source=source)
    for name in (PROBLEM,) if known else (POSITION, PROBLEM):
        if name in df.columns:
            raise StreamError(f"the column name {name!r} is reserved by Kleene", field=name,
                              source=source)
    raw = df
    df, unit, ts_problems = _numeric_ts(df, ts, source)
    if known is not None:
        count, samples = known
        if limit is not None:
            df = df.filter(F.col(POSITION) < limit)
        return EventFrame(df.drop(_CORRUPT, TS_PROBLEM), ts, type if type in df.columns else None,
                          unit or time_unit, POSITION, (), source, count, samples)
    everything = problems + ts_problems
    df = df.withColumn(PROBLEM, F.coalesce(*everything)) if len(everything) > 1 \
        else df.withColumn(PROBLEM, everything[0])
    df = df.drop(TS_PROBLEM, *[c for c in raw.columns if c in (_CORRUPT, STOCK_PROBLEM,
                                                                ROUNDED)])
    indexed = with_positions(df, ts=ts, position=POSITION, source=source, limit=limit)
    frame = EventFrame(indexed.df, ts, type if type in df.columns else None,
                       unit or time_unit, POSITION, (), source, indexed.count, indexed.samples)
    return frame


# ---------------------------------------------------------------- readers


def _csv(spark: Any, path: str, schema: str | None, ts: str | None = None
         ) -> tuple[Any, list[Any]]:
    from pyspark.sql import functions as F
    from pyspark.sql.types import StringType, StructField, StructType

    if schema is None:
        header = csv_header(spark, path)
        fields = [StructField(name, StringType()) for name in header]
        declared = StructType(fields + [StructField(_CORRUPT, StringType())])
    else:
        declared = StructType(list(spark.createDataFrame([], schema).schema.fields)
                              + [StructField(_CORRUPT, StringType())])
    df = spark.read.csv(path, header=True, schema=declared, mode="PERMISSIVE",
                        columnNameOfCorruptRecord=_CORRUPT)
    problems = [F.when(F.col(_CORRUPT).isNotNull(), problem(
        "", "the row does not have one value of the right type per column of the header"))]
    if schema is None:
        names = [f.name for f in fields]
        types = infer_types(df, names)
        if ts is not None and types.get(ts) == "double":   # no integer rounded into a tie
            # a column, so that it reads the cells as written (ts becomes a double below)
            df = df.withColumn(ROUNDED, rounded_integers(df, ts))
            problems.append(F.col(ROUNDED))
        df = typed(df, types)
    return df, problems


def _jsonl(spark: Any, path: str, schema: str | None) -> tuple[Any, list[Any]]:
    from pyspark.sql import functions as F

    reader = spark.read.option("columnNameOfCorruptRecord", _CORRUPT)
    if schema is not None:
        reader = reader.schema(f"{schema}, {_CORRUPT} string")
    df = reader.json(path)
    if _CORRUPT not in df.columns:
        return df, []
    return df, [F.when(F.col(_CORRUPT).isNotNull(), problem("", F.concat(
        F.lit("not a JSON object: "), F.substring(F.col(_CORRUPT), 1, 60))))]


#: Spark types an event attribute cannot have (values are strings, numbers, booleans).
_UNSUPPORTED = ("array", "map", "struct", "binary", "interval", "variant")


def _check_types(df: Any, require: Iterable[str], source: str) -> None:
    """Name a column the pattern reads whose type no event attribute can have."""
    for name in require:
        if name in df.columns:
            kind = df.schema[name].dataType.simpleString()
            if kind.startswith(_UNSUPPORTED):
                raise StreamError(f"column {name!r} has type {kind}; the pattern can read "
                                  "strings, numbers, booleans and timestamps", field=name,
                                  source=source)


def check_ddl(spark: Any, schema: str) -> None:
    """Raise a one-line :class:`StreamError` unless ``schema`` is DDL Spark reads."""
    try:
        spark.createDataFrame([], schema)
    except Exception as err:
        lines = [line.strip() for line in str(err).splitlines() if line.strip()]
        reason = lines[0] if lines else type(err).__name__
        raise StreamError(f"--schema {schema!r} is not a column list Spark reads, such as "
                          f"'ts BIGINT, L STRING': {reason}") from None


def _stock_arrow(spark: Any, source: str, *, ts: str, type: str | None, time_unit: str,
                 require: Iterable[str], limit: int | None) -> EventFrame | None:
    """The stock lines of ``source`` read in one pass by the loader's Arrow reader
    (:mod:`.stock_arrow`), or ``None`` when that reader cannot read them."""
    from pyspark.sql import functions as F
    from pyspark.sql.pandas.types import to_arrow_schema


    lines = first_lines(spark, source)
    keys = stock_layout(lines[0].rstrip("\r\n") if lines else None)
    if not keys or any(k in (POSITION, PROBLEM, "type") for k in keys):
        return None
    columns = ["type", *keys]
    aliases = {"ts": ts, "type": type or "type"}
    if ts not in keys or {aliases.get(a, a) for a in require} - set(columns):
        return None
    scanned = scan(spark, source, keys, ts)
    if scanned is None:
        return None
    df = events(spark, source, scanned, POSITION)
    count, samples = scanned.count, scanned.samples
    if limit is not None and limit < count:
        df = df.filter(F.col(POSITION) < limit)
        count, samples = limit, samples[:limit // SAMPLE_EVERY + 1]
    splits = Source(scanned, POSITION, to_arrow_schema(spark_schema(scanned, POSITION)),
                    limit if limit is not None and limit < scanned.count else None, df)
    return EventFrame(df, ts, type if type in columns else None, time_unit, POSITION, (),
                      source, count, samples, splits if scanned.splits is not None else None)


def _csv_arrow(spark: Any, source: str, *, ts: str, type: str | None,
               time_unit: str | None, require: Iterable[str],
               limit: int | None) -> EventFrame | None:
    """The CSV file ``source`` read in one pass by the loader's Arrow reader
    (:mod:`.csv_arrow`), or ``None`` when that reader does not read it."""
    from pyspark.sql import functions as F
    from pyspark.sql.pandas.types import to_arrow_schema

    names = csv_arrow.columns(source)
    if names:
        check_header(names, source)          # as the Spark SQL path checks it
    aliases = {"ts": ts, "type": type or "type"}
    if (not names or ts not in names or any(n.startswith(INTERNAL) for n in names)
            or {aliases.get(a, a) for a in require} - set(names)):
        return None
    scanned = csv_arrow.scan(spark, source, names, ts)
    if scanned is None:
        return None
    df = csv_arrow.events(spark, scanned, POSITION)
    count, samples = scanned.count, scanned.samples
    kept = limit if limit is not None and limit < count else None
    if kept is not None:
        df = df.filter(F.col(POSITION) < kept)
        count, samples = kept, samples[:kept // SAMPLE_EVERY + 1]
    splits = Source(scanned, POSITION, to_arrow_schema(csv_arrow.spark_schema(scanned, POSITION)),
                    kept, df)
    unit = "ms" if scanned.agreed.datetimes else time_unit
    return EventFrame(df, ts, type if type in names else None, unit, POSITION, (), source,
                      count, samples, splits)


def _stock(spark: Any, path: str, schema: str | None) -> tuple[Any, list[Any]]:
    df, problems, names = stock_columns(spark, path)
    return typed(df, infer_types(df, names)), problems
