"""``python -m bench peers`` (bench/peers.py) on a tiny stock file: its workloads
parse, its tables are well formed, and its figures count the same matches.

Never checks a wall time or a speed-up (performance is measured, not asserted).
"""

from __future__ import annotations

import gzip
from pathlib import Path

from bench import peers
from bench.__main__ import BENCHMARKS
from kleene.data.loaders import load_events
from kleene.engines.registry import engine
from kleene.reference.query import Query
from kleene.reference.ses.policies import matches
from kleene.reference.ses.text import parse_ses

# x: SELL INTC at 10.0; y: BUY RIMM; z: BUY QQQ at 11.0 > 10.0, all within 3 ms;
# then a QQQ at 9.0, not above x's price.
LINES = ["SELL(id=1,name=INTC,volume=1,price=10.0,stock_time=100)",
         "BUY(id=2,name=RIMM,volume=1,price=5.0,stock_time=101)",
         "BUY(id=3,name=QQQ,volume=1,price=11.0,stock_time=102)",
         "BUY(id=4,name=QQQ,volume=1,price=9.0,stock_time=103)"]


def tiny(tmp_path: Path) -> Path:
    path = tmp_path / "s.stream.gz"
    path.write_bytes(gzip.compress(("\r\n".join(LINES) + "\r\n").encode()))
    return path


def test_workloads_are_the_issues_patterns(tmp_path):
    s = load_events(tiny(tmp_path))
    seq3 = parse_ses(peers.pattern_text("seq3", 500))
    and3 = parse_ses(peers.pattern_text("AND3", 500))
    assert seq3.names == and3.names == ("x", "y", "z")
    expected = {frozenset({("x", (0,)), ("y", (1,)), ("z", (2,))})}
    for p in (seq3, and3):
        assert {frozenset(m.bindings) for m in matches(p, s, "any")} == expected
        for name in peers.ENGINES:
            got = engine(name).compile(Query.of(p, policy="any", time_unit="ms")).run(s)
            assert {frozenset(m.bindings) for m in got} == expected


def test_load_table_and_regex_baseline(tmp_path):
    path = tiny(tmp_path)
    assert peers.python_parse_seconds(path) > 0
    table = peers._load_table(path, tmp_path / "s.parquet", None, 1.0)
    assert [row[1] for row in table.rows] == [4, 4]
    assert all(len(row) == len(table.columns) for row in table.rows)


def test_cli_count_and_registration(tmp_path):
    pattern = tmp_path / "seq3.ses"
    pattern.write_text(peers.pattern_text("seq3", 500), encoding="utf-8")
    seconds, wall, count = peers.cli_seconds(pattern, tiny(tmp_path), "windows+ses", None,
                                             repeats=2)
    assert count == 1 and seconds > 0 and wall > 0
    assert "PYTHONDONTWRITEBYTECODE" not in peers.fresh_env()
    assert BENCHMARKS["peers"] is peers.run
    assert BENCHMARKS["peers-spark"] is peers.spark_run


def test_after_load_counts_the_matches_of_every_repeat(tmp_path):
    s = load_events(tiny(tmp_path))
    compiled = engine("windows+ses").compile(Query.of(parse_ses(peers.pattern_text("seq3", 500)),
                                                      policy="any", time_unit="ms"))
    seconds, found = peers.after_load_seconds(compiled, s, repeats=2)
    assert found == 1 and seconds >= 0
