"""The seed 003 part of ``kleene demo`` (cli/demo_nfa.py): the NFA engines beside the
operator reference on stock events, with issue 12's Kleene pattern."""

from __future__ import annotations

import io

from kleene.cli.demo_nfa import nfa_part
from kleene.reference.events import Stream


def stock(rows: list[tuple[int, str, str, float]]) -> Stream:
    return Stream.from_rows([{"ts": t, "type": k, "name": n, "price": p}
                             for t, k, n, p in rows], time_unit="ms")


def test_every_nfa_engine_agrees_with_the_reference_on_a_hand_computed_stream():
    # SELL INTC 10 @0, BUY RIMM @100, BUY RIMM @200, BUY QQQ 11 @300, BUY QQQ 9 @400,
    # BUY QQQ 12 @900. Within 500 ms of the SELL, q dearer than x: q = e3 (11), e5 (12)
    # is 900 ms later, e4 is cheaper. r ⊆ {e1, e2} non-empty, so 3 matches, all ending at
    # e3; the reference reads the 4 events up to it.
    s = stock([(0, "SELL", "INTC", 10.0), (100, "BUY", "RIMM", 1.0), (200, "BUY", "RIMM", 1.0),
               (300, "BUY", "QQQ", 11.0), (400, "BUY", "QQQ", 9.0), (900, "BUY", "QQQ", 12.0)])
    out = io.StringIO()
    rows = nfa_part(s, out)
    on_head = [r for r in rows if r.workload == "stock KC, first 4"]
    on_all = [r for r in rows if r.workload == "stock KC, all 6"]
    assert [(r.engine, r.matches) for r in on_head][0] == ("reference", 3)
    assert {r.engine for r in on_head[1:]} == {"nfa-chain", "nfa-chain-fc", "nfa-multichain",
                                               "nfa-tree", "nfa-eager"}
    assert all(r.matches == 3 and r.agree for r in on_head[1:])
    assert all(r.matches == 3 and r.agree is not False for r in on_all) and len(on_all) == 5
    assert "reference 3 matches" in out.getvalue()


def test_no_stock_stream_no_rows():
    assert nfa_part(None, io.StringIO()) == []
