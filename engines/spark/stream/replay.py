"""A finished stream replayed as arriving files (tests, ``kleene demo``, ``bench``).

Spark's file source takes new files in order of modification time, so each
file written here gets a modification time one second after the previous one
(:func:`arrive`), and names that sort in the same order. :func:`chop` cuts a
table of events into parts at given row indexes, :func:`write_part` writes one
part as CSV, JSON Lines or Parquet; the stream concatenated in file order is
the stream the batch runner and the single-process engines read.
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from kleene.data.loaders import load_events

#: Modification time of the first file written (seconds since the epoch).
EPOCH = 1_700_000_000


def cuts(n: int, parts: int, rng: random.Random) -> list[int]:
    """``parts − 1`` distinct random cut points in ``1..n−1`` (fewer when ``n`` is small)."""
    return sorted(rng.sample(range(1, n), min(parts - 1, max(n - 1, 0))))


def chop(table: Any, at: Sequence[int]) -> Iterator[Any]:
    """The Arrow ``table`` cut at the row indexes ``at``."""
    bounds = [0, *at, table.num_rows]
    for a, b in zip(bounds, bounds[1:], strict=False):
        yield table.slice(a, b - a)


def arrive(path: Path, index: int) -> None:
    """Give ``path`` the modification time of the ``index``-th arrival."""
    os.utime(path, (EPOCH + index, EPOCH + index))


def write_part(part: Any, folder: Path, index: int, fmt: str) -> Path:
    """Write one part as file number ``index`` of ``folder`` (atomically: a hidden name
    renamed into place, so the source never sees half a file)."""
    import pyarrow.csv as pv
    import pyarrow.parquet as pq

    ext = {"csv": "csv", "jsonl": "jsonl", "parquet": "parquet"}[fmt]
    final = folder / f"part-{index:05d}.{ext}"
    hidden = folder / f".part-{index:05d}.{ext}"
    if fmt == "csv":
        pv.write_csv(part, hidden)
    elif fmt == "parquet":
        pq.write_table(part, hidden)
    else:
        with open(hidden, "w", encoding="utf-8") as f:
            for row in part.to_pylist():
                f.write(json.dumps(row) + "\n")
    arrive(hidden, index)
    hidden.rename(final)
    return final


__all__ = ["EPOCH", "arrive", "chop", "cuts", "stock_table", "write_part"]


def stock_table(path: str, limit: int | None = None) -> Any:
    """The stock stream of ``path`` as an Arrow table: ``ts`` (ms), ``type`` and the
    attributes, in stream order (read by :func:`kleene.data.loaders.load_events`)."""
    import pyarrow as pa


    s = load_events(path, ts="stock_time", limit=limit)
    cols = s.columns
    assert cols is not None and cols.types is not None
    n = len(cols)
    data = {"ts": cols.ts.slice(0, n), "type": cols.types.slice(0, n)}
    for name in cols.attrs.column_names:
        data[name] = cols.attrs.column(name).slice(0, n)
    return pa.table(data)
