"""Continuous ``MATCH_RECOGNIZE``: ``kleene stream`` killed and restarted, and its latency
at a paced rate (issue 30, items 2 and 4; ``python -m bench stream-mr``).

The statement is the V shape of ``examples/ticks`` (:data:`STATEMENT`, with
``MATCH_NUMBER()`` so that every output row is distinct) over generated ticks
(:func:`ticks_table`: symbols whose prices walk at random, one row per time unit).

**Faults** (:func:`faults`): the ticks replayed as CSV files, ``kleene stream`` in a
process of its own killed with SIGKILL at random points and restarted from its
checkpoint (the machinery of :mod:`bench.stream_faults`); the rows written must be the
batch answer's, each once. **Latency** (:func:`latency`): Parquet files of ``rows``
ticks written every ``every`` seconds into the source while the query runs on
``local[2]``; an output row's latency runs from the arrival of the file holding its
match's last row to the commit of the micro-batch that wrote it.
"""

from __future__ import annotations

import os
import random
import statistics
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

STATEMENT = """\
SELECT * FROM ticks MATCH_RECOGNIZE (
  PARTITION BY sym
  ORDER BY ts
  MEASURES MATCH_NUMBER() AS n, FIRST(ts) AS start_ts, LAST(DOWN.ts) AS bottom_ts,
           LAST(ts) AS end_ts
  ONE ROW PER MATCH
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (STRT DOWN+ UP+)
  DEFINE DOWN AS price < PREV(price), UP AS price > PREV(price)
)
"""

Row = tuple[object, ...]


def ticks_table(seed: int, n: int, symbols: int = 8, start: int = 0) -> Any:
    """``n`` ticks from time ``start``: ``sym`` (one of ``symbols``), ``ts`` (one per row),
    ``price`` (each symbol's random walk, whole numbers: ties too)."""
    import pyarrow as pa

    rng = random.Random(seed)
    prices = [100] * symbols
    syms, ts, price = [], [], []
    for i in range(n):
        k = rng.randrange(symbols)
        prices[k] += rng.choice((-2, -1, 0, 1, 2))
        syms.append(f"S{k}")
        ts.append(start + i)
        price.append(prices[k])
    return pa.table({"sym": syms, "ts": pa.array(ts, pa.int64()),
                     "price": pa.array(price, pa.int64())})


def expected_rows(table: Any) -> list[Row]:
    """The batch answer of :data:`STATEMENT` over ``table`` (the engine, single process)."""
    from kleene.engines.match_recognize.recognition import CompiledRecognition
    from kleene.reference.match_recognize.parser import parse_statement

    clause = parse_statement(STATEMENT).recognitions[0].clause
    out = CompiledRecognition(clause).recognize(table)
    return [tuple(r.values()) for r in out.to_pylist()]


def written_rows(out: Path) -> list[Row]:
    """Every row in the output folder (duplicates kept), read with pyarrow."""
    import pyarrow.dataset as ds

    if not out.exists() or not any(p.name.startswith("batch=") for p in out.iterdir()):
        return []
    fmt = "json" if out.name.endswith(".jsonl") else "parquet"
    table = ds.dataset(out, format=fmt, partitioning="hive").to_table()
    return [tuple(v for k, v in r.items() if k != "batch") for r in table.to_pylist()]


@dataclass(frozen=True)
class Case:
    """Ticks replayed as CSV files for ``kleene stream``, and the batch answer."""

    statement: Path
    source: Path
    out: Path
    checkpoint: Path
    expected: list[Row]

    def command(self, *extra: str) -> list[str]:
        from bench.stream_faults import command

        return command(self.statement, self.source, self.out, self.checkpoint, *extra)


def mr_case(folder: Path, *, events: int, files: int, seed: int) -> Case:
    """:func:`ticks_table` cut at random rows into ``files`` CSV files."""
    from kleene.engines.spark.stream.replay import chop, cuts, write_part

    table = ticks_table(seed, events)
    source = folder / "in"
    source.mkdir(parents=True)
    for j, part in enumerate(chop(table, cuts(events, files, random.Random(seed)))):
        write_part(part, source, j, "csv")
    statement = folder / "v_shape.sql"
    statement.write_text(STATEMENT, encoding="utf-8")
    return Case(statement, source, folder / "out.parquet", folder / "ckpt",
                expected_rows(table))


def lost_and_twice(expected: list[Row], got: list[Row]) -> tuple[int, int]:
    """Rows of the batch answer missing from ``got``; rows of ``got`` beyond it."""
    want, have = Counter(expected), Counter(got)
    return sum((want - have).values()), sum((have - want).values())


def faults(quick: bool = False) -> Any:
    """10 random kill points (3 with ``quick``): the table of lost and duplicated rows."""
    from bench.report import Table
    from bench.stream_faults import crash_points, kill_points

    rng = random.Random(30)
    points = crash_points(3 if quick else 10, 8, rng)
    table = Table(title="kleene stream (MATCH_RECOGNIZE) killed (SIGKILL) and restarted",
                  columns=("kill after batches", "+ delay s", "batches committed at kill",
                           "rows", "lost", "duplicated", "seconds"),
                  header=["generated ticks, 400 rows in 8 CSV files, one per micro-batch; "
                          "expected: the batch answer"])

    def tally(case: Any) -> tuple[int, int, int]:
        got = written_rows(case.out)
        return (len(got), *lost_and_twice(case.expected, got))

    return kill_points(table, points, rng,
                       lambda folder, seed: mr_case(folder, events=400, files=8, seed=seed),
                       tally)


def latency(spark: Any, folder: Path, *, rows: int, every: float, seconds: float) -> Any:
    """Files of ``rows`` ticks every ``every`` s for ``seconds`` (moved in on the paced
    schedule of :func:`bench.stream_paced.feed`): the rows written, the rate the query
    kept up with, the latencies (module docstring) and each micro-batch's
    :class:`~kleene.engines.spark.stream.step.Progress` (its seconds by part)."""
    from bench.stream_paced import ddl, feed, staged
    from bench.stream_spark import latencies
    from kleene.engines.spark.stream.recognition import ContinuousRecognition
    from kleene.reference.query import Query

    source, out = folder / "in", folder / "out.parquet"
    source.mkdir(parents=True)
    files = max(2, int(seconds / every))
    parts = [ticks_table(j, rows, start=j * rows) for j in range(files)]
    names = staged(parts, folder / "staging")
    arrivals = [0.0] * files
    batches: list[Any] = []
    run = ContinuousRecognition(spark, str(source), Query.parse(STATEMENT), output=str(out),
                                checkpoint=str(folder / "ckpt"), format="parquet",
                                schema=ddl(parts[0]), on_progress=batches.append)
    query = run.start()
    t0 = time.time()
    feed(folder / "staging", source, names, every, t0, arrivals).join()
    last = files * rows - 1
    while run.store.latest().watermark < last and time.time() - t0 < 600:
        query.awaitTermination(0.5)
    query.stop()
    settled_at = time.time()
    found = sorted(latencies(out, arrivals, [(j + 1) * rows - 1 for j in range(files)],
                             _end_times))
    return len(found), files * rows / (settled_at - arrivals[0]), found, batches


def _end_times(folder: Path) -> list[int]:
    """The ``END_TS`` (a match's last row's time) of each output row of a ``batch=k``."""
    import pyarrow.dataset as ds

    table = ds.dataset(folder, format="parquet").to_table(columns=["END_TS"])
    return [int(v) for v in table.column(0).to_pylist()]


def run(quick: bool = False) -> None:
    """The latency table at paced rates on ``local[2]`` and the fault table."""
    from bench.report import Table, emit
    from kleene.engines.spark.session import session

    spark = session("local[2]")
    table = Table(title="kleene stream (MATCH_RECOGNIZE, the V shape) on local[2]: paced "
                        "Parquet files of generated ticks",
                  columns=("rows/s offered", "rows a file", "file every s", "output rows",
                           "rows/s kept up", "latency p50 s", "latency p99 s",
                           "micro-batches", "job s", "driver s", "sink s"))
    table.header = [f"load average at start: {', '.join(f'{x:.1f}' for x in os.getloadavg())}"
                    " (2 cores; other processes share them)"]
    paces = ((2_000, 1.0),) if quick else ((10_000, 1.0), (50_000, 1.0), (100_000, 1.0),
                                           (200_000, 1.0))
    for k, (rows, every) in enumerate(paces):
        with tempfile.TemporaryDirectory() as tmp:
            n, kept, lat, batches = latency(spark, Path(tmp) / str(k), rows=rows,
                                            every=every, seconds=4.0 if quick else 10.0)
            p50 = statistics.median(lat) if lat else float("nan")
            p99 = lat[min(len(lat) - 1, int(0.99 * len(lat)))] if lat else float("nan")
            table.add(rows / every, rows, every, n, kept, p50, p99, len(batches),
                      *(sum(getattr(b, part) for b in batches) / max(len(batches), 1)
                        for part in ("job_s", "driver_s", "sink_s")))
    table.notes.append("latency: from the arrival of the file holding a match's last row to "
                       "the commit of the micro-batch that wrote it; rows/s kept up: the rows "
                       "offered over the seconds until the watermark passed the last one; "
                       "job / driver / sink s: a micro-batch's wall seconds by part, the mean")
    emit(table, "stream_mr")
    emit(faults(quick), "stream_mr_faults")
