"""CEQL's selection strategies, consumption policies and LIMIT (issue 31 item 1;
reference/ceql/selection.py, docs/ceql.md "Strategies and consumption").

Every expected set is worked out by hand, on streams of a few ticks: the strategies from
CEL's orders (TODS 2021, Sec. 4: per interval, NEXT the complex event whose earliest
differing event is its own, LAST the one whose latest differing event is its own, MAX the
⊆-maximal ones, STRICT the intervals), consumption from what CORE's evaluator does (an
output resets it before the next event), LIMIT as a cap at each event. A Hypothesis
property checks the sort keys against CEL's orders as written (the symmetric difference).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import kleene
from kleene.reference.ceql.parser import parse_ceql
from kleene.reference.ceql.selection import Selected, consumed, select
from kleene.reference.events import Stream
from kleene.reference.match import Match
from tests.helpers import run_cli, typed_stream

Positions = set[tuple[int, ...]]

#: SELL INTC, BUY RIMM, BUY QQQ, BUY RIMM, BUY QQQ at ts 0..4.
TICKS = typed_stream(*((kind, ts, {"name": name}) for ts, (kind, name) in enumerate(
    (("SELL", "INTC"), ("BUY", "RIMM"), ("BUY", "QQQ"), ("BUY", "RIMM"), ("BUY", "QQQ")))))
ABC = ("SELECT {} * FROM S WHERE (SELL as a; BUY as b; BUY as c) FILTER a[name = 'INTC'] "
       "AND b[name = 'RIMM'] AND c[name = 'QQQ'] WITHIN 100 [ts] {}")


def found(text: str, s: Stream) -> Positions:
    """The matches of CEQL ``text`` on ``s`` by the reference; the backend
    ``kleene.find_matches`` chooses gives the same (``srt+selection`` when the query keeps
    part of its complex events, ``srt`` otherwise), and ``kleene.count_matches`` their
    number, without listing them unless ``MAX`` or ``STRICT`` compares them by inclusion
    (engines/count/consume.py: ``NEXT`` and ``LAST`` are counted by interval)."""
    result = kleene.find_matches(text, s, engine="reference")
    chosen = kleene.find_matches(text, s)
    assert result.query.language == "ceql" and chosen.matches == result.matches
    selected = isinstance(result.query.pattern, Selected)
    assert chosen.backend == ("srt+selection" if selected else "srt")
    counted = kleene.count_matches(text, s)
    assert counted.count == len(result.matches)
    pattern = result.query.pattern
    compared = isinstance(pattern, Selected) and pattern.strategy in ("MAX", "STRICT")
    assert (counted.backend == "srt+selection") == compared, counted.why
    return {m.positions for m in result.matches}


def test_all_on_the_ticks_is_three_complex_events() -> None:
    # {0,1,2}; and ending at 4 with interval [0,4]: {0,1,4} and {0,3,4}
    assert found(ABC.format("", ""), TICKS) == {(0, 1, 2), (0, 1, 4), (0, 3, 4)}


@pytest.mark.parametrize("strategy, expected", [
    ("ALL", {(0, 1, 2), (0, 1, 4), (0, 3, 4)}),
    # [0,4]: {0,1,4} Δ {0,3,4} = {1,3}: NEXT keeps the one with 1, LAST the one with 3
    ("NEXT", {(0, 1, 2), (0, 1, 4)}),
    ("LAST", {(0, 1, 2), (0, 3, 4)}),
    # neither of {0,1,4}, {0,3,4} holds the other
    ("MAX", {(0, 1, 2), (0, 1, 4), (0, 3, 4)}),
    # only {0,1,2} holds every position of its interval
    ("STRICT", {(0, 1, 2)}),
])
def test_strategies_on_the_ticks(strategy: str, expected: Positions) -> None:
    assert found(ABC.format(strategy, ""), TICKS) == expected


def test_max_keeps_the_complex_events_no_other_of_their_interval_holds() -> None:
    # SELL ; BUY+ on SELL BUY BUY: {0,1}, {0,2}, {0,1,2}; [0,2] holds {0,2} ⊂ {0,1,2}
    s = typed_stream("SELL", "BUY", "BUY")
    q = "SELECT {} * FROM S WHERE SELL ; BUY+"
    assert found(q.format("ALL"), s) == {(0, 1), (0, 2), (0, 1, 2)}
    assert found(q.format("MAX"), s) == {(0, 1), (0, 1, 2)}
    # {0,2} Δ {0,1,2} = {1}, in {0,1,2}: the least for ≤next and the greatest for ≤last
    assert found(q.format("NEXT"), s) == {(0, 1), (0, 1, 2)}
    assert found(q.format("LAST"), s) == {(0, 1), (0, 1, 2)}


def test_consume_by_any_restarts_after_each_output() -> None:
    # four BUYs, BUY ; BUY: {0,1} ends first (at 1); from 2 on, {2,3} (measured on CORE,
    # docs/ceql.md); without consumption the six pairs
    s = typed_stream("BUY", "BUY", "BUY", "BUY")
    q = "SELECT * FROM S WHERE BUY as b ; BUY as c {}"
    assert len(found(q.format(""), s)) == 6
    assert found(q.format("CONSUME BY ANY"), s) == {(0, 1), (2, 3)}
    # without PARTITION BY, one evaluator: PARTITION is ANY
    assert found(q.format("CONSUME BY PARTITION"), s) == {(0, 1), (2, 3)}


def test_consume_by_any_outputs_every_complex_event_of_its_event() -> None:
    # the ticks: {0,1,2} at 2, then nothing starts at 3 or later
    assert found(ABC.format("", "CONSUME BY ANY"), TICKS) == {(0, 1, 2)}
    # SELL ; BUY+ on SELL BUY BUY SELL BUY: at 1 {0,1}; from 2: {3,4} at 4
    s = typed_stream("SELL", "BUY", "BUY", "SELL", "BUY")
    assert found("SELECT * FROM S WHERE SELL ; BUY+ CONSUME BY ANY", s) == {(0, 1), (3, 4)}


#: BUY X, BUY Y, BUY X, BUY Y, BUY Y: BUY ; BUY in each name is {0,2}; {1,3}, {1,4}, {3,4}.
NAMES = typed_stream(*(("BUY", ts, {"name": n}) for ts, n in enumerate("XYXYY")))
PAIRS = "SELECT * FROM S WHERE BUY ; BUY PARTITION BY [name] {}"


@pytest.mark.parametrize("consume, expected", [
    ("", {(0, 2), (1, 3), (1, 4), (3, 4)}),
    # the output {0,2} at 2 resets Y's evaluator too: {1,3} and {1,4} are lost, {3,4} not
    ("CONSUME BY ANY", {(0, 2), (3, 4)}),
    # each name its own evaluator: Y outputs {1,3} at 3, then nothing starts after 3 but 4
    ("CONSUME BY PARTITION", {(0, 2), (1, 3)}),
])
def test_consumption_across_partitions(consume: str, expected: Positions) -> None:
    assert found(PAIRS.format(consume), NAMES) == expected


def test_limit_caps_the_complex_events_at_each_event() -> None:
    # at 2 one ends ({0,1,2}), at 4 two: the least by canonical text, {0,1,4}
    assert found(ABC.format("", "LIMIT 1"), TICKS) == {(0, 1, 2), (0, 1, 4)}
    assert found(ABC.format("", "LIMIT 2"), TICKS) == {(0, 1, 2), (0, 1, 4), (0, 3, 4)}
    # BUY ; BUY on four BUYs: ending at 1, 2, 3: 1, 2, 3 pairs; LIMIT 2: 1 + 2 + 2
    s = typed_stream("BUY", "BUY", "BUY", "BUY")
    assert len(found("SELECT * FROM S WHERE BUY ; BUY LIMIT 2", s)) == 5


def test_strategy_then_consumption_then_limit() -> None:
    q = parse_ceql("SELECT LAST * FROM S WHERE SELL ; BUY CONSUME BY ANY LIMIT 4")
    assert isinstance(q, Selected)
    assert (q.strategy, q.consumption, q.limit) == ("LAST", "ANY", 4)
    # the defaults read into the plain SREMO expression, as before
    assert not isinstance(parse_ceql("SELECT ALL * FROM S WHERE A CONSUME BY NONE"),
                          Selected)


def test_kleene_match_runs_a_consuming_query(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    events = tmp_path / "buys.jsonl"
    events.write_text("".join(f'{{"ts": {i}, "type": "BUY"}}\n' for i in range(4)))
    query = tmp_path / "q.ceql"
    query.write_text("SELECT * FROM S WHERE BUY ; BUY\nCONSUME BY ANY\n")
    code, out, _ = run_cli(capsys, "match", "--pattern", str(query), "--events", str(events))
    assert code == 0 and out.splitlines() == ['{"marked": [0, 1]}', '{"marked": [2, 3]}']


def test_count_of_a_consuming_query_without_listing(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """Four BUYs, ``BUY ; BUY`` consumed by ANY: {0,1} and {2,3} (above), so 2, where CEL's
    ALL set has C(4, 2) = 6; counted without listing either (engines/count/consume.py)."""
    events = tmp_path / "buys.jsonl"
    events.write_text("".join(f'{{"ts": {i}, "type": "BUY"}}\n' for i in range(4)))
    query = tmp_path / "q.ceql"
    query.write_text("SELECT * FROM S WHERE BUY ; BUY\nCONSUME BY ANY\n")
    code, out, err = run_cli(capsys, "match", "--pattern", str(query), "--events", str(events),
                             "--count")
    assert code == 0 and out.strip() == "2"
    assert "counting without listing the matches" in err
    query.write_text("SELECT * FROM S WHERE BUY ; BUY\n")
    code, out, _ = run_cli(capsys, "match", "--pattern", str(query), "--events", str(events),
                           "--count")
    assert code == 0 and out.strip() == "6"


# ---------------------------------------------------------------- the orders as CEL writes them

def _next_le(c: frozenset[int], d: frozenset[int]) -> bool:
    return c == d or min(c ^ d) in c


def _last_le(c: frozenset[int], d: frozenset[int]) -> bool:
    return c == d or max(c ^ d) in d


def _interval_sets(draw: st.DrawFn) -> list[frozenset[int]]:
    first, last = 0, draw(st.integers(1, 6))
    inner = st.frozensets(st.integers(first + 1, last - 1), max_size=last - 1) if last > 1 \
        else st.just(frozenset())
    return [frozenset({first, last}) | x for x in draw(st.lists(inner, min_size=1,
                                                                max_size=8))]


@given(st.composite(_interval_sets)())
def test_next_last_max_are_cels_orders(sets: list[frozenset[int]]) -> None:
    """On complex events of one interval: NEXT keeps the C with C ≤next C' for every C',
    LAST the C with C' ≤last C for every C', MAX those no other holds (the definitions
    as written, over the symmetric difference)."""
    ms = {Match.marked(c) for c in sets}
    distinct = {frozenset(m.positions) for m in ms}
    assert {frozenset(m.positions) for m in select(ms, "NEXT")} == {
        c for c in distinct if all(_next_le(c, d) for d in distinct)}
    assert {frozenset(m.positions) for m in select(ms, "LAST")} == {
        c for c in distinct if all(_last_le(d, c) for d in distinct)}
    assert {frozenset(m.positions) for m in select(ms, "MAX")} == {
        c for c in distinct if not any(c < d for d in distinct)}


@given(st.lists(st.tuples(st.integers(0, 12), st.integers(0, 4)), max_size=12))
def test_consumption_is_the_restarting_procedure(spans: list[tuple[int, int]]) -> None:
    """``consumed`` against the procedure written as CORE runs it: event by event, a
    complex event is output at its last event unless it starts at or before an earlier
    output's event."""
    ms = {Match.marked(range(a, a + n + 1)) for a, n in spans}
    reset = -1
    expected = set()
    for j in range(20):
        ending = {m for m in ms if m.last == j and m.first > reset}
        expected |= ending
        if ending:
            reset = j
    assert consumed(ms) == expected
