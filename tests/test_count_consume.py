"""Counting a CEQL query's output under ``CONSUME BY`` and ``LIMIT`` without listing its
``ALL`` set (issue 31 item 2; engines/count/consume.py, docs/counting.md).

The oracle is the listing of ``srt+selection`` (the ``ALL`` set on ``srt``, then the
reference's own :func:`~kleene.reference.ceql.selection.kept`), and the reference itself:
on drawn expressions, streams, consumptions and limits, with and without ``PARTITION
BY``, and with a register keying the runs; every hand case of tests/test_ceql_selection.py
is counted there too. Both windowed counters (one product over the window, one vector per
start) are checked alone. The counts by hand say how each is worked out.
"""

from __future__ import annotations

import math
from unittest import mock

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kleene.engines.count import ending, sremo
from kleene.engines.count.counting import DP, count_matches
from kleene.engines.count.ending import Element
from kleene.engines.fastest import find_matches
from kleene.reference.ceql.selection import CONSUMPTIONS, Selected, kept
from kleene.reference.events import Stream
from kleene.reference.query import Query
from kleene.reference.sremo import matches
from kleene.reference.sremo.expressions import Expr, Partition
from kleene.reference.sremo.strategies import rewrite
from tests.helpers import Cut, columnar, typed_stream
from tests.test_count_sremo import ROWS, counted_expressions, keyed_expressions

LIMITS = st.sampled_from((None, None, 1, 2, 3))
#: The estimate of ending.counter forced: one vector per start, or the sliding product.
CHOICES = {"per start": 0.0, "sliding": math.inf}


def _listed(query: Query, s: Stream) -> int:
    """The number ``srt+selection`` lists, which is the reference's."""
    listed = find_matches(query, s, engine_name="srt+selection")
    assert listed.matches == query.reference(s)
    return len(listed.matches)


def _kept(body: Expr, consumption: str, limit: int | None, reading: str,
          s: Stream, strategy: str = "ALL") -> Query:
    """``SELECT strategy`` of ``body`` with the consumption and limit, strategy operators
    rewritten (CEQL has none: ``ANY(e)`` is its definition, seed 004 Def. 44)."""
    plain = Partition(rewrite(body.body), body.by) if isinstance(body, Partition) \
        else rewrite(body)
    return Query.of(Selected(plain, strategy, consumption, limit), language="ceql",
                    reading=reading).with_time_unit(s.time_unit)


@given(counted_expressions(), ROWS, st.sampled_from(CONSUMPTIONS), LIMITS,
       st.sampled_from(("inclusive", "strict")), st.lists(st.integers(1, 4), max_size=3))
def test_the_count_is_what_srt_selection_lists(e, s, consumption, limit, reading, cuts):
    """≥ 300 drawn examples: every consumption with and without a limit, on drawn
    expressions of the counted fragment (windows in events, in time or none, partitioned
    by ``ID`` or not): the count is the number ``srt+selection`` lists, the events read
    one by one, as a loaded stream's columns or in batches cut at ``cuts``, with either
    windowed counter."""
    query = _kept(e, consumption, limit, reading, s)
    assert sremo.outside(query) is None
    expected = _listed(query, s)
    for estimate in CHOICES.values():
        with mock.patch.object(ending, "started", lambda *_, x=estimate: x):
            assert sremo.count(query, s) == expected
            assert sremo.count(query, columnar(s)) == expected
            assert sremo.count(query, Cut(s, cuts)) == expected


@given(keyed_expressions(), ROWS, st.sampled_from(CONSUMPTIONS), LIMITS)
def test_a_register_keying_the_runs_is_consumed_across_keys(e, s, consumption, limit):
    """≥ 300 drawn examples: a register holding each run's first element splits the
    matches by key, but the query has one evaluator (no ``PARTITION BY``): an output in
    one key restarts every key, and a limit caps the complex events of all keys ending at
    one event."""
    query = _kept(e, consumption, limit, "inclusive", s)
    assert isinstance(query.pattern, Selected)
    assert sremo.outside(query) is None
    # CEQL has no registers, so no engine lists this query: the reference's definition
    expected = kept(query.pattern, matches(query.pattern.body, s), s)
    assert sremo.count(query, s) == len(expected)


def _query(text: str) -> str:
    return "SELECT * FROM S WHERE " + text


def test_a_then_bs_by_hand():
    """A then 70 Bs, ``A ; B+``: ending at the i-th B (i = 1..70) are the 2^(i−1) sets of
    Bs whose last is it. ``LIMIT 3``: 1 + 2 + 3·68 = 207; ``CONSUME BY ANY``: {A, B1} at
    B1, then nothing starts after it but Bs: 1; with a second A after B1 (A B A B ...):
    the second output is {A2, B} at the B after A2."""
    s = typed_stream("A", *["B"] * 70)
    for text, expected in (("A ; B+ LIMIT 3", 207), ("A ; B+ CONSUME BY ANY", 1),
                           ("A ; B+ CONSUME BY ANY LIMIT 1", 1), ("A ; B+", 2 ** 70 - 1)):
        got = count_matches(_query(text), s)
        assert got.backend == DP and got.count == expected, text
    again = typed_stream("A", "B", "A", "B", "B")
    got = count_matches(_query("A ; B+ CONSUME BY ANY"), again)
    assert got.count == 2


def test_consumption_across_parts_by_hand():
    """``BUY ; SELL PARTITION BY [name]`` on X:BUY Y:BUY X:SELL Y:SELL X:BUY X:SELL: X's
    pairs {0,2}, {0,5}, {4,5}, Y's {1,3}. ``ANY``: {0,2} at 2 restarts both names, so Y's
    {1,3} is lost; from 3: {4,5} at 5: 2. ``PARTITION``: X outputs {0,2} then {4,5}, Y
    {1,3}: 3. ``NONE`` with ``LIMIT 1``: one at 2, 3 and 5: 3."""
    rows = [("BUY", "X"), ("BUY", "Y"), ("SELL", "X"), ("SELL", "Y"), ("BUY", "X"),
            ("SELL", "X")]
    s = typed_stream(*((kind, ts, {"name": n}) for ts, (kind, n) in enumerate(rows)))
    text = "BUY ; SELL PARTITION BY [name] {}"
    for suffix, expected in (("CONSUME BY ANY", 2), ("CONSUME BY PARTITION", 3),
                             ("LIMIT 1", 3), ("", 4)):
        got = count_matches(_query(text.format(suffix)), s)
        assert got.backend == DP and got.count == expected, suffix
        assert got.count == len(find_matches(_query(text.format(suffix)), s).matches)


def test_a_strategy_is_listed_and_says_so():
    s = typed_stream("SELL", "BUY", "BUY")
    got = count_matches(_query("SELL ; BUY+").replace("SELECT *", "SELECT MAX *"), s)
    assert got.backend == "srt+selection" and got.count == 2
    assert got.why == ("counting covers SELECT ALL, NEXT and LAST, not MAX (which "
                       "compares the complex events of one interval by inclusion)")


class _Toy:
    """``mark A ; mark B`` skipping nothing, determinized by hand: state 0 is the all-0
    word (fresh), 1 the words that marked an A; minterm 1 is A, 2 is B. Marking an A from
    0 goes to 1; marking a B from 1 reports (and nothing follows); unmarked, each stays."""

    states = [0, 1]
    zero: dict[int, list[int | None]] = {1: [0, 1], 2: [0, 1]}
    one: dict[int, list[int | None]] = {1: [1, None], 2: [None, None]}
    reports: dict[int, list[int]] = {1: [], 2: [1]}

    def matrix(self, m: int) -> list[list[tuple[int, int]]]:
        rows: list[list[tuple[int, int]]] = []
        for a, b in zip(self.zero[m], self.one[m], strict=True):
            row: dict[int, int] = {} if a is None else {a: 1}
            if b is not None:
                row[b] = row.get(b, 0) + 1
            rows.append(sorted(row.items()))
        return rows

    def zero_power(self, m: int, times: int) -> list[int | None]:
        return list(self.zero[m])


@pytest.mark.parametrize(("rows", "tau", "average", "chosen"), [
    # A A A B at ts 0..3 within 10: 0, 1, 2, 3 As open before each: 1.5 ≤ 2 states
    ("AAAB", 10, 1.5, ending.PerStart),
    # within 1: before A1 A0; before A2 A1; before B3 A2 (A0 and A1 no longer fit)
    ("AAAB", 1, 0.75, ending.PerStart),
    # seven As then B within 10: 0 + 1 + ... + 7 over 8 elements = 3.5 > 2 states
    ("AAAAAAAB", 10, 3.5, ending.Sliding),
])
def test_the_estimate_chooses_the_counter_by_hand(rows: str, tau: int, average: float,
                                                   chosen: type) -> None:
    """The estimate (engines/count/ending.py): the As open in the window before each
    element, on average; either counter then counts each A before the B that fits: as
    many as the As within τ of the B (3, 1, 7)."""
    elements: list[Element] = [[i, i, 1 if x == "A" else 2, 0, i] for i, x in enumerate(rows)]
    toy = _Toy()
    assert ending.started(toy, elements, tau, "inclusive", True) == average
    assert type(ending.counter(toy, elements, (tau, "inclusive", True))) is chosen
    expected = len([i for i, x in enumerate(rows) if x == "A" and len(rows) - 1 - i <= tau])
    for kind in (ending.PerStart, ending.Sliding):
        c = kind(toy, tau, "inclusive", True)
        assert sum(c.feed(x) for x in elements) == expected


@given(counted_expressions(), ROWS, st.sampled_from(("NEXT", "LAST")),
       st.sampled_from(CONSUMPTIONS), LIMITS, st.sampled_from(("inclusive", "strict")),
       st.lists(st.integers(1, 4), max_size=3))
def test_next_and_last_count_one_per_interval(e, s, strategy, consumption, limit, reading,
                                              cuts):
    """≥ 300 drawn examples: ``SELECT NEXT|LAST`` (one complex event per interval that has
    any), with every consumption and limit, counted by interval
    (engines/count/ending.Intervals), is the number ``srt+selection`` lists (the
    reference's :func:`~kleene.reference.ceql.selection.select` over the ``ALL`` set)."""
    query = _kept(e, consumption, limit, reading, s, strategy)
    assert sremo.outside(query) is None
    expected = _listed(query, s)
    assert sremo.count(query, s) == expected
    assert sremo.count(query, columnar(s)) == expected
    assert sremo.count(query, Cut(s, cuts)) == expected


def test_next_and_last_by_hand():
    """``A ; B`` on A A B B (positions 0-3), no window: the ``ALL`` set is {0,2}, {0,3},
    {1,2}, {1,3}: four intervals of one complex event each, so NEXT and LAST keep 4;
    ``(A ; B) OR (A ; A ; B)`` adds {0,1,2}, {0,1,3}, sharing the intervals [0,2] and
    [0,3]: still 4 intervals, so 4 where ALL has 6; ``CONSUME BY ANY``: at 2 the
    intervals [0,2] and [1,2] are output, then nothing starts after 2: 2."""
    import kleene

    s = typed_stream("A", "A", "B", "B")
    for text, expected in (("SELECT {} * FROM S WHERE A ; B", 4),
                           ("SELECT {} * FROM S WHERE (A ; B) OR (A ; A ; B)", 4),
                           ("SELECT {} * FROM S WHERE (A ; B) OR (A ; A ; B) "
                            "CONSUME BY ANY", 2)):
        for strategy in ("NEXT", "LAST"):
            counted = kleene.count_matches(text.format(strategy), s)
            assert (counted.count, counted.backend) == (expected, DP), (text, strategy)
    assert kleene.count_matches("SELECT ALL * FROM S WHERE (A ; B) OR (A ; A ; B)",
                                s).count == 6
