"""The continuous part of ``kleene demo`` (issue 14, item 5): the stock stream replayed
as arriving files, matches written as they become final, a stop and a restart
from the checkpoint in the middle, and the final comparison with the batch runner.

:func:`run_stream_demo` takes the demo's SparkSession (starting one is not
counted) and returns whether the continuous matches equal the batch result.
The restart here resumes a stopped query; the crash (SIGKILL) version is
``tests/test_stream_restart.py`` and ``python -m bench stream-faults``.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path
from typing import Any, TextIO

#: The demo's pattern: seq3 of the stock benchmarks (bench/peers.py), 500 ms.
SEQ3 = ("PATTERN <{x}, {y}, {z}>\n"
        "WHERE x.type = 'SELL' AND x.name = 'INTC' AND y.type = 'BUY' AND y.name = 'RIMM' "
        "AND z.type = 'BUY' AND z.name = 'QQQ' AND z.price > x.price\nWITHIN 500 ms\n")

#: Events of the stock stream replayed, and in how many files.
EVENTS, FILES = 16_000, 4


def _example(out_dir: Path, batch: int) -> str:
    """One match of micro-batch ``batch``'s output, canonical (read with pyarrow)."""
    # lazy: Spark only when the streaming part of the demo runs
    import pyarrow.dataset as ds

    from kleene.engines.spark.runner import regroup

    folder = out_dir / f"batch={batch}"
    if not folder.is_dir():
        return ""
    rows = ds.dataset(folder, format="parquet").to_table(
        columns=["match_id", "variable", "position"]).to_pylist()
    found = sorted(regroup(rows, ()).get((), []), key=lambda m: m.first)
    return f"  e.g. {found[0].dumps()}" if found else ""


def run_stream_demo(spark: Any, data: Path, out: TextIO, *, events: int = EVENTS,
                    files: int = FILES) -> bool:
    """Print the continuous run; ``True`` when its matches equal the batch runner's."""
    # lazy: Spark only when the streaming part of the demo runs
    from kleene.data.loaders import load_events
    from kleene.engines.spark import collect_matches, match_frame
    from kleene.engines.spark.frames import from_stream
    from kleene.engines.spark.stream import ContinuousMatch
    from kleene.engines.spark.stream.replay import chop, stock_table, write_part
    from kleene.reference.query import Query

    began = time.perf_counter()
    table = stock_table(str(data), events)
    size = -(-table.num_rows // files)
    parts = list(chop(table, list(range(size, table.num_rows, size))))
    tmp = Path(tempfile.mkdtemp(prefix="kleene-stream-demo-"))
    source, output, checkpoint = tmp / "arriving", tmp / "matches.parquet", tmp / "checkpoint"
    source.mkdir()
    print(f"Continuous matching: seq3 within 500 ms on the first {table.num_rows:,} events of "
          f"the stock stream, replayed as {len(parts)} Parquet files into {source}", file=out)

    def progress(p: Any) -> None:
        print(f"  {p.line()}{_example(output, p.batch)}", file=out, flush=True)

    def query() -> Any:
        return ContinuousMatch(spark, str(source), SEQ3, output=str(output),
                               checkpoint=str(checkpoint), time_unit="ms", max_files=1,
                               on_progress=progress)

    try:
        half = len(parts) // 2
        for j, part in enumerate(parts[:half]):
            write_part(part, source, j, "parquet")
        query().run_available()
        print(f"  -- the query stops after {half} files; {len(parts) - half} more arrive; a new "
              "query restarts from the checkpoint --", file=out)
        for j, part in enumerate(parts[half:], start=half):
            write_part(part, source, j, "parquet")
        again = query()
        again.run_available()
        again.end()
        streamed = collect_matches(again.matches()) if again.matches() is not None else []
        stream = load_events(str(data), ts="stock_time", limit=events)
        batch = collect_matches(match_frame(from_stream(spark, stream),
                                            Query.parse(SEQ3, policy="any")))
        same = sorted(streamed) == sorted(batch) and len(streamed) == len(set(streamed))
        counts = again.counts()
        mark = "✓" if same else "✗"
        print(f"  {mark} {len(streamed)} matches written once each, "
              f"{'the same as' if same else 'NOT the same as'} the batch runner's "
              f"{len(batch)} on the same events; {counts.get('late', 0)} late; "
              f"{time.perf_counter() - began:.0f} s", file=out)
        return same
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
