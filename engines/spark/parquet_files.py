"""Parquet files on Spark: nanosecond timestamps, the unit ``kleene convert`` records,
and positions without a numbering pass (issue 14).

docs/architecture.md, "The shared core": an event's position is its row index.
Spark's Parquet reader knows it: the hidden column ``_metadata.row_index`` is
each row's index within its file, so the events of ONE file need no
numbering pass (:mod:`.index`) when the checks of that pass hold — every
timestamp present, finite, and no earlier than the previous row's. For a
local file the driver checks them on the timestamp column alone, read by
Arrow (2.2 M timestamps: a few tens of milliseconds), and samples the
timestamps as :mod:`.index` does. A file written by ``kleene convert`` was
checked when it was written, and passes; any other file that passes is
equally safe. When a check fails, or the file is not one local file, or its
timestamps are not numbers, :func:`checked` returns ``None`` and the caller
runs the numbering pass, which names the bad row.
"""

from __future__ import annotations

import os
from typing import Any

from kleene.data.loaders import _written_by_convert, check_header
from kleene.engines.spark.index import SAMPLE_EVERY
from kleene.engines.spark.text_splits import local_path

#: The hidden column of Spark's file sources that numbers the rows of each file.
ROW_INDEX = "_metadata.row_index"


def checked(path: str, ts: str, limit: int | None = None
            ) -> tuple[int, tuple[int | float, ...]] | None:
    """The number of events of the local Parquet file ``path`` (at most ``limit``) and its
    timestamps sampled every :data:`SAMPLE_EVERY` rows, if its timestamps are numbers,
    present, finite and in order; else ``None``."""
    local = local_path(path)
    if local is None or not os.path.isfile(local):
        return None
    try:
        import numpy as np
        import pyarrow as pa
        import pyarrow.parquet as pq

        with pq.ParquetFile(local) as parquet:
            if ts not in parquet.schema_arrow.names:
                return None
            column = parquet.read(columns=[ts]).column(ts)
    except Exception:  # not readable by pyarrow: Spark's own reader will say why
        return None
    kind = column.type
    numeric = pa.types.is_signed_integer(kind) or pa.types.is_floating(kind) or \
        (pa.types.is_unsigned_integer(kind) and kind.bit_width < 64)
    if not numeric or column.null_count:
        return None
    if limit is not None:
        column = column.slice(0, limit)
    values = column.to_numpy()
    if values.dtype.kind == "f" and not np.isfinite(values).all():
        return None
    if (values[1:] < values[:-1]).any():
        return None
    return len(values), tuple(v.item() for v in values[::SAMPLE_EVERY])


def read_parquet(spark: Any, path: str, schema: str | None) -> tuple[Any, list[Any]]:
    """A Parquet file; nanosecond timestamps (what pandas writes), which Spark refuses,
    are read as integers and turned into timestamps (microseconds, Spark's precision)."""
    from pyspark.sql import functions as F

    _names_once(path)
    nanos = nanosecond_columns(path)
    if nanos:
        spark.conf.set("spark.sql.legacy.parquet.nanosAsLong", "true")
    df = spark.read.parquet(path)
    for name in nanos:
        if name in df.columns and df.schema[name].dataType.simpleString() == "bigint":
            df = df.withColumn(name, F.timestamp_micros(F.floor(F.col(name) / 1000)))
    return df, []


def _names_once(path: str) -> None:
    """Refuse a local Parquet file whose schema names a column twice (or too many), as
    the single process does (:func:`kleene.data.loaders.check_header`); Spark's reader
    fails on it later, in its own words."""
    local = local_path(path)
    if local is None:
        return
    try:
        import pyarrow.parquet as pq

        files = ([os.path.join(d, f) for d, _, fs in os.walk(local) for f in sorted(fs)
                  if f.endswith(".parquet")] if os.path.isdir(local) else [local])
        schemas = [pq.read_schema(f).names for f in files[:1]]
    except Exception:  # not readable by pyarrow: Spark's own error will say why
        return
    check_header(schemas[0] if schemas else [], path)


def nanosecond_columns(path: str) -> list[str]:
    """The columns of a local Parquet file or folder stored as nanosecond timestamps."""
    local = local_path(path)
    if local is None:
        return []
    try:
        import pyarrow as pa
        import pyarrow.dataset as ds

        arrow = ds.dataset(local, format="parquet").schema
    except Exception:  # not readable by pyarrow: Spark's own error will say why
        return []
    return [f.name for f in arrow if pa.types.is_timestamp(f.type) and f.type.unit == "ns"]


def converted_time_unit(path: str) -> str | None:
    """The time unit ``kleene convert`` recorded in a local Parquet file's metadata
    (what :func:`kleene.data.loaders.load_events` reads), else ``None``."""
    local = local_path(path)
    if local is None:
        return None
    try:
        import pyarrow.dataset as ds

        arrow = ds.dataset(local, format="parquet").schema
    except Exception:  # not readable by pyarrow: Spark's own error will say why
        return None

    return _written_by_convert(arrow.empty_table(), None)[2]
