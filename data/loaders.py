"""Event loaders: CSV, JSON Lines, Parquet and stock-tick lines into a :class:`Stream`.

docs/architecture.md, "Layers": ``events (CSV/JSONL/Parquet/...) ──validate──▶ Stream``.
CSV, Parquet and stock lines are read by Arrow's readers into columns and
validated by vector operations (:func:`kleene.data.columnar.validated`:
missing, non-numeric or non-finite ``ts``, numbers mixed with ISO dates,
unsorted ``ts`` unless ``sort=True``, a type field other than ``type`` that no
row has, values that are not strings, numbers or booleans); no Python loop
runs over the rows, and an event is built only for the rows that reach the
reference or an engine. JSON Lines go through Python's ``json`` (it sees
duplicate keys) and :meth:`kleene.reference.events.Stream.from_rows`, which
applies the same checks row by row. Each problem is a
:class:`~kleene.reference.errors.StreamError` naming the file, the row and the
field.
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
a decimal literal (``27.8500``, ``1e3``) a ``float`` (surrounding ASCII spaces
are ignored; digits are ASCII; ``nan``, ``inf`` and ``1_000`` stay strings;
:mod:`kleene.data.textvalues`), an empty CSV cell is missing (``None``),
anything else is a string. JSON and Parquet values keep their own types (a
float NaN is missing). ISO datetimes in the timestamp field become epoch
milliseconds (``time_unit`` ``ms``); so do Parquet timestamps of any unit
(pandas writes nanoseconds: rounded to the nearest ms, half to even) and
dates. A timestamp column holds numbers or ISO datetimes, not both. A
timestamp column of whole and decimal numbers is read as floats. Timestamps
are never rounded into ties: a CSV integer timestamp past int64 (or past 2**53
beside decimal ones) and a Parquet ``uint64`` one past int64 are errors naming
the row; JSON integers stay Python integers (exact at any size); a string
``"NaN"`` or ``"inf"`` is no timestamp.

Hostile input, each a documented rule: a UTF-8 byte-order mark at the start
of a text file is dropped; column names are case-sensitive (``ID`` and ``id``
are two attributes, also under ``--spark``); a file of more than
:data:`MAX_COLUMNS` columns (a CSV header's names, a Parquet file's columns, a
JSON object's keys), a CSV header or a Parquet schema naming a column twice, a
JSON object naming a key twice, a NaN or infinite timestamp, a CSV quote that is
never closed, and a type field (other than the default ``type``) that no row has
are errors; an empty file or a CSV file with a header only is an empty stream.

A stock line is ``BUY(id=8,name=INTC,volume=100,price=27.8500,stock_time=25263126)``:
the word before the parenthesis is the event type, the ``key=value`` pairs are
attributes, and ``stock_time`` (milliseconds since midnight) is the timestamp,
so the stream's ``time_unit`` is ``ms``.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import os
import zlib
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from typing import IO, Any

import pyarrow as pa
import pyarrow.csv as pacsv

from kleene.data.columnar import validated
from kleene.data.filebytes import EXTENSIONS, GZIP_MAGIC, file_bytes, format_of, prefetched
from kleene.data.stock import STOCK_TS, parse_stock_line, stock_table
from kleene.data.textvalues import text_value
from kleene.reference.errors import StreamError
from kleene.reference.events import Stream, canonical_unit, type_name

__all__ = ["EXTENSIONS", "FORMATS", "STOCK_TS", "detect_format", "is_gzip", "load_events",
           "open_text", "parse_stock_line", "read_csv", "read_jsonl", "read_parquet",
           "read_stock", "text_value"]

#: The formats :func:`load_events` reads.
FORMATS = ("csv", "jsonl", "parquet", "stock")

PathLike = str | os.PathLike[str]

#: The most columns an event file may have: a CSV header's names, a Parquet file's
#: columns, a JSON object's keys (:func:`check_header`).
MAX_COLUMNS = 10_000


def check_header(names: Sequence[str], source: str, *, row: int | None = None) -> None:
    """Refuse more than :data:`MAX_COLUMNS` column names, an empty name, or a name given
    twice, in time linear in the names (one line, :class:`StreamError`)."""
    if len(names) > MAX_COLUMNS:
        raise StreamError(f"{len(names):,} columns, more than the {MAX_COLUMNS:,} an event "
                          "file may have", row=row, source=source)
    if any(not name for name in names):
        raise StreamError("the header has an empty column name", source=source)
    twice = sorted(name for name, count in Counter(names).items() if count > 1)
    if twice:
        raise StreamError(f"the header names a column twice: {', '.join(twice)}", source=source)


def detect_format(path: PathLike) -> str:
    """The format of ``path`` from its extension (a trailing ``.gz`` is ignored)."""
    fmt = format_of(path)
    if fmt is None:
        known = ", ".join(sorted(EXTENSIONS))
        raise StreamError(f"cannot tell the format from the name (known extensions: {known}); "
                          f"give it explicitly (one of {', '.join(FORMATS)})", source=str(path))
    return fmt


def is_gzip(path: PathLike) -> bool:
    """Whether the file starts with gzip's magic bytes."""
    with _opened(path, lambda p: open(p, "rb")) as f:
        return f.read(2) == GZIP_MAGIC


def open_text(path: PathLike, *, newline: str | None = None) -> IO[str]:
    """``path`` opened as UTF-8 text (a byte-order mark dropped), decompressed when it is
    gzip (by magic bytes)."""
    if is_gzip(path):
        return _opened(path, lambda p: gzip.open(p, "rt", encoding="utf-8-sig",
                                                 newline=newline))
    return _opened(path, lambda p: open(p, encoding="utf-8-sig", newline=newline))


def _opened(path: PathLike, opener: Callable[[PathLike], IO[Any]]) -> IO[Any]:
    try:
        return opener(path)
    except OSError as err:
        raise StreamError(f"cannot read the events: {err.strerror or err}",
                          source=str(path)) from None


def read_bytes(path: PathLike) -> bytes:
    """The bytes of ``path``, decompressed when it is gzip (by magic bytes); the bytes a
    :func:`~kleene.data.filebytes.prefetch` read ahead, if any."""
    return read_bytes_further(path)[0]


def read_bytes_further(path: PathLike) -> tuple[bytes, tuple[object] | None]:
    """:func:`read_bytes`, and what the format's reader made of them on the read-ahead
    thread (:func:`~kleene.data.filebytes.read_further`; ``None``: nothing)."""
    ahead = prefetched(path)
    if ahead is not None:
        return ahead
    try:
        return file_bytes(path), None
    except OSError as err:
        raise StreamError(f"cannot read the events: {err.strerror or err}",
                          source=str(path)) from None
    except (zlib.error, EOFError) as err:
        raise StreamError(f"corrupt gzip data: {err}", source=str(path)) from None


def load_events(path: PathLike, *, format: str | None = None, ts: str | None = None,
                type: str | None = "type", time_unit: str | None = None,
                limit: int | None = None, sort: bool = False) -> Stream:
    """Load the events of ``path`` into a validated :class:`Stream`.

    ``format`` is one of :data:`FORMATS` (default: from the extension); ``ts``
    names the timestamp field (default ``ts``; ``stock_time`` for stock lines),
    ``type`` the type field (``None``: no type), ``time_unit`` the unit of the
    timestamps (``ms s min h d``; stock lines are in ``ms``); ``limit`` keeps
    the first ``limit`` events only; ``sort`` sorts the events by ``ts``
    (stably) instead of rejecting a file that is out of order.
    """
    fmt = (format or detect_format(path)).lower()
    if fmt not in FORMATS:
        raise StreamError(f"unknown event format {fmt!r}; use one of {', '.join(FORMATS)}",
                          source=str(path))
    if limit is not None and limit < 0:
        raise StreamError(f"limit must be non-negative, got {limit}", source=str(path))
    if fmt == "stock":
        ts = ts or STOCK_TS
        time_unit = time_unit or "ms"
    ts = ts or "ts"
    source = str(path)
    unit = canonical_unit(time_unit) if time_unit else None
    if fmt == "jsonl":
        return Stream.from_rows(_jsonl_rows(path, limit), ts=ts, type=type, time_unit=time_unit,
                                source=source, sort=sort)
    if fmt == "parquet":
        table = _parquet_table(path, limit)
        text, sparse, unit = _written_by_convert(table, unit)
    elif fmt == "csv":
        table = _csv_table(path, limit)
        text, sparse = table.column_names, frozenset()
    else:
        data, further = read_bytes_further(path)
        table, sparse = stock_table(data, source, limit, further)
        text = table.column_names
    columns, converted = validated(table, ts=ts, type=type, source=source, text=text,
                                   sparse=sparse, sort=sort)
    return Stream.from_columns(columns, "ms" if converted else unit)


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


# ---------------------------------------------------------------- CSV

def _csv_table(path: PathLike, limit: int | None) -> pa.Table:
    """The CSV file as a table of string columns (empty cells null), read by Arrow."""
    source = str(path)
    data = read_bytes(path)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        row = data[:err.start].count(b"\n") - 1
        raise StreamError(f"not UTF-8 text ({err.reason})", row=max(row, 0) if row >= 0
                          else None, source=source) from None
    header = next(csv.reader(io.StringIO(text, newline="")), None)
    if header is None:
        return pa.table({})
    check_header(header, source)
    if b"\n" not in data and b"\r" not in data:   # the header alone, without its newline:
        data += b"\n"                            # Arrow would find no row to count columns
    invalid: list[int] = []

    def skip(row: Any) -> str:
        invalid.append(row.number)
        return "skip"

    if data.count(b'"') % 2:
        _locate_csv_error(text, header, source, limit, strict=True)
    block = 1 << 22
    while True:
        try:
            table = pacsv.read_csv(
                pa.BufferReader(data),
                parse_options=pacsv.ParseOptions(newlines_in_values=True,
                                                 invalid_row_handler=skip),
                convert_options=pacsv.ConvertOptions(
                    column_types={name: pa.string() for name in header},
                    strings_can_be_null=True, null_values=[""],
                    quoted_strings_can_be_null=True),
                read_options=pacsv.ReadOptions(block_size=block))
            break
        except pa.ArrowInvalid as err:
            if "straddl" in str(err) and block <= len(data):   # a row longer than a block
                block, invalid[:] = 2 * len(data) + 1, []
                continue
            raise StreamError(f"malformed CSV: {err}", source=source) from None
    if invalid:
        _locate_csv_error(text, header, source, limit, strict=False)
    return table if limit is None else table.slice(0, limit)


def _locate_csv_error(text: str, header: list[str], source: str, limit: int | None,
                      strict: bool) -> None:
    """Name the first malformed data row (Arrow said that one is malformed but not which
    data row it is): a row whose cell count is not the header's, or a quote never closed.
    Rows at or past ``limit`` are not read."""
    reader = csv.reader(io.StringIO(text, newline=""), strict=strict)
    row = 0
    try:
        next(reader)
        for cells in reader:
            if limit is not None and row >= limit:
                return
            if not cells:
                continue
            if len(cells) != len(header):
                field = header[len(cells)] if len(cells) < len(header) else None
                raise StreamError(f"{len(cells)} cells where the header has {len(header)} "
                                  f"(line {reader.line_num})", row=row, field=field,
                                  source=source)
            row += 1
    except csv.Error as err:
        raise StreamError(f"malformed CSV: {err} (a quote is never closed?)", row=row,
                          source=source) from None


# ---------------------------------------------------------------- Parquet

def _parquet_table(path: PathLike, limit: int | None) -> pa.Table:
    import pyarrow.parquet as pq

    source = str(path)
    target: Any = str(path)
    if is_gzip(path):
        target = pa.BufferReader(read_bytes(path))
    try:
        with pq.ParquetFile(target) as parquet:
            check_header(parquet.schema_arrow.names, source)
            if limit is None:
                return parquet.read()
            batches = []
            got = 0
            for batch in parquet.iter_batches(batch_size=max(1, min(limit, 65_536))):
                batches.append(batch)
                got += batch.num_rows
                if got >= limit:
                    break
            table = pa.Table.from_batches(batches, schema=parquet.schema_arrow)
            return table.slice(0, limit)
    except (pa.ArrowException, OSError) as err:
        raise StreamError(f"not a readable Parquet file: {err}", source=source) from None


def _written_by_convert(table: pa.Table, unit: str | None
                        ) -> tuple[list[str], frozenset[str], str | None]:
    """What ``kleene convert`` kept in a Parquet file's metadata: the text columns, the
    sparse columns and the time unit (a unit given explicitly wins)."""
    meta = table.schema.metadata or {}

    def names(key: bytes) -> list[str]:
        return [n for n in meta.get(key, b"").decode().split(",") if n]

    written = meta.get(b"kleene.time_unit")
    return (names(b"kleene.text"), frozenset(names(b"kleene.sparse")),
            unit or (written.decode() if written else None))


# ---------------------------------------------------------------- JSON Lines

def _no_duplicates(row: int, source: str
                   ) -> Callable[[list[tuple[str, Any]]], dict[str, Any]]:
    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in pairs:
            if key in out:
                raise StreamError(f"the key {key!r} appears twice in one object", row=row,
                                  field=key, source=source)
            out[key] = value
        return out
    return hook


def _jsonl_rows(path: PathLike, limit: int | None) -> Iterator[dict[str, Any]]:
    f = open_text(path)
    source = str(path)
    row = 0
    try:
        with f:
            for number, line in enumerate(f, start=1):
                if limit is not None and row >= limit:
                    return
                if not line.strip():
                    continue
                try:
                    obj = json.loads(line, object_pairs_hook=_no_duplicates(row, source))
                except json.JSONDecodeError as err:
                    raise StreamError(f"not JSON: {err.msg} (line {number}, column {err.colno})",
                                      row=row, source=source) from None
                if not isinstance(obj, dict):
                    raise StreamError(f"expected a JSON object, got {type_name(obj)} "
                                      f"(line {number})", row=row, source=source)
                if len(obj) > MAX_COLUMNS:
                    check_header(list(obj), source, row=row)
                yield obj
                row += 1
    except (UnicodeDecodeError, gzip.BadGzipFile, EOFError, zlib.error) as err:
        what = f"not UTF-8 text ({err.reason})" if isinstance(err, UnicodeDecodeError) \
            else f"corrupt gzip data: {err or type_name(err)}"
        raise StreamError(what, row=row, source=source) from None
