"""What one ``mapInArrow`` task costs beside its work: loopback TCP against Unix sockets.

``python -m bench spark-tasks``. Every engine stage of the Spark runner is a
``mapInArrow`` over a few partitions, so a fixed cost per task is paid 4 to 8
times per query (and once per partition of every streaming micro-batch). Here a
stage of tasks that each read one row and write 100 is timed on ``local[1]``,
in a session whose Python workers talk to the JVM over loopback TCP (Spark's
default) and in one over Unix domain sockets (Kleene's choice for local
masters, :data:`kleene.engines.spark.session.UNIX_SOCKETS`). The figure per
task is the stage's wall milliseconds over its tasks, the least of the repeats after
one stage not counted; the ratio is measured in this run.
"""

from __future__ import annotations

import time
from typing import Any

from bench.report import Table, emit, ratio
from kleene.engines.spark.session import UNIX_SOCKETS, session

MASTER = "local[1]"


def _hundred(batches: Any) -> Any:
    import pyarrow as pa

    for _ in batches:
        yield pa.RecordBatch.from_pydict({"x": list(range(100))})


def _stage_seconds(spark: Any, tasks: int) -> float:
    started = time.perf_counter()
    (spark.range(0, tasks, 1, tasks).mapInArrow(_hundred, "x long")
     .write.format("noop").mode("overwrite").save())
    return time.perf_counter() - started


def per_task(unix: bool, tasks: int, repeats: int) -> tuple[float, float]:
    """Wall seconds per task of a stage of ``tasks`` trivial tasks (least of
    ``repeats`` after one not counted), and the session's start in seconds."""
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        active.stop()
    started = time.perf_counter()
    spark = session(MASTER, config={UNIX_SOCKETS: "true" if unix else "false"})
    start = time.perf_counter() - started
    _stage_seconds(spark, tasks)
    best = min(_stage_seconds(spark, tasks) for _ in range(repeats))
    spark.stop()
    return best / tasks, start


def run(quick: bool = False) -> list[Table]:
    """The table; prints it and writes ``out/bench/spark_tasks.csv``."""
    tasks, repeats = (4, 2) if quick else (16, 5)
    table = Table(f"A mapInArrow task's fixed cost on {MASTER}: loopback TCP vs Unix sockets",
                  ["channel", "tasks per stage", "ms per task"])
    tcp, tcp_start = per_task(False, tasks, repeats)
    unix, unix_start = per_task(True, tasks, repeats)
    table.add("loopback TCP (Spark's default)", tasks, 1000 * tcp)
    table.add("Unix domain sockets (Kleene's local default)", tasks, 1000 * unix)
    table.header = [f"each task reads one row and writes 100 to Spark's noop sink; least of "
                    f"{repeats} stages after one not counted"]
    table.notes = [f"TCP / Unix sockets per task: {ratio(tcp, unix):.1f}×",
                   f"session starts (not counted): {tcp_start:.1f} s, {unix_start:.1f} s"]
    emit(table, "spark_tasks")
    return [table]
