"""``python -m bench mr``: ``MATCH_RECOGNIZE`` on the stock stream ×10, one process against
Spark ``local[1]`` and ``local[2]``, and Kleene against Flink SQL and pandas-match-recognize
(issue 30, item 4; issue 26, "Performance"), every figure from one run.

The data: the stock stream (224,473 rows, :func:`bench.match_recognize.stock_table`) ten
times over, each copy's ``stock_time`` moved past the previous copy's last and its ``id``
past the previous copy's largest, so the order ``stock_time, id`` stays total (2,244,730
rows; ``--quick``: the first :data:`QUICK_ROWS` rows twice). It is written once, before
anything is timed, as Parquet and as CSV (:func:`bench.match_recognize_peers.write_file`;
Flink reads the CSV file without its header line). The queries are
:data:`bench.match_recognize.QUERIES` (the V shape, ``PARTITION BY name``; ``seq3``, no
``PARTITION BY``).

Per query, wall seconds end to end from the file to the rows out:

- ``kleene`` on each file (``kleene.match_recognize(path, sql)``: DuckDB reads, a CSV file
  by Arrow under DuckDB's sniffed types where that reads the same, the
  ``match-recognize`` engine recognizes, DuckDB runs the ``SELECT``), the least of
  :data:`~bench.match_recognize.REPEATS` runs; and ``kleene, after load`` (the engine alone
  over the Arrow table in memory, the rows/s the issue asks ≥ 1 M of);
- ``spark local[1]`` and ``spark local[2]`` (``kleene.match_recognize(spark.read.parquet(
  path), sql)`` collected to the driver: the Python tasks read the Parquet file themselves,
  :mod:`kleene.engines.spark.mr_direct`, each ``PARTITION BY`` key's rows matched in one
  task, seq3 in ranges), the least of :data:`SPARK_REPEATS` runs; the session's start and a
  first query on :data:`~bench.match_recognize_peers.WARM_ROWS` rows (the Python workers
  started, the JVM warmed) are the *cold start*, said apart and not counted;
- ``pandas-match-recognize`` and ``flink sql`` (batch, parallelism 1) on the CSV file, as
  ``python -m bench match-recognize --peers`` runs them (:mod:`bench.match_recognize_peers`),
  each after a first run on the warm file, the least of :data:`PEER_REPEATS`.

Beside Kleene's and Spark's figures, the CPU seconds of one run (the mean of the repeats;
Spark's by kind of process, :func:`bench.spark_cpu.cpu_by_kind`: the driver, the JVM, its
Python workers). Every engine's rows out are compared with the single process's on
Parquet (a multiset, floats to 9 digits; the first differing row said). The load average
(1 minute) is read after each figure and printed beside it: the machine is shared, and a
figure taken at load 8 is not one taken at load 1. ``--quick`` skips Spark (a session
costs seconds; the Spark part is tested on its own, :func:`spark_rows`).
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from bench.match_recognize import QUERIES, REPEATS, stock_table
from bench.match_recognize_peers import (
    INSTALL,
    WARM_ROWS,
    difference,
    headerless,
    installed,
    peer_message,
    peer_run,
    read_file,
    rows_of,
    timed,
    write_file,
)
from bench.report import Table, emit, ratio
from kleene.conformance.adapters.native import DECLINES
from kleene.engines.match_recognize.recognition import CompiledRecognition
from kleene.engines.tables import match_recognize
from kleene.reference.match_recognize.parser import parse_statement

#: Copies of the stock stream (issue 30: ×10).
COPIES = 10
#: ``--quick``: the first rows of the stream, twice.
QUICK_ROWS = 5_000
#: Runs of each Spark query and of each peer (the least is reported).
SPARK_REPEATS = 2
PEER_REPEATS = 1
#: The peers' names as the table says them.
PEER_NAMES = {"pmr": "pandas-match-recognize", "flink": "flink sql"}

Row = tuple[object, ...]


def replicated(table: pa.Table, copies: int) -> pa.Table:
    """``table`` ``copies`` times, each copy's ``stock_time`` and ``id`` moved past the
    previous copy's (the module docstring)."""
    times, ids = table.column("stock_time"), table.column("id")
    span = pc.max(times).as_py() - pc.min(times).as_py() + 1
    id_span = pc.max(ids).as_py() + 1
    parts = []
    for k in range(copies):
        part = table.set_column(table.schema.get_field_index("stock_time"), "stock_time",
                                pc.add(times, k * span))
        parts.append(part.set_column(part.schema.get_field_index("id"), "id",
                                     pc.add(ids, k * id_span)))
    return pa.concat_tables(parts).combine_chunks()


def load() -> float:
    """The 1-minute load average."""
    return os.getloadavg()[0]


def spark_rows(spark: Any, path: Path, sql: str) -> list[Row]:
    """The statement over the Parquet file ``path`` on ``spark``, collected (end to end)."""
    frame = match_recognize(spark.read.parquet(str(path)), sql)
    return [tuple(row) for row in frame.collect()]


def after_load(path: Path, sql: str) -> tuple[float, int]:
    """The engine alone over the file's Arrow table in memory: the least seconds of
    :data:`REPEATS` runs (after one on the first rows: numba's loop loaded) and the rows."""
    table = read_file(path)
    engine = CompiledRecognition(parse_statement(sql).recognitions[0].clause)
    engine.recognize(table.slice(0, WARM_ROWS))
    seconds, _ = timed(partial(engine.recognize, table), REPEATS)
    return seconds, table.num_rows


class Run:
    """One run of the bench: its table and the single process's rows per query."""

    def __init__(self, rows: int, copies: int) -> None:
        self.table = Table(
            "MATCH_RECOGNIZE on the stock stream: one process, Spark and the peers "
            "(wall s, end to end from the file)",
            ["query", "engine", "file", "rows out", "same rows", "seconds",
             "/ kleene", "load avg", "notes"],
            header=[f"{rows:,} rows (the stock stream ×{copies}); Kleene the least of "
                    f"{REPEATS} runs, Spark of {SPARK_REPEATS}, each peer of {PEER_REPEATS}"])
        self.expected: dict[str, list[Row]] = {}
        self.kleene: dict[tuple[str, str], float] = {}

    def add(self, query: str, engine: str, form: str, got: list[Row] | None,
            seconds: float | None, note: str = "", same: str | bool | None = None) -> None:
        if same is None and got is not None:
            differs = difference(self.expected[query], got)
            same = True if differs is None else f"DIFFER: {differs}"
        base = self.kleene.get((query, form)) or self.kleene.get((query, "parquet"))
        self.table.add(query, engine, form, None if got is None else len(got), same, seconds,
                       None if seconds is None or base is None or engine.startswith("kleene")
                       else ratio(seconds, base), round(load(), 1), note)


def run(quick: bool) -> None:
    """Print the table (module docstring) and write it to ``out/bench/mr.csv``."""
    copies = 2 if quick else COPIES
    stocks = replicated(stock_table(QUICK_ROWS if quick else None), copies)
    peers, missing = installed()
    if missing:
        print(f"(peers {', '.join(missing)} not installed: `{INSTALL}` installs them)\n")
    out = Run(stocks.num_rows, copies)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            files = {form: write_file(stocks, Path(tmp) / f"stocks.{form}")
                     for form in ("parquet", "csv")}
            warm = {form: write_file(stocks.slice(0, WARM_ROWS), Path(tmp) / f"warm.{form}")
                    for form in ("parquet", "csv")}
            headerless(files["csv"])
            headerless(warm["csv"])
            for query, sql in QUERIES.items():
                _kleene(out, query, sql, files, warm)
                _peers(out, query, sql, files["csv"], warm["csv"], stocks.schema, peers)
            if quick:
                out.table.notes.append("--quick: Spark not run")
            else:
                _spark(out, files["parquet"], warm["parquet"])
    finally:
        for backend in peers.values():
            backend.close()
    out.table.notes += [
        "aims: kleene after load >= 1 M rows/s; pandas-match-recognize / kleene >= 10, "
        "flink sql / kleene > 1 (same file, CSV); spark local[2] / local[1] speed-up >= 1.6, "
        "local[1] / kleene single process <= 2 (same Parquet file)",
        "same rows: against the single process on Parquet, as a multiset",
        "load avg: the 1-minute load average just after the figure (2 cores, shared)"]
    emit(out.table, "mr")


def _kleene(out: Run, query: str, sql: str, files: dict[str, Path],
            warm: dict[str, Path]) -> None:
    for form, path in files.items():
        match_recognize(warm[form], sql)   # DuckDB's reader and numba's loop loaded
        before = os.times()
        seconds, table = timed(partial(match_recognize, path, sql), REPEATS)
        after = os.times()
        cpu = (after.user + after.system - before.user - before.system) / REPEATS
        got = rows_of(table)
        if form == "parquet":
            out.expected[query] = got
        out.kleene[(query, form)] = seconds
        out.add(query, "kleene", form, got, seconds, f"CPU s per run {cpu:.2f}")
    seconds, rows = after_load(files["parquet"], sql)
    out.add(query, "kleene, after load", "(Arrow)", None, seconds,
            f"{rows / seconds / 1e6:.2f} M rows/s", same="")


def _peers(out: Run, query: str, sql: str, path: Path, warm: Path, schema: pa.Schema,
           peers: dict[str, Any]) -> None:
    for name, backend in peers.items():
        try:
            first, _ = timed(partial(peer_run, backend, peer_message(name, sql, warm, schema)),
                             1)
            seconds, (got, parts) = timed(
                partial(peer_run, backend, peer_message(name, sql, path, schema)),
                PEER_REPEATS)
        except (RuntimeError, OSError, ValueError) as err:
            verdict = "declined" if DECLINES.search(str(err)) else "failed"
            out.add(query, PEER_NAMES[name], "csv", None, None,
                    f"{verdict}: {' '.join(str(err).split())[:120]}", same="")
            continue
        note = ", ".join(f"{k} {v:.2f}" for k, v in parts.items())
        out.add(query, PEER_NAMES[name], "csv", got, seconds,
                f"{note} (first run, {WARM_ROWS:,} rows: {first:.1f} s)")


def _spark(out: Run, path: Path, warm: Path) -> None:
    # lazy: PySpark only when the Spark part runs
    from bench.spark_bench import use_master
    from bench.spark_cpu import cpu_by_kind

    starts: list[str] = []
    for master in ("local[1]", "local[2]"):
        spark, start = use_master(master)
        began = time.perf_counter()
        for sql in QUERIES.values():
            spark_rows(spark, warm, sql)
        where = "" if not starts else " (a new context in the JVM local[1] started)"
        starts.append(f"{master}: session {start:.1f} s{where}, first queries on "
                      f"{WARM_ROWS:,} rows {time.perf_counter() - began:.1f} s")
        for query, sql in QUERIES.items():
            run: Callable[[], list[Row]] = partial(spark_rows, spark, path, sql)
            before = cpu_by_kind()
            seconds, got = timed(run, SPARK_REPEATS)
            after = cpu_by_kind()
            cpu = [(after[k] - before[k]) / SPARK_REPEATS for k in after]
            out.add(query, f"spark {master}", "parquet", got, seconds, _spark_note(
                out, query, master, seconds) + f"; CPU s per run {sum(cpu):.2f} (driver + "
                f"JVM + workers: {' + '.join(f'{c:.2f}' for c in cpu)})")
    out.table.notes.append("cold start (not counted): " + "; ".join(starts))


def _spark_note(out: Run, query: str, master: str, seconds: float) -> str:
    """``local[1]`` against the single process, ``local[2]`` against ``local[1]``."""
    if master == "local[1]":
        single = out.kleene[(query, "parquet")]
        out.kleene[(query, "local[1]")] = seconds
        return f"local[1] / single process {ratio(seconds, single):.2f}"
    one = out.kleene[(query, "local[1]")]
    return f"speed-up local[2] over local[1] {ratio(one, seconds):.2f}"
