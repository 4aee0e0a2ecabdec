"""``python -m bench spark-mr-profile`` (bench/spark_mr_profile.py): Spark's task metrics
summed per job group from an event log, on lines written by hand in Spark's format."""

from __future__ import annotations

import json

from bench.spark_mr_profile import stage_metrics


def _stage(stage: int, run_ms: int, cpu_ns: int, gc_ms: int) -> str:
    return json.dumps({"Event": "SparkListenerStageCompleted", "Stage Info": {
        "Stage ID": stage, "Accumulables": [
            {"Name": "internal.metrics.executorRunTime", "Value": run_ms},
            {"Name": "internal.metrics.executorCpuTime", "Value": cpu_ns},
            {"Name": "internal.metrics.jvmGCTime", "Value": gc_ms},
            {"Name": "internal.metrics.input.recordsRead", "Value": 99}]}})


def test_the_stages_of_a_job_group_are_summed_and_other_groups_kept_apart() -> None:
    lines = [
        json.dumps({"Event": "SparkListenerJobStart", "Stage IDs": [0, 1],
                    "Properties": {"spark.jobGroup.id": "v|general|0"}}),
        json.dumps({"Event": "SparkListenerJobStart", "Stage IDs": [2],
                    "Properties": {"spark.jobGroup.id": "v|direct|0"}}),
        json.dumps({"Event": "SparkListenerJobStart", "Stage IDs": [3], "Properties": {}}),
        _stage(0, 1500, 1_000_000_000, 100),
        _stage(1, 500, 250_000_000, 0),
        _stage(2, 200, 50_000_000, 20),
        _stage(3, 9000, 9_000_000_000, 900),     # no group: a warm-up job, left out
    ]
    # by hand: the general run's two stages 1.5 + 0.5 s run, 1.0 + 0.25 s CPU, 0.1 s GC
    assert stage_metrics(lines) == {
        "v|general|0": {"tasks' run s": 2.0, "tasks' CPU s": 1.25, "GC s": 0.1,
                        "shuffle write s": 0.0},
        "v|direct|0": {"tasks' run s": 0.2, "tasks' CPU s": 0.05, "GC s": 0.02,
                       "shuffle write s": 0.0}}
