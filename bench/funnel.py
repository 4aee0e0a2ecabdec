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
"""

from __future__ import annotations

import hashlib
import os
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


def load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def run(quick: bool = False, rows: int | None = None, out_dir: Path = OUT_DIR) -> Table:
    n = rows if rows is not None else QUICK_ROWS if quick else ROWS
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
    return table
