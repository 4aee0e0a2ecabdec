"""The engine's finality equals the reference's (``engines/match_recognize/settling.py``;
issue 30, items 2 and 4).

The oracle is :func:`kleene.reference.match_recognize.finality.settle`: on drawn clauses
and tables, every partition cut after every row (the floor the next row's key), the
:class:`Settler` (the compiled loop, and the VM) outputs the same rows and leaves the same
cursor; settled in pieces from the kept rows, as a stream's state keeps them, each piece
equals the reference's on the same state, and the pieces and the end of the stream give
the batch recognition of the whole partition. The hand examples check where the engine
stops for the reference, and that the engine, not the reference, found the rows before.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from kleene.conformance.recognize_strategies import input_tables, match_recognize_clauses
from kleene.data.sql import arrow_of, table_of
from kleene.engines.match_recognize.settling import Settler
from kleene.reference.budget import Budget
from kleene.reference.errors import BudgetExceeded, KleeneError
from kleene.reference.match_recognize.ast import MatchRecognize
from kleene.reference.match_recognize.finality import reach, settle
from kleene.reference.match_recognize.parser import parse_statement
from kleene.reference.match_recognize.semantics import (
    Cursor,
    Recognizer,
    Row,
    partitions,
)
from kleene.reference.match_recognize.table import Table
from tests.helpers import first_key_floor as _floor

STEPS = 20_000


def _budget() -> Budget:
    return Budget(limit=STEPS)


def _arrow(rows: list[Row], like: pa.Table) -> pa.Table:
    return arrow_of(Table(tuple(like.column_names), tuple(rows)), like=like.schema)


@pytest.mark.slow
@settings(max_examples=250, deadline=None, suppress_health_check=list(HealthCheck))
@given(clause=match_recognize_clauses(), table=input_tables(), compiled=st.booleans())
def test_the_engine_settles_every_prefix_as_the_reference(clause: MatchRecognize,
                                                          table: pa.Table,
                                                          compiled: bool) -> None:
    names = tuple(table.column_names)
    try:
        settler = Settler(clause, table.schema, compiled=compiled)
        for rows in partitions(clause, table_of(table)):
            for k in range(len(rows) + 1):
                floor = _floor(clause, names, rows, k)
                want = settle(clause, names, rows[:k], floor=floor, budget=_budget())
                got = settler.settle(_arrow(rows[:k], table), floor=floor, budget=_budget())
                assert got == want, (k, got, want)
            ended = settler.settle(_arrow(rows, table), ended=True, budget=_budget())
            assert ended == settle(clause, names, rows, ended=True, budget=_budget())
    except (BudgetExceeded, KleeneError):
        assume(False)   # too many steps, or a data error (both answer it: the files' tests)


@pytest.mark.slow
@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(clause=match_recognize_clauses(), table=input_tables(), data=st.data())
def test_settling_in_pieces_equals_the_reference_and_the_batch(clause: MatchRecognize,
                                                               table: pa.Table,
                                                               data: Any) -> None:
    names = tuple(table.column_names)
    back = reach(clause).back
    try:
        settler = Settler(clause, table.schema)
        for rows in partitions(clause, table_of(table)):
            cuts = sorted(data.draw(st.lists(st.integers(0, len(rows)), max_size=4),
                                    label="cuts"))
            got: list[Row] = []
            cursor, base, tail, seen = Cursor(), 0, list[Row](), 0
            for k in [*cuts, len(rows)]:
                tail, seen = tail + rows[seen:k], max(seen, k)
                floor = _floor(clause, names, rows, seen)
                done = settler.settle(_arrow(tail, table), base=base, cursor=cursor,
                                      floor=floor, budget=_budget())
                assert done == settle(clause, names, tail, base=base, cursor=cursor,
                                      floor=floor, budget=_budget())
                got.extend(done.rows)
                cursor = done.cursor
                keep = max(base, cursor.pos - back)
                tail, base = tail[keep - base:], keep
            rest = settler.settle(_arrow(tail, table), base=base, cursor=cursor, ended=True,
                                  budget=_budget())
            whole = Recognizer(clause, Table(names, tuple(rows)), _budget()).partition(rows)
            assert got + list(rest.rows) == whole
    except (BudgetExceeded, KleeneError):
        assume(False)


V_SHAPE = ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY t MEASURES MATCH_NUMBER() AS n, "
           "FIRST(t) AS s, LAST(t) AS e ONE ROW PER MATCH PATTERN (STRT DOWN+ UP+) "
           "DEFINE DOWN AS x < PREV(x), UP AS x > PREV(x))")
SCHEMA = pa.schema([("T", pa.int64()), ("X", pa.int64())])


def _rows(xs: list[int]) -> pa.Table:
    return pa.table({"T": list(range(len(xs))), "X": xs}, schema=SCHEMA)


@pytest.mark.parametrize("compiled", [True, False])
def test_the_engine_stops_at_the_search_still_open(compiled: bool) -> None:
    clause = parse_statement(V_SHAPE).recognitions[0].clause
    settler = Settler(clause, SCHEMA, compiled=compiled)
    # by hand: rows 0-4 are 5 4 3 4 5 (a V, ended by row 5's 4: no UP), then 4 3 from row
    # 5: a V begun, whose DOWN+ asks for row 7
    rows = _rows([5, 4, 3, 4, 5, 4, 3])
    run = settler.run(rows, Cursor(), horizon=rows.num_rows)
    assert (run.rows, run.cursor, run.stopped) == ([(1, 0, 4)], Cursor(5, 1, 5), True)
    done = settler.settle(rows)
    assert done.rows == ((1, 0, 4),) and done.cursor == Cursor(5, 1, 5)
    # with the row that ends the second V's UP+: 4 3 4 5 5, a match at 5-8
    more = _rows([5, 4, 3, 4, 5, 4, 3, 4, 5, 5])
    assert settler.settle(more).rows == ((1, 0, 4), (2, 5, 8))
    assert settler.settle(more, ended=True).rows == ((1, 0, 4), (2, 5, 8))


def test_next_in_define_stops_the_engine_at_the_row_whose_next_is_past() -> None:
    sql = ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY t MEASURES A.t AS s "
           "PATTERN (A) DEFINE A AS NEXT(x) = 2)")
    clause = parse_statement(sql).recognitions[0].clause
    settler = Settler(clause, SCHEMA)
    rows = _rows([1, 2, 0, 2])
    # horizon 3 (n - 1): row 2's NEXT is row 3, there; the search from row 3 tests row 3
    run = settler.run(rows, Cursor(), horizon=3)
    assert (run.rows, run.cursor, run.stopped) == ([(0,), (2,)], Cursor(3, 2, 3), True)
    assert settler.settle(rows).rows == ((0,), (2,))      # row 3: NEXT is past P: waits


def test_the_end_anchor_stops_the_engine() -> None:
    sql = ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY t MEASURES A.t AS s "
           "PATTERN (A $ | B) DEFINE A AS x = 1)")
    clause = parse_statement(sql).recognitions[0].clause
    settler = Settler(clause, SCHEMA)
    assert settler.settle(_rows([1])).rows == ()
    assert settler.settle(_rows([1, 1])).rows == ((None,),)
