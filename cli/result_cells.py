"""One column of ``--output``'s match rows as Arrow arrays, and its cells as each format
writes them (:mod:`kleene.cli.result_rows`).

A column's cells are what :func:`kleene.cli.results.text_value` and ``json`` make of each
row's Python value, and its Parquet column what ``pyarrow.array`` infers from those
values (as ``Table.from_pylist`` did when the rows were dictionaries): the same bytes,
computed over arrays. Numbers, strings and booleans of a loaded stream's columns are
cast by Arrow's kernels; what Arrow writes differently from Python (a float's digits, a
string's JSON escapes, a *text* column's typed cells) is computed once per *distinct*
value in Python and taken into the rows (:class:`Cells`, ``values`` and ``index``).
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from kleene.data.textvalues import TEXT_KIND
from kleene.data.textvalues import text_value as typed_text

#: Epoch milliseconds Arrow formats as Python's ``isoformat`` does (years 1000-9999).
_ISO_MS = (-30610224000000, 253402300799999)


def iso_text(value: Any) -> Any:
    """A datetime as ISO 8601 text in UTC with milliseconds (JSON Lines and CSV); a date
    as ISO 8601 text."""
    if isinstance(value, dt.datetime):
        return value.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    if isinstance(value, dt.date):
        return value.isoformat()
    return value


def json_default(value: Any) -> Any:
    """What ``json`` cannot write itself: a decimal (a SQL ``DECIMAL``) as a number, a
    datetime or date as ISO 8601 text."""
    return float(value) if isinstance(value, Decimal) else iso_text(value)


def json_text(value: Any) -> str:
    """``value`` as a JSON Lines cell (a datetime as ISO text)."""
    return json.dumps(iso_text(value), ensure_ascii=False, default=json_default)


def ascii_json(value: Any) -> str:
    """``value`` as ``json.dumps`` writes it by default (a CSV cell's list items)."""
    return json.dumps(value, default=json_default)


def text_value(value: Any) -> Any:
    """A value of a row as a CSV cell: a list as JSON, a datetime or date as ISO 8601, a
    decimal as its digits, NULL as an empty cell (as ``--output FILE.csv`` writes it)."""
    return ascii_json(value) if isinstance(value, list) else iso_text(value)


def csv_text(value: Any) -> str:
    """``value`` as Python's ``csv`` writer writes it, before quoting."""
    cell = text_value(value)
    if cell is None:
        return ""
    return repr(cell) if isinstance(cell, float) else str(cell)


def iso(ms: int | float) -> dt.datetime:
    """Epoch milliseconds as a datetime in UTC (how outputs write datetimes back)."""
    return dt.datetime.fromtimestamp(ms / 1000, tz=dt.UTC)


@dataclass(frozen=True)
class Cells:
    """A column's rows: ``array`` (native values: ``int64``, ``double``, ``string``,
    ``bool``; ``datetimes``: ``int64`` epoch milliseconds read back as datetimes), or
    distinct Python ``values`` and each row's ``index`` into them (null: a null cell)."""

    array: pa.Array | None = None
    values: Sequence[Any] | None = None
    index: pa.Array | None = None
    datetimes: bool = False

    def __len__(self) -> int:
        rows = self.array if self.array is not None else self.index
        assert rows is not None
        return len(rows)

    def take(self, rows: pa.Array) -> Cells:
        """The cells at ``rows``."""
        if self.array is not None:
            return Cells(self.array.take(rows), datetimes=self.datetimes)
        assert self.index is not None
        return Cells(values=self.values, index=self.index.take(rows))

    def slice(self, lo: int, hi: int) -> Cells:
        """The cells of rows ``lo`` to ``hi`` (no copy)."""
        if self.array is not None:
            return Cells(self.array.slice(lo, hi - lo), datetimes=self.datetimes)
        assert self.index is not None
        return Cells(values=self.values, index=self.index.slice(lo, hi - lo))

    def _distinct(self) -> Cells:
        """The same cells as distinct Python values (what Arrow cannot write itself)."""
        if self.array is None:
            return self
        coded = pc.dictionary_encode(self.array)
        values = coded.dictionary.to_pylist()
        if self.datetimes:
            values = [iso(v) for v in values]
        return Cells(values=values, index=coded.indices)

    def _each(self, make: Callable[[Any], str], empty: str) -> pa.Array:
        cells = self._distinct()
        assert cells.index is not None and cells.values is not None
        texts = pa.array([make(v) for v in cells.values], pa.string())
        return pc.fill_null(texts.take(cells.index), empty)

    def _iso(self) -> pa.Array | None:
        """ISO 8601 text of datetime cells by Arrow, where it writes as Python does."""
        arr = self.array
        if arr is None or not self.datetimes or not pa.types.is_integer(arr.type):
            return None
        low, high = pc.min_max(arr).values()
        if low.as_py() is not None and (low.as_py() < _ISO_MS[0] or high.as_py() > _ISO_MS[1]):
            return None
        stamps = pc.cast(arr, pa.timestamp("ms", tz="UTC"))
        return pc.binary_join_element_wise(
            pc.strftime(stamps, format="%Y-%m-%dT%H:%M:%S"), "Z", "")

    def json(self, ascii: bool = False) -> pa.Array:
        """Each cell as JSON (``null`` for a null cell); ``ascii``: escaped as
        ``json.dumps`` does by default (a CSV cell's list items)."""
        arr, stamped = self.array, self._iso()
        if stamped is not None:
            return pc.fill_null(pc.binary_join_element_wise('"', stamped, '"', ""), "null")
        if arr is not None and (pa.types.is_integer(arr.type) and not self.datetimes):
            return pc.fill_null(pc.cast(arr, pa.string()), "null")
        if arr is not None and pa.types.is_boolean(arr.type):
            return pc.fill_null(pc.if_else(arr, "true", "false"), "null")
        return self._each(ascii_json if ascii else json_text, "null")

    def csv(self) -> pa.Array:
        """Each cell as Python's ``csv`` writer writes it, before quoting (empty: null)."""
        arr, stamped = self.array, self._iso()
        if stamped is not None:
            return pc.fill_null(stamped, "")
        if arr is not None and (pa.types.is_string(arr.type)
                                or pa.types.is_integer(arr.type) and not self.datetimes):
            return pc.fill_null(pc.cast(arr, pa.string()), "")
        if arr is not None and pa.types.is_boolean(arr.type):
            return pc.fill_null(pc.if_else(arr, "True", "False"), "")
        return self._each(csv_text, "")

    def typed(self) -> pa.Array:
        """The Parquet column: what ``pyarrow.array`` infers from the rows' values."""
        arr = self.array
        if arr is not None and self.datetimes and pa.types.is_integer(arr.type):
            arr = pc.cast(pc.multiply_checked(arr, 1000), pa.timestamp("us", tz="UTC"))
        if arr is None or self.datetimes and not pa.types.is_timestamp(arr.type):
            cells = self._distinct()
            assert cells.index is not None and cells.values is not None
            arr = pa.array(list(cells.values)).take(cells.index)
        if arr.null_count == len(arr):
            return pa.nulls(len(arr))
        return arr


def column_cells(column: Any, kind: str | None) -> Cells:
    """The cells of an Arrow column of events of ``kind`` (``None``: the timestamps)."""
    arr = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    if kind == TEXT_KIND:
        coded = pc.dictionary_encode(arr)
        return Cells(values=[typed_text(v) for v in coded.dictionary.to_pylist()],
                     index=coded.indices)
    if pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type) \
            or pa.types.is_dictionary(arr.type):
        arr = pc.cast(arr, pa.string())
    return Cells(arr)


def value_cells(values: Sequence[Any]) -> Cells:
    """The cells of Python values, one a row."""
    seen: dict[Any, int] = {}
    distinct: list[Any] = []
    index: list[int | None] = []
    for v in values:
        if v is None:
            index.append(None)
            continue
        try:      # 1, 1.0 and True are equal keys, but not one cell
            at = seen.setdefault((type(v), v), len(distinct))
        except TypeError:   # unhashable (a list): a cell of its own
            at = len(distinct)
        if at == len(distinct):
            distinct.append(v)
        index.append(at)
    return Cells(values=distinct, index=pa.array(index, pa.int64()))


@dataclass(frozen=True)
class Column:
    """One output column: its ``name``, its cells (scalars) or, for a wide column of
    lists, the ``offsets`` of each row's list into ``cells``; ``present``: the rows that
    have the column (a variable a match does not bind has no wide column); ``by``: a
    key a row's cell is a function of (the long layout's variable, position, ``ts`` and
    attributes: of the row's variable and event), so
    :func:`kleene.cli.result_rows.lines` makes the text of consecutive columns of one
    ``by`` once per distinct key."""

    name: str
    cells: Cells
    offsets: np.ndarray | None = None
    present: np.ndarray | None = None
    by: np.ndarray | None = None
