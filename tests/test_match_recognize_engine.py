"""The match-recognize engine (engines/match_recognize/) against the reference.

Expected values come from the reference semantics as the oracle (the differential test),
from Oracle Database's answers (the Oracle file) and from the lead's hand computations
(Kleene's file); the budget test from the budget's own message."""

from __future__ import annotations

import time
from dataclasses import replace
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from bench import match_recognize as match_recognize_bench
from kleene.cli import main
from kleene.conformance.recognize_strategies import match_recognize_clauses
from kleene.conformance.sqllogictest import DUCKDB_FILES, KLEENE_FILES
from kleene.conformance.sqllogictest.runner import engine_recognizer, run_file
from kleene.data.sql import arrow_of, table_of
from kleene.engines.match_recognize.engine import MatchRecognizeEngine
from kleene.engines.match_recognize.program import compile_pattern
from kleene.engines.match_recognize.recognition import CompiledRecognition
from kleene.engines.protocol import Counters
from kleene.engines.tables import match_recognize
from kleene.reference.budget import Budget
from kleene.reference.errors import BudgetExceeded, KleeneError, Unsupported
from kleene.reference.match_recognize.ast import (
    AfterMatchSkip,
    Aggregate,
    Binary,
    Classifier,
    Column,
    Concat,
    Define,
    IsNull,
    Literal,
    MatchNumber,
    MatchRecognize,
    Measure,
    Navigation,
    Unary,
    Var,
)
from kleene.reference.match_recognize.checks import pattern_variables
from kleene.reference.match_recognize.semantics import recognize
from kleene.reference.query import Query
from tests.helpers import clause_of

# ---------------------------------------------------------------- the case files


@pytest.mark.parametrize("path", [DUCKDB_FILES / "test_match_recognize_oracle.test",
                                  KLEENE_FILES / "match_recognize.test"],
                         ids=["oracle", "kleene"])
def test_every_record_of_the_oracle_and_kleene_files_passes_through_the_engine(path):
    report = run_file(path, engine_recognizer("match-recognize"))
    bad = [f"{o.where}: {o.status} {o.reason}" for o in report.outcomes if o.status != "passed"]
    assert not bad and report.skipped is None
    assert report.count("passed", recognizing=True) >= 60


def test_conform_takes_only_a_match_recognize_engine():
    with pytest.raises(Unsupported, match="does not run MATCH_RECOGNIZE.*match-recognize"):
        engine_recognizer("nfa-chain")


# ---------------------------------------------------------------- differential


def _column(draw: st.DrawFn, values: st.SearchStrategy[object], n: int, kind: pa.DataType,
            label: str) -> pa.Array:
    return pa.array(draw(st.lists(st.none() | values, min_size=n, max_size=n), label=label),
                    type=kind)


@st.composite
def input_tables(draw: st.DrawFn) -> pa.Table:
    """Tables over the strategies' columns X Y S P T: few distinct values (ties in the
    order key T and the partition key P), NULLs in every column, X integers, Y floats or
    decimals."""
    n = draw(st.integers(0, 10) | st.integers(4, 10), label="rows")
    y_decimal = draw(st.booleans(), label="Y decimal")
    y = (st.decimals(-5, 5, places=1) if y_decimal else
         st.floats(-5, 5, allow_nan=False).map(lambda f: round(f, 1)))
    return pa.table({
        "X": _column(draw, st.integers(-3, 3), n, pa.int64(), "X"),
        "Y": _column(draw, y, n, pa.decimal128(4, 1) if y_decimal else pa.float64(), "Y"),
        "S": _column(draw, st.sampled_from(("a", "b", "A%", "")), n, pa.string(), "S"),
        "P": _column(draw, st.sampled_from(("p", "q")), n, pa.string(), "P"),
        "T": _column(draw, st.integers(0, 4), n, pa.int64(), "T"),
    })


def _same(got: tuple[str, object], expected: tuple[str, object]) -> None:
    if isinstance(got[1], pa.Table) and isinstance(expected[1], pa.Table):
        assert got[1].equals(expected[1]), (got[1].to_pylist(), expected[1].to_pylist())
    else:
        assert got == expected


def _outcome(run) -> tuple[str, object]:
    try:
        return "table", run()
    except KleeneError as err:
        return "error", (type(err).__name__, getattr(err, "code", None))


@pytest.mark.slow
@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(clause=match_recognize_clauses(), table=input_tables(), compiled=st.booleans())
def test_the_engine_answers_what_the_reference_answers(clause, table, compiled):
    # compiled: the numba loop where it applies (row-local conditions, a simple skip),
    # else the Python loop everywhere
    def reference() -> pa.Table:
        return arrow_of(recognize(clause, table_of(table), budget=Budget(limit=200_000)),
                        like=table.schema)

    engine = CompiledRecognition(clause, compiled=compiled)
    counters = Counters()

    def engine_run() -> pa.Table:
        return engine.recognize(table, budget=Budget(limit=200_000), counters=counters)

    expected = _outcome(reference)
    assume(expected[1] != ("BudgetExceeded", "budget"))
    got = _outcome(engine_run)
    event("error" if not isinstance(expected[1], pa.Table) else
          "rows" if expected[1].num_rows else "no row")
    event("compiled loop" if counters.compiled_partitions else "Python loop")
    _same(got, expected)


@st.composite
def row_local_clauses(draw: st.DrawFn) -> MatchRecognize:
    """Drawn clauses whose conditions are all row-local and of the kinds the kernels
    compute (comparisons of X, Y, PREV/NEXT of them and integers, AND/OR/NOT, IS NULL),
    with a skip the compiled loop runs: the compiled loop's own differential test."""
    clause = draw(match_recognize_clauses(), label="clause")
    operand = st.one_of(
        st.builds(Column, st.sampled_from(("X", "T"))),
        st.builds(lambda c, k, kind: Navigation(kind, Column(c), k),
                  st.sampled_from(("X", "T")), st.integers(0, 2),
                  st.sampled_from(("PREV", "NEXT"))),
        st.integers(-2, 4).map(Literal))
    compare = st.builds(Binary, st.sampled_from(("=", "<>", "<", "<=", ">", ">=")),
                        operand, operand)
    condition = st.recursive(compare | st.builds(IsNull, operand, st.booleans()),
                             lambda inner: st.builds(Binary, st.sampled_from(("AND", "OR")),
                                                     inner, inner)
                             | st.builds(Unary, st.just("NOT"), inner), max_leaves=3)
    defines = tuple(Define(d.var, draw(condition, label=f"DEFINE {d.var}"))
                    for d in clause.defines)
    skip = draw(st.sampled_from((AfterMatchSkip("PAST LAST ROW"),
                                 AfterMatchSkip("TO NEXT ROW"))), label="skip")
    clause = replace(clause, defines=defines, after_match=skip, within=None)
    if not draw(st.booleans(), label="measures read straight off the matches"):
        return clause
    # a first row for every match (no empty match), ONE ROW PER MATCH: the measures as
    # columns over all the matches of a partition
    clause = replace(clause, pattern=Concat((Var("A"), clause.pattern)))
    known = (None, *pattern_variables(clause.pattern), *(u.name for u in clause.subsets))
    var = st.sampled_from(known)
    column = st.builds(Column, st.sampled_from(("X", "Y", "S", "T")), var)
    simple = st.one_of(
        column, st.builds(Navigation, st.sampled_from(("FIRST", "LAST")), column,
                          st.integers(0, 2), st.sampled_from((None, "RUNNING", "FINAL"))),
        st.builds(lambda v: Aggregate("COUNT", None, v), var),
        st.builds(Classifier, var), st.just(MatchNumber()))
    measures = draw(st.lists(simple, max_size=3), label="simple measures")
    return replace(clause, rows_per_match="ONE",
                   measures=tuple(Measure(e, f"M{i}") for i, e in enumerate(measures)))


@pytest.mark.slow
@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(clause=row_local_clauses(), table=input_tables())
def test_the_compiled_loop_answers_what_the_reference_answers(clause, table):
    expected = _outcome(lambda: arrow_of(recognize(clause, table_of(table),
                                                   budget=Budget(limit=200_000)),
                                         like=table.schema))
    assume(expected[1] != ("BudgetExceeded", "budget"))
    counters = Counters()
    got = _outcome(lambda: CompiledRecognition(clause).recognize(
        table, budget=Budget(limit=200_000), counters=counters))
    event("compiled loop" if counters.compiled_partitions else "Python loop")
    event("measures as columns" if counters.measured_as_columns else "measures one by one")
    event("error" if not isinstance(expected[1], pa.Table) else
          "rows" if expected[1].num_rows else "no row")
    _same(got, expected)


# ---------------------------------------------------------------- hand examples


def test_a_v_shape_by_the_engine():
    # the rows 5 3 2 4 6 6 1 7: STRT DOWN+ UP+ maps 5 | 3 2 | 4 6 (rows 1-5), then 6 | 1 | 7
    data = pa.table({"id": list(range(1, 9)), "v": [5, 3, 2, 4, 6, 6, 1, 7]})
    sql = ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY id MEASURES FIRST(id) AS s, "
           "LAST(id) AS e PATTERN (STRT DOWN+ UP+) DEFINE DOWN AS v < PREV(v), "
           "UP AS v > PREV(v))")
    got = match_recognize(data, sql, engine="match-recognize")
    assert got.to_pylist() == [{"S": 1, "E": 5}, {"S": 6, "E": 8}]


def test_a_pattern_exponential_for_a_backtracker_is_linear_with_row_local_conditions():
    # (A|A)* B over rows none of which is B: 2^n paths, each state searched once
    data = pa.table({"x": list(range(300))})
    clause = clause_of("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY x MEASURES COUNT(*) AS n "
                       "PATTERN ((A|A)* B) DEFINE A AS x >= 0, B AS x < 0)")
    out = CompiledRecognition(clause).recognize(data, budget=Budget(limit=1_000_000))
    assert out.num_rows == 0


def test_an_exponential_backtracking_pattern_stops_within_the_budget():
    # A reads the match so far (an aggregate): nothing is remembered, 2^n paths
    data = pa.table({"x": list(range(60))})
    clause = clause_of("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY x MEASURES COUNT(*) AS n "
                       "PATTERN ((A|A)* B) DEFINE A AS COUNT(*) >= 0, B AS x < 0)")
    began = time.monotonic()
    with pytest.raises(BudgetExceeded, match="budget steps=20000 exceeded"):
        CompiledRecognition(clause).recognize(data, budget=Budget(limit=20_000))
    with pytest.raises(BudgetExceeded, match="budget seconds=0.5 exceeded"):
        CompiledRecognition(clause).recognize(data, budget=Budget(seconds=0.5,
                                                                  limit=10**12))
    assert time.monotonic() - began < 5


def test_row_local_conditions_of_every_kind_decide_as_the_reference():
    # decimals, division and LIKE go row by row through the reference's evaluator; the
    # integers, floats and strings through the kernels: both as the reference answers
    data = pa.table({"x": [1, None, 3, 4, 2], "d": [Decimal("1.5"), None, Decimal("0.5"),
                                                    Decimal("2"), Decimal("1")],
                     "s": ["ab", "b", None, "ac", "a"], "f": [0.5, 1.5, None, 2.5, 1.0]})
    sql = ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY x MEASURES CLASSIFIER() AS c "
           "ALL ROWS PER MATCH PATTERN ((A | B | C | D)+) DEFINE A AS s LIKE 'a%' AND "
           "PREV(f) < f, B AS 1 / d > 0.5, C AS x * 2 > NEXT(x) OR s IS NULL, D AS TRUE)")
    clause = clause_of(sql)
    expected = arrow_of(recognize(clause, table_of(data)), like=data.schema)
    assert CompiledRecognition(clause).recognize(data).equals(expected)


def test_a_bound_beyond_machine_integers_runs_as_the_reference_runs_it():
    # {2^70}: no compiled loop (its counter would not fit), the Python loop: no match
    data = pa.table({"x": [1, 2, 3]})
    clause = clause_of("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY x MEASURES COUNT(*) AS n "
                       f"PATTERN (A{{1,{2**70}}}) DEFINE A AS x > 1)")
    expected = arrow_of(recognize(clause, table_of(data)), like=data.schema)
    assert expected.to_pylist() == [{"N": 2}]
    assert CompiledRecognition(clause).recognize(data).equals(expected)


def test_an_in_list_with_an_item_the_kernels_do_not_compute_is_the_references():
    # x IN (COALESCE(x, x), y) with x = 0, y NULL: 0 = 0 is TRUE (found by Hypothesis: the
    # kernels once dropped the COALESCE item and answered x = y, UNKNOWN)
    data = pa.table({"x": pa.array([0], pa.int64()), "y": pa.array([None], pa.float64())})
    clause = clause_of("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY x MEASURES x AS m "
                       "PATTERN (A) DEFINE A AS x IN (COALESCE(x, x), y))")
    assert CompiledRecognition(clause).recognize(data).to_pylist() == [{"M": 0}]


def test_a_data_exception_comes_where_the_reference_raises_it():
    # B is tried on row 2 only if A fails there: d = 0 on row 2 divides by zero
    data = pa.table({"x": [1, 2, 3], "d": [Decimal("1"), Decimal("0"), Decimal("2")]})
    clause = clause_of("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY x MEASURES COUNT(*) AS n "
                       "PATTERN (A (A | B)) DEFINE A AS x = 1, B AS 1 / d > 0)")
    with pytest.raises(KleeneError) as expected:
        recognize(clause, table_of(data))
    with pytest.raises(KleeneError) as got:
        CompiledRecognition(clause).recognize(data)
    assert getattr(got.value, "code", None) == getattr(expected.value, "code", None) \
        == "division-by-zero"


def test_the_engine_is_registered_and_draws_its_program():
    compiled = MatchRecognizeEngine().compile(Query.parse(
        "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY x PATTERN (A B+) DEFINE B AS x > PREV(x))",
        language="match_recognize"))
    transitions = list(compiled.iter_transitions())
    assert {t.variable for t in transitions if t.kind == "bind"} == {"A", "B"}
    assert compiled.initial == {0} and compiled.accepting == {len(compiled.program.code) - 1}
    with pytest.raises(Unsupported, match="answers tables"):
        compiled.run([])


def test_permute_is_laid_out_as_its_ordered_alternation():
    program = compile_pattern(clause_of(
        "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY x PATTERN (PERMUTE(A, B, C)) "
        "DEFINE A AS TRUE)").pattern)
    tests = [ins.var for ins in program.code if hasattr(ins, "var")]
    assert tests == list("ABCACBBACBCACABCBA")


def test_conform_runs_a_file_through_the_engine_named(capsys: pytest.CaptureFixture[str]):
    assert main(["conform", "--sqllogictest", str(KLEENE_FILES), "--engine",
                 "match-recognize", "-q"]) == 0
    out = capsys.readouterr().out
    assert "by the engine match-recognize" in out and "failures" not in out
    assert main(["conform", "--engine", "match-recognize"]) == 2
    assert "--engine names the MATCH_RECOGNIZE engine of --sqllogictest" in \
        capsys.readouterr().err


def test_kleene_draw_draws_the_program(tmp_path: Path):
    query = tmp_path / "q.sql"
    query.write_text("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY x PATTERN (A B+ | C) "
                     "DEFINE B AS x > PREV(x))")
    dot = tmp_path / "q.dot"
    assert main(["draw", str(query), "--engine", "match-recognize", "--format", "dot",
                 "-o", str(dot)]) == 0
    text = dot.read_text()
    for label in ('"1st"', '"2nd"', '"A\\ntrue"', '"B\\nX > PREV(X)"', '"C\\ntrue"',
                  '"1st: iterate #0 (1..∞)"', '"2nd: leave #0 (after ≥ 1)"'):
        assert label in text


def test_the_bench_answers_the_references_rows_on_its_prefix(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):
    monkeypatch.chdir(tmp_path)
    match_recognize_bench.run(quick=True)
    lines = [line.split() for line in capsys.readouterr().out.splitlines()]
    rows = [cells for cells in lines if cells and cells[0] in match_recognize_bench.QUERIES]
    assert [cells[0] for cells in rows] == ["v-shape", "seq3"]
    assert all(cells[6] == "yes" for cells in rows)  # the engine's rows are the reference's


#: A shift of the order key that keeps every drawn key (0..4) inside int64 and past 2**53.
SHIFT = 2**62


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(clause=match_recognize_clauses(), table=input_tables())
def test_shifting_the_order_key_moves_only_the_order_key(clause, table):
    # Metamorphic: the drawn clauses read the order key T only in ORDER BY and WITHIN
    # (a difference of two keys), so adding 2**62 to every T keeps the order, the ties and
    # every span; the engine's answer is the same table but for its own T column, shifted
    # back here (exact in int64: past 2**53 no float may carry it).
    engine = CompiledRecognition(clause)
    shifted = table.set_column(table.schema.get_field_index("T"), "T", pa.array(
        [None if t is None else t + SHIFT for t in table.column("T").to_pylist()], pa.int64()))
    before = _outcome(lambda: engine.recognize(table, budget=Budget(limit=200_000)))
    assume(before[1] != ("BudgetExceeded", "budget"))
    after = _outcome(lambda: engine.recognize(shifted, budget=Budget(limit=200_000)))
    if isinstance(after[1], pa.Table) and "T" in after[1].column_names:
        i = after[1].schema.get_field_index("T")
        back = [None if t is None else t - SHIFT for t in after[1].column("T").to_pylist()]
        after = ("table", after[1].set_column(i, "T", pa.array(back, pa.int64())))
    _same(after, before)
