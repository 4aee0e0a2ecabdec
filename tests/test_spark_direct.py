"""Slices read straight from a stock file's parsed splits (engines/spark/direct.py, issue 14):
the same rows in each slice as the general layout's explode, and the same matches as
the general layout and the single-process engine, with the reading job's parsed
splits present, removed before the engine stage, or never written (a scratch
directory the tasks cannot see)."""

from __future__ import annotations

import dataclasses
import os
import shutil
from pathlib import Path

import pytest

from kleene.data.loaders import load_events
from kleene.engines.registry import engine
from kleene.engines.spark import direct_write, split_cache
from kleene.engines.spark.frames import read_events
from kleene.engines.spark.layout import extent, slice_column
from kleene.engines.spark.runner import collect_matches, prepare
from kleene.engines.spark.worker import FAIL_ONCE
from kleene.reference.languages import detect_language
from kleene.reference.query import Query
from tests.helpers import small_splits

pytestmark = pytest.mark.spark

ROOT = Path(__file__).parent.parent
STOCKS = ROOT / "examples" / "stocks" / "stocks.stream"
# the SREMO time window of the benchmark, widened so that 1,000 events hold matches
SREMO = ("(mark {~.type = 'BUY' AND ~.name = 'INTC'} -> r ; {TRUE}* ; "
         "mark {~.type = 'SELL' AND ~.name = 'INTC' AND ~.price < r.price})[WITHIN 10 s]")
WAYEB = (ROOT / "examples" / "stocks" / "intc.sre").read_text(encoding="utf-8").strip()
RUNS = [("time window", SREMO, "inclusive", "time slices"),
        ("count window", WAYEB, "strict", "slices by position")]


@pytest.fixture
def eight_kib_splits(spark):
    """Files read in splits of 8 KiB: the 69 KB file is nine Spark partitions."""
    with small_splits(spark, 8192):
        yield


def _matches(frame, text, window, *, tasks=6):
    run = prepare(frame, Query.parse(text, policy="stream", reading=window), engine="srt",
                  tasks=tasks)
    return sorted(collect_matches(run.matches())), run.explain()


@pytest.mark.parametrize("limit", [None, 700])
@pytest.mark.parametrize(("label", "text", "window", "cut"), RUNS)
def test_direct_slices_equal_the_general_layout_and_one_process(spark, eight_kib_splits, label,
                                                                 text, window, cut, limit):
    frame = read_events(spark, str(STOCKS), limit=limit)
    assert frame.splits is not None and len(frame.splits.scanned.spans) > 5
    cache = frame.splits.scanned.cache
    assert cache is not None and len(os.listdir(cache)) == len(frame.splits.scanned.spans)
    direct, said = _matches(frame, text, window)
    assert cut in said and "read straight from the parsed splits" in said
    general, said = _matches(dataclasses.replace(frame, splits=None), text, window)
    assert "read straight" not in said
    s = load_events(STOCKS, limit=limit)
    pattern = detect_language(text).parse(text, label)
    query = Query.of(pattern, policy="stream", time_unit=s.time_unit, reading=window)
    expected = sorted(engine("srt").compile(query).run(s))
    assert len(expected) >= 5
    assert direct == general == expected
    shutil.rmtree(cache)        # the engine stage parses the text again
    assert _matches(frame, text, window)[0] == expected


def test_splits_are_parsed_again_where_the_scratch_directory_is_not_seen(spark, eight_kib_splits,
                                                                           monkeypatch,
                                                                           tmp_path):
    """An executor on another machine: the driver's directory does not exist there, so
    the reading tasks write nothing and the engine stage parses its splits."""
    elsewhere = tmp_path / "not-here"
    monkeypatch.setattr(split_cache, "scratch", lambda: str(elsewhere))
    frame = read_events(spark, str(STOCKS))
    assert frame.splits is not None and frame.splits.scanned.cache == str(elsewhere)
    got = {label: _matches(frame, text, window)[0] for label, text, window, _ in RUNS}
    assert not elsewhere.exists()
    monkeypatch.undo()
    frame = read_events(spark, str(STOCKS))
    assert got == {label: _matches(frame, text, window)[0] for label, text, window, _ in RUNS}


def test_a_frame_whose_dataframe_was_changed_is_not_read_from_the_splits(spark):
    frame = read_events(spark, str(STOCKS))
    first = dataclasses.replace(frame, df=frame.df.filter(frame.df[frame.position] < 600),
                                count=600)
    got, said = _matches(first, SREMO, "inclusive")
    assert "time slices" in said and "read straight" not in said
    s = load_events(STOCKS, limit=600)
    pattern = detect_language(SREMO).parse(SREMO, "<sremo>")
    query = Query.of(pattern, policy="stream", time_unit=s.time_unit)
    expected = sorted(engine("srt").compile(query).run(s))
    assert got == expected and len(expected) < len(_matches(frame, SREMO, "inclusive")[0])


def test_the_direct_rows_reach_the_driver_in_arrow_files_as_spark_collects_them(
        spark, eight_kib_splits, monkeypatch, tmp_path):
    """``collect_matches`` on a direct plan: the engine tasks hand their rows over in
    Arrow files (issue 33 item 2), the same rows as Spark's ``collect`` of the same
    DataFrame; a task that fails after writing its first rows is tried again and only
    the attempt that succeeded counts; a DataFrame derived from the match DataFrame
    goes through Spark."""
    frame = read_events(spark, str(STOCKS))
    query = Query.parse(SREMO, policy="stream")
    run = prepare(frame, query, engine="srt", tasks=6)
    table = direct_write.collected(run.matches())
    assert table is not None and table.schema == run.task.schema
    by_spark = sorted(tuple(r) for r in run.matches().collect())
    assert len(by_spark) >= 15
    assert sorted(tuple(r.values()) for r in table.to_pylist()) == by_spark
    assert direct_write.collected(run.matches().filter("position >= 0")) is None
    (tmp_path / "a").mkdir()
    part = int(direct_write._files(run_of(run), str(tmp_path / "a"), "arrow")[0][5:10])
    monkeypatch.setenv(FAIL_ONCE, str(part))      # a partition that has rows fails once
    failing = prepare(frame, query, engine="srt", tasks=6)
    assert failing.task.fail_once == part
    staging = tmp_path / "b"
    staging.mkdir()
    kept = direct_write._files(run_of(failing), str(staging), "arrow")
    left = sorted(set(os.listdir(staging)) - set(kept))
    assert [name[:13] for name in left] == [f"part-{part:05d}-0-"]    # the failed attempt's
    assert f"part-{part:05d}-1-" in " ".join(kept)
    again = direct_write.collected(failing.matches())
    assert again is not None
    assert sorted(tuple(r.values()) for r in again.to_pylist()) == by_spark


def run_of(prepared):
    """The direct run behind a prepared run's match DataFrame."""
    return direct_write.writable(prepared.matches(), "/nowhere/m.parquet", "parquet",
                                 "overwrite")


@pytest.mark.parametrize(("values", "bounds", "reach", "tau"), [
    (list(range(0, 60)), (10, 25, 40), (1, 1), 3),                  # positions
    ([0.5 * i for i in range(80)], (7.25, 19.0, 30.5), (0, 1), 2.5),  # float timestamps
    (list(range(0, 50, 2)), (12, 14, 30), (2, 0), 4),                # overlapping reaches
])
def test_extent_holds_the_rows_that_slice_column_sends_to_the_slice(spark, values, bounds,
                                                                       reach, tau):
    from pyspark.sql import functions as F

    df = spark.createDataFrame([(v,) for v in values], "x double" if isinstance(
        values[0], float) else "x bigint")
    rows = df.select("x", F.explode(slice_column(F.col("x"), bounds, reach, tau)).alias("j"))
    by_spark = sorted((r["j"], r["x"]) for r in rows.collect())
    by_extent = sorted((j, v) for j in range(len(bounds) + 1) for v in values
                       if extent(bounds, reach, tau, j)[0] <= v <= extent(bounds, reach, tau,
                                                                          j)[1])
    assert by_spark == by_extent
    assert len(by_spark) > len(values)       # the slices do overlap
