"""``kleene.data.sql``: statements with ``MATCH_RECOGNIZE`` run as the shared brief says
(issue 26, item 4): each recognition's source by DuckDB, its input and output converted
with their types, the recognition by ``recognize`` (a stub here where the point is the
plumbing: it checks what it was handed and returns a hand-written table), the rest of
the statement by DuckDB; and ``kleene.match_recognize`` over Arrow, pandas and files,
with the reference and a V shape computed by hand."""

from __future__ import annotations

import datetime
from decimal import Decimal
from pathlib import Path

import duckdb
import pandas as pd
import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq
import pytest

import kleene
from kleene.data.sql import (
    SqlError,
    arrow_of,
    arrow_type,
    run_statement,
    table_of,
    tables_read,
)
from kleene.engines.tables import match_recognize
from kleene.reference.errors import KleeneError
from kleene.reference.match_recognize.ast import (
    MatchRecognize,
    Recognition,
    Statement,
    TableName,
    Var,
)
from kleene.reference.match_recognize.table import Table

CLAUSE = MatchRecognize(pattern=Var("A"))


def recognition_at(text: str, source: TableName | Statement, piece: str,
                   alias: str | None = None) -> Recognition:
    """The recognition whose source and clause are ``piece``, the first one in ``text``."""
    start = text.index(piece)
    return Recognition(source, CLAUSE, alias, start, start + len(piece))


@pytest.fixture
def connection() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute("CREATE TABLE t (g INTEGER, d DECIMAL(5,2), s VARCHAR, day DATE)")
    con.execute("INSERT INTO t VALUES (1, 1.50, 'x', DATE '2024-01-31'), "
                "(2, NULL, '', NULL), (3, 0.25, NULL, DATE '2024-02-01')")
    return con


INPUT = Table(("g", "d", "s", "day"), (
    (1, Decimal("1.50"), "x", datetime.date(2024, 1, 31)),
    (2, None, "", None),
    (3, Decimal("0.25"), None, datetime.date(2024, 2, 1))))


def test_a_table_source_is_read_with_its_types_and_the_outer_sql_runs_in_duckdb(
        connection: duckdb.DuckDBPyConnection) -> None:
    text = "SELECT g, n FROM t MATCH_RECOGNIZE (PATTERN (A)) AS m WHERE g > 1 ORDER BY g DESC"
    seen: list[Table] = []

    def recognize(clause: MatchRecognize, table: Table) -> Table:
        assert clause == CLAUSE
        seen.append(table)
        return Table(("G", "N"), ((1, 10), (2, None), (3, 30)))

    piece = "t MATCH_RECOGNIZE (PATTERN (A))"
    statement = Statement(text, (recognition_at(text, TableName("t"), piece, "m"),))
    result = run_statement(statement, connection, recognize)
    assert seen == [INPUT]
    # DuckDB names a selected column as the table spells it (the reference's output: G, N)
    assert result.to_pylist() == [{"G": 3, "N": 30}, {"G": 2, "N": None}]
    assert result.schema.field("G").type == pa.int32()     # the source's INTEGER, kept
    assert result.schema.field("N").type == pa.int64()     # inferred from 10, None, 30


def test_a_subquery_source_runs_first_and_recognitions_nest(
        connection: duckdb.DuckDBPyConnection) -> None:
    inner_text = "SELECT g * 10 AS k FROM t MATCH_RECOGNIZE (PATTERN (A))"
    inner = Statement(inner_text, (recognition_at(inner_text, TableName("t"),
                                                  "t MATCH_RECOGNIZE (PATTERN (A))"),))
    text = f"SELECT count(*) AS c, sum(k) AS s FROM ({inner_text}) MATCH_RECOGNIZE (PATTERN (A))"
    outer = recognition_at(text, inner, f"({inner_text}) MATCH_RECOGNIZE (PATTERN (A))")
    calls: list[tuple[str, ...]] = []

    def recognize(clause: MatchRecognize, table: Table) -> Table:
        calls.append(table.names)
        if table.names == ("g", "d", "s", "day"):
            return Table(("g",), ((1,), (3,)))              # the inner recognition's output
        assert table == Table(("k",), ((10,), (30,)))       # the inner SELECT over it
        return table
    result = run_statement(Statement(text, (outer,)), connection, recognize)
    assert calls == [("g", "d", "s", "day"), ("k",)]
    assert result.to_pylist() == [{"c": 2, "s": 40}]


def test_two_recognitions_in_one_statement(connection: duckdb.DuckDBPyConnection) -> None:
    piece = "t MATCH_RECOGNIZE (PATTERN (A))"
    text = f"SELECT x FROM {piece} UNION ALL SELECT x FROM {piece} ORDER BY x"
    first = text.index(piece)
    second = text.index(piece, first + 1)
    recognitions = (Recognition(TableName("t"), CLAUSE, None, first, first + len(piece)),
                    Recognition(TableName("t"), CLAUSE, None, second, second + len(piece)))
    outputs = iter([Table(("x",), ((2,),)), Table(("x",), ((1,),))])
    result = run_statement(Statement(text, recognitions), connection,
                           lambda clause, table: next(outputs))
    assert result.column("x").to_pylist() == [1, 2]


def test_duckdbs_error_around_a_recognition_is_one_line(
        connection: duckdb.DuckDBPyConnection) -> None:
    piece = "t MATCH_RECOGNIZE (PATTERN (A))"
    text = f"SELECT nosuch FROM {piece}"
    statement = Statement(text, (recognition_at(text, TableName("t"), piece),))
    with pytest.raises(SqlError) as caught:
        run_statement(statement, connection, lambda clause, table: Table(("x",), ((1,),)))
    assert "nosuch" in str(caught.value) and "\n" not in str(caught.value)
    with pytest.raises(SqlError, match="no column"):
        run_statement(statement, connection, lambda clause, table: Table((), ((), ())))


def test_arrow_and_tables_convert_both_ways_keeping_types(
        connection: duckdb.DuckDBPyConnection) -> None:
    source = connection.execute("SELECT * FROM t").to_arrow_table()
    assert table_of(source) == INPUT
    back = arrow_of(INPUT, like=source.schema)
    assert back.equals(source)


@pytest.mark.parametrize(("values", "kind"), [
    ([None, None], pa.null()),
    ([True, None, False], pa.bool_()),
    ([1, None, -2], pa.int64()),
    ([2**63], pa.decimal128(19, 0)),
    ([1, Decimal("2.50"), None], pa.decimal128(3, 2)),
    ([Decimal("123.4"), Decimal("0.001")], pa.decimal128(6, 3)),
    ([1, 2.5], pa.float64()),
    ([Decimal("1.5"), 0.25], pa.float64()),
    (["a", None, ""], pa.string()),
    ([datetime.date(2024, 1, 31)], pa.date32()),
    ([datetime.datetime(2024, 1, 31, 12, 0, 1)], pa.timestamp("us")),
])
def test_an_output_columns_type_from_its_values(values: list[object],
                                                kind: pa.DataType) -> None:
    assert arrow_type(values) == kind


def test_values_that_share_no_column_type_are_one_error() -> None:
    with pytest.raises(KleeneError, match="output column X mixes"):
        arrow_type(["a", 1], "X")


def test_a_source_column_keeps_its_type_only_when_its_values_fit() -> None:
    like = pa.schema([("p", pa.int16()), ("q", pa.string())])
    out = arrow_of(Table(("P", "Q", "R"), ((None, 7, None),)), like=like)
    assert out.schema.types == [pa.int16(), pa.int64(), pa.null()]


def test_exact_numbers_among_floats_become_floats() -> None:
    # Decimal 0.5 and the float 0.25 share one column: arrow_type says float64, and the
    # decimal is converted to the float 0.5 (it was an ArrowInvalid crash)
    out = arrow_of(Table(("M",), ((Decimal("0.5"),), (0.25,), (None,), (2,))))
    assert out.schema.types == [pa.float64()]
    assert out.column("M").to_pylist() == [0.5, 0.25, None, 2.0]


TICKS = pa.table({"sym": ["A"] * 6, "ts": [1, 2, 3, 4, 5, 6],
                  "price": [10, 8, 6, 9, 12, 11]})
V_SHAPE = """
SELECT sym, start_ts, bottom_ts, end_ts
FROM ticks MATCH_RECOGNIZE (
  PARTITION BY sym ORDER BY ts
  MEASURES FIRST(ts) AS start_ts, LAST(DOWN.ts) AS bottom_ts, LAST(ts) AS end_ts
  ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW
  PATTERN (STRT DOWN+ UP+)
  DEFINE DOWN AS price < PREV(price), UP AS price > PREV(price)
)"""
#: 10 8 6 9 12 11: down at 2 and 3, up at 4 and 5, 11 < 12 ends it (by hand)
#: (a measure's unquoted name in upper case: SQL's rule for regular identifiers)
V_ROWS = [{"sym": "A", "START_TS": 1, "BOTTOM_TS": 3, "END_TS": 5}]


def test_match_recognize_over_an_arrow_table_with_the_reference() -> None:
    assert kleene.match_recognize is match_recognize
    assert match_recognize(TICKS, V_SHAPE).to_pylist() == V_ROWS


def test_match_recognize_over_a_pandas_frame_and_files(tmp_path: Path) -> None:
    assert match_recognize(TICKS.to_pandas(), V_SHAPE).to_pylist() == V_ROWS
    pq.write_table(TICKS, tmp_path / "ticks.parquet")
    pa_csv.write_csv(TICKS, tmp_path / "ticks.csv")
    for name in ("ticks.parquet", "ticks.csv"):
        assert match_recognize(tmp_path / name, V_SHAPE).to_pylist() == V_ROWS
        assert match_recognize(str(tmp_path / name), V_SHAPE).to_pylist() == V_ROWS
    assert isinstance(TICKS.to_pandas(), pd.DataFrame)


def test_match_recognize_names_the_data_as_told() -> None:
    text = V_SHAPE.replace("FROM ticks MATCH_RECOGNIZE",
                           "FROM (SELECT * FROM quotes) MATCH_RECOGNIZE")
    with pytest.raises(KleeneError, match=r"\(the recognitions read no table by name\)"):
        match_recognize(TICKS, text)
    assert match_recognize(TICKS, text, name="quotes").to_pylist() == V_ROWS


def test_match_recognize_refuses_what_it_cannot_read(tmp_path: Path) -> None:
    with pytest.raises(KleeneError, match="a table is read from .csv"):
        match_recognize(tmp_path / "ticks.xlsx", V_SHAPE)
    with pytest.raises(KleeneError, match="No such file or directory"):
        match_recognize(tmp_path / "ticks.parquet", V_SHAPE)


def test_the_tables_a_statement_reads() -> None:
    inner_text = "SELECT * FROM b MATCH_RECOGNIZE (PATTERN (A))"
    inner = Statement(inner_text, (recognition_at(inner_text, TableName("b"),
                                                  "b MATCH_RECOGNIZE (PATTERN (A))"),))
    text = "… a MATCH_RECOGNIZE … (…) MATCH_RECOGNIZE … A MATCH_RECOGNIZE"
    statement = Statement(text, (Recognition(TableName("a"), CLAUSE, None, 2, 3),
                                 Recognition(inner, CLAUSE, None, 20, 25),
                                 Recognition(TableName("A"), CLAUSE, None, 40, 41)))
    assert tables_read(statement) == ("a", "b")
