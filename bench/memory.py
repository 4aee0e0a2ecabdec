"""Peak memory of ``kleene match`` per path (issue 33, items 3 and 5; docs/memory.md):
``python -m bench memory``.

Each row is one ``kleene match`` in a fresh process, its matches listed to a file
(JSON Lines, as a user redirects them), measured from outside: peak resident memory of
that process (``wait4``'s ``ru_maxrss``), CPU seconds (user + system) and wall seconds.
Workload: seq3 of :mod:`bench.peers` (a SELL of INTC, a BUY of RIMM, a BUY of QQQ above
x's price) on the stock stream ×1 (the bundled file, 224,473 events) and ×100 (22 M
events, written once to ``out/bench/``: :func:`bench.spark_bench.replicated`).

- *default*: ``kleene match`` as a user runs it (from about a million events, the
  events are read in batches: :mod:`kleene.cli.reading`);
- *loaded whole*: the same with the rule's threshold out of reach, the path every
  run took before (``kleene.cli.reading.BATCHED_FROM`` set above any file);
- *--stream*: batches asked for;
- *--output .parquet*: the enumeration's matches written as Parquet (long layout: a row
  per match, variable and event), sorted in spilled runs
  and written a batch at a time (:func:`kleene.cli.results.sorted_rows`).

The enumeration rows list many matches (seq3 at 10 s: 345,742 on ×1; at 60 s:
12,002,544), held a run at a time (:mod:`kleene.cli.listing`). ``--quick``: ×1 only,
and the enumeration on the first 20,000 events. The load average is printed beside:
the machine is shared, so wall seconds vary; peak memory does not.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyarrow.parquet as pq

from bench.peers import fresh_env, pattern_text
from bench.report import Table, emit
from bench.spark_bench import replicated
from kleene.data.bundled import bundled

#: Runs ``kleene match`` with ``kleene.cli.reading.BATCHED_FROM`` out of reach.
_WHOLE = ("import sys; import kleene.cli.reading as r; r.BATCHED_FROM = 1 << 62; "
          "from kleene.cli import main; sys.exit(main(sys.argv[1:]))")
#: The enumeration's row written to a file: ``--output matches.parquet`` (long layout).
OUTPUT = "--output .parquet"
#: The enumeration's --budget: above 12 M matches.
BUDGET = 100_000_000


def peak(argv: list[str], out: Path, whole: bool = False) -> tuple[int, float, float, float]:
    """Exit code, peak MB, CPU s and wall s of ``kleene ARGV`` in a process of its own,
    its standard output written to ``out``."""
    cmd = [sys.executable, "-c", _WHOLE, *argv] if whole else \
        [sys.executable, "-m", "kleene", *argv]
    started = time.perf_counter()
    with open(out, "wb") as sink:
        child = subprocess.Popen(cmd, stdout=sink, stderr=subprocess.DEVNULL, env=fresh_env())
        _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    return (child.returncode, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime, wall)


def written_matches(path: Path) -> int:
    """The matches of a long-layout Parquet output: its largest ``match`` number plus one
    (from the row groups' statistics; the matches are numbered from 0)."""
    meta = pq.ParquetFile(path).metadata
    column = meta.schema.names.index("match")
    stats = [meta.row_group(i).column(column).statistics for i in range(meta.num_row_groups)]
    return max((int(s.max) + 1 for s in stats if s is not None and s.has_min_max), default=0)


def run(quick: bool = False) -> Table:
    """Print the table; write it to ``out/bench/memory.csv``."""
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    table = Table("kleene match: peak memory per path (matches listed to a file)",
                  ["stream", "window", "matches", "path", "peak MB", "CPU s", "wall s"],
                  header=[f"seq3 of bench.peers, policy any; load average at start: {load} "
                          "(2 cores; other processes share them)"])
    inputs = [("×1", str(bundled("stocks.stream.gz")))]
    if not quick:
        inputs.append(("×100", str(replicated(100))))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        rows: list[tuple[str, str, int, str, list[str], bool]] = []
        for label, path in inputs:
            for name, more, whole in (("default", [], False), ("loaded whole", [], True),
                                      ("--stream", ["--stream"], False)):
                rows.append((label, path, 500, name, more, whole))
        listing = ["--limit", "20000"] if quick else []
        label = "×1" + (" (20,000 events)" if quick else "")
        parquet = ["--output", str(folder / "matches.parquet"), "--overwrite"]
        rows.append((label, inputs[0][1], 10_000, "default", listing, False))
        rows.append((label, inputs[0][1], 10_000, OUTPUT, listing + parquet, False))
        if not quick:
            rows.append(("×1", inputs[0][1], 60_000, "default", [], False))
            rows.append(("×1", inputs[0][1], 60_000, OUTPUT, parquet, False))
        for label, path, ms, name, more, whole in rows:
            query = folder / f"seq3-{ms}.ses"
            query.write_text(pattern_text("seq3", ms), encoding="utf-8")
            out = folder / "matches.jsonl"
            argv = ["match", "--pattern", str(query), "--events", path, "-q",
                    "--budget", str(BUDGET), *more]
            code, mb, cpu, wall = peak(argv, out, whole)
            if code != 0:
                lines: int | str = f"exit {code}"
            elif name == OUTPUT:
                lines = written_matches(folder / "matches.parquet")
            else:
                lines = sum(1 for _ in open(out, "rb"))
            table.add(label, f"{ms} ms", lines, name, mb, cpu, wall)
    table.notes = ["default: kleene match as a user runs it (from about 1 M events, read in "
                   "batches: kleene.cli.reading); loaded whole: the path before (the rule's "
                   "threshold out of reach); --stream: batches asked for",
                   "each row one fresh process, its stdout to a file; peak MB: its maximum "
                   "resident set (wait4)"]
    emit(table, "memory")
    return table
