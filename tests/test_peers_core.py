"""The CORE adapter's parts that run without CORE (conformance/adapters/core.py,
core_worker.py): the stream declaration, the reading of CORE's printed output and the
classification of a disagreement. ``make peers`` runs CORE itself (docs/ceql.md)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from kleene.conformance.adapters import core
from kleene.conformance.adapters.core_worker import printed
from kleene.reference.errors import Unsupported
from kleene.reference.events import Stream

TICKS = Stream.from_rows([
    {"ts": 0, "type": "SELL", "name": "INTC", "price": 27.5},
    {"ts": 1, "type": "BUY", "name": "RIMM", "price": 117.0},
    {"ts": 2, "type": "BUY", "name": "QQQ", "price": 36.0},
    {"ts": 5, "type": "BUY", "name": "RIMM", "price": 118.5},
    {"ts": 6, "type": "BUY", "name": "QQQ", "price": 36.5}])
Q = ("SELECT {} * FROM S WHERE (SELL as a; BUY as b; BUY as c) FILTER a[name = 'INTC'] "
     "AND b[name = 'RIMM'] AND c[name = 'QQQ'] WITHIN 6 [ts]")
#: Q's complex events on TICKS read inclusively (spans 2, 6, 6) and strictly (< 6).
INCLUSIVE = frozenset({(0, 1, 2), (0, 1, 4), (0, 3, 4)})
STRICT = frozenset({(0, 1, 2)})


def test_the_declaration_gives_every_type_every_attribute() -> None:
    text, attrs = core.declaration(TICKS)
    assert attrs == ["kleene_pos", "ts", "name", "price"]
    fields = "kleene_pos:int, ts:int, name:string, price:double"
    assert text == (f"CREATE STREAM S {{\n  EVENT BUY {{ {fields} }},\n"
                    f"  EVENT SELL {{ {fields} }}\n}}")


@pytest.mark.parametrize("rows, words", [
    ([{"ts": 0, "x": 1}], "have a type"),
    ([{"ts": 0, "type": "A", "x": 1}, {"ts": 1, "type": "A", "x": "one"}], "one CORE kind"),
    ([{"ts": 0, "type": "A", "x": 1}, {"ts": 1, "type": "B"}], "event 1 lacks x"),
])
def test_what_core_cannot_be_sent_is_one_line(rows: list[dict[str, object]],
                                              words: str) -> None:
    with pytest.raises(Unsupported, match=words):
        core.declaration(Stream.from_rows(rows))


def test_cores_printed_complex_events_are_read_by_their_first_attribute() -> None:
    # the shape of CORE's output line (pycer 0.1.6), kleene_pos first
    out = ("[0,4], ((id: 1 attributes: [0 0 INTC 27.5 ]) (id: 0 attributes: [3 5 RIMM 118.5 ])"
           " (id: 0 attributes: [4 6 QQQ 36.5 ]) )\nsome log line\n"
           "[0,2], ((id: 1 attributes: [0 0 INTC 27.5 ]) (id: 0 attributes: [2 2 QQQ 36 ])"
           " (id: 0 attributes: [1 1 RIMM 117 ]) )\n")
    assert printed(out) == [[0, 3, 4], [0, 1, 2]]


#: Kleene's NEXT on Q: of the two complex events of [0,4], the one with 1 (hand-computed).
NEXT = frozenset({(0, 1, 2), (0, 1, 4)})


@pytest.mark.parametrize("strategy, limit, kleene, answer, klass", [
    ("", "", INCLUSIVE, INCLUSIVE, "agree"),
    ("ALL", "", INCLUSIVE, STRICT, "strict time window"),
    ("NEXT", "", NEXT, INCLUSIVE, "strategy read as ALL"),
    ("NEXT", "", NEXT, NEXT, "agree"),
    # LAST read strictly is {0,1,2} too: the window explains it before the strategy
    ("LAST", "", frozenset({(0, 1, 2), (0, 3, 4)}), STRICT, "strict time window"),
    # LIMIT 1: one complex event at 2 and one at 4, CORE's the other of [0,4]
    ("", " LIMIT 1", NEXT, frozenset({(0, 1, 2), (0, 3, 4)}), "limit's choice"),
    ("", " LIMIT 1", NEXT, INCLUSIVE, "differ"),
    ("", "", INCLUSIVE, frozenset({(0, 1, 4)}), "differ"),
])
def test_a_disagreement_is_classified(monkeypatch: pytest.MonkeyPatch, strategy: str,
                                      limit: str, kleene: frozenset[tuple[int, ...]],
                                      answer: frozenset[tuple[int, ...]], klass: str) -> None:
    monkeypatch.setattr(core, "core_matches", lambda text, s, timeout: (answer, "fake"))
    verdict = core.compare(Q.format(strategy) + limit, TICKS)
    assert verdict.kleene == kleene and verdict.klass == klass
    assert verdict.missing == kleene - answer and verdict.extra == answer - kleene


def test_a_missing_peer_says_how_to_install_it() -> None:
    with pytest.raises(FileNotFoundError, match="make peers"):
        core.core_matches(Q.format(""), TICKS, python=core.PEERS / "no-such" / "python")


def test_the_worker_sees_loopback_alone_where_namespaces_are_allowed() -> None:
    """pycer's offline server listens on ``tcp://*``: the worker runs where only loopback
    exists when the system allows it, else as it is (both said by :func:`core.isolated`)."""
    command = [sys.executable, "-c",
               "import socket; print(sorted(n for _, n in socket.if_nameindex()))"]
    if not core._can_isolate():
        assert core.isolated(command) == command
        return
    seen = subprocess.run(core.isolated(command), capture_output=True, text=True, check=True)
    assert seen.stdout.strip() == "['lo']"
