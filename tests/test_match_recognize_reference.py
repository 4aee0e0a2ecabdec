"""The reference of SQL row pattern recognition (reference/match_recognize/): ``recognize``
on hand-computed examples (the matchings' preferment: test_match_recognize_matchings.py).
Every expected value was worked out by hand; the comment above each assertion gives the
reasoning. Rows are numbered from 0 within their partition unless a column says otherwise."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from decimal import Decimal
from typing import Any

import pytest

from kleene.reference.budget import Budget
from kleene.reference.errors import BudgetExceeded, Unsupported
from kleene.reference.match_recognize.ast import (
    AfterMatchSkip,
    Aggregate,
    Alt,
    Anchor,
    Binary,
    Call,
    Classifier,
    Column,
    Define,
    Exclude,
    Expr,
    IsNull,
    MatchNumber,
    MatchRecognize,
    Measure,
    Navigation,
    Permute,
    RowPattern,
    SortKey,
    Subset,
    Unary,
    Var,
    Within,
)
from kleene.reference.match_recognize.scalars import DataError
from kleene.reference.match_recognize.semantics import recognize
from kleene.reference.match_recognize.table import Table
from tests.helpers import lit, rep, seq

A, B, C, X, Y, Z = (Var(n) for n in "ABCXYZ")


def col(name: str, var: str | None = None) -> Column:
    return Column(name.upper(), var)


def gt(left: Expr, right: Expr) -> Binary:
    return Binary(">", left, right)


def prev(e: Expr, n: int = 1) -> Navigation:
    return Navigation("PREV", e, n)


def measures(**named: Expr) -> tuple[Measure, ...]:
    return tuple(Measure(e, name) for name, e in named.items())


def clause(pattern: RowPattern, define: Mapping[str, Expr] | None = None, *,
           by: str | None = "g", order: str = "t", **kw: Any) -> MatchRecognize:
    """A clause over a table of columns ``g`` (partition), ``t`` (order) and ``x``."""
    return MatchRecognize(pattern=pattern,
                          defines=tuple(Define(v, e) for v, e in (define or {}).items()),
                          partition_by=(col(by),) if by else (),
                          order_by=(SortKey(col(order)),), **kw)


def table(*rows: tuple[object, ...], names: str = "g t x") -> Table:
    return Table(tuple(names.split()), rows)


def xs(*values: object, g: str = "p") -> Table:
    """One partition ``g`` whose rows ``t = 1, 2, …`` carry the values ``x``."""
    return table(*((g, i + 1, v) for i, v in enumerate(values)))


# ---------------------------------------------------------------- recognize

V_SHAPE = [10, 8, 6, 9, 12, 12, 7, 5, 9, 9, 3, 15]
DOWN_UP = {"DOWN": Binary("<", col("x"), prev(col("x"))),
           "UP": gt(col("x"), prev(col("x")))}
STRT_DOWN_UP = seq(Var("STRT"), rep(Var("DOWN"), 1), rep(Var("UP"), 1))


def test_v_shape_one_row_per_match():
    # 10 8 6 9 12 | 12 7 5 9 | 9 3 15: STRT at t=1, DOWN 8 6, UP 9 12 (12 = 12 is not
    # up), then STRT at t=6: 7 5 down, 9 up (9 = 9 is not); STRT at t=10: 3 down, 15 up.
    q = clause(STRT_DOWN_UP, define=DOWN_UP, measures=measures(
        first_t=Navigation("FIRST", col("t"), 0), bottom=Navigation("LAST", col("t", "DOWN"), 0),
        n=Aggregate("COUNT", None)))
    out = recognize(q, xs(*V_SHAPE))
    assert out.names == ("g", "first_t", "bottom", "n")
    assert out.rows == (("p", 1, 3, 5), ("p", 6, 8, 4), ("p", 10, 11, 3))


def cls_rows(q: MatchRecognize, t: Table) -> list[tuple[object, ...]]:
    """ALL ROWS PER MATCH with the measures of ``q``: (t, measures…) of each output row."""
    out = recognize(replace(q, rows_per_match=q.rows_per_match if q.rows_per_match != "ONE"
                            else "ALL SHOW"), t)
    names = [n.upper() for n in out.names]
    keep = [names.index("T")] + [names.index(m.name.upper()) for m in q.measures]
    return [tuple(r[i] for i in keep) for r in out.rows]


def test_greedy_giveback_in_a_whole_partition():
    # A+ B B, no condition: A takes all five rows, gives back two for B B.
    q = clause(seq(rep(A, 1), B, B), measures=measures(cls=Classifier()))
    assert cls_rows(q, xs(0, 0, 0, 0, 0)) == [(1, "A"), (2, "A"), (3, "A"), (4, "B"), (5, "B")]


def test_reluctant_matches_are_short():
    # A+? B over 5 rows: A B on rows 1-2, then 3-4; row 5 has no B after it.
    q = clause(seq(rep(A, 1, lazy=True), B),
               measures=measures(mno=MatchNumber(), n=Aggregate("COUNT", None)))
    assert recognize(q, xs(0, 0, 0, 0, 0)).rows == (("p", 1, 2), ("p", 2, 2))


def test_alternation_preference_decides_the_classifier():
    # X and Y have no DEFINE, so both hold on every row; the left one is taken.
    q = clause(rep(Alt((X, Y)), 1), measures=measures(cls=Classifier()))
    assert cls_rows(q, xs(0, 0, 0)) == [(1, "X"), (2, "X"), (3, "X")]
    q = replace(q, pattern=rep(Alt((Y, X)), 1))
    assert cls_rows(q, xs(0, 0, 0)) == [(1, "Y"), (2, "Y"), (3, "Y")]


def test_permute_takes_the_first_order_that_holds():
    # PERMUTE(X, Y) over 3 rows: X Y on rows 1-2; row 3 alone cannot hold both.
    q = clause(Permute((X, Y)), measures=measures(cls=Classifier()))
    assert cls_rows(q, xs(0, 0, 0)) == [(1, "X"), (2, "Y")]
    # A = 'a', B = 'b' over b a: A B fails on row 1, B A holds.
    q = clause(Permute((A, B)), {"A": Binary("=", col("x"), lit("a")),
                                 "B": Binary("=", col("x"), lit("b"))},
               measures=measures(cls=Classifier()))
    assert cls_rows(q, xs("b", "a")) == [(1, "B"), (2, "A")]


def test_anchors_in_a_partition():
    # x = 5 0 7, A AS x > 0. ^ A+: only from row 1, and A+ stops at the 0: one row.
    # A $: only a match ending on the last row: row 3.
    positive = {"A": gt(col("x"), lit(0))}
    first_t = measures(t0=Navigation("FIRST", col("t"), 0), n=Aggregate("COUNT", None))
    q = clause(seq(Anchor("^"), rep(A, 1)), positive, measures=first_t)
    assert recognize(q, xs(5, 0, 7)).rows == (("p", 1, 1),)
    q = replace(q, pattern=seq(A, Anchor("$")))
    assert recognize(q, xs(5, 0, 7)).rows == (("p", 3, 1),)


def test_excluded_rows_count_but_are_not_output():
    # 10 8 9: STRT 10, DOWN 8, UP 9; {- STRT -} leaves row 1 out of ALL ROWS but the
    # final count still sees all three rows.
    q = clause(seq(Exclude(Var("STRT")), rep(Var("DOWN"), 1), rep(Var("UP"), 1)), DOWN_UP,
               measures=measures(cls=Classifier(),
                                 fin=Aggregate("COUNT", None, semantics="FINAL")))
    assert cls_rows(q, xs(10, 8, 9)) == [(2, "DOWN", 3), (3, "UP", 3)]


def test_subset_union_variable():
    # U = (DOWN, UP) over 10 8 9 (STRT DOWN UP). Running, row by row: no U row at t=1,
    # then DOWN (8), then UP (9). Once per match: LAST(U.x) = 9, COUNT(U.*) = 2.
    q = clause(STRT_DOWN_UP, DOWN_UP, subsets=(Subset("U", ("DOWN", "UP")),),
               measures=measures(cu=Classifier("U"), ux=col("x", "U")))
    assert cls_rows(q, xs(10, 8, 9)) == [(1, None, None), (2, "DOWN", 8), (3, "UP", 9)]
    q = replace(q, measures=measures(last_u=Navigation("LAST", col("x", "U"), 0),
                                     n_u=Aggregate("COUNT", None, var="U")))
    assert recognize(q, xs(10, 8, 9)).rows == (("p", 9, 2),)


def test_running_and_final_measures():
    # A+ over x = 3 1 2, every row A. Running at each row: COUNT 1 2 3, LAST(x) is the row's
    # own x, MIN 3 1 1; final: COUNT 3, LAST(x) 2 on every row. Unmarked is running in ALL
    # ROWS PER MATCH, and in ONE ROW PER MATCH (evaluated at the last row) it is final.
    q = clause(rep(A, 1), measures=measures(
        rc=Aggregate("COUNT", None, semantics="RUNNING"), fc=Aggregate("COUNT", None,
                                                                       semantics="FINAL"),
        rl=Navigation("LAST", col("x"), 0, "RUNNING"), fl=Navigation("LAST", col("x"), 0, "FINAL"),
        mn=Aggregate("MIN", col("x")), dc=Aggregate("COUNT", None)))
    assert cls_rows(q, xs(3, 1, 2)) == [(1, 1, 3, 3, 2, 3, 1), (2, 2, 3, 1, 2, 1, 2),
                                        (3, 3, 3, 2, 2, 1, 3)]
    assert recognize(q, xs(3, 1, 2)).rows == (("p", 3, 3, 2, 2, 1, 3),)


def test_logical_and_physical_navigation_with_offsets_and_nesting():
    # x = 10 20 30 40 50, A+ takes all. FIRST(x, 1) = 20, LAST(x, 1) = 40, FIRST(x, 9) is
    # past the match: NULL. PREV(LAST(x, 1), 2): LAST(x, 1) is row 4, two back is row 2:
    # 20. PREV(x, 2) from the last row (5): 30; NEXT(x) from it leaves the partition: NULL.
    q = clause(rep(A, 1), measures=measures(
        f1=Navigation("FIRST", col("x"), 1), l1=Navigation("LAST", col("x"), 1),
        f9=Navigation("FIRST", col("x"), 9), pl=prev(Navigation("LAST", col("x"), 1), 2),
        p2=prev(col("x"), 2), n1=Navigation("NEXT", col("x"), 1)))
    assert recognize(q, xs(10, 20, 30, 40, 50)).rows == (("p", 20, 40, None, 20, 30, None),)


def test_physical_navigation_leaves_the_match_but_not_the_partition():
    # B AS x = 30 over 10 20 30 40: B A matches rows 3-4. PREV(B.x) reads row 2 (20), before
    # the match; PREV(B.x, 2) row 1 (10); PREV(B.x, 3) would be row 0: NULL.
    q = clause(seq(B, A), {"B": Binary("=", col("x"), lit(30))}, measures=measures(
        p1=prev(col("x", "B")), p2=prev(col("x", "B"), 2), p3=prev(col("x", "B"), 3)))
    assert recognize(q, xs(10, 20, 30, 40)).rows == (("p", 20, 10, None),)


def test_null_makes_a_condition_unknown_and_unknown_is_not_true():
    # x = 1 NULL 2. A AS x > 0: NULL > 0 is unknown, so row 2 is no A: matches at rows 1
    # and 3. A AS NOT (x > 0): false on 1 and 2, unknown on NULL: nothing. A AS x > 0 OR
    # x IS NULL: unknown OR true is true: one match of all three rows.
    first_t = measures(t0=Navigation("FIRST", col("t"), 0), n=Aggregate("COUNT", None))
    q = clause(rep(A, 1), {"A": gt(col("x"), lit(0))}, measures=first_t)
    assert recognize(q, xs(1, None, 2)).rows == (("p", 1, 1), ("p", 3, 1))
    q = clause(rep(A, 1), {"A": Unary("NOT", gt(col("x"), lit(0)))}, measures=first_t)
    assert recognize(q, xs(1, None, 2)).rows == ()
    q = clause(rep(A, 1), {"A": Binary("OR", gt(col("x"), lit(0)), IsNull(col("x")))},
               measures=first_t)
    assert recognize(q, xs(1, None, 2)).rows == (("p", 1, 3),)


# ---------------------------------------------------------------- AFTER MATCH SKIP (TR §4.5)

FIRST_T_N = measures(t0=Navigation("FIRST", col("t"), 0), n=Aggregate("COUNT", None))


def test_skip_to_next_row_finds_overlapping_matches():
    # A A over 4 rows: matches start at rows 1, 2, 3; row 4 has no second row.
    q = clause(seq(A, A), after_match=AfterMatchSkip("TO NEXT ROW"), measures=FIRST_T_N)
    assert recognize(q, xs(0, 0, 0, 0)).rows == (("p", 1, 2), ("p", 2, 2), ("p", 3, 2))


def test_skip_to_first_and_last_variable():
    # A B+ over 4 rows: A = row 1, B = rows 2-4. TO LAST B resumes at row 4, where A has
    # no B after it: one match. TO FIRST B resumes at row 2: A B B, then row 3: A B, then
    # row 4: nothing.
    q = clause(seq(A, rep(B, 1)), after_match=AfterMatchSkip("TO LAST", "B"), measures=FIRST_T_N)
    assert recognize(q, xs(0, 0, 0, 0)).rows == (("p", 1, 4),)
    q = replace(q, after_match=AfterMatchSkip("TO FIRST", "B"))
    assert recognize(q, xs(0, 0, 0, 0)).rows == (("p", 1, 4), ("p", 2, 3), ("p", 3, 2))


def test_skip_to_the_first_row_of_the_match_is_an_error():
    # A B: A is the match's first row, so SKIP TO FIRST A would find the same match again.
    q = clause(seq(A, B), after_match=AfterMatchSkip("TO FIRST", "A"), measures=FIRST_T_N)
    with pytest.raises(DataError) as e:
        recognize(q, xs(0, 0))
    assert e.value.code == "skip-to-first-row"


def test_skip_to_a_variable_that_maps_no_row_is_an_error():
    # A B? with B never true: the match is A alone and SKIP TO LAST B has no row to go to.
    q = clause(seq(A, rep(B, 0, 1)), {"B": lit(False)},
               after_match=AfterMatchSkip("TO LAST", "B"), measures=FIRST_T_N)
    with pytest.raises(DataError) as e:
        recognize(q, xs(0, 0))
    assert e.value.code == "skip-to-unmapped-variable"


# ---------------------------------------------------------------- empty matches, ROWS PER MATCH

Z_IS_Z = {"Z": Binary("=", col("x"), lit("z"))}
MNO_CLS_N = measures(mno=MatchNumber(), cls=Classifier(), n=Aggregate("COUNT", None))


def test_empty_matches_one_row_per_match():
    # Z* where no row is z: an empty match at every row, numbered 1 2 3, counting no row.
    q = clause(rep(Z, 0), Z_IS_Z, measures=measures(mno=MatchNumber(), n=Aggregate("COUNT", None)))
    assert recognize(q, xs("a", "b", "c")).rows == (("p", 1, 0), ("p", 2, 0), ("p", 3, 0))


def test_all_rows_shows_omits_or_adds_unmatched_rows():
    # Z* over a z a: an empty match at row 1 (number 1), Z on row 2 (number 2), an empty
    # match at row 3 (number 3). SHOW (the default) outputs each empty match on its
    # starting row with no classifier and a count of 0; OMIT leaves them out (they keep
    # their numbers).
    q = clause(rep(Z, 0), Z_IS_Z, rows_per_match="ALL SHOW", measures=MNO_CLS_N)
    out = recognize(q, xs("a", "z", "a"))
    assert out.names == ("g", "t", "mno", "cls", "n", "x")
    assert out.rows == (("p", 1, 1, None, 0, "a"), ("p", 2, 2, "Z", 1, "z"),
                        ("p", 3, 3, None, 0, "a"))
    q = replace(q, rows_per_match="ALL OMIT")
    assert recognize(q, xs("a", "z", "a")).rows == (("p", 2, 2, "Z", 1, "z"),)


def test_with_unmatched_rows_adds_rows_of_no_match_with_null_measures():
    # Z (no quantifier) over a z a: rows 1 and 3 match nothing and start no empty match.
    q = clause(Z, Z_IS_Z, rows_per_match="ALL WITH UNMATCHED", measures=MNO_CLS_N)
    assert cls_rows(q, xs("a", "z", "a")) == [(1, None, None, None), (2, 1, "Z", 1),
                                             (3, None, None, None)]


def test_a_row_inside_an_earlier_match_is_not_unmatched():
    # A B with B = 'b', over a b c, SKIP TO NEXT ROW: rows 1-2 match; row 2 then starts
    # no match but lies in match 1, so it is not output again; row 3 is unmatched.
    q = clause(seq(A, B), {"B": Binary("=", col("x"), lit("b"))},
               rows_per_match="ALL WITH UNMATCHED", after_match=AfterMatchSkip("TO NEXT ROW"),
               measures=measures(mno=MatchNumber(), cls=Classifier()))
    assert cls_rows(q, xs("a", "b", "c")) == [(1, 1, "A"), (2, 1, "B"), (3, None, None)]


def test_match_numbers_restart_in_each_partition_in_order_of_first_appearance():
    # Partition q appears first in the input; each partition's rows are sorted by t and
    # each single row is a match numbered from 1 in its partition.
    q = clause(A, measures=measures(t=col("t"), mno=MatchNumber()))
    t = table(("q", 2, 0), ("p", 1, 0), ("q", 1, 0), ("p", 2, 0))
    assert recognize(q, t).rows == (("q", 1, 1), ("q", 2, 2), ("p", 1, 1), ("p", 2, 2))


def test_a_measure_over_a_variable_with_no_rows():
    # A B? with B never true: LAST(B.x) has no row (NULL), COUNT(B.x) counts none.
    q = clause(seq(A, rep(B, 0, 1)), {"B": lit(False)}, measures=measures(
        lb=Navigation("LAST", col("x", "B"), 0), cb=Aggregate("COUNT", col("x", "B"))))
    assert recognize(q, xs(1)).rows == (("p", None, 0),)


# ---------------------------------------------------------------- ORDER BY, DEFINE, WITHIN

def test_order_by_nulls_default_and_ties_keep_input_order():
    # ORDER BY x over x = 2 NULL 1: ascending puts NULL last (1 2 NULL), descending first
    # (NULL 2 1), as Oracle does; NULLS FIRST ascending: NULL 1 2. The position is the
    # running count of A+, which takes the whole partition.
    pos = measures(pos=Aggregate("COUNT", None))
    q = clause(rep(A, 1), measures=pos, order="x", rows_per_match="ALL SHOW")
    t = xs(2, None, 1)

    def order_of(k: SortKey) -> list[object]:
        out = recognize(replace(q, order_by=(k,)), t)
        by_position = {row[2]: row[1] for row in out.rows}
        return [by_position[i] for i in range(1, len(out.rows) + 1)]
    assert order_of(SortKey(col("x"))) == [1, 2, None]
    assert order_of(SortKey(col("x"), descending=True)) == [None, 2, 1]
    assert order_of(SortKey(col("x"), nulls_first=True)) == [None, 1, 2]
    # ORDER BY g, all equal: the input order stands (t = 3, 1, 2 get positions 1, 2, 3).
    out = recognize(clause(rep(A, 1), measures=pos, order="g", rows_per_match="ALL SHOW"),
                    table(("p", 3, 0), ("p", 1, 0), ("p", 2, 0)))
    assert [(row[2], row[1]) for row in out.rows] == [(3, 1), (1, 2), (2, 3)]


def test_define_is_running_an_aggregate_sees_the_rows_so_far():
    # TR 19075-5 §5.3's example: prices 10 16 13 9, A AS x >= AVG(A.x). Row 1: 10 >= 10;
    # row 2: 16 >= 13; row 3: 13 >= 13; row 4: 9 >= 12 fails, ending match 1 (3 rows);
    # row 4 then starts match 2 (9 >= 9).
    q = clause(rep(A, 1), {"A": Binary(">=", col("x"), Aggregate("AVG", col("x", "A")))},
               measures=FIRST_T_N)
    assert recognize(q, xs(10, 16, 13, 9)).rows == (("p", 1, 3), ("p", 4, 1))


def test_within_bounds_the_first_order_key_of_a_match():
    # t = 0 1 2 5 read as seconds, A+: within 2 seconds the first match takes t = 0 1 2
    # (2 - 0 = 2) but not 5, which starts its own; within a minute all four.
    t = table(("p", 0, 0), ("p", 1, 0), ("p", 2, 0), ("p", 5, 0))
    q = clause(rep(A, 1), within=Within(Decimal(2), "SECOND"), measures=FIRST_T_N)
    assert recognize(q, t).rows == (("p", 0, 3), ("p", 5, 1))
    q = replace(q, within=Within(Decimal(1), "MINUTE"))
    assert recognize(q, t).rows == (("p", 0, 4),)
    with pytest.raises(Unsupported, match="ORDER BY"):
        recognize(replace(q, order_by=()), t)


def test_recognize_stops_on_the_budget_and_names_unsupported_functions():
    # (A+)+ B with no B: 2^29 ways to split 30 rows among the groups. A condition that
    # reads the match so far (COUNT(*)) makes the search try them: the budget stops it;
    # with row-local conditions each state of the search is searched once (matchings,
    # searched): no match, within a small budget
    local = clause(seq(rep(rep(A, 1), 1), B), {"B": lit(False)}, measures=FIRST_T_N)
    q = replace(local, defines=(*local.defines, Define("A", gt(Aggregate("COUNT", None),
                                                                lit(-1)))))
    with pytest.raises(BudgetExceeded):
        recognize(q, xs(*range(30)), budget=Budget(limit=10_000))
    assert recognize(local, xs(*range(30)), budget=Budget(limit=10_000)).rows == ()
    q = clause(A, {"A": gt(Call("FROBNICATE", (col("x"),)), lit(0))}, measures=FIRST_T_N)
    with pytest.raises(Unsupported, match="FROBNICATE"):
        recognize(q, xs(1))
