"""Iterated and negated sub-patterns in the lazy NFAs (engines/nfa/subpattern.py, seed 003
Secs. 4.4, 4.5, 4.5.3; issue 32 item 2).

The oracle is the reference (:mod:`kleene.reference.operators`): Hypothesis draws
patterns with a Kleene operator over a ``SEQ``/``AND`` (iterated), a ``NOT`` over a
``SEQ``/``AND``/iteration (negated), and iterations whose body's variables are joined
by ``ID`` equalities (group-by), over typed streams with ties; every lazy engine,
every policy it claims, must give the reference's match set. Hand-computed cases
fix what each construct means on small streams.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kleene.conformance.differential import assert_same_matches, reference_or_reject
from kleene.conformance.strategies import TYPES, typed_streams
from kleene.engines.nfa.draw import nfa_graph
from kleene.engines.nfa.engine import NFAEngine
from kleene.engines.nfa.subpattern import Unit, group_attribute
from kleene.engines.protocol import Counters, Feature
from kleene.engines.registry import engine
from kleene.engines.trace import trace
from kleene.reference.conditions import Attr, Cmp, Condition, Const
from kleene.reference.durations import Duration
from kleene.reference.errors import PatternError
from kleene.reference.events import Stream
from kleene.reference.match import Match
from kleene.reference.operators.pattern import (
    Conj,
    Disj,
    Kleene,
    Neg,
    Node,
    OperatorPattern,
    Primitive,
    Seq,
    negated_variables,
    positive_variables,
)
from kleene.reference.operators.text import parse_operator
from kleene.reference.query import Query
from tests.helpers import columnar, m, node_labels, typed_stream

LAZY = ("nfa-chain", "nfa-chain-fc", "nfa-multichain", "nfa-tree")
POLICIES = ("any", "contiguous", "next", "partition-contiguous")
EXAMPLES = settings(max_examples=300)

_types = st.sampled_from(TYPES)


@st.composite
def subpattern_patterns(draw: st.DrawFn, *, iterated: bool, negated: bool,
                        grouped: bool = False, disjunction: bool = False) -> OperatorPattern:
    """An operator pattern with an iterated sub-pattern (a Kleene operator over a ``SEQ``
    or ``AND`` of primitives or iterated primitives) and/or a negated one (``NOT`` over a
    ``SEQ``, ``AND`` or such an iteration), between, before or after positive parts;
    ``grouped`` joins the iterated body's variables by ``ID`` equalities (Sec. 4.5.3);
    ``disjunction`` lets a body be an ``OR`` (for the engines that claim it)."""
    names = iter(f"v{i}" for i in range(100))

    def primitive() -> Primitive:
        return Primitive(draw(_types, label="type"), next(names))

    def element() -> Node:
        if draw(st.booleans(), label="iterated primitive"):
            low = draw(st.integers(1, 2), label="low")
            return Kleene(primitive(), low, draw(st.sampled_from((None, low)), label="high"))
        return primitive()

    def composite() -> Node:
        parts = tuple(element() for _ in range(draw(st.integers(2, 3), label="body parts")))
        kind = draw(st.sampled_from(("SEQ", "AND", "OR") if disjunction else ("SEQ", "AND")),
                    label="body")
        return Seq(parts) if kind == "SEQ" else Conj(parts) if kind == "AND" else Disj(parts)

    def unit() -> Kleene:
        low = draw(st.integers(1, 2), label="iterations low")
        high = draw(st.sampled_from((None, low, low + 1)), label="iterations high")
        return Kleene(composite(), low, high)

    parts: list[Node] = [primitive() for _ in range(draw(st.integers(0, 2), label="around"))]
    body: Kleene | None = None
    if iterated or not parts:
        body = unit()
        parts.insert(draw(st.integers(0, len(parts)), label="unit place"), body)
    if negated:
        inner = draw(st.sampled_from(("seq", "and", "kleene")), label="negated kind")
        neg: Node = (Kleene(Seq((primitive(), primitive()))) if inner == "kleene"
                     else composite())
        parts.insert(draw(st.integers(0, len(parts)), label="negation place"), Neg(neg))
    expr: Node = Seq(tuple(parts)) if draw(st.booleans(), label="SEQ") else Conj(tuple(parts))
    found: list[Condition] = []
    positive = sorted(positive_variables(expr))
    if grouped and body is not None:
        inside = sorted(positive_variables(body.part))
        found += [Cmp("=", Attr(x, "ID"), Attr(y, "ID"))
                  for x, y in zip(inside, inside[1:], strict=False)]
    for v in draw(st.lists(st.sampled_from(positive), max_size=1), label="properties"):
        found.append(Cmp(draw(st.sampled_from(("=", "<", ">=")), label="op"), Attr(v, "V"),
                         Const(draw(st.integers(0, 3), label="constant"))))
    pairs = [(x, y) for x in positive for y in positive if x != y]
    pairs += [(x, y) for x in sorted(negated_variables(expr)) for y in positive + [x]]
    for x, y in draw(st.lists(st.sampled_from(pairs), max_size=2), label="relationships"):
        attr, op = draw(st.sampled_from((("ID", "="), ("V", "<"))), label="relationship")
        found.append(Cmp(op, Attr(x, attr), Attr(y, attr) if x != y else Const(1)))
    window = Duration(draw(st.integers(1, 6), label="window"))
    for kept in (found, found[:1], []):
        try:
            return OperatorPattern(expr, tuple(kept), window)
        except PatternError:
            continue
    raise AssertionError("a pattern without conditions is well formed")


def lazy(name: str, *, group_by: bool = True) -> NFAEngine:
    e = engine(name)
    assert isinstance(e, NFAEngine)
    e.group_by = group_by
    return e


def drawn_stream(data: st.DataObject) -> Stream:
    """A typed stream with ties, held as Arrow columns or not (the NFAs' first filter
    over columns, engines/nfa/columns.py)."""
    stream = data.draw(typed_streams(max_size=8), label="stream")
    return columnar(stream) if data.draw(st.booleans(), label="columnar") else stream


def check(name: str, policy: str, pattern: OperatorPattern, stream: Stream) -> None:
    e = lazy(name)
    expected = reference_or_reject(pattern, stream, policy)
    got = list(e.compile(Query.of(pattern, policy=policy)).run(stream))
    assert_same_matches(e, pattern=pattern, stream=stream, got=got, expected=expected,
                        policy=policy)


@pytest.mark.parametrize("name", LAZY)
def test_the_lazy_engines_claim_both(name: str) -> None:
    caps = engine(name).capabilities
    assert Feature("operator", "iterated-subpattern") in caps
    assert Feature("operator", "negated-subpattern") in caps
    assert Feature("operator", "iterated-subpattern") not in engine("nfa-eager").capabilities


@pytest.mark.slow
@EXAMPLES
@given(data=st.data())
def test_iterated_subpatterns_equal_the_reference(data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(LAZY), label="engine")
    policy = data.draw(st.sampled_from(POLICIES), label="policy")
    multi = name in ("nfa-multichain", "nfa-tree") and policy != "next"
    pattern = data.draw(subpattern_patterns(iterated=True, negated=False, disjunction=multi),
                        label="pattern")
    check(name, policy, pattern, drawn_stream(data))


@pytest.mark.slow
@EXAMPLES
@given(data=st.data())
def test_negated_subpatterns_equal_the_reference(data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(LAZY), label="engine")
    policy = data.draw(st.sampled_from(POLICIES), label="policy")
    multi = name in ("nfa-multichain", "nfa-tree") and policy != "next"
    pattern = data.draw(subpattern_patterns(iterated=data.draw(st.booleans(), label="both"),
                                            negated=True, disjunction=multi), label="pattern")
    check(name, policy, pattern, drawn_stream(data))


@pytest.mark.slow
@EXAMPLES
@given(data=st.data())
def test_group_by_equals_the_reference(data: st.DataObject) -> None:
    """Sec. 4.5.3 on a unit: the same matches as the reference and as without it, and
    never more chains made."""
    name = data.draw(st.sampled_from(("nfa-chain", "nfa-tree")), label="engine")
    pattern = data.draw(subpattern_patterns(iterated=True, negated=False, grouped=True),
                        label="pattern")
    stream = data.draw(typed_streams(max_size=8), label="stream")
    expected = reference_or_reject(pattern, stream, "any")
    on, off = Counters(), Counters()
    got = list(lazy(name).compile(Query.of(pattern)).run(stream, counters=on))
    plain = list(lazy(name, group_by=False).compile(Query.of(pattern)).run(stream, counters=off))
    assert_same_matches(lazy(name), pattern=pattern, stream=stream, got=got,
                        expected=expected, policy="any")
    assert sorted(plain) == sorted(got)
    assert on.subsets <= off.subsets


# ---------------------------------------------------------------- by hand


def _all(text: str, s: Stream, policy: str = "any") -> dict[str, list[Match]]:
    q = Query.of(parse_operator(text), policy=policy)
    return {name: sorted(engine(name).compile(q).run(s)) for name in LAZY}


def test_two_iterations_of_a_sequence() -> None:
    """SEQ(A a, B b)+ on A B A B (WITHIN 10), by hand: a chain is one or two (A, B) pairs,
    each pair's A before its B, the second pair after the first: the pairs a0b1, a0b3,
    a2b3 and the chain a0b1 + a2b3 (4 matches)."""
    s = typed_stream("A", "B", "A", "B")
    expected = sorted([m(a=0, b=1), m(a=0, b=3), m(a=2, b=3), m(a=[0, 2], b=[1, 3])])
    for name, got in _all("PATTERN SEQ(A a, B b)+ WITHIN 10", s).items():
        assert got == expected, name


def test_two_ways_to_bind_the_same_events_are_one_match() -> None:
    """AND(A+ a[], B+ b[])+ on A B A B, by hand: one iteration binds any non-empty a of
    {0, 2} with any non-empty b of {1, 3} (9); two iterations can only be (a0 b1) then
    (a2 b3), which binds what the one iteration a/⟨0, 2⟩ b/⟨1, 3⟩ binds: 9 matches, each
    reported once."""
    s = typed_stream("A", "B", "A", "B")
    expected = sorted(m(a=a, b=b) for a in ([0], [2], [0, 2]) for b in ([1], [3], [1, 3]))
    for name, got in _all("PATTERN AND(A+ a[], B+ b[])+ WITHIN 10", s).items():
        assert got == expected, name


def test_a_negated_sequence_forbids_only_in_order() -> None:
    """SEQ(A a, NOT(SEQ(B b, C c)), D d): on A C B D the C precedes the B, so no B-then-C
    lies between a0 and d3 (a match); on A B C D it does (none)."""
    text = "PATTERN SEQ(A a, NOT(SEQ(B b, C c)), D d) WITHIN 10"
    for name, got in _all(text, typed_stream("A", "C", "B", "D")).items():
        assert got == [m(a=0, d=3)], name
    for name, got in _all(text, typed_stream("A", "B", "C", "D")).items():
        assert got == [], name


def test_group_by_hashes_the_pairs() -> None:
    """SEQ(A a, B b)+ WHERE a.ID = b.ID: a pair of two IDs never forms; on A1 B1 A2 B2 A1 B1
    the chains are (a0 b1), (a4 b5), (a0 b5), (a2 b3), (a0b1 + a4b5): 5 matches."""
    s = typed_stream(("A", 0, {"ID": 1}), ("B", 1, {"ID": 1}), ("A", 2, {"ID": 2}),
                     ("B", 3, {"ID": 2}), ("A", 4, {"ID": 1}), ("B", 5, {"ID": 1}))
    expected = sorted([m(a=0, b=1), m(a=4, b=5), m(a=0, b=5), m(a=2, b=3),
                       m(a=[0, 4], b=[1, 5])])
    for name, got in _all("PATTERN SEQ(A a, B b)+ WHERE a.ID = b.ID WITHIN 10", s).items():
        assert got == expected, name


@pytest.mark.parametrize(("text", "attr"), [
    ("SEQ(A a, B b)+ WHERE a.ID = b.ID", "ID"),
    ("SEQ(A a, B b, C c)+ WHERE a.ID = b.ID AND c.ID = b.ID", "ID"),
    ("SEQ(A a, B b, C c)+ WHERE a.ID = b.ID", None),          # c is free
    ("SEQ(A a, B b)+ WHERE a.ID = b.V", None),                # two attributes
    ("SEQ(A a, B b)+ WHERE a.ID < b.ID", None),                # not an equality
    ("SEQ(A a, OR(B b, C c))+ WHERE a.ID = b.ID AND a.ID = c.ID", None),  # c may be unbound
])
def test_group_attribute_only_where_exact(text: str, attr: str | None) -> None:
    p = parse_operator(f"PATTERN {text} WITHIN 5")
    assert isinstance(p.expr, Kleene)
    assert group_attribute(Unit(p.expr.part, 1, None), p.conditions) == attr


# ---------------------------------------------------------------- pictures and traces

PICTURED = "PATTERN SEQ(X x, SEQ(A a, B b)+, NOT(SEQ(C c, D d))) WITHIN 10"


@pytest.mark.parametrize("name", ["nfa-chain", "nfa-tree"])
def test_the_picture_names_the_subpatterns(name: str) -> None:
    """The unit is a state of its own, reached by Sec. 4.5's iterate edge, reading the
    body's buffers (A, B, not a buffer of its own); the negated sub-pattern is the
    rejecting edge of the post-processing check, reading C and D."""
    g = nfa_graph(lazy(name).compile(Query.of(parse_operator(PICTURED))))
    assert "{x, SEQ(A a, B b)+}" in node_labels(g)
    edges = [d["label"] for _, _, d in g.edges(data=True)]
    assert "iterate SEQ(A a, B b)+" in edges
    assert any(label.startswith("take NOT(SEQ(C c, D d))") for label in edges)
    assert {"buffer A", "buffer B", "buffer C", "buffer D", "buffer X"} <= node_labels(g)
    assert "buffer SEQ(A a, B b)+" not in node_labels(g)


@pytest.mark.parametrize("name", ["nfa-chain", "nfa-tree"])
def test_the_trace_shows_the_chains_bound(name: str) -> None:
    """On X A B A B C D (ts = position): the unit binds (e2 e3) at e3, then (e2 e5),
    (e4 e5), (e2 e3 e4 e5) at e5; the trailing C D forbids every match, so none is
    reported, and the trace's matches are the engine's; without the D all four are."""
    s = typed_stream("X", "A", "B", "A", "B", "C", "D")
    compiled = engine(name).compile(Query.of(parse_operator(PICTURED)))
    t = trace(compiled, s)
    bound = [[e.position for e in c.new] for step in t.steps for c in step.created]
    assert bound == [[0], [1, 2], [1, 4], [3, 4], [1, 2, 3, 4]]
    assert list(t.matches) == [] == list(compiled.run(s))
    without_d = typed_stream("X", "A", "B", "A", "B", "C")  # no C then D: all 4 stand
    assert sorted(trace(compiled, without_d).matches) == sorted(
        [m(x=0, a=1, b=2), m(x=0, a=1, b=4), m(x=0, a=3, b=4), m(x=0, a=[1, 3], b=[2, 4])])
    text = "\n".join(t.text())
    assert "--SEQ(A a, B b)+-->" in text
