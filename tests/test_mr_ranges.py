"""A partition recognized in ranges of rows equals its recognition at once
(:mod:`kleene.reference.match_recognize.ranges`; issue 30, a recognition without
``PARTITION BY`` in several Spark tasks).

The oracle is the reference's recognition of the whole partition
(:func:`~kleene.reference.match_recognize.semantics.recognize`): drawn clauses made
bounded (every quantifier given a most, the anchors dropped, a pattern that can match no
row given a variable after it, ``WITH UNMATCHED ROWS`` shown as ``SHOW EMPTY MATCHES``),
every ``AFTER MATCH SKIP``, drawn tables, ranges of one row, of a few, and of more rows
than the table. The bounds and the refusals by hand.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from kleene.conformance.recognize_strategies import (
    input_tables,
    match_recognize_clauses,
    plain_clauses,
)
from kleene.data.sql import table_of
from kleene.reference.budget import Budget
from kleene.reference.errors import BudgetExceeded, KleeneError, Unsupported
from kleene.reference.match_recognize.ast import (
    AfterMatchSkip,
    Alt,
    Anchor,
    Binary,
    Column,
    Concat,
    Define,
    Empty,
    Exclude,
    MatchNumber,
    MatchRecognize,
    Navigation,
    Permute,
    Quantified,
    RowPattern,
    RowsPerMatch,
    Var,
)
from kleene.reference.match_recognize.checks import pattern_variables
from kleene.reference.match_recognize.expressions import walk
from kleene.reference.match_recognize.ranges import Bounds, bounds, recognize_in_ranges
from kleene.reference.match_recognize.semantics import recognize
from kleene.reference.match_recognize.table import Table
from tests.helpers import clause_of

STEPS = 20_000


def _bounded_pattern(p: RowPattern) -> RowPattern:
    """``p`` with every quantifier given a most (its least + 2) and no anchor."""
    if isinstance(p, Anchor):
        return Empty()
    if isinstance(p, (Concat, Alt, Permute)):
        return type(p)(tuple(_bounded_pattern(i) for i in p.items))
    if isinstance(p, Exclude):
        return Exclude(_bounded_pattern(p.body))
    if isinstance(p, Quantified):
        high = p.high if p.high is not None else max(p.low, 1) + 2
        return Quantified(_bounded_pattern(p.body), p.low, high, p.reluctant)
    return p


def _bounded(clause: MatchRecognize) -> MatchRecognize:
    """The drawn clause made one :func:`bounds` accepts (the module docstring)."""
    variables = pattern_variables(clause.pattern)
    assume(variables)
    pattern = _bounded_pattern(clause.pattern)
    pattern = Concat((pattern, Var(variables[0])))   # every matching maps a row
    rows = "ALL SHOW" if clause.rows_per_match == "ALL WITH UNMATCHED" else \
        clause.rows_per_match
    measures = tuple(m for m in clause.measures   # DEFINE has none (TR §4.13)
                     if not any(isinstance(x, MatchNumber) for x in walk(m.expr)))
    return replace(clause, pattern=pattern, rows_per_match=rows, measures=measures)


def _outputs(clause: MatchRecognize, table: Table, sizes: list[int]) -> None:
    try:
        whole = recognize(clause, table, budget=Budget(limit=STEPS))
    except BudgetExceeded:
        assume(False)
        return
    except KleeneError as err:
        # a data exception (a skip to the first row, a division by zero): the ranges
        # raise the same, from the same search
        for size in sizes:
            with pytest.raises(KleeneError) as raised:
                recognize_in_ranges(clause, table, size, budget=Budget(limit=50 * STEPS))
            assert str(raised.value) == str(err), size
        return
    for size in sizes:   # the ranges search every start row: a larger budget
        got = recognize_in_ranges(clause, table, size, budget=Budget(limit=50 * STEPS))
        assert got.names == whole.names
        assert list(got.rows) == list(whole.rows), size


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(clause=match_recognize_clauses().map(_bounded), table=input_tables(),
       size=st.integers(2, 4))
def test_ranges_give_the_recognition_of_the_whole_partition(clause: MatchRecognize,
                                                            table: Any, size: int) -> None:
    t = table_of(table)
    _outputs(clause, t, [1, size, table.num_rows + 1])


@st.composite
def _plain(draw: st.DrawFn) -> MatchRecognize:
    """An everyday clause (``PREV`` of the match's previous row often), bounded, under a
    drawn ``AFTER MATCH SKIP``."""
    clause = _bounded(draw(plain_clauses()))
    variables = pattern_variables(clause.pattern)
    skips = [AfterMatchSkip("PAST LAST ROW"), AfterMatchSkip("TO NEXT ROW")]
    skips += [AfterMatchSkip(kind, v) for kind in ("TO FIRST", "TO LAST") for v in variables]
    rows: RowsPerMatch = draw(st.sampled_from(("ONE", "ALL SHOW")))
    defines: list[Define] = list(clause.defines)
    ahead: bool = draw(st.booleans())
    if defines and ahead:   # a look ahead: X against NEXT(X, k)
        i = draw(st.integers(0, len(defines) - 1))
        v, k = defines[i].var, draw(st.integers(1, 2))
        defines[i] = Define(v, Binary(draw(st.sampled_from(("<", ">="))), Column("X", v),
                                      Navigation("NEXT", Column("X", v), k)))
    return replace(clause, after_match=draw(st.sampled_from(skips)), rows_per_match=rows,
                   defines=tuple(defines))


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(clause=_plain(), table=input_tables(), size=st.integers(2, 4))
def test_ranges_give_the_recognition_of_the_whole_partition_everyday(
        clause: MatchRecognize, table: Any, size: int) -> None:
    _outputs(clause, table_of(table), [1, size, table.num_rows + 1])


SEQ3 = """SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES X.id AS x, Z.id AS z
    PATTERN (X Y Z) DEFINE X AS kind = 'S', Y AS kind = 'B',
    Z AS kind = 'B' AND price > X.price)"""


def test_bounds_by_hand():
    assert bounds(clause_of(SEQ3)) == Bounds(span=3, back=0, ahead=0)
    clause = clause_of("""SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts
        MEASURES NEXT(LAST(B.x), 3) AS n PATTERN (A{1,3} (B | C D)?)
        DEFINE A AS x > PREV(x, 2), C AS PREV(x) + NEXT(x, 2) > 0)""")
    # a match maps 1 to 3 A then nothing, B or C D: at most 5; PREV reaches 2 back,
    # NEXT 3 ahead (of LAST(B.x), a row of the match)
    assert bounds(clause) == Bounds(span=5, back=2, ahead=3)
    assert (bounds(clause).before, bounds(clause).after) == (2, 7)


@pytest.mark.parametrize(("pattern", "extra", "why"), [
    ("A+ B", "", "an unbounded quantifier"),
    ("A{2,} B", "", "an unbounded quantifier"),
    ("A? B?", "", "an empty match"),
    ("^ A B", "", r"\^ asks where the partition starts"),
    ("A B $", "", r"\$ asks where the partition ends"),
    ("A B", "ALL ROWS PER MATCH WITH UNMATCHED ROWS", "WITH UNMATCHED ROWS"),
])
def test_a_clause_without_bounds_is_refused_with_its_reason(pattern, extra, why):
    sql = (f"SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts {extra} PATTERN ({pattern}) "
           "DEFINE A AS x > 0)")
    with pytest.raises(Unsupported, match=f"^unsupported: not split into ranges of rows: .*{why}"):
        bounds(clause_of(sql))


def test_match_number_is_refused():
    with pytest.raises(Unsupported, match="MATCH_NUMBER"):
        bounds(clause_of("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES "
                       "MATCH_NUMBER() AS m PATTERN (A B) DEFINE A AS x > 0)"))


def test_a_match_near_a_range_s_end_hides_a_candidate_at_the_next_range_s_start():
    # by hand: x = 1 2 3 4, PATTERN (A B), every row satisfies A and B, ranges of 1 row.
    # The candidates are at rows 0, 1, 2 (0-1, 1-2, 2-3); PAST LAST ROW keeps 0-1 and
    # 2-3: the candidate at 1 (the next range's first row) is hidden by the match 0-1,
    # which "one match per start row" would keep.
    table = Table(("ts", "x"), tuple((i, i + 1) for i in range(4)))
    clause = clause_of("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES A.x AS a, "
                     "B.x AS b PATTERN (A B) DEFINE A AS x > 0)")
    assert list(recognize_in_ranges(clause, table, 1).rows) == [(1, 2), (3, 4)]
    skip = replace(clause, after_match=replace(clause.after_match, kind="TO NEXT ROW"))
    assert list(recognize_in_ranges(skip, table, 1).rows) == [(1, 2), (2, 3), (3, 4)]
