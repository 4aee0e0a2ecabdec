"""The agreement table of ``kleene demo``, printed and written to ``out/report.md``."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from kleene.cli.demo_engines import Row

HEADER = ("engine", "where", "workload", "policy", "matches", "agreement", "events/s",
          "peak instances", "note")


def cells(r: Row) -> tuple[str, ...]:
    agree = {True: "✓ agrees", False: "✗ DIFFERS", None: "–"}[r.agree]
    rate = f"{r.rate:,.0f}" if r.rate is not None else "–"
    peak = f"{r.peak:,}" if r.peak is not None else "–"
    return (r.engine, r.where, r.workload, r.policy, f"{r.matches:,}", agree, rate, peak, r.note)


def print_table(rows: Sequence[Row], out: TextIO) -> None:
    """A fixed-width table (the note column last, unpadded)."""
    table = [HEADER, *map(cells, rows)]
    widths = [max(len(row[i]) for row in table) for i in range(len(HEADER) - 1)]
    for k, row in enumerate(table):
        print("  " + "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=False))
              + "  " + row[-1], file=out)
        if k == 0:
            print("  " + "  ".join("─" * w for w in widths) + "  ────", file=out)


def markdown(rows: Sequence[Row]) -> str:
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in cells(r)) + " |" for r in rows]
    return "\n".join(lines)


def write_report(path: Path, rows: Sequence[Row], *, examples: str, pictures: Sequence[Path],
                 notes: Sequence[str]) -> Path:
    """``out/report.md``: the examples' verdict, the agreement table, links to pictures."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = [f"# Kleene demo report ({_dt.datetime.now().isoformat(timespec='seconds')})", "",
            "## The papers' worked examples (reference semantics)", "", examples, "",
            "## Engines beside the reference, single-process and on Spark", "",
            markdown(rows), ""]
    if notes:
        text += ["Notes:", "", *[f"- {n}" for n in notes], ""]
    if pictures:
        text += ["## Compiled automata", ""]
        text += [f"- [{p.stem}]({p.name})" for p in pictures]
        text += ["", *[f"![{p.stem}]({p.name})" for p in pictures if p.suffix == ".svg"], ""]
    path.write_text("\n".join(text), encoding="utf-8")
    return path
