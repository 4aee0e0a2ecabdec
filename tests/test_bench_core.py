"""``python -m bench core`` (bench/core.py): without CORE's queries it says how to get them
and is not run; ``--quick`` on queries of our own writing (CORE's are GPL: never copied
here) gives Kleene's counts, and CORE's where pycer is installed, equal."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import core
from bench.__main__ import main

#: Own CEQL, under the names --quick picks: a sequence of three, the same consumed, a
#: strategy over a type that no tick has, and a partitioned consumption.
OWN = {
    "q1_none": "SELECT * FROM S WHERE (SELL as s; BUY as b) FILTER s[name = 'INTC'] AND "
               "b[name = 'RIMM'] WITHIN 3000 [stock_time]",
    "q1_any": "SELECT * FROM S WHERE (SELL as s; BUY as b) FILTER s[name = 'INTC'] AND "
              "b[name = 'RIMM'] WITHIN 3000 [stock_time] CONSUME BY ANY",
    "q12_none": "SELECT LAST * FROM S WHERE (SELL as s; BUY as b) FILTER s[name = 'INTC'] "
                "AND b[name = 'NoSuchName'] WITHIN 3000 [stock_time]",
    "other-q6_partition": "SELECT * FROM S WHERE (BUY as a; SELL as b) FILTER "
                          "a[name = 'MSFT'] AND b[name = 'MSFT'] PARTITION BY [volume] "
                          "WITHIN 3000 [stock_time] CONSUME BY PARTITION",
}


def test_without_queries_it_says_how_and_is_not_run(capsys: pytest.CaptureFixture[str]
                                                    ) -> None:
    assert main(["core"]) == 0
    out = capsys.readouterr().out
    assert "not run: give --queries DIR" in out and "git clone" in out


@pytest.mark.slow
def test_quick_counts_agree_with_core(tmp_path: Path) -> None:
    for name, text in OWN.items():
        (tmp_path / f"{name}.txt").write_text(text + "\n", encoding="utf-8")
    (tmp_path / "q5_none.txt").write_text(OWN["q1_none"], encoding="utf-8")  # not quick
    table = core.run(quick=True, queries=str(tmp_path), first=10)
    if not core.PYTHON.exists():
        assert table is None
        return
    assert table is not None
    rows = {str(row[0]): row for row in table.rows}
    assert sorted(rows) == sorted(OWN)
    column = {c: i for i, c in enumerate(table.columns)}
    counts = {}
    for name, row in rows.items():
        count = row[column["Kleene count"]]
        assert isinstance(count, int), (name, row)
        assert row[column["same"]] == "yes", (name, row)
        counts[name] = count
    assert counts["q12_none"] == 0
    # consumption keeps no more than every complex event
    assert 0 < counts["q1_any"] <= counts["q1_none"]


def test_a_run_past_its_time_limit_is_said_not_to_finish(tmp_path: Path) -> None:
    (tmp_path / "q1_none.txt").write_text(OWN["q1_none"] + "\n", encoding="utf-8")
    table = core.run(quick=True, queries=str(tmp_path), first=10, time_limit=0.001)
    if not core.PYTHON.exists():
        assert table is None
        return
    assert table is not None
    row = dict(zip(table.columns, table.rows[0], strict=True))
    assert row["Kleene count"] == "did not finish in 0.001 s"   # no process starts that fast
    assert row["CORE count"] == "did not finish in 0.001 s"
    assert row["same"] is None
