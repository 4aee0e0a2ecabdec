"""What makes the match-recognize engine fast, against hand computation and the reference:
the start rows decided by a match's first two rows (``program.reach``), the order by
``numpy.lexsort`` (against the reference's own order of the rows), the input sorted once
for the door's check and the run, and ``python -m bench mr`` (its data and quick path).

Never checks a time (performance is measured by the bench, not asserted)."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bench import mr
from bench.match_recognize import QUERIES, stock_table
from bench.match_recognize_peers import rows_of, write_file
from kleene.data.sql import arrow_of, table_of
from kleene.engines.match_recognize import order
from kleene.engines.match_recognize import program as program_module
from kleene.engines.match_recognize.program import Program, compile_pattern
from kleene.engines.match_recognize.recognition import (
    CompiledRecognition,
    first_tests,
    second_tests,
)
from kleene.engines.tables import match_recognize, never_true
from kleene.reference.match_recognize.ast import MatchRecognize
from kleene.reference.match_recognize.semantics import recognize
from tests.helpers import clause_of


def program_of(pattern: str) -> Program:
    return compile_pattern(clause_of(
        f"SELECT * FROM t MATCH_RECOGNIZE (ORDER BY x PATTERN ({pattern}) "
        f"DEFINE {pattern.split()[0].rstrip('*+?{},0123456789')} AS x > 0)").pattern)


# ---------------------------------------------------------------- the first two rows

def test_the_v_shape_starts_where_strt_is_followed_by_a_down_row() -> None:
    # 0 STRT, 1 enter #0, 2 loop #0, 3 DOWN, 4 jump, 5 enter #1, 6 loop #1, 7 UP, 8 jump, 9 done
    program = program_of("STRT DOWN+ UP+")
    assert first_tests(program) == (frozenset({0}), False)
    # DOWN+ must iterate once before it may be left: after STRT only DOWN, and no match yet
    assert second_tests(program) == {0: (frozenset({3}), False)}


def test_an_optional_second_variable_lets_a_match_end_at_its_first_row() -> None:
    # 0 A, 1 enter, 2 loop (0..1), 3 B, 4 jump, 5 done
    program = program_of("A B?")
    assert second_tests(program) == {0: (frozenset({3}), True)}


def test_a_lower_bound_of_two_asks_the_same_variable_again() -> None:
    # 0 enter, 1 loop (2..), 2 A, 3 jump, 4 B, 5 done: after one A, A again (not B)
    program = program_of("A{2,} B")
    assert first_tests(program) == (frozenset({2}), False)
    assert second_tests(program) == {2: (frozenset({2}), False)}


def test_a_star_may_be_skipped_and_an_empty_pattern_starts_everywhere() -> None:
    # 0 enter, 1 loop (0..), 2 A, 3 jump, 4 B, 5 done
    program = program_of("A* B")
    assert first_tests(program) == (frozenset({2, 4}), False)
    assert second_tests(program) == {2: (frozenset({2, 4}), False), 4: (frozenset(), True)}
    assert first_tests(program_of("A*"))[1] is True


def test_the_rows_where_a_v_may_start() -> None:
    # prices 5 4 6 6 3 2 7: DOWN at rows 1, 4, 5; a V may start at 0, 3, 4 (then a DOWN)
    clause = clause_of(QUERIES["v-shape"])
    engine = CompiledRecognition(clause)
    down = np.array([False, True, False, False, True, True, False])
    slices = {"STRT": np.ones(7, dtype=bool), "DOWN": down, "UP": ~down}
    assert np.flatnonzero(engine._two_rows(slices, 7)).tolist() == [0, 3, 4]


PATTERNS = ("STRT DOWN+ UP+", "A B?", "A{2,} B", "A* B", "A*", "(A B?){2,3} C",
            "(A? B?){2} C*?", "A{1,3}? B{2}", "((A?){3}){2} B")


def counted_clause(pattern: str) -> MatchRecognize:
    """A clause of ``pattern`` over ``x`` (each variable of PATTERNS defined)."""
    defines = {"A": "x > 3", "B": "x < PREV(x)", "C": "x > PREV(x)", "STRT": "true",
               "DOWN": "x < PREV(x)", "UP": "x > PREV(x)"}
    used = [v for v in defines if re.search(rf"\b{v}\b", pattern)]
    return clause_of(f"SELECT * FROM t MATCH_RECOGNIZE (ORDER BY x MEASURES COUNT(*) AS n, "
                     f"FIRST(x) AS f PATTERN ({pattern}) DEFINE "
                     + ", ".join(f"{v} AS {defines[v]}" for v in used) + ")")


@pytest.mark.parametrize("pattern", PATTERNS)
def test_ignoring_the_counters_finds_a_superset(monkeypatch, pattern) -> None:
    """Past program.REACH_LIMIT states the first two rows are read with the counters
    ignored (every Loop may iterate or leave): never fewer tests, never a lost Done."""
    program = compile_pattern(counted_clause(pattern).pattern)
    exact_first, exact_second = first_tests(program), second_tests(program)
    monkeypatch.setattr(program_module, "REACH_LIMIT", 0)
    loose_first, loose_second = first_tests(program), second_tests(program)
    assert exact_first[0] <= loose_first[0] and exact_first[1] <= loose_first[1]
    for pc, (tests, done) in exact_second.items():
        assert tests <= loose_second[pc][0] and done <= loose_second[pc][1]


@pytest.mark.parametrize("pattern", PATTERNS)
def test_with_the_counters_ignored_the_engine_answers_the_reference(monkeypatch,
                                                                    pattern) -> None:
    monkeypatch.setattr(program_module, "REACH_LIMIT", 0)
    data = pa.table({"x": [5, 4, 6, 6, 3, 2, 7, 1, 8, 8, 0, 9]})
    clause = counted_clause(pattern)
    expected = arrow_of(recognize(clause, table_of(data)), like=data.schema)
    assert CompiledRecognition(clause).recognize(data).equals(expected)


def test_nested_counted_quantifiers_do_not_hang_the_compiler() -> None:
    """((A?){700}){700} has 700 × 700 counter pairs: the first two rows are read with the
    counters ignored (DuckDB's test_match_recognize_limits.test). Greedy, the one match
    maps all 700 rows (an empty iteration then ends each quantifier), n = 700 by hand."""
    sql = ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY x MEASURES count(*) AS n "
           "PATTERN (((A?){700}){700}) DEFINE A AS true)")
    got = match_recognize(pa.table({"x": list(range(700))}), sql, engine="match-recognize")
    assert got.to_pylist() == [{"N": 700}]


# ---------------------------------------------------------------- the order

@st.composite
def ordered_tables(draw: st.DrawFn) -> tuple[str, pa.Table]:
    n = draw(st.integers(0, 30))
    floats = draw(st.booleans())
    keys = st.sampled_from([-0.0, 0.0, 1.5, -2.25, 1e300, 2.0]) if floats else \
        st.integers(-3, 3)
    a = draw(st.lists(keys, min_size=n, max_size=n))
    b = draw(st.lists(st.integers(-2**63, 2**63 - 1) | st.integers(-2, 2), min_size=n,
                      max_size=n))
    p = draw(st.lists(st.sampled_from(["x", "y", "z", None]), min_size=n, max_size=n))
    ways = [draw(st.sampled_from(["", " DESC", " ASC"])) for _ in range(2)]
    by = draw(st.sampled_from(["PARTITION BY p ", ""]))
    sql = (f"SELECT * FROM t MATCH_RECOGNIZE ({by}ORDER BY a{ways[0]}, b{ways[1]} "
           "PATTERN (X) DEFINE X AS a = a)")
    table = pa.table({"p": pa.array(p, pa.string()),
                      "a": pa.array(a, pa.float64() if floats else pa.int64()),
                      "b": pa.array(b, pa.int64())})
    return sql, table


@given(ordered_tables())
def test_the_order_is_the_references(drawn: tuple[str, pa.Table]) -> None:
    sql, table = drawn
    clause = clause_of(sql)
    # the oracle: the reference's partitions (first rows' order) and its stable sort
    reference = order._reference_order(clause, table, np.zeros(table.num_rows, np.int64))[0]
    indices, ranks = order.ordered(clause, table)
    assert indices.tolist() == reference.tolist()
    assert (np.diff(ranks) >= 0).all()


@given(ordered_tables())
def test_rows_already_in_order_are_in_the_references_order(drawn: tuple[str, pa.Table]
                                                            ) -> None:
    # the drawn table put in the reference's order first: the one-pass check finds it in
    # order (no sort), and the order is still the reference's
    sql, table = drawn
    clause = clause_of(sql)
    zeros = np.zeros(table.num_rows, np.int64)
    in_order = table.take(pa.array(order._reference_order(clause, table, zeros)[0],
                                   pa.int64()))
    reference = order._reference_order(clause, in_order, zeros)[0]
    assert order.ordered(clause, in_order)[0].tolist() == reference.tolist()


@given(ordered_tables())
def test_rows_in_order_across_interleaved_partitions_are_in_the_references_order(
        drawn: tuple[str, pa.Table]) -> None:
    # the drawn table put in ORDER BY order with its partitions interleaved: the keys are
    # in order and the ranks not (the stock stream's V shape), so only the partitions'
    # radix sort moves rows; the oracle is still the reference's order
    sql, table = drawn
    clause = clause_of(sql)
    zeros = np.zeros(table.num_rows, np.int64)
    unpartitioned = dataclasses.replace(clause, partition_by=())
    by_keys = table.take(pa.array(order._reference_order(unpartitioned, table, zeros)[0],
                                  pa.int64()))
    reference = order._reference_order(clause, by_keys, zeros)[0]
    assert order.ordered(clause, by_keys)[0].tolist() == reference.tolist()


@given(st.lists(st.tuples(st.integers(0, 3) | st.integers(65_534, 70_000),
                          st.integers(-2, 2), st.integers(-2, 2)), max_size=40),
       st.booleans())
def test_the_two_step_sort_is_lexsorts_order(rows: list[tuple[int, int, int]],
                                            keys_sorted: bool) -> None:
    # the oracle: numpy's lexsort by (rank, a, b) in one call; ranks past 65,535 are not
    # sorted as 16-bit numbers
    if keys_sorted:
        rows = sorted(rows, key=lambda r: r[1:])
    ranks, a, b = (np.array([r[i] for r in rows], dtype=np.int64) for i in range(3))
    expected = np.lexsort([b, a, ranks]).tolist()
    assert order._stable_sort(ranks, [a, b]).tolist() == expected
    assert order._stable_sort(ranks, []).tolist() == np.lexsort([ranks]).tolist()


def test_in_order_compares_keys_lexicographically() -> None:
    # by hand: (0,1,5) (0,2,3) (0,2,4) ascend; (0,1,2) (0,1,1) do not; no rows, one row do
    assert order._in_order([np.array([0, 0, 0]), np.array([1, 2, 2]), np.array([5, 3, 4])])
    assert not order._in_order([np.array([0, 0]), np.array([1, 1]), np.array([2, 1])])
    assert not order._in_order([np.array([1, 0]), np.array([0, 9])])
    assert order._in_order([np.array([], np.int64)])
    assert order._in_order([np.array([7])])


def test_lexsort_declines_what_it_cannot_order_as_the_reference() -> None:
    clause = clause_of("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY a DESC PATTERN (X) "
                       "DEFINE X AS a = a)")
    ranks = np.zeros(2, np.int64)
    assert order._lexsorted(clause, pa.table({"a": [1, None]}), ranks) is None
    assert order._lexsorted(clause, pa.table({"a": [1.0, float("nan")]}), ranks) is None
    assert order._lexsorted(clause, pa.table({"a": ["b", "a"]}), ranks) is None
    assert order._lexsorted(clause, pa.table({"a": [-2**63, 0]}), ranks) is None
    assert order._lexsorted(clause, pa.table({"a": pa.array([1, 2], pa.uint8())}),
                            ranks) is None
    fast = order._lexsorted(clause, pa.table({"a": [1, 2, 2]}), np.zeros(3, np.int64))
    assert fast is not None and fast.tolist() == [1, 2, 0]


def test_one_partition_key_without_nulls_is_ranked_by_its_first_rows() -> None:
    clause = clause_of("SELECT * FROM t MATCH_RECOGNIZE (PARTITION BY p ORDER BY a "
                       "PATTERN (X) DEFINE X AS a = a)")
    table = pa.table({"p": ["y", "x", "y", "z", "x"], "a": [1, 2, 3, 4, 5]})
    assert order.partition_ranks(clause, table).tolist() == [0, 1, 0, 2, 1]
    nulls = pa.table({"p": [None, "x", None], "a": [1, 2, 3]})
    assert order.partition_ranks(clause, nulls).tolist() == [0, 1, 0]


# ---------------------------------------------------------------- sorted once

def test_the_check_and_the_run_share_one_sort_and_answer_the_references_rows() -> None:
    stocks = stock_table(3_000)
    for sql in QUERIES.values():
        clause = clause_of(sql)
        ordered = order.sort(clause, stocks)
        never = never_true(clause, stocks, ordered)
        assert never == never_true(clause, stocks)
        truths = dict(ordered.truths)
        out = CompiledRecognition(clause).recognize(stocks, ordered=ordered)
        assert ordered.truths == truths  # computed by the check, read by the run
        assert out.equals(arrow_of(recognize(clause, table_of(stocks)), like=stocks.schema))
        assert match_recognize(stocks, sql).equals(
            match_recognize(stocks, sql, engine="reference"))


# ---------------------------------------------------------------- python -m bench mr

def test_the_stream_replicated_keeps_ids_unique_and_times_sorted() -> None:
    table = pa.table({"id": [3, 1, 2], "name": ["A", "B", "A"],
                      "stock_time": [10, 10, 12]})
    out = mr.replicated(table, 3)
    # span 12 - 10 + 1 = 3, ids past the largest, 3: + 4 per copy
    assert out.column("stock_time").to_pylist() == [10, 10, 12, 13, 13, 15, 16, 16, 18]
    assert out.column("id").to_pylist() == [3, 1, 2, 7, 5, 6, 11, 9, 10]
    assert out.column("name").to_pylist() == ["A", "B", "A"] * 3


@pytest.mark.slow
def test_the_quick_bench_runs_without_peers(monkeypatch, tmp_path, capsys) -> None:
    monkeypatch.setattr(mr, "installed", lambda: ({}, ["pmr", "flink"]))
    monkeypatch.chdir(tmp_path)
    mr.run(quick=True)
    said = capsys.readouterr().out
    assert "scripts/peers.sh --install-only" in said and "--quick: Spark not run" in said
    lines = (tmp_path / "out" / "bench" / "mr.csv").read_text().splitlines()
    assert len(lines) == 1 + 3 * len(QUERIES)
    assert all(",kleene,parquet," in line or ",kleene,csv," in line or "after load" in line
               for line in lines[1:])


@pytest.mark.slow
def test_spark_answers_the_single_process_rows(spark, tmp_path) -> None:
    stocks = mr.replicated(stock_table(2_000), 2)
    path = write_file(stocks, tmp_path / "s.parquet")
    for sql in QUERIES.values():
        expected = rows_of(match_recognize(path, sql))
        assert sorted(mr.spark_rows(spark, path, sql), key=repr) == sorted(expected, key=repr)
