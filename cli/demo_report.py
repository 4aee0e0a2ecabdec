"""The agreement table of ``kleene demo``, printed and written to ``out/report.md``, and
the verdict, which names every part that did not run (issue 29: never "everything
agrees" over a part that was skipped)."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from kleene.cli.demo_engines import Row


@dataclass(frozen=True)
class Skipped:
    """A part of the demo that did not run: which, why, and how to make it run."""

    part: str
    why: str
    enable: str

    def line(self) -> str:
        return f"{self.part} — {self.why} (to run it: {self.enable})"


def verdict(runs: int, differ: int, disagree: int, skipped: Sequence[Skipped]) -> str:
    """The demo's last line: the runs, how many differ, and every part skipped."""
    if differ or disagree:
        said = "DISAGREEMENTS above"
    elif skipped:
        said = "everything that ran agrees"
    else:
        said = "everything agrees"
    if skipped:
        said += (f", but {len(skipped)} part{'s' if len(skipped) > 1 else ''} did not run: "
                 + "; ".join(s.line() for s in skipped))
    return f"Done: {runs} engine runs, {differ} differ; {said}."

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
                 notes: Sequence[str], skipped: Sequence[Skipped] = ()) -> Path:
    """``out/report.md``: the parts skipped (first, when any), the examples' verdict, the
    agreement table, links to pictures."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = [f"# Kleene demo report ({_dt.datetime.now().isoformat(timespec='seconds')})", ""]
    if skipped:
        text += ["## Parts that did not run", "",
                 "The table below covers only what ran; these parts were skipped:", "",
                 *[f"- **{s.part}**: {s.why}. To run it: {s.enable}." for s in skipped], ""]
    text += ["## The papers' worked examples (reference semantics)", "", examples, "",
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
