"""Timestamp columns checked and converted with vector operations (docs/architecture.md, "The
shared core": timestamps are numbers, non-decreasing along positions).

:func:`timestamps` reads a column as :meth:`~kleene.reference.events.Stream.from_rows`
reads each row's ``ts``: numbers stay numbers (finite), ISO datetimes and
datetime/date columns become epoch milliseconds (no zone means UTC; rounded
half to even), one column does not mix numbers with ISO datetimes, and
booleans are no timestamps. Each problem is a
:class:`~kleene.reference.errors.StreamError` naming the first bad row.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from kleene.data.textvalues import INT_KIND, INT_RE, NUM_RE, text_value, typed_column
from kleene.reference.errors import StreamError


def first_row(mask: Any) -> int | None:
    """The first row where the boolean array ``mask`` is true (nulls are false)."""
    arr = np.asarray(pc.fill_null(mask, False).to_numpy(zero_copy_only=False), dtype=bool)
    hits = np.flatnonzero(arr)
    return int(hits[0]) if len(hits) else None


def int64_array(values: Any) -> pa.Array:
    """An Arrow ``int64`` array of integers (a NumPy array or a sequence), sharing
    a NumPy array's memory; unlike ``pa.array`` it does not probe for NumPy's masked
    arrays (importing ``numpy.ma``, 0.05 s)."""
    return numeric_array(np.ascontiguousarray(values, dtype=np.int64))


#: NumPy dtypes :func:`numeric_array` shares without copying.
_SHARED = {np.dtype(np.int64): pa.int64(), np.dtype(np.float64): pa.float64()}


def numeric_array(values: np.ndarray) -> pa.Array:
    """A NumPy array as the Arrow array ``pa.array`` makes of it (no nulls; a float NaN
    stays NaN), sharing the memory of an ``int64`` or ``float64`` array without
    probing for masked arrays (see :func:`int64_array`)."""
    arr = np.ascontiguousarray(values)
    arrow = _SHARED.get(arr.dtype)
    if arrow is None:
        return pa.array(arr)
    return pa.Array.from_buffers(arrow, len(arr), [None, pa.py_buffer(arr)])


def combined(arr: Any) -> pa.Array:
    return arr.combine_chunks() if isinstance(arr, pa.ChunkedArray) else arr


def timestamps(raw: Any, *, name: str, source: str) -> tuple[pa.Array, bool]:
    """The timestamp column as numbers, and whether it was converted to epoch ms."""
    arr = combined(raw)
    err = _missing(arr, name, source)
    if err is not None:
        raise err
    t = arr.type
    if pa.types.is_boolean(t):
        raise StreamError("timestamp must be a number, got a boolean", row=0, field=name,
                          source=source)
    if pa.types.is_integer(t):
        if t == pa.uint64():   # past int64 a timestamp is refused, never wrapped or rounded
            bad = first_row(pc.greater(arr, pa.scalar(2**63 - 1, pa.uint64())))
            if bad is not None:
                raise StreamError(f"timestamp {arr[bad].as_py()} does not fit a 64-bit signed "
                                  "integer", row=bad, field=name, source=source)
        return pc.cast(arr, pa.int64()), False
    if pa.types.is_floating(t):
        arr = pc.cast(arr, pa.float64())
        bad = first_row(pc.invert(pc.is_finite(arr)))
        if bad is not None:
            raise StreamError(f"timestamp must be finite, got {arr[bad].as_py()}", row=bad,
                              field=name, source=source)
        return arr, False
    if pa.types.is_timestamp(t) or pa.types.is_date(t):
        return _epoch_ms(arr), True
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return _text_timestamps(arr, name, source)
    raise StreamError(f"timestamp must be a number, got {t}", row=0, field=name, source=source)


def _missing(arr: pa.Array, name: str, source: str) -> StreamError | None:
    empty = pc.is_null(arr)
    if pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type):
        empty = pc.or_kleene(empty, pc.equal(pc.utf8_trim_whitespace(arr), ""))
    bad = first_row(empty)
    return None if bad is None else StreamError("missing timestamp", row=bad, field=name,
                                                source=source)


def _epoch_ms(arr: pa.Array) -> pa.Array:
    """Datetimes (any unit; no zone means UTC) and dates as epoch milliseconds, rounded
    half to even as ``round(moment.timestamp() * 1000)`` rounds."""
    if pa.types.is_date(arr.type):
        arr = pc.cast(arr, pa.timestamp("ms"))
    per_ms = {"s": 1e-3, "ms": 1, "us": 1e3, "ns": 1e6}[arr.type.unit]
    raw = pc.cast(arr, pa.timestamp(arr.type.unit)).cast(pa.int64()).to_numpy()
    if per_ms <= 1:
        return pa.array(raw * int(round(1 / per_ms)), pa.int64())
    return pa.array(np.round(raw / per_ms).astype(np.int64), pa.int64())


def _text_timestamps(arr: pa.Array, name: str, source: str) -> tuple[pa.Array, bool]:
    if len(arr) == 0:
        return pa.array([], pa.int64()), False
    typed, kind = typed_column(arr)
    if kind == INT_KIND:                      # the common case: no regular expression
        return typed, False
    is_num = pc.match_substring_regex(arr, NUM_RE)
    first_num = bool(is_num[0].as_py())
    odd = first_row(pc.invert(is_num) if first_num else is_num)
    if first_num:
        if odd is None:
            _exact_integers(arr, name, source)
            floats = pc.cast(pc.utf8_trim(arr, characters=" \t\n\r\f\v"), pa.float64())
            return timestamps(floats, name=name, source=source)[0], False   # finite?
        _not_a_timestamp(arr[odd].as_py(), odd, name, source, mixed=_is_iso)
    first = arr[0].as_py()
    if not _is_iso(first.strip()):
        _not_a_timestamp(first, 0, name, source, mixed=lambda _: False)
    if odd is not None:
        raise StreamError(f"timestamp {arr[odd].as_py().strip()!r} mixes numbers with ISO "
                          "datetimes in one column", row=odd, field=name, source=source)
    for zone in ("UTC", None):
        try:
            moments = pc.cast(pc.utf8_trim_whitespace(arr), pa.timestamp("us", tz=zone))
            return _epoch_ms(moments), True
        except pa.ArrowInvalid:
            continue
    return _python_iso(arr, name, source), True


def _exact_integers(arr: pa.Array, name: str, source: str) -> None:
    """Refuse a column of numbers (read as floats) whose integer cell float64 would round:
    past int64, or, beside decimal cells, past 2**53 (two distinct timestamps would
    become a tie; issue 27)."""
    is_int = pc.fill_null(pc.match_substring_regex(arr, INT_RE), False)
    if not pc.any(is_int).as_py():
        return
    ints = pc.cast(pc.utf8_trim(pc.if_else(is_int, arr, None), characters=" \t\n\r\f\v"),
                   pa.float64())
    whole = bool(pc.all(is_int).as_py())
    near = pc.greater_equal(pc.abs(ints), 2.0**63 if whole else 2.0**53)   # float64 rounds
    rows = np.flatnonzero(np.asarray(pc.fill_null(near, False).to_numpy(zero_copy_only=False)))
    for row in rows.tolist():   # the few cells near the limit, decided exactly
        text = arr[row].as_py().strip()
        value = int(text)
        if not (-(2**63) <= value < 2**63 if whole else abs(value) <= 2**53):
            limit = "a 64-bit integer" if whole else "a float beside decimal timestamps (2**53)"
            raise StreamError(f"timestamp {text} does not fit {limit}; it would be rounded",
                              row=row, field=name, source=source)


def _not_a_timestamp(raw: str, row: int, name: str, source: str, mixed: Any) -> None:
    text = raw.strip()
    if text.lower().lstrip("+-") in ("nan", "inf", "infinity"):
        raise StreamError(f"timestamp must be finite, got {text}", row=row, field=name,
                          source=source)
    if mixed(text):
        raise StreamError(f"timestamp {text!r} mixes ISO datetimes with numbers in one column",
                          row=row, field=name, source=source)
    raise StreamError(f"timestamp {text!r} is neither a number nor an ISO datetime", row=row,
                      field=name, source=source)


def _is_iso(text: str) -> bool:
    import datetime as dt
    try:
        dt.datetime.fromisoformat(text)
        return True
    except ValueError:
        return False


def _python_iso(arr: pa.Array, name: str, source: str) -> pa.Array:
    """ISO datetimes that Arrow's parser does not read (mixed zones, week dates, ...):
    Python's :meth:`datetime.fromisoformat`, value by value (never the common path)."""
    import datetime as dt
    out = []
    for row, text in enumerate(arr.to_pylist()):
        try:
            moment = dt.datetime.fromisoformat(text.strip())
        except ValueError:
            kind = "mixes numbers with ISO datetimes" if _is_number(text) else \
                "is neither a number nor an ISO datetime"
            raise StreamError(f"timestamp {text!r} {kind}", row=row, field=name,
                              source=source) from None
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=dt.UTC)
        out.append(int(round(moment.timestamp() * 1000)))
    return pa.array(out, pa.int64())


def _is_number(text: str) -> bool:
    return isinstance(text_value(text), (int, float))
