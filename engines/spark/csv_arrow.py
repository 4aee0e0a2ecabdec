"""A local CSV file on Spark in one pass, parsed by the single-process reader (issue 33).

The Spark SQL path (:func:`.frames._csv`) costs three passes over a CSV file: Spark's
reader hands every cell to an aggregation of regular expressions that types the columns
(:func:`.text_columns.infer_types`), a numbering pass gives the positions
(:mod:`.index`), and the engine stage reads the text a third time. As for stock lines
(:mod:`.stock_arrow`), here ONE job reads the file: each task reads its split of the
local file itself (:mod:`.text_splits`), parses it with the loader's Arrow options
(:func:`.csv_splits.parse`), writes the parsed split to the query's scratch directory
(:mod:`.split_cache`) and returns its statistics (:class:`.csv_splits.SplitStats`); the
driver agrees the column types (:func:`.csv_splits.agree`: as one reader of the whole
file types each column) and the positions (the running sum of the splits' rows), and
:func:`events` is the typed events read back from the scratch directory (or the split
parsed again where it is not there) with their positions, in the engine's stage.

:func:`scan` returns ``None`` — and the caller reads the file with Spark SQL, which names
the row and the field of a problem — for a file that is not local, for a first line that
is no plain header, and wherever a split declines (:mod:`.csv_splits`: a ``"`` in the
file, a row Arrow refuses, a missing, unsorted or non-finite timestamp, ...).
"""

from __future__ import annotations

import gzip
import os
import pickle
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from kleene.data.loaders import is_gzip
from kleene.engines.spark import split_cache
from kleene.engines.spark.csv_splits import (
    Agreed,
    SplitStats,
    agree,
    header,
    parse,
    split_stats,
    typed,
    typed_text,
)
from kleene.engines.spark.index import SAMPLE_EVERY
from kleene.engines.spark.stock_arrow import Span, Within
from kleene.engines.spark.text_splits import (
    Splits,
    frame,
    local_path,
    local_splits,
    read_split,
)
from kleene.engines.spark.worker import task_threads

#: Rows per Arrow batch sent back to Spark.
_BATCH = 1 << 16

#: Bytes of the file read on the driver to find its header.
_HEAD = 1 << 20

_STATS = "part int, stats binary"


@dataclass(frozen=True)
class CsvScan:
    """What :func:`scan` learnt: the columns, their agreed types, the position of each
    split's first row, the number of rows and the timestamps sampled in stream order."""

    names: tuple[str, ...]
    ts: str
    agreed: Agreed
    offsets: dict[int, int]
    count: int
    samples: tuple[int | float, ...]
    splits: Splits
    cache: str | None
    spans: tuple[Span, ...] = ()


def columns(path: str) -> list[str] | None:
    """The header of a local CSV file (:func:`.csv_splits.header`), or ``None`` when the
    file is not a plain local file or its first line is no plain header."""
    local = local_path(path)
    if local is None or not os.path.isfile(local):
        return None
    try:
        with (gzip.open(local, "rb") if is_gzip(local) else open(local, "rb")) as f:
            head = f.read(_HEAD)
    except (OSError, EOFError, zlib.error):   # the Spark SQL path says what is wrong
        return None
    return None if len(head) == _HEAD and b"\n" not in head else header(head)


def _stats(names: Sequence[str], ts: str, splits: Splits, cache: str | None,
           batches: Iterator[Any]) -> Iterator[Any]:
    """The ``mapInArrow`` function of :func:`scan`: one row per split of this partition
    (and the parsed split written to ``cache`` when that directory is here)."""
    import pyarrow as pa

    task_threads()
    schema = pa.schema([("part", pa.int32()), ("stats", pa.binary())])
    for batch in batches:
        for part in batch.column(0).to_pylist():
            parsed = parse(read_split(splits, part), names, part == 0)
            stats, kept = split_stats(parsed, names, ts, SAMPLE_EVERY)
            if kept is not None and cache is not None:
                split_cache.write(cache, part, [kept])
            yield pa.RecordBatch.from_pylist([{"part": part, "stats": pickle.dumps(stats)}],
                                             schema=schema)


def scan(spark: Any, path: str, names: Sequence[str], ts: str) -> CsvScan | None:
    """One job over the local CSV file ``path`` whose header is ``names`` (see the module
    docstring); ``None`` when the fast path cannot read it."""
    splits = local_splits(spark, path)
    if splits is None:
        return None
    cache = split_cache.scratch()
    rows = frame(spark, splits).mapInArrow(
        partial(_stats, tuple(names), ts, splits, cache), _STATS).collect()
    rows.sort(key=lambda r: r["part"])
    found = [pickle.loads(r["stats"]) for r in rows]
    agreed = agree(found, names, ts)
    if agreed is None:
        return None
    offsets: dict[int, int] = {}
    total = 0
    samples: list[int | float] = []
    spans: list[Span] = []
    for r, stats in zip(rows, found, strict=True):
        offsets[r["part"]] = total
        spans.append(Span(r["part"], total, stats.count, *_ends(stats, agreed.types[ts])))
        samples.extend(_ends(stats, agreed.types[ts], stats.samples))
        total += stats.count
    return CsvScan(tuple(names), ts, agreed, offsets, total, tuple(samples), splits, cache,
                   tuple(spans))


def _ends(stats: SplitStats, kind: str, values: Sequence[int | float] | None = None
          ) -> list[Any]:
    """A split's first and last timestamps (or ``values``) as the agreed type of the
    timestamp column makes them (a split of integers in a double column: floats)."""
    chosen = [stats.first, stats.last] if values is None else list(values)
    return [float(v) if kind == "double" and v is not None else v for v in chosen]


def split_events(scanned: CsvScan, part: int, schema: Any, within: Within | None = None) -> Any:
    """The typed events of split ``part`` with their positions (``schema``: the Arrow
    form of :func:`spark_schema`): read back from the scratch directory, or parsed again.
    ``within``: only the rows whose timestamp (or position) lies in the range, as
    :func:`.stock_arrow.split_events` keeps them; the others are never typed."""
    import numpy as np
    import pyarrow as pa

    cached = None if scanned.cache is None else split_cache.read(scanned.cache, part)
    a = 0
    if cached is not None:
        a, b = _rows_within(scanned, part, cached, within)
        table = typed(cached.slice(a, b - a), scanned.agreed)
    if cached is None or table is None:
        parsed = parse(read_split(scanned.splits, part), scanned.names, part == 0)
        if parsed is None:
            raise RuntimeError("a CSV split read in the first pass no longer parses")
        table = typed_text(parsed, scanned.agreed, scanned.ts)
        a, b = _rows_within(scanned, part, table, within)
        table = table.slice(a, b - a)
    at = scanned.offsets.get(part, 0) + a
    positions = pa.array(np.arange(at, at + table.num_rows, dtype=np.int64))
    return pa.Table.from_arrays([*table.columns, positions], schema=schema)


def _rows_within(scanned: CsvScan, part: int, table: Any, within: Within | None
                 ) -> tuple[int, int]:
    """The run of rows ``[a, b)`` of a split (its timestamps numbers, ascending: checked
    by :func:`scan`) that ``within`` keeps (all: ``None``), found by binary search."""
    import numpy as np

    n = table.num_rows
    if within is None:
        return 0, n
    field, first, last = within
    if field is None:
        at = scanned.offsets.get(part, 0)
        a = int(np.clip(np.ceil(first - at), 0, n))
        return a, max(a, int(np.clip(np.floor(last - at) + 1, 0, n)))
    values = table.column(field).to_numpy()
    if scanned.agreed.types[field] == "double":
        values = values.astype(np.float64)      # compared as the events' doubles
    return (int(np.searchsorted(values, first, "left")),
            int(np.searchsorted(values, last, "right")))


def _typed(scanned: CsvScan, schema: Any, batches: Iterator[Any]) -> Iterator[Any]:
    """The ``mapInArrow`` function of :func:`events`."""
    task_threads()
    for batch in batches:
        for part in batch.column(0).to_pylist():
            yield from split_events(scanned, part, schema).to_batches(_BATCH)


def spark_schema(scanned: CsvScan, position: str) -> Any:
    """The Spark schema of the events: the columns typed, and ``position``."""
    from pyspark.sql.types import DoubleType, LongType, StringType, StructField, StructType

    spark_types = {"bigint": LongType(), "double": DoubleType(), "string": StringType()}
    return StructType([*[StructField(name, spark_types[scanned.agreed.types[name]])
                         for name in scanned.names],
                       StructField(position, LongType())])


def events(spark: Any, scanned: CsvScan, position: str) -> Any:
    """The events of the scanned file: the columns typed and ``position`` (lazy)."""
    from pyspark.sql.pandas.types import to_arrow_schema

    schema = spark_schema(scanned, position)
    function = partial(_typed, scanned, to_arrow_schema(schema))
    return frame(spark, scanned.splits).mapInArrow(function, schema)
