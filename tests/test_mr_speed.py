"""The match-recognize engine's shortcuts of issue 26's last aim (docs/benchmarks.md,
"MATCH_RECOGNIZE end to end"), each against hand computation or the reference as the
oracle: a condition's leading row-local conjuncts that make it FALSE
(``conditions.refuted``; the VM then does not ask the reference's evaluator), the input
sorted without moving a column until it is read (``order.Sorted``), and the compiled
loop's memo over Tests only.

Never checks a time (performance is measured by the bench, not asserted)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from kleene.conformance.recognize_strategies import input_tables, match_recognize_clauses
from kleene.data import csvfast
from kleene.data.sql import arrow_of, table_of
from kleene.engines.match_recognize import kernel, order
from kleene.engines.match_recognize.conditions import Frame, column_truth, conjuncts, refuted
from kleene.engines.match_recognize.kernel_ops import TEST
from kleene.engines.match_recognize.program import compile_pattern
from kleene.engines.match_recognize.recognition import CompiledRecognition
from kleene.engines.protocol import Counters
from kleene.reference.budget import Budget
from kleene.reference.errors import KleeneError
from kleene.reference.match_recognize.ast import (
    Binary,
    Column,
    Define,
    Expr,
    Literal,
    MatchRecognize,
)
from kleene.reference.match_recognize.evaluation import row_local
from kleene.reference.match_recognize.semantics import recognize
from tests.helpers import clause_of

# ---------------------------------------------------------------- refuted conjuncts

SEQ = ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES X.ts AS x, Z.ts AS z "
       "PATTERN (X Z) DEFINE X AS k = 'SELL', Z AS {z})")


def _refuted(condition: str, table: pa.Table) -> list[bool] | None:
    clause = clause_of(SEQ.format(z=condition))
    z = next(d.condition for d in clause.defines if d.var.upper() == "Z")
    frame = Frame({n.upper(): table.column(n).combine_chunks() for n in table.column_names},
                  np.zeros(table.num_rows, np.int64))
    found = refuted(z, frame, lambda c: row_local(c, "Z", {}))
    return None if found is None else found.tolist()


TICKS = pa.table({"ts": [1, 2, 3, 4, 5, 6],
                  "k": ["SELL", "BUY", None, "BUY", "SELL", None],
                  "n": ["QQQ", "QQQ", "QQQ", "IBM", None, None],
                  "p": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]})


def test_a_false_leading_conjunct_refutes_its_row_and_null_refutes_none() -> None:
    # k = 'BUY' is FALSE at rows 0 and 4, NULL at 2 and 5; n = 'QQQ' FALSE at 3, NULL at
    # 4 and 5 (by hand). A row is refuted where either is FALSE: 0, 3, 4. Row 2 (NULL,
    # TRUE) and row 5 (NULL, NULL) go on to p > X.p, which the reference evaluates.
    assert _refuted("k = 'BUY' AND n = 'QQQ' AND p > X.p", TICKS) == [
        True, False, False, True, True, False]


def test_only_the_conjuncts_before_the_first_that_reads_the_match_count() -> None:
    # n = 'QQQ' comes after X.p: the reference evaluates X.p first, so it refutes nothing
    assert _refuted("k = 'BUY' AND p > X.p AND n = 'QQQ'", TICKS) == [
        True, False, False, False, True, False]
    assert _refuted("p > X.p AND k = 'BUY'", TICKS) is None
    # an OR is one conjunct, and it reads the match: nothing refuted
    assert _refuted("k = 'BUY' OR p > X.p", TICKS) is None


def test_the_conjuncts_are_in_the_references_order_at_every_level() -> None:
    e = clause_of(SEQ.format(z="a = 1 AND (b = 2 AND c = 3) AND d = 4")).defines[1].condition
    assert [c.left.name for c in conjuncts(e)  # type: ignore[attr-defined]
            ] == ["A", "B", "C", "D"]  # unquoted names are upper case


def _outcome(run: Callable[[], object]) -> tuple[str, object]:
    try:
        return "table", run()
    except KleeneError as err:
        return "error", (type(err).__name__, getattr(err, "code", None))


def _both(sql: str, table: pa.Table) -> tuple[tuple[str, object], tuple[str, object]]:
    clause = clause_of(sql)
    reference = _outcome(lambda: arrow_of(recognize(clause, table_of(table)),
                                          like=table.schema).to_pylist())
    engine = _outcome(lambda: CompiledRecognition(clause).recognize(table).to_pylist())
    return engine, reference


def test_a_data_exception_after_a_null_conjunct_is_still_raised() -> None:
    # Z's third conjunct divides by zero. At row 1, k is NULL: the reference evaluates on
    # and raises; where k is 'SELL' it stops at the FALSE conjunct: no error, no match.
    sql = SEQ.format(z="k = 'BUY' AND n = 'QQQ' AND p / (p - p) > X.p")
    raising = pa.table({"ts": [1, 2], "k": ["SELL", None], "n": ["QQQ", "QQQ"],
                        "p": [1.0, 2.0]})
    engine, reference = _both(sql, raising)
    assert reference[0] == "error" and engine == reference
    quiet = raising.set_column(1, "k", pa.array(["SELL", "SELL"]))
    engine, reference = _both(sql, quiet)
    assert reference == ("table", []) and engine == reference


def test_seq3s_shape_answers_the_references_rows() -> None:
    # X a SELL, then Z a BUY of QQQ dearer than X: rows 4 (X, SELL at 1.0) then 5; by hand
    table = pa.table({"ts": [1, 2, 3, 4, 5, 6], "k": ["SELL", "BUY", None, "SELL", "BUY",
                                                       "BUY"],
                      "n": ["QQQ", "IBM", "QQQ", "QQQ", "QQQ", None],
                      "p": [5.0, 6.0, 7.0, 1.0, 2.0, 3.0]})
    engine, reference = _both(SEQ.format(z="k = 'BUY' AND n = 'QQQ' AND p > X.p"), table)
    assert engine == reference == ("table", [{"X": 4, "Z": 5}])


@st.composite
def gated_clauses(draw: st.DrawFn) -> MatchRecognize:
    """A drawn clause (every construct) whose every ``DEFINE`` is ``c AND (its own)``
    or ``(its own) AND c``, ``c`` a drawn comparison of the current row (NULLs, ties):
    conditions that read the match behind a row-local conjunct, or after one."""
    clause = draw(match_recognize_clauses(), label="clause")
    column = st.sampled_from(("X", "T", "S"))
    literal: dict[str, st.SearchStrategy[int | str]] = {
        "X": st.integers(-3, 3), "T": st.integers(0, 4), "S": st.sampled_from(("a", "b", ""))}

    def local() -> Expr:
        name = draw(column, label="column")
        op = draw(st.sampled_from(("=", "<>", "<", ">=")), label="op")
        return Binary(op, Column(name), Literal(draw(literal[name], label="literal")))

    defines = []
    for d in clause.defines:
        first = draw(st.booleans(), label="row-local conjunct first")
        both = (local(), d.condition) if first else (d.condition, local())
        defines.append(Define(d.var, Binary("AND", *both)))
    return replace(clause, defines=tuple(defines))


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(clause=gated_clauses(), table=input_tables())
def test_gated_conditions_answer_what_the_reference_answers(clause: MatchRecognize,
                                                            table: pa.Table) -> None:
    def reference() -> object:
        return arrow_of(recognize(clause, table_of(table), budget=Budget(limit=200_000)),
                        like=table.schema).to_pylist()

    expected = _outcome(reference)
    assume(expected[1] != ("BudgetExceeded", "budget"))
    got = _outcome(lambda: CompiledRecognition(clause).recognize(
        table, budget=Budget(limit=200_000)).to_pylist())
    event("error" if expected[0] == "error" else "rows" if expected[1] else "no row")
    assert got == expected


# ---------------------------------------------------------------- sorted, nothing moved

def test_the_input_is_sorted_without_moving_a_column_the_run_does_not_read() -> None:
    sql = ("SELECT * FROM t MATCH_RECOGNIZE (PARTITION BY n ORDER BY ts "
           "MEASURES FIRST(A.ts) AS a, LAST(B.ts) AS b PATTERN (A B+) "
           "DEFINE A AS k = 'BUY', B AS p < PREV(p))")
    table = pa.table({"ts": [1, 2, 3, 4, 5], "n": ["x", "y", "x", "y", "x"],
                      "k": ["BUY", "BUY", "SELL", "SELL", "BUY"],
                      "p": [3.0, 2.0, 2.0, 1.0, 1.0], "v": [9, 9, 9, 9, 9]})
    clause = clause_of(sql)
    ordered = order.sort(clause, table)
    assert ordered.order is not None and ordered.order.tolist() == [0, 2, 4, 1, 3]
    out = CompiledRecognition(clause).recognize(table, ordered=ordered)
    # x: rows ts 1 (BUY, 3.0), 3 (2.0 < 3.0), 5 (1.0 < 2.0): one match 1..5; y: ts 2
    # (BUY, 2.0), 4 (1.0 < 2.0): one match 2..4 (by hand)
    assert out.to_pylist() == [{"n": "x", "A": 1, "B": 5}, {"n": "y", "A": 2, "B": 4}]
    # only p was moved (PREV reads the sorted neighbours); k's truths were computed in
    # the input's order and put in sorted order; n, ts and v were read at matches only
    assert set(ordered._taken) == {table.column_names.index("p")}


@given(input_tables())
def test_truths_in_input_order_equal_truths_over_the_sorted_table(table: pa.Table) -> None:
    clause = clause_of("SELECT * FROM t MATCH_RECOGNIZE (PARTITION BY P ORDER BY T "
                       "PATTERN (A) DEFINE A AS X > 0 AND S <> 'a' OR T IS NULL)")
    condition = clause.defines[0].condition
    ordered = order.sort(clause, table)
    moved = table if ordered.order is None else table.take(pa.array(ordered.order))
    frame = Frame({n.upper(): moved.column(n).combine_chunks() for n in moved.column_names},
                  ordered.partition)
    expected = column_truth(condition, frame)
    got = ordered.truth("A", condition)
    assert expected is not None and got is not None
    assert got.tolist() == expected.tolist()


# ---------------------------------------------------------------- the loop's memo

def test_the_memo_is_as_wide_as_the_tests_not_the_program() -> None:
    clause = clause_of("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY x PATTERN (S D+ U+) "
                       "DEFINE D AS x < PREV(x), U AS x > PREV(x))")
    encoded = kernel.encode(compile_pattern(clause.pattern))
    assert encoded is not None
    # 3 Tests (S, D, U) × counters (D+ and U+ each counted 0..1: radix 2) × 2 flags each
    assert encoded.states == 3 * (2 * 2) * (2 * 2)
    tests = [int(encoded.args[pc, 1]) for pc in range(len(encoded.op))
             if encoded.op[pc] == TEST]
    assert tests == [0, 1, 2]


# ---------------------------------------------------------------- the CSV reader's 0x check

@given(data=st.binary(max_size=40).map(lambda b: bytes(b"0xX1a\n"[c % 6] for c in b)),
       chunk=st.integers(1, 5))
def test_the_hexadecimal_check_finds_0x_across_its_chunks(data: bytes, chunk: int) -> None:
    # the oracle: Python's own substring search (what the check did before, slower)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(csvfast, "_CHUNK", chunk)
        assert csvfast._hexadecimal(data) == (b"0x" in data or b"0X" in data)


# ---------------------------------------------------------------- the output as Arrow

def test_the_output_built_from_columns_is_the_references_converted() -> None:
    # every kind of column the Arrow path types itself (integers of each width, uint64,
    # float32, text, booleans, a measure named as an input column of another type, a
    # measure NULL in every match) and those it leaves to arrow_of's rule (a decimal,
    # MATCH_NUMBER, COUNT, CLASSIFIER); the oracle: the reference's rows converted by
    # arrow_of, as the statement runner converts them
    table = pa.table({
        "ts": [1, 2, 3, 4, 5, 6], "n": ["x", "y", "x", "y", "x", "x"],
        "p": pa.array([3.0, 2.0, 2.5, 1.0, 1.0, 0.5], pa.float32()),
        "u": pa.array([2**64 - 1, 1, 2, 3, 4, 5], pa.uint64()),
        "s": pa.array([1, 2, 3, 4, 5, 6], pa.int8()),
        "b": [True, False, None, True, False, True],
        "d": pa.array([1, 2, 3, 4, 5, 6], pa.decimal128(5, 2)),
        "q": pa.array([1.5, None, 2.5, None, 3.5, None], pa.float64())})
    sql = ("SELECT * FROM t MATCH_RECOGNIZE (PARTITION BY n ORDER BY ts MEASURES "
           "A.p AS pa_, A.u AS ua, A.s AS sa, A.b AS ba, A.d AS da, A.n AS na, "
           "A.ts AS p, FIRST(B.ts, 9) AS never, LAST(B.q) AS q, MATCH_NUMBER() AS m, "
           "COUNT(B.*) AS k, CLASSIFIER() AS c PATTERN (A B+) "
           "DEFINE B AS p < PREV(p))")
    clause = clause_of(sql)
    expected = arrow_of(recognize(clause, table_of(table)), like=table.schema)
    counters = Counters()
    got = CompiledRecognition(clause).recognize(table, counters=counters)
    assert counters.measured_as_columns > 0      # the compiled loop's columns were read
    assert got.schema == expected.schema and got.equals(expected)
    # x: 1 (3.0) 3 (2.5) 5 (1.0) 6 (0.5): one match; y: 2 (2.0) 4 (1.0): one (by hand)
    assert got.column("P").type == pa.float32()   # the input's p: its type kept
    assert got.column("UA").to_pylist() == [2**64 - 1, 1]
    assert got.column("NEVER").type == pa.null()
    assert got.column("Q").to_pylist() == [None, None]
