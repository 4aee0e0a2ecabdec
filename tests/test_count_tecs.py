"""Listing SREMO and CEQL matches from a shared structure of partial matches, CORE's tECS
(issue 31 item 3; engines/count/tecs.py, docs/counting.md).

The oracle is the reference's streaming match set (docs/architecture.md, "SREMO
streaming"; CEL's ``ALL`` for a CEQL query): on drawn expressions and streams, on the
corpus's SREMO and Wayeb cases, and by hand. The memory bound is checked on the nodes the
structure holds, against a bound computed from the window, not from the matches.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kleene.conformance.cases import iter_tests, load_case_files
from kleene.engines.count import first, tecs
from kleene.reference.events import Stream
from kleene.reference.match import Match
from kleene.reference.query import Query
from tests.helpers import Cut, columnar, run_cli, typed_stream
from tests.test_count_sremo import ROWS, ceql, counted_expressions


def listed(query: Query, source: object) -> list[Match]:
    got = list(tecs.matches(query, source))   # type: ignore[arg-type]
    return got


def delays(query: Query, s: Stream) -> list[tuple[Match, int]]:
    """Each match the structure lists on ``s``, with the nodes its walks entered since the
    match before it (or since the walk began): the delay, counted in nodes."""
    structure = tecs.structure(query)
    structure.steps = steps = tecs.Steps()
    got = []
    for p, ts, m, key, run in structure.minterms(s):
        for match in structure.feed(p, ts, m, key, run):
            got.append((match, steps.entered))
            steps.entered = 0
    return got


@given(counted_expressions(), ROWS, st.sampled_from(("inclusive", "strict")),
       st.lists(st.integers(1, 4), max_size=3))
def test_the_structure_lists_the_references_matches(e, s, reading, cuts):
    """≥ 300 drawn examples in the count's fragment: the structure lists each match of the
    reference once (no duplicate: the list has the set's length), in the order of their
    last event, whether the events come one by one, as columns or in batches cut at
    ``cuts``; and the first K are the reference's K least by last position, then text.
    Before each match the walk entered at most two nodes per position of it (a union
    and an output node per mark, ``⊥``: docs/counting.md, "The window")."""
    query = Query.of(e, language="sremo", reading=reading).with_time_unit(s.time_unit)
    assert not isinstance(tecs.claims(query), str)
    expected = query.reference(s)
    for source in (s, columnar(s), Cut(s, cuts)):
        got = listed(query, source)
        assert len(got) == len(expected) and set(got) == expected
        assert [m.last for m in got] == sorted(m.last for m in got)
    for match, entered in delays(query, s):
        assert entered <= 2 * len(match.positions), (match, entered)
    k = 1 + len(expected) // 2
    found = first.first_matches(query, s, k)
    assert found.backend == tecs.NAME
    assert list(found.matches) == sorted(expected, key=first.order)[:k]


def test_every_sremo_and_wayeb_case_the_structure_claims():
    """Each SREMO and Wayeb case with a hand-computed match set under ``stream`` that the
    structure claims: it lists exactly that set (at least 100 cases claimed)."""
    claimed = 0
    for case, test in iter_tests(load_case_files()):
        if test.check != "matches" or case.language not in ("sremo", "wayeb"):
            continue
        for expected in test.expectations():
            if expected.matches is None or test.policy not in (None, "stream"):
                continue
            s = case.stream_of(test)
            query = Query.parse(case.pattern, language=case.language, policy=test.policy,
                                reading=expected.reading).with_time_unit(s.time_unit)
            if isinstance(tecs.claims(query), str):
                continue
            got = listed(query, s)
            assert len(got) == len(expected.matches), (case.description, test.description)
            assert set(got) == set(expected.matches), (case.description, test.description)
            claimed += 1
    assert claimed >= 100


def test_a_then_any_set_of_bs_by_hand():
    """``A ; B+`` on A B B B: the matches end at 1 ({0,1}), 2 ({0,2}, {0,1,2}) and 3
    ({0,3}, {0,1,3}, {0,2,3}, {0,1,2,3}): 7, listed by last event. ``WITHIN 2 EVENTS``
    (the last position minus the first at most 2, as tests/test_count_sremo.py reads it):
    {0,1}, then {0,2} and {0,1,2}."""
    s = typed_stream("A", "B", "B", "B")
    got = listed(Query.parse(ceql("A ; B+"), language="ceql"), s)
    assert [m.positions for m in got][:1] == [(0, 1)]
    assert sorted(m.positions for m in got) == sorted([
        (0, 1), (0, 2), (0, 1, 2), (0, 3), (0, 1, 3), (0, 2, 3), (0, 1, 2, 3)])
    assert [m.last for m in got] == [1, 2, 2, 3, 3, 3, 3]
    windowed = listed(Query.parse(ceql("A ; B+", "WITHIN 2 EVENTS"), language="ceql"), s)
    assert [m.positions for m in windowed][:1] == [(0, 1)]
    assert sorted(m.positions for m in windowed) == [(0, 1), (0, 1, 2), (0, 2)]


def test_the_first_matches_stop_reading():
    """``A ; B+`` on A B B B: the first 3 (by last position then text: {0,1}, then {0,1,2}
    and {0,2}, whose JSON texts sort so) are found after reading 3 events of 4."""
    s = typed_stream("A", "B", "B", "B")
    got = first.first_matches(ceql("A ; B+"), s, 3)
    assert [m.positions for m in got.matches] == [(0, 1), (0, 1, 2), (0, 2)]
    assert got.backend == tecs.NAME and got.events == 3 and got.why is None


def held(structure: tecs.Structure) -> int:
    """The nodes the structure holds: those made on the window's elements."""
    return sum(len(made) for part in structure.parts.values() for _, made in part.held)


def test_memory_is_bounded_by_the_window_not_by_the_matches():
    """``A ; B+`` within 8 events over A and B alternating for 2,000 events: the matches
    grow with the stream (every A with any set of the 3 or 4 Bs after it within the
    window: 7 or 15 each), while the nodes held stay below, per element of the window,
    ``n`` output nodes and ``3n`` melds of at most ``1 + r`` unions each (``n``
    determinized states, ``r`` the largest rank of a heap melded: a leftist heap of rank
    ``r`` has at least ``2^r − 1`` nodes, so ``r`` is at most log2 of the nodes held plus
    one), whatever the position."""
    s = typed_stream(*["A" if i % 2 == 0 else "B" for i in range(2000)])
    query = Query.parse(ceql("A ; B+", "WITHIN 8 EVENTS"), language="ceql")
    structure = tecs.structure(query)
    n_matches, rank = 0, 0
    for p, ts, m, key, run in structure.minterms(s):
        n_matches += sum(1 for _ in structure.feed(p, ts, m, key, run))
        rank = max([rank, *(n.rank for part in structure.parts.values()
                            for _, made in part.held for n in made)])
        states = len(structure.automaton.states)
        assert 2 ** rank - 1 <= held(structure) <= 8 * (states + 3 * states * (1 + rank)), p
    assert n_matches > 5000


def test_a_partitioned_query_lists_each_part_in_stream_positions():
    """A B B A B B with k = 1 2 1 2 1 2, ``A ; B+ PARTITION BY [k]``: part 1 is A0 B2 B4
    ({0,2}, {0,4}, {0,2,4}), part 2 is B1 A3 B5 ({3,5}): 4, in stream positions."""
    rows = [("A", 0, {"k": 1}), ("B", 1, {"k": 2}), ("B", 2, {"k": 1}),
            ("A", 3, {"k": 2}), ("B", 4, {"k": 1}), ("B", 5, {"k": 2})]
    got = listed(Query.parse(ceql("A ; B+", "PARTITION BY [k]"), language="ceql"),
                 typed_stream(*rows))
    assert [m.positions for m in got][:1] == [(0, 2)]
    assert sorted(m.positions for m in got) == [(0, 2), (0, 2, 4), (0, 4), (3, 5)]


def test_a_register_keying_the_runs_is_not_claimed():
    """The count's keyed fragment is counted by key, not listed here: the reason is one
    line, and --first K still gives the reference's first K (by prefixes)."""
    text = "mark {~.L = 'A'} -> r ; {TRUE}* ; mark {~.k = r.k}"
    query = Query.parse(text, language="sremo")
    assert "register keying" in str(tecs.claims(query))
    s = Stream.from_rows([{"ts": i, "L": x, "k": k}
                          for i, (x, k) in enumerate([("A", 1), ("B", 1), ("B", 2)])])
    assert first.first_matches(query, s, 1).backend != tecs.NAME


def test_kleene_draw_the_structure_after_three_events(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]):
    """``A ; B+`` on A B B: after the three events the structure holds an output node for
    each of positions 0, 1 and 2 (each a mark some partial match makes), the start ``⊥``,
    and three matches have ended ({0,1} at 1, {0,2} and {0,1,2} at 2); after one event,
    one output node (0) and none ended. An SES pattern is refused in one line."""
    events = tmp_path / "e.csv"
    events.write_text("ts,type\n0,A\n1,B\n2,B\n", encoding="utf-8")
    code, out, _ = run_cli(capsys, "draw", ceql("A ; B+"), "--structure", str(events),
                           "--after", "3", "--format", "dot")
    assert code == 0
    marks = sorted(set(re.findall(r'label="(\d+)\\nstart', out)))
    assert marks == ["0", "1", "2"] and "⊥" in out
    assert "after 3 events (3 matches ended)" in out
    code, out, _ = run_cli(capsys, "draw", ceql("A ; B+"), "--structure", str(events),
                           "--after", "1", "--format", "dot")
    assert re.findall(r'label="(\d+)\\nstart', out) == ["0"]
    assert "after 1 event (0 matches ended)" in out
    code, _, err = run_cli(capsys, "draw", "PATTERN <{a}> WITHIN 3", "--structure",
                           str(events))
    assert code == 2 and len(err.strip().splitlines()) == 1 and "--structure" in err


def test_kleene_match_first_says_it_lists_from_the_structure(
        capsys: pytest.CaptureFixture[str]):
    """``--first 4`` of seq3 as CEQL on the example's 1,000 stock events: the four matches
    of the example (a SELL of INTC at 217 or 218, a BUY of RIMM at 219 or 222, the BUY of
    QQQ at 223: 2 × 2, all ending at 223, by text), reading 224 events, and stderr says
    the structure listed them."""
    code, out, err = run_cli(capsys, "match", "--pattern", "examples/stocks/seq3.ceql",
                             "--events", "examples/stocks/stocks.stream", "--first", "4")
    assert code == 0
    assert out.splitlines() == ['{"marked": [217, 219, 223]}', '{"marked": [217, 222, 223]}',
                                '{"marked": [218, 219, 223]}', '{"marked": [218, 222, 223]}']
    assert "shared structure" in err and "the first 224 events of 1,000" in err



def test_kleene_match_output_from_the_structure(capsys: pytest.CaptureFixture[str],
                                               tmp_path: Path):
    """``--output`` with no engine named writes from the structure (the writer that sorts
    in runs and writes in batches): the four matches of the test above (by hand), the
    same file byte for byte as ``--engine srt`` writes."""
    ours, srt = tmp_path / "tecs.jsonl", tmp_path / "srt.jsonl"
    for out, more in ((ours, ()), (srt, ("--engine", "srt"))):
        code, _, err = run_cli(capsys, "match", "--pattern", "examples/stocks/seq3.ceql",
                               "--events", "examples/stocks/stocks.stream",
                               "--output", str(out), *more)
        assert code == 0 and "wrote 4 matches" in err
    assert "shared structure" not in err
    rows = [json.loads(line) for line in ours.read_text().splitlines()]
    by_match: dict[int, list[int]] = {}
    for row in rows:
        by_match.setdefault(row["match"], []).append(row["position"])
    assert sorted(by_match.values()) == [[217, 219, 223], [217, 222, 223],
                                         [218, 219, 223], [218, 222, 223]]
    assert ours.read_bytes() == srt.read_bytes()

def test_a_union_is_a_heap_by_start_and_the_walk_enters_only_what_fits():
    """The output nodes 1, 3 and 5 (each marking its position over ``⊥``, so each word's
    first mark is its position), melded: the union's head is 5, the latest start. From 3
    on, the words {5} and {3}; from 4 on, {5} alone, after entering the union, the node 5
    and ``⊥`` (3 nodes: the heap of 3 and 1 is not entered); from any start, all three.
    Melded again with 4 from 4 on, the heaps below 4 are dropped: {5} and {4}."""
    five, three, one, four = (tecs.Node(p, p, (tecs.BOTTOM,)) for p in (5, 3, 1, 4))
    made: list[tecs.Node] = []
    union = tecs.meld(tecs.meld(one, three, -math.inf, made), five, -math.inf, made)
    assert union.children[0] is five and union.start == 5
    assert [list(w) for w in tecs.paths(union, 3)] == [[5], [3]]
    steps = tecs.Steps()
    assert [list(w) for w in tecs.paths(union, 4, steps)] == [[5]]
    assert steps.entered == 3
    assert sorted(list(w) for w in tecs.paths(union, -math.inf)) == [[1], [3], [5]]
    again = tecs.meld(union, four, 4, made)
    assert sorted(list(w) for w in tecs.paths(again, -math.inf)) == [[4], [5]]
    assert [list(w) for w in tecs.paths(tecs.BOTTOM, 0)] == [[]]


def test_the_delay_does_not_grow_with_the_expired_partial_matches():
    """CEQL ``((A ; B) OR D) ; C`` on A D, then n Bs, then C (n = 40, 400), within n + 1
    events (the last position minus the first at most n + 1): the C at n + 2 ends one
    match, {1, n + 2} (the D's), by hand: the A at 0 left its window, and with it the n
    partial matches {0, b} waiting for a C, all older than {1}. The walk enters 3 nodes
    before it (a union, the node 1, ``⊥``), whatever n: at most 2 per position. Without
    the window the C ends n + 1 matches ({1, n + 2} and each {0, b, n + 2}), each after
    at most 2 nodes per position. (The structure before this one kept the partial
    matches waiting for a C as a chain of n unions, each with an expired branch, and
    entered n + 1 nodes before the one match.)"""
    for n in (40, 400):
        s = typed_stream("A", "D", *["B"] * n, "C")
        windowed = delays(Query.parse(ceql("((A ; B) OR D) ; C", f"WITHIN {n + 1} EVENTS"),
                                      language="ceql"), s)
        assert [(m.positions, entered) for m, entered in windowed] == [((1, n + 2), 3)]
        whole = delays(Query.parse(ceql("((A ; B) OR D) ; C"), language="ceql"), s)
        assert sorted(m.positions for m, _ in whole) == sorted(
            [(1, n + 2)] + [(0, b, n + 2) for b in range(2, n + 2)])
        assert all(entered <= 2 * len(m.positions) for m, entered in whole)
