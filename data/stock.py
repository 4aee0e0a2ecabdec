"""Stock-tick lines as columns.

A line is ``BUY(id=8,name=INTC,volume=100,price=27.8500,stock_time=25263126)``.

The word before the parenthesis is the event type, the ``key=value`` pairs are
attributes (values typed by :func:`~kleene.data.textvalues.text_value`),
and ``stock_time`` (milliseconds since midnight) is the timestamp. This is the
format of the stock stream of seed 004 Sec. 5.3 (and of Wayeb's examples).

:func:`stock_table` reads a whole file without a Python loop over its lines
when every line has the same keys in the same order (the stock stream does):
Arrow's CSV reader splits the lines at the commas, and string kernels check
each column's ``key=`` prefix and cut it off. A file whose lines differ in
layout (other orders, spaces, missing keys) is read line by line with
:func:`split_stock_line`, the same rule; a key absent from a line is absent
from that event's attributes.
"""

from __future__ import annotations

import re
from functools import partial
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from kleene.data.filebytes import read_further
from kleene.data.textvalues import text_value
from kleene.data.threads import PARALLEL_ROWS, each
from kleene.data.timestamps import int64_array
from kleene.reference.errors import StreamError
from kleene.reference.events import Value

#: The timestamp field of stock lines.
STOCK_TS = "stock_time"

_STOCK_LINE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\((.*)\)")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: Past the end of any cell (Arrow's string offsets are 32-bit).
_END = 2**31 - 1


def split_stock_line(line: str, *, row: int = 0, source: str = "<events>") -> dict[str, str]:
    """``BUY(id=8,...)`` as ``{"type": "BUY", "id": "8", ...}``: the values as text."""
    m = _STOCK_LINE.fullmatch(line.strip())
    if m is None:
        raise StreamError(f"not a stock line TYPE(key=value,...): {line.strip()[:60]!r}",
                          row=row, source=source)
    out = {"type": m.group(1)}
    for pair in m.group(2).split(","):
        key, eq, value = pair.partition("=")
        key = key.strip()
        if not eq or not key:
            raise StreamError(f"expected key=value, got {pair!r}", row=row,
                              field=key or None, source=source)
        if key in out:
            raise StreamError(f"the field {key!r} appears twice", row=row, field=key,
                              source=source)
        out[key] = value
    return out


def parse_stock_line(line: str, *, row: int = 0, source: str = "<events>") -> dict[str, Value]:
    """``BUY(id=8,name=INTC,...,stock_time=25263126)`` as ``{"type": "BUY", "id": 8, ...}``."""
    return {k: (v if k == "type" else text_value(v))
            for k, v in split_stock_line(line, row=row, source=source).items()}


def stock_table(data: bytes, source: str, limit: int | None,
                regular: tuple[object] | None = None) -> tuple[pa.Table, frozenset[str]]:
    """The stock lines of ``data`` as string columns (``type`` first), and the sparse
    columns (keys some lines lack). ``regular``: what :func:`read_regular` made of the
    same bytes on the read-ahead thread (:mod:`kleene.data.filebytes`), if it ran."""
    data = _without_bom(data)
    if regular is None:
        table = _regular(data, limit)
    else:
        found: Any = regular[0]
        table = found.slice(0, limit) if found is not None and limit is not None else found
    if table is not None:
        return table, frozenset()
    return _irregular(data, source, limit)


def read_regular(data: bytes) -> pa.Table | None:
    """Every line of ``data`` as :func:`stock_table` reads them when they share the first
    line's layout (``None`` when they do not): what the ``kleene`` program computes on
    its read-ahead thread while it imports."""
    return _regular(_without_bom(data), None)


def _without_bom(data: bytes) -> bytes:
    return data[3:] if data.startswith(b"\xef\xbb\xbf") else data


def first_line(data: bytes) -> str | None:
    start = 0
    while start < len(data):
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        raw, start = data[start:end], end + 1
        if raw.strip():
            return raw.rstrip(b"\r").decode("utf-8", "replace")
    return None


def stock_layout(first: str | None) -> list[str] | None:
    """The keys of the first line, in order, if the fast reader can read lines like it
    (no spaces around it or its keys, no ``, = (`` in its values); else ``None``."""
    if first is None:
        return []
    try:
        layout = split_stock_line(first)
    except StreamError:
        return None
    keys = list(layout)[1:]
    if any("," in v or "=" in v or "(" in v for v in layout.values()) or \
            any(k != k.strip() for k in keys) or first != first.strip():
        return None
    return keys


def read_options(keys: list[str], block: int = 1 << 22) -> dict[str, Any]:
    """Arrow CSV reader options that cut stock lines of ``keys`` at their commas."""
    names = [f"c{i}" for i in range(len(keys))]
    return {"read_options": pacsv.ReadOptions(column_names=names, block_size=block),
            "parse_options": pacsv.ParseOptions(quote_char=False, escape_char=False),
            "convert_options": pacsv.ConvertOptions(column_types={n: pa.string()
                                                                  for n in names})}


def _regular(data: bytes, limit: int | None) -> pa.Table | None:
    """Every line ``TYPE(k1=v1,...,kn=vn)`` with the first line's keys, in its order, read
    by column; ``None`` when some line is not so (then the line-by-line rule decides)."""
    keys = stock_layout(first_line(data))
    if not keys:
        return pa.table({}) if keys == [] else None
    return regular_lines(data, keys, limit)


def regular_lines(data: Any, keys: list[str], limit: int | None = None) -> pa.Table | None:
    """Lines ``TYPE(k1=v1,...,kn=vn)`` of ``keys`` (bytes or an Arrow buffer) as the text
    columns ``type``, ``k1``, ..., ``kn`` (the first ``limit`` lines); ``None`` if a line
    has another layout."""
    try:
        raw = pacsv.read_csv(pa.BufferReader(data), **read_options(keys))
    except pa.ArrowInvalid:     # a line with another number of fields
        return None
    if limit is not None:
        raw = raw.slice(0, limit)
    return split_fields(raw, keys)


def split_fields(raw: pa.Table, keys: list[str]) -> pa.Table | None:
    """Lines cut at their commas (``TYPE(k1=v1``, ``k2=v2``, ..., ``kn=vn)``) as the
    columns ``type``, ``k1``, ..., ``kn`` (text); ``None`` if a line has another layout.
    The first cell and each other column are cut independently (on threads for a large
    table: :func:`kleene.data.threads.each`)."""
    width = len(keys)
    calls = [lambda: _head(raw.column(0).combine_chunks(), keys[0], width == 1)]
    calls += [partial(_cut, raw.column(i), key, i == width - 1) for i, key in enumerate(keys)
              if i > 0]
    done = each(calls, parallel=raw.num_rows >= PARALLEL_ROWS)
    for d in done:
        if isinstance(d, Exception):
            raise d
    if any(d is None for d in done):
        return None
    head = done[0]
    assert isinstance(head, tuple)
    kinds, first = head
    return pa.table({"type": kinds, keys[0]: first,
                     **{key: cell for key, cell in zip(keys[1:], done[1:], strict=True)}})


def _head(cell: Any, key: str, last: bool) -> tuple[Any, Any] | None:
    """The first cells ``TYPE(k1=v1`` as the types and the values of ``k1``."""
    head = pc.split_pattern(cell, "(", max_splits=1)
    if not pc.all(pc.equal(pc.list_value_length(head), 2)).as_py():
        return None
    flat = pc.list_flatten(head)          # type, first pair, type, first pair, ...
    every = np.arange(0, len(flat), 2)
    kinds, first_pair = flat.take(int64_array(every)), flat.take(int64_array(every + 1))
    if not all(_IDENTIFIER.fullmatch(k or "") for k in pc.unique(kinds).to_pylist()):
        return None
    first = _cut(first_pair, key, last)
    return None if first is None else (kinds, first)


def _cut(cell: Any, key: str, last: bool) -> Any:
    """The cells ``key=value`` (``key=value)`` for the ``last``) as the values; ``None``
    if a cell is not so. Byte slices: the cut-off ``key=`` and ``)`` are ASCII, so the
    values stay UTF-8; a value holds no comma (the reader cut the line at every one)."""
    if last:
        if not pc.all(pc.ends_with(cell, ")")).as_py():
            return None
        cell = pc.binary_replace_slice(cell, -1, _END, "")
    prefix = key + "="
    if not pc.all(pc.starts_with(cell, prefix)).as_py():
        return None
    return pc.binary_replace_slice(cell, 0, len(prefix), "")


def _irregular(data: bytes, source: str, limit: int | None) -> tuple[pa.Table, frozenset[str]]:
    """Lines of different layouts, split one by one (the rule of :func:`split_stock_line`)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise StreamError(f"not UTF-8 text ({err.reason})", source=source) from None
    rows: list[dict[str, str]] = []
    for line in text.splitlines():
        if limit is not None and len(rows) >= limit:
            break
        if line.strip():
            rows.append(split_stock_line(line, row=len(rows), source=source))
    keys: dict[str, None] = {}
    for r in rows:
        keys.update(dict.fromkeys(r))
    sparse = frozenset(k for k in keys if any(k not in r for r in rows))
    return pa.table({k: pa.array([r.get(k) for r in rows], pa.string()) for k in keys}), sparse


read_further("stock", read_regular)
