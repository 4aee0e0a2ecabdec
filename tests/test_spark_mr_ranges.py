"""A ``MATCH_RECOGNIZE`` without ``PARTITION BY`` in ranges of rows on Spark equals the single
process (:mod:`kleene.engines.spark.mr_ranges`; the rule is
:mod:`kleene.reference.match_recognize.ranges`, checked on drawn clauses by
``tests/test_mr_ranges.py``).

Every recognition of Kleene's own file (hand-computed) that qualifies (no ``PARTITION BY``,
bounded: :func:`~kleene.engines.spark.mr_ranges.unsplit`) through the Spark door in one
range (more rows than the table), in 3, and in 16 (ranges of a row or none), against the
single process's recorded output (``tests/test_spark_mr.py``'s oracle); a data exception at
a start row the single process skips raises nothing; the door says which way it runs.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest

import kleene
from kleene.reference.match_recognize.printer import format_clause
from kleene.reference.query import Query
from tests.helpers import small_jobs
from tests.test_spark_mr import FILES, difference, on_spark, recorded

pytest.importorskip("pyspark")

from kleene.engines.spark.match_recognize import (  # noqa: E402
    ONE_TASK,
    RANGES,
    match_recognize,
)
from kleene.engines.spark.mr_ranges import unsplit  # noqa: E402


@pytest.mark.slow
@pytest.mark.parametrize("tasks", [1, 3, 16])
def test_every_qualifying_recognition_of_kleene_s_file_equals_the_single_process(
        spark: Any, tasks: int) -> None:
    seen = [r for r in recorded(FILES[0]) if not r.clause.partition_by and unsplit(
        r.clause, spark.createDataFrame(r.source).schema, False, r.engine) is None]
    assert len(seen) >= 10, "the file has recognitions that are split"
    got, refused = on_spark(spark, seen, tasks)
    assert refused == {}
    wrong = [(i, d) for i, r in enumerate(seen)
             if (d := difference(r.output, got[i])) is not None]
    assert not wrong, "\n".join(f"{format_clause(seen[i].clause)}\n  -> {d}"
                                for i, d in wrong[:5])


def test_a_data_exception_where_the_single_process_does_not_search_raises_nothing(spark):
    # by hand: x = 1 2 3 4; the search at row 0 maps A B to x = 1, 2 (10 / (3 - 2) > 0);
    # past it, the searches at rows 2 and 3 find nothing (10 / (3 - 4) < 0; no row
    # after 4). The search at row 1 would divide by zero (B at x = 3): the single process
    # never makes it; the ranges search every start row and must not raise it
    sql = ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY x MEASURES A.x AS a, B.x AS b "
           "PATTERN (A B) DEFINE B AS 10 / (3 - B.x) > 0)")
    rows = pa.table({"x": [1, 2, 3, 4]})
    single = kleene.match_recognize(rows, sql)
    assert [tuple(r.values()) for r in single.to_pylist()] == [(1, 2)]
    frame = spark.createDataFrame(rows.to_pandas())
    for tasks in (1, 2, 4):
        with small_jobs(spark):
            answer = match_recognize(frame, Query.parse(sql, language="match_recognize"),
                                     tasks=tasks)
            assert RANGES in answer.notes
            assert [tuple(r) for r in answer.frame.collect()] == [(1, 2)], tasks


def test_the_door_says_which_way_a_recognition_without_partition_by_runs(spark):
    frame = spark.createDataFrame(pa.table({"x": [1, 2, 3]}).to_pandas())
    bounded = "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY x PATTERN (A B) DEFINE B AS B.x > 1)"
    with pytest.warns(UserWarning) as said:
        kleene.match_recognize(frame, bounded)
        kleene.match_recognize(frame, bounded.replace("(A B)", "(A B+)"))
    assert [str(w.message) for w in said] == [
        RANGES, ONE_TASK,
        "not split into ranges of rows: an unbounded quantifier (*, + or {n,}): a match "
        "can span any rows"]
