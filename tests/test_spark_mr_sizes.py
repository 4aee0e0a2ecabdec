"""Skew and size of ``PARTITION BY`` keys on Spark (issue 30, item 1 and "Bad input";
:mod:`kleene.engines.spark.mr_sizes`): the task holding a key measures it, refuses one too
large for a task with its size, and reports its rows, so that a key holding most rows is
said after the job; no job runs before the recognition's. Thresholds small by setting;
sizes by hand."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pyarrow as pa
import pytest

import kleene
from kleene.cli import main
from kleene.engines.spark.runner import job_errors
from kleene.reference.errors import KleeneError, Unsupported
from kleene.reference.query import Query
from tests.helpers import small_jobs

pytest.importorskip("pyspark")

from kleene.engines.spark.mr_sizes import (  # noqa: E402 (after the skip)
    MEMORY_SETTING,
    SKEW_SETTING,
    _bytes,
    task_memory,
)

#: A: 6 rows, B: 2, C: 1. A row as Arrow, by hand: ts and price 8 bytes each, sym one
#: byte and a 4-byte offset: 21 bytes; A's 6 rows 126 bytes, all 9 rows 189.
ROWS = pa.table({"sym": ["A", "B", "A", "A", "C", "A", "B", "A", "A"],
                 "ts": list(range(9)), "price": [float(p) for p in (5, 1, 4, 6, 2, 3, 2, 7, 8)]})
RISE = ("SELECT * FROM t MATCH_RECOGNIZE ({by} ORDER BY ts MEASURES LAST(B.price) AS p "
        "ONE ROW PER MATCH PATTERN (A B) DEFINE B AS B.price > PREV(B.price))")


@contextmanager
def _set(spark: Any, key: str, value: str) -> Iterator[None]:
    spark.conf.set(key, value)
    try:
        yield
    finally:
        spark.conf.unset(key)


def _frame(spark: Any) -> Any:
    return spark.createDataFrame(ROWS.to_pandas())


def _answer(spark: Any, sql: str) -> Any:
    from kleene.engines.spark.match_recognize import match_recognize

    return match_recognize(_frame(spark), Query.parse(sql, language="match_recognize"))


def test_a_key_holding_most_rows_is_said_with_its_row_count(spark):
    sql = RISE.format(by="PARTITION BY sym")
    with small_jobs(spark), _set(spark, SKEW_SETTING, "5"):
        answer = _answer(spark, sql)
        assert answer.measured() == ()   # nothing measured before the job
        got = answer.frame.collect()
    assert answer.measured() == (
        "PARTITION BY key sym = 'A' holds 6 of the 9 rows (67 %): it is matched by one "
        "Spark task while the other keys share the others",)
    # by hand: A's prices 5 4 6 3 7 8 rise at 4 -> 6 and 3 -> 7; B's 1 2 at 1 -> 2
    assert sorted(tuple(r) for r in got) == [("A", 6.0), ("A", 7.0), ("B", 2.0)]
    got = answer.frame.collect()   # a second job: each task's report replaces its first
    assert answer.measured()[0].startswith("PARTITION BY key sym = 'A' holds 6 of the 9 rows")
    with small_jobs(spark), _set(spark, SKEW_SETTING, "7"):
        answer = _answer(spark, sql)
        answer.frame.collect()
    assert answer.measured() == ()   # 6 rows are below the floor of 7: nothing said


def test_no_job_runs_before_the_recognition_s_own(spark):
    frame = _frame(spark)
    context = spark.sparkContext
    context.setJobGroup("kleene-mr-door", "the door alone")
    try:
        with small_jobs(spark), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            kleene.match_recognize(frame, RISE.format(by="PARTITION BY sym"))
            kleene.match_recognize(frame, RISE.format(by=""))
        assert list(context.statusTracker().getJobIdsForGroup("kleene-mr-door")) == []
    finally:
        context.setJobGroup("", "")


def test_a_key_too_large_for_one_task_is_refused_with_its_size(spark):
    with small_jobs(spark), _set(spark, MEMORY_SETTING, "2000"):
        refused = kleene.match_recognize(_frame(spark), RISE.format(by="PARTITION BY sym"))
        with pytest.raises(KleeneError) as err, job_errors():
            refused.collect()
    assert str(err.value) == (
        "unsupported: PARTITION BY key sym = 'A' holds 6 rows, 126 bytes as Arrow; one "
        "Spark task matches them whole and needs about 16 times that (2,016 bytes), more "
        "than a task has (2,000 bytes, spark.kleene.matchRecognize.taskBytes): add a "
        "PARTITION BY column that splits it, or give tasks more memory "
        "(spark.kleene.matchRecognize.taskBytes)")
    with small_jobs(spark), _set(spark, MEMORY_SETTING, "2016"):   # it fits, just
        kleene.match_recognize(_frame(spark), RISE.format(by="PARTITION BY sym")).collect()


def test_without_partition_by_the_whole_frame_is_measured(spark, tmp_path, capsys):
    # without PARTITION BY the recognition reads ts and price only, and only they are sent
    # to the task (sym is dropped before the job): 16 bytes a row by hand, 144 for 9 rows;
    # B+ is unbounded, so the rows are not split into ranges (mr_ranges): one task
    with small_jobs(spark), _set(spark, MEMORY_SETTING, "2k"), warnings.catch_warnings():
        warnings.simplefilter("ignore")   # no PARTITION BY: one task, said
        refused = kleene.match_recognize(_frame(spark),
                                         RISE.format(by="").replace("(A B)", "(A B+)"))
        with pytest.raises(KleeneError, match=r"^unsupported: the one partition \(no "
                           r"PARTITION BY\) holds 9 rows, 144 bytes as Arrow; .* \(2,304 "
                           r"bytes\), more than a task has \(2,048 bytes"), job_errors():
            refused.collect()
    events = tmp_path / "t.csv"
    ROWS.to_pandas().to_csv(events, index=False)
    argv = ["match", "-q", "--spark", "--pattern", RISE.format(by="PARTITION BY sym"),
            "--events", str(events)]
    with small_jobs(spark), _set(spark, SKEW_SETTING, "6"):
        assert main(argv) == 0
    out, err = capsys.readouterr()
    assert "kleene match: PARTITION BY key sym = 'A' holds 6 of the 9 rows (67 %)" in err
    assert out.splitlines()[1:] == ["A,6.0", "A,7.0", "B,2.0"]


def test_task_memory_is_the_setting_else_the_machine_shared_by_the_slots(spark):
    with _set(spark, MEMORY_SETTING, "1.5g"):
        assert task_memory(spark) == (int(1.5 * 2**30), MEMORY_SETTING)
    memory, source = task_memory(spark)
    assert source == "the machine's memory over 2 task slots"   # the fixture's local[2,2]
    assert 0 < memory < 2**50


@pytest.mark.parametrize(("text", "size"), [("1048576", 2**20), ("512m", 512 * 2**20),
                                            ("2G", 2 * 2**30), ("1.5kb", 1536)])
def test_sizes_are_read_as_spark_writes_them(text, size):
    assert _bytes(text) == size


def test_a_size_spark_would_not_read_is_one_line():
    with pytest.raises(Unsupported, match="a size of 'lots'"):
        _bytes("lots")
