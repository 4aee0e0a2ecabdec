"""Typing text cells (CSV cells, stock-line values): one rule, for a cell and for a column.

The rule (docs/architecture.md, "The shared core", events from text): a cell that is
entirely an integer literal (``-12``) is an ``int``, one that is entirely a
decimal literal (``27.8500``, ``1e3``, ``.5``) a ``float``; surrounding ASCII
whitespace is ignored; digits are ASCII ``0-9`` (``١٢`` stays a string, as do
``nan``, ``inf`` and ``1_000``); anything else is the string itself.

:func:`text_value` applies it to one cell (rows that reach the reference);
:func:`typed_column` applies it to a whole Arrow string column with
vectorised kernels (the loaders). A column whose cells all get the same kind
becomes an ``int64``, ``float64`` or string column; a column that mixes kinds
stays a string column marked *text* (:data:`TEXT_KIND`), and its cells are
typed by :func:`text_value` when a row is built, and by :func:`text_kinds`
when a condition is evaluated over the column.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

_WS = "[ \t\n\r\f\v]*"
_INT_BODY = "[+-]?[0-9]+"
_NUM_BODY = r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
#: RE2 (Arrow) and Python spellings of the same two literals.
INT_RE = f"^{_WS}{_INT_BODY}{_WS}$"
NUM_RE = f"^{_WS}{_NUM_BODY}{_WS}$"
_NUM_CHARS = "0123456789.eE+- \t\n\r\f\v"
_NUMBER = re.compile(f"{_WS}(?:(?P<int>{_INT_BODY})|{_NUM_BODY}){_WS}")

#: What a column of a stream holds: all ints, all floats, all strings, all
#: booleans, or text cells typed one by one (:func:`text_value`).
INT_KIND, FLOAT_KIND, STR_KIND, BOOL_KIND, TEXT_KIND = "int", "float", "str", "bool", "text"


def text_value(text: str) -> str | int | float:
    """A CSV cell or stock-line value typed: ``int``, ``float``, else the string itself."""
    m = _NUMBER.fullmatch(text)
    if m is None:
        return text
    return int(text) if m.lastgroup == "int" else float(text)


def _trimmed(arr: Any) -> Any:
    return pc.utf8_trim(arr, characters=" \t\n\r\f\v")


def typed_column(arr: pa.Array | pa.ChunkedArray) -> tuple[Any, str]:
    """A string column typed cell by cell as :func:`text_value` says, with its kind.

    Nulls stay nulls (missing cells). Returns ``(array, kind)``: an ``int64``
    array (kind ``int``), ``float64`` (``float``), the strings (``str``), or
    the strings unchanged with kind ``text`` when the cells mix kinds (or an
    integer does not fit 64 bits).
    """
    valid = arr.length() - arr.null_count if isinstance(arr, pa.ChunkedArray) \
        else len(arr) - arr.null_count
    if valid == 0:
        return arr, STR_KIND
    fast = _cast(arr)
    if fast is not None:
        return fast
    if not may_hold_numbers(arr):
        return arr, STR_KIND
    nums = pc.sum(pc.match_substring_regex(arr, NUM_RE)).as_py() or 0
    if nums == 0:
        return arr, STR_KIND
    ints = pc.sum(pc.match_substring_regex(arr, INT_RE)).as_py() or 0
    if ints == valid:
        try:
            return pc.cast(_trimmed(arr), pa.int64()), INT_KIND
        except (pa.ArrowInvalid, OverflowError):
            return arr, TEXT_KIND
    if nums == valid and ints == 0:
        return pc.cast(_trimmed(arr), pa.float64()), FLOAT_KIND
    return arr, TEXT_KIND


def may_hold_numbers(arr: pa.Array | pa.ChunkedArray) -> bool:
    """Whether some cell of a string column holds only characters a number literal
    may hold (digits, ``. e E + -``, whitespace): when none does, no cell is a
    number, and no regular expression need say so (a column of names)."""
    bare = pc.utf8_trim(arr, characters=_NUM_CHARS)
    return bool(pc.any(pc.equal(bare, "")).as_py())


def _cast(arr: pa.Array | pa.ChunkedArray) -> tuple[Any, str] | None:
    """The common columns without a regular expression or a failing cast (Arrow
    spends ~0.4 µs per cell it cannot parse): every cell a sign and ASCII digits
    is an integer literal if Arrow casts it (it reads no spaces, and the
    hexadecimal ``0x1F`` is no such cell); every cell a sign, ASCII digits and
    one ``.`` is a decimal literal, a float if Arrow casts it and it is
    finite. ``None`` when the column is not so simple (the rule decides cell
    by cell)."""
    unsigned = pc.utf8_ltrim(arr, characters="+-")
    if pc.all(pc.ascii_is_decimal(unsigned)).as_py():
        try:
            return pc.cast(arr, pa.int64()), INT_KIND
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            return None
    dotted = pc.match_substring(unsigned, ".")
    if not pc.all(dotted).as_py() or not pc.all(pc.ascii_is_decimal(
            pc.replace_substring(unsigned, ".", "", max_replacements=1))).as_py():
        return None
    try:
        floats = pc.cast(arr, pa.float64())
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    if pc.all(pc.is_finite(floats)).as_py() is False:
        return None
    return floats, FLOAT_KIND


def text_kinds(arr: pa.Array | pa.ChunkedArray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For a *text* column: where cells are numbers, their values as floats, and
    where they are strings (nulls are neither)."""
    is_num = pc.fill_null(pc.match_substring_regex(arr, NUM_RE), False)
    numbers = pc.cast(_trimmed(pc.if_else(is_num, arr, None)), pa.float64())
    num_mask = np.asarray(is_num.to_numpy(zero_copy_only=False), dtype=bool)
    str_mask = ~num_mask & ~np.asarray(pc.is_null(arr).to_numpy(zero_copy_only=False),
                                        dtype=bool)
    return num_mask, numbers.to_numpy(zero_copy_only=False), str_mask
