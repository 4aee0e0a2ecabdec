"""``python -m bench spark-mr-profile``: where Spark's seconds go on ``bench mr``'s two
``MATCH_RECOGNIZE`` queries (issue 30, item 4), the door Spark reads through against the
door where the Python tasks read the Parquet file themselves (:mod:`kleene.engines.spark.
mr_direct`).

The data and queries are :mod:`bench.mr`'s: the V shape and seq3 over the stock stream ×10
(``--quick``: ×1), one Parquet file. On each master (``local[1]``, ``local[2]``) each query
runs through two doors: ``general`` is the file's DataFrame behind a ``select('*')``
(not the plain scan, so the direct door does not claim it: Spark reads, shuffles or sorts,
and converts rows to Arrow for the tasks), ``direct`` the plain scan (the tasks read the
file). Per run: wall seconds and the CPU seconds of every process by kind (the driver,
the JVM, the Python workers: :func:`bench.spark_cpu.cpu_by_kind`), the least of
:data:`REPEATS`; and, from Spark's own event log of the same runs (one job group per
run), the tasks' run time and CPU time, the JVM's garbage collection and the shuffle's
write time, summed over the run's stages. What the JVM spends outside its tasks
(planning, code generation, scheduling) is the JVM's CPU less the tasks' CPU.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from bench.match_recognize import QUERIES, stock_table
from bench.match_recognize_peers import WARM_ROWS, write_file
from bench.mr import COPIES, replicated
from bench.report import Table, emit, load_average
from bench.spark_bench import use_master
from bench.spark_cpu import cpu_by_kind

#: Runs per (master, query, door); the least is printed.
REPEATS = 2
MASTERS = ("local[1]", "local[2]")
#: Spark's task metrics summed per run (event log name → column).
METRICS = {"internal.metrics.executorRunTime": ("tasks' run s", 1e3),
           "internal.metrics.executorCpuTime": ("tasks' CPU s", 1e9),
           "internal.metrics.jvmGCTime": ("GC s", 1e3),
           "internal.metrics.shuffle.write.writeTime": ("shuffle write s", 1e9)}


def stage_metrics(lines: Iterable[str]) -> dict[str, dict[str, float]]:
    """Spark's task metrics summed over the stages of each job group, from the lines of an
    uncompressed event log (JSON, one event a line): group → column → seconds. A stage
    belongs to the group of the job that listed it."""
    group_of: dict[int, str] = {}
    out: dict[str, dict[str, float]] = {}
    for line in lines:
        event = json.loads(line)
        if event["Event"] == "SparkListenerJobStart":
            group = (event.get("Properties") or {}).get("spark.jobGroup.id")
            for stage in event["Stage IDs"]:
                if group is not None:
                    group_of[stage] = group
        elif event["Event"] == "SparkListenerStageCompleted":
            info = event["Stage Info"]
            group = group_of.get(info["Stage ID"])
            if group is None:
                continue
            sums = out.setdefault(group, dict.fromkeys((c for c, _ in METRICS.values()), 0.0))
            for acc in info.get("Accumulables", []):
                if acc["Name"] in METRICS and acc.get("Value") is not None:
                    column, unit = METRICS[acc["Name"]]
                    sums[column] += int(acc["Value"]) / unit
    return out


def _door(spark: Any, path: Path, door: str) -> Any:
    frame = spark.read.parquet(str(path))
    return frame if door == "direct" else frame.select("*")


def run(quick: bool = False) -> Table:
    """Print and return the table (``quick``: the stock stream ×1)."""
    from kleene.engines.tables import match_recognize

    copies = 1 if quick else COPIES
    table = Table("Spark on bench mr's queries: where the seconds go, by door",
                  ["query", "master", "door", "rows", "wall s", "CPU s", "driver CPU s",
                   "JVM CPU s", "workers CPU s", *(c for c, _ in METRICS.values()),
                   "JVM outside tasks CPU s"],
                  header=[f"the stock stream ×{copies}, one Parquet file; the least of "
                          f"{REPEATS} runs; load average at start: {load_average()}"])
    with tempfile.TemporaryDirectory(prefix="kleene-mr-profile-") as tmp:
        folder = Path(tmp)
        rows = replicated(stock_table(), copies)
        data = write_file(rows, folder / "stocks.parquet")
        warm = write_file(rows.slice(0, WARM_ROWS), folder / "warm.parquet")
        for master in MASTERS:
            events = folder / f"events-{MASTERS.index(master)}"
            events.mkdir()
            spark, _ = use_master(master, {"spark.eventLog.enabled": "true",
                                           "spark.eventLog.dir": events.resolve().as_uri(),
                                           "spark.eventLog.compress": "false"})
            for sql in QUERIES.values():
                for door in ("general", "direct"):
                    match_recognize(_door(spark, warm, door), sql).collect()
            best: dict[tuple[str, str], tuple[float, dict[str, float], int, str]] = {}
            for query, sql in QUERIES.items():
                for door in ("general", "direct"):
                    for rep in range(REPEATS):
                        group = f"{query}|{door}|{rep}"
                        spark.sparkContext.setJobGroup(group, group)
                        before, began = cpu_by_kind(), time.perf_counter()
                        got = match_recognize(_door(spark, data, door), sql).collect()
                        wall, after = time.perf_counter() - began, cpu_by_kind()
                        cpu = {k: after[k] - before[k] for k in after}
                        if (query, door) not in best or wall < best[query, door][0]:
                            best[query, door] = (wall, cpu, len(got), group)
            spark.stop()
            # Spark 4 writes a folder per application, its events in files events_N_*
            metrics = stage_metrics(line for log in sorted(events.rglob("events_*"))
                                    if log.is_file()
                                    for line in log.read_text("utf-8").splitlines())
            for (query, door), (wall, cpu, n, group) in best.items():
                spark_says = metrics.get(group, {})
                tasks = [spark_says.get(c) for c, _ in METRICS.values()]
                outside = (cpu["jvm"] - tasks[1]) if tasks[1] is not None else None
                table.add(query, master, door, n, wall, sum(cpu.values()), cpu["driver"],
                          cpu["jvm"], cpu["workers"], *tasks, outside)
            print(f"  {master}: done (load average {load_average()})", flush=True)
    table.notes += [
        "general: the file behind select('*') (Spark reads, orders or shuffles, converts "
        "rows to Arrow); direct: the tasks read the file (kleene.engines.spark.mr_direct)",
        "tasks' run/CPU s, GC s, shuffle write s: Spark's event log, summed over the run's "
        "stages; the workers' Python CPU is in workers CPU s, not in the tasks' CPU",
        f"JVM outside tasks: the JVM's CPU less its tasks' (planning, code generation, "
        f"scheduling); load average at the end: {load_average()}"]
    emit(table, "spark_mr_profile")
    return table
