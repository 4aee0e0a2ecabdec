"""The regular fragment of operator patterns translated by ``to_sremo`` means the same in SREMO.

Two independent definitions meet here: the operator reference (seed 003,
:mod:`kleene.reference.operators`, all matches by derivation) and the SREMO
reference (seed 004, :mod:`kleene.reference.sremo`, report Def. 17 and the
streaming rule of docs/architecture.md); they share only the condition language. The
claim (module docstring of :mod:`kleene.reference.operators.to_sremo`): on
streams with ``ts = position``, the operator matches under skip-till-any-match
projected to their position sets equal the SREMO stream matches of the
translation. The projection is not injective, so a second property marks one
variable at a time and compares that variable's positions over every slice.
Hand examples fix what the papers say (seed 003 Example 1, Pattern (5)) and
the two places where the languages differ (ties in ts, windows).
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from pathlib import Path

import pytest
from hypothesis import assume, event, given
from hypothesis import strategies as st

from kleene.reference.conditions import Attr, Cmp, Condition, Const, Or, Prev
from kleene.reference.durations import Duration, WindowReading
from kleene.reference.errors import Unsupported
from kleene.reference.events import Stream
from kleene.reference.match import Match
from kleene.reference.operators.pattern import (
    Disj,
    Kleene,
    MalformedPattern,
    Node,
    OperatorPattern,
    Primitive,
    Seq,
    check_condition,
    positive_variables,
)
from kleene.reference.operators.policies import matches as operator_matches
from kleene.reference.operators.text import parse_operator
from kleene.reference.operators.to_sremo import project, to_sremo, window_width
from kleene.reference.sremo import format_sremo, parse_sremo
from kleene.reference.sremo.expressions import Atom, Expr, reads, walk
from kleene.reference.sremo.semantics import Semantics
from kleene.reference.sremo.streaming import stream_matches

TYPES = ("A", "B", "C")
CASES = Path(__file__).resolve().parents[1] / "conformance" / "cases" / "sremo-from-operator.json"


def stream(types: str, xs: list[int | None] | None = None, ts: list[int] | None = None) -> Stream:
    """Events of the given one-letter types (attribute ``x``), ts = position unless given."""
    rows = []
    for i, t in enumerate(types):
        row: dict[str, object] = {"ts": i if ts is None else ts[i], "type": t}
        if xs is not None and xs[i] is not None:
            row["x"] = xs[i]
        rows.append(row)
    return Stream.from_rows(rows)


def sets(ms: set[Match]) -> set[tuple[int, ...]]:
    """The position sets of some matches."""
    return {m.positions for m in ms}


def both(text: str, s: Stream) -> tuple[set[Match], set[Match]]:
    """The projected operator matches (policy any) and the SREMO stream matches."""
    p = parse_operator(text)
    return {project(m) for m in operator_matches(p, s, "any")}, stream_matches(to_sremo(p), s)

# ---------------------------------------------------------------- the papers' examples


def test_example_1_1_four_matches():
    # Seed 003 Example 1: a1 a2 b1 b2 c, skip-till-any-match: a1b1c, a2b1c, a1b2c, a2b2c.
    s = stream("AABBC")
    op, sremo = both("PATTERN SEQ(A a, B b, C c)", s)
    assert sets(sremo) == {(0, 2, 4), (1, 2, 4), (0, 3, 4), (1, 3, 4)}
    assert op == sremo


def test_pattern_5_seven_subsets():
    # Seed 003 Sec. 4.5, Pattern (5) on a b1 b2 b3 c: every non-empty subset of the Bs.
    s = stream("ABBBC")
    op, sremo = both("PATTERN SEQ(A a, B+ b[], C c) WITHIN 4", s)
    assert sets(sremo) == {(0, *b, 4) for b in [(1,), (2,), (3,), (1, 2), (1, 3), (2, 3),
                                                 (1, 2, 3)]}
    assert op == sremo
    # WITHIN 3 is [1..4]: a and c are 4 apart, nothing fits.
    assert both("PATTERN SEQ(A a, B+ b[], C c) WITHIN 3", s) == (set(), set())


def test_translation_text():
    p = parse_operator("PATTERN SEQ(A a, B+ b[], C c) WHERE b.x > a.x AND b.x > prev(b.x) "
                       "WITHIN 4")
    assert format_sremo(to_sremo(p)) == (
        "(mark {~.type = 'A'} -> a ; {TRUE}* ; mark {~.type = 'B' AND ~.x > a.x} -> b ; "
        "({TRUE}* ; mark {~.type = 'B' AND ~.x > a.x AND ~.x > b.x} -> b)* ; {TRUE}* ; "
        "mark {~.type = 'C'})[1..5]")


def test_prev_reads_the_register_each_iteration_overwrites():
    # A, B x=1, B x=0, B x=2: consecutive chosen Bs must increase; by hand
    # b = <1>, <2>, <3>, <1, 3> (1 < 2), <2, 3> (0 < 2); not <1, 2> (1 > 0).
    s = stream("ABBB", [0, 1, 0, 2])
    op, sremo = both("PATTERN SEQ(A a, B+ b[]) WHERE b.x > prev(b.x)", s)
    assert sets(sremo) == {(0, 1), (0, 2), (0, 3), (0, 1, 3), (0, 2, 3)}
    assert op == sremo


def test_a_variable_compared_with_itself_is_a_property_of_each_iteration():
    # Decomposition instantiates b once per condition: b.x >= b.x compares an event
    # with itself, so B x=0, B x=1 gives all three subsets (an every-pair reading
    # would drop <0, 1>, where 0 >= 1 fails).
    s = stream("BB", [0, 1])
    op, sremo = both("PATTERN B+ b[] WHERE b.x >= b.x", s)
    assert op == sremo and sets(sremo) == {(0,), (1,), (0, 1)}


def test_condition_on_an_or_branch_not_taken_does_not_apply():
    # a.x < c.x applies only to matches through A: A x=2, B x=2, C x=1 gives {b/1, c/2}.
    s = stream("ABC", [2, 2, 1])
    op, sremo = both("PATTERN SEQ(OR(A a, B b), C c) WHERE a.x < c.x", s)
    assert sets(sremo) == {(1, 2)}
    assert op == sremo


def test_projection_is_not_injective():
    # Two operator matches, one position set: the comparison is of images.
    p = parse_operator("PATTERN OR(A a, A b)")
    s = stream("A")
    assert operator_matches(p, s, "any") == {Match.of({"a": [0]}), Match.of({"b": [0]})}
    assert stream_matches(to_sremo(p), s) == {Match.marked([0])}
    q = parse_operator("PATTERN SEQ(A+ a[], A+ b[])")
    assert len(operator_matches(q, stream("AAA"), "any")) == 5  # {0,1},{0,2},{1,2}; {0,1,2} twice
    assert sets(stream_matches(to_sremo(q), stream("AAA"))) == {(0, 1), (0, 2), (1, 2), (0, 1, 2)}

# ---------------------------------------------------------------- where the languages differ


def test_ties_in_ts_separate_seq_from_concatenation():
    # docs/errata.md#seed-004-from-operator-ties: A, B both at ts 0.
    s = stream("AB", ts=[0, 0])
    op, sremo = both("PATTERN SEQ(A a, B b)", s)
    assert op == set() and sets(sremo) == {(0, 1)}
    # Iterations are ordered by position in both: the tie is taken.
    op, sremo = both("PATTERN B+ b[]", stream("BB", ts=[0, 0]))
    assert op == sremo and sets(sremo) == {(0,), (1,), (0, 1)}


def test_windows_agree_only_with_ts_equal_to_position():
    # docs/errata.md#seed-004-from-operator-window: WITHIN 1 needs w >= 3 on
    # A@0 X@0 B@1 and w <= 1 on A@0 B@2; no w serves both.
    text = "PATTERN SEQ(A a, B b) WITHIN 1"
    assert sets(both(text, stream("AXB", ts=[0, 0, 1]))[0]) == {(0, 2)}
    assert sets(both(text, stream("AB", ts=[0, 2]))[0]) == set()
    assert window_width(parse_operator(text)) == 2
    # ts = position: inclusive WITHIN 1 is [1..2], strict WITHIN 2 also; strict 0 is EMPTY.
    s = stream("AXB")
    cases: list[tuple[WindowReading, float, set[tuple[int, ...]]]] = [
        ("inclusive", 1, set()), ("inclusive", 2, {(0, 2)}),
        ("strict", 2, set()), ("strict", 3, {(0, 2)}),
        ("strict", 2.5, {(0, 2)}), ("inclusive", 1.5, set())]
    for reading, tau, expected in cases:
        p = OperatorPattern(parse_operator("PATTERN SEQ(A a, B b)").expr, (), Duration(tau))
        op = {project(m) for m in operator_matches(p, s, "any", reading=reading)}
        assert op == stream_matches(to_sremo(p, reading=reading), s)
        assert sets(op) == expected, (reading, tau)
    strict0 = OperatorPattern(Primitive("A", "a"), (), Duration(0))
    assert format_sremo(to_sremo(strict0, reading="strict")) == "EMPTY"


@pytest.mark.parametrize(("text", "construct"), [
    ("PATTERN AND(A a, B b)", "AND"),
    ("PATTERN SEQ(A a, NOT(B b), C c)", "NOT"),
    ("PATTERN SEQ(A a, B b)+", "Kleene closure of a sub-pattern"),
    ("PATTERN SEQ(A+ a[], C c) WHERE a.x < c.x", "register keeps only the last"),
    ("PATTERN SEQ(A+ a[], B+ b[]) WHERE a.x < b.x", "register keeps only the last"),
    ("PATTERN SEQ(A a, B+ b[]) WHERE SUM(b.x) > 2", "aggregates"),
    ("PATTERN SEQ(A a, B b) WITHIN 1 hour", "time unit"),
    ("PATTERN SEQ(A a, B b) WHERE skip_till_next_match { a.x = 1 }", "strategy"),
])
def test_outside_the_fragment(text, construct):
    with pytest.raises(Unsupported, match=construct):
        to_sremo(parse_operator(text))


def test_partial_marking_refuses_a_window():
    with pytest.raises(Unsupported, match="Def. 39"):
        to_sremo(parse_operator("PATTERN SEQ(A a, B b) WITHIN 3"), marked={"a"})

# ---------------------------------------------------------------- random patterns


@st.composite
def fragment_nodes(draw: st.DrawFn, names: list[str], depth: int) -> Node:
    """SEQ, OR, single events and their repetition; fresh variable names from ``names``."""
    kind = draw(st.sampled_from(["event", "event", "seq", "or"] if depth > 0 else ["event"]),
                label="kind")
    if kind == "seq":
        return Seq(tuple(draw(fragment_nodes(names, depth - 1), label="part")
                         for _ in range(draw(st.integers(1, 3), label="parts"))))
    if kind == "or":
        if draw(st.booleans(), label="shared variable"):
            var = f"v{len(names)}"
            names.append(var)
            return Disj(tuple(Primitive(t, var) for t in draw(
                st.lists(st.sampled_from(TYPES), min_size=2, max_size=2, unique=True),
                label="types")))
        return Disj(tuple(draw(fragment_nodes(names, depth - 1), label="branch")
                          for _ in range(2)))
    var = f"v{len(names)}"
    names.append(var)
    leaf = Primitive(draw(st.sampled_from((*TYPES, *TYPES[:2], None)), label="type"), var)
    low, high = draw(st.sampled_from([(1, 1)] * 6 + [(1, None), (1, None), (2, None), (1, 2),
                                                     (2, 3)]), label="repetition")
    return leaf if (low, high) == (1, 1) else Kleene(leaf, low, high)


@st.composite
def fragment_patterns(draw: st.DrawFn, *, windows: bool = True,
                      relations: bool = False) -> OperatorPattern:
    """A pattern of the fragment with up to three conditions it can check; with
    ``relations``, one to three conditions relating two variables (registers)."""
    names: list[str] = []
    expr = Seq(tuple(draw(fragment_nodes(names, 1), label="part")
                     for _ in range(draw(st.sampled_from([1, 2, 2, 3, 3]), label="parts"))))
    var = st.sampled_from(sorted(positive_variables(expr)))
    ops = st.sampled_from(["<", "<=", "=", "!="])
    prop = st.builds(lambda v, op, c: Cmp(op, Attr(v, "x"), Const(c)), var, ops, st.integers(0, 2))
    pair = st.lists(var, min_size=2, max_size=2, unique=len(names) > 1)
    rel = st.builds(lambda op, vw: Cmp(op, Attr(vw[0], "x"), Attr(vw[1], "x")), ops, pair)
    prev = st.builds(lambda op, vw: Cmp(op, Prev(vw[0], "x"), Attr(vw[1], "x")), ops,
                     pair | var.map(lambda v: [v, v]))
    either = st.builds(lambda a, b: Or((a, b)), rel, prop)
    conditions: list[Condition] = []
    kinds = st.one_of(rel, prev, either) if relations else st.one_of(prop, rel, rel, prev, either)
    for _ in range(draw(st.sampled_from([1, 2, 3] if relations else [0, 1, 2, 2, 3]),
                        label="conditions")):
        c = draw(kinds, label="condition")
        try:
            check_condition(expr, c)
        except MalformedPattern:
            continue
        conditions.append(c)
    tau = draw(st.none() | st.integers(0, 5), label="window") if windows else None
    return OperatorPattern(expr, tuple(conditions), None if tau is None else Duration(tau))


def typed_streams(draw: st.DrawFn, types: list[str | None], *, gaps: bool) -> Stream:
    """Events of the given types (``None``: any of A/B/C) with a numeric ``x``, sometimes
    missing; ts = position, or strictly increasing with gaps when ``gaps``."""
    ts, rows = 0, []
    for i, t in enumerate(types):
        if not gaps:
            ts = i
        elif i:
            ts += draw(st.integers(1, 3), label="step")
        row: dict[str, object] = {"ts": ts, "type": t or draw(st.sampled_from(TYPES), label="type")}
        x = draw(st.sampled_from([0, 1, 2, 0, 1, 2, None]), label="x")
        if x is not None:
            row["x"] = x
        rows.append(row)
    return Stream.from_rows(rows)


@st.composite
def streams(draw: st.DrawFn, max_size: int = 7, *, gaps: bool = False) -> Stream:
    """Up to ``max_size`` events of 2–3 types."""
    types = TYPES[:draw(st.integers(2, 3), label="types")]
    n = draw(st.sampled_from([*range(max_size + 1), *[max_size, max_size - 1] * 3]),
             label="length")  # long streams more often: more matches
    return typed_streams(draw, [draw(st.sampled_from(types), label="type") for _ in range(n)],
                         gaps=gaps)


def skeleton(draw: st.DrawFn, p: Node) -> list[str | None]:
    """The event types of one derivation of ``p`` (``None`` for ``ANY``)."""
    if isinstance(p, Primitive):
        return [p.type]
    if isinstance(p, Kleene):
        n = draw(st.integers(p.low, p.low + 1 if p.high is None else p.high), label="iterations")
        return [t for _ in range(n) for t in skeleton(draw, p.part)]
    if isinstance(p, Disj):
        return skeleton(draw, draw(st.sampled_from(p.parts), label="branch"))
    assert isinstance(p, Seq)
    return [t for q in p.parts for t in skeleton(draw, q)]


@st.composite
def witnessed_streams(draw: st.DrawFn, p: OperatorPattern, max_size: int = 7, *,
                      gaps: bool = False) -> Stream:
    """The types of one derivation of ``p`` among other events (the conditions and window
    still decide): streams on which the pattern often has matches."""
    types = skeleton(draw, p.expr)[:max_size]
    for _ in range(draw(st.integers(0, max_size - len(types)), label="noise")):
        types.insert(draw(st.integers(0, len(types)), label="at"),
                     draw(st.sampled_from(TYPES), label="noise type"))
    return typed_streams(draw, types, gaps=gaps)


def some_streams(data: st.DataObject, p: OperatorPattern, max_size: int = 7, *,
                 gaps: bool = False) -> Stream:
    """A stream for ``p``: a random one or one with a derivation of ``p`` in it."""
    return data.draw(streams(max_size, gaps=gaps) | witnessed_streams(p, max_size, gaps=gaps),
                     label="stream")


def translated(p: OperatorPattern, *, reading: WindowReading = "inclusive",
               marked: Collection[str] | None = None) -> Expr:
    """``to_sremo(p)``, or a rejected example when ``p`` is outside the fragment."""
    try:
        return to_sremo(p, reading=reading, marked=marked)
    except Unsupported:
        assume(False)
        raise


@given(fragment_patterns(), st.sampled_from(["inclusive", "strict"]), st.data())
def test_projected_operator_matches_equal_sremo_stream_matches(p, reading, data):
    e = translated(p, reading=reading)
    s = some_streams(data, p)
    expected = {project(m) for m in operator_matches(p, s, "any", reading=reading)}
    registers = any(reads(a.condition) for a in walk(e) if isinstance(a, Atom))
    event(f"{'matches' if expected else 'no match'}, {'' if registers else 'no '}register read")
    assert stream_matches(e, s) == expected, format_sremo(e)


@given(fragment_patterns(relations=True), st.data())
def test_registers_carry_the_earlier_events(p, data):
    # The same claim on patterns whose conditions relate two variables, so that
    # atoms read registers (report Defs. 12, 13) on most examples.
    e = translated(p)
    s = data.draw(witnessed_streams(p), label="stream")
    expected = {project(m) for m in operator_matches(p, s, "any")}
    registers = any(reads(a.condition) for a in walk(e) if isinstance(a, Atom))
    event(f"{'matches' if expected else 'no match'}, {'' if registers else 'no '}register read")
    assert stream_matches(e, s) == expected, format_sremo(e)


@given(fragment_patterns(windows=False), st.data())
def test_without_window_any_strictly_increasing_ts_will_do(p, data):
    e = translated(p)
    s = some_streams(data, p, gaps=True)
    assert stream_matches(e, s) == {project(m) for m in operator_matches(p, s, "any")}


@given(fragment_patterns(windows=False), st.data())
def test_each_variable_alone_over_every_slice(p, data):
    # Marking one variable v: the M of (e, S_j..k, M, ♯) ⊣ v' over every slice
    # (report Def. 17) are the positions the operator matches bind to v.
    v = data.draw(st.sampled_from(sorted(positive_variables(p.expr))), label="variable")
    e = translated(p, marked={v})
    s = some_streams(data, p, max_size=6)
    semantics = Semantics(s)
    got = {m for j in range(len(s)) for k in range(j + 1, len(s) + 1)
           for m, _ in semantics.relate(e, j, k) if m}
    expected = {frozenset(m[v]) for m in operator_matches(p, s, "any") if v in m.variables}
    assert got == expected, format_sremo(e)


@given(fragment_patterns())
def test_printed_translation_reads_back(p):
    e = translated(p)
    assert parse_sremo(format_sremo(e)) == e

# ---------------------------------------------------------------- the conformance cases


def test_conformance_cases_are_printed_translations():
    # Each case names its operator pattern in its comment: `PATTERN ...`.
    data = json.loads(CASES.read_text())
    assert data["language"] == "sremo"
    for case in data["cases"]:
        found = re.search(r"`(PATTERN [^`]*)`", case["comment"])
        assert found, case["description"]
        assert case["pattern"] == format_sremo(to_sremo(parse_operator(found.group(1)))), \
            case["description"]
