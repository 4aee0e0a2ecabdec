"""``python -m bench seed004`` on a tiny stream: the table has one row per query, the
sequential query's matches equal the reference's, and the dsrt column gives a reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import seed004
from kleene.reference.events import Stream
from kleene.reference.sremo import matches
from kleene.reference.sremo.wayeb import read_sre

QUERY = seed004.QUERIES / "stock_reg1.sre"
ROWS = [
    {"ts": 0, "type": "SELL", "name": "INTC", "price": 20.0, "volume": 1},
    {"ts": 100, "type": "BUY", "name": "RIMM", "price": 90.0, "volume": 1},
    {"ts": 200, "type": "BUY", "name": "QQQ", "price": 30.0, "volume": 1},
    {"ts": 499, "type": "BUY", "name": "QQQ", "price": 31.0, "volume": 1},
    {"ts": 500, "type": "BUY", "name": "QQQ", "price": 32.0, "volume": 1},
]


@pytest.mark.skipif(not QUERY.exists(), reason="the Wayeb queries are not available")
def test_seed004_table_on_a_tiny_stream(tmp_path: Path):
    s = Stream.from_rows(ROWS, time_unit="ms")
    table = seed004.table(s, seed004.Settings(None, 10.0), [QUERY])
    (row,) = table.rows
    name, window, events, found = row[:4]
    assert (name, window, events) == ("stock_reg1", 500, 5)
    q, = read_sre(str(QUERY))
    expected = matches(q.to_expression(time_window=500), s, reading="strict")
    # ts 500 − 0 is not < 500: the third QQQ is outside Wayeb's strict window
    assert found == len(expected) == 2
    assert row[-2].startswith("no: ")      # no DSRT for a time window
    assert row[-1].endswith(" states")     # at [1..10], unrolled with register copies
