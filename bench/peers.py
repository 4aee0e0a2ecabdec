"""Kleene beside its peers on the real stock stream (issue 10): end to end and after load.

Workloads (the issue's): on the whole stock stream (224,473 events),

- seq3 = ``<{x}, {y}, {z}>``: a SELL of INTC, then a BUY of RIMM, then a BUY
  of QQQ at a higher price than x's (``z.price > x.price``);
- AND3 = ``<{x, y, z}>``: the same three events in any order;

each within 500 and 1000 ms, policy ``any``, by ``windows+ses`` (seed 001's
match windows around the SES automaton) and ``ses-automaton`` (seed 000's
automaton alone). Figures, each measured in this run:

- *text e2e*: seconds of ``kleene match --count`` on the gzip stock text, a
  fresh process (interpreter start, imports, load, match, print; the least of 3);
- *parquet e2e*: the same on the file ``kleene convert`` writes;
- *after load*: the engine's run alone, in this process, as events/s (the least
  CPU time of 3 runs: the machine is shared).

Seconds are CPU seconds (user + system) of the process, as in
:mod:`bench.measure`: the machine is shared, and wall time there measures the
neighbours. Arrow's readers use threads, so on an idle machine the wall
time of a load is at most its CPU time.

Ratios: to the plain-Python baseline measured here (one ``re`` match per
line of the same file: the cheapest row-by-row parse); to OpenCEP end to end,
run in this bench run on the same events at 500 ms (:mod:`bench.opencep`: its
checkout from ``KLEENE_OPENCEP`` or ``.peers/opencep/``; without one its cells
say "not run" and the header says how to provide it), with its match count
beside ours; to Wayeb's published figure (seed 004 Sec. 5.3 Fig. 2, one core:
about 1.3 M events/s on seq3; not rerun here: a JVM program) and to Kleene
before the columnar plane (loading 2.6 s; SES automaton 23.7 s and 37.5 s end
to end, main at that time: history, not rerun). Match counts stand beside each
figure: every configuration of a workload must report the same number.
"""

from __future__ import annotations

import gzip
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.report import Cell, Table, emit, load_average, ratio
from kleene.data.bundled import bundled
from kleene.data.loaders import load_events
from kleene.engines.registry import engine
from kleene.reference.query import Query
from kleene.reference.ses.text import parse_ses

#: Wayeb's published throughput (seed 004 Sec. 5.3 Fig. 2), events/s.
WAYEB_EVENTS_PER_S = 1.3e6
#: Kleene before the columnar plane (main, same machine): load, SES automaton end to end.
BEFORE_LOAD_S = 2.6
BEFORE_SES_S = {"seq3": 23.7, "AND3": 37.5}

_WHERE = ("WHERE x.type = 'SELL' AND x.name = 'INTC' AND y.type = 'BUY' AND y.name = 'RIMM' "
          "AND z.type = 'BUY' AND z.name = 'QQQ' AND z.price > x.price")
SHAPES = {"seq3": "<{x}, {y}, {z}>", "AND3": "<{x, y, z}>"}
ENGINES = ("windows+ses", "ses-automaton")
_LINE = re.compile(r"(\w+)\(id=(\d+),name=([\w.]+),volume=(\d+),price=([\d.]+),"
                   r"stock_time=(\d+)\)")


def pattern_text(shape: str, ms: int) -> str:
    """The SES text of workload ``shape`` within ``ms`` milliseconds."""
    return f"PATTERN {SHAPES[shape]}\n{_WHERE}\nWITHIN {ms} ms\n"


def python_parse_seconds(path: Path) -> float:
    """CPU seconds to parse every line of the stock file with one Python regex."""
    started = time.process_time()
    with gzip.open(path, "rt") as f:
        for line in f:
            m = _LINE.match(line)
            if m is not None:
                (m.group(1), int(m.group(2)), m.group(3), int(m.group(4)), float(m.group(5)),
                 int(m.group(6)))
    return time.process_time() - started


def fresh_env() -> dict[str, str]:
    """The environment of a user's fresh process: this one's, except that Python
    writes and reads its bytecode caches (a sandbox may set PYTHONDONTWRITEBYTECODE,
    which recompiles every Kleene module at each start: 0.07-0.1 s; an installed
    package has its ``.pyc`` files)."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def timed(cmd: list[str]) -> tuple[float, float, str]:
    """CPU seconds (user + system), wall seconds and stdout of ``cmd`` in a fresh
    process with :func:`fresh_env`."""
    before, started = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, check=False, env=fresh_env())
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {done.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, done.stdout


def cli_seconds(pattern: Path, events: Path, eng: str, limit: int | None,
                repeats: int = 3) -> tuple[float, float, int]:
    """The least CPU seconds (user + system) and the least wall seconds of ``repeats``
    runs of ``kleene match --count`` in a fresh process (after one run that writes
    the bytecode caches), and its match count."""
    cmd = [sys.executable, "-m", "kleene", "match", "--pattern", str(pattern), "--events",
           str(events), "--policy", "any", "--engine", eng, "--count"]
    if limit is not None:
        cmd += ["--limit", str(limit)]
    timed(cmd)
    runs = [timed(cmd) for _ in range(repeats)]
    return min(r[0] for r in runs), min(r[1] for r in runs), int(runs[-1][2].strip())


#: What a fresh ``kleene match --engine windows+ses`` imports before it reads a file.
KLEENE_IMPORTS = ("import kleene.cli.match, pyarrow.compute, pyarrow.parquet; "
                  "from kleene.engines.registry import engine; engine('windows+ses')")
#: Python with the libraries every load needs, and no Kleene: the floor below Kleene.
LIBRARY_IMPORTS = "import numpy, pyarrow, pyarrow.compute, pyarrow.csv, pyarrow.parquet"


def startup_seconds(code: str = KLEENE_IMPORTS) -> float:
    """CPU seconds of a fresh process that runs ``code`` (default: imports what
    ``kleene match --engine windows+ses`` imports before it reads a file: the
    interpreter, NumPy, pyarrow, Kleene's modules, the engine): the floor of every
    *e2e* figure. NumPy's OpenBLAS threads are off, as in the ``kleene`` program."""
    cmd = [sys.executable, "-c", f"import os; os.environ['OPENBLAS_NUM_THREADS'] = '1'; {code}"]
    return timed(cmd)[0]


def after_load_seconds(compiled: Any, stream: Any, repeats: int = 3) -> tuple[float, int]:
    """The least CPU seconds of ``repeats`` runs of ``compiled`` on ``stream`` (the
    machine is shared: the least is the run the neighbours disturbed least) and the
    number of matches."""
    best, found = float("inf"), 0
    for _ in range(repeats):
        started = time.process_time()
        found = sum(1 for _ in compiled.run(stream))
        best = min(best, time.process_time() - started)
    return best, found


def run(quick: bool = False) -> None:
    """Print the load table and the peers table; write them to ``out/bench/``."""
    from bench.opencep import NOT_RUN, OpenCEP, matches_cell

    data = bundled("stocks.stream.gz")
    limit = 20_000 if quick else None
    windows = (500,) if quick else (500, 1000)
    engines = ENGINES[:1] if quick else ENGINES
    repeats = 1 if quick else 3
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        parquet = work / "stocks.parquet"
        regex_s = python_parse_seconds(data)
        floor_s = min(startup_seconds() for _ in range(3))
        libraries_s = min(startup_seconds(LIBRARY_IMPORTS) for _ in range(3))
        bare_s = min(startup_seconds("pass") for _ in range(3))
        loads = _load_table(data, parquet, limit, regex_s)
        emit(loads, "peers_load")
        stream = load_events(data, limit=limit)
        n = len(stream)
        opencep = OpenCEP(work, data, limit, repeats)
        table = Table(
            title="Kleene and its peers on the stock stream (policy any, --count, CPU s)",
            columns=("workload", "engine", "matches", "text e2e s", "parquet e2e s",
                     "text / parquet e2e wall s", "after load s", "after load ev/s",
                     "text e2e / regex parse", "OpenCEP matches", "OpenCEP e2e s",
                     "OpenCEP e2e wall s", "OpenCEP / text e2e", "OpenCEP / parquet e2e",
                     "OpenCEP / text e2e wall", "after load / Wayeb"),
            header=[f"stream: {data.name} ({n:,} events); plain-Python regex parse of the "
                    f"file {regex_s:.2f} s ({224_473 / regex_s:,.0f} events/s); load average "
                    f"at start: {load_average()}", opencep.header()])
        for shape in SHAPES:
            for ms in windows:
                text = pattern_text(shape, ms)
                path = work / f"{shape}_{ms}.ses"
                path.write_text(text, encoding="utf-8")
                for eng in engines:
                    compiled = engine(eng).compile(Query.of(parse_ses(text), policy="any",
                                                            time_unit=stream.time_unit))
                    sum(1 for _ in compiled.run(load_events(data, limit=1000)))   # warm up
                    after, found = after_load_seconds(compiled, stream, repeats)
                    text_s, text_wall, k1 = cli_seconds(path, data, eng, limit, repeats)
                    parquet_s, parquet_wall, k2 = cli_seconds(path, parquet, eng, limit,
                                                              repeats)
                    counts = {found, k1, k2}
                    peer: tuple[Cell, ...] = (None,) * 6
                    if ms == 500 and eng == "windows+ses":
                        oc = opencep.run(shape, ms)
                        peer = (matches_cell(oc, found),) + (
                            (NOT_RUN,) * 5 if oc is None else
                            (oc.cpu, oc.wall, ratio(oc.cpu, text_s), ratio(oc.cpu, parquet_s),
                             ratio(oc.wall, text_wall)))
                    table.add(f"{shape} {ms} ms", eng,
                              found if len(counts) == 1 else f"DIFFER {sorted(counts)}",
                              text_s, parquet_s, f"{text_wall:.2f} / {parquet_wall:.2f}",
                              after, n / after, ratio(text_s, regex_s), *peer,
                              ratio(n / after, WAYEB_EVENTS_PER_S))
        table.notes += [
            f"startup floor of every e2e figure (a process importing what kleene match "
            f"--engine windows+ses imports: Python, NumPy, pyarrow, Kleene, the engine; best "
            f"of 3): {floor_s:.2f} s; of which Python alone {bare_s:.2f} s, Python with "
            f"NumPy and pyarrow (compute, csv, parquet) {libraries_s:.2f} s",
            "e2e: the least of 3 fresh processes (after one that writes the bytecode "
            "caches), CPU s (user + system, all threads); wall s beside; after load: the "
            "least of 3 runs in this process (the machine is shared: the least is the run "
            "disturbed least)",
            "OpenCEP: end to end in a fresh process on the same events (bench/opencep.py), "
            "CPU s (one thread) and wall s; its ratios: OpenCEP's CPU s / ours, and its wall "
            "s / our text e2e wall s; Wayeb: "
            "~1.3 M events/s (seed 004 Fig. 2, published, not rerun)",
            f"before the columnar plane: ses-automaton end to end seq3 "
            f"{BEFORE_SES_S['seq3']} s, AND3 {BEFORE_SES_S['AND3']} s (500 ms)",
            "targets: text e2e ≥ 10× OpenCEP, parquet e2e ≥ 20×, after load ≥ 1.5 M "
            "events/s (windows+ses), ses-automaton ≥ 5× faster than before",
            f"load average at the end: {load_average()}"]
        emit(table, "peers")


def _load_table(data: Path, parquet: Path, limit: int | None, regex_s: float) -> Table:
    """Loading alone: the stock text, then the Parquet file ``kleene convert`` writes."""
    from kleene.cli import main as kleene

    load_events(data, limit=10)          # warm up: imports and Arrow's first kernels
    started = time.process_time()
    stream = load_events(data, limit=limit)
    text_s = time.process_time() - started
    with open(os.devnull, "w") as sink:
        saved, sys.stdout = sys.stdout, sink
        try:
            args = ["convert", str(data), "-o", str(parquet)]
            kleene(args + (["--limit", str(limit)] if limit is not None else []))
        finally:
            sys.stdout = saved
    started = time.process_time()
    again = load_events(parquet)
    parquet_s = time.process_time() - started
    n = len(stream)
    assert len(again) == n
    table = Table(title="Loading the stock stream (in process, imports excluded, CPU s)",
                  columns=("source", "events", "seconds", "events/s", "vs before (2.6 s)",
                           "vs regex parse"),
                  header=[f"before the columnar plane: {BEFORE_LOAD_S} s for the whole "
                          "stream (one Python Event per row); targets ≥ 10× (text), ≥ 50× "
                          "(Parquet)"])
    scale = n / 224_473
    table.add("stock text (gzip)", n, text_s, n / text_s, ratio(BEFORE_LOAD_S * scale, text_s),
              ratio(regex_s, text_s))
    table.add("Parquet (kleene convert)", n, parquet_s, n / parquet_s,
              ratio(BEFORE_LOAD_S * scale, parquet_s), ratio(regex_s, parquet_s))
    return table


def spark_run(quick: bool = False) -> None:
    """``python -m bench peers-spark``: the workloads above on the stock stream ×10
    (2.2 M events; ×1 and the first 20,000 events with ``quick``), single process
    (load + run, wall seconds) against Spark ``local[2]`` (read, check, number,
    filter, partition, run, write the matches as Parquet; the session's start not
    counted), for the SES engines; the same matches compared by canonical id. The
    aim (issue 10): Spark within 3× of the single process."""
    from bench.spark_bench import (
        OUT_DIR,
        WARM_UP_EVENTS,
        Run,
        on_spark,
        replicated,
        single_process,
        use_master,
        warm_up,
    )

    copies, limit = (1, 20_000) if quick else (10, None)
    path = replicated(copies)
    windows = (500,) if quick else (500, 1000)
    runs = [Run(f"{shape} {ms} ms", eng, pattern_text(shape, ms), "any")
            for shape in SHAPES for ms in windows for eng in ENGINES]
    load = load_average()
    table = Table(
        title="The stock stream ×10 on Spark local[2] against one process (policy any, wall s)",
        columns=("workload", "engine", "matches", "single s (load + run)", "of which load s",
                 "local[2] s", "local[2] / single", "same matches"),
        header=[f"events: {limit or 224_473 * copies:,} ({path.name}); load average at "
                f"start: {load} (2 cores shared)"])
    singles = {}
    for r in runs:
        singles[(r.label, r.engine)] = single_process(path, r, limit)
    spark, start = use_master("local[2]")
    warm = warm_up(spark, path, runs[0], "peers-spark-warm-up.parquet")
    for r in runs:
        loaded, ran, ids = singles[(r.label, r.engine)]
        slug = f"{r.label.replace(' ', '-')}-{r.engine}"
        seconds, on = on_spark(spark, path, r, limit, OUT_DIR / f"peers-spark-{slug}.parquet")
        table.add(r.label, r.engine, len(ids), loaded + ran, loaded, seconds,
                  ratio(seconds, loaded + ran), on == ids)
    table.notes += [f"session start (not counted): {start:.1f} s; a first query on "
                    f"{WARM_UP_EVENTS:,} events (not counted: starts the Python workers): "
                    f"{warm:.1f} s",
                    "aim (issue 10): local[2] / single ≤ 3 with the same matches"]
    emit(table, "peers_spark")
