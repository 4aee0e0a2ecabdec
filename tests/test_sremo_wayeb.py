"""The reader of Wayeb's ``.sre`` files (seed 004, Sec. 5 benchmark patterns)."""

from __future__ import annotations

import pytest

from kleene.data.bundled import bundled
from kleene.reference.conditions import And, Attr, Cmp, Const, Not, Or, Truth
from kleene.reference.durations import Duration
from kleene.reference.errors import PatternSyntaxError
from kleene.reference.events import Stream
from kleene.reference.match import Match
from kleene.reference.sremo.expressions import (
    Atom,
    Choice,
    Concat,
    Partition,
    Star,
    Strategy,
    Window,
)
from kleene.reference.sremo.streaming import matches, stream_matches
from kleene.reference.sremo.text import format_sremo, parse_sremo
from kleene.reference.sremo.wayeb import SreUnsupported, parse_sre, read_sre
from tests.helpers import letters

QUERIES = bundled("wayeb-queries")
FILES = sorted(QUERIES.glob("*.sre"))


def head(attr: str) -> Attr:
    return Attr("~", attr)


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_every_benchmark_file_parses_and_asks_for_its_time_window(path):
    query, = read_sre(str(path))
    # All of them carry {window:TIMESTAMP}{windowType:time}: a placeholder the benchmark
    # scripts fill in; the error points at the setting and names the time window.
    assert (query.window, query.window_type) == ("TIMESTAMP", "time")
    with pytest.raises(SreUnsupported, match="time_window=N") as err:
        query.to_expression(ignore_partition=True)
    assert err.value.line == 1 and path.read_text()[err.value.column - 1] == "{"
    e = query.to_expression(count_window=10, ignore_partition=True)
    assert isinstance(e, Window) and e.width == 10
    assert parse_sremo(format_sremo(e)) == e  # our syntax can print what we read
    t = query.to_expression(time_window=500, ignore_partition=True)
    assert isinstance(t, Window) and t.width == Duration(500) and query.reading == "strict"
    assert parse_sremo(format_sremo(t)) == t


def test_a_time_window_is_read_strictly_as_wayeb_does():
    query, = parse_sre("IsEventTypePredicate(A){window:2}{windowType:time}")
    e = query.to_expression()
    assert e == Window(query.body, Duration(2))
    s = Stream.from_rows([{"ts": t, "type": "A"} for t in (0, 1, 2)])
    one = parse_sre("#(;(IsEventTypePredicate(A),IsEventTypePredicate(A)))"
                    "{window:2}{windowType:time}")[0].to_expression()
    # marks 0 and 2 span 2 time units: inside [WITHIN 2] inclusively, outside strictly
    assert matches_at(one, s, "inclusive") == {(0, 1), (1, 2), (0, 2)}
    assert matches_at(one, s, query.reading) == {(0, 1), (1, 2)}


def matches_at(e, s, reading):
    return {dict(m.bindings)["~"] for m in matches(e, s, reading=reading)}


def test_stock_reg1_reads_as_skip_till_any_over_three_marked_conditions():
    text = ('#(;(^(IsEventTypePredicate(SELL),EQStr(name,INTC))["x"],'
            '^(IsEventTypePredicate(BUY),EQStr(name,RIMM)),'
            '^(IsEventTypePredicate(BUY),EQStr(name,QQQ),GTAttr(price,"x")))){window:5}')
    query, = parse_sre(text)
    sell = Cmp("=", head("type"), Const("SELL"))
    buy = Cmp("=", head("type"), Const("BUY"))
    expected = Strategy("any", Concat((
        Atom(And((sell, Cmp("=", head("name"), Const("INTC")))), True, "x"),
        Atom(And((buy, Cmp("=", head("name"), Const("RIMM")))), True),
        Atom(And((buy, Cmp("=", head("name"), Const("QQQ")),
                  Cmp(">", head("price"), Attr("x", "price")))), True))))
    assert query.body == expected
    assert (query.window, query.window_type) == (5, "count")  # Wayeb's default type
    assert query.to_expression() == Window(expected, 5)


def test_predicates_and_logical_operators():
    text = '|(-EQ(volume,4000.0),BT(price,-1.5,3),TruePredicate,LTE(v,2))'
    query, = parse_sre(text)
    (atom,) = [query.body]
    assert isinstance(atom, Atom) and atom.marked and atom.write is None
    assert atom.condition == Or((
        Not(Cmp("=", head("volume"), Const(4000.0))),
        And((Cmp(">=", head("price"), Const(-1.5)), Cmp("<", head("price"), Const(3)))),
        Truth(True),
        Cmp("<=", head("v"), Const(2))))
    assert format_sremo(atom) == ("mark {NOT ~.volume = 4000.0 OR (~.price >= -1.5 AND "
                                  "~.price < 3) OR TRUE OR ~.v <= 2}")


def test_operators_and_several_queries():
    text = ('+(IsEventTypePredicate(A),*(IsEventTypePredicate(B)))'
            ' & @(;(IsEventTypePredicate(A),IsEventTypePredicate(B))){window:3}{windowType:count}')
    first, second = parse_sre(text)
    assert isinstance(first.body, Choice) and isinstance(first.body.parts[1], Star)
    assert isinstance(second.body, Strategy) and second.body.kind == "next"
    # @(a, b) on a b b: the first b only (report Def. 45, normative reading).
    assert stream_matches(second.to_expression(), letters("A", "B", "B")) == \
        {Match.marked((0, 1))}


def test_star_with_several_arguments():
    # docs/errata.md#seed-004-nested-kleene: X, A, B, Y.
    text = ('#(;(IsEventTypePredicate(X),*(IsEventTypePredicate(A),IsEventTypePredicate(B)),'
            'IsEventTypePredicate(Y)))')
    s = letters("X", "A", "B", "Y")
    sequence, = parse_sre(text)
    first, = parse_sre(text, star="first")
    # (A ; B)*: zero iterations or A B -> {0,3}, {0,1,2,3}.
    assert stream_matches(sequence.body, s) == {Match.marked((0, 3)), Match.marked((0, 1, 2, 3))}
    # Wayeb keeps *(A): zero or one A, skipping B -> {0,3}, {0,1,3}.
    assert stream_matches(first.body, s) == {Match.marked((0, 3)), Match.marked((0, 1, 3))}


@pytest.mark.parametrize("text, column, expected", [
    (';(IsEventTypePredicate(A))', 1, ";( needs at least two arguments"),
    ('!(IsEventTypePredicate(A),IsEventTypePredicate(B))', 1, "!( takes exactly one argument"),
    ('WithinCirclePredicate(1.0,2.0,3.0)', 1, "WithinCirclePredicate has no counterpart"),
    ('EQStr(name)', 1, "EQStr takes 2 argument(s), got 1"),
    ('GTAttr(price,x)', 14, "a register in double quotes"),
    ('LT(price,"x")', 10, "a number"),
    ('IsEventTypePredicate(A)["x y"]', 25, "a register name in double quotes"),
    ('IsEventTypePredicate(A){window:0}', 32, "a positive window"),
    ('IsEventTypePredicate(A){windowType:hours}', 36, "count or time"),
    ('IsEventTypePredicate(A){colour:red}', 25, "a setting"),
    (';(IsEventTypePredicate(A),GTAttr(price,"x"))', 1, "register x is read before"),
    ('IsEventTypePredicate(A) ? IsEventTypePredicate(B)', 25, "end of input"),
])
def test_errors_carry_positions(text, column, expected):
    with pytest.raises(PatternSyntaxError) as err:
        parse_sre(text)
    assert (err.value.line, err.value.column) == (1, column)
    assert expected in str(err.value)


def test_partition_is_kept_and_the_placeholder_refused_with_its_position():
    query, = parse_sre('IsEventTypePredicate(A){partitionBy:name}{window:W}')
    with pytest.raises(SreUnsupported, match="placeholder") as err:
        query.to_expression()
    assert err.value.column == 42
    body = Window(query.body, 2)
    assert query.to_expression(count_window=2) == Partition(body, ("name",))
    assert query.to_expression(count_window=2, ignore_partition=True) == body


def test_a_partitioned_query_matches_on_each_sub_stream():
    # {partitionBy:name}: A then B of the same name (skip-till-any), positions of the
    # stream: A x@0, A y@1, B y@2, B x@3 -> {0, 3} and {1, 2}; unpartitioned also {0, 2}
    # and {1, 3}
    query, = parse_sre("#(;(IsEventTypePredicate(A), IsEventTypePredicate(B)))"
                       "{partitionBy:name}{window:4}")
    s = Stream.from_rows([{"ts": i, "type": t, "name": n}
                          for i, (t, n) in enumerate([("A", "x"), ("A", "y"), ("B", "y"),
                                                      ("B", "x")])])
    got = {m.positions for m in matches(query.to_expression(), s)}
    assert got == {(0, 3), (1, 2)}
    every = {m.positions for m in matches(query.to_expression(ignore_partition=True), s)}
    assert every == {(0, 2), (0, 3), (1, 2), (1, 3)}


