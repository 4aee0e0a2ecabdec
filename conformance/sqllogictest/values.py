"""A query's result rendered and compared with its expected rows as DuckDB's runner does.

The rules are those of ``test/sqlite/result_helper.cpp`` of github:duckdb/duckdb
(``SQLLogicTestConvertValue``, ``CheckQueryResult``, ``CompareValues``, ``SortQueryResult``):

- **rendering**: a value is cast to ``VARCHAR`` by DuckDB itself (so integers print as
  ``42``, a ``DECIMAL(p,s)`` with exactly ``s`` digits after the point, ``1.50``, a
  ``DOUBLE`` in its shortest round-trip form, ``0.5``, ``1e+20``, dates ``2024-01-31``),
  but a boolean is ``1`` or ``0``; ``NULL`` is ``NULL`` and the empty string ``(empty)``;
- **layout**: the expected lines are rows with tab-separated values when there are more
  columns than one and as many lines as result rows, or when every line holds a tab;
  otherwise one value a line;
- **sort modes**: ``nosort`` compares in order; ``rowsort`` sorts the result's rows (each
  a list of rendered strings, compared as strings); ``valuesort`` sorts all values as one
  list. The expected lines are written in that order already; like DuckDB, they are not
  sorted;
- **values**: equal strings are equal; an expected ``<REGEX>:re`` matches when ``re``
  matches the whole value (``<!REGEX>:re`` when it does not); in a numeric column both
  strings are cast to the column's type (by DuckDB, ``TRY_CAST``) and compared, a
  ``FLOAT``/``DOUBLE`` within ``|expected| · 0.01 + 1e-8`` (DuckDB's ``ApproxEqual``); in a
  ``BOOLEAN`` column ``true``/``1`` and ``false``/``0`` are the same. Anything else differs.

The number of columns must be the number of letters of the ``query`` line; the letters
themselves (``T I R``) are not checked against the types, as in DuckDB.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import duckdb
import pyarrow as pa

from kleene.conformance.sqllogictest.reader import Query
from kleene.data.sql import fresh_name

NUMERIC = re.compile(r"^(U?(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT)|FLOAT|DOUBLE|DECIMAL.*)$")
APPROXIMATE = ("FLOAT", "DOUBLE")

@dataclass(frozen=True)
class Rendered:
    """A result as the runner compares it: each column's DuckDB type and each row's
    values as strings."""

    types: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]

    def lines(self) -> tuple[str, ...]:
        """The rows as a file writes them: values tab-separated."""
        return tuple("\t".join(row) for row in self.rows)


def render(table: pa.Table, connection: duckdb.DuckDBPyConnection) -> Rendered:
    """``table``'s values as DuckDB's runner prints them (the module's rules), cast by
    ``connection``."""
    if table.num_columns == 0:
        return Rendered((), ())
    positional = table.rename_columns([f"c{i}" for i in range(table.num_columns)])
    name = fresh_name(connection, "result")
    connection.register(name, positional)
    try:
        types = tuple(str(t) for t in connection.table(name).types)
        casts = ", ".join(f"CAST(c{i} AS VARCHAR)" for i in range(table.num_columns))
        rows = connection.execute(f"SELECT {casts} FROM {name}").fetchall()
    finally:
        connection.unregister(name)
    return Rendered(types, tuple(tuple(_text(v, t) for v, t in zip(row, types, strict=True))
                                 for row in rows))


def _text(value: str | None, sql_type: str) -> str:
    if value is None:
        return "NULL"
    if sql_type == "BOOLEAN":
        return "1" if value == "true" else "0"
    if value == "":
        return "(empty)"
    return value.replace("\0", "\\0")


def sorted_rows(rows: tuple[tuple[str, ...], ...], sort: str) -> tuple[tuple[str, ...], ...]:
    """``rows`` in the order ``sort`` compares them (``valuesort``: one value a row)."""
    if sort == "rowsort":
        return tuple(sorted(rows))
    if sort == "valuesort":
        return tuple((v,) for v in sorted(v for row in rows for v in row))
    return rows


def mismatch(query: Query, got: Rendered, connection: duckdb.DuckDBPyConnection) -> str | None:
    """Why ``got`` is not ``query``'s expected result (``None``: it is)."""
    columns = len(query.types)
    if len(got.types) != columns:
        return f"{len(got.types)} columns where the query line says {columns}"
    expected = list(query.expected)
    row_wise = (columns > 1 and len(expected) == len(got.rows)) or (
        bool(expected) and all("\t" in line for line in expected))
    if row_wise:
        values = []
        for i, line in enumerate(expected):
            parts = line.split("\t")
            if len(parts) != columns:
                return f"expected row {i + 1} has {len(parts)} values, not {columns}"
            values.extend(parts)
    elif len(expected) % columns:
        return f"{len(expected)} expected values do not fill rows of {columns}"
    else:
        values = expected
    if len(values) // columns != len(got.rows):
        return f"{len(got.rows)} rows where {len(values) // columns} are expected"
    rows = sorted_rows(got.rows, query.sort)
    flat = [v for row in rows for v in row]
    width = 1 if query.sort == "valuesort" else columns
    for i, (have, want) in enumerate(zip(flat, values, strict=True)):
        column = 0 if query.sort == "valuesort" else i % columns
        if not same(have, want, got.types[column], connection):
            return f"row {i // width + 1}, column {column + 1}: got {have}, expected {want}"
    return None


def same(got: str, expected: str, sql_type: str,
         connection: duckdb.DuckDBPyConnection) -> bool:
    """Whether the rendered value ``got`` of a column of ``sql_type`` is ``expected``."""
    if got == expected or regex_verdict(got, expected):
        return True
    if NUMERIC.match(sql_type):
        left, right = (_cast(v, sql_type, connection) for v in (got, expected))
        if left is _FAILED or right is _FAILED or left is None or right is None:
            return False    # a NULL equals only NULL, which the strings would have shown
        if sql_type in APPROXIMATE:
            return _approx_equal(float(left), float(right))
        return bool(left == right)
    if sql_type == "BOOLEAN":
        return _truth(got) == _truth(expected) and _truth(got) is not None
    return False


_FAILED = object()


def regex_verdict(text: str, expected: str) -> bool | None:
    """Whether ``text`` satisfies an expected ``<REGEX>:re`` (``re`` matches all of it,
    ``.`` also a newline) or ``<!REGEX>:re`` (it does not); ``None``: no regex expected."""
    for prefix, want in (("<REGEX>:", True), ("<!REGEX>:", False)):
        if expected.startswith(prefix):
            return (re.fullmatch(expected[len(prefix):], text, re.DOTALL) is not None) == want
    return None


def _cast(text: str, sql_type: str, connection: duckdb.DuckDBPyConnection) -> Any:
    """``text`` cast to ``sql_type`` by DuckDB; ``None`` for ``NULL``, :data:`_FAILED`
    when the cast fails."""
    if text == "NULL":
        return None
    value = connection.execute(f"SELECT TRY_CAST(? AS {sql_type})", [text]).fetchone()
    return _FAILED if value is None or value[0] is None else value[0]


def _approx_equal(left: float, right: float) -> bool:
    """DuckDB's ``ApproxEqual``: within 1 % of the expected value (plus 1e-8)."""
    if math.isnan(left) and math.isnan(right):
        return True
    if not (math.isfinite(left) and math.isfinite(right)):
        return left == right
    return abs(left - right) <= abs(right) * 0.01 + 0.00000001


def _truth(text: str) -> bool | None:
    if text.lower() == "true" or text == "1":
        return True
    if text.lower() == "false" or text == "0":
        return False
    return None
