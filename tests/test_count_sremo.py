"""Counting SREMO and CEQL matches without listing them (issue 31 item 2;
engines/count/sremo.py, docs/counting.md).

The oracle is the reference's streaming match set (docs/architecture.md, "SREMO
streaming"; CEL's ``ALL`` for a CEQL query): its length on drawn expressions and streams,
the hand-computed match sets of the corpus's SREMO and Wayeb cases, and counts worked
out by hand here (each test says how), some past 2^64.
"""

from __future__ import annotations

from pathlib import Path
from unittest import mock

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kleene.conformance.cases import iter_tests, load_case_files
from kleene.conformance.sremo_strategies import sremo_expressions
from kleene.conformance.strategies import LABELS, streams
from kleene.engines.count import first, sremo, tecs
from kleene.engines.count.counting import DP, count_matches, outside
from kleene.reference.conditions import TRUE, And, Attr, Cmp, Condition, Const, Not, Or
from kleene.reference.durations import Duration
from kleene.reference.events import Stream
from kleene.reference.query import Query
from kleene.reference.sremo.expressions import (
    HEAD,
    SKIP,
    Atom,
    Choice,
    Concat,
    Expr,
    Intersect,
    Partition,
    Star,
    Strategy,
    Window,
)
from kleene.reference.sremo.expressions import Not as NotExpr
from tests.helpers import Cut, columnar, run_cli, typed_stream

ROWS = streams(min_size=1, max_size=7, attributes=st.fixed_dictionaries({
    "L": st.sampled_from(LABELS), "ID": st.sampled_from([0, 1, 1.0]),
    "V": st.integers(0, 3)}))


def _unary(c: Condition) -> Condition:
    """``c`` with every comparison that reads a register replaced by a label test."""
    if isinstance(c, Cmp):
        if any(isinstance(t, Attr) and t.var != HEAD for t in (c.left, c.right)):
            return Cmp("=", Attr(HEAD, "L"), Const("A"))
        return c
    if isinstance(c, Not):
        return Not(_unary(c.part))
    if isinstance(c, And | Or):
        return type(c)(tuple(_unary(p) for p in c.parts))
    return c


def _fragment(e: Expr) -> Expr:
    """A drawn expression moved into the counted fragment: guards made unary, inner
    windows and negations left out (a negation's body kept), intersections made
    choices, ``NEXT`` made ``ANY``, writes dropped."""
    if isinstance(e, Atom):
        return Atom(_unary(e.condition), e.marked)
    if isinstance(e, Concat | Choice):
        return type(e)(tuple(_fragment(p) for p in e.parts))
    if isinstance(e, Intersect):
        return Choice(tuple(_fragment(p) for p in e.parts))
    if isinstance(e, Star):
        return Star(_fragment(e.body))
    if isinstance(e, Window | NotExpr):
        return _fragment(e.body)
    if isinstance(e, Strategy):
        return Strategy("any", _fragment(e.body))
    return e


@st.composite
def counted_expressions(draw: st.DrawFn, like: bool = False) -> Expr:
    """A drawn SREMO in the counted fragment: unary guards (with ``LIKE`` if ``like``),
    marked and unmarked atoms, choice, concatenation, star, ``ANY``; under a count
    window, a time window or none, partitioned by ``ID`` or not."""
    body = _fragment(draw(sremo_expressions(max_depth=3, like=like), label="drawn"))
    kind = draw(st.sampled_from(("none", "count", "time", "time")), label="window")
    e: Expr = body
    if kind == "count":
        e = Window(body, draw(st.integers(1, 5), label="width"))
    elif kind == "time":
        e = Window(body, Duration(draw(st.integers(0, 5), label="tau")))
    if draw(st.booleans(), label="partitioned"):
        e = Partition(e, ("ID",))
    return e


@given(counted_expressions(), ROWS, st.sampled_from(("inclusive", "strict")),
       st.lists(st.integers(1, 4), max_size=3))
def test_the_count_is_the_number_of_the_references_matches(e, s, reading, cuts):
    """≥ 300 drawn examples: every drawn expression is in the fragment, and its count is
    the length of the reference's streaming match set under the reading, whether the
    events come one by one, as a loaded stream's columns or in batches cut at ``cuts``
    (an unpartitioned query is then read over the columns)."""
    query = Query.of(e, language="sremo", reading=reading).with_time_unit(s.time_unit)
    assert sremo.outside(query) is None
    expected = len(query.reference(s))
    assert sremo.count(query, s) == expected
    assert sremo.count(query, columnar(s)) == expected
    assert sremo.count(query, Cut(s, cuts)) == expected


@given(counted_expressions(like=True), ROWS, st.lists(st.integers(1, 4), max_size=3))
def test_the_count_with_like_guards_is_the_references(e, s, cuts):
    """``LIKE`` guards are unary: counted over events, Arrow columns (Arrow's RE2) and
    batches, and listed by the tECS, as the reference has them."""
    query = Query.of(e, language="sremo").with_time_unit(s.time_unit)
    assert sremo.outside(query) is None
    expected = query.reference(s)
    assert sremo.count(query, s) == len(expected)
    assert sremo.count(query, columnar(s)) == len(expected)
    assert sremo.count(query, Cut(s, cuts)) == len(expected)
    if not isinstance(e, Partition):
        assert set(tecs.matches(query, columnar(s))) == set(expected)


@given(sremo_expressions(max_depth=2), streams(min_size=1, max_size=6))
def test_outside_the_fragment_the_count_lists_and_agrees(e, s):
    """Any drawn expression (registers, inner windows, negation, intersection, NEXT):
    count_matches equals the reference, by the DP exactly when the fragment holds."""
    query = Query.of(e, language="sremo").with_time_unit(s.time_unit)
    got = count_matches(query, s)
    assert got.count == len(query.reference(s))
    assert (got.backend == DP) == (outside(query) is None)
    assert (got.why is None) == (got.backend == DP)


def test_every_sremo_and_wayeb_case_of_the_corpus():
    """Each SREMO and Wayeb case with a hand-computed match set: the count (by the DP where
    it claims the query, else by listing) is its size; the DP claims at least 160 (168 of
    241 today: the others are policy literal, negation, intersection, other registers)."""
    claimed = 0
    for case, test in iter_tests(load_case_files()):
        if test.check != "matches" or case.language not in ("sremo", "wayeb"):
            continue
        for expected in test.expectations():
            if expected.matches is None:
                continue
            s = case.stream_of(test)
            query = Query.parse(case.pattern, language=case.language, policy=test.policy,
                                reading=expected.reading).with_time_unit(s.time_unit)
            got = count_matches(query, s)
            assert got.count == len(expected.matches), (case.description, test.description)
            claimed += got.backend == DP
    assert claimed >= 160


def ceql(formula: str, tail: str = "") -> str:
    return f"SELECT * FROM S WHERE {formula} {tail}"


def test_a_then_any_set_of_70_bs_is_2_to_the_70_minus_1():
    """``A ; B+`` on A then 70 Bs: a match is A with a non-empty set of the Bs (``B+``
    takes every choice of iterations, CEL's ``ALL``), so 2^70 − 1, past 2^64. Within 40
    time units (A at 0, the i-th B at i) only B1..B40 fit: 2^40 − 1."""
    s = typed_stream("A", *["B"] * 70)
    got = count_matches(ceql("A ; B+"), s)
    assert got.backend == DP and got.count == 2 ** 70 - 1 == 1180591620717411303423
    assert count_matches(ceql("A ; B+", "WITHIN 40 [ts]"), s).count == 2 ** 40 - 1


def test_every_a_before_n_bs_by_hand():
    """``A ; B+`` on m As then n Bs (A at 0..m−1, B after): each A with each non-empty
    set of Bs, m·(2^n − 1); 5 As and 64 Bs: 5·(2^64 − 1), past 2^64."""
    s = typed_stream(*["A"] * 5, *["B"] * 64)
    assert count_matches(ceql("A ; B+"), s).count == 5 * (2 ** 64 - 1)


def test_contiguous_iterations_by_hand():
    """On A then four Bs: ``A ; B:+`` takes a contiguous run of Bs anywhere after A,
    one per interval of 1..4: 4·5/2 = 10 (docs/ceql.md's figure); ``A : B:+`` a run that
    starts right after A: 4; ``A ; B+``: 2^4 − 1 = 15."""
    s = typed_stream("A", "B", "B", "B", "B")
    assert count_matches(ceql("A ; B:+"), s).count == 10
    assert count_matches(ceql("A : B:+"), s).count == 4
    assert count_matches(ceql("A ; B+"), s).count == 15


def test_windows_in_events_and_parts_by_hand():
    """A B B A B B with k = 1 2 1 2 1 2 (positions 0..5). ``A ; B+``: A0 with any set of
    B1, B2, B4, B5 (15), A3 with any of B4, B5 (3): 18. Within 2 events (the last position
    minus the first at most 2): A0 with B1, B2, {B1, B2} (3), A3 with B4, B5, {B4, B5}
    (3): 6. Partitioned by k: part 1 is A0 B2 B4 (A0 with B2, B4, {B2, B4}: 3), part 2
    is B1 A3 B5 (A3 with B5: 1): 4."""
    rows = [("A", 0, {"k": 1}), ("B", 1, {"k": 2}), ("B", 2, {"k": 1}),
            ("A", 3, {"k": 2}), ("B", 4, {"k": 1}), ("B", 5, {"k": 2})]
    s = typed_stream(*rows)
    assert count_matches(ceql("A ; B+"), s).count == 18
    assert count_matches(ceql("A ; B+", "WITHIN 2 EVENTS"), s).count == 6
    part = count_matches(ceql("A ; B+", "PARTITION BY [k]"), s)
    assert part.backend == DP and part.count == 4


def test_a_leading_unmarked_element_by_hand():
    """``({~.type = 'B'} ; {TRUE}* ; mark {~.type = 'S'})[1..2]`` on B S B x S: a match is
    one S preceded somewhere by a B (unmarked, outside the window: it bounds marks only):
    {1} and {4}: 2."""
    s = typed_stream("B", "S", "B", "x", "S")
    text = "({~.type = 'B'} ; {TRUE}* ; mark {~.type = 'S'})[1..2]"
    got = count_matches(Query.parse(text, language="sremo"), s)
    assert got.backend == DP and got.count == 2


def _keyed(e: Expr, head: str) -> Expr:
    """``e`` (unary guards) with every guard but an unmarked ``TRUE`` also asking
    ``~.head = r.ID``."""
    if isinstance(e, Atom):
        if e.condition == TRUE and not e.marked:
            return e
        same = Cmp("=", Attr(HEAD, head), Attr("r", "ID"))
        return Atom(same if e.condition == TRUE else And((e.condition, same)), e.marked)
    if isinstance(e, Concat | Choice):
        return type(e)(tuple(_keyed(p, head) for p in e.parts))
    if isinstance(e, Star):
        return Star(_keyed(e.body, head))
    if isinstance(e, Strategy):
        return Strategy(e.kind, _keyed(e.body, head))
    return e


@st.composite
def keyed_expressions(draw: st.DrawFn) -> Expr:
    """``mark φ -> r ; [gap] ; e'``: a drawn unary expression whose guards also ask
    ``~.ID = r.ID`` (or ``~.V = r.ID``): the register keys the runs; under a window or not."""
    firsts: list[Condition] = [TRUE, Cmp("=", Attr(HEAD, "L"), Const("A"))]
    first = Atom(draw(st.sampled_from(firsts), label="first"), True, "r")
    body = _keyed(_fragment(draw(sremo_expressions(max_depth=2), label="drawn")),
                  draw(st.sampled_from(("ID", "ID", "V")), label="head"))
    parts = (first, Star(SKIP), body) if draw(st.booleans(), label="gap") else (first, body)
    e: Expr = Concat(parts)
    kind = draw(st.sampled_from(("none", "count", "time")), label="window")
    if kind == "count":
        e = Window(e, draw(st.integers(1, 5), label="width"))
    elif kind == "time":
        e = Window(e, Duration(draw(st.integers(0, 4), label="tau")))
    return e


@given(keyed_expressions(), ROWS)
def test_a_register_written_by_the_first_element_keys_the_count(e, s):
    """≥ 300 drawn examples: an expression whose register holds each run's first element
    and is compared for equality is counted by the DP, and the count is the reference's."""
    query = Query.of(e, language="sremo").with_time_unit(s.time_unit)
    got = count_matches(query, s)
    assert got.count == len(query.reference(s))
    assert got.backend == DP, got.why


def test_a_key_by_hand():
    """``mark {~.L = 'A'} -> r ; {TRUE}* ; mark {~.k = r.k}`` on A B A B B with k = 1 1 2 2
    1: the second atom takes any later element of the first's k: A0 (k 1) with 1 or 4,
    A2 (k 2) with 3: 3."""
    rows = [("A", 1), ("B", 1), ("A", 2), ("B", 2), ("B", 1)]
    s = Stream.from_rows([{"ts": i, "L": x, "k": k} for i, (x, k) in enumerate(rows)])
    text = "mark {~.L = 'A'} -> r ; {TRUE}* ; mark {~.k = r.k}"
    got = count_matches(Query.parse(text, language="sremo"), s)
    assert got.backend == DP and got.count == 3


@pytest.mark.parametrize(("text", "why"), [
    ("mark {TRUE} -> r ; {TRUE}* ; mark {~.V > r.V}", "neither a gap nor"),
    ("mark {TRUE} ; (mark {TRUE} ; mark {TRUE})[1..2]", "below the top"),
    ("mark {TRUE} ; !({TRUE} ; {TRUE})[1..2] ; mark {TRUE}", "negation"),
])
def test_outside_says_why_and_the_listing_counts(text, why):
    """One line each: a register read, an inner window, a negation; the count is then
    the reference's, by listing."""
    s = Stream.from_rows([{"ts": i, "L": x} for i, x in enumerate("ABAB")])
    query = Query.parse(text, language="sremo")
    got = count_matches(query, s)
    assert got.backend != DP and why in (got.why or "") and "\n" not in (got.why or "")
    assert got.count == len(query.reference(s))


def test_the_literal_policy_is_listed():
    s = typed_stream("A", "B")
    got = count_matches(Query.parse("mark {TRUE}*", language="sremo", policy="literal"), s)
    assert got.backend != DP and "not literal" in (got.why or "")


def test_too_many_states_falls_back_to_listing(monkeypatch: pytest.MonkeyPatch):
    """A cap of 2 determinized states: ``A ; B`` needs more, so the count lists the
    matches and says why: A0 with B1 and B2, 2."""
    monkeypatch.setattr(sremo, "MAX_STATES", 2)
    got = count_matches(ceql("A ; B"), typed_stream("A", "B", "B"))
    assert got.count == 2 and got.backend != DP and "more than 2 states" in (got.why or "")


def test_unknown_guards_skip_elements_without_a_value():
    """``mark {~.v > 1} ; {TRUE}* ; mark {~.v > 1}`` where the middle event has no ``v``
    (unknown: not satisfied) and the others have 2, 3: only {0, 2}."""
    s = Stream.from_rows([{"ts": 0, "v": 2}, {"ts": 1}, {"ts": 2, "v": 3}])
    text = "mark {~.v > 1} ; {TRUE}* ; mark {~.v > 1}"
    assert count_matches(Query.parse(text, language="sremo"), s).count == 1


def test_kleene_match_counts_a_ceql_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    """``kleene match --count`` on a ``.ceql`` file: A then 70 Bs under ``A ; B+``,
    2^70 − 1 printed in full, and stderr names the SRT's runs."""
    events = tmp_path / "e.jsonl"
    events.write_text("".join(f'{{"ts": {i}, "type": "{"A" if i == 0 else "B"}"}}\n'
                              for i in range(71)))
    query = tmp_path / "q.ceql"
    query.write_text(ceql("A ; B+") + "\n")
    code, out, err = run_cli(capsys, "match", "--pattern", str(query), "--events",
                             str(events), "--count")
    assert code == 0 and out.strip() == str(2 ** 70 - 1)
    assert "dynamic programming over the SRT's runs" in err


def test_kleene_match_says_too_many_states_in_one_line(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    """With a cap of 2 states, ``kleene match --count`` on ``A ; B`` stops with one line
    that says how to count by listing (exit 2, no traceback)."""
    monkeypatch.setattr(sremo, "MAX_STATES", 2)
    events = tmp_path / "e.jsonl"
    events.write_text('{"ts": 0, "type": "A"}\n{"ts": 1, "type": "B"}\n')
    query = tmp_path / "q.ceql"
    query.write_text(ceql("A ; B") + "\n")
    code, out, err = run_cli(capsys, "match", "--pattern", str(query), "--events",
                             str(events), "--count")
    last = err.strip().splitlines()[-1]
    assert code == 2 and out == "" and "Traceback" not in err
    assert "more than 2 states" in last and "--engine srt" in last


@given(sremo_expressions(max_depth=2), streams(min_size=1, max_size=7), st.integers(1, 4))
def test_the_first_k_of_a_sremo_are_those_of_the_reference(e, s, k):
    """Any drawn SREMO under ``stream`` is prefix-closed (a match reported at ``k`` is one
    of ``S_j..k``): ``first_matches`` reads prefixes doubling from 1 event (the cap cut
    down so that the drawn streams are long) and gives the K least of the reference's
    match set by last position, then text."""
    query = Query.of(e, language="sremo").with_time_unit(s.time_unit)
    expected = sorted(query.reference(s), key=first.order)[:k]
    with mock.patch.object(first, "FIRST_PREFIX", 1):
        got = first.first_matches(query, s, k)
    assert got.why is None and list(got.matches) == expected


def test_the_first_matches_of_a_ceql_query_by_hand():
    """``A ; B+`` on A B B B: the matches end at 1 ({0,1}), 2 ({0,2}, {0,1,2}), 3 (four);
    the first 3 by last position then text are {0,1}, then {0,1,2} and {0,2} (their JSON
    texts in that order); listed from the shared structure (engines/count/tecs.py) as
    events are read, reading stops after the third."""
    s = typed_stream("A", "B", "B", "B")
    with mock.patch.object(first, "FIRST_PREFIX", 1):
        got = first.first_matches(ceql("A ; B+"), s, 3)
    assert [m.positions for m in got.matches] == [(0, 1), (0, 1, 2), (0, 2)]
    assert got.why is None and got.events == 3
