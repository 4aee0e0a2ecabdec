"""The benchmark harness (``bench/``) runs and its tables are well formed, on tiny inputs.

Never checks a wall time or a speed-up: performance is measured by
``python -m bench``, not asserted here.
"""

from __future__ import annotations

import csv
import random
from pathlib import Path

import pytest

from bench import seed000, seed001
from bench.__main__ import BENCHMARKS, main
from bench.chemo import ChemoConfig, chemo_stream, repeat, window_size
from bench.measure import Budget, measure
from bench.report import Table, fmt, render, write_csv
from kleene.reference.events import Stream

TINY = ChemoConfig(patients=2, cycles=1, start_spread_days=2)


def well_formed(table: Table, tmp_path: Path, name: str) -> list[list[str]]:
    """Every row has one cell per column, the text renders, the CSV reads back."""
    assert table.rows, f"{table.title}: no rows"
    assert all(len(row) == len(table.columns) for row in table.rows)
    text = render(table)
    assert table.title in text and all(c in text for c in table.columns)
    with write_csv(table, name, tmp_path).open(encoding="utf-8") as f:
        read = list(csv.reader(f))
    assert read[0] == list(table.columns) and len(read) == len(table.rows) + 1
    return read


def test_chemo_stream_is_seeded_sorted_and_typed():
    s = chemo_stream(TINY)
    assert s == chemo_stream(TINY) and s.time_unit == "h"
    assert [e.ts for e in s] == sorted(e.ts for e in s)
    assert {e.attrs["K"] for e in s} <= {"chemo", "support", "lab"}
    assert {e.attrs["ID"] for e in s} == {1, 2}
    assert chemo_stream(ChemoConfig(patients=2, cycles=1, start_spread_days=2, seed=7)) != s


def test_repeat_and_window_size():
    s = Stream.from_rows([{"ts": t} for t in (0, 1, 5, 6, 20)])
    assert window_size(s, 5) == 3          # 1, 5, 6 (inclusive)
    d2 = repeat(s, 2)
    assert len(d2) == 10 and [e.position for e in d2] == list(range(10))
    assert window_size(d2, 5) == 6


def test_table_rejects_a_row_of_the_wrong_width_and_formats_cells():
    t = Table("t", ["a", "b"])
    with pytest.raises(ValueError):
        t.add(1)
    assert [fmt(c) for c in (None, float("nan"), 1234, 2.5, 123.45, 3e10, True)] == \
        ["–", "–", "1,234", "2.50", "123.5", "3e+10", "yes"]


def test_measure_reports_a_missing_engine_and_caps_a_run():
    s = chemo_stream(TINY)
    p = seed000.ses_pattern(2, exclusive=True)
    missing = measure("no-such-engine", p, s).error
    assert missing is not None and missing.startswith("not available")
    capped = measure("ses-automaton", p, s, budget=Budget(instances=0))
    assert capped.capped and capped.events == 0
    full = measure("ses-automaton", p, s)
    assert full.ok and full.events == len(s) and full.capped is None


def test_seed000_tables_on_a_tiny_stream(tmp_path):
    settings = seed000.Settings(TINY, TINY, (2, 3), (1, 2), Budget(seconds=5.0))
    table1 = seed000.table1(settings)
    well_formed(table1, tmp_path, "t1")
    assert [row[0] for row in table1.rows] == [2, 3]
    fig12 = seed000.fig12(settings)
    well_formed(fig12, tmp_path, "f12")
    assert len(fig12.rows) == 3 * 2


def stock_like(n: int = 240) -> Stream:
    """A small stream shaped like the stock stream (ms timestamps, tickers, prices)."""
    rng = random.Random(1)
    names = ("MSFT", "INTC", "CSCO", "QQQ", "DELL")
    rows, ts = [], 0
    for _ in range(n):
        ts += rng.randint(0, 6)
        rows.append({"ts": ts, "name": rng.choice(names), "price": rng.randint(1, 9)})
    return Stream.from_rows(rows, time_unit="ms")


def test_seed001_tables_on_a_tiny_stream(tmp_path):
    s = stock_like()
    settings = seed001.Settings(None, len(s), 1, (1, 2, 5), (100, len(s)))
    seq, seqs = seed001.fig6(s, settings, "seq")
    sets_table, sets = seed001.fig6(s, settings, "set")
    fig8, gains = seed001.fig8(s, settings)
    summary = seed001.summary(s, sets, seqs, gains)
    for i, t in enumerate((seq, sets_table, fig8, summary)):
        well_formed(t, tmp_path, f"s{i}")
    assert [row[0] for row in seq.rows] == [1, 2, 5]


def test_seed001_says_not_available_for_an_unregistered_engine():
    s = stock_like(60)
    patterns = seed001.draw_patterns(seed001.tickers(s), 2, "set", 1, random.Random(0))
    runs = seed001.run_all([seed001.BASE, "windows-nonexistent+ses"], patterns, s)
    assert runs.gain_cell("windows-nonexistent+ses") == "n/a"
    assert "not available" in seed001.missing_notes(["windows-nonexistent+ses"])[0]


def test_draw_patterns_are_distinct_and_bounded_by_what_exists():
    names = ["A", "B", "C"]
    sets = seed001.draw_patterns(names, 3, "set", 10, random.Random(0))
    assert len(sets) == 1                  # one 3-subset of 3 tickers
    seqs = seed001.draw_patterns(names, 2, "seq", 10, random.Random(0))
    assert len(seqs) == 6 and len(set(seqs)) == 6


def test_dispatcher_knows_the_benchmarks_and_rejects_unknown_names():
    assert {"seed000", "seed001"} <= set(BENCHMARKS)
    with pytest.raises(SystemExit):
        main(["no-such-bench"])
