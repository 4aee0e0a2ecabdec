"""``MATCH_RECOGNIZE`` on Spark through its doors (issue 30, item 1): ``kleene match
--spark`` and ``kleene.match_recognize(spark_df, sql)`` give the single process's rows;
bad input is one line before any job (docs/match-recognize-spark.md)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pytest
from pyspark.sql import functions as F

import kleene
from kleene.cli import main
from kleene.reference.errors import Unsupported
from tests.helpers import after_spark_start, small_jobs

pytest.importorskip("pyspark")

ROOT = Path(__file__).resolve().parents[1]
TICKS = ROOT / "examples" / "ticks" / "ticks.csv"
V_SHAPE = ROOT / "examples" / "ticks" / "v_shape.sql"
#: The V shapes of ticks.csv, by hand: ACME falls 1..3 and rises to 5, falls at 7 and
#: rises at 8; GLOB falls at 2 and rises at 3.
V_ROWS = [("ACME", 1, 3, 5), ("ACME", 6, 7, 8), ("GLOB", 1, 2, 3)]


def _ticks(spark: Any) -> Any:
    """ticks.csv as a Spark DataFrame (from pandas: no job)."""
    return spark.createDataFrame(pd.read_csv(TICKS))


def _jobs(spark: Any, group: str) -> list[int]:
    return list(spark.sparkContext.statusTracker().getJobIdsForGroup(group))


@pytest.mark.parametrize(("body", "said"), [
    ("PARTITION BY symbol ORDER BY ts MEASURES FIRST(ts) AS f PATTERN (A) DEFINE A AS true",
     "unsupported: PARTITION BY SYMBOL: the DataFrame has no such column (it has "
     "sym, ts, price, tags)"),
    ("PARTITION BY sym ORDER BY tags MEASURES FIRST(ts) AS f PATTERN (A) DEFINE A AS true",
     "unsupported: ORDER BY TAGS: array<string> values do not sort"),
    ("PARTITION BY sym ORDER BY ts MEASURES LAST(price) / FIRST(price) AS ratio "
     "PATTERN (A B) DEFINE B AS price > PREV(price)",
     "unsupported: MEASURES RATIO: the quotient of exact numbers is typed by its values "
     "(its scale); Spark needs each column's type before the job: CAST it "
     "(CAST(LAST(PRICE) / FIRST(PRICE) AS DOUBLE), say)"),
    ("PARTITION BY sym ORDER BY ts MEASURES NULL AS nothing PATTERN (A) DEFINE A AS true",
     "unsupported: MEASURES NOTHING is NULL on every row, and a Spark column needs a type: "
     "CAST(NULL AS <type>)"),
    ("PARTITION BY sym ORDER BY ts MEASURES FIRST(A.volume) AS v PATTERN (A) "
     "DEFINE A AS true",
     "unsupported: MATCH_RECOGNIZE reads a column VOLUME the DataFrame has not (it has "
     "sym, ts, price, tags)"),
])
def test_bad_input_is_one_line_before_any_job(spark, body, said):
    from pyspark.sql import functions as F

    frame = _ticks(spark).withColumn("tags", F.array(F.col("sym")))
    spark.sparkContext.setJobGroup("mr-bad-input", "checks only")
    try:
        with pytest.raises(Unsupported) as err:
            kleene.match_recognize(frame, f"SELECT * FROM ticks MATCH_RECOGNIZE ({body})")
    finally:
        spark.sparkContext.setJobGroup("", "")
    assert str(err.value) == said
    assert _jobs(spark, "mr-bad-input") == []


def test_the_python_door_gives_the_single_process_rows_as_a_spark_dataframe(spark):
    sql = V_SHAPE.read_text()
    with small_jobs(spark):
        got = kleene.match_recognize(_ticks(spark), sql)
        rows = [tuple(r) for r in got.collect()]
    assert rows == V_ROWS
    single = kleene.match_recognize(str(TICKS), sql)
    assert [tuple(r.values()) for r in single.to_pylist()] == V_ROWS
    assert [c.lower() for c in got.columns] == [c.lower() for c in single.column_names]


def test_without_partition_by_one_task_is_said_and_ties_keep_the_input_order(spark):
    # every row ties on ORDER BY g: the input order decides, on Spark as in one process
    rows = pa.table({"g": [1] * 6, "x": [5, 3, 4, 9, 1, 2]})
    sql = ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY g MEASURES FIRST(x) AS f, "
           "LAST(x) AS l, COUNT(*) AS n ONE ROW PER MATCH PATTERN (A B+) "
           "DEFINE B AS x < PREV(x))")
    with small_jobs(spark), pytest.warns(UserWarning, match="no PARTITION BY: the whole "
                                         "DataFrame is one partition, matched by one Spark "
                                         "task on one core"):
        got = kleene.match_recognize(spark.createDataFrame(rows.to_pandas()), sql)
    # by hand, in input order 5 3 | 4 | 9 1 | 2: (5,3) falls, 4 rises, (9,1) falls
    assert [tuple(r) for r in got.collect()] == [(5, 3, 2), (9, 1, 2)]
    assert kleene.match_recognize(rows, sql).to_pylist() == [
        {"F": 5, "L": 3, "N": 2}, {"F": 9, "L": 1, "N": 2}]


def test_kleene_match_spark_prints_what_one_process_prints(spark, capsys):
    argv = ["match", "-q", "--pattern", str(V_SHAPE), "--events", str(TICKS)]
    assert main(argv) == 0
    single, _ = capsys.readouterr()
    with small_jobs(spark):
        assert main([*argv, "--spark", "--tasks", "2"]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[1:] == single.splitlines()[1:] == [
        "ACME,1,3,5", "ACME,6,7,8", "GLOB,1,2,3"]
    assert out.splitlines()[0].lower() == single.splitlines()[0].lower()
    assert after_spark_start(err)[0].startswith("kleene match: engine match-recognize on "
                                                "Spark (")


def _steps_timed(err: str) -> list[str]:
    """The steps said with their seconds on stderr (the session's start, always said, left
    out)."""
    timed = (re.fullmatch(r"(kleene match: .*) in \d+\.\d s", line) for line in err.splitlines())
    return [m.group(1) for m in timed if m and m.group(1) != "kleene match: Spark ready"]


def test_kleene_match_spark_v_times_each_step_of_a_table_query(spark, capsys):
    # issue 30 item 4: -v on MATCH_RECOGNIZE says each step's seconds, as for the other
    # languages (tests/test_outputs_named.py); without -v, none of them
    argv = ["match", "-q", "--pattern", str(V_SHAPE), "--events", str(TICKS), "--spark",
            "--tasks", "2"]
    with small_jobs(spark):
        assert main([*argv, "-v"]) == 0
        out, err = capsys.readouterr()
        assert out.splitlines()[1:] == ["ACME,1,3,5", "ACME,6,7,8", "GLOB,1,2,3"]
        assert _steps_timed(err) == [
            "kleene match: read the table", "kleene match: planned",
            "kleene match: recognition stage and collect", "kleene match: printed the rows"]
        assert main([*argv, "-v", "--count"]) == 0
        out, err = capsys.readouterr()
        assert out == "3\n"
        assert _steps_timed(err)[-1] == "kleene match: printed the count"
        assert main(argv) == 0
        assert _steps_timed(capsys.readouterr()[1]) == []


def test_sql_that_spark_refuses_around_the_recognition_is_one_line(spark):
    sql = V_SHAPE.read_text().replace("SELECT sym, start_ts, bottom_ts, end_ts",
                                      "SELECT sym, list(start_ts) AS starts")
    sql = sql.replace("ORDER BY sym, start_ts", "GROUP BY sym")
    spark.sparkContext.setJobGroup("mr-outer-sql", "analysis only")
    try:
        with pytest.raises(Unsupported) as err:
            kleene.match_recognize(_ticks(spark), sql)
    finally:
        spark.sparkContext.setJobGroup("", "")
    assert str(err.value).startswith("unsupported: on Spark the SQL around MATCH_RECOGNIZE "
                                     "is run by Spark SQL, which refused it: ")
    assert "list" in str(err.value) and "\n" not in str(err.value)
    assert _jobs(spark, "mr-outer-sql") == []
    assert not [v for v in spark.catalog.listTables() if v.name.startswith("__kleene")]


def test_a_column_the_recognition_does_not_read_is_never_shipped(spark):
    # an interval of months and days is a type Spark cannot send to Python as Arrow, so
    # the recognition succeeds only if the column it does not read is dropped before the
    # mapInArrow; with ALL ROWS PER MATCH the rows are the output, and every column is sent
    sql = V_SHAPE.read_text()
    ticks = _ticks(spark).withColumn("lag", F.make_interval(F.lit(0), F.lit(1)))
    with small_jobs(spark):
        assert [tuple(r) for r in kleene.match_recognize(ticks, sql).collect()] == V_ROWS
        every = sql.replace("ONE ROW PER MATCH", "ALL ROWS PER MATCH").replace(
            "SELECT sym, start_ts, bottom_ts, end_ts", "SELECT *")
        with pytest.raises(Exception, match="(?i)interval"):
            kleene.match_recognize(ticks, every).collect()
