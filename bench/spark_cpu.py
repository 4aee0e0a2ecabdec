"""Where the CPU of ``kleene match --spark`` goes, against one process (issue 33 item 2).

``python -m bench spark-cpu``. The stock stream ×100 (22 M events, :func:`replicated`)
and two queries: Wayeb's ``stock_reg1.sre`` (seq3, ``srt``, 500 ms, policy ``stream``)
and seq3 of :mod:`bench.peers` in SES (``windows+ses``, policy ``any``). Each is run

- in one process, as ``kleene match`` runs it (a fresh process, its matches listed to a
  file; the events read in batches from a million on): CPU seconds from ``wait4``;
- on Spark, as ``kleene match --spark`` runs it (:mod:`kleene.cli.spark`: read, plan,
  the engine stage, the rows collected to the driver, the lines written), step by step
  in this process, with the CPU seconds of each kind of process read from ``/proc``
  before and after each step (:func:`cpu_by_kind`): the driver (this Python), the JVM,
  and its Python workers (the daemon and every worker it forked, the ones that ended
  included). The steps: the session's start; the reading job (each task parses its
  split, types it and writes it to the scratch directory); the plan; the engine stage
  alone (to Spark's ``noop`` sink: a run of its own, not counted in the total); the
  same stage with its rows collected to the driver and regrouped into matches (the
  collect is the difference); the lines written.

The machine is shared (2 cores): CPU seconds, not wall seconds, say what each path
costs; the load average is printed beside them. ``--quick``: the stock stream ×1.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.peers import fresh_env, pattern_text
from bench.report import Table, emit, ratio
from bench.spark_bench import replicated, use_master
from kleene.data.bundled import bundled

QUERIES = Path(__file__).resolve().parents[1] / "data" / "datasets" / "wayeb-queries"
KINDS = ("driver", "jvm", "workers")
#: Issue 33 item 2: Spark's total CPU within this factor of one process's.
AIM = 1.3
#: The masters with executors as processes (issue 33 item 2): the speed-up per executor.
CLUSTERS = ("local-cluster[2,1,2048]", "local-cluster[4,1,1024]")
#: The step that runs the engine stage a second time, alone (not in the total).
NOT_COUNTED = "engine stage alone (noop sink; not counted)"


@dataclass(frozen=True)
class Workload:
    """One query as ``kleene match`` takes it: its label and its arguments."""

    label: str
    argv: tuple[str, ...]


def workloads(folder: Path) -> list[Workload]:
    """``srt`` on Wayeb's reg1 at 500 ms and ``windows+ses`` on seq3 at 500 ms."""
    seq3 = folder / "seq3.ses"
    seq3.write_text(pattern_text("seq3", 500), encoding="utf-8")
    return [Workload("srt reg1 (.sre, 500 ms)",
                     ("--pattern", str(QUERIES / "stock_reg1.sre"), "--window", "500")),
            Workload("seq3 SES (500 ms)", ("--pattern", str(seq3)))]


def _stat(pid: int) -> tuple[int, str, int] | None:
    """(parent, command, user + system ticks of the process and its waited-for
    children) of ``pid``, or ``None`` when it ended."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            text = f.read()
    except OSError:
        return None
    head, tail = text.rsplit(")", 1)
    fields = tail.split()
    return int(fields[1]), head.split("(", 1)[1], sum(int(x) for x in fields[11:15])


def cpu_by_kind(root: int | None = None) -> dict[str, float]:
    """CPU seconds so far of the process ``root`` (default: this one) and every process
    under it, by kind: ``driver`` (``root`` itself), ``jvm`` (a ``java`` process) and
    ``workers`` (anything under the JVM: PySpark's daemon and its workers, those that
    ended and were waited for included). Linux ``/proc``."""
    tick = os.sysconf("SC_CLK_TCK")
    stats: dict[int, tuple[int, str, int]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            found = _stat(int(name))
            if found is not None:
                stats[int(name)] = found
    children: dict[int, list[int]] = {}
    for pid, (parent, _, _) in stats.items():
        children.setdefault(parent, []).append(pid)
    out = dict.fromkeys(KINDS, 0.0)
    start = root or os.getpid()
    todo = [(start, "driver")]
    while todo:
        pid, kind = todo.pop()
        if pid not in stats:
            continue
        _, command, ticks = stats[pid]
        if pid == start:
            # the driver's own ticks: its children that exited (the JVM's launcher) are
            # not its work
            ticks = _own_ticks(pid)
        elif command == "java":
            kind = "jvm"
        elif kind == "jvm":
            kind = "workers"
        out[kind] += ticks / tick
        todo.extend((child, "workers" if kind == "workers" else kind)
                    for child in children.get(pid, ()))
    return out


def _own_ticks(pid: int) -> int:
    with open(f"/proc/{pid}/stat", encoding="ascii") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def single(argv: list[str], out: Path) -> tuple[float, float, int]:
    """CPU and wall seconds of ``kleene match ARGV`` in a fresh process, and its lines."""
    started = time.perf_counter()
    with open(out, "wb") as sink:
        child = subprocess.Popen([sys.executable, "-m", "kleene", "match", *argv, "-q"],
                                 stdout=sink, stderr=subprocess.DEVNULL, env=fresh_env())
        _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"kleene match {' '.join(argv)} failed")
    with open(out, "rb") as f:
        lines = sum(1 for _ in f)
    return usage.ru_utime + usage.ru_stime, wall, lines


class Steps:
    """The CPU seconds of each kind of process, and the wall seconds, step by step."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, dict[str, float], float]] = []

    def run(self, name: str, step: Callable[[], Any]) -> Any:
        before, started = cpu_by_kind(), time.perf_counter()
        value = step()
        wall = time.perf_counter() - started
        after = cpu_by_kind()
        self.rows.append((name, {k: after[k] - before[k] for k in KINDS}, wall))
        return value


def on_spark(events: str, workload: Workload, out: Path, master: str,
             spark: Any | None, alone: bool = True) -> tuple[Steps, Any, int]:
    """``kleene match --spark`` step by step (see the module docstring; ``alone``: with
    the engine stage run alone too); the steps, the session, and the lines written."""
    from kleene.cli.common import canonical_order
    from kleene.engines.spark.frames import read_events
    from kleene.engines.spark.plan import attributes_read
    from kleene.engines.spark.runner import collect_matches, prepare
    from kleene.engines.spark.session import session

    steps = Steps()
    if spark is None:
        spark = steps.run("start (JVM, session)", lambda: session(master, one_query=True))
    else:
        steps.rows.append(("start (JVM, session)", dict.fromkeys(KINDS, 0.0), 0.0))
    query = _query(workload)
    frame = steps.run("read (parse, type, cache the splits)", lambda: read_events(
        spark, events, time_unit=query.time_unit, require=attributes_read(query.pattern)))
    prepared = steps.run("plan", lambda: prepare(frame, query))
    if alone:
        steps.run(NOT_COUNTED, lambda: prepared.matches().write.format("noop")
                  .mode("overwrite").save())
    found = steps.run("engine stage + collect + regroup",
                      lambda: collect_matches(prepared.matches()))
    with open(out, "w", encoding="utf-8") as sink:
        steps.run("print the lines", lambda: sink.writelines(
            m.dumps() + "\n" for m in canonical_order(found)))
    return steps, spark, len(found)


def _query(workload: Workload) -> Any:
    """The query ``kleene match`` decides for ``workload`` (its pattern file, ``--window``)."""
    from kleene.cli import build_parser
    from kleene.cli.common import query_of

    args = build_parser("match").parse_args(["match", "--events", "-", *workload.argv])
    return query_of(args)


def executors(master: str) -> int:
    """The executor processes of ``master``: N of ``local-cluster[N,C,M]``, else one
    (``local[K]``: the driver's JVM)."""
    found = re.fullmatch(r"local-cluster\[(\d+),\s*\d+,\s*\d+\]", master)
    return int(found.group(1)) if found else 1


def registered(spark: Any, n: int, timeout: float = 600.0) -> float:
    """Wait until ``n`` executors have registered with ``spark``'s driver (a
    ``local-cluster`` starts them after the session); the seconds waited."""
    started = time.perf_counter()
    status = spark.sparkContext._jsc.sc().getExecutorMemoryStatus
    while status().size() < n + 1 and time.perf_counter() - started < timeout:  # + driver
        time.sleep(0.5)
    return time.perf_counter() - started


def scaling(events: str, ws: list[Workload], folder: Path,
            singles: dict[str, tuple[float, float, int]], masters: Sequence[str]) -> Table:
    """Each workload end to end as ``kleene match --spark`` runs it (read, plan, the
    engine stage collected, the lines) on each master, against one process: the wall
    and CPU seconds, the speed-up (one process's wall over Spark's) and the speed-up per
    executor (the speed-up over the executors). The session's start is timed apart."""
    table = Table("kleene match --spark on local[2] and local-cluster (executors as "
                  "processes) against one process",
                  ["workload", "master", "executors", "start s", "wall s", "CPU s",
                   "speed-up", "speed-up per executor", "same count"])
    for master in masters:
        spark, start = use_master(master)
        start += registered(spark, executors(master) if master.startswith("local-") else 0)
        for w in ws:
            steps, spark, found = on_spark(events, w, folder / "scaled.jsonl", master, spark,
                                           alone=False)
            wall = sum(row[2] for row in steps.rows)
            cpu = sum(sum(row[1].values()) for row in steps.rows)
            _, wall1, lines1 = singles[w.label]
            n = executors(master)
            table.add(w.label, master, n, start, wall, cpu, ratio(wall1, wall),
                      ratio(wall1, wall * n), found == lines1)
            start = 0.0
        spark.stop()
    table.notes = ["start s: the session (JVM, cluster) until every executor has registered, "
                   "once per master (local[2]: the session of the tables above, 0); wall s "
                   "and CPU s: "
                   "read, plan, engine stage + collect, lines (every process of the run)",
                   "speed-up: one process's wall s / Spark's; per executor: that over the "
                   "executors (local[2]: one, the driver's JVM with 2 task slots)",
                   "local-cluster[N,C,M]: N workers in the driver's JVM, each starting an "
                   "executor JVM of C cores and M MB (the pyspark wheel's bin/spark-class)",
                   "the first workload on each master meets a cold JVM (its JIT), the next "
                   "a warm one"]
    return table


def run(quick: bool = False) -> list[Table]:
    """The table per workload and the scaling table; prints them and writes
    ``out/bench/spark_cpu*.csv``."""
    events = str(bundled("stocks.stream.gz") if quick else replicated(100))
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    tables = []
    spark = None
    singles: dict[str, tuple[float, float, int]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        ws = workloads(folder)
        for w in ws:
            cpu1, wall1, lines1 = single([*w.argv, "--events", events], folder / "one.jsonl")
            singles[w.label] = (cpu1, wall1, lines1)
            steps, spark, found = on_spark(events, w, folder / "spark.jsonl", "local[2]", spark)
            table = Table(f"kleene match --spark local[2] step by step: {w.label}",
                          ["step", "driver CPU s", "JVM CPU s", "workers CPU s", "CPU s",
                           "wall s"])
            total = dict.fromkeys(KINDS, 0.0)
            walls = 0.0
            for name, cpu, wall in steps.rows:
                table.add(name, cpu["driver"], cpu["jvm"], cpu["workers"], sum(cpu.values()),
                          wall)
                if name != NOT_COUNTED:
                    walls += wall
                    for k in KINDS:
                        total[k] += cpu[k]
            counted = sum(total.values())
            table.add("Spark, in all", total["driver"], total["jvm"], total["workers"],
                      counted, walls)
            table.add("one process (kleene match, fresh)", None, None, None, cpu1, wall1)
            table.header = [f"{events}; load average at start: {load} (2 cores, shared)",
                            f"matches: one process {lines1:,} lines, Spark {found:,}"]
            start = sum(steps.rows[0][1].values())
            table.notes = [f"Spark CPU / one process CPU: {ratio(counted, cpu1):.2f}×; "
                           f"without the start: {ratio(counted - start, cpu1):.2f}× (aim "
                           f"≤ {AIM}×)",
                           "the first workload starts the session; the next ones reuse it"]
            emit(table, "spark_cpu_" + w.label.split()[0])
            tables.append(table)
        table = scaling(events, ws, folder, singles, ("local[2]", *CLUSTERS))
        table.header = [f"{events}; load average at start: {load} (2 cores, shared)"]
        emit(table, "spark_cpu_scaling")
        tables.append(table)
    return tables
