"""``python -m bench seed004`` on a tiny stream: the table has one row per query, the
sequential query's matches equal the reference's, and dsrt runs it beside srt."""

from __future__ import annotations

from pathlib import Path

from bench import seed004
from kleene.reference.events import Stream
from kleene.reference.query import Query
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


def test_seed004_table_on_a_tiny_stream(tmp_path: Path):
    s = Stream.from_rows(ROWS, time_unit="ms")
    table = seed004.table(s, seed004.Settings(None), [QUERY])
    (row,) = table.rows
    name, paper, window, events, found = row[:5]
    assert (name, paper, window, events) == ("stock_reg1", "seq3 (Fig. 2)", 500, 5)
    q, = read_sre(str(QUERY))
    expected = matches(q.to_expression(time_window=500), s, reading="strict")
    # ts 500 − 0 is not < 500: the third QQQ is outside Wayeb's strict window
    assert found == len(expected) == 2
    # dsrt runs it as written (the bench checks it finds srt's matches); its DSRT built
    # on the stream: the fresh run, A held, A and B held, ... (states / minterms)
    built = row[-2]
    assert isinstance(built, str) and built.endswith(" mt") and " st / " in built
    assert isinstance(row[-1], str)
    assert row[-1].endswith(" mt")         # at [1..10], unrolled with register copies


def test_srt_and_dsrt_agree_on_the_strict_variant_of_a_query():
    s = Stream.from_rows(ROWS, time_unit="ms")
    q, = read_sre(str(QUERY))
    from kleene.reference.sremo.strategies import strict_contiguity

    e = strict_contiguity(q.to_expression(count_window=3))
    from kleene.engines.registry import engine

    expected = matches(e, s)
    # strict contiguity: SELL INTC, BUY RIMM, BUY QQQ above the SELL's price, adjacent
    assert expected == set(engine("dsrt").compile(Query.of(e)).run(s)) == set(
        engine("srt").compile(Query.of(e)).run(s))
    assert len(expected) == 1


def test_the_head_filtered_table_on_a_tiny_stream():
    """BUY INTC 10 @0, BUY QQQ @50, SELL INTC 9 @100, SELL QQQ @150, SELL INTC 8 @400:
    INTC BUY → cheaper SELL within 300 ms is {0, 2} only (the SELL @400 is 400 ms after
    the BUY); the head filter keeps the 3 INTC events and srt finds the same match."""
    from kleene.data.columnar import columns_of

    rows = [("BUY", "INTC", 10.0, 0), ("BUY", "QQQ", 30.0, 50), ("SELL", "INTC", 9.0, 100),
            ("SELL", "QQQ", 29.0, 150), ("SELL", "INTC", 8.0, 400)]
    s = Stream.from_rows([{"ts": ts, "type": t, "name": n, "price": p, "volume": 1}
                          for t, n, p, ts in rows], time_unit="ms")
    table = seed004.filtered_table(Stream.from_columns(columns_of(list(s)), "ms"))
    (whole, filtered) = table.rows
    assert (whole[0], whole[1], whole[4]) == ("whole", 5, 1)
    assert (filtered[0], filtered[1], filtered[4]) == ("head-filtered", 3, 1)
