"""Continuous matching on Spark (issue 14, item 6): throughput and latency on ``local[2]``.

``python -m bench stream-spark``: the stock stream (seq3 of ``bench/peers.py``,
500 ms, policy ``any``) replayed as Parquet files into a directory.

- **Throughput**: every file present, ``kleene stream``'s query
  (:class:`~kleene.engines.spark.stream.ContinuousMatch`) with
  ``FILES_PER_BATCH`` files per micro-batch, to the end of the stream: events
  per wall second, JVM start excluded (one SparkSession for the run); then
  the **sustained** rate on the stock stream ×10 (``COPIES``: each copy's
  timestamps shifted past the previous copy's last one) as 10× as many files,
  with each of :data:`SUSTAINED` files per micro-batch: a larger micro-batch
  sustains more events per second and takes longer (the median time of one
  micro-batch stands beside each rate: a file arriving while one runs waits
  for it and the next).
- **Paced**: files of the stock stream repeated arrive at a steady 100 k, then
  150 k events/s for 60 s each while the query runs (:mod:`bench.stream_paced`):
  the sustained rate, latency p50/p99 and where a micro-batch's time goes.
- **Latency**: the query runs continuously while the files arrive one at a
  time, one every 2 s; a match's latency is the time from the arrival of the file holding
  its last event to the moment its ``batch=k`` folder was committed (which
  includes waiting for the watermark to pass ``first.ts + τ``: an event that
  late must arrive first); p50 and p99 over the matches.

:func:`generated_case` (a small generated stream with its reference matches)
is shared with ``bench/stream_faults.py`` and the kill/restart test.
"""

from __future__ import annotations

import os
import random
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kleene.data.bundled import bundled
from kleene.reference.match import Match

FILES_PER_BATCH = 4
COPIES = 10
#: Files per micro-batch of the sustained runs (stock ×10 as 240 files of 9,354 events).
SUSTAINED = (24, 60, 120)

GENERATED = ("PATTERN <{a, b+}, {c}> WHERE a.type = 'A' AND b.type = 'B' AND c.type = 'C' "
             "AND a.id = c.id WITHIN 6")


@dataclass(frozen=True)
class Case:
    """A replayed stream ready for ``kleene stream``, and the reference's matches."""

    pattern: Path
    source: Path
    out: Path
    checkpoint: Path
    expected: frozenset[Match]

    def command(self, *extra: str) -> list[str]:
        from bench.stream_faults import command

        return command(self.pattern, self.source, self.out, self.checkpoint, *extra)


def generated_table(seed: int, n: int) -> Any:
    """``n`` events: timestamps increasing with ties, types A–D, ids 1–3."""
    import pyarrow as pa

    rng = random.Random(seed)
    ts, types, ids, t = [], [], [], 0
    for _ in range(n):
        t += rng.choice((0, 1, 1, 2, 3))
        ts.append(t)
        types.append(rng.choice("ABCD"))
        ids.append(rng.randint(1, 3))
    return pa.table({"ts": pa.array(ts, pa.int64()), "type": types,
                     "id": pa.array(ids, pa.int64())})


def generated_case(folder: Path, *, events: int, files: int, seed: int) -> Case:
    """A generated stream cut at random rows into ``files`` CSV files, and the
    reference's matches of :data:`GENERATED` (policy ``any``) on the whole stream."""
    from kleene.conformance.differential import reference_matches
    from kleene.data.columnar import validated
    from kleene.engines.spark.stream.replay import chop, cuts, write_part
    from kleene.reference.events import Stream
    from kleene.reference.languages import detect_language

    table = generated_table(seed, events)
    source = folder / "in"
    source.mkdir(parents=True)
    for j, part in enumerate(chop(table, cuts(events, files, random.Random(seed)))):
        write_part(part, source, j, "csv")
    pattern = folder / "pattern.ses"
    pattern.write_text(GENERATED, encoding="utf-8")
    columns, _ = validated(table, ts="ts", type="type", source="<generated>")
    parsed = detect_language(GENERATED).parse(GENERATED, "<generated>")
    expected = reference_matches(parsed, Stream.from_columns(columns, None), "any")
    return Case(pattern, source, folder / "out.parquet", folder / "ckpt", frozenset(expected))


def stock_table(limit: int | None) -> Any:
    """The stock stream as an Arrow table (``ts`` in ms, ``type``, the attributes)."""
    from kleene.engines.spark.stream.replay import stock_table as read

    return read(str(bundled("stocks.stream.gz")), limit)


def shifted(table: Any, copy: int) -> Any:
    """Copy number ``copy`` of ``table``: its ``ts`` shifted by ``copy`` spans (past the
    previous copy's last timestamp)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    ts = table.column("ts")
    span = pc.max(ts).as_py() - pc.min(ts).as_py() + 1
    return table.set_column(table.schema.get_field_index("ts"), "ts",
                            pc.add(ts, pa.scalar(copy * span, ts.type)))


def repeated(table: Any, copies: int) -> Any:
    """``table`` ``copies`` times, each copy's ``ts`` shifted past the previous copy's."""
    import pyarrow as pa

    return pa.concat_tables([shifted(table, c) for c in range(copies)])


def _throughput(spark: Any, pattern: str, parts: list[Any], folder: Path, per_batch: int
                ) -> tuple[float, int, int, float]:
    """Every part present as a Parquet file, matched to the end of the stream:
    the wall seconds, the micro-batches, the matches and the median seconds from
    one micro-batch's commit to the next's (what a micro-batch of this size takes)."""
    from kleene.engines.spark.stream import ContinuousMatch
    from kleene.engines.spark.stream.replay import write_part

    source = folder / "in"
    source.mkdir(parents=True)
    for j, part in enumerate(parts):
        write_part(part, source, j, "parquet")
    commits: list[float] = []
    run = ContinuousMatch(spark, str(source), pattern, output=str(folder / "out.parquet"),
                          checkpoint=str(folder / "ckpt"), ts="ts", time_unit="ms",
                          max_files=per_batch,
                          on_progress=lambda _: commits.append(time.perf_counter()))
    began = time.perf_counter()
    run.run_available()
    run.end()
    wall = time.perf_counter() - began
    steps = [b - a for a, b in zip([began, *commits], commits[:-1], strict=False)]
    return (wall, run.store.latest().batch + 1, run.counts()["matches"],
            statistics.median(steps) if steps else 0.0)


def latencies(out: Path, arrivals: list[float], ends: list[int],
              lasts: Callable[[Path], list[int]]) -> list[float]:
    """Seconds from the arrival of the file holding each output's last row (``lasts`` of a
    ``batch=k`` folder: the rows' last positions or event times; ``ends[j]`` the last of
    file ``j``) to its batch's commit (the folder's file's modification time)."""
    import bisect

    found = []
    for folder in sorted(p for p in out.iterdir() if p.name.startswith("batch=")):
        written = max(f.stat().st_mtime for f in folder.iterdir())
        found += [written - arrivals[bisect.bisect_left(ends, last)] for last in lasts(folder)]
    return found


def last_positions(folder: Path) -> list[int]:
    """The last event position of each match in a ``batch=k`` folder of match rows."""
    import pyarrow.dataset as ds

    rows = ds.dataset(folder, format="parquet").to_table(columns=["match_id", "position"])
    last: dict[str, int] = {}
    for m, p in zip(rows.column("match_id").to_pylist(), rows.column("position").to_pylist(),
                    strict=True):
        last[m] = max(last.get(m, -1), p)
    return list(last.values())


def run(quick: bool = False) -> None:
    """Print the throughput and latency table; write ``out/bench/stream_spark.csv``."""
    from bench.peers import pattern_text
    from bench.report import Table, emit
    from kleene.engines.spark.session import session
    from kleene.engines.spark.stream import ContinuousMatch
    from kleene.engines.spark.stream.replay import chop

    limit = 40_000 if quick else None
    table = stock_table(limit)
    files = 8 if quick else 24
    size = -(-table.num_rows // files)
    at = list(range(size, table.num_rows, size))
    parts = list(chop(table, at))
    ends = [sum(p.num_rows for p in parts[:j + 1]) - 1 for j in range(len(parts))]
    spark = session("local[2]")
    pattern = pattern_text("seq3", 500)
    result = Table(title="kleene stream on local[2]: seq3 500 ms, policy any, the stock stream "
                         "as Parquet files",
                   columns=("run", "events", "files", "matches", "wall s", "events/s",
                            "micro-batch s (median)", "latency p50 s", "latency p99 s"))
    result.header = [f"load average at start: {', '.join(f'{x:.1f}' for x in os.getloadavg())}"
                     " (2 cores; other processes share them)"]
    tmp = Path(tempfile.mkdtemp())
    try:
        wall, batches, found, step = _throughput(spark, pattern, parts, tmp / "t1",
                                                 FILES_PER_BATCH)
        result.add(f"throughput (files present, {FILES_PER_BATCH} per micro-batch, "
                   f"{batches} micro-batches)", table.num_rows, len(parts), found, wall,
                   table.num_rows / wall, step, "", "")
        big = repeated(table, COPIES)
        for per_batch in SUSTAINED:
            wall, batches, found, step = _throughput(
                spark, pattern, list(chop(big, [size * j for j in range(1, len(parts) * COPIES)])),
                tmp / f"t{per_batch}", per_batch)
            result.add(f"sustained (stock ×{COPIES}, {per_batch} files of {size:,} events per "
                       f"micro-batch, {batches} micro-batches)", big.num_rows,
                       len(parts) * COPIES, found, wall, big.num_rows / wall, step, "", "")
        del big
        from bench.stream_paced import PACES, SECONDS, breakdown, ddl, feed, paced, row, staged

        fed = []
        for k, (events, every) in enumerate(((2_000, 0.1),) if quick else PACES):
            fed.append(paced(spark, table, pattern, tmp / f"paced{k}", events=events,
                             every=every, seconds=3.0 if quick else SECONDS))
            result.add(*row(fed[-1]))
        arriving, every = tmp / "arriving", 2.0
        arriving.mkdir()
        names = staged(parts, tmp / "staging")
        arrivals = [0.0] * len(parts)
        run2 = ContinuousMatch(spark, str(arriving), pattern, output=str(tmp / "o2.parquet"),
                               checkpoint=str(tmp / "c2"), format="parquet", schema=ddl(table),
                               ts="ts", time_unit="ms")
        query = run2.start()
        began = time.perf_counter()
        feed(tmp / "staging", arriving, names, every, time.time(), arrivals).join()
        while run2.store.latest().next_position < table.num_rows - 1 and query.isActive \
                and time.perf_counter() - began < 600:
            query.awaitTermination(1.0)
            if run2.store.latest().frontier >= float(table.column("ts")[-1].as_py()) - 1000:
                break
        query.stop()
        wall = time.perf_counter() - began
        lat = sorted(latencies(tmp / "o2.parquet", arrivals, ends, last_positions))
        if lat:
            p99 = lat[min(len(lat) - 1, int(0.99 * len(lat)))]
            result.add(f"latency (a file every {every:g} s)", table.num_rows, len(parts),
                       len(lat), wall, table.num_rows / wall, "", statistics.median(lat), p99)
        result.notes.append("latency: from the arrival of the file holding a match's last "
                            "event to the commit of its output; the matches whose window "
                            "had not closed when the last file arrived are not counted")
        emit(result, "stream_spark")
        emit(breakdown(fed), "stream_spark_paced")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
