"""The operator reference equals a brute-force reading of its definition.

:mod:`kleene.reference.operators.derivations` builds matches bottom-up with
pruning. Here, independently, every substitution of a tiny stream (each
positive variable to a subset of the positions, absent when empty) is tested
for membership with a recursive decision procedure written from the module
docstring of :mod:`kleene.reference.operators.matching` (conditions 1–3;
negation-free patterns, negation is covered by hand-computed tests).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping

from hypothesis import given
from hypothesis import strategies as st

from kleene.reference.conditions import Attr, Cmp, Condition, Const, Prev, holds, variables
from kleene.reference.durations import Duration
from kleene.reference.events import Stream
from kleene.reference.match import Match
from kleene.reference.operators.matching import all_matches
from kleene.reference.operators.pattern import (
    Conj,
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

Gamma = Mapping[str, tuple[int, ...]]


def derives(p: Node, g: Gamma, s: Stream) -> bool:
    """Condition 1 by definition: is ``g`` (``p``'s bound variables) a derivation of ``p``?"""
    if isinstance(p, Primitive):
        return set(g) == {p.var} and len(g[p.var]) == 1 and p.accepts(s[g[p.var][0]])
    if isinstance(p, Disj):
        return any(set(g) <= positive_variables(q) and derives(q, g, s) for q in p.parts)
    if isinstance(p, Kleene):
        events = sorted(x for ps in g.values() for x in ps)
        for cuts in itertools.product([False, True], repeat=max(len(events) - 1, 0)):
            groups, current = [], [events[0]]
            for x, cut in zip(events[1:], cuts, strict=True):
                if cut:
                    groups.append(current)
                    current = []
                current.append(x)
            groups.append(current)
            if len(groups) < p.low or (p.high is not None and len(groups) > p.high):
                continue
            if all(derives(p.part, _restrict_positions(g, set(grp)), s) for grp in groups):
                return True
        return False
    assert isinstance(p, (Seq, Conj))
    pieces = [{v: ps for v, ps in g.items() if v in positive_variables(q)} for q in p.parts]
    if sum(len(x) for x in pieces) != len(g) or not all(pieces):
        return False
    if not all(derives(q, x, s) for q, x in zip(p.parts, pieces, strict=True)):
        return False
    if isinstance(p, Seq):
        for a, b in itertools.pairwise(pieces):
            if not max(s[x].ts for ps in a.values() for x in ps) < \
                    min(s[x].ts for ps in b.values() for x in ps):
                return False
    return True


def _restrict_positions(g: Gamma, keep: set[int]) -> dict[str, tuple[int, ...]]:
    out = {v: tuple(x for x in ps if x in keep) for v, ps in g.items()}
    return {v: ps for v, ps in out.items() if ps}


def brute_force(pattern: OperatorPattern, s: Stream) -> set[Match]:
    """Every substitution of ``s`` that satisfies conditions 1–3."""
    names = sorted(positive_variables(pattern.expr))
    tau = None if pattern.window is None else pattern.window.value
    subsets = [c for n in range(len(s) + 1) for c in itertools.combinations(range(len(s)), n)]
    out = set()
    for choice in itertools.product(subsets, repeat=len(names)):
        used = [x for c in choice for x in c]
        if not used or len(set(used)) != len(used):
            continue
        g = {v: c for v, c in zip(names, choice, strict=True) if c}
        if not derives(pattern.expr, g, s):
            continue
        ts = [s[x].ts for x in used]
        if tau is not None and max(ts) - min(ts) > tau:
            continue
        gamma = {v: tuple(s[x] for x in ps) for v, ps in g.items()}
        if all(holds(c, gamma) for c in pattern.conditions if variables(c) <= g.keys()):
            out.add(Match.of(g))
    return out


@st.composite
def small_patterns(draw: st.DrawFn) -> OperatorPattern:
    """Negation-free patterns with at most three variables, nested up to depth 2."""
    names = iter(["a", "b", "c"])

    def node(depth: int) -> Node:
        leaf = Primitive(draw(st.sampled_from(["A", "B", None]), label="type"), next(names))
        if depth == 0:
            return leaf
        kind = draw(st.sampled_from(["leaf", "seq", "and", "or", "kleene"]), label="kind")
        if kind == "leaf":
            return leaf
        if kind == "kleene":
            low = draw(st.integers(1, 2), label="low")
            return Kleene(leaf, low, draw(st.sampled_from([None, low, low + 1]), label="high"))
        rest = []
        for _ in range(draw(st.integers(1, 2), label="more")):
            try:
                rest.append(node(depth - 1))
            except StopIteration:
                break
        parts = (leaf, *rest)
        return Seq(parts) if kind == "seq" else Conj(parts) if kind == "and" else Disj(parts)

    expr = node(2)
    bound = sorted(positive_variables(expr))
    attr = st.builds(Attr, st.sampled_from(bound), st.just("x"))
    terms = attr | st.builds(Prev, st.sampled_from(bound), st.just("x"))
    condition = st.builds(Cmp, st.sampled_from(["<", "=", "!="]), terms,
                          attr | st.builds(Const, st.integers(0, 2)))
    conditions = draw(st.lists(condition.filter(lambda c: accepted(expr, c)), max_size=2),
                      label="conditions")
    window = draw(st.one_of(st.none(), st.builds(Duration, st.integers(0, 3))), label="window")
    return OperatorPattern(expr, tuple(conditions), window)


def accepted(expr: Node, c: Condition) -> bool:
    """Whether ``c`` is well formed on ``expr`` (not across branches of an OR)."""
    try:
        check_condition(expr, c)
    except MalformedPattern:
        return False
    return True


@st.composite
def tiny_streams(draw: st.DrawFn) -> Stream:
    """Up to 4 events of type A or B, ts with ties, x in 0..2."""
    rows, ts = [], 0
    for _ in range(draw(st.integers(0, 4), label="length")):
        ts += draw(st.integers(0, 1), label="step")
        rows.append({"ts": ts, "type": draw(st.sampled_from("AB"), label="type"),
                     "x": draw(st.integers(0, 2), label="x")})
    return Stream.from_rows(rows)


@given(small_patterns(), tiny_streams())
def test_all_matches_is_the_definition(p, s):
    assert all_matches(p, s) == brute_force(p, s)
