"""What stands around a ``MATCH_RECOGNIZE`` clause (issue 26): another recognition as its
parenthesised, named source (the inner one first); a window function in it, and a column of
the query around it (LATERAL), refused with a code at their position. Hand-computed."""

from __future__ import annotations

import pyarrow as pa
import pytest

from kleene.conformance.sqllogictest.runner import engine_recognizer, reference
from kleene.data.sql import run_over
from kleene.reference.errors import RecognitionError, Unsupported
from kleene.reference.match_recognize.ast import Statement
from kleene.reference.match_recognize.parser import parse_statement

#: v = 5 1 6 7 2 8 at i = 1…6
TABLE = pa.table({"i": [1, 2, 3, 4, 5, 6], "v": [5, 1, 6, 7, 2, 8]})

NESTED = """SELECT * FROM (
    SELECT i, v FROM t MATCH_RECOGNIZE (ORDER BY i ALL ROWS PER MATCH PATTERN (A+)
                                        DEFINE A AS v > 4)
) AS s MATCH_RECOGNIZE (
    ORDER BY i MEASURES FIRST(i) AS f, LAST(i) AS l PATTERN (B C) DEFINE C AS v > PREV(v)
) ORDER BY f"""


@pytest.mark.parametrize("engine", ["reference", "match-recognize"])
def test_a_named_source_holding_a_recognition_is_run_first(engine: str) -> None:
    # the inner recognition keeps the rows with v > 4: (1, 5) (3, 6) (4, 7) (6, 8); over
    # them B C with C rising: B = i 1, C = i 3 (6 > 5: PREV is the source's previous row,
    # not i 2), then B = i 4, C = i 6 (8 > 7)
    recognizer = reference() if engine == "reference" else engine_recognizer(engine)
    out = run_over(TABLE, parse_statement(NESTED), name="t", recognize=recognizer)
    assert [tuple(r.values()) for r in out.to_pylist()] == [(1, 3), (4, 6)]


def test_the_named_source_is_a_statement_and_a_column_list_is_unsupported() -> None:
    [outer] = [r for r in parse_statement(NESTED).recognitions]
    assert isinstance(outer.source, Statement) and len(outer.source.recognitions) == 1
    with pytest.raises(Unsupported, match="a column list after its input name"):
        parse_statement(NESTED.replace("AS s MATCH", "AS s(a, b) MATCH"))


def test_a_window_function_is_refused_where_it_stands() -> None:
    sql = ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY i\n"
           "  MEASURES row_number() OVER () AS r ALL ROWS PER MATCH PATTERN (A))")
    with pytest.raises(RecognitionError) as caught:
        parse_statement(sql)
    assert caught.value.code == "window-function"
    assert (caught.value.line, caught.value.column) == (2, 25)
    with pytest.raises(RecognitionError, match="window-function"):
        parse_statement(sql.replace("row_number()", "SUM(i)"))


@pytest.mark.parametrize(("where", "code"), [
    ("MEASURES COUNT(*) + u.k AS n PATTERN (A+)", "undefined-variable"),
    ("PATTERN (A+) DEFINE A AS v <= u.k", "undefined-variable"),
    ("PARTITION BY u.k PATTERN (A+)", "pattern-function-outside"),
])
def test_a_column_of_the_query_around_is_refused(where: str, code: str) -> None:
    # inside the clause only row pattern and union variables qualify a column
    # (docs/errata.md, mr-input-table-qualifier): the LATERAL query's u is none
    sql = (f"SELECT * FROM (VALUES (1)) u(k), LATERAL (SELECT * FROM t MATCH_RECOGNIZE "
           f"({where})) q")
    with pytest.raises(RecognitionError) as caught:
        parse_statement(sql)
    assert caught.value.code == code
    assert caught.value.column == sql.index("u.k") + 1
