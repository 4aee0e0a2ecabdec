"""Tables of the benchmarks: printed as aligned text, written as CSV to ``out/bench/``.

A :class:`Table` is data: a title, the lines of its header (the parameters
the run used), the column names, the rows and notes (what the paper reports,
caps, which policy was used). :func:`emit` prints it and writes
``out/bench/<name>.csv`` (the rows only, with the column names as header), so
that every printed figure is also in a file.
"""

from __future__ import annotations

import csv
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

Cell = str | int | float | None

#: Where :func:`emit` writes the CSV files (relative to the working directory).
OUT_DIR = Path("out") / "bench"


@dataclass
class Table:
    """A titled table: ``header`` lines, ``columns``, ``rows`` of cells, ``notes`` after."""

    title: str
    columns: Sequence[str]
    rows: list[Sequence[Cell]] = field(default_factory=list)
    header: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, *cells: Cell) -> None:
        """Append one row; it must have one cell per column."""
        if len(cells) != len(self.columns):
            raise ValueError(f"{self.title}: a row of {len(cells)} cells for "
                             f"{len(self.columns)} columns")
        self.rows.append(cells)


def fmt(cell: Cell) -> str:
    """A cell as text: integers with thousands separators; floats with 2 decimals
    below 10, 1 below 1000, none below 10^7, then as ``1.4e+10``; ``nan``/``None`` as ``–``."""
    if cell is None:
        return "–"
    if isinstance(cell, bool):
        return "yes" if cell else "no"
    if isinstance(cell, int):
        return f"{cell:,}"
    if isinstance(cell, float):
        if math.isnan(cell):
            return "–"
        if math.isinf(cell):
            return "∞"
        if abs(cell) >= 1e7:
            return f"{cell:.2g}"
        if abs(cell) >= 1000:
            return f"{cell:,.0f}"
        if abs(cell) >= 10:
            return f"{cell:.1f}"
        return f"{cell:.2f}"
    return str(cell)


def render(table: Table) -> str:
    """The table as aligned text (header lines, column names, rule, rows, notes)."""
    cells = [[fmt(c) for c in row] for row in table.rows]
    widths = [max([len(name)] + [len(r[i]) for r in cells])
              for i, name in enumerate(table.columns)]
    lines = [table.title, "=" * len(table.title)]
    lines += table.header
    lines.append("  ".join(name.rjust(w) for name, w in zip(table.columns, widths, strict=True)))
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(c.rjust(w) for c, w in zip(row, widths, strict=True)) for row in cells]
    lines += ["  note: " + n for n in table.notes]
    return "\n".join(lines) + "\n"


def csv_cell(cell: Cell) -> str | int | float:
    """A cell for CSV: numbers stay numbers, ``None``/``nan`` become empty."""
    if cell is None or (isinstance(cell, float) and math.isnan(cell)):
        return ""
    return cell


def write_csv(table: Table, name: str, out_dir: Path = OUT_DIR) -> Path:
    """Write ``table``'s rows to ``out_dir/name.csv`` and return the path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{name}.csv"
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(table.columns)
        writer.writerows([csv_cell(c) for c in row] for row in table.rows)
    return path


def emit(table: Table, name: str, out_dir: Path = OUT_DIR) -> Path:
    """Print ``table`` and write it as CSV; returns the CSV's path."""
    path = write_csv(table, name, out_dir)
    print(render(table) + f"  (written to {path})\n", flush=True)
    return path


def load_average() -> str:
    """The 1-, 5- and 15-minute load averages, for a table's header or notes (the machine
    is shared: every figure is printed with the load it was measured under)."""
    return ", ".join(f"{x:.1f}" for x in os.getloadavg())


def ratio(a: float, b: float) -> float:
    """``a / b``, ``nan`` when ``b`` is 0 or either is not a number."""
    if b == 0 or math.isnan(a) or math.isnan(b):
        return float("nan")
    return a / b


def geomean(values: Sequence[float]) -> float:
    """The geometric mean of the positive numbers in ``values`` (``nan`` if none)."""
    positive = [v for v in values if v > 0 and not math.isnan(v)]
    if not positive:
        return float("nan")
    return math.exp(sum(math.log(v) for v in positive) / len(positive))
