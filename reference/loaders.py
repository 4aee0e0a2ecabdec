"""Event loaders: CSV, JSON Lines, Parquet and stock-tick lines into a :class:`Stream`.

DESIGN.md, "Layers": ``events (CSV/JSONL/Parquet/...) ──validate──▶ Stream``.
Every loader reads rows (mappings) lazily and hands them to
:meth:`kleene.reference.events.Stream.from_rows`, which validates them
(missing or non-numeric ``ts``, unsorted ``ts``: a
:class:`~kleene.reference.errors.StreamError` naming the row and the field).
Rows are numbered from 0 over the data rows (a CSV header and blank lines are
not rows), so row ``i`` is the event at position ``i``. Nothing is dropped
silently: a row that does not parse is an error, never skipped.

Text formats (CSV, JSON Lines, stock lines) are read through gzip when the
file starts with gzip's magic bytes, whatever its name. The format comes from
the extension (after a ``.gz``) or is given explicitly:

=========  ===========================================================
format     extensions
=========  ===========================================================
csv        ``.csv``
jsonl      ``.jsonl``, ``.ndjson``
parquet    ``.parquet``, ``.pq``
stock      ``.stream``, ``.stock``, ``.stocks``
=========  ===========================================================

Value typing. CSV cells and stock-line values are text: a value that is
entirely an integer literal (``-12``) becomes an ``int``, one that is entirely
a decimal literal (``27.8500``, ``1e3``) a ``float`` (surrounding spaces are
ignored; ``nan``, ``inf`` and ``1_000`` stay strings), an empty CSV cell is
missing (``None``), anything else is a string. JSON and Parquet values keep
their own types. ISO datetimes in the timestamp field become epoch
milliseconds (``time_unit`` ``ms``), see :meth:`Stream.from_rows`.

A stock line is ``BUY(id=8,name=INTC,volume=100,price=27.8500,stock_time=25263126)``:
the word before the parenthesis is the event type, the ``key=value`` pairs are
attributes, and ``stock_time`` (milliseconds since midnight) is the timestamp,
so the stream's ``time_unit`` is ``ms``.
"""

from __future__ import annotations

import contextlib
import csv
import gzip
import itertools
import json
import os
import re
import zlib
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import IO, Any

from kleene.reference.errors import StreamError
from kleene.reference.events import Stream, Value, type_name

#: The formats :func:`load_events` reads.
FORMATS = ("csv", "jsonl", "parquet", "stock")

#: File extensions (lower case, after stripping ``.gz``) and their formats.
EXTENSIONS: dict[str, str] = {
    ".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl", ".parquet": "parquet",
    ".pq": "parquet", ".stream": "stock", ".stock": "stock", ".stocks": "stock",
}

#: The timestamp field of stock lines.
STOCK_TS = "stock_time"

_GZIP_MAGIC = b"\x1f\x8b"
_NUMBER = re.compile(r"\s*(?:(?P<int>[+-]?\d+)|[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*")
_STOCK_LINE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\((.*)\)")
#: The usual layout of a stock line, read in one step; it types every value as
#: :func:`text_value` would (other layouts take the general path).
_STOCK_USUAL = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\(id=(\d+),name=([A-Za-z_][A-Za-z0-9_.]*),"
                          r"volume=(\d+),price=(\d+\.\d*),stock_time=(\d+)\)\s*")

Row = Mapping[str, Any]
PathLike = str | os.PathLike[str]


def detect_format(path: PathLike) -> str:
    """The format of ``path`` from its extension (a trailing ``.gz`` is ignored)."""
    name = Path(path).name.lower()
    if name.endswith(".gz"):
        name = name[:-3]
    fmt = EXTENSIONS.get(Path(name).suffix)
    if fmt is None:
        known = ", ".join(sorted(EXTENSIONS))
        raise StreamError(f"cannot tell the format from the name (known extensions: {known}); "
                          f"give it explicitly (one of {', '.join(FORMATS)})", source=str(path))
    return fmt


def is_gzip(path: PathLike) -> bool:
    """Whether the file starts with gzip's magic bytes."""
    with _opened(path, lambda p: open(p, "rb")) as f:
        return f.read(2) == _GZIP_MAGIC


def open_text(path: PathLike, *, newline: str | None = None) -> IO[str]:
    """``path`` opened as UTF-8 text, decompressed when it is gzip (by magic bytes)."""
    if is_gzip(path):
        return _opened(path, lambda p: gzip.open(p, "rt", encoding="utf-8", newline=newline))
    return _opened(path, lambda p: open(p, encoding="utf-8", newline=newline))


def _opened(path: PathLike, opener: Callable[[PathLike], IO[Any]]) -> IO[Any]:
    try:
        return opener(path)
    except OSError as err:
        raise StreamError(f"cannot read the events: {err.strerror or err}",
                          source=str(path)) from None


def text_value(text: str) -> Value:
    """A CSV cell or stock-line value typed: ``int``, ``float``, else the string itself."""
    m = _NUMBER.fullmatch(text)
    if m is None:
        return text
    return int(text) if m.lastgroup == "int" else float(text)


def load_events(path: PathLike, *, format: str | None = None, ts: str | None = None,
                type: str | None = "type", time_unit: str | None = None,
                limit: int | None = None) -> Stream:
    """Load the events of ``path`` into a validated :class:`Stream`.

    ``format`` is one of :data:`FORMATS` (default: from the extension); ``ts``
    names the timestamp field (default ``ts``; ``stock_time`` for stock lines),
    ``type`` the type field (``None``: no type), ``time_unit`` the unit of the
    timestamps (``ms s min h d``; stock lines are in ``ms``); ``limit`` keeps
    the first ``limit`` events only (and reads no further).
    """
    fmt = (format or detect_format(path)).lower()
    if fmt not in _ROWS:
        raise StreamError(f"unknown event format {fmt!r}; use one of {', '.join(FORMATS)}",
                          source=str(path))
    if limit is not None and limit < 0:
        raise StreamError(f"limit must be non-negative, got {limit}", source=str(path))
    if fmt == "stock":
        ts = ts or STOCK_TS
        time_unit = time_unit or "ms"
    source = str(path)
    with contextlib.ExitStack() as stack:
        rows = _ROWS[fmt](path, stack, limit)
        return Stream.from_rows(itertools.islice(rows, limit), ts=ts or "ts", type=type,
                                time_unit=time_unit, source=source)


def read_csv(path: PathLike, **options: Any) -> Stream:
    """:func:`load_events` for a CSV file with a header row."""
    return load_events(path, format="csv", **options)


def read_jsonl(path: PathLike, **options: Any) -> Stream:
    """:func:`load_events` for a JSON Lines file (one object per line)."""
    return load_events(path, format="jsonl", **options)


def read_parquet(path: PathLike, **options: Any) -> Stream:
    """:func:`load_events` for a Parquet file."""
    return load_events(path, format="parquet", **options)


def read_stock(path: PathLike, **options: Any) -> Stream:
    """:func:`load_events` for stock-tick lines."""
    return load_events(path, format="stock", **options)


# ---------------------------------------------------------------- row readers

#: What a corrupt file raises while it is read (bad UTF-8, bad gzip, bad CSV quoting).
_READ_ERRORS = (UnicodeDecodeError, gzip.BadGzipFile, EOFError, zlib.error, csv.Error)


def _read_error(err: Exception, source: str, row: int | None) -> StreamError:
    """A :class:`StreamError` for one of :data:`_READ_ERRORS`."""
    if isinstance(err, UnicodeDecodeError):
        what = f"not UTF-8 text ({err.reason})"
    elif isinstance(err, csv.Error):
        what = f"malformed CSV: {err}"
    else:
        what = f"corrupt gzip data: {err or type_name(err)}"
    return StreamError(what, row=row, source=source)


def _csv_rows(path: PathLike, stack: contextlib.ExitStack, limit: int | None) -> Iterator[Row]:
    reader = csv.reader(stack.enter_context(open_text(path, newline="")))
    source = str(path)
    row: int | None = None
    try:
        header = next(reader, None)
        if header is None:
            return
        _check_header(header, source)
        row = 0
        for cells in reader:
            if not cells:  # a blank line carries no row
                continue
            if len(cells) != len(header):
                field = header[len(cells)] if len(cells) < len(header) else None
                raise StreamError(f"{len(cells)} cells where the header has {len(header)} "
                                  f"(line {reader.line_num})", row=row, field=field,
                                  source=source)
            yield {name: (text_value(cell) if cell != "" else None)
                   for name, cell in zip(header, cells, strict=True)}
            row += 1
    except _READ_ERRORS as err:
        raise _read_error(err, source, row) from None


def _check_header(header: list[str], source: str) -> None:
    """Column names must be non-empty and distinct."""
    if any(not name for name in header):
        raise StreamError("the header has an empty column name", source=source)
    twice = sorted({name for name in header if header.count(name) > 1})
    if twice:
        raise StreamError(f"the header names a column twice: {', '.join(twice)}", source=source)


def _jsonl_rows(path: PathLike, stack: contextlib.ExitStack, limit: int | None) -> Iterator[Row]:
    f = stack.enter_context(open_text(path))
    source = str(path)
    row = 0
    try:
        for number, line in enumerate(f, start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as err:
                raise StreamError(f"not JSON: {err.msg} (line {number}, column {err.colno})",
                                  row=row, source=source) from None
            if not isinstance(obj, dict):
                raise StreamError(f"expected a JSON object, got {type_name(obj)} "
                                  f"(line {number})", row=row, source=source)
            yield obj
            row += 1
    except _READ_ERRORS as err:
        raise _read_error(err, source, row) from None


def parse_stock_line(line: str, *, row: int = 0, source: str = "<events>") -> dict[str, Value]:
    """``BUY(id=8,name=INTC,...,stock_time=25263126)`` as ``{"type": "BUY", "id": 8, ...}``."""
    usual = _STOCK_USUAL.fullmatch(line)
    if usual is not None:
        kind, ident, name, volume, price, stamp = usual.groups()
        return {"type": kind, "id": int(ident), "name": name, "volume": int(volume),
                "price": float(price), STOCK_TS: int(stamp)}
    m = _STOCK_LINE.fullmatch(line.strip())
    if m is None:
        raise StreamError(f"not a stock line TYPE(key=value,...): {line.strip()[:60]!r}",
                          row=row, source=source)
    out: dict[str, Value] = {"type": m.group(1)}
    for pair in m.group(2).split(","):
        key, eq, value = pair.partition("=")
        key = key.strip()
        if not eq or not key:
            raise StreamError(f"expected key=value, got {pair!r}", row=row,
                              field=key or None, source=source)
        if key in out:
            raise StreamError(f"the field {key!r} appears twice", row=row, field=key,
                              source=source)
        out[key] = text_value(value)
    return out


def _stock_rows(path: PathLike, stack: contextlib.ExitStack, limit: int | None) -> Iterator[Row]:
    f = stack.enter_context(open_text(path))
    source = str(path)
    row = 0
    try:
        for line in f:
            if not line.strip():
                continue
            yield parse_stock_line(line, row=row, source=source)
            row += 1
    except _READ_ERRORS as err:
        raise _read_error(err, source, row) from None


def _parquet_rows(path: PathLike, stack: contextlib.ExitStack,
                  limit: int | None) -> Iterator[Row]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    source = str(path)
    target: Any = path
    if is_gzip(path):
        try:
            with gzip.open(path, "rb") as f:
                target = pa.BufferReader(f.read())
        except _READ_ERRORS as err:
            raise _read_error(err, source, None) from None
    try:
        parquet = stack.enter_context(pq.ParquetFile(target))
        for batch in parquet.iter_batches(batch_size=min(limit or _BATCH, _BATCH) or 1):
            yield from batch.to_pylist()
    except (pa.ArrowException, OSError) as err:
        raise StreamError(f"not a readable Parquet file: {err}", source=source) from None


_BATCH = 65_536

_ROWS: dict[str, Callable[[PathLike, contextlib.ExitStack, int | None], Iterator[Row]]] = {
    "csv": _csv_rows, "jsonl": _jsonl_rows, "parquet": _parquet_rows, "stock": _stock_rows,
}
