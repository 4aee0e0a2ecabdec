"""Stock lines on Spark in one pass over the text, parsed by the single-process reader.

Issue 14 (batch ``local[1]`` within 2× of one process): reading the stock
stream with Spark SQL (:mod:`.text_columns`) parses the text three times —
an aggregation to infer the column types, the numbering pass
(:mod:`.index`), and the filter/slice stage. Here the lines are parsed by the
vectorised reader of the single-process loader
(:func:`kleene.data.stock.split_fields`, cells typed by
:func:`kleene.data.textvalues.typed_column`; :mod:`.stock_parse`), inside ``mapInArrow``.
Each task reads its split of a local file itself (:mod:`.text_splits`: no
JVM reading, no lines shipped to Python); any other path is read by
``spark.read.text`` and its lines handed over in Arrow batches. Two steps:

1. :func:`scan` — ONE job over the text: each task parses its lines and
   returns its statistics: the rows it holds, whether each field holds only
   integer literals / only number literals (the Spark column's type, the rule
   of :func:`.text_columns.infer_types`), its first and last timestamp, the
   order of its timestamps, and timestamps sampled every
   :data:`~kleene.engines.spark.index.SAMPLE_EVERY` rows.
2. :func:`events` — the typed events with their positions (the running sum
   of the rows of the splits before, as in :mod:`.index`), computed from those
   statistics while the engine's stage reads them, and no other job runs. A
   file's splits are Spark partitions in offset order (one file), the same in
   both passes.

Parsed once. When the file is read in local splits, each task of :func:`scan`
also writes its parsed split (each field as numbers where the split's cells
all are, else as text) in Arrow IPC to a scratch directory of the query that
the driver made (:func:`split_events` reads it back, and :mod:`.direct` reads
it without Spark's rows). Where that directory is not visible (an executor on
another machine) nothing is written, and :func:`split_events` parses the split
again: the same rows either way (:mod:`.split_cache`).

The fast path reads only what the reference's fast path reads (every line
``TYPE(k1=v1,...,kn=vn)`` with the first line's keys, in order; numeric
timestamps in order). :func:`scan` returns ``None`` otherwise — a line
laid out otherwise, a bad or unsorted timestamp — and the caller reads the
file with Spark SQL, which names the row and the field of the problem in
the same words as ever.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from kleene.engines.spark import split_cache
from kleene.engines.spark.index import SAMPLE_EVERY
from kleene.engines.spark.stock_parse import BLOCK, agreed, blank, flags, parse, tables
from kleene.engines.spark.text_splits import Splits, frame, local_splits, read_split
from kleene.engines.spark.worker import task_threads

#: Rows per Arrow batch sent back to Spark.
_BATCH = 1 << 16

#: The Spark types a stock field can get (:func:`.text_columns.infer_types`).
_ARROW_TYPE = {"bigint": "int64", "double": "float64", "string": "string"}

_STATS = ("part int, count bigint, ok boolean, nonint array<boolean>, "
          "nonnum array<boolean>, first_i bigint, last_i bigint, first_f double, "
          "last_f double, samples_i array<bigint>, samples_f array<double>")


@dataclass(frozen=True)
class Scanned:
    """What :func:`scan` learnt: each field's Spark type, the position of each
    partition's first row, the number of rows and the sampled timestamps."""

    keys: tuple[str, ...]
    types: dict[str, str]
    offsets: dict[int, int]
    count: int
    samples: tuple[int | float, ...]
    splits: Splits | None = None
    cache: str | None = None
    spans: tuple[Span, ...] = ()


@dataclass(frozen=True)
class Span:
    """One split as :func:`scan` found it: its partition, the position of its first
    row, its number of rows and its first and last timestamps."""

    part: int
    offset: int
    count: int
    first: int | float | None
    last: int | float | None


def _partition() -> int:
    """The Spark partition of the running task: the file split it reads."""
    from pyspark import TaskContext

    context = TaskContext.get()
    assert context is not None, "called outside a Spark task"
    return context.partitionId()


def _stats(keys: Sequence[str], ts: str, splits: Splits | None, cache: str | None,
           block: int, batches: Iterator[Any]) -> Iterator[Any]:
    """The ``mapInArrow`` function of :func:`scan`: one row per partition (and the
    parsed split written to ``cache`` when that directory is here), its lines parsed
    and typed ``block`` bytes at a time."""
    import numpy as np
    import pyarrow as pa


    task_threads()
    part = _partition()
    parsed: list[Any] = []
    nonint = [False] * len(keys)
    nonnum = [False] * len(keys)
    count, ok = 0, True
    first: Any = None
    last: Any = None
    samples: list[Any] = []
    for table in tables(keys, splits, batches, block):
        if table is None or not ok:
            ok = False
            continue
        if not table.num_rows:
            continue
        stamps = None
        cells = [table.column("type")]
        for i, key in enumerate(keys):
            no_int, no_num, numbers = flags(table.column(key))
            nonint[i] |= no_int
            nonnum[i] |= no_num
            cells.append(table.column(key) if numbers is None else numbers)
            if key == ts:
                stamps = numbers
        if stamps is None:
            ok = False
            continue
        values = stamps.to_numpy(zero_copy_only=False)
        if values.dtype.kind == "f" and not np.isfinite(values).all():
            ok = False
            continue
        if (last is not None and values[0] < last) or (values[1:] < values[:-1]).any():
            ok = False
            continue
        start = (-count) % SAMPLE_EVERY
        samples.extend(v.item() for v in values[start::SAMPLE_EVERY])
        if first is None:
            first = values[0].item()
        last = values[-1].item()
        count += table.num_rows
        parsed.append(pa.table(cells, names=["type", *keys]))
    if ok and cache is not None and splits is not None:
        typed = agreed(keys, parsed, nonint, nonnum)
        if typed is not None:
            split_cache.write(cache, part, typed)
    ints = all(isinstance(v, int) for v in (first, last, *samples))
    row = {"part": part, "count": count, "ok": ok, "nonint": nonint, "nonnum": nonnum,
           "first_i": first if ints else None, "last_i": last if ints else None,
           "first_f": None if first is None else float(first),
           "last_f": None if last is None else float(last),
           "samples_i": samples if ints else None, "samples_f": [float(v) for v in samples]}
    yield pa.RecordBatch.from_pylist([row], schema=_stats_schema())


def _stats_schema() -> Any:
    import pyarrow as pa

    return pa.schema([("part", pa.int32()), ("count", pa.int64()), ("ok", pa.bool_()),
                      ("nonint", pa.list_(pa.bool_())), ("nonnum", pa.list_(pa.bool_())),
                      ("first_i", pa.int64()), ("last_i", pa.int64()),
                      ("first_f", pa.float64()), ("last_f", pa.float64()),
                      ("samples_i", pa.list_(pa.int64())),
                      ("samples_f", pa.list_(pa.float64()))])


def scan(spark: Any, path: str, keys: Sequence[str], ts: str, block: int = BLOCK
         ) -> Scanned | None:
    """One job over the text of ``path`` (see the module docstring; a local split parsed
    ``block`` bytes at a time); ``None`` when the fast path cannot read it (the caller
    reads it with Spark SQL)."""
    splits = local_splits(spark, path)
    text = spark.read.text(path) if splits is None else frame(spark, splits)
    cache = None if splits is None else split_cache.scratch()
    rows = text.mapInArrow(partial(_stats, tuple(keys), ts, splits, cache, block),
                           _STATS).collect()
    rows.sort(key=lambda r: r["part"])
    if not all(r["ok"] for r in rows):
        return None
    types = {key: "bigint" if not any(r["nonint"][i] for r in rows)
             else "double" if not any(r["nonnum"][i] for r in rows) else "string"
             for i, key in enumerate(keys)}
    if types[ts] == "string":
        return None
    suffix = "_i" if types[ts] == "bigint" else "_f"
    offsets: dict[int, int] = {}
    total = 0
    previous = None
    samples: list[int | float] = []
    spans: list[Span] = []
    for r in rows:
        offsets[r["part"]] = total
        spans.append(Span(r["part"], total, r["count"], r["first" + suffix], r["last" + suffix]))
        if r["count"]:
            if previous is not None and r["first" + suffix] < previous:
                return None
            previous = r["last" + suffix]
            samples.extend(r["samples" + suffix])
        total += r["count"]
    return Scanned(tuple(keys), types, offsets, total, tuple(samples), splits, cache,
                   tuple(spans))


def _column(scanned: Scanned, key: str, cells: Any) -> Any | None:
    """A field's cells (text, or the numbers :func:`flags` read) as its Spark type;
    ``None`` for numbers where the type is text (then the split is parsed again)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    kind, text = scanned.types[key], pa.types.is_string(cells.type)
    if kind == "string":
        return cells if text else None
    numbers = flags(cells)[2] if text else cells
    return pc.cast(numbers, _ARROW_TYPE[kind], safe=False)   # beyond 2**53 rounds, as Spark


def _typed_table(scanned: Scanned, table: Any, at: int, schema: Any) -> Any | None:
    """A parsed table (``type`` and the fields, as text or numbers) typed, with the
    positions from ``at`` (``None`` as :func:`_column` says)."""
    import numpy as np
    import pyarrow as pa

    columns = [table.column("type")]
    for key in scanned.keys:
        column = _column(scanned, key, table.column(key))
        if column is None:
            return None
        columns.append(column)
    n = table.num_rows
    columns.append(pa.array(np.arange(at, at + n, dtype=np.int64)))
    return pa.Table.from_arrays(columns, schema=schema)


#: Rows of a split by timestamp (a field's name) or by position (``None``): those whose
#: value lies in ``[first, last]``.
Within = tuple[str | None, float, float]


def _rows_within(scanned: Scanned, part: int, table: Any, within: Within) -> tuple[int, int]:
    """The run of rows ``[a, b)`` of split ``part`` (parsed, not typed) that ``within``
    keeps: a split's timestamps ascend (:func:`scan` checked), so a binary search finds it."""
    import numpy as np

    field, first, last = within
    n = table.num_rows
    if field is None:
        at = scanned.offsets.get(part, 0)
        a = int(np.clip(np.ceil(first - at), 0, n))
        return a, max(a, int(np.clip(np.floor(last - at) + 1, 0, n)))
    stamps = _column(scanned, field, table.column(field))
    assert stamps is not None           # a timestamp field is numbers (scan)
    values = stamps.to_numpy(zero_copy_only=False)
    return (int(np.searchsorted(values, first, "left")),
            int(np.searchsorted(values, last, "right")))


def _typed_rows(scanned: Scanned, part: int, table: Any, schema: Any,
                within: Within | None) -> Any | None:
    """The rows of a parsed split that ``within`` keeps (all: ``None``), typed, with
    their positions (``None`` as :func:`_typed_table` says)."""
    a, b = (0, table.num_rows) if within is None else _rows_within(scanned, part, table, within)
    return _typed_table(scanned, table.slice(a, b - a), scanned.offsets.get(part, 0) + a, schema)


def split_events(scanned: Scanned, part: int, schema: Any, within: Within | None = None) -> Any:
    """The typed events of local split ``part`` with their positions (``schema``: the
    Arrow form of :func:`spark_schema`): read back from the scratch directory, or
    parsed again. ``within``: only the rows whose timestamp (or position) lies in the
    range, the others never typed."""
    cached = None if scanned.cache is None else split_cache.read(scanned.cache, part)
    if cached is not None:
        table = _typed_rows(scanned, part, cached, schema, within)
        if table is not None:
            return table
    assert scanned.splits is not None, "split_events reads local splits"
    data = read_split(scanned.splits, part)
    parsed = None if blank(data) else parse(data, scanned.keys)
    if parsed is None or not parsed.num_rows:
        if not blank(data):
            raise RuntimeError("a stock line read in the first pass no longer parses")
        return schema.empty_table()
    table = _typed_rows(scanned, part, parsed, schema, within)
    assert table is not None      # text fields are text here
    return table


def _typed(scanned: Scanned, schema: Any, batches: Iterator[Any]) -> Iterator[Any]:
    """The ``mapInArrow`` function of :func:`events`: the typed columns and positions."""
    task_threads()
    if scanned.splits is not None:
        for batch in batches:
            for part in batch.column(0).to_pylist():
                yield from split_events(scanned, part, schema).to_batches(_BATCH)
        return
    at = scanned.offsets.get(_partition(), 0)
    for table in tables(scanned.keys, scanned.splits, batches):
        if table is None:
            raise RuntimeError("a stock line read in the first pass no longer parses")
        if not table.num_rows:
            continue
        typed = _typed_table(scanned, table, at, schema)
        assert typed is not None     # text fields are text here
        at += typed.num_rows
        yield from typed.to_batches(_BATCH)


def spark_schema(scanned: Scanned, position: str) -> Any:
    """The Spark schema of the events (``type``, the fields typed, ``position``)."""
    from pyspark.sql.types import DoubleType, LongType, StringType, StructField, StructType

    spark_types = {"bigint": LongType(), "double": DoubleType(), "string": StringType()}
    return StructType([StructField("type", StringType()),
                       *[StructField(key, spark_types[scanned.types[key]])
                         for key in scanned.keys],
                       StructField(position, LongType())])


def events(spark: Any, path: str, scanned: Scanned, position: str) -> Any:
    """The events of ``path``: ``type``, the fields typed, and ``position`` (lazy)."""
    from pyspark.sql.pandas.types import to_arrow_schema

    schema = spark_schema(scanned, position)
    function = partial(_typed, scanned, to_arrow_schema(schema))
    text = spark.read.text(path) if scanned.splits is None else frame(spark, scanned.splits)
    return text.mapInArrow(function, schema)
