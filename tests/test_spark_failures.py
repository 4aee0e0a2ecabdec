"""Spark's and Java's failures as one line naming their cause (issue 27 item 3): real
failures of Spark (a corrupt Parquet file, a folder that is no Parquet file, a column
type the CSV reader cannot read, a failed cast, a crash inside a task), never Py4J's
``An error occurred while calling o123...`` wrapper nor a Java stack. The expected
causes are Spark's and Java's own words for each failure, read in their messages."""

from __future__ import annotations

from pathlib import Path

import pytest

from kleene.cli import main
from kleene.cli.spark_failures import SparkFailure, cause, spark_errors
from tests.helpers import after_spark_start

PATTERN = "PATTERN SEQ(A a, B b) WITHIN 10\n"


def kleene(tmp_path: Path, capsys: pytest.CaptureFixture[str], events: Path,
           *extra: str) -> tuple[int, list[str]]:
    (tmp_path / "q.op").write_text(PATTERN)
    code = main(["match", "--pattern", str(tmp_path / "q.op"), "--events", str(events),
                 "--spark", *extra])
    out, err = capsys.readouterr()
    assert out == ""
    return code, after_spark_start(err)


def one_line(lines: list[str], *said: str) -> None:
    assert len(lines) == 1, lines
    line = lines[0]
    assert line.startswith("kleene match: "), line
    for words in said:
        assert words in line, line
    for noise in ("Py4J", "An error occurred while calling", "\tat ", "Traceback"):
        assert noise not in line, line


def test_a_file_that_is_not_parquet(spark, capsys, tmp_path):
    bad = tmp_path / "e.parquet"
    bad.write_bytes(b"not a parquet file at all")
    code, lines = kleene(tmp_path, capsys, bad)
    assert code == 2
    one_line(lines, "is not a Parquet file")


def test_a_parquet_file_corrupt_inside(spark, capsys, tmp_path):
    """The footer reads (so the schema is known), a page header does not: the failure
    comes from the job's task, inside Java's cause chain."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "e.parquet"
    pq.write_table(pa.table({"ts": list(range(1000)), "type": ["A", "B"] * 500}), path)
    data = bytearray(path.read_bytes())
    data[8:len(data) // 2] = b"\x55" * (len(data) // 2 - 8)
    path.write_bytes(bytes(data))
    code, lines = kleene(tmp_path, capsys, path)
    assert code == 2
    one_line(lines, "Spark failed: ", "page_size")


def test_a_folder_named_like_a_parquet_file(spark, capsys, tmp_path):
    (tmp_path / "e.parquet").mkdir()
    code, lines = kleene(tmp_path, capsys, tmp_path / "e.parquet")
    assert code == 2
    one_line(lines, "Parquet")


def test_a_column_type_the_csv_reader_cannot_read(spark, capsys, tmp_path):
    events = tmp_path / "e.csv"
    events.write_text("ts,type,x\n1,A,3\n2,B,4\n")
    code, lines = kleene(tmp_path, capsys, events, "--schema",
                         "ts BIGINT, type STRING, x ARRAY<INT>")
    assert code == 2
    one_line(lines, "UNSUPPORTED_DATA_TYPE_FOR_DATASOURCE", "`x`")


def test_a_failed_cast_is_one_line_without_pysparks_log(spark, capfd):
    """A cast with a query context: PySpark would log it as a JSON record with the Java
    stack on stderr before raising it."""
    with pytest.raises(SparkFailure) as raised, spark_errors():
        spark.conf.set("spark.sql.ansi.enabled", "true")
        spark.sql("SELECT CAST('abc' AS INT)").collect()
    out, err = capfd.readouterr()
    assert "SQLQueryContextLogger" not in err and "errorClass" not in err, err[:300]
    assert str(raised.value).startswith("Spark failed: [CAST_INVALID_INPUT] The value 'abc' "
                                        "of the type \"STRING\" cannot be cast to \"INT\"")
    assert "\n" not in str(raised.value)


def test_a_python_task_that_crashes_says_its_exception(spark):
    def crash(batches):
        raise ValueError("the task's own words")
        yield from batches

    with pytest.raises(Exception) as raised:
        spark.range(3).mapInArrow(crash, "id long").collect()
    assert "An exception was thrown from the Python worker" in str(raised.value)
    assert cause(raised.value) == "ValueError: the task's own words"


def test_a_raw_py4j_error_says_the_java_cause(spark):
    """An exception Py4J raises itself (no PySpark conversion): its innermost Java cause,
    not ``An error occurred while calling None.java.io.FileInputStream.``"""
    from py4j.protocol import Py4JJavaError  # type: ignore[import-untyped]

    with pytest.raises(Py4JJavaError) as raised:
        spark.sparkContext._jvm.java.io.FileInputStream("/nonexistent/kleene-events")
    assert str(raised.value).startswith("An error occurred while calling")
    assert cause(raised.value) == "/nonexistent/kleene-events (No such file or directory)"
