"""Finality of ``MATCH_RECOGNIZE`` output on a growing partition
(``reference/match_recognize/finality.py``; issue 30, item 2).

The oracle is the reference's recognition of whole partitions: the rows
:func:`settle` calls final on a prefix must be the first rows the recognition outputs on
every longer prefix and on the whole partition (Hypothesis over drawn clauses and
tables); settling a prefix piece by piece, each piece from the cursor the last one left
and only the rows the state keeps, gives at least the rows settling it at once gives,
and only rows of the whole partition's output. The hand
examples check that the rule is not vacuous: what is final, and what waits.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from kleene.conformance.recognize_strategies import input_tables, match_recognize_clauses
from kleene.data.sql import table_of
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


def _whole(clause: MatchRecognize, names: tuple[str, ...], rows: list[Row]) -> list[Row]:
    return Recognizer(clause, Table(names, tuple(rows)), Budget(limit=STEPS)).partition(rows)


def _cases(clause: MatchRecognize, table: Any) -> list[list[Row]]:
    t = table_of(table)
    return partitions(clause, t)


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(clause=match_recognize_clauses(), table=input_tables())
def test_final_rows_are_output_by_every_extension(clause: MatchRecognize, table: Any) -> None:
    names = tuple(table.column_names)
    try:
        for rows in _cases(clause, table):
            outputs = [_whole(clause, names, rows[:k]) for k in range(len(rows) + 1)]
            for k in range(len(rows) + 1):
                final = settle(clause, names, rows[:k], floor=_floor(clause, names, rows, k),
                               budget=Budget(limit=STEPS)).rows
                for later in outputs[k:]:
                    assert list(final) == later[:len(final)], (k, final, later)
    except BudgetExceeded:
        assume(False)
    except KleeneError:
        assume(False)   # a data error (a division by zero, a skip to the first row)


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(clause=match_recognize_clauses(), table=input_tables(), data=st.data())
def test_settling_in_pieces_equals_settling_at_once(clause: MatchRecognize, table: Any,
                                                    data: Any) -> None:
    names = tuple(table.column_names)
    back = reach(clause).back
    try:
        for rows in _cases(clause, table):
            cuts = sorted(data.draw(st.lists(st.integers(0, len(rows)), max_size=4),
                                    label="cuts"))
            got: list[Row] = []
            cursor, base = Cursor(), 0
            tail: list[Row] = []
            seen = 0
            for k in [*cuts, len(rows)]:
                tail = tail + rows[seen:k]
                seen = max(seen, k)
                floor = _floor(clause, names, rows, seen)
                done = settle(clause, names, tail, base=base, cursor=cursor, floor=floor,
                              budget=Budget(limit=STEPS))
                got.extend(done.rows)
                cursor = done.cursor
                keep = max(base, cursor.pos - back)
                tail, base = tail[keep - base:], keep
            once = settle(clause, names, rows, budget=Budget(limit=STEPS)).rows
            assert got[:len(once)] == list(once)      # the pieces lose nothing
            whole = _whole(clause, names, rows)
            assert got == whole[:len(got)]
            rest = settle(clause, names, tail, base=base, cursor=cursor, ended=True,
                          budget=Budget(limit=STEPS))
            assert got + list(rest.rows) == whole     # the end of the stream: the rest
    except (BudgetExceeded, KleeneError):
        assume(False)


def _settled(sql: str, xs: list[Any], **kw: Any) -> tuple[Row, ...]:
    clause = parse_statement(sql).recognitions[0].clause
    rows = [(i, x) for i, x in enumerate(xs)]
    return settle(clause, ("T", "X"), rows, **kw).rows


def test_a_match_complete_without_a_choice_left_is_final() -> None:
    sql = ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY t MEASURES FIRST(A.t) AS s "
           "PATTERN (A B) DEFINE A AS x = 1, B AS x = 2)")
    assert _settled(sql, [1, 2, 1]) == ((0,),)
    assert _settled(sql, [1, 2, 1, 2]) == ((0,), (2,))


def test_a_greedy_quantifier_at_the_end_waits_for_a_row_that_ends_it() -> None:
    sql = ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY t MEASURES COUNT(*) AS n "
           "PATTERN (A+) DEFINE A AS x = 1)")
    assert _settled(sql, [1, 1, 1]) == ()
    assert _settled(sql, [1, 1, 1, 0]) == ((3,),)


def test_a_reluctant_quantifier_is_final_at_its_shortest() -> None:
    sql = ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY t MEASURES COUNT(*) AS n "
           "PATTERN (A+?) DEFINE A AS x = 1)")
    assert _settled(sql, [1, 1, 1]) == ((1,), (1,), (1,))


def test_next_in_define_waits_for_the_row_it_reads() -> None:
    sql = ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY t MEASURES A.t AS s "
           "PATTERN (A) DEFINE A AS NEXT(x) = 2)")
    assert _settled(sql, [1, 2, 0]) == ((0,),)
    assert _settled(sql, [1, 2, 0, 2]) == ((0,), (2,))


def test_the_end_anchor_holds_only_once_the_partition_ends() -> None:
    sql = ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY t MEASURES A.t AS s "
           "PATTERN (A $ | B) DEFINE A AS x = 1)")
    assert _settled(sql, [1]) == ()
    assert _settled(sql, [1, 1]) == ((None,),)


def test_within_ends_a_greedy_quantifier_once_the_floor_is_past_it() -> None:
    sql = ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY t MEASURES COUNT(*) AS n "
           "PATTERN (A+) WITHIN INTERVAL '2' SECOND DEFINE A AS x = 1)")
    assert _settled(sql, [1, 1]) == ()
    assert _settled(sql, [1, 1], floor=2) == ()        # row 2 may still come (ts 2 - 0 <= 2)
    assert _settled(sql, [1, 1], floor=Decimal(3)) == ((2,),)


@pytest.mark.parametrize("back", [1, 3])
def test_reach_back_is_the_largest_prev_offset(back: int) -> None:
    sql = ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY t MEASURES A.t AS s "
           f"PATTERN (A) DEFINE A AS x > PREV(x, {back}))")
    assert reach(parse_statement(sql).recognitions[0].clause).back == back
