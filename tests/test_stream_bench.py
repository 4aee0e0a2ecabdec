"""The bookkeeping of the paced streaming benchmark (bench/stream_paced.py), by hand:
which micro-batch read which file, each file's lag, the sustained rate, and the
parts of a micro-batch (pure Python); and the check of its matches against one
process (a Spark DataFrame of match rows)."""

from __future__ import annotations

import pyarrow as pa

from bench.stream_paced import Paced, _parts
from kleene.engines.spark.stream import Progress


def _progress(batch: int, events: int, job: float = 0.0) -> Progress:
    return Progress(batch, events, 0, 0, 0, 0, 0.0, 0.0, job_s=job, driver_s=0.25,
                    sink_s=0.05)


def test_files_are_attributed_to_the_micro_batch_that_read_them():
    # 4 files of 10 events (rows 0–9, 10–19, 20–29, 30–39) arriving at t = 0, 1, 2, 3;
    # micro-batch 0 (committed at 1.5) reads file 0 and 1, batch 1 (at 4.0) files 2 and 3.
    run = Paced(files=4, events=40, every=1.0, arrivals=[0.0, 1.0, 2.0, 3.0],
                ends=[9, 19, 29, 39], commits=[(1.5, _progress(0, 20, 1.0)),
                                               (4.0, _progress(1, 20, 2.0))])
    assert run.read_at() == [1.5, 1.5, 4.0, 4.0]
    assert run.lags() == [1.5, 0.5, 2.0, 1.0]
    assert run.sustained() == 40 / 4.0
    assert run.feed_rate() == 30 / 3.0        # the events after the first file's, over 3 s
    run.reports = [{"batchId": 0, "durationMs": {"triggerExecution": 1500, "addBatch": 1400}}]
    first = run.batches()[0]
    assert first["trigger"] == 1.5 and first["job"] == 1.0
    assert abs(first["streaming"] - 0.1) < 1e-9                    # trigger − foreachBatch
    assert abs(first["foreachBatch"] - (1.4 - 1.0 - 0.25 - 0.05)) < 1e-9
    second = run.batches()[1]                                      # no report for batch 1
    assert second["trigger"] != second["trigger"] and second["driver"] == 0.25


def test_a_file_not_yet_read_has_no_commit():
    run = Paced(files=2, events=20, every=1.0, arrivals=[0.0, 1.0], ends=[9, 19],
                commits=[(0.5, _progress(0, 10))])
    read = run.read_at()
    assert read[0] == 0.5 and read[1] != read[1]                   # nan


def test_parts_cut_the_repeated_stream_into_equal_files():
    # ts 0..4 (span 5): copy c is shifted by 5c; files of 3 rows run across copies.
    table = pa.table({"ts": pa.array([0, 1, 2, 3, 4], pa.int64()), "type": list("ABCDE")})
    parts = list(_parts(table, 3, 4))
    assert [p.column("ts").to_pylist() for p in parts] == [
        [0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11]]
    assert parts[1].column("type").to_pylist() == ["D", "E", "A"]


class _Run:
    """What :func:`bench.stream_paced.same_as_batch` reads of a ContinuousMatch."""

    def __init__(self, spark, frontier, rows):
        from types import SimpleNamespace

        self.store = SimpleNamespace(latest=lambda: SimpleNamespace(frontier=frontier))
        self.frame = spark.createDataFrame(
            rows, "match_id STRING, first BIGINT, variable STRING, position BIGINT")

    def matches(self):
        return self.frame


def test_the_paced_run_is_checked_against_one_process(spark):
    from bench.stream_paced import same_as_batch

    pattern = "PATTERN <{a}, {b}> WHERE a.L = 'A' AND b.L = 'B' WITHIN 10\n"
    parts = [pa.table({"ts": [0, 1], "L": ["A", "B"]}), pa.table({"ts": [2, 3], "L": ["A", "B"]})]
    # by hand, under any: (a0, b1), (a0, b3), (a2, b3); frontier 2: the first two are final
    rows = [("m1", 0, "a", 0), ("m1", 0, "b", 1), ("m2", 0, "a", 0), ("m2", 0, "b", 3)]
    assert same_as_batch(_Run(spark, 2, rows), iter(parts), pattern) == (2, 2, True)
    extra = [*rows, ("m3", 2, "a", 2), ("m3", 2, "b", 3)]       # not final yet: written early
    assert same_as_batch(_Run(spark, 2, extra), iter(parts), pattern) == (3, 2, False)
    twice = [*rows, ("m4", 0, "a", 0), ("m4", 0, "b", 1)]       # (a0, b1) written twice
    assert same_as_batch(_Run(spark, 2, twice), iter(parts), pattern) == (3, 2, False)
    assert same_as_batch(_Run(spark, 2, rows[:2]), iter(parts), pattern) == (1, 2, False)
