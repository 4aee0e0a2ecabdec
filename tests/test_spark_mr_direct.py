"""``MATCH_RECOGNIZE`` on Spark over one Parquet file that the Python tasks read themselves
(:mod:`kleene.engines.spark.mr_direct`) equals the single process.

The oracle is the single process's recognition of the same file's rows (the engine
``match-recognize``, or the reference where the engine refuses the clause:
``tests/test_spark_mr.py``'s recorder): every recognition of Kleene's own file
(hand-computed) whose source has only columns the path reads, written as Parquet; and
drawn tables (keys with NULLs, ties and NULLs in ``ORDER BY``, NaN prices, row groups of
drawn sizes) under clauses that take each way of the path (by key, in ranges, in one
task), in a drawn number of tasks. Then the path's refusals: a DataFrame that is not the
plain scan of one file, or a column it does not read as Spark does, keeps the general
door.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kleene.cli import main
from kleene.reference.match_recognize.parser import parse_statement
from kleene.reference.match_recognize.printer import format_clause
from kleene.reference.query import Query
from tests.helpers import small_jobs
from tests.test_spark_mr import FILES, Recorded, Recorder, difference, on_spark, recorded

pytest.importorskip("pyspark")

from kleene.engines.spark.match_recognize import (  # noqa: E402
    RANGES,
    RANGES_DIRECT,
    match_recognize,
)
from kleene.engines.spark.mr_direct import owners, parquet_source  # noqa: E402


def _readable(schema: pa.Schema) -> bool:
    """Every column of a type the path reads (signed integers, floats, text, booleans)."""
    return schema.names != [] and all(
        pa.types.is_signed_integer(t) or pa.types.is_floating(t) or pa.types.is_string(t)
        or pa.types.is_boolean(t) for t in schema.types)


def _compared(spark: Any, seen: list[Recorded], files: list[Path], tasks: int) -> None:
    """Each recognition of ``seen`` over its Parquet file on Spark, by the path, equals
    the single process's recorded output."""
    def read(i: int, _: pa.Table) -> Any:
        df = spark.read.parquet(str(files[i]))
        assert parquet_source(df, df.schema) is not None, files[i]
        return df

    got, refused = on_spark(spark, seen, tasks, read)
    assert refused == {}
    wrong = [(i, d) for i, r in enumerate(seen)
             if (d := difference(r.output, got[i])) is not None]
    assert not wrong, "\n".join(f"{format_clause(seen[i].clause)}\n  -> {d}"
                                for i, d in wrong[:5])


@pytest.mark.slow
@pytest.mark.parametrize("tasks", [1, 3])
def test_every_readable_recognition_of_kleene_s_file_from_parquet_equals_the_single_process(
        spark: Any, tmp_path: Path, tasks: int) -> None:
    seen = [r for r in recorded(FILES[0]) if _readable(r.source.schema)]
    assert len(seen) >= 50, "most of the file's sources are numbers and text"
    files = []
    for i, r in enumerate(seen):
        pq.write_table(r.source, tmp_path / f"{i}.parquet", row_group_size=3)
        files.append(tmp_path / f"{i}.parquet")
    _compared(spark, seen, files, tasks)


#: Clauses that take each way of the path: by key (one and all rows per match), in ranges
#: (bounded, ``PREV`` and ``NEXT`` widening the ranges), in one task (unbounded, no key).
CLAUSES = (
    """SELECT * FROM t MATCH_RECOGNIZE (PARTITION BY sym ORDER BY ts
       MEASURES FIRST(A.price) AS f, LAST(B.price) AS l, COUNT(*) AS c
       AFTER MATCH SKIP {skip} PATTERN (A B+ C?)
       DEFINE B AS B.price < PREV(B.price), C AS C.price > PREV(C.price))""",
    """SELECT * FROM t MATCH_RECOGNIZE (PARTITION BY sym ORDER BY ts DESC, price
       ALL ROWS PER MATCH AFTER MATCH SKIP {skip} PATTERN (A B*)
       DEFINE B AS B.price >= PREV(B.price))""",
    """SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts NULLS FIRST, price
       MEASURES A.price AS a, C.price AS c, CLASSIFIER() AS k
       AFTER MATCH SKIP {skip} PATTERN (A B? C)
       DEFINE A AS A.sym = 'A', B AS B.price > PREV(B.price, 2),
              C AS C.price > A.price OR NEXT(C.price) IS NULL)""",
    """SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts DESC NULLS LAST
       MEASURES FIRST(A.ts) AS t0, COUNT(*) AS n AFTER MATCH SKIP {skip}
       PATTERN (A+ B) DEFINE A AS A.price < 5, B AS B.sym = 'B')""",
)


@st.composite
def _ticks(draw: Any) -> pa.Table:
    n = draw(st.integers(0, 40))
    rows = st.tuples(st.one_of(st.none(), st.sampled_from(["A", "B", "C", "D"])),
                     st.one_of(st.none(), st.integers(0, 12)),
                     st.one_of(st.none(), st.just(float("nan")), st.integers(0, 9).map(float)))
    drawn = draw(st.lists(rows, min_size=n, max_size=n))
    return pa.table({"sym": pa.array([r[0] for r in drawn], pa.string()),
                     "ts": pa.array([r[1] for r in drawn], pa.int64()),
                     "price": pa.array([r[2] for r in drawn], pa.float64())})


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(table=_ticks(), skip=st.sampled_from(["PAST LAST ROW", "TO NEXT ROW"]),
       tasks=st.integers(1, 4), group=st.integers(1, 16))
def test_drawn_tables_from_parquet_equal_the_single_process(
        spark: Any, tmp_path_factory: Any, table: pa.Table, skip: str, tasks: int,
        group: int) -> None:
    path = tmp_path_factory.mktemp("direct") / "t.parquet"
    pq.write_table(table, path, row_group_size=group)
    recorder = Recorder()
    for sql in CLAUSES:
        clause = parse_statement(sql.format(skip=skip)).recognitions[0].clause
        recorder.recognize_arrow(clause, pq.read_table(path))
    with small_jobs(spark):
        _compared(spark, recorder.seen, [path] * len(CLAUSES), tasks)


def test_owners_puts_each_partition_whole_in_one_task_the_largest_first():
    # by hand: partitions 0, 1, 2 of 3, 1 and 2 rows; two tasks: 0 (3 rows) to task 0,
    # 2 (2 rows) to task 1, then 1 (1 row) to task 1 (2 rows against 3)
    assert owners(np.array([0, 0, 2, 1, 0, 2]), 2).tolist() == [0, 0, 1, 1, 0, 1]
    assert owners(np.array([0, 1, 1]), 1).tolist() == [0, 0, 0]
    assert owners(np.array([], dtype=np.int64), 3).tolist() == []


V_SHAPE = """SELECT * FROM t MATCH_RECOGNIZE (PARTITION BY sym ORDER BY ts
    MEASURES FIRST(A.ts) AS f PATTERN (A B+) DEFINE B AS B.price < PREV(B.price))"""


def test_what_is_not_one_plain_parquet_file_keeps_the_general_door(spark, tmp_path):
    rows = pa.table({"sym": ["A", "A", "B"], "ts": [1, 2, 3], "price": [3.0, 2.0, 1.0],
                     "day": pa.array([0, 1, 2], pa.date32())})
    pq.write_table(rows, tmp_path / "t.parquet")
    (tmp_path / "two").mkdir()
    pq.write_table(rows, tmp_path / "two" / "a.parquet")
    pq.write_table(rows, tmp_path / "two" / "b.parquet")
    plain = spark.read.parquet(str(tmp_path / "t.parquet"))
    cases = {"the file": (plain, True),
             "a column it reads as Spark does not (a date)": (plain, False),
             "a filter over it": (plain.filter("ts > 0"), False),
             "two files": (spark.read.parquet(str(tmp_path / "two")), False),
             "not a file": (spark.createDataFrame(rows.drop_columns(["day"]).to_pandas()),
                            False)}
    for what, (df, direct) in cases.items():
        sql = V_SHAPE.replace("FIRST(A.ts)", "FIRST(A.day)") if "date" in what else V_SHAPE
        answer = match_recognize(df, Query.parse(sql, language="match_recognize"))
        assert bool(answer.direct) == direct, what
        with small_jobs(spark):
            got = [tuple(r) for r in answer.frame.collect()]
        assert [g[0] for g in got] == ["A"], what


def test_kleene_match_spark_v_says_the_tasks_read_the_file(spark, capsys, tmp_path):
    # the README's ticks as Parquet: the V shapes of the CSV file (hand-computed in
    # tests/test_spark_mr_doors.py), read by the tasks, said with -v
    root = Path(__file__).resolve().parents[1] / "examples" / "ticks"
    path = tmp_path / "ticks.parquet"
    pq.write_table(pacsv.read_csv(root / "ticks.csv"), path)
    with small_jobs(spark):
        assert main(["match", "-q", "-v", "--pattern", str(root / "v_shape.sql"),
                     "--events", str(path), "--spark", "--tasks", "2"]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[1:] == ["ACME,1,3,5", "ACME,6,7,8", "GLOB,1,2,3"]
    assert (f"kleene match: the tasks read {path} themselves (no row through the JVM)"
            in err.splitlines()), err


def test_ranges_read_by_the_tasks_are_said_as_such(spark, tmp_path):
    # without PARTITION BY, bounded: ranges; the tasks read the rows around their own
    # range (no edge rows travel), which the note says, and the general door's note is not
    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({"x": [1, 2, 3, 4]}), path)
    sql = "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY x MEASURES A.x AS a PATTERN (A B) " \
          "DEFINE B AS B.x > A.x)"
    answer = match_recognize(spark.read.parquet(str(path)),
                             Query.parse(sql, language="match_recognize"), tasks=2)
    assert answer.direct and RANGES_DIRECT in answer.notes and RANGES not in answer.notes
    with small_jobs(spark):
        assert [tuple(r) for r in answer.frame.collect()] == [(1,), (3,)]
