"""Positions for a DataFrame of events, and the checks that need a pass over it.

docs/architecture.md, "The shared core": an event's position is its 0-based index in the
stream, the total order. For a file, that is its row index, which the
single-process loaders number the same way. Spark has no row index, so one
cheap pass computes it exactly: ``monotonically_increasing_id()`` is the
partition number in its upper 31 bits and the row number within the partition
in its lower 33; a ``mapInArrow`` pass counts the rows of each partition, and
the running sum of the counts gives each partition's offset.

The same pass checks, in Arrow, what the loaders check row by row, and reports
the first failing row (0-based, like :class:`~kleene.reference.errors.StreamError`):
a problem found while reading (the ``problem`` column: a missing or malformed
timestamp, a line that does not parse) or a timestamp earlier than the previous
row's, within a partition or across two. It also samples the timestamps in
stream order, from which :func:`.layout.boundaries` cuts the time slices.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from kleene.reference.errors import StreamError

#: Internal columns.
ROW_ID = "_kleene_row_id"
PROBLEM = "_kleene_problem"

#: Separates the field from the message in the ``problem`` column.
FIELD_SEP = "\x1f"

#: One timestamp is sampled every this many rows of each partition.
SAMPLE_EVERY = 512

_LOW_BITS = 33


@dataclass(frozen=True)
class Indexed:
    """The rows counted: ``count`` events, ``samples`` of ``ts`` in stream order."""

    df: Any
    count: int
    samples: tuple[int | float, ...]


def problem(field: str, message: Any) -> Any:
    """A ``problem`` value: the field and a message (a Column or a string)."""
    from pyspark.sql import functions as F

    msg = message if not isinstance(message, str) else F.lit(message)
    return F.concat(F.lit(field + FIELD_SEP), msg)


def _stats_function(ts: str, has_problem: bool):  # noqa: ANN202 - a mapInArrow closure
    def stats(batches: Iterator[Any]) -> Iterator[Any]:
        import numpy as np
        import pyarrow as pa

        part = None
        count = 0
        first = last = None
        unsorted: tuple[int, Any, Any] | None = None
        found: tuple[int, str] | None = None
        samples: list[Any] = []
        for batch in batches:
            n = batch.num_rows
            if not n:
                continue
            if part is None:
                part = batch.column(ROW_ID)[0].as_py() >> _LOW_BITS
            if has_problem and found is None:
                bad = batch.column(PROBLEM)
                if bad.null_count < n:
                    i = int(np.flatnonzero(~np.asarray(bad.is_null()))[0])
                    found = (count + i, bad[i].as_py())
            col = batch.column(ts)
            values = col.fill_null(0).to_numpy(zero_copy_only=False) if col.null_count \
                else col.to_numpy(zero_copy_only=False)
            if unsorted is None:
                if last is not None and values[0] < last:
                    unsorted = (count, values[0].item(), last)
                else:
                    down = np.flatnonzero(values[1:] < values[:-1])
                    if len(down):
                        i = int(down[0]) + 1
                        unsorted = (count + i, values[i].item(), values[i - 1].item())
            start = (-count) % SAMPLE_EVERY
            samples.extend(v.item() for v in values[start::SAMPLE_EVERY])
            if first is None:
                first = values[0].item()
            last = values[-1].item()
            count += n
        if part is None:
            return
        yield pa.RecordBatch.from_pylist([{
            "part": part, "count": count, "first": first, "last": last,
            "unsorted_at": unsorted[0] if unsorted else None,
            "unsorted_ts": unsorted[1] if unsorted else None,
            "unsorted_prev": unsorted[2] if unsorted else None,
            "problem_at": found[0] if found else None,
            "problem": found[1] if found else None,
            "samples": samples}], schema=_schema(col.type))

    return stats


def _schema(ts_type: Any) -> Any:
    import pyarrow as pa

    return pa.schema([("part", pa.int64()), ("count", pa.int64()), ("first", ts_type),
                      ("last", ts_type), ("unsorted_at", pa.int64()),
                      ("unsorted_ts", ts_type), ("unsorted_prev", ts_type),
                      ("problem_at", pa.int64()), ("problem", pa.string()),
                      ("samples", pa.list_(ts_type))])


def _spark_schema(ts_type: str) -> str:
    return (f"part bigint, count bigint, first {ts_type}, last {ts_type}, "
            f"unsorted_at bigint, unsorted_ts {ts_type}, unsorted_prev {ts_type}, "
            f"problem_at bigint, problem string, samples array<{ts_type}>")


def with_positions(df: Any, *, ts: str, position: str, source: str,
                   limit: int | None = None) -> Indexed:
    """``df`` with a ``position`` column (its row index), after checking every row.

    ``df`` may hold a :data:`PROBLEM` column (``field<FIELD_SEP>message`` or
    null); it is dropped. Raises :class:`StreamError` for the first bad row.
    With ``limit``, only the first ``limit`` rows are kept (and checked).
    """
    from pyspark.sql import functions as F

    has_problem = PROBLEM in df.columns
    df = df.withColumn(ROW_ID, F.monotonically_increasing_id())
    ts_type = df.schema[ts].dataType.simpleString()
    columns = [ROW_ID, ts] + ([PROBLEM] if has_problem else [])
    rows = (df.select(*columns).mapInArrow(_stats_function(ts, has_problem),
                                           _spark_schema(ts_type)).collect())
    rows.sort(key=lambda r: r["part"])
    offsets: dict[int, int] = {}
    total = 0
    errors: list[tuple[int, int, str | None, str]] = []   # (row, rank, field, message)
    previous = None
    for r in rows:
        offsets[r["part"]] = total
        if previous is not None and r["first"] < previous:
            errors.append((total, 1, ts, f"timestamp {r['first']} is earlier than the "
                                         f"previous row's {previous}; sort the events by {ts}"))
        if r["unsorted_at"] is not None:
            errors.append((total + r["unsorted_at"], 1, ts,
                           f"timestamp {r['unsorted_ts']} is earlier than the previous row's "
                           f"{r['unsorted_prev']}; sort the events by {ts}"))
        if r["problem_at"] is not None:
            field, _, message = r["problem"].partition(FIELD_SEP)
            errors.append((total + r["problem_at"], 0, field or None, message))
        previous = r["last"]
        total += r["count"]
    errors = [e for e in errors if limit is None or e[0] < limit]
    if errors:
        row, _, field, message = min(errors, key=lambda e: (e[0], e[1]))
        raise StreamError(message, row=row, field=field, source=source)
    top = max(offsets, default=0)
    table = F.array(*[F.lit(offsets.get(p, 0)) for p in range(top + 1)])
    row_id = F.col(ROW_ID)
    pos = F.element_at(table, F.shiftright(row_id, _LOW_BITS).cast("int") + 1) \
        + row_id.bitwiseAND(F.lit((1 << _LOW_BITS) - 1))
    out = df.withColumn(position, pos.cast("bigint")).drop(ROW_ID)
    if has_problem:
        out = out.drop(PROBLEM)
    samples = tuple(s for r in rows for s in r["samples"])
    if limit is not None and limit < total:
        out = out.filter(F.col(position) < limit)
        samples, total = samples[:limit // SAMPLE_EVERY + 1], limit
    return Indexed(out, total, samples)
