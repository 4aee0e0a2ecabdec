"""Tables on the backend protocol: SQL column types and JSON values that keep every value
exact (docs/backends.md, "Tables").

A ``MATCH_RECOGNIZE`` backend receives its input tables and answers its output table as
``{"columns": [{"name": ..., "type": ...}, ...], "rows": [[...], ...]}``. A column's
``type`` is one of :data:`TYPES` (DuckDB's spelling of the SQL types; ``DECIMAL(p,s)``
with its precision and scale); each value is JSON ``null`` (SQL's NULL) or, by type:

- ``BOOLEAN``: ``true``/``false``;
- the integers (``TINYINT`` … ``HUGEINT``, ``UTINYINT`` … ``UBIGINT``): a JSON integer
  while it is a safe integer (``|v| <= 2**53 - 1``, exact in every JSON reader, also
  JavaScript's), else its decimal digits as a string (``"9007199254740993"``); an answer
  may use either form;
- ``DECIMAL(p,s)``: a string of the exact value (``"1.50"``), never a JSON number (which
  most readers turn into binary floating point);
- ``FLOAT``, ``DOUBLE``: a JSON number, or ``"NaN"``, ``"Infinity"``, ``"-Infinity"``;
- ``VARCHAR``: a string;
- ``DATE`` ``"2024-01-31"``, ``TIME`` ``"10:00:00.5"``, ``TIMESTAMP``
  ``"2024-01-31T10:00:00"``, ``TIMESTAMP WITH TIME ZONE`` ``"2024-01-31T10:00:00+00:00"``
  (ISO 8601; a space for the ``T`` is read too);
- ``NULL``: a column of NULLs only.

:class:`SqlTable` holds such a table as Python values (``int``, ``Decimal``, ``float``,
``str``, ``bool``, ``date``, ``time``, ``datetime``, ``None``: the values of the
reference's :class:`~kleene.reference.match_recognize.table.Table`), converts it from and
to Arrow (:meth:`SqlTable.of_arrow`, :meth:`SqlTable.arrow`) and from and to JSON
(:func:`decode`, :meth:`SqlTable.to_json`); :func:`decode` names every value that breaks
its type by JSON pointer.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

import pyarrow as pa

from kleene.reference.errors import Unsupported

#: The integer types and their Arrow types.
INTEGERS: dict[str, pa.DataType] = {
    "TINYINT": pa.int8(), "SMALLINT": pa.int16(), "INTEGER": pa.int32(),
    "BIGINT": pa.int64(), "UTINYINT": pa.uint8(), "USMALLINT": pa.uint16(),
    "UINTEGER": pa.uint32(), "UBIGINT": pa.uint64(), "HUGEINT": pa.decimal128(38, 0)}
#: Every other type but ``DECIMAL(p,s)``, and its Arrow type.
OTHERS: dict[str, pa.DataType] = {
    "BOOLEAN": pa.bool_(), "FLOAT": pa.float32(), "DOUBLE": pa.float64(),
    "VARCHAR": pa.string(), "DATE": pa.date32(), "TIME": pa.time64("us"),
    "TIMESTAMP": pa.timestamp("us"), "TIMESTAMP WITH TIME ZONE": pa.timestamp("us", "UTC"),
    "NULL": pa.null()}
#: The column types the protocol carries (``DECIMAL(p,s)``: 1 <= p <= 38, 0 <= s <= p).
TYPES: tuple[str, ...] = (*INTEGERS, "DECIMAL(p,s)", *OTHERS)

_DECIMAL = re.compile(r"^DECIMAL\((\d+),(\d+)\)$")
_INTEGER_TEXT = re.compile(r"^-?[0-9]+$")
_DECIMAL_TEXT = re.compile(r"^-?[0-9]+(\.[0-9]+)?$")
#: The largest integer every JSON reader holds exactly (JavaScript's ``Number.MAX_SAFE_INTEGER``).
SAFE = 2**53 - 1
_SPECIAL = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


class TableProblem(ValueError):
    """A JSON table that breaks the encoding: the JSON pointer and what is wrong."""


@dataclass(frozen=True)
class SqlTable:
    """Columns ``(name, type)`` and rows of Python values (the module docstring)."""

    columns: tuple[tuple[str, str], ...]
    rows: tuple[tuple[object, ...], ...]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.columns)

    @classmethod
    def of_arrow(cls, table: pa.Table) -> SqlTable:
        """``table``'s columns, their SQL types and values; :class:`Unsupported` for a
        column of a type the protocol does not carry (an interval, a list, a blob)."""
        types = tuple(sql_type(f.type, f.name) for f in table.schema)
        values = [column.to_pylist() for column in table.columns]
        rows = tuple(zip(*values, strict=True)) if values else ()
        return cls(tuple(zip(table.column_names, types, strict=True)), rows)

    def arrow(self) -> pa.Table:
        """The table as Arrow, each column of its declared type."""
        arrays = [pa.array([row[i] for row in self.rows], type=arrow_type(kind))
                  for i, (_, kind) in enumerate(self.columns)]
        return pa.Table.from_arrays(arrays, names=list(self.names))

    def to_json(self) -> dict[str, Any]:
        """The table as the protocol writes it."""
        return {"columns": [{"name": n, "type": t} for n, t in self.columns],
                "rows": [[encode(v, t) for v, (_, t) in zip(row, self.columns, strict=True)]
                         for row in self.rows]}


def sql_type(kind: pa.DataType, name: str = "?") -> str:
    """The protocol's name of Arrow type ``kind`` (DuckDB's Arrow export back to SQL)."""
    for known, arrow in (*INTEGERS.items(), *OTHERS.items()):
        if kind == arrow and known != "HUGEINT":
            return known
    if pa.types.is_decimal(kind):
        return f"DECIMAL({kind.precision},{kind.scale})"
    if pa.types.is_timestamp(kind):
        return "TIMESTAMP WITH TIME ZONE" if kind.tz else "TIMESTAMP"
    if pa.types.is_time(kind):
        return "TIME"
    if pa.types.is_large_string(kind) or pa.types.is_string_view(kind):
        return "VARCHAR"
    raise Unsupported(f"column {name} is of type {kind}, which the backend protocol does not "
                      f"carry ({', '.join(TYPES)})")


def arrow_type(kind: str) -> pa.DataType:
    """The Arrow type of the protocol's type ``kind``."""
    found = INTEGERS.get(kind) or OTHERS.get(kind)
    if found is not None:
        return found
    m = _DECIMAL.match(kind)
    if m is None:
        raise TableProblem(f"unknown type {kind!r} (the types: {', '.join(TYPES)})")
    precision, scale = int(m.group(1)), int(m.group(2))
    if not 1 <= precision <= 38 or scale > precision:
        raise TableProblem(f"{kind}: a DECIMAL has 1 to 38 digits and at most as many after "
                           "the point")
    return pa.decimal128(precision, scale)


def encode(value: object, kind: str) -> Any:
    """``value`` of a column of type ``kind`` as the protocol writes it."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value if abs(value) <= SAFE else str(value)
    if isinstance(value, Decimal):
        if kind == "HUGEINT" or kind in INTEGERS:
            return encode(int(value), kind)
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        return value if math.isfinite(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    return str(value)


def decode(message: Any, where: str = "") -> SqlTable:
    """The table a JSON value stands for; :class:`TableProblem` naming the first value that
    breaks the encoding by JSON pointer (``where`` its prefix)."""
    if not isinstance(message, Mapping) or not isinstance(message.get("columns"), list) \
            or not isinstance(message.get("rows"), list):
        raise TableProblem(f"{where or '(top)'}: a table is an object with columns and rows")
    columns: list[tuple[str, str]] = []
    for i, column in enumerate(message["columns"]):
        if not (isinstance(column, Mapping) and isinstance(column.get("name"), str)
                and isinstance(column.get("type"), str)):
            raise TableProblem(f"{where}/columns/{i}: a column is {{name, type}}, two strings")
        try:
            arrow_type(column["type"])
        except TableProblem as err:
            raise TableProblem(f"{where}/columns/{i}/type: {err}") from None
        columns.append((column["name"], column["type"]))
    rows = []
    for r, row in enumerate(message["rows"]):
        if not isinstance(row, list) or len(row) != len(columns):
            raise TableProblem(f"{where}/rows/{r}: a row is a list of {len(columns)} values")
        rows.append(tuple(_value(v, kind, f"{where}/rows/{r}/{c}")
                          for c, (v, (_, kind)) in enumerate(zip(row, columns, strict=True))))
    for c, (_, kind) in enumerate(columns):
        try:
            pa.array([row[c] for row in rows], type=arrow_type(kind))
        except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError, TypeError) as err:
            raise TableProblem(f"{where}/columns/{c}: a value does not fit {kind}: "
                               f"{err}") from None
    return SqlTable(tuple(columns), tuple(rows))


def _value(value: Any, kind: str, where: str) -> object:
    if value is None:
        return None
    try:
        found = _typed(value, kind)
    except (ValueError, InvalidOperation, TypeError):
        found = _WRONG
    if found is _WRONG:
        raise TableProblem(f"{where}: {value!r} is no {kind} value (docs/backends.md, Tables)")
    return found


_WRONG = object()


def _typed(value: Any, kind: str) -> object:
    if kind == "BOOLEAN":
        return value if isinstance(value, bool) else _WRONG
    if kind in INTEGERS:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        return int(value) if isinstance(value, str) and _INTEGER_TEXT.match(value) else _WRONG
    if kind.startswith("DECIMAL"):
        return Decimal(value) if isinstance(value, str) and _DECIMAL_TEXT.match(value) \
            else _WRONG
    if kind in ("FLOAT", "DOUBLE"):
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
        return _SPECIAL.get(value, _WRONG) if isinstance(value, str) else _WRONG
    if not isinstance(value, str):
        return _WRONG
    if kind == "VARCHAR":
        return value
    if kind == "DATE":
        return dt.date.fromisoformat(value)
    if kind == "TIME":
        return dt.time.fromisoformat(value)
    if kind.startswith("TIMESTAMP"):
        stamp = dt.datetime.fromisoformat(value)
        zoned = kind != "TIMESTAMP"
        return stamp if (stamp.tzinfo is not None) == zoned else _WRONG
    return _WRONG   # NULL: only null


def same_value(got: object, expected: object) -> bool:
    """Whether two values of an output column agree: numbers by value (an integer, a
    decimal and a float alike; floats within a relative 1e-9, NaN equal to NaN), any
    other value by equality."""
    numbers = (int, float, Decimal)
    if isinstance(got, numbers) and isinstance(expected, numbers) \
            and not isinstance(got, bool) and not isinstance(expected, bool):
        if isinstance(got, float) or isinstance(expected, float):
            a, b = float(got), float(expected)
            return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-9,
                                                                     abs_tol=1e-12)
        return Decimal(got) == Decimal(expected)
    return type(got) is type(expected) and got == expected


def table_difference(got: SqlTable, names: Sequence[str],
                     rows: Sequence[Sequence[object]]) -> str | None:
    """Why ``got`` is not the table of columns ``names`` and ``rows`` (``None``: it is).
    Column names compare case-insensitively (SQL's rule for regular identifiers), in
    order; rows as a multiset (SQL leaves the order of ``MATCH_RECOGNIZE``'s output rows
    open), each value by :func:`same_value`."""
    if [n.upper() for n in got.names] != [n.upper() for n in names]:
        return f"columns {', '.join(got.names) or '(none)'} where {', '.join(names)} are expected"
    left = [list(r) for r in rows]
    extra = []
    for row in got.rows:
        at = next((i for i, want in enumerate(left)
                   if all(same_value(g, w) for g, w in zip(row, want, strict=True))), None)
        if at is None:
            extra.append(row)
        else:
            left.pop(at)
    if not extra and not left:
        return None
    parts = [f"{len(left)} rows missing"] * bool(left) + [f"{len(extra)} rows extra"] * bool(extra)
    return ", ".join(parts)
