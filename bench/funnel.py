"""``python -m bench funnel``: the partitioned funnel as SES and as an operator pattern.

Issue 29 item 2 and issue 33 item 4: the same funnel, ``examples/funnel/funnel.ses``
and ``examples/funnel/funnel.op`` (``SEQ(view v, cart c, purchase p) PARTITION BY
user WITHIN 30 minutes``), end to end (``kleene match --count`` in a fresh process:
start-up, load and matching), one process, on the click log of
``examples/funnel/make_clicks.py`` (1,000,000 rows, 50,000 users; ``--quick``
100,000 rows), written into a temporary folder. For each policy (``next``,
``partition-contiguous``, ``any``) it prints both forms' CPU and wall seconds,
their match counts, whether their match sets are equal (the JSON lines of
``kleene match`` compared), and the operator / SES ratio of CPU seconds (the
aim: at most 2), with the load average before and after. A form whose policy no
engine claims is printed with kleene's one-line refusal.

Issue 29 item 4: on the full 1,000,000 rows (or with ``spark=True``) a second table
times the SES form under ``next`` in one process against ``kleene match --spark
--master 'local[2]'`` on the same file in the same run, with Spark's start-up as its
own line says it (``Spark ready in S s``) and the ratio (the aim: at most 3). The
smaller runs (``--quick``, the tests' 3,000 rows) leave Spark out: its start-up alone
is tens of seconds.
"""

from __future__ import annotations

import hashlib
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench.peers import fresh_env
from bench.report import OUT_DIR, Table, emit

ROOT = Path(__file__).resolve().parent.parent
FUNNEL = ROOT / "examples" / "funnel"
POLICIES = ("next", "partition-contiguous", "any")
ROWS, QUICK_ROWS, USERS = 1_000_000, 100_000, 50_000
#: The Spark row's master and policy (issue 29 item 4: "the 1 M-row funnel on local[2]").
SPARK_MASTER, SPARK_POLICY = "local[2]", "next"


@dataclass
class Run:
    """One ``kleene match`` run: CPU and wall seconds, its matches' count and digest
    (``None`` if refused: then ``said`` is kleene's message)."""

    cpu: float
    wall: float
    count: int | None
    digest: str
    said: str


def generate(folder: Path, rows: int, users: int = USERS) -> Path:
    """The click log, by the documented command."""
    path = folder / f"clicks-{rows}.csv"
    subprocess.run([sys.executable, str(FUNNEL / "make_clicks.py"), "--rows", str(rows),
                    "--users", str(users), "--output", str(path)], check=True)
    return path


def match(pattern: Path, events: Path, policy: str) -> Run:
    """``kleene match`` over ``events`` in a fresh process, its JSON lines digested."""
    cmd = [sys.executable, "-m", "kleene", "match", "-q", "--pattern", str(pattern),
           "--events", str(events), "--policy", policy]
    if pattern.suffix == ".op":
        cmd += ["--type-field", "action"]
    before, started = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, check=False, env=fresh_env())
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode != 0:
        return Run(cpu, wall, None, "", done.stderr.strip().splitlines()[-1][:160])
    lines = sorted(done.stdout.splitlines())
    return Run(cpu, wall, len(lines), hashlib.sha256("\n".join(lines).encode()).hexdigest(), "")


def tree_ticks(root: int) -> dict[int, tuple[str, int]]:
    """Each process under ``root`` (``root`` too): its command name and its CPU ticks,
    user and system, with those of its children it waited for (Linux ``/proc``; none
    elsewhere)."""
    parents: dict[int, int] = {}
    seen: dict[int, tuple[str, int]] = {}
    try:
        names = [n for n in os.listdir("/proc") if n.isdigit()]
    except OSError:
        return {}
    for name in names:
        try:
            with open(f"/proc/{name}/stat", encoding="ascii", errors="replace") as f:
                head, tail = f.read().rsplit(")", 1)
        except OSError:          # the process ended meanwhile
            continue
        fields = tail.split()
        parents[int(name)] = int(fields[1])
        seen[int(name)] = (head.split("(", 1)[1], sum(int(x) for x in fields[11:15]))
    out, todo = {}, [root]
    while todo:
        pid = todo.pop()
        if pid in seen:
            out[pid] = seen[pid]
            todo.extend(c for c, parent in parents.items() if parent == pid)
    return out


def sampled(cmd: list[str], every: float = 0.5) -> tuple[subprocess.CompletedProcess[str],
                                                           float, dict[str, float]]:
    """Run ``cmd`` with its process tree's CPU sampled every ``every`` seconds (a Spark
    run's JVM and Python workers are not reaped by this process, so ``getrusage`` misses
    them): the finished run, its wall seconds, and the CPU seconds by command name (each
    process's last sample; at most ``every`` seconds of it missed)."""
    tick = os.sysconf("SC_CLK_TCK")
    last: dict[int, tuple[str, int]] = {}
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        started = time.perf_counter()
        child = subprocess.Popen(cmd, stdout=out, stderr=err, text=True, env=fresh_env())
        while child.poll() is None:
            last.update(tree_ticks(child.pid))
            time.sleep(every)
        wall = time.perf_counter() - started
        out.seek(0)
        err.seek(0)
        done = subprocess.CompletedProcess(cmd, child.returncode, out.read(), err.read())
    by_name: dict[str, float] = {}
    for name, ticks in last.values():
        by_name[name] = by_name.get(name, 0.0) + ticks / tick
    return done, wall, by_name


def startup(said: str) -> float | None:
    """Spark's start-up in seconds as ``kleene match --spark`` says it (``Spark ready in
    S s``), ``None`` if it said none."""
    found = re.search(r"Spark ready in ([0-9.]+) s", said)
    return float(found.group(1)) if found else None


def spark_table(events: Path, rows: int) -> Table:
    """The SES funnel under ``next`` in one process and on Spark ``local[2]``, one after
    the other on the same file (issue 29 item 4), each process tree's CPU sampled."""
    table = Table(f"the SES funnel under {SPARK_POLICY} on {rows:,} rows: one process and "
                  f"Spark {SPARK_MASTER}, end to end",
                  ["run", "wall s", "CPU s", "JVM CPU s", "Python CPU s", "Spark start-up s",
                   "matches", "same set", "wall / one process", "CPU / one process"])
    table.header.append(f"load average before: {load()}")
    base = [sys.executable, "-m", "kleene", "match", "-q", "--pattern",
            str(FUNNEL / "funnel.ses"), "--events", str(events), "--policy", SPARK_POLICY]
    runs = [("one process", base),
            (f"--spark --master {SPARK_MASTER}", [*base, "--spark", "--master", SPARK_MASTER])]
    first: tuple[float, float, str] | None = None
    for label, cmd in runs:
        done, wall, cpu = sampled(cmd)
        total = sum(cpu.values())
        jvm = sum(v for k, v in cpu.items() if k == "java")
        lines = sorted(done.stdout.splitlines()) if done.returncode == 0 else []
        digest = hashlib.sha256("\n".join(lines).encode()).hexdigest()
        if first is None:
            first = (wall, total, digest)
        table.add(label, wall, total, jvm, total - jvm, startup(done.stderr),
                  len(lines) if done.returncode == 0 else "failed",
                  "yes" if digest == first[2] else "NO", wall / first[0] if first[0] else None,
                  total / first[1] if first[1] else None)
        if done.returncode != 0:
            table.notes.append(f"{label}: {done.stderr.strip().splitlines()[-1][:160]}")
        print(f"  {label}: done (load average {load()})", flush=True)
    table.notes.append(f"load average after: {load()}; CPU: every process of the run's "
                       "tree, sampled every 0.5 s (/proc)")
    return table


def load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def run(quick: bool = False, rows: int | None = None, out_dir: Path = OUT_DIR,
        spark: bool | None = None) -> Table:
    """Both forms under every policy; with ``spark`` (default: on the full 1,000,000 rows
    only) the Spark table too."""
    n = rows if rows is not None else QUICK_ROWS if quick else ROWS
    with_spark = n >= ROWS if spark is None else spark
    before = load()
    with tempfile.TemporaryDirectory(prefix="kleene-funnel-") as tmp:
        started = time.perf_counter()
        events = generate(Path(tmp), n)
        size = events.stat().st_size / 1e6
        print(f"{events.name}: {n:,} rows, {USERS:,} users, {size:.1f} MB "
              f"(generated in {time.perf_counter() - started:.1f} s)", flush=True)
        table = Table(f"the funnel on {n:,} rows ({USERS:,} users), end to end: SES and "
                      "operator forms", ["policy", "SES CPU s", "SES wall s", "SES matches",
                                         "operator CPU s", "operator wall s",
                                         "operator matches", "same set", "operator / SES CPU"])
        for policy in POLICIES:
            ses = match(FUNNEL / "funnel.ses", events, policy)
            op = match(FUNNEL / "funnel.op", events, policy)
            both = ses.count is not None and op.count is not None
            table.add(policy, ses.cpu, ses.wall,
                      ses.count if ses.count is not None else "refused",
                      op.cpu, op.wall, op.count if op.count is not None else "refused",
                      ("yes" if ses.digest == op.digest else "NO") if both else "-",
                      op.cpu / ses.cpu if both and ses.cpu else None)
            table.notes += [f"{policy}, {form}: {r.said}" for form, r in (("SES", ses),
                                                                          ("operator", op))
                            if r.count is None]
            print(f"  {policy}: done (load average {load()})", flush=True)
        table.header.append(f"load average before: {before}")
        table.notes.append(f"load average after: {load()}")
        emit(table, "funnel", out_dir)
        if with_spark:
            emit(spark_table(events, n), "funnel_spark", out_dir)
    return table
