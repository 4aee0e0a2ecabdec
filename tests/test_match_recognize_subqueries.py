"""A subquery inside ``MATCH_RECOGNIZE`` (issue 26): the standard admits one that performs no
row pattern recognition and reads no row pattern variable (TR 19075-5 §4.18.4), a constant of
the recognition, which data/sql.py has DuckDB evaluate once before it; one holding
``MATCH_RECOGNIZE`` is refused with a code and its position, one that reads the match's
columns is DuckDB's error, one line. Hand-computed, by the reference and the engine."""

from __future__ import annotations

import pyarrow as pa
import pytest

from kleene.conformance.sqllogictest.runner import engine_recognizer, reference
from kleene.data.sql import SqlError, run_over
from kleene.engines.tables import match_recognize
from kleene.reference.errors import RecognitionError, Unsupported
from kleene.reference.match_recognize.ast import InList, Subquery
from kleene.reference.match_recognize.parser import parse_statement
from kleene.reference.match_recognize.printer import format_expr
from kleene.reference.match_recognize.semantics import recognize
from kleene.reference.match_recognize.table import Table

BACKENDS = ("reference", "match-recognize")

#: x = 3 1 4 1 5 at t = 1…5
TABLE = pa.table({"t": [1, 2, 3, 4, 5], "x": [3, 1, 4, 1, 5]})


def rows(sql: str, engine: str) -> list[tuple[object, ...]]:
    """The statement over ``TABLE`` by the reference, or by the engine as ``kleene conform
    --sqllogictest --engine`` runs it (each clause compiled once its subqueries are known)."""
    recognizer = reference() if engine == "reference" else engine_recognizer(engine)
    out = run_over(TABLE, parse_statement(sql), recognize=recognizer)
    return [tuple(r.values()) for r in out.to_pylist()]


def test_the_doors_engine_leaves_a_clause_with_a_subquery_to_the_reference() -> None:
    # the engine compiles a statement before DuckDB evaluates its subqueries: by default the
    # reference answers, and the engine named is one line of Unsupported
    sql = """SELECT * FROM t MATCH_RECOGNIZE (ORDER BY t MEASURES COUNT(*) AS n
        PATTERN (A+) DEFINE A AS x > (SELECT avg(x) FROM t))"""
    assert match_recognize(TABLE, sql).to_pylist() == [{"N": 1}] * 3
    with pytest.raises(Unsupported, match="compiles a clause whose subqueries DuckDB has"):
        match_recognize(TABLE, sql, engine="match-recognize")


@pytest.mark.parametrize("engine", BACKENDS)
def test_a_scalar_subquery_in_define_is_a_constant(engine: str) -> None:
    # the average of x is 14 / 5 = 2.8: A+ over the runs of rows above it: 3 (t 1), 4 (t 3),
    # 5 (t 5)
    sql = """SELECT * FROM t MATCH_RECOGNIZE (ORDER BY t MEASURES FIRST(t) AS f, COUNT(*) AS n
        PATTERN (A+) DEFINE A AS x > (SELECT avg(x) FROM t))"""
    assert rows(sql, engine) == [(1, 1), (3, 1), (5, 1)]


@pytest.mark.parametrize("engine", BACKENDS)
def test_in_a_subquery_in_define(engine: str) -> None:
    # x IN (1, 5) (the subquery's rows, one twice): rows t 2, 4, 5; A+ takes t 2, then 4-5
    sql = """SELECT * FROM t MATCH_RECOGNIZE (ORDER BY t MEASURES FIRST(t) AS f, LAST(t) AS l
        PATTERN (A+)
        DEFINE A AS x IN (SELECT v FROM (VALUES (1), (5), (1)) s(v)))"""
    assert rows(sql, engine) == [(2, 2), (4, 5)]
    sql = sql.replace("x IN", "x NOT IN")   # 3 4: t 1, then 3
    assert rows(sql, engine) == [(1, 1), (3, 3)]


@pytest.mark.parametrize("engine", BACKENDS)
def test_a_subquery_in_measures_is_one_value_for_every_match(engine: str) -> None:
    # rising runs (B: above the previous row): 1 4 (t 2-3) and 1 5 (t 4-5); the largest x is
    # 5, so the gap from each run's top: 1, 0
    sql = """SELECT * FROM t MATCH_RECOGNIZE (ORDER BY t
        MEASURES (SELECT max(x) FROM t) - LAST(x) AS gap, (SELECT 'k') AS k
        PATTERN (A B+) DEFINE B AS x > PREV(x))"""
    assert rows(sql, engine) == [(1, "k"), (0, "k")]


def test_a_subquery_reading_the_match_is_one_line_of_duckdb() -> None:
    sql = """SELECT * FROM t MATCH_RECOGNIZE (ORDER BY t
        MEASURES (SELECT max(y) FROM (VALUES (5)) u(y) WHERE y > x) AS s
        PATTERN (A) DEFINE A AS TRUE)"""
    with pytest.raises(SqlError) as caught:
        match_recognize(TABLE, sql, engine="reference")
    said = str(caught.value)
    assert "\n" not in said
    assert said.startswith("sql: the subquery (SELECT max(y) FROM (VALUES (5)) u(y) WHERE y > x) "
                           "inside MATCH_RECOGNIZE is evaluated on its own")
    assert '"x"' in said   # DuckDB's binder: no column x there


def test_a_scalar_subquery_of_two_rows_is_an_error() -> None:
    sql = """SELECT * FROM t MATCH_RECOGNIZE (ORDER BY t MEASURES COUNT(*) AS n
        PATTERN (A) DEFINE A AS x = (SELECT x FROM t))"""
    with pytest.raises(SqlError, match="evaluated on its own"):
        match_recognize(TABLE, sql, engine="reference")


def test_a_subquery_holding_match_recognize_is_refused_where_it_says_so() -> None:
    sql = ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY t MEASURES COUNT(*) AS n PATTERN (A)\n"
           "  DEFINE A AS x > (SELECT max(y) FROM u MATCH_RECOGNIZE (ORDER BY y MEASURES y AS y "
           "PATTERN (B))))")
    with pytest.raises(RecognitionError) as caught:
        parse_statement(sql)
    assert caught.value.code == "recognition-in-subquery"
    assert (caught.value.line, caught.value.column) == (2, 41)


def test_a_subquery_prints_back_as_written_and_the_reference_alone_does_not_guess() -> None:
    sql = ("SELECT * FROM t MATCH_RECOGNIZE (PATTERN (A) DEFINE A AS x IN (SELECT v FROM s) "
           "AND x > ( SELECT min(v) FROM s ))")
    clause = parse_statement(sql).recognitions[0].clause
    condition = clause.defines[0].condition
    text = format_expr(condition)
    assert text == "X IN (SELECT v FROM s) AND X > (SELECT min(v) FROM s)"
    again = parse_statement(sql.replace(sql[sql.index("x IN"):-1], text))
    assert again.recognitions[0].clause.defines[0].condition == condition
    subqueries = [x for x in (condition.left, condition.right)]  # type: ignore[attr-defined]
    assert isinstance(subqueries[0], InList)
    assert subqueries[0].items == (Subquery("SELECT v FROM s", many=True),)
    with pytest.raises(Unsupported, match="evaluated by the SQL engine around the recognition"):
        recognize(clause, Table(("x",), ((1,),)))
