"""Exactly-once under crashes: ``kleene stream`` killed (SIGKILL) and restarted (issue 14, item 3).

A stream is replayed as files into a directory; ``kleene stream`` runs in a
subprocess of its own, one file per micro-batch, and is killed with SIGKILL
(not a polite stop) once ``after`` micro-batches have committed plus a random
delay (so the kill falls anywhere in the next batch: reading, matching,
writing the output, committing the state); then it is started again on the
same checkpoint and output with ``--once``. :func:`written_matches` reads the
output back without Spark; it must hold every match exactly once and equal
the reference's. ``python -m bench stream-faults`` does this at 10 random
kill points; ``tests/test_stream_restart.py`` at one.

Then **executor loss** in batch (:func:`executor_loss`): a ``local-cluster``
master (executors in JVMs of their own, as on a cluster), the keyed SES
pattern on the stock stream, and one executor's JVM killed with SIGKILL while
the engine stage runs; the matches must be those of the undisturbed run.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from kleene.engines.spark.runner import regroup
from kleene.reference.match import Match

#: Seconds a run (one JVM start and the micro-batches) may take before it is failed.
RUN_TIMEOUT = 900


def command(pattern: Path, source: Path, out: Path, checkpoint: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "kleene", "stream", "--pattern", str(pattern), "--source",
            str(source), "--output", str(out), "--checkpoint", str(checkpoint),
            "--master", "local[2]", *extra]


def committed(checkpoint: Path) -> int:
    """The micro-batches Kleene's state store committed so far."""
    root = checkpoint / "kleene"
    if not root.is_dir():
        return 0
    return max((int(p.name) + 1 for p in root.iterdir()
                if p.name.isdigit() and (p / "meta.json").exists()), default=0)


def latest_meta(checkpoint: Path) -> dict[str, Any]:
    """The meta of the last micro-batch Kleene's state store committed (``{}`` before
    any): its batch number, running counts, watermark and whether the stream ended."""
    done = committed(checkpoint)
    if not done:
        return {}
    meta: dict[str, Any] = json.loads((checkpoint / "kleene" / str(done - 1) / "meta.json")
                                      .read_text(encoding="utf-8"))
    return meta


def written_matches(out: Path) -> list[Match]:
    """Every match in the output folder (duplicates kept), read with pyarrow."""
    import pyarrow.dataset as ds

    if not out.exists() or not any(p.name.startswith("batch=") for p in out.iterdir()):
        return []
    fmt = "json" if out.name.endswith(".jsonl") else "parquet"
    table = ds.dataset(out, format=fmt, partitioning="hive").to_table(
        columns=["match_id", "variable", "position"])
    return regroup(table.to_pylist(), ()).get((), [])


@dataclass(frozen=True)
class Crash:
    """One kill: after how many committed batches, and how many had committed when the
    process died (the kill falls inside the next one)."""

    after: int
    delay: float
    committed_at_kill: int
    seconds: float


def kill_and_restart(cmd: list[str], checkpoint: Path, *, after: int, delay: float,
                     log: Path) -> Crash:
    """Run ``cmd`` (a continuous ``kleene stream``), SIGKILL it ``delay`` seconds after
    ``after`` batches committed, then run it again with ``--once`` to the end."""
    began = time.monotonic()
    with open(log, "ab") as err:
        proc = subprocess.Popen(cmd, stdout=err, stderr=err, start_new_session=True)
        try:
            while committed(checkpoint) < after:
                if proc.poll() is not None:
                    raise RuntimeError(f"kleene stream exited with {proc.returncode} before "
                                       f"the kill point; see {log}")
                if time.monotonic() - began > RUN_TIMEOUT:
                    raise TimeoutError(f"no {after} committed batches in {RUN_TIMEOUT} s")
                time.sleep(0.1)
            time.sleep(delay)
            at_kill = committed(checkpoint)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)   # the process and its Python workers
            proc.wait()
        done = subprocess.run([*cmd, "--once"], stdout=err, stderr=err, timeout=RUN_TIMEOUT,
                              check=False)
    if done.returncode != 0:
        raise RuntimeError(f"the restart exited with {done.returncode}; see {log}")
    return Crash(after, delay, at_kill, time.monotonic() - began)


def crash_points(n: int, files: int, rng: random.Random) -> list[tuple[int, float]]:
    """``n`` kill points: a committed-batch count in ``1..files−2`` and a delay (s; a
    micro-batch of this stream takes about a second here, so the kill falls inside one)."""
    return [(rng.randint(1, max(1, files - 2)), round(rng.uniform(0.0, 0.8), 2))
            for _ in range(n)]


class Killable(Protocol):
    """A stream replayed as files for ``kleene stream``: its command and checkpoint."""

    @property
    def checkpoint(self) -> Path: ...

    def command(self, *extra: str) -> list[str]: ...


def kill_points(table: Any, points: list[tuple[int, float]], rng: random.Random,
                make: Callable[[Path, int], Killable],
                tally: Callable[[Any], tuple[int, int, int]]) -> Any:
    """For each kill point (committed batches, delay): a stream made in a fresh folder
    (``make(folder, seed)``), ``kleene stream`` on it one file a micro-batch, killed there
    and restarted (:func:`kill_and_restart`); a row of ``table`` with what ``tally`` counts
    of the output (written, lost, duplicated). Returns ``table``."""
    import tempfile

    for after, delay in points:
        with tempfile.TemporaryDirectory() as tmp:
            case = make(Path(tmp), rng.randint(0, 99))
            crash = kill_and_restart(case.command("--max-files", "1"), case.checkpoint,
                                     after=after, delay=delay, log=Path(tmp) / "log")
            table.add(after, delay, crash.committed_at_kill, *tally(case), crash.seconds)
    return table


def run(quick: bool = False) -> None:
    """10 random kill points (3 with ``--quick``) on a generated stream; the table of
    lost and duplicated matches (all must be 0)."""
    from bench.report import Table, emit
    from bench.stream_spark import generated_case

    rng = random.Random(14)
    points = crash_points(3 if quick else 10, 8, rng)
    table = Table(title="kleene stream killed (SIGKILL) and restarted from its checkpoint",
                  columns=("kill after batches", "+ delay s", "batches committed at kill",
                           "matches", "lost", "duplicated", "seconds"),
                  header=["a generated stream of 400 events in 8 files, one per micro-batch; "
                          "expected: the reference's matches"])

    def tally(case: Any) -> tuple[int, int, int]:
        got = written_matches(case.out)
        return (len(got), len(case.expected - set(got)),
                len(got) - len(set(got)) + len(set(got) - case.expected))

    kill_points(table, points, rng,
                lambda folder, seed: generated_case(folder, events=400, files=8, seed=seed),
                tally)
    table.notes.append("lost: reference matches missing from the output; duplicated: "
                       "matches written twice or not in the reference")
    emit(table, "stream_faults")
    emit(executor_loss(quick), "spark_executor_loss")


#: The ``local-cluster`` master: 2 workers of 1 core and 1024 MB each.
CLUSTER = "local-cluster[2,1,1024]"


def _descendants(root: int) -> list[int]:
    """The processes below ``root`` (read from /proc): only processes this run started."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="utf-8") as f:
                    parents[int(entry)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    found, frontier = [], [root]
    while frontier:
        pid = frontier.pop()
        children = [c for c, p in parents.items() if p == pid]
        found += children
        frontier += children
    return found


def _executor_pids() -> list[int]:
    out = []
    for pid in _descendants(os.getpid()):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if b"CoarseGrainedExecutorBackend" in f.read():
                    out.append(pid)
        except OSError:
            continue
    return out


def executor_loss(quick: bool = False) -> Any:
    """The keyed SES pattern on the stock stream on ``local-cluster``: undisturbed, then
    with one executor's JVM killed (SIGKILL) once the engine stage has finished a task."""
    import threading

    from bench.report import Table
    from bench.spark_bench import KEYED, STOCKS, use_master
    from kleene.engines.spark import collect_matches, match_frame
    from kleene.engines.spark.frames import read_events

    events = 20_000 if quick else 200_000
    table = Table(title=f"batch on {CLUSTER}: one executor killed (SIGKILL) mid-job",
                  columns=("run", "matches", "lost", "duplicated", "executors killed",
                           "failed tasks", "seconds"),
                  header=[f"the keyed SES pattern (windows+ses, policy next), the first "
                          f"{events:,} events of the stock stream; session start not counted"])
    spark, start = use_master(CLUSTER)
    table.notes.append(f"session start: {start:.1f} s")
    sc = spark.sparkContext

    def run(group: str) -> list[Any]:
        sc.setJobGroup(group, group)
        try:
            frame = read_events(spark, str(STOCKS), limit=events)
            return collect_matches(match_frame(frame, KEYED, policy="next", tasks=8))
        finally:
            sc.setLocalProperty("spark.jobGroup.id", None)

    def failed(group: str) -> int:
        tracker = sc.statusTracker()
        return sum(info.numFailedTasks for job in tracker.getJobIdsForGroup(group)
                   for stage in tracker.getJobInfo(job).stageIds
                   if (info := tracker.getStageInfo(stage)) is not None)

    began = time.perf_counter()
    clean = run("clean")
    table.add("undisturbed", len(clean), 0, len(clean) - len(set(clean)), 0, failed("clean"),
              time.perf_counter() - began)
    result: dict[str, Any] = {}
    began = time.perf_counter()
    worker = threading.Thread(target=lambda: result.update(got=run("loss")))
    worker.start()
    killed = 0
    while worker.is_alive() and not killed:
        tracker = sc.statusTracker()
        stages = [tracker.getStageInfo(s) for s in tracker.getActiveStageIds()]
        if any(s is not None and s.numCompletedTasks >= 1 and s.numActiveTasks >= 1
               and s.numTasks >= 8 for s in stages):
            pids = _executor_pids()
            if pids:
                os.kill(pids[0], signal.SIGKILL)
                killed = 1
        time.sleep(0.2)
    worker.join(timeout=RUN_TIMEOUT)
    got = result.get("got", [])
    table.add("an executor killed", len(got), len(set(clean) - set(got)),
              len(got) - len(set(got)) + len(set(got) - set(clean)), killed, failed("loss"),
              time.perf_counter() - began)
    spark.stop()
    return table
