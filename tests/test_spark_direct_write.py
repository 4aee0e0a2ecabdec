"""Match rows of the direct slices written by the engine tasks themselves
(engines/spark/direct_write.py, issue 14): the same matches as Spark's writer and as
one process, Spark's folder layout, every match once when a task fails after writing,
and Spark's writer for everything this writer does not take."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kleene.data.loaders import load_events
from kleene.data.outputs import OutputError
from kleene.engines.registry import engine
from kleene.engines.spark import direct_write
from kleene.engines.spark.frames import read_events
from kleene.engines.spark.runner import collect_matches, prepare, write_matches
from kleene.engines.spark.worker import FAIL_ONCE
from kleene.reference.languages import detect_language
from kleene.reference.match import Match
from kleene.reference.query import Query

pytestmark = pytest.mark.spark

ROOT = Path(__file__).parent.parent
STOCKS = ROOT / "examples" / "stocks" / "stocks.stream"
SREMO = ("(mark {~.type = 'BUY' AND ~.name = 'INTC'} -> r ; {TRUE}* ; "
         "mark {~.type = 'SELL' AND ~.name = 'INTC' AND ~.price < r.price})[WITHIN 10 s]")


@pytest.fixture(scope="module")
def expected():
    """The matches of one process (the reference-verified engine on the loader's events)."""
    s = load_events(STOCKS)
    pattern = detect_language(SREMO).parse(SREMO, "<sremo>")
    query = Query.of(pattern, policy="stream", time_unit=s.time_unit)
    found = sorted(engine("srt").compile(query).run(s))
    assert len(found) >= 5
    return found


def _run(spark, tasks=4):
    frame = read_events(spark, str(STOCKS))
    run = prepare(frame, Query.ask(SREMO, policy="stream"), engine="srt", tasks=tasks)
    assert run.direct is not None          # the plan reads the parsed splits
    return run.matches()


def _written(spark, path: Path) -> list[Match]:
    return sorted(collect_matches(spark.read.parquet(str(path))))


def _staging_left(folder: Path) -> list[str]:
    return [n for n in os.listdir(folder) if n.startswith(".")]   # a temporary left


def test_the_tasks_write_what_sparks_writer_writes(spark, tmp_path, expected):
    matches = _run(spark)
    assert direct_write.writable(matches, str(tmp_path / "m.parquet"), "parquet",
                                 "errorifexists") is not None
    write_matches(matches, str(tmp_path / "m.parquet"))
    write_matches(matches.filter("true"), str(tmp_path / "spark.parquet"))  # Spark's writer
    names = set(os.listdir(tmp_path / "m.parquet")) - {"_SUCCESS"}
    assert "_SUCCESS" in os.listdir(tmp_path / "m.parquet")
    assert names and all(n.startswith("part-") and n.endswith(".parquet") for n in names)
    assert _written(spark, tmp_path / "m.parquet") == _written(
        spark, tmp_path / "spark.parquet") == sorted(collect_matches(matches)) == expected
    assert spark.read.parquet(str(tmp_path / "m.parquet")).schema == spark.read.parquet(
        str(tmp_path / "spark.parquet")).schema
    assert _staging_left(tmp_path) == []


def test_overwrite_replaces_and_an_existing_folder_is_sparks_error(spark, tmp_path, expected):
    target = tmp_path / "m.parquet"
    target.mkdir()
    (target / "stale.parquet").write_text("not parquet")
    matches = _run(spark)
    assert direct_write.writable(matches, str(target), "parquet", "errorifexists") is None
    with pytest.raises(Exception, match="already exists"):
        write_matches(matches, str(target))
    write_matches(matches, str(target), mode="overwrite")
    assert not (target / "stale.parquet").exists()
    assert _written(spark, target) == expected


def test_a_task_that_fails_after_writing_leaves_every_match_once(spark, tmp_path, expected,
                                                                 monkeypatch):
    # local[2,2]: the first attempt of partition 0 fails after its first batch is written
    monkeypatch.setenv(FAIL_ONCE, "0")
    matches = _run(spark)
    spark.sparkContext.setJobGroup("kleene-direct-fault", "a writing task fails once")
    try:
        write_matches(matches, str(tmp_path / "m.parquet"))
    finally:
        spark.sparkContext.setLocalProperty("spark.jobGroup.id", None)
    tracker = spark.sparkContext.statusTracker()
    assert sum(tracker.getStageInfo(stage).numFailedTasks
               for job in tracker.getJobIdsForGroup("kleene-direct-fault")
               for stage in tracker.getJobInfo(job).stageIds
               if tracker.getStageInfo(stage) is not None) == 1
    written = _written(spark, tmp_path / "m.parquet")
    assert written == expected and len(set(written)) == len(written)
    assert len([n for n in os.listdir(tmp_path / "m.parquet") if n.startswith("part-")]) <= 4
    assert _staging_left(tmp_path) == []


def test_no_match_writes_one_empty_file_with_the_schema(spark, tmp_path):
    frame = read_events(spark, str(STOCKS))
    never = SREMO.replace("'INTC'", "'NO-SUCH-TICKER'")
    matches = prepare(frame, Query.ask(never, policy="stream"), engine="srt", tasks=4).matches()
    write_matches(matches, str(tmp_path / "none.parquet"))
    write_matches(matches.filter("true"), str(tmp_path / "spark.parquet"))  # Spark's writer
    back = spark.read.parquet(str(tmp_path / "none.parquet"))
    assert back.count() == 0
    assert back.schema == spark.read.parquet(str(tmp_path / "spark.parquet")).schema


def test_other_writes_are_sparks(spark, tmp_path):
    matches = _run(spark)
    assert direct_write.writable(matches, str(tmp_path / "m.jsonl"), "jsonl", "overwrite") \
        is None
    assert direct_write.writable(matches, "hdfs://host/m.parquet", "parquet", "overwrite") \
        is None
    assert direct_write.writable(matches, str(tmp_path / "m"), "parquet", "append") is None
    assert direct_write.writable(matches.select("match_id"), str(tmp_path / "m"), "parquet",
                                 "overwrite") is None
    assert direct_write.writable(matches, str(STOCKS.parent) + "-x", "parquet",
                                 "overwrite") is not None


def test_overwriting_the_folder_of_the_events_is_one_line_and_deletes_nothing(spark,
                                                                             tmp_path):
    # the tasks read the file themselves, so Spark's writer would not see it is read
    folder = tmp_path / "data"
    folder.mkdir()
    events = folder / "stocks.stream"
    events.write_bytes(STOCKS.read_bytes())
    frame = read_events(spark, str(events))
    matches = prepare(frame, Query.ask(SREMO, policy="stream"), engine="srt", tasks=4).matches()
    for fmt in ("parquet", "jsonl"):
        with pytest.raises(OutputError, match="holds the input"):
            write_matches(matches, str(folder), format=fmt, mode="overwrite")
    assert events.read_bytes() == STOCKS.read_bytes()
