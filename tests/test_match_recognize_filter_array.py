"""An aggregate's ``FILTER (WHERE …)`` and ``ARRAY_AGG`` in ``MATCH_RECOGNIZE`` (issue 26):
parsed, printed back, checked, and evaluated by the reference and by the engine
``match-recognize`` alike, on hand-computed examples (ISO/IEC 9075-2 §10.9 <filter clause>,
<array aggregate function>; TR 19075-5 §4.9, §4.12-4.13)."""

from __future__ import annotations

import pyarrow as pa
import pytest

from kleene.engines.tables import match_recognize
from kleene.reference.errors import RecognitionError, Unsupported
from kleene.reference.match_recognize.ast import Aggregate
from kleene.reference.match_recognize.parser import parse_statement
from kleene.reference.match_recognize.printer import format_expr

BACKENDS = ("reference", "match-recognize")

#: x = 10 20 30 40 at t = 1…4
TABLE = pa.table({"t": [1, 2, 3, 4], "x": [10, 20, 30, 40]})


def rows(sql: str, engine: str, data: pa.Table = TABLE) -> list[tuple[object, ...]]:
    return [tuple(r.values()) for r in match_recognize(data, sql, engine=engine).to_pylist()]


@pytest.mark.parametrize("engine", BACKENDS)
def test_a_filter_keeps_the_rows_where_it_is_true(engine: str) -> None:
    # A B+ over all four rows (A = 10, B = 20 30 40): the sum of x where x > 15 is 90, the
    # rows of B with x <> 30 are 2 (20, 40), COUNT(*) where CLASSIFIER() = 'B' is 3, and
    # no row has x > 100: SUM is NULL, COUNT 0
    sql = """SELECT * FROM t MATCH_RECOGNIZE (ORDER BY t
        MEASURES SUM(x) FILTER (WHERE x > 15) AS s, COUNT(B.x) FILTER (WHERE B.x <> 30) AS nb,
                 COUNT(*) FILTER (WHERE CLASSIFIER() = 'B') AS c,
                 SUM(x) FILTER (WHERE x > 100) AS none, COUNT(*) FILTER (WHERE x > 100) AS zero
        PATTERN (A B+) DEFINE B AS x > PREV(x))"""
    assert rows(sql, engine) == [(90, 2, 3, None, 0)]


@pytest.mark.parametrize("engine", BACKENDS)
def test_count_star_takes_its_variable_from_the_filter(engine: str) -> None:
    # COUNT(*) names no column: FILTER (WHERE B.x > 15) counts B's rows with x > 15. A B B
    # B: B = 20 30 40, all above 15, so 3 (the universal variable would count 3 as well,
    # so the second measure tells them apart: B's rows with x < 35 are 20, 30: 2, while
    # every row with x < 35 would be 3)
    sql = """SELECT * FROM t MATCH_RECOGNIZE (ORDER BY t
        MEASURES COUNT(*) FILTER (WHERE B.x > 15) AS n, COUNT(*) FILTER (WHERE B.x < 35) AS m
        PATTERN (A B+) DEFINE B AS x > PREV(x))"""
    assert rows(sql, engine) == [(3, 2)]


@pytest.mark.parametrize("engine", BACKENDS)
def test_a_filter_in_all_rows_per_match_is_running(engine: str) -> None:
    # running semantics row by row: the sum of x over the rows so far with x <> 20:
    # 10, 10, 40, 80; FINAL: 80 on every row
    sql = """SELECT t, r, f FROM t MATCH_RECOGNIZE (ORDER BY t
        MEASURES SUM(x) FILTER (WHERE x <> 20) AS r,
                 FINAL SUM(x) FILTER (WHERE x <> 20) AS f
        ALL ROWS PER MATCH PATTERN (A+) DEFINE A AS TRUE) ORDER BY t"""
    assert rows(sql, engine) == [(1, 10, 80), (2, 10, 80), (3, 40, 80), (4, 80, 80)]


@pytest.mark.parametrize("engine", BACKENDS)
def test_a_filtered_aggregate_in_define_sees_the_match_so_far(engine: str) -> None:
    # A+ while the count of the rows so far with x >= 20 stays below 2: rows 1 (0), 2 (1),
    # then row 3 makes it 2: the match is rows 1-2; the next starts at row 3 (count 1),
    # row 4 makes it 2: row 3 alone; then row 4 alone
    sql = """SELECT * FROM t MATCH_RECOGNIZE (ORDER BY t
        MEASURES FIRST(t) AS f, LAST(t) AS l
        PATTERN (A+) DEFINE A AS COUNT(*) FILTER (WHERE x >= 20) < 2)"""
    assert rows(sql, engine) == [(1, 2), (3, 3), (4, 4)]


@pytest.mark.parametrize("engine", BACKENDS)
def test_array_agg_is_a_list_in_the_match_order(engine: str) -> None:
    # the standard's example (TR §4.12): the classifiers of A B B as an array; the x of B's
    # rows; a NULL kept; no row: NULL; DISTINCT of the classifiers
    data = pa.table({"t": [1, 2, 3], "x": [10, None, 30]})
    sql = """SELECT * FROM t MATCH_RECOGNIZE (ORDER BY t
        MEASURES ARRAY_AGG(CLASSIFIER()) AS c, ARRAY_AGG(B.x) AS bx,
                 ARRAY_AGG(x) FILTER (WHERE x > 99) AS none,
                 ARRAY_AGG(DISTINCT CLASSIFIER()) AS d
        PATTERN (A B+) DEFINE A AS t = 1)"""
    assert rows(sql, engine, data) == [(["A", "B", "B"], [None, 30], None, ["A", "B"])]
    table = match_recognize(data, sql, engine=engine)
    assert table.schema.field("C").type == pa.list_(pa.string())
    assert table.schema.field("BX").type == pa.list_(pa.int64())


def test_the_outer_select_sees_a_list() -> None:
    # DuckDB reads the measure as a LIST: its length and its second item
    sql = """SELECT len(c) AS n, c[2] AS second FROM t MATCH_RECOGNIZE (ORDER BY t
        MEASURES ARRAY_AGG(x) AS c PATTERN (A B+) DEFINE B AS x > PREV(x))"""
    assert rows(sql, "reference") == [(4, 20)]


def test_filter_and_array_agg_print_back() -> None:
    sql = ("SELECT * FROM t MATCH_RECOGNIZE (MEASURES RUNNING ARRAY_AGG(DISTINCT B.x) "
           "FILTER (WHERE B.x > 1 AND CLASSIFIER(B) = 'B') AS a PATTERN (A B))")
    [measure] = parse_statement(sql).recognitions[0].clause.measures
    assert isinstance(measure.expr, Aggregate) and measure.expr.filter is not None
    text = format_expr(measure.expr)
    assert text == ("RUNNING ARRAY_AGG(DISTINCT B.X) FILTER (WHERE B.X > 1 AND "
                    "CLASSIFIER(B) = 'B')")
    again = parse_statement(sql.replace(sql[sql.index("RUNNING"):sql.index(" AS a")], text))
    assert again.recognitions[0].clause.measures[0].expr == measure.expr


@pytest.mark.parametrize(("measure", "code", "at"), [
    # the filter is read at the rows the argument is read at (TR §4.9, ORA-62508)
    ("SUM(A.x) FILTER (WHERE B.x > 1)", "mixed-variables", "SUM"),
    ("SUM(A.x) FILTER (WHERE x > 1)", "mixed-variables", "SUM"),
    ("SUM(x) FILTER (WHERE B.x > 1)", "mixed-variables", "SUM"),
    ("COUNT(A.*) FILTER (WHERE B.x > 1)", "mixed-variables", "COUNT"),
    ("SUM(x) FILTER (WHERE PREV(x) > 1)", "navigation-in-aggregate", "PREV"),
    ("COUNT(*) FILTER (WHERE SUM(x) > 1)", "aggregate-in-aggregate", "SUM"),
    ("COUNT(*) FILTER (WHERE C.x > 1)", "undefined-variable", "C.x"),
])
def test_a_filter_breaking_an_aggregate_rule_is_refused(measure: str, code: str,
                                                        at: str) -> None:
    sql = f"SELECT * FROM t MATCH_RECOGNIZE (MEASURES {measure} AS m PATTERN (A B))"
    with pytest.raises(RecognitionError) as caught:
        parse_statement(sql)
    assert caught.value.code == code
    assert (caught.value.line, caught.value.column) == (1, sql.index(at) + 1)


def test_filter_after_a_function_that_is_no_aggregate_is_unsupported() -> None:
    with pytest.raises(Unsupported, match="FILTER after a function that is no aggregate"):
        parse_statement("SELECT * FROM t MATCH_RECOGNIZE (MEASURES ABS(x) FILTER (WHERE x > 1) "
                        "AS m PATTERN (A))")
