"""DEFINE and MEASURES expressions of the match_recognize reference (evaluation.py,
scalars.py) on hand-computed values: SQL's three-valued logic, arithmetic, CAST and
functions, and the row pattern's own references, navigation and aggregates over a match.

The partition below has four rows; the match starts at row 0 and maps rows 0, 1, 2 to
A, A, B (row 3 lies after it). ``upto`` is how many of its rows are visible (running)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from kleene.reference.errors import Unsupported
from kleene.reference.match_recognize.ast import (
    Aggregate,
    Between,
    Binary,
    Call,
    Case,
    Cast,
    Classifier,
    Column,
    Expr,
    InList,
    IsNull,
    Like,
    MatchNumber,
    Navigation,
    Unary,
)
from kleene.reference.match_recognize.evaluation import Scope, evaluate, holds
from kleene.reference.match_recognize.scalars import DataError
from tests.helpers import lit

#: Columns X, S, Y; rows 0-3.
ROWS = [(10, "a", 1), (20, None, 1), (30, "c", 2), (40, "d", 2)]
COLUMNS = {"X": 0, "S": 1, "Y": 2}


def scope(upto: int = 3, variables: str = "AAB", start: int = 0) -> Scope:
    return Scope(ROWS, COLUMNS, start, tuple(variables), upto, 7,
                 {"U": frozenset({"A", "B"})})


def ev(e: Expr, upto: int = 3) -> object:
    return evaluate(e, scope(upto))


T, F, N = lit(True), lit(False), lit(None)


# ---------------------------------------------------------------- three-valued logic

@pytest.mark.parametrize(("left", "right", "and_", "or_"), [
    (T, T, True, True), (T, F, False, True), (T, N, None, True),
    (F, F, False, False), (F, N, False, None), (N, N, None, None),
])
def test_and_or_truth_tables(left: Expr, right: Expr, and_: bool | None, or_: bool | None):
    # ISO/IEC 9075-2 §6.39: FALSE dominates AND, TRUE dominates OR, else UNKNOWN wins.
    for a, b in ((left, right), (right, left)):
        assert ev(Binary("AND", a, b)) is and_
        assert ev(Binary("OR", a, b)) is or_


def test_not_and_comparisons_with_null():
    assert [ev(Unary("NOT", x)) for x in (T, F, N)] == [False, True, None]
    assert ev(Binary("=", lit(1), N)) is None
    assert ev(Binary("<>", N, N)) is None
    assert (ev(IsNull(N)), ev(IsNull(lit(0))), ev(IsNull(N, negated=True))) == (True, False, False)


def test_in_between_like_with_null():
    # 1 IN (2, NULL): no TRUE, one UNKNOWN: UNKNOWN; 1 IN (1, NULL): TRUE; NOT IN (2, NULL):
    # UNKNOWN. 5 BETWEEN 1 AND NULL: TRUE AND UNKNOWN; 5 BETWEEN 6 AND NULL: FALSE AND …
    assert ev(InList(lit(1), (lit(2), N))) is None
    assert ev(InList(lit(1), (lit(1), N))) is True
    assert ev(InList(lit(1), (lit(2), N), negated=True)) is None
    assert ev(Between(lit(5), lit(1), N)) is None
    assert ev(Between(lit(5), lit(6), N)) is False
    assert ev(Between(lit(5), lit(1), lit(9), negated=True)) is False
    # _ one character, % any run; a regular expression's "." is an ordinary character.
    assert (ev(Like(lit("abc"), lit("a_c"))), ev(Like(lit("abc"), lit("a%"))),
            ev(Like(lit("abc"), lit("a.c"))), ev(Like(N, lit("%")))) == (True, True, False, None)


def test_case_takes_the_first_true_branch():
    # An UNKNOWN condition is not TRUE: the searched CASE falls to ELSE; the simple one
    # compares 2 = 1 (no), 2 = 2 (yes).
    assert ev(Case(None, ((N, lit("x")), (F, lit("y"))), lit("z"))) == "z"
    assert ev(Case(lit(2), ((lit(1), lit("one")), (lit(2), lit("two"))))) == "two"
    assert ev(Case(None, ((F, lit(1)),))) is None


# ---------------------------------------------------------------- arithmetic, CAST, functions

def test_arithmetic_kinds_and_division():
    # Exact over exact is exact: 7 / 2 = 3.5 as a Decimal; a float makes it a float.
    assert ev(Binary("/", lit(7), lit(2))) == Decimal("3.5")
    assert isinstance(ev(Binary("/", lit(7), lit(2))), Decimal)
    assert ev(Binary("/", lit(7.0), lit(2))) == 3.5
    assert ev(Binary("+", lit(1), N)) is None
    assert ev(Binary("*", lit(Decimal("1.5")), lit(2))) == Decimal("3.0")
    # MOD and % take the dividend's sign: -7 = -3 * 2 - 1.
    assert ev(Binary("%", lit(-7), lit(2))) == -1
    assert ev(Call("MOD", (lit(7), lit(-2)))) == 1
    with pytest.raises(DataError) as e:
        ev(Binary("/", lit(1), lit(0)))
    assert e.value.code == "division-by-zero"


def test_values_of_different_kinds_do_not_compare():
    for e in (Binary("<", lit("a"), lit(1)), Binary("+", lit("a"), lit(1))):
        with pytest.raises(DataError) as err:
            ev(e)
        assert err.value.code == "type-mismatch"


def test_cast_rounds_half_away_from_zero():
    assert ev(Cast(lit(2.5), "INTEGER")) == 3
    assert ev(Cast(lit(-2.5), "INTEGER")) == -3
    assert ev(Cast(lit("12"), "BIGINT")) == 12
    assert ev(Cast(lit(Decimal("1.005")), "DECIMAL(10, 2)")) == Decimal("1.01")
    assert (ev(Cast(lit(7), "VARCHAR")), ev(Cast(T, "VARCHAR"))) == ("7", "true")
    assert ev(Cast(N, "INTEGER")) is None
    with pytest.raises(DataError) as e:
        ev(Cast(lit("x"), "INTEGER"))
    assert e.value.code == "invalid-cast"


def test_scalar_functions():
    assert ev(Call("COALESCE", (N, N, lit(3)))) == 3
    assert ev(Call("NULLIF", (lit(2), lit(2)))) is None
    assert ev(Call("ABS", (lit(-3),))) == 3
    assert ev(Call("LENGTH", (lit("abc"),))) == 3
    # A list (DuckDB's LIST column, a Python list in a Table) has as many as its elements.
    assert evaluate(Call("LEN", (Column("L"),)), Scope([([5, 6],)], {"L": 0}, 0, "A", 1, 1, {})) \
        == 2
    assert (ev(Call("UPPER", (lit("aB"),))), ev(Call("LOWER", (lit("aB"),)))) == ("AB", "ab")
    assert ev(Call("ROUND", (lit(2.5),))) == 3.0
    assert ev(Call("UPPER", (N,))) is None
    assert ev(Binary("||", lit("a"), lit(1))) == "a1"
    assert ev(Binary("||", lit("a"), N)) is None
    with pytest.raises(Unsupported, match="FROBNICATE"):
        ev(Call("FROBNICATE", ()))


# ---------------------------------------------------------------- the match (TR §4.8–4.13)

def test_column_references_read_the_last_row_of_their_variable():
    # A maps rows 0, 1 and B row 2. A.X: row 1 (20); B.X: 30; X (universal): the current
    # row, 2 (30); U = (A, B): row 2; C maps no row: NULL. Running with one row visible,
    # B has no row yet and X is row 0.
    assert [ev(Column("X", v)) for v in ("A", "B", None, "U", "C")] == [20, 30, 30, 30, None]
    assert [ev(Column("X", v), upto=1) for v in ("A", "B", None)] == [10, None, 10]


def test_logical_and_physical_navigation():
    # FIRST(A.X) row 0 (10); LAST(A.X, 1) one before the last A: row 0; FIRST(A.X, 2): A has
    # two rows: NULL. PREV(X) from row 2: 20; PREV(X, 3): row -1: NULL; NEXT(X): row 3,
    # after the match but in the partition: 40; NEXT(X, 2): row 4: NULL.
    nav = Navigation
    assert ev(nav("FIRST", Column("X", "A"), 0)) == 10
    assert ev(nav("LAST", Column("X", "A"), 1)) == 10
    assert ev(nav("FIRST", Column("X", "A"), 2)) is None
    assert [ev(nav("PREV", Column("X"), 1)), ev(nav("PREV", Column("X"), 3))] == [20, None]
    assert [ev(nav("NEXT", Column("X"), 1)), ev(nav("NEXT", Column("X"), 2))] == [40, None]
    # PREV(FIRST(B.X), 1): B's first row is 2, one before it row 1 (20). FINAL LAST(X)
    # while one row is visible: the whole match, row 2.
    assert ev(nav("PREV", nav("FIRST", Column("X", "B"), 0), 1)) == 20
    assert ev(nav("LAST", Column("X"), 0, "FINAL"), upto=1) == 30


def test_aggregates_skip_nulls_and_count_rows():
    # Rows 0-2: X 10 20 30, S 'a' NULL 'c', Y 1 1 2.
    assert ev(Aggregate("COUNT", None)) == 3
    assert ev(Aggregate("COUNT", None, var="A")) == 2
    assert ev(Aggregate("COUNT", Column("S"))) == 2
    assert ev(Aggregate("SUM", Column("X", "A"))) == 30
    assert ev(Aggregate("AVG", Column("X"))) == 20.0
    assert (ev(Aggregate("MIN", Column("S"))), ev(Aggregate("MAX", Column("S")))) == ("a", "c")
    assert ev(Aggregate("COUNT", Column("Y"), distinct=True)) == 2
    assert ev(Aggregate("SUM", Column("Y"), distinct=True)) == 3
    # Over no row: COUNT 0, SUM NULL. Running (one row) against final (three).
    assert (ev(Aggregate("COUNT", Column("X", "C"))), ev(Aggregate("SUM", Column("X", "C")))) \
        == (0, None)
    assert ev(Aggregate("COUNT", None, semantics="RUNNING"), upto=1) == 1
    assert ev(Aggregate("COUNT", None, semantics="FINAL"), upto=1) == 3


def test_classifier_and_match_number():
    assert [ev(Classifier()), ev(Classifier(), upto=2), ev(Classifier("A"))] == ["B", "A", "A"]
    assert ev(Classifier(semantics="FINAL"), upto=1) == "B"
    # Physical navigation reads the row it reaches, whatever is visible: in MEASURES the
    # whole match is known, so at row 0 NEXT(CLASSIFIER()) is row 1's A, at row 1 row 2's B
    # (DuckDB's classifier tests; TR's compound example NEXT(RUNNING LAST(CLASSIFIER(U), 2), 3)).
    assert ev(Navigation("NEXT", Classifier(), 1), upto=1) == "A"
    assert ev(Navigation("NEXT", Classifier(), 1), upto=2) == "B"
    assert ev(Navigation("PREV", Classifier(), 1), upto=1) is None  # before the match
    assert ev(MatchNumber()) == 7


def test_an_empty_match_has_no_row():
    # No row mapped: references, navigation and CLASSIFIER are NULL, COUNT(*) is 0.
    empty = Scope(ROWS, COLUMNS, 1, (), 0, 1, {})
    assert evaluate(Column("X"), empty) is None
    assert evaluate(Navigation("PREV", Column("X"), 1), empty) is None
    assert evaluate(Classifier(), empty) is None
    assert evaluate(Aggregate("COUNT", None), empty) == 0


def test_a_condition_holds_only_when_true_and_no_condition_always_holds():
    assert holds(None, scope()) and holds(T, scope())
    assert not holds(N, scope()) and not holds(F, scope())
