"""``python -m bench seed003`` runs and its tables are well formed, on tiny inputs
(no wall time or speed-up is asserted: those are measured, not tested)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:          # bench/ is a plain folder beside the package
    sys.path.insert(0, str(ROOT))

from bench import seed003  # noqa: E402
from bench.__main__ import BENCHMARKS  # noqa: E402


def test_registered() -> None:
    assert BENCHMARKS["seed003"] is seed003.run


def test_skewed_table_agrees() -> None:
    table = seed003.skewed(seed003.Settings(events=400, ratios=(3, 30), window=10,
                                            stock_limit=None))
    assert len(table.rows) == 2 * len(seed003.SKEWED)
    assert all(row[-1] == "yes" for row in table.rows)
    assert all(len(row) == len(table.columns) for row in table.rows)


def test_skewed_stream_is_skewed() -> None:
    s = seed003.skewed_stream(3000, 100)
    counts = {t: sum(e.type == t for e in s) for t in "ABC"}
    assert counts["A"] > 5 * counts["B"] > 5 * counts["C"] > 0


def test_group_by_table_agrees() -> None:
    table = seed003.grouped(seed003.Settings(events=300, ratios=(3,), window=10,
                                             stock_limit=None))
    assert [row[-1] for row in table.rows] == ["yes"]
    assert all(len(row) == len(table.columns) for row in table.rows)
