"""SQL statements holding ``MATCH_RECOGNIZE``: each recognition by Kleene, the rest by DuckDB.

A :class:`~kleene.reference.match_recognize.ast.Statement` knows where each
``<source> MATCH_RECOGNIZE (…)`` sits in its text (``Recognition.start``/``end``).
:func:`run_statement` evaluates it in four steps, so that Kleene defines only the row pattern
recognition and a real SQL engine everything around it (issue 26, item 4: DuckDB, whose
wheel runs plain SQL in process and reads Arrow without a copy, but rejects
``MATCH_RECOGNIZE``):

1. each recognition's source, by DuckDB: a table name as ``SELECT * FROM name``, a
   parenthesised query by :func:`run_statement` itself (it may hold recognitions); and each
   subquery inside the clause, once, on its own (:func:`with_subqueries`);
2. the source as a reference :class:`~kleene.reference.match_recognize.table.Table`
   (:func:`table_of`: Arrow's values as Python values, so types are kept: integers, exact
   decimals, floats, strings, dates, timestamps, booleans, NULL as ``None``); an
   :class:`ArrowRecognizer` (an engine, ``engines/match_recognize/``) reads the Arrow
   table itself and answers one, skipping this step and the conversion back;
3. the recognition by ``recognize`` (default: the reference,
   :func:`kleene.reference.match_recognize.semantics.recognize`), its output table as Arrow
   (:func:`arrow_of`) registered in the connection under a fresh name that replaces
   ``text[start:end]``;
4. the rewritten text by DuckDB, as an Arrow table.

:func:`run_over` runs a statement over one table (Arrow, pandas or a file) under the name the
statement's ``FROM`` gives it; the doors (``kleene match``, ``kleene.match_recognize``) choose
its recognizer in :mod:`kleene.engines.tables`.
"""

from __future__ import annotations

import csv
import os
import re
import zlib
from collections.abc import Callable, Mapping
from dataclasses import fields, replace
from decimal import Decimal
from pathlib import Path
from typing import Any, Protocol, cast, runtime_checkable

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from kleene.data.csvfast import fast_csv
from kleene.data.loaders import check_header, open_text
from kleene.reference.errors import KleeneError, StreamError
from kleene.reference.match_recognize.ast import (
    MatchRecognize,
    Node,
    Statement,
    Subquery,
    TableName,
)
from kleene.reference.match_recognize.semantics import recognize as reference_recognize
from kleene.reference.match_recognize.table import Table

#: One recognition: its clause and input table to its output table.
Recognize = Callable[[MatchRecognize, Table], Table]



@runtime_checkable
class ArrowRecognizer(Protocol):
    """A recognizer that reads and answers Arrow: the output table of ``clause`` over
    ``table``, with the columns and values the reference's output has once converted by
    :func:`arrow_of` (``like`` the input's schema)."""

    def recognize_arrow(self, clause: MatchRecognize, table: pa.Table) -> pa.Table: ...


#: How a file named to :func:`run_over` is read, by extension.
READERS = {".parquet": "read_parquet", ".pq": "read_parquet", ".csv": "read_csv",
           ".tsv": "read_csv", ".json": "read_json", ".jsonl": "read_json",
           ".ndjson": "read_json"}


class SqlError(KleeneError):
    """DuckDB refused the SQL around the recognitions (or a source): its message, one line."""

    code = "sql"


def run_statement(statement: Statement, connection: duckdb.DuckDBPyConnection,
                  recognize: Recognize | ArrowRecognizer = reference_recognize,
                  tables: Mapping[str, pa.Table] | None = None) -> pa.Table:
    """The result of ``statement`` (the module's four steps) in ``connection``.

    ``tables``: Arrow tables registered in ``connection`` under their (lower-case) names
    whose ``SELECT *`` is the table itself (its columns of types DuckDB answers as they
    are: :data:`kleene.data.csvfast.TYPES`); a recognition reading one by its plain name
    reads the table, without DuckDB's copy of it.

    The output tables stay registered, so that a view or table the statement creates
    (``CREATE VIEW v AS SELECT … MATCH_RECOGNIZE …``) can still read them: such a view shows
    the recognition's output as of its creation. DuckDB's own errors come out as
    :class:`SqlError`; the recognitions' as they are raised
    (:class:`~kleene.reference.errors.KleeneError`)."""
    text = statement.text
    for recognition in sorted(statement.recognitions, key=lambda r: r.start, reverse=True):
        source = _source(recognition.source, connection, recognize, tables or {})
        clause = with_subqueries(recognition.clause, connection)
        output = recognized(recognize, clause, source)
        if not output.column_names:
            raise SqlError("the output of MATCH_RECOGNIZE has no column (ONE ROW PER MATCH "
                           "with neither PARTITION BY nor MEASURES): an SQL table has one or "
                           "more")
        name = fresh_name(connection, "recognition")
        connection.register(name, output)
        text = text[:recognition.start] + name + text[recognition.end:]
    return execute(connection, text)


def recognized(recognize: Recognize | ArrowRecognizer, clause: MatchRecognize,
               source: pa.Table) -> pa.Table:
    """The output of one recognition over its ``source``, as Arrow."""
    if isinstance(recognize, ArrowRecognizer):
        return recognize.recognize_arrow(clause, source)
    return arrow_of(recognize(clause, table_of(source)), like=source.schema)


def execute(connection: duckdb.DuckDBPyConnection, sql: str) -> pa.Table:
    """``sql`` run by DuckDB, its result as Arrow (a statement's: DuckDB's count or
    success column); DuckDB's error as one :class:`SqlError` line."""
    try:
        return connection.execute(sql).to_arrow_table()
    except duckdb.Error as err:
        raise SqlError(" ".join(str(err).split())) from None


def _source(source: TableName | Statement, connection: duckdb.DuckDBPyConnection,
            recognize: Recognize | ArrowRecognizer, tables: Mapping[str, pa.Table],
            ) -> pa.Table:
    if isinstance(source, TableName):
        if _PLAIN.fullmatch(source.name) and source.name.lower() in tables:
            return tables[source.name.lower()]
        return execute(connection, f"SELECT * FROM {source.name}")
    return run_statement(source, connection, recognize, tables)


#: A table's name as SQL's regular identifier (no alias, no quotes: case-insensitive).
_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def with_subqueries(clause: MatchRecognize,
                    connection: duckdb.DuckDBPyConnection) -> MatchRecognize:
    """``clause`` with each of its subqueries evaluated by DuckDB, once, on its own (TR
    19075-5 §4.18.4: one reads no row pattern variable of the clause around it, so it is a
    constant of the recognition; :class:`~kleene.reference.match_recognize.ast.Subquery`)."""
    resolved = _resolved(clause, connection)
    assert isinstance(resolved, MatchRecognize)
    return resolved


def _resolved(node: Node, connection: duckdb.DuckDBPyConnection) -> Node:
    if isinstance(node, Subquery):
        return replace(node, values=_subquery_values(node, connection))
    changes: dict[str, Any] = {}
    for f in fields(node):
        value = getattr(node, f.name)
        new = _resolved_in(value, connection)
        if new is not value:
            changes[f.name] = new
    return replace(node, **changes) if changes else node


def _resolved_in(value: object, connection: duckdb.DuckDBPyConnection) -> object:
    if isinstance(value, Node):
        return _resolved(value, connection)
    if isinstance(value, tuple):
        items = tuple(_resolved_in(v, connection) for v in value)
        return items if any(a is not b for a, b in zip(items, value, strict=True)) else value
    return value


def _subquery_values(e: Subquery, connection: duckdb.DuckDBPyConnection) -> tuple[object, ...]:
    """A scalar subquery's value (DuckDB's rule for more than one row), or the first and
    only column of ``IN (SELECT …)``."""
    sql = (f"SELECT * FROM ({e.text}) AS __kleene_subquery" if e.many
           else f"SELECT ({e.text})")
    try:
        result = connection.execute(sql).to_arrow_table()
    except duckdb.Error as err:
        raise SqlError(f"the subquery ({' '.join(e.text.split())}) inside MATCH_RECOGNIZE is "
                       "evaluated on its own, before the recognition (TR 19075-5 §4.18.4: "
                       f"it reads no row pattern variable): {' '.join(str(err).split())}"
                       ) from None
    if result.num_columns != 1:
        raise SqlError(f"the subquery ({' '.join(e.text.split())}) of IN has "
                       f"{result.num_columns} columns; IN compares with one")
    return tuple(result.column(0).to_pylist())


def fresh_name(connection: duckdb.DuckDBPyConnection, stem: str) -> str:
    """A name no table or view of ``connection`` has: ``__kleene_<stem>_<n>``."""
    taken = {row[0].lower() for row in connection.execute(
        "SELECT table_name FROM information_schema.tables").fetchall()}
    number = len(taken)
    while f"__kleene_{stem}_{number}" in taken:
        number += 1
    return f"__kleene_{stem}_{number}"


def table_of(arrow: pa.Table) -> Table:
    """An Arrow table as a reference :class:`Table` (Arrow's Python values: ``int``,
    ``Decimal``, ``float``, ``str``, ``bool``, ``date``, ``datetime``, ``None``)."""
    columns = [column.to_pylist() for column in arrow.columns]
    return Table(tuple(arrow.column_names), tuple(zip(*columns, strict=True)) if columns else ())


def arrow_of(table: Table, like: pa.Schema | None = None) -> pa.Table:
    """A reference :class:`Table` as Arrow. A column named as a column of ``like`` (the
    source's schema; case-insensitive) keeps that column's type when its values fit it
    (a partition column, an input column of ``ALL ROWS PER MATCH``, all NULL or not); any
    other column's type is inferred from its values (:func:`arrow_type`)."""
    source = kept_types(like)
    arrays = [arrow_column([row[i] for row in table.rows], name, source)
              for i, name in enumerate(table.names)]
    return pa.Table.from_arrays(arrays, names=list(table.names))


def kept_types(like: pa.Schema | None) -> dict[str, pa.DataType]:
    """The types :func:`arrow_of` keeps: each column of ``like`` by its upper-case name."""
    return {} if like is None else {f.name.upper(): f.type for f in like}


def arrow_column(values: list[object], name: str, source: Mapping[str, pa.DataType],
                 ) -> pa.Array:
    """One output column of :func:`arrow_of`: ``values`` as Arrow, the type of the
    source's column of that ``name`` kept where they fit it (``source``:
    :func:`kept_types`), else :func:`arrow_type`'s."""
    kept = source.get(name.upper())
    array = _as(values, kept) if kept is not None else None
    if array is None:
        kind = arrow_type(values, name)
        if pa.types.is_floating(kind):   # exact numbers among floats: as floats
            values = [None if v is None else float(cast(float, v)) for v in values]
        array = pa.array(values, type=kind)
    return array


def _as(values: list[object], kind: pa.DataType) -> pa.Array | None:
    try:
        return pa.array(values, type=kind)
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError, TypeError):
        return None


def arrow_type(values: list[object], name: str = "?") -> pa.DataType:
    """The Arrow type of an output column from its values: all NULL ``null``; booleans
    ``bool``; integers ``int64``; integers and decimals ``decimal128(p, s)`` with ``s`` the
    most digits after the point and ``p`` the most before plus ``s`` (``float64`` beyond 38
    digits); any float among numbers ``float64``; otherwise Arrow's inference (strings,
    dates, timestamps). :class:`KleeneError` when the values mix kinds Arrow cannot."""
    present = [v for v in values if v is not None]
    kinds = {_kind(t) for t in set(map(type, present))}
    if not present:
        return pa.null()
    if kinds == {"bool"}:
        return pa.bool_()
    if kinds == {"int"}:  # min and max over Python ints, no isinstance per value
        ints = cast(list[int], present)
        if -2**63 <= min(ints) and max(ints) < 2**63:
            return pa.int64()
    exact = [v for v in present if isinstance(v, int | Decimal)]
    if kinds <= {"int", "decimal"}:
        return _decimal(exact)
    if kinds <= {"int", "decimal", "float"}:
        return pa.float64()
    try:
        return pa.array(present).type
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError):
        raise KleeneError(f"output column {name} mixes values Arrow cannot put in one column "
                          f"({', '.join(sorted(kinds))})") from None


def _kind(kind: type) -> str:
    """The kind of the values of Python type ``kind`` (one per type: the output's values are
    typed by their distinct types, not one by one)."""
    if issubclass(kind, bool):
        return "bool"
    if issubclass(kind, int):
        return "int"
    if issubclass(kind, Decimal):
        return "decimal"
    if issubclass(kind, float):
        return "float"
    return kind.__name__


def _decimal(values: list[int | Decimal]) -> pa.DataType:
    scale = before = 0
    for v in values:
        _, digits, exponent = Decimal(v).as_tuple()
        assert isinstance(exponent, int), "a NaN or infinite decimal has no column type"
        scale = max(scale, -exponent)
        before = max(before, len(digits) + exponent)
    if before + scale > 38:
        return pa.float64()
    return pa.decimal128(max(before + scale, 1), scale)


def tables_read(statement: Statement) -> tuple[str, ...]:
    """The names of the tables the statement's recognitions read, in order, each once."""
    names: list[str] = []
    for recognition in statement.recognitions:
        found = ((recognition.source.name,) if isinstance(recognition.source, TableName)
                 else tables_read(recognition.source))
        names += [n for n in found if n.upper() not in {m.upper() for m in names}]
    return tuple(names)


def run_over(data: Any, statement: Statement, *, name: str | None = None,
             recognize: Recognize | ArrowRecognizer = reference_recognize) -> pa.Table:
    """The result of ``statement`` (a ``SELECT`` holding ``MATCH_RECOGNIZE``) over ``data``:
    an Arrow table, a pandas frame or the path of a Parquet, CSV or JSON (Lines) file
    (read as DuckDB's own readers read it, :data:`READERS`; a CSV file by Arrow under
    DuckDB's sniffed dialect and types where that is the same, :mod:`kleene.data.csvfast`),
    known to the SQL as ``name`` (default:
    the one table its recognitions read). The columns are named as the outer ``SELECT``
    names them; a measure's unquoted name is in upper case (SQL's rule for regular
    identifiers, as Oracle reports it). The door that chooses ``recognize`` is
    :func:`kleene.engines.tables.answer_table` (``kleene match``, ``kleene.match_recognize``)."""
    if name is None:
        read = tables_read(statement)
        if len(read) != 1:
            raise KleeneError("name the table the data is in SQL (the recognitions read "
                              f"{', '.join(read) or 'no table by name'}): "
                              "match_recognize(data, sql, name=...)")
        name = read[0]
    connection = duckdb.connect()
    tables: dict[str, pa.Table] = {}
    try:
        if isinstance(data, str | os.PathLike):
            loaded = _read_file(connection, Path(data))
            if isinstance(loaded, pa.Table):
                connection.register(name, loaded)
                tables[name.lower()] = loaded
            else:
                loaded.create_view(name)
        else:
            connection.register(name, data)
        return run_statement(statement, connection, recognize, tables)
    except duckdb.Error as err:
        raise SqlError(" ".join(str(err).split())) from None
    except SqlError as err:
        absent = _ABSENT.search(str(err))
        if absent is None:
            raise
        raise SqlError(f"the statement reads a table {absent.group(1)}, and only {name} is "
                       "given (the data, or the --events file)") from None
    finally:
        connection.close()


def read_table(path: str | os.PathLike[str]) -> pa.Table:
    """The Parquet, CSV or JSON (Lines) file at ``path`` as Arrow, as :func:`run_over`
    reads it (a CSV file by :func:`~kleene.data.csvfast.fast_csv` where it reads it)."""
    connection = duckdb.connect()
    try:
        read = _read_file(connection, Path(path))
        return read if isinstance(read, pa.Table) else read.to_arrow_table()
    except duckdb.Error as err:
        raise SqlError(" ".join(str(err).split())) from None
    finally:
        connection.close()


#: DuckDB's message for a table that is not there.
_ABSENT = re.compile(r"Table with name (\S+) does not exist")


def _read_file(connection: duckdb.DuckDBPyConnection, path: Path,
               ) -> duckdb.DuckDBPyRelation | pa.Table:
    """The file at ``path`` as DuckDB's reader of its suffix reads it: a CSV file as an
    Arrow table where :func:`~kleene.data.csvfast.fast_csv` reads it (Arrow under DuckDB's
    sniffed dialect and types: the same values, a third of the time), else DuckDB's
    relation."""
    suffixes = [s.lower() for s in path.suffixes if s.lower() != ".gz"]
    reader = READERS.get(suffixes[-1] if suffixes else "")
    if reader is None:
        raise StreamError(f"a table is read from {', '.join(sorted(READERS))} files "
                          "(gzipped too)", source=str(path))
    if not path.is_file():
        raise StreamError("cannot read the table: No such file or directory",
                          source=str(path))
    _check_names(path, reader)
    if reader == "read_csv":
        table = fast_csv(path, connection)
        if table is not None:
            return table
    relation: duckdb.DuckDBPyRelation = getattr(connection, reader)(str(path))
    return relation


def _check_names(path: Path, reader: str) -> None:
    """Refuse a CSV header or Parquet schema that names a column twice (or an empty
    name, or too many), as the event loaders do (:func:`~kleene.data.loaders.check_header`):
    DuckDB would rename the second ``price`` to ``price_1``. A file that cannot be read
    here is left to DuckDB's own reader, which says why."""
    try:
        if reader == "read_csv":
            with open_text(path, newline="") as f:
                names = next(csv.reader(f), [])
        elif reader == "read_parquet":
            names = pq.read_schema(path).names
        else:
            return
    except (OSError, ValueError, EOFError, csv.Error, zlib.error, pa.ArrowException):
        return
    check_header(names, str(path))
