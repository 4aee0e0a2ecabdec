"""CEQL, CORE's query language, read as an input format (issue 31 item 1;
reference/ceql/, docs/ceql.md).

Every expected match set is worked out by hand from CEL's semantics (TODS 2021, Sec. 3:
``;`` skips any events, ``:`` none, ``+`` takes every non-empty choice of iterations,
``FILTER`` holds for every position its variable names) on streams small enough to
list; the query runs through ``kleene.find_matches`` with the reference, and the
engine that claims the language (``srt``: a CEQL query is the SREMO expression it
denotes) must give the same matches. On a prefix of the stock stream
the reading is compared with SREMO and operator patterns written by hand for the same
CORE-like queries.
"""

from __future__ import annotations

import gzip
import itertools
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kleene
from kleene.data.bundled import bundled
from kleene.reference.ceql.parser import CeqlUnsupported, parse_ceql
from kleene.reference.durations import Duration
from kleene.reference.errors import PatternSyntaxError
from kleene.reference.events import Stream
from kleene.reference.languages import detect_language
from kleene.reference.pattern import Pattern
from kleene.reference.query import Query
from kleene.reference.sremo.expressions import Partition, Window
from tests.helpers import run_cli, typed_stream

Positions = set[tuple[int, ...]]


def found(text: str, s: Stream) -> Positions:
    """The matches of CEQL ``text`` on ``s``, each as its sorted positions: the
    reference's, which the engine that claims the language (``srt``) must equal, and
    whose number the count without listing (docs/counting.md) must give."""
    result = kleene.find_matches(text, s, engine="reference")
    assert result.query.language == "ceql"
    engine = kleene.find_matches(text, s)
    assert engine.backend == "srt" and engine.matches == result.matches
    assert kleene.count_matches(text, s).count == len(result.matches)
    return {m.positions for m in result.matches}


def tick(kind: str, ts: int, name: str) -> tuple[str, float, dict[str, object]]:
    return (kind, ts, {"name": name})


# ---------------------------------------------------------------- each construct

#: SELL INTC, BUY RIMM, BUY QQQ at ts 0, 1, 2; BUY RIMM, BUY QQQ at ts 5, 6.
TICK_ROWS = (("SELL", 0, "INTC"), ("BUY", 1, "RIMM"), ("BUY", 2, "QQQ"), ("BUY", 5, "RIMM"),
             ("BUY", 6, "QQQ"))
TICKS = typed_stream(*(tick(*row) for row in TICK_ROWS))
Q = ("SELECT * FROM S WHERE (SELL as a; BUY as b; BUY as c) "
     "FILTER a[name = 'INTC'] AND b[name = 'RIMM'] AND c[name = 'QQQ'] ")


def test_sequencing_skips_any_events_and_the_window_is_inclusive() -> None:
    # a = 0; (b, c) = (1, 2), (1, 4), (3, 4): spans 2, 6, 6 time units
    assert found(Q + "WITHIN 6 [ts]", TICKS) == {(0, 1, 2), (0, 1, 4), (0, 3, 4)}
    assert found(Q + "WITHIN 5 [ts]", TICKS) == {(0, 1, 2)}
    assert found(Q, TICKS) == {(0, 1, 2), (0, 1, 4), (0, 3, 4)}


def test_contiguous_sequencing_skips_nothing() -> None:
    q = Q.replace("a; BUY as b; BUY", "a : BUY as b : BUY")
    assert found(q, TICKS) == {(0, 1, 2)}
    assert found("SELECT * FROM S WHERE SELL : BUY", TICKS) == {(0, 1)}
    assert found("SELECT * FROM S WHERE BUY : BUY", TICKS) == {(1, 2), (2, 3), (3, 4)}


ABBB = typed_stream("A", "B", "B", "B")


@pytest.mark.parametrize("formula, expected", [
    # every non-empty subset of the Bs at 1, 2, 3: 7
    ("A ; B+", {(0, *c) for k in (1, 2, 3) for c in itertools.combinations((1, 2, 3), k)}),
    # contiguous runs of Bs that start right after the A
    ("A : B:+", {(0, 1), (0, 1, 2), (0, 1, 2, 3)}),
    # contiguous runs of Bs anywhere after the A
    ("A ; B:+", {(0, 1), (0, 2), (0, 3), (0, 1, 2), (0, 2, 3), (0, 1, 2, 3)}),
    # any choice of Bs whose first is at 1
    ("A : B+", {(0, 1), (0, 1, 2), (0, 1, 3), (0, 1, 2, 3)}),
    ("(A ; B)+", {(0, 1), (0, 2), (0, 3)}),
])
def test_iterations(formula: str, expected: Positions) -> None:
    assert found(f"SELECT * FROM S WHERE {formula}", ABBB) == expected


def test_or_of_event_types_and_its_precedence_below_sequencing() -> None:
    abc = typed_stream("A", "B", "C")
    assert found("SELECT * FROM S WHERE A ; (B OR C)", abc) == {(0, 1), (0, 2)}
    # ; binds tighter than OR: (A ; B) OR C
    assert found("SELECT * FROM S WHERE A ; B OR C", abc) == {(0, 1), (2,)}
    assert found("SELECT * FROM S WHERE C OR A ; B", abc) == {(0, 1), (2,)}


V = typed_stream(("A", 0, {"v": 0}), ("A", 1, {"v": 2}), ("B", 2, {"v": 2}),
                 ("B", 3, {"v": 0}))


def test_filters_by_variable_event_type_and_their_disjunction() -> None:
    # A;B: (0,2) (0,3) (1,2) (1,3)
    q = "SELECT * FROM S WHERE (A as x ; B as y) FILTER "
    assert found(q + "x[v > 1]", V) == {(1, 2), (1, 3)}
    assert found(q + "x[v > 1] AND y[v > 1]", V) == {(1, 2)}
    assert found(q + "x[v > 1] OR y[v > 1]", V) == {(0, 2), (1, 2), (1, 3)}
    # an event type names every position of that type
    assert found("SELECT * FROM S WHERE A ; B FILTER B[v = 0]", V) == {(0, 3), (1, 3)}
    assert found(q + "(x[v = 0] OR x[v = 2]) AND y[v <= 0]", V) == {(0, 3), (1, 3)}


def test_as_binds_tighter_than_sequencing() -> None:
    # x names the B only; were it (A ; B) AS x, the A of v = 0 would fail the filter
    s = typed_stream(("A", 0, {"v": 0}), ("B", 1, {"v": 2}))
    assert found("SELECT * FROM S WHERE A ; B AS x FILTER x[v > 1]", s) == {(0, 1)}
    assert found("SELECT * FROM S WHERE (A ; B) AS x FILTER x[v > 1]", s) == set()


def test_a_filter_on_a_group_holds_for_each_of_its_events() -> None:
    s = typed_stream(("A", 0, {"v": 0}), ("B", 1, {"v": 1}), ("B", 2, {"v": 3}),
                     ("B", 3, {"v": 2}))
    q = "SELECT * FROM S WHERE A ; B+ AS g FILTER g[v IN {1, 2}]"
    assert found(q, s) == {(0, 1), (0, 3), (0, 1, 3)}
    q = "SELECT * FROM S WHERE A ; B+ AS g FILTER g[v NOT IN {1, 2}]"
    assert found(q, s) == {(0, 2)}


def test_unary_predicates() -> None:
    s = typed_stream(*[("A", i, {"v": i, "w": "x" if i % 2 else "y"}) for i in range(4)])
    q = "SELECT * FROM S WHERE A FILTER A"
    assert found(q + "[v IN RANGE(1, 2)]", s) == {(1,), (2,)}     # both bounds inclusive
    assert found(q + "[v != 1 and not (v >= 3)]", s) == {(0,), (2,)}
    assert found(q + "[w = 'x' OR v == 0]", s) == {(0,), (1,), (3,)}
    assert found(q + "[v <> 2 AND v < 3 AND -1 < v]", s) == {(0,), (1,)}
    assert found(q + "[w IN {'y'}]", s) == {(0,), (2,)}
    assert found(q + "[v = w]", s) == set()


def test_partition_by() -> None:
    s = typed_stream(("A", 0, {"k": 1}), ("A", 1, {"k": 2}), ("B", 2, {"k": 1}),
                     ("B", 3, {"k": 2}))
    assert found("SELECT * FROM S WHERE A ; B PARTITION BY [k]", s) == {(0, 2), (1, 3)}
    assert found("SELECT * FROM S WHERE A ; B", s) == {(0, 2), (0, 3), (1, 2), (1, 3)}


def test_windows_in_events_and_in_time_units() -> None:
    s = typed_stream("A", "X", "B", "X", "B")
    # CORE: last position − first position ≤ n
    assert found("SELECT * FROM S WHERE A ; B WITHIN 2 EVENTS", s) == {(0, 2)}
    assert found("SELECT * FROM S WHERE A ; B WITHIN 4 EVENTS", s) == {(0, 2), (0, 4)}
    e = parse_ceql("SELECT * FROM S WHERE A WITHIN 1 HOUR 30 MINUTES 2 SECONDS")
    assert isinstance(e, Window) and e.width == Duration(5402, "s")
    ms = typed_stream(("A", 0, {}), ("B", 1000, {}), ("B", 1001, {}), time_unit="ms")
    q = Query.parse("SELECT * FROM S WHERE A ; B WITHIN 1 SECONDS", time_unit="ms")
    assert {m.positions for m in kleene.find_matches(q, ms).matches} == {(0, 1)}


def test_all_none_and_the_defaults_are_one_reading() -> None:
    q = "(SELL as a; BUY as b) FILTER a[name = 'INTC'] WITHIN 6 [ts]"
    plain = parse_ceql(f"SELECT * FROM S WHERE {q}")
    assert parse_ceql(f"select all * from S where {q} consume by none") == plain
    assert parse_ceql(f"SELECT * WHERE {q}") == plain


def test_detected_among_the_languages() -> None:
    assert detect_language("-- CORE\nSELECT * FROM S WHERE A").name == "ceql"
    mr = "SELECT * FROM t MATCH_RECOGNIZE (PATTERN (a) DEFINE a AS TRUE)"
    assert detect_language(mr).name == "match_recognize"


def test_partition_and_window_nest_as_sremo_wants() -> None:
    e = parse_ceql("SELECT * FROM S WHERE A ; B PARTITION BY [k, j] WITHIN 3 [ts]")
    assert isinstance(e, Partition) and e.by == ("k", "j")
    assert isinstance(e.body, Window) and e.body.width == Duration(3)


# ---------------------------------------------------------------- refusals


@pytest.mark.parametrize("text, line, column, words", [
    ("SELECT ANY * FROM S WHERE A", 1, 8, "SELECT ANY is not read: CEL has no strategy"),
    ("SELECT a FROM S WHERE A AS a", 1, 8, "a list of variables"),
    ("SELECT * FROM S, T WHERE A", 1, 16, "one stream only"),
    ("SELECT * FROM S WHERE S>A", 1, 24, "qualified by its stream"),
    ("SELECT * FROM S WHERE A ; NOT(B)", 1, 27, "ending with NOT(...)"),
    ("SELECT * WHERE A FILTER A[name LIKE 'it''s']", 1, 40, "a doubled quote in a LIKE"),
    ("SELECT * WHERE A FILTER A[name LIKE other]", 1, 37, "LIKE with an attribute"),
    ("SELECT * WHERE A FILTER A[price * 2 > 3]", 1, 33, "arithmetic"),
    ("SELECT * WHERE A FILTER A[v IN {1..3}]", 1, 34, "a range {a..b}"),
    ("SELECT * WHERE A PARTITION BY [a], [b]", 1, 34, "one partition group"),
    ("SELECT * WHERE A PARTITION BY [a] WITHIN 3 EVENTS", 1, 42, "WITHIN n EVENTS with"),
    ("SELECT * WHERE A ; B\n  FILTER c[x = 1]", 2, 10, "FILTER names c, which"),
])
def test_what_is_outside_the_fragment_is_refused_at_its_token(
        text: str, line: int, column: int, words: str) -> None:
    with pytest.raises(CeqlUnsupported) as err:
        parse_ceql(text, "q1.ceql")
    assert (err.value.line, err.value.column) == (line, column)
    assert words in err.value.message
    shown = str(err.value).splitlines()
    assert shown[0].startswith(f"q1.ceql:{line}:{column}: ")
    assert shown[2].index("^") - 2 == column - 1      # the caret under the column


@pytest.mark.parametrize("text, line, column", [
    ("SELECT * FROM S WHERE (A ;", 1, 27),
    ("SELECT * FROM S\nWHERE A B", 2, 9),
    ("SELECT * FROM S WHERE A WITHIN 3", 1, 33),
    ("SELECT * FROM S WHERE A WITHIN 2.5 EVENTS", 1, 32),
    ("SELECT * FROM S WHERE A FILTER A[v >]", 1, 37),
    ("SELECT * FROM S WHERE OR", 1, 23),
    ("SELECT * FROM S WHERE A CONSUME BY ALL", 1, 36),
    ("SELECT * FROM S WHERE A LIMIT 0", 1, 31),
    ("SELECT * FROM S WHERE A LIMIT 2 CONSUME BY ANY", 1, 33),
    ("SELECT FROM S WHERE A", 1, 8),
])
def test_syntax_errors_name_file_line_and_column(text: str, line: int, column: int) -> None:
    with pytest.raises(PatternSyntaxError) as err:
        parse_ceql(text, "q.ceql")
    assert type(err.value) is PatternSyntaxError
    assert (err.value.source, err.value.line, err.value.column) == ("q.ceql", line, column)


def test_kleene_match_reads_a_ceql_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                        ) -> None:
    events = tmp_path / "ticks.jsonl"
    events.write_text("".join(
        f'{{"ts": {ts}, "type": "{kind}", "name": "{name}"}}\n'
        for kind, ts, name in TICK_ROWS))
    query = tmp_path / "q1.ceql"
    query.write_text(Q.replace("FILTER", "\nFILTER") + "\nWITHIN 5 [ts]\n")
    code, out, _ = run_cli(capsys, "match", "--pattern", str(query), "--events", str(events))
    assert code == 0 and out.splitlines() == ['{"marked": [0, 1, 2]}']
    query.write_text("SELECT ANY *\nFROM S WHERE SELL;\n  BUY\n")
    code, _, err = run_cli(capsys, "match", "--pattern", str(query), "--events", str(events))
    assert code == 2 and f"{query}:1:8: SELECT ANY is not read" in err


# ---------------------------------------------------------------- the stock stream

PREFIX = 3000


@pytest.fixture(scope="module")
def stocks(tmp_path_factory: pytest.TempPathFactory) -> Stream:
    """The first 3,000 ticks of the bundled stock stream (ts = stock_time, in ms)."""
    with gzip.open(bundled("stocks.stream.gz"), "rt") as lines:
        head = "".join(itertools.islice(lines, PREFIX))
    path = tmp_path_factory.mktemp("stocks") / "head.stream"
    path.write_text(head)
    return kleene.load_events(path)


def on_srt(pattern: Pattern | str, s: Stream) -> Positions:
    """Matches of a SREMO expression (what a CEQL query reads into, or one written by
    hand) on the SRT engine."""
    q = (Query.parse(pattern, language="sremo") if isinstance(pattern, str)
         else Query.of(pattern, language="sremo"))
    result = kleene.find_matches(q, s, engine="srt")
    return {m.positions for m in result.matches}


#: CORE-like queries written here, each with the SREMO and the operator pattern
#: written by hand for it.
STOCK_QUERIES = [
    ("SELECT * FROM S WHERE (SELL as a; BUY as b; BUY as c) FILTER a[name = 'INTC'] "
     "AND b[name = 'RIMM'] AND c[name = 'QQQ'] WITHIN 5000 [stock_time]",
     "(mark {~.type = 'SELL' AND ~.name = 'INTC'} ; {TRUE}* ; "
     "mark {~.type = 'BUY' AND ~.name = 'RIMM'} ; {TRUE}* ; "
     "mark {~.type = 'BUY' AND ~.name = 'QQQ'})[WITHIN 5000]",
     "PATTERN SEQ(SELL a, BUY b, BUY c) WHERE a.name = 'INTC' AND b.name = 'RIMM' "
     "AND c.name = 'QQQ' WITHIN 5000"),
    ("SELECT ALL * FROM S WHERE (SELL as m; (BUY OR SELL) as o; BUY as c) "
     "FILTER m[name = 'MSFT' and price > 26.0] AND o[name = 'ORCL'] AND c[name IN {'CSCO'}] "
     "WITHIN 2000 [stock_time] CONSUME BY NONE",
     "(mark {~.type = 'SELL' AND ~.name = 'MSFT' AND ~.price > 26.0} ; {TRUE}* ; "
     "(mark {~.type = 'BUY' AND ~.name = 'ORCL'} + mark {~.type = 'SELL' AND ~.name = 'ORCL'})"
     " ; {TRUE}* ; mark {~.type = 'BUY' AND ~.name = 'CSCO'})[WITHIN 2000]",
     "PATTERN SEQ(SELL m, OR(BUY o, SELL p), BUY c) WHERE m.name = 'MSFT' AND m.price > 26.0 "
     "AND o.name = 'ORCL' AND p.name = 'ORCL' AND c.name = 'CSCO' WITHIN 2000"),
    ("SELECT * FROM S WHERE (BUY as a; BUY as b) FILTER a[name = 'INTC'] "
     "AND b[name = 'DELL'] PARTITION BY [volume] WITHIN 30000 [stock_time]",
     "(mark {~.type = 'BUY' AND ~.name = 'INTC'} ; {TRUE}* ; "
     "mark {~.type = 'BUY' AND ~.name = 'DELL'})[WITHIN 30000] PARTITION BY volume",
     "PATTERN SEQ(BUY a, BUY b) WHERE a.name = 'INTC' AND b.name = 'DELL' "
     "AND a.volume = b.volume WITHIN 30000"),
]


def ties(s: Stream, positions: tuple[int, ...]) -> bool:
    """Whether two consecutive events of a match share their timestamp."""
    return any(s[i].ts == s[j].ts for i, j in itertools.pairwise(positions))


@pytest.mark.parametrize("ceql, sremo, operator", STOCK_QUERIES)
def test_core_like_queries_on_the_stock_stream(stocks: Stream, ceql: str, sremo: str,
                                               operator: str) -> None:
    read = on_srt(parse_ceql(ceql), stocks)
    assert read, "a query that matches nothing on the prefix checks nothing"
    assert read == on_srt(sremo, stocks)
    counted = kleene.count_matches(ceql, stocks)
    assert counted.backend == "dynamic programming" and counted.count == len(read)
    # CEL orders a sequence by position, SEQ by timestamp (strictly): they differ
    # exactly on the matches two of whose consecutive events share a timestamp
    seq = {m.positions for m in kleene.find_matches(operator, stocks).matches}
    assert seq == {p for p in read if not ties(stocks, p)}


def test_the_stock_prefix_has_ties_that_tell_position_from_time(stocks: Stream) -> None:
    # ticks 1405 (SELL INTC) and 1406 (BUY RIMM) share stock_time 34208311: CEL's
    # sequencing takes them in order, SEQ does not
    assert (stocks[1405].ts, stocks[1405].type) == (stocks[1406].ts, "SELL")
    read = on_srt(parse_ceql(STOCK_QUERIES[0][0]), stocks)
    assert any(p[:2] == (1405, 1406) for p in read)


# ---------------------------------------------------------------- CEL's definitions

Denotation = Callable[[tuple[str, ...]], frozenset[tuple[int, ...]]]


def _seq(d: Denotation, e: Denotation, contiguous: bool) -> Denotation:
    def both(types: tuple[str, ...]) -> frozenset[tuple[int, ...]]:
        return frozenset(c1 + c2 for c1 in d(types) for c2 in e(types)
                         if (c2[0] == c1[-1] + 1 if contiguous else c2[0] > c1[-1]))
    return both


def _plus(d: Denotation, contiguous: bool) -> Denotation:
    def iterated(types: tuple[str, ...]) -> frozenset[tuple[int, ...]]:
        done, frontier = set(d(types)), set(d(types))
        step = _seq(lambda t: frozenset(frontier), d, contiguous)
        while frontier:
            frontier = set(step(types)) - done
            done |= frontier
        return frozenset(done)
    return iterated


@st.composite
def formulas(draw: st.DrawFn, depth: int = 3) -> tuple[str, Denotation]:
    """A CEQL formula over types A and B and its denotation, CEL's (TODS 2021, Sec. 3)
    written directly: ``T`` the positions of type T, ``;``/``:`` the unions of a complex
    event with a later (the next) one, ``+``/``:+`` their fixpoints, ``OR`` the union."""
    if depth == 0 or draw(st.booleans(), label="leaf"):
        t = draw(st.sampled_from("AB"), label="type")
        return t, lambda types: frozenset((i,) for i, x in enumerate(types) if x == t)
    op = draw(st.sampled_from([";", ":", "OR", "+", ":+"]), label="operator")
    text, d = draw(formulas(depth - 1), label="left")
    if op in ("+", ":+"):
        return f"({text}){op}", _plus(d, op == ":+")
    text2, e = draw(formulas(depth - 1), label="right")
    if op == "OR":
        return f"({text} OR {text2})", lambda types: d(types) | e(types)
    return f"({text} {op} {text2})", _seq(d, e, op == ":")


@settings(max_examples=150, deadline=None)
@given(formulas(), st.lists(st.sampled_from("AB"), min_size=1, max_size=5))
def test_the_reading_is_cels_definition(formula: tuple[str, Denotation],
                                        types: list[str]) -> None:
    text, denotation = formula
    assert found(f"SELECT * FROM S WHERE {text}", typed_stream(*types)) == \
        set(denotation(tuple(types)))
