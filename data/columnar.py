"""The columnar event plane: a stream held as Arrow columns, rows built on demand.

docs/architecture.md, "Layers": ``events ──validate──▶ Stream``. A :class:`Columns`
holds the events of a stream as typed Arrow columns: the timestamps
(``int64`` or ``float64``), the types (strings, or none) and one column per
attribute, missing values as nulls; positions are implicit (row ``i`` is the
event at position ``i``, seed 000 Sec. 3.1's total order). An
:class:`~kleene.reference.events.Event` is built only for the rows that reach
the reference or an engine (:meth:`Columns.events`), and it is exactly the
event the row-by-row rule gives (:meth:`~kleene.reference.events.Stream.from_rows`):
text cells typed by :func:`~kleene.data.textvalues.text_value`, missing
values ``None``, and an attribute absent from a row (a *sparse* column: stock
lines with different keys) absent from its ``attrs``.

:func:`validated` turns a table read by a loader into :class:`Columns`,
with the checks of ``from_rows`` done by vector operations: a missing,
non-numeric or non-finite timestamp, numbers mixed with ISO datetimes,
unsorted timestamps (or a stable sort by ``ts`` with ``sort=True``), a type
field other than ``type`` that no row has, and attribute values that are
neither strings, numbers nor booleans; each a
:class:`~kleene.reference.errors.StreamError` naming the first bad row.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from kleene.data.textvalues import (
    BOOL_KIND,
    FLOAT_KIND,
    INT_KIND,
    NUM_RE,
    STR_KIND,
    TEXT_KIND,
    may_hold_numbers,
    text_value,
    typed_column,
)
from kleene.data.threads import PARALLEL_ROWS, each
from kleene.data.timestamps import combined, first_row, int64_array, timestamps
from kleene.reference.errors import StreamError
from kleene.reference.events import Event

#: Rows converted to events at once when a whole stream is iterated.
ROWS = 65_536


@dataclass(frozen=True)
class Columns:
    """Events as columns: ``ts``, ``types`` (``None``: no type field) and ``attrs``.

    ``kinds`` says what each attribute column holds (``int float str bool
    text``, :mod:`kleene.data.textvalues`); ``sparse`` names the columns
    whose nulls mean "absent from the row" rather than "missing value".
    """

    ts: pa.ChunkedArray
    types: pa.ChunkedArray | None
    attrs: pa.Table
    kinds: dict[str, str]
    sparse: frozenset[str] = field(default_factory=frozenset)

    def __len__(self) -> int:
        return len(self.ts)

    def column(self, name: str) -> tuple[Any, str] | None:
        """``e.value(name)`` for every row as ``(array, kind)``; ``None`` if no row has it."""
        if name == "ts":
            return self.ts, FLOAT_KIND if pa.types.is_floating(self.ts.type) else INT_KIND
        if name == "type":
            return (self.types, STR_KIND) if self.types is not None else None
        if name not in self.kinds:
            return None
        return self.attrs.column(name), self.kinds[name]

    def slice(self, start: int, stop: int) -> Columns:
        """Rows ``start..stop-1`` (positions are relative to ``start``)."""
        n = stop - start
        return Columns(self.ts.slice(start, n),
                       None if self.types is None else self.types.slice(start, n),
                       self.attrs.slice(start, n), self.kinds, self.sparse)

    def take(self, rows: Sequence[int] | np.ndarray) -> Columns:
        """The rows ``rows`` (stream order kept as given) as columns of their own:
        positions are renumbered ``0..len(rows)-1`` (what an engine downstream of a
        filter sees)."""
        index = int64_array(rows)
        return Columns(self.ts.take(index),
                       None if self.types is None else self.types.take(index),
                       self.attrs.take(index), self.kinds, self.sparse)

    def events(self, positions: Sequence[int] | np.ndarray | None = None,
               offset: int = 0) -> list[Event]:
        """The events at ``positions`` (all rows if ``None``); ``offset`` is added to each
        position (the position of row 0 of this slice in the stream)."""
        read, n = self.reader(positions, offset)
        return list(map(read, range(n)))

    def reader(self, positions: Sequence[int] | np.ndarray | None = None,
               offset: int = 0, only: Collection[str] | None = None
               ) -> tuple[Callable[[int], Event], int]:
        """``(read, n)``: ``read(i)`` builds the ``i``-th of the :meth:`events` at
        ``positions`` when asked (the cells are read from the columns at once, the
        events one by one: an engine that reads few of them builds only those). With
        ``only``, the events carry only those attributes (``type``: the type), for an
        engine that reads no other cell of them."""
        if positions is None:
            idx = None
            where: Sequence[int] = range(offset, offset + len(self))
        else:
            idx = int64_array(positions)
            where = (np.asarray(positions, dtype=np.int64) + offset).tolist()

        def values(col: Any) -> list[Any]:
            return (col if idx is None else col.take(idx)).to_pylist()

        stamps = values(self.ts)
        types = values(self.types) if self.types is not None and \
            (only is None or "type" in only) else [None] * len(stamps)
        names = [n for n in self.attrs.column_names if only is None or n in only]
        cols = []
        for name in names:
            vals = values(self.attrs.column(name))
            if self.kinds[name] == TEXT_KIND:
                vals = [v if v is None else text_value(v) for v in vals]
            cols.append(vals)
        sparse = [name in self.sparse for name in names]
        shown = tuple(zip(names, cols, sparse, strict=True))
        dense = not any(sparse)

        def read(i: int) -> Event:
            if dense:
                return Event(where[i], stamps[i], types[i], {n: c[i] for n, c, _ in shown})
            return Event(where[i], stamps[i], types[i],
                         {n: c[i] for n, c, s in shown if not (s and c[i] is None)})
        return read, len(stamps)

    def iter_events(self, rows: int = ROWS) -> Iterator[Event]:
        """Every event in stream order, built ``rows`` at a time."""
        for start in range(0, len(self), rows):
            yield from self.slice(start, min(start + rows, len(self))).events(offset=start)

    def table(self, ts: str = "ts", type: str = "type") -> pa.Table:
        """One Arrow table: ``ts``, ``type`` (if any) and the attributes; the column kinds
        and sparse columns in the schema's metadata (a Parquet file keeps them)."""
        clash = {ts, type} & set(self.attrs.column_names)
        if clash:
            raise StreamError(f"an attribute is named {sorted(clash)[0]!r} like the "
                              "timestamp or type column")
        arrays = [self.ts] + ([self.types] if self.types is not None else [])
        names = [ts] + ([type] if self.types is not None else [])
        t = pa.table(arrays + list(self.attrs.columns), names=names + self.attrs.column_names)
        text = [n for n, k in self.kinds.items() if k == TEXT_KIND]
        meta = {b"kleene.text": ",".join(text).encode(),
                b"kleene.sparse": ",".join(sorted(self.sparse)).encode()}
        return t.replace_schema_metadata({**(t.schema.metadata or {}), **meta})


def columns_of(events: Sequence[Event]) -> Columns:
    """The columns of events (positions 0..n-1): the inverse of :meth:`Columns.events`.

    A column whose values mix kinds is kept as *text* when that is exact (every
    string stays a string under the text rule, every float prints back to
    itself); otherwise (booleans mixed with others, a string like ``"5"`` beside
    numbers) it cannot be a column and this raises ``ValueError``.
    """
    for i, e in enumerate(events):
        if e.position != i:
            raise ValueError(f"position {e.position} where {i} was expected")
    names: dict[str, None] = {}
    for e in events:
        names.update(dict.fromkeys(e.attrs))
    sparse = frozenset(n for n in names if any(n not in e.attrs for e in events))
    if any(e.attrs.get(n, 0) is None for n in sparse for e in events):
        raise ValueError("an attribute is absent from some events and None in others")
    stamps = [e.ts for e in events]
    floats = any(isinstance(t, float) for t in stamps)
    for t in stamps:   # a Python int past int64 (or past 2**53 among floats) would round
        if isinstance(t, int) and not (abs(t) <= 2**53 if floats else -(2**63) <= t < 2**63):
            raise ValueError(f"timestamp {t} does not fit "
                             f"{'a float beside decimal timestamps' if floats else 'int64'}")
    ts = pa.array(stamps, pa.float64() if floats else pa.int64())
    types = None
    if any(e.type is not None for e in events):
        types = pa.chunked_array([pa.array([e.type for e in events], pa.string())])
    columns, kinds = {}, {}
    for name in names:
        columns[name], kinds[name] = _column_of([e.attrs.get(name) for e in events], name)
    attrs = pa.table(columns) if columns else pa.table({"_": pa.nulls(len(events))}).drop(["_"])
    return Columns(pa.chunked_array([ts]), types, attrs, kinds, sparse)


def _column_of(values: list[Any], name: str) -> tuple[pa.Array, str]:
    present = {type(v) for v in values if v is not None}
    for t, arrow, kind in ((bool, pa.bool_(), BOOL_KIND), (int, pa.int64(), INT_KIND),
                           (float, pa.float64(), FLOAT_KIND), (str, pa.string(), STR_KIND)):
        if present <= {t} and (t is not int or all(
                -(2**63) <= v < 2**63 for v in values if v is not None)):
            return pa.array(values, arrow), kind
    if bool not in present and all(
            (text_value(v) == v and isinstance(text_value(v), str)) if isinstance(v, str)
            else text_value(repr(v)) == v and type(text_value(repr(v))) is type(v)
            for v in values if v is not None):
        return pa.array([None if v is None else v if isinstance(v, str) else repr(v)
                         for v in values], pa.string()), TEXT_KIND
    raise ValueError(f"attribute {name!r} mixes kinds that one column cannot hold")


# ---------------------------------------------------------------- validation


# ---------------------------------------------------------------- a table as a stream

_PY_NAMES = {"list": "list", "large_list": "list", "fixed_size_list": "list", "struct": "dict",
             "map": "dict", "binary": "bytes", "large_binary": "bytes", "decimal": "Decimal"}


def validated(table: pa.Table, *, ts: str, type: str | None, source: str,
              text: Sequence[str] = (), sparse: frozenset[str] = frozenset(),
              sort: bool = False) -> tuple[Columns, bool]:
    """``table`` checked and typed as a stream, and whether ``ts`` became epoch ms.

    ``text`` names the columns read from text (typed by the text rule);
    ``sparse`` those whose nulls mean "absent". With ``sort`` the rows are
    sorted by ``ts``, stably (ties keep their file order); otherwise the first
    row earlier than its predecessor is an error.
    """
    names = table.column_names
    if ts not in names:
        if table.num_rows == 0:
            return Columns(pa.chunked_array([], pa.int64()), None, pa.table({}), {}), False
        raise StreamError("missing timestamp (no such column; the columns are: "
                          f"{', '.join(names)})", row=0, field=ts, source=source)
    if type and type not in names and type != "type" and table.num_rows:
        raise StreamError(f"no row has the type field {type!r}; the columns are: "
                          f"{', '.join(names)}", field=type, source=source)
    attributes = [n for n in names if n != ts and n != type]
    # each column typed on its own (on several cores for a large table: threads.each)
    calls: list[Callable[[], Any]] = [
        lambda: timestamps(table.column(ts), name=ts, source=source),
        lambda: _type_column(table.column(type), type in text) if type in names else None,
        *(partial(_attribute_column, table.column(n), n in text, n, source)
          for n in attributes)]
    done = each(calls, parallel=table.num_rows >= PARALLEL_ROWS)
    errors = [d for d in done if isinstance(d, StreamError)]
    unexpected = [d for d in done if isinstance(d, Exception) and not isinstance(d, StreamError)]
    if unexpected:
        raise unexpected[0]
    stamps: pa.Array | None = None
    converted = False
    if not isinstance(done[0], Exception):
        stamps, converted = done[0]
    types = None if isinstance(done[1], Exception) else done[1]
    columns: dict[str, Any] = {}
    kinds: dict[str, str] = {}
    for name, column in zip(attributes, done[2:], strict=True):
        if not isinstance(column, Exception):
            columns[name], kinds[name] = column
    if stamps is not None and not sort and len(stamps) > 1:
        values = stamps.to_numpy()
        back = np.flatnonzero(values[1:] < values[:-1])
        if len(back):
            row = int(back[0]) + 1
            errors.append(StreamError(
                f"timestamp {values[row].item()} is earlier than the previous row's "
                f"{values[row - 1].item()}; sort the events by {ts} (or use --sort)",
                row=row, field=ts, source=source))
    if errors:
        raise min(errors, key=lambda e: e.row if e.row is not None else -1)
    assert stamps is not None
    attrs = pa.table(columns) if columns else pa.table({"_": pa.nulls(len(stamps))}).drop(["_"])
    if sort:
        order = pc.sort_indices(stamps)
        stamps, attrs = stamps.take(order), attrs.take(order)
        types = None if types is None else types.take(order)
    chunked = pa.chunked_array([stamps]) if isinstance(stamps, pa.Array) else stamps
    if types is not None and isinstance(types, pa.Array):
        types = pa.chunked_array([types])
    return Columns(chunked, types, attrs, kinds, frozenset(sparse) & set(kinds)), converted


def _type_column(raw: Any, from_text: bool) -> pa.Array:
    arr = combined(raw)
    if pa.types.is_dictionary(arr.type):
        arr = arr.dictionary_decode()
    if pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type):
        if from_text and may_hold_numbers(arr) and \
                pc.any(pc.match_substring_regex(arr, NUM_RE)).as_py():
            # a numeric cell is typed first, then named: " 5 " is the type "5"
            return pa.array([v if v is None else str(text_value(v)) for v in arr.to_pylist()],
                            pa.string())
        return pc.cast(arr, pa.string())
    return pa.array([v if v is None else str(v) for v in arr.to_pylist()], pa.string())


def _attribute_column(raw: Any, from_text: bool, name: str, source: str) -> tuple[Any, str]:
    arr = combined(raw)
    t = arr.type
    if pa.types.is_dictionary(t):
        arr = arr.dictionary_decode()
        t = arr.type
    if pa.types.is_null(t):
        return pc.cast(arr, pa.string()), STR_KIND
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        if from_text:
            return typed_column(arr)
        return pc.cast(arr, pa.string()), STR_KIND
    if pa.types.is_boolean(t):
        return arr, BOOL_KIND
    if pa.types.is_integer(t):
        return pc.cast(arr, pa.int64()), INT_KIND
    if pa.types.is_floating(t):
        arr = pc.cast(arr, pa.float64())
        return pc.if_else(pc.is_nan(arr), pa.scalar(None, pa.float64()), arr), FLOAT_KIND
    if pa.types.is_timestamp(t) or pa.types.is_date(t):   # rare: ISO strings, as the rule says
        return pa.array([v if v is None else v.isoformat() for v in arr.to_pylist()],
                        pa.string()), STR_KIND
    row = first_row(pc.is_valid(arr)) or 0
    what = _PY_NAMES.get(str(t).split("<")[0].split("(")[0], str(t))
    raise StreamError(f"attribute values must be strings, numbers or booleans, got {what}",
                      row=row, field=name, source=source)
