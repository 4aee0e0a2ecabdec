"""``kleene match --output`` beside the engine (issue 33, item 1): matches written per second
by format and layout, and the engine's own rate, in one run.

Workload: seq3 of :mod:`bench.peers` (a SELL of INTC, a BUY of RIMM, a BUY of QQQ above
x's price) within 10 s on the whole stock stream (345,742 matches, policy ``any``; the
quick run: 1 s on its first 50,000 events). The engine's rate is its run alone, its
matches as ``kleene match`` takes them (:func:`~kleene.engines.match_columns.match_batches`:
as columns, no :class:`~kleene.reference.match.Match` made where the engine finds them
so); beside it, the same engine's matches one :class:`~kleene.reference.match.Match`
each (its ``run``). A writer's figure is everything ``kleene match --output`` does after
the engine: the matches sorted in canonical order, each once, and their rows
(:func:`kleene.cli.results.sorted_rows`), and the file
(:func:`kleene.cli.results.write_matches`). Seconds are CPU seconds (user + system) of
this process, the least of ``repeats``: the machine is shared (the load average is
printed beside them). The aim: at least 1 M matches/s written, the engine's order of
speed (issue 33 measured the per-match writer at ~13 k matches/s).
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

from bench.peers import pattern_text
from bench.report import Table, emit, ratio
from kleene.cli import results
from kleene.data.bundled import bundled
from kleene.data.loaders import load_events
from kleene.engines.fastest import choose
from kleene.engines.match_columns import match_batches
from kleene.engines.registry import engine
from kleene.reference.query import Query

#: ``--columns`` per layout.
COLUMNS = {"long": [("", "name"), ("", "price")], "wide": [("x", "price"), ("z", "price")]}
FORMATS = ("jsonl", "csv", "parquet")
#: Matches per second the writers aim at.
AIM = 1e6


def run(quick: bool = False, repeats: int = 3) -> Table:
    """Print and return the table."""
    limit, ms = (50_000, 1000) if quick else (None, 10_000)
    stream = load_events(str(bundled("stocks.stream.gz")), limit=limit)
    query = Query.parse(pattern_text("seq3", ms), policy="any").with_time_unit(stream.time_unit)
    name, _ = choose(query)
    compiled = engine(name).compile(query)
    engine_s, each_s = [], []
    for _ in range(repeats):
        started = time.process_time()
        found = list(match_batches(compiled, stream))
        engine_s.append(time.process_time() - started)
        started = time.process_time()
        each = sum(1 for _ in compiled.run(stream))
        each_s.append(time.process_time() - started)
    n = sum(map(len, found))
    engine_rate = n / max(min(engine_s), 1e-9)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    table = Table("kleene match --output: matches written per second beside the engine's",
                  ["format", "layout", "matches", "rows", "CPU s", "matches/s",
                   "writer / engine", "aim 1 M/s", "order and rows s", "file s"],
                  header=[f"seq3 within {ms} ms, policy any, engine {name}, "
                          f"{len(stream):,} events; load average at start: {load} "
                          "(2 cores; other processes share them)",
                          f"engine alone, matches as columns: {min(engine_s):.2f} CPU s, "
                          f"{engine_rate:,.0f} matches/s; one Match each: "
                          f"{min(each_s):.2f} CPU s, {each / max(min(each_s), 1e-9):,.0f} "
                          "matches/s"])
    variables = ["x", "y", "z"]
    with tempfile.TemporaryDirectory() as folder:
        for fmt in FORMATS:
            for layout in ("long", "wide"):
                path = str(Path(folder) / f"out.{fmt}")
                spent, parts = [], []
                for _ in range(repeats):
                    started = time.process_time()
                    batches = list(results.sorted_rows(found, Path(folder), stream, layout,
                                                       COLUMNS[layout], variables, False))
                    ordered = time.process_time()
                    written, rows = results.write_matches(batches, path, fmt)
                    ended = time.process_time()
                    spent.append(ended - started)
                    parts.append((ordered - started, ended - ordered))
                    Path(path).unlink()
                best = max(min(spent), 1e-9)
                rate = written / best
                order_s, file_s = parts[spent.index(min(spent))]
                table.add(fmt, layout, written, rows, best, rate, ratio(rate, engine_rate),
                          "met" if rate >= AIM else "missed", order_s, file_s)
    table.notes.append("CPU s: the matches sorted, their rows, the file; the least of "
                       f"{repeats} runs (order and rows s, file s: that run's two steps). "
                       "writer / engine: the writer's matches/s over the engine's (above "
                       "1: the writer is faster)")
    emit(table, "writers")
    return table
