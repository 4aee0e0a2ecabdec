"""Events on Spark: positions equal the loaders' row numbers, values are typed like
the loaders', and every mistake is one clear line (engines/spark/frames.py).
Also ``kleene match --spark`` against ``kleene match``."""

from __future__ import annotations

import csv
import json
from collections.abc import Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest

from kleene.cli import main
from kleene.data.loaders import load_events
from kleene.engines.spark import SparkJobFailed, collect_matches, match_dataframe
from kleene.engines.spark.frames import from_dataframe, read_events
from kleene.engines.spark.session import (
    JAVA_OPTIONS,
    LOCAL_JAVA_OPTIONS,
    UNIX_SOCKETS,
    SparkUnavailable,
    session,
    settings,
)
from kleene.reference.errors import PatternError, StreamError
from kleene.reference.query import Query

pytestmark = pytest.mark.spark

ROWS = 1500
Q1_CASE = Path(__file__).parent.parent / "conformance" / "cases" / "ses-q1.json"


def rows(n: int = ROWS) -> list[dict[str, object]]:
    """Rows with ints, floats, words, a mixed column and gaps; ts ties every third row."""
    return [{"ts": i // 3, "id": i, "price": i / 4, "word": f"w{i % 7}",
             "mixed": i if i % 5 else f"x{i}", "gap": "" if i % 4 == 0 else i % 3}
            for i in range(n)]


@contextmanager
def small_splits(spark, size: int = 16384):
    """Spark reads files in splits of ``size`` bytes, so a file spans several partitions."""
    key = "spark.sql.files.maxPartitionBytes"
    before = spark.conf.get(key)
    spark.conf.set(key, str(size))
    try:
        yield
    finally:
        spark.conf.set(key, before)


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder = tmp_path_factory.mktemp("events")
    data = rows()
    with open(folder / "e.csv", "w", newline="") as f:
        w = csv.DictWriter(f, list(data[0]))
        w.writeheader()
        w.writerows(data)
    with open(folder / "e.jsonl", "w") as f:
        for r in data:
            f.write(json.dumps({k: v for k, v in r.items() if k != "mixed"}) + "\n")
    table = pa.table({k: [r[k] for r in data] for k in ("ts", "id", "price", "word")})
    pq.write_table(table, folder / "e.parquet", row_group_size=100)
    return {"csv": folder / "e.csv", "jsonl": folder / "e.jsonl",
            "parquet": folder / "e.parquet"}


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "parquet"])
def test_positions_and_values_equal_the_loaders(spark, files, fmt):
    with small_splits(spark):
        frame = read_events(spark, str(files[fmt]))
        assert frame.df.rdd.getNumPartitions() > 1
        got = {r[frame.position]: r.asDict() for r in frame.df.collect()}
    s = load_events(files[fmt])
    assert frame.count == len(s) == len(got)
    for e in s:
        row = got[e.position]
        assert row["ts"] == e.ts and row["id"] == e.attrs["id"]
        assert row["price"] == e.attrs["price"] and row["word"] == e.attrs["word"]
        if fmt == "csv":
            assert row["gap"] == e.attrs["gap"]                # empty cells are missing
            assert row["mixed"] == str(e.attrs["mixed"])       # one type per column


def write_csv(path: Path, data: Sequence[Mapping[str, object]]) -> str:
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, list(data[0]))
        w.writeheader()
        w.writerows(data)
    return str(path)


def test_unsorted_timestamps_name_the_row_and_field(spark, tmp_path):
    data = rows()
    data[1200]["ts"] = 3                                      # earlier than row 1199's 399
    path = write_csv(tmp_path / "unsorted.csv", data)
    with small_splits(spark), pytest.raises(StreamError) as err:
        read_events(spark, path)
    assert (err.value.row, err.value.field) == (1200, "ts")
    assert "earlier than the previous row's 399" in str(err.value)
    with small_splits(spark):                                  # the loader's answer, too
        assert read_events(spark, path, limit=1200).count == 1200


def test_a_missing_timestamp_names_the_row(spark, tmp_path):
    data = rows(20)
    data[7]["ts"] = ""
    with pytest.raises(StreamError, match="missing timestamp") as err:
        read_events(spark, write_csv(tmp_path / "gap.csv", data))
    assert (err.value.row, err.value.field) == (7, "ts")


def test_iso_timestamps_become_milliseconds(spark, tmp_path):
    data = [{"T": f"2024-07-0{d}T10:00:00", "L": "A"} for d in range(1, 4)]
    frame = read_events(spark, write_csv(tmp_path / "iso.csv", data), ts="T")
    s = load_events(tmp_path / "iso.csv", ts="T")
    assert frame.time_unit == s.time_unit == "ms"
    assert [r["T"] for r in frame.df.orderBy(frame.position).collect()] == [e.ts for e in s]


def test_a_bad_stock_line_names_its_row(spark, tmp_path):
    lines = ["BUY(id=1,name=A,volume=1,price=1.5,stock_time=10)",
             "SELL(id=2,name=A,volume=1,price=1.5,stock_time=11)",
             "",
             "this is no stock line",
             "SELL(id=3,name=A,volume=1,price=1.5,stock_time=12)"]
    path = tmp_path / "bad.stream"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(StreamError, match="not a stock line") as err:
        read_events(spark, str(path))
    assert err.value.row == 2                                 # blank lines are no rows
    with pytest.raises(StreamError, match="not a stock line") as err:
        load_events(path)
    assert err.value.row == 2


@contextmanager
def no_job_runs(spark):
    """Fail if a Spark job starts inside the block."""
    tracker = spark.sparkContext.statusTracker()
    spark.sparkContext.setJobGroup("kleene-no-job", "must not run")
    try:
        yield
    finally:
        spark.sparkContext.setLocalProperty("spark.jobGroup.id", None)
    assert tracker.getJobIdsForGroup("kleene-no-job") == []


def test_mistakes_in_columns_are_caught_before_any_job(spark):
    df = spark.createDataFrame([(0, True, "A"), (1, False, "B")],
                               "ts bigint, flag boolean, L string")
    with no_job_runs(spark):
        with pytest.raises(StreamError, match="no timestamp column 'time'"):
            from_dataframe(df, ts="time")
        with pytest.raises(StreamError, match="type boolean"):
            from_dataframe(df, ts="flag", position="ts")
        with pytest.raises(PatternError, match="the pattern reads V"):
            match_dataframe(df, "PATTERN <{a}, {b}> WHERE a.V = b.V WITHIN 5", position="ts")


def test_unsorted_rows_inside_a_task_are_one_line(spark):
    df = spark.createDataFrame([(0, 5, "A"), (1, 2, "B")], "pos bigint, ts bigint, L string")
    with pytest.raises(SparkJobFailed) as err:
        collect_matches(match_dataframe(df, "PATTERN <{a}, {b}> WITHIN 5", position="pos",
                                        policy="any"))
    assert "row 1, field 'ts'" in str(err.value) and "\n" not in str(err.value)


def test_an_unreachable_master_is_one_line():
    with pytest.raises(SparkUnavailable, match="cannot reach the Spark master 127.0.0.1:1"):
        session("spark://127.0.0.1:1")


def test_a_local_session_gets_kleenes_jvm_and_worker_settings_unless_told_otherwise(spark):
    # the shared session is local: its JVM runs the collector chosen for local masters
    jvm = spark.sparkContext._jvm.java.lang.management.ManagementFactory
    assert LOCAL_JAVA_OPTIONS == "-XX:+UseParallelGC"
    assert "-XX:+UseParallelGC" in list(jvm.getRuntimeMXBean().getInputArguments())
    # and its Python workers talk to the JVM over Unix domain sockets
    assert spark.sparkContext.getConf().get(UNIX_SOCKETS) == "true"
    assert settings("local[2]", {"spark.driver.memory": "4g"}) == {
        "spark.driver.memory": "4g", JAVA_OPTIONS: "-XX:+UseParallelGC",
        UNIX_SOCKETS: "true"}
    assert settings("local[*]", {JAVA_OPTIONS: "-Xss4m", UNIX_SOCKETS: "false"}) == {
        JAVA_OPTIONS: "-Xss4m", UNIX_SOCKETS: "false"}
    assert settings("spark://host:7077") == {}      # a cluster's JVMs are the user's
    # a session of one query (kleene match --spark): the JVM's quick compiler only
    assert settings("local[2]", one_query=True)[JAVA_OPTIONS] == \
        "-XX:+UseParallelGC -XX:TieredStopAtLevel=1"
    assert settings("local[2]", {JAVA_OPTIONS: "-Xss4m"}, one_query=True)[JAVA_OPTIONS] == \
        "-Xss4m"
    assert settings("spark://host:7077", one_query=True) == {}


# ---------------------------------------------------------------- the command line


@pytest.fixture(scope="module")
def q1(tmp_path_factory) -> tuple[str, str]:
    case = json.loads(Q1_CASE.read_text())["cases"][0]
    folder = tmp_path_factory.mktemp("q1")
    (folder / "q1.ses").write_text(case["pattern"])
    return str(folder / "q1.ses"), write_csv(folder / "fig1.csv", case["events"])


@pytest.mark.parametrize("policy", ["next", "any"])
def test_kleene_match_spark_prints_what_kleene_match_prints(spark, q1, capsys, policy):
    pattern, events = q1
    common = ["match", "--pattern", pattern, "--events", events, "--time-unit", "h",
              "--policy", policy]
    assert main(common) == 0
    reference = capsys.readouterr().out
    assert main([*common, "--spark"]) == 0
    assert capsys.readouterr().out == reference and reference.count("\n") >= 3


def test_kleene_match_spark_writes_parquet(spark, q1, tmp_path, capsys):
    pattern, events = q1
    import pyarrow.parquet as pq

    # --output is the same file, in the same layout, with --spark and without
    # (kleene.cli.results): here the long layout, a row per match, variable and event.
    out, local = str(tmp_path / "m.parquet"), str(tmp_path / "local.parquet")
    for target, extra in ((out, ["--spark"]), (local, ["--engine", "ses-automaton"])):
        assert main(["match", "--pattern", pattern, "--events", events, "--time-unit", "h",
                     "--policy", "next", "--output", target, "--columns", "L,ID",
                     *extra]) == 0
    written = pq.read_table(out).to_pylist()
    assert set(written[0]) == {"match", "variable", "position", "ts", "L", "ID"}
    assert len({r["match"] for r in written}) == 3
    assert written == pq.read_table(local).to_pylist()


def test_spark_options_need_spark(q1, capsys):
    pattern, events = q1
    assert main(["match", "--pattern", pattern, "--events", events, "--master",
                 "local[1]"]) == 2
    assert capsys.readouterr().err.strip() == "kleene match: usage: --master needs --spark"


def test_a_dataframe_of_local_data_is_numbered_in_its_own_order(spark):
    """Regression: ``spark.createDataFrame`` of local rows was numbered differently by
    the counting pass and the matching (positions up to 239 on 160 rows)."""
    import random

    import pyarrow as pa

    from kleene.conformance.differential import reference_matches
    from kleene.reference.events import Stream
    from kleene.reference.languages import detect_language

    rng = random.Random(1)
    t, data = 0, []
    for _ in range(160):
        t += rng.choice((0, 1, 1, 2, 3))           # ties in timestamps, as real streams have
        data.append({"ts": t, "type": rng.choice("ABCD"), "id": rng.randint(1, 3)})
    text = ("PATTERN <{a, b+}, {c}> WHERE a.type = 'A' AND b.type = 'B' AND c.type = 'C' "
            "AND a.id = c.id WITHIN 6")
    pattern = detect_language(text).parse(text, "<test>")
    df = spark.createDataFrame(pa.Table.from_pylist(data).to_pandas())
    got = collect_matches(match_dataframe(df, pattern, engine="windows+ses", policy="any"))
    expected = reference_matches(pattern, Stream.from_rows(data), "any")
    assert expected and set(got) == expected


def test_a_converted_parquet_file_keeps_its_time_unit(spark, tmp_path):
    # ``kleene convert`` records the time unit (ms for stock lines) in the file's
    # metadata; Spark reads it like the single-process loader, so a window in ms needs
    # no --time-unit, and the matches are the single-process engine's.
    from kleene.engines.registry import engine
    from kleene.engines.spark import match_file

    stocks = Path(__file__).parent.parent / "examples" / "stocks" / "stocks.stream"
    out = tmp_path / "stocks.parquet"
    assert main(["convert", str(stocks), "-o", str(out)]) == 0
    assert read_events(spark, str(out)).time_unit == "ms"
    pattern = ("(mark {~.type = 'BUY'} -> r ; {TRUE}* ; "
               "mark {~.type = 'SELL' AND ~.price < r.price})[WITHIN 300 ms]")
    single = load_events(out)
    query = Query.parse(pattern, policy="stream", time_unit=single.time_unit)
    compiled = engine("srt").compile(query)
    expected = sorted(m.dumps() for m in compiled.run(single))
    found = collect_matches(match_file(spark, str(out), pattern, engine="srt", policy="stream"))
    assert expected and sorted(m.dumps() for m in found) == expected
