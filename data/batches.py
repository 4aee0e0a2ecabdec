"""Events read in batches of columns: a file larger than memory, in bounded memory.

docs/architecture.md, "Layers": the same ``events ──validate──▶ stream`` as
:func:`kleene.data.loaders.load_events`, batch by batch. A
:class:`Batched` source reads Parquet row groups, or stock lines through
Arrow's streaming CSV reader (gzip decompressed as it goes), validates each
batch with :func:`kleene.data.columnar.validated` (errors name the row
of the file: the batch's offset is added) and checks the order of timestamps
across batches. Engines read :meth:`Batched.batches` (the windows framework
keeps only the last 2τ of filtered events, :mod:`kleene.engines.windows.pruning`;
the SES automaton only its instances), so memory is bounded by the batch and
the window, not by the stream. Iterating a source yields its events.

Stock lines must all have the first line's layout (the fast layout of
:mod:`kleene.data.stock`); CSV and JSON Lines are not read in batches
(``--stream`` loads them whole); ``--sort`` needs the whole file. :func:`open_events`
picks: a :class:`Batched` source where the format allows it, else the whole file.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.csv as pacsv

from kleene.data.columnar import Columns, validated
from kleene.data.filebytes import LINE_BYTES, text_size
from kleene.data.loaders import (
    PathLike,
    _written_by_convert,
    check_header,
    detect_format,
    is_gzip,
    load_events,
)
from kleene.data.stock import STOCK_TS, first_line, read_options, split_fields, stock_layout
from kleene.reference.errors import StreamError
from kleene.reference.events import Event, Stream, canonical_unit

#: Rows per batch of a Parquet file (stock lines: 4 MB blocks of text, about 58,000 lines).
ROWS = 262_144
_BLOCK = 1 << 22


class Batched:
    """The events of ``path`` (stock lines or Parquet), read in batches when iterated
    (``rows`` rows of Parquet, ``block`` bytes of stock lines at a time).

    ``time_unit`` is known once the first batch is read (the constructor reads
    it: ISO datetimes make it ``ms``); ``len()`` is the number of events read
    so far (all of them once a run has consumed the source).
    """

    def __init__(self, path: str | os.PathLike[str], fmt: str, *, ts: str,
                 type: str | None, time_unit: str | None, limit: int | None,
                 rows: int = ROWS, block: int = _BLOCK) -> None:
        self.path, self.source, self.fmt = path, str(path), fmt
        self.rows, self.block = rows, block
        self.ts, self.type, self.limit = ts, type, limit
        self.time_unit = canonical_unit(time_unit) if time_unit else None
        self.read = 0
        first = next(self._tables(), None)   # the first batch says if ts are ISO dates
        if first is not None and self._validate(first, 0)[1]:
            self.time_unit = "ms"

    def __len__(self) -> int:
        return self.read

    def __iter__(self) -> Iterator[Event]:
        for offset, part in self.batches():
            yield from part.events(offset=offset)

    def batches(self) -> Iterator[tuple[int, Columns]]:
        """``(offset, columns)`` per batch, validated, in stream order."""
        self.read = 0
        previous: float | None = None
        for table in self._tables():
            part, _ = self._validate(table, self.read)
            n = len(part)
            if not n:
                continue
            start = part.ts[0].as_py()
            if previous is not None and start < previous:
                raise StreamError(f"timestamp {start} is earlier than the previous row's "
                                  f"{previous}; sort the events by {self.ts}", row=self.read,
                                  field=self.ts, source=self.source)
            previous = part.ts[n - 1].as_py()
            offset, self.read = self.read, self.read + n
            yield offset, part

    def _validate(self, table: tuple[pa.Table, list[str], frozenset[str]],
                  offset: int) -> tuple[Columns, bool]:
        rows, text, sparse = table
        try:
            return validated(rows, ts=self.ts, type=self.type, source=self.source, text=text,
                             sparse=sparse)
        except StreamError as err:
            if err.row is not None:
                err.row += offset
            raise

    def _tables(self) -> Iterator[tuple[pa.Table, list[str], frozenset[str]]]:
        """The raw tables of the file (string columns for stock lines), ``limit`` rows."""
        left = self.limit
        for table, text, sparse in (self._stock() if self.fmt == "stock" else self._parquet()):
            if left is not None:
                table = table.slice(0, left)
                left -= table.num_rows
            yield table, text, sparse
            if left is not None and left <= 0:
                return

    def _stock(self) -> Iterator[tuple[pa.Table, list[str], frozenset[str]]]:
        compression = "gzip" if is_gzip(self.path) else None
        with pa.input_stream(self.source, compression=compression) as f:
            head = f.read(65_536)
        if head.startswith(b"\xef\xbb\xbf"):
            head = head[3:]
        keys = read_layout(head, self.source)
        if not keys:
            return
        stream = pa.input_stream(self.source, compression=compression)
        try:
            reader = pacsv.open_csv(stream, **read_options(keys, self.block))
            text = ["type", *keys]
            for batch in reader:
                columns = split_fields(pa.Table.from_batches([batch]), keys)
                if columns is None:
                    raise _layout_error(self.source, self.read)
                yield columns, text, frozenset()
        except pa.ArrowInvalid as err:
            raise _layout_error(self.source, self.read, str(err)) from None
        finally:
            stream.close()

    def _parquet(self) -> Iterator[tuple[pa.Table, list[str], frozenset[str]]]:
        import pyarrow.parquet as pq

        try:
            parquet = pq.ParquetFile(self.source)
        except (pa.ArrowException, OSError) as err:
            raise StreamError(f"not a readable Parquet file: {err}", source=self.source) from None
        with parquet:
            check_header(parquet.schema_arrow.names, self.source)
            meta = pa.table({}).replace_schema_metadata(parquet.schema_arrow.metadata)
            text, sparse, unit = _written_by_convert(meta, self.time_unit)
            self.time_unit = unit
            for batch in parquet.iter_batches(batch_size=self.rows):
                yield pa.Table.from_batches([batch]), text, sparse


def read_layout(head: bytes, source: str) -> list[str] | None:
    """The keys of the first stock line in ``head``; an error if the fast layout cannot
    read it (streaming reads no other)."""
    keys = stock_layout(first_line(head))
    if keys is None:
        raise _layout_error(source, 0)
    return keys


def _layout_error(source: str, row: int, detail: str = "") -> StreamError:
    more = f" ({detail})" if detail else ""
    return StreamError("a stock line in this batch is not in the first line's layout (the "
                       f"same keys in the same order, no spaces){more}; read the file "
                       "without --stream", row=row, source=source)


def estimated_events(path: PathLike, fmt: str) -> int | None:
    """About how many events ``path`` holds, without reading them: a Parquet file's row
    count (its footer), stock lines' text size over :data:`~kleene.data.filebytes.LINE_BYTES`;
    ``None`` for another format (not read in batches) or a file that cannot be read."""
    if fmt == "stock":
        return text_size(path) // LINE_BYTES
    if fmt != "parquet":
        return None
    import pyarrow.parquet as pq  # lazy: the startup floor of kleene match (stock lines)

    try:
        return int(pq.ParquetFile(str(path)).metadata.num_rows)
    except (pa.ArrowException, OSError):
        return None


def open_batches(path: str | os.PathLike[str], fmt: str, **options: Any) -> Batched:
    """A :class:`Batched` source (``fmt`` ``stock`` or ``parquet``)."""
    return Batched(path, fmt, **options)


def open_events(path: PathLike, *, format: str | None = None, ts: str | None = None,
                type: str | None = "type", time_unit: str | None = None,
                limit: int | None = None, sort: bool = False) -> Stream | Any:
    """The events of ``path`` read in batches when the format allows it (stock lines and
    Parquet, not sorted: a :class:`Batched` source, iterated
    in bounded memory); otherwise :func:`~kleene.data.loaders.load_events`."""
    fmt = (format or detect_format(path)).lower()
    if fmt not in ("stock", "parquet") or sort:
        return load_events(path, format=format, ts=ts, type=type, time_unit=time_unit,
                           limit=limit, sort=sort)
    if fmt == "stock":
        ts, time_unit = ts or STOCK_TS, time_unit or "ms"
    if not Path(path).exists():
        raise StreamError("cannot read the events: No such file or directory",
                          source=str(path))
    return open_batches(path, fmt, ts=ts or "ts", type=type, time_unit=time_unit, limit=limit)
