"""Streaming input (issue 10, item 3): the stock stream replicated to ≥ 20 M events,
matched with ``kleene match --stream`` in memory bounded by the batch and the window.

The file is the stock stream written ``copies`` times, each copy's timestamps
shifted by 50,000,000 ms (more than the stream's span, so the copies follow one
another and no window crosses two: each copy brings the matches of one);
gzip level 1, in ``out/bench/`` (built once, ~230 MB for 90 copies). Figures:
CPU seconds and the largest resident set (max RSS) of the ``kleene`` process,
for prefixes of growing size: bounded memory shows as an RSS that stops
growing with the number of events; the match count must be ``copies`` times
the single stream's.
"""

from __future__ import annotations

import gzip
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.peers import pattern_text
from bench.report import OUT_DIR, Table, emit
from kleene.data.bundled import bundled

SHIFT_MS = 50_000_000
_STOCK_TIME = re.compile(r"stock_time=(\d+)")


def shift_stock_times(text: str, by: int) -> str:
    """Stock lines with every ``stock_time`` moved ``by`` later."""
    return _STOCK_TIME.sub(lambda m: f"stock_time={int(m.group(1)) + by}", text)


def replicated(source: Path, copies: int, out: Path) -> Path:
    """``source`` written ``copies`` times with shifted timestamps (kept if present)."""
    if out.exists():
        return out
    text = gzip.open(source, "rt", newline="").read()
    part = out.with_suffix(".part")
    with gzip.open(part, "wt", compresslevel=1, newline="") as f:
        for k in range(copies):
            shift = k * SHIFT_MS
            f.write(text if k == 0 else shift_stock_times(text, shift))
    part.rename(out)
    return out


def measured(pattern: Path, events: Path, limit: int | None) -> tuple[float, int, int]:
    """CPU seconds, max RSS (kB) and match count of one ``kleene match --stream`` run,
    in a process of its own (``ru_maxrss`` of the children is the largest of them, so
    each run is measured through a fresh intermediate process)."""
    script = ("import resource, subprocess, sys; "
              "d = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
              "u = resource.getrusage(resource.RUSAGE_CHILDREN); "
              "print(d.returncode, u.ru_utime + u.ru_stime, u.ru_maxrss, d.stdout.strip() or "
              "repr(d.stderr.strip()))")
    cmd = [sys.executable, "-c", script, sys.executable, "-m", "kleene", "match", "--pattern",
           str(pattern), "--events", str(events), "--policy", "any", "--engine", "windows+ses",
           "--stream", "--count"]
    if limit is not None:
        cmd += ["--limit", str(limit)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.split(" ", 3)
    if out[0] != "0":
        raise RuntimeError(f"kleene match --stream failed: {out[3]}")
    return float(out[1]), int(out[2]), int(out[3])


def run(quick: bool = False) -> None:
    """Print the streaming table; write it to ``out/bench/stream.csv``."""
    data = bundled("stocks.stream.gz")
    copies = 2 if quick else 90
    folder = Path(tempfile.mkdtemp()) if quick else OUT_DIR
    folder.mkdir(parents=True, exist_ok=True)
    big = replicated(data, copies, folder / f"stocks_x{copies}.stream.gz")
    pattern = folder / "seq3_500.ses"
    pattern.write_text(pattern_text("seq3", 500), encoding="utf-8")
    single = 224_473
    table = Table(title=f"Streaming: seq3 500 ms, windows+ses --stream, the stock stream ×{copies}",
                  columns=("events", "matches", "CPU s", "events/s (CPU)", "max RSS MB"),
                  header=[f"file: {big} (gzip level 1); RSS of the kleene process"])
    sizes = [single, copies * single] if quick else [single, 10 * single, copies * single]
    for n in sizes:
        seconds, rss, count = measured(pattern, big, None if n == copies * single else n)
        table.add(n, count, seconds, n / seconds, rss / 1024)
    table.notes.append(f"the whole file must give {copies} × the matches of one copy")
    emit(table, "stream")

