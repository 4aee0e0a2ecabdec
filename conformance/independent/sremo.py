"""SREMO (seed 004), evaluated from the extended report's Def. 17, Def. 39 and Cor. 43.

Independent of :mod:`kleene.reference` (issue 28, item 3): its own parser and
a direct transcription of the relation ``(e, S, M, v) ⊣ v′`` of report Def. 17,
computed for every slice ``S = rows[i:j]`` (0-based, ``j`` exclusive; a
match's positions are the stream's), written to be checked, not to be fast.

Syntax (Kleene's, docs/semantics.md section 13): ``expr := inter ("+" inter)*``;
``inter := seq ("INTERSECT" seq)*``; ``seq := unary (";" unary)*``;
``unary := "!" unary | postfix``;
``postfix := primary ("*" | "[" "1" ".." w "]" | "[" "WITHIN" τ "]")*``;
``primary := ["mark"] "{" condition "}" ["->" r] | "(" expr ")" | "EPS" | "EMPTY"``.

The relation, case by case (a valuation maps registers to positions):

1. ``EPS``: the empty slice, ``M = ∅``, ``v′ = v``; ``EMPTY`` relates nothing;
2. ``{φ}`` (``mark {φ}``): one element ``u`` with ``(u, v) ⊨ φ`` (a comparison
   with an empty register is false, Def. 13), ``v′ = v``, ``M = ∅`` (``{u}``);
3. ``{φ} -> r``: as 2 with ``v′ = v[r ← u]``;
4. ``e1 ; e2``: every split ``S = S1 · S2``, ``M = M1 ∪ M2``, ``v`` → ``v″`` → ``v′``;
5. ``e1 + e2``: either;
6. ``e*``: the empty slice with ``v′ = v``, or a first non-empty slice related by
   ``e`` followed by ``e*`` (an empty first slice adds nothing: it leaves
   ``v`` and ``M`` as they are, so it only repeats the empty case);
7. ``e[1..w]`` (Def. 39): the pairs with ``max M − min M + 1 ≤ w``, an empty M
   satisfying every window (the report does not say; Kleene's reading);
   ``e[WITHIN τ]`` (Kleene's extension, docs/semantics.md section 11): with
   ``ts(max M) − ts(min M) ≤ τ`` (``< τ`` strictly), τ a plain number;
8. ``!e`` (Cor. 43): ``(∅, v)`` iff ``e`` relates nothing;
9. ``e1 INTERSECT e2`` (Thm 34): the same ``M`` from both, each register as the
   part that writes it left it.

Policy ``stream`` (the normative one, docs/semantics.md section 13): every
``M`` related by ``e`` to some slice ``rows[j:k+1]`` from the empty valuation
whose last element is marked (``max M = k``); ``literal``: Def. 18 on the whole
stream. Not covered (:class:`Uncovered`): the strategies ``ANY(…)``/``NEXT(…)``
(report Defs. 44, 45).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from kleene.conformance.independent.ses import part_of
from kleene.conformance.independent.text import (
    EMPTY,
    Cond,
    Ref,
    Row,
    Tokens,
    Uncovered,
    condition,
    ts,
    window,
)
from kleene.conformance.independent.text import evaluate as evaluate_condition

#: A valuation: each written register with the position it holds.
Valuation = frozenset[tuple[str, int]]
Pairs = frozenset[tuple[frozenset[int], Valuation]]


@dataclass(frozen=True)
class Atom:
    """``[mark] {φ} [-> r]``."""

    phi: Cond
    mark: bool
    register: str | None


@dataclass(frozen=True)
class Node:
    """``EPS``, ``EMPTY``, ``;``, ``+``, ``*``, ``!``, ``[1..w]``, ``[WITHIN τ]`` (``kind``)."""

    kind: str
    parts: tuple[Atom | Node, ...] = ()
    width: int | float = 0


Expr = Atom | Node


def _expr(t: Tokens) -> Expr:
    parts = [_inter(t)]
    while t.at("+"):
        t.take()
        parts.append(_inter(t))
    return parts[0] if len(parts) == 1 else Node("+", tuple(parts))


def _inter(t: Tokens) -> Expr:
    parts = [_seq(t)]
    while t.at("INTERSECT"):
        t.take()
        parts.append(_seq(t))
    return parts[0] if len(parts) == 1 else Node("INTERSECT", tuple(parts))


def _seq(t: Tokens) -> Expr:
    parts = [_unary(t)]
    while t.at(";"):
        t.take()
        parts.append(_unary(t))
    return parts[0] if len(parts) == 1 else Node(";", tuple(parts))


def _unary(t: Tokens) -> Expr:
    if t.at("!"):
        t.take()
        return Node("!", (_unary(t),))
    e = _primary(t)
    while t.at("*", "["):
        if t.take().text == "*":
            e = Node("*", (e,))
            continue
        if t.at("WITHIN"):
            t.take()
            e = Node("within", (e,), window(t))
        else:
            if t.number() != 1:
                raise Uncovered("a count window not starting at 1")
            t.take("..")
            e = Node("count", (e,), int(t.number()))
        t.take("]")
    return e


def _primary(t: Tokens) -> Expr:
    if t.at("EPS", "EMPTY"):
        return Node(t.take().text.upper())
    if t.at("("):
        t.take()
        e = _expr(t)
        t.take(")")
        return e
    if t.at("ANY", "NEXT"):
        raise Uncovered(f"the SREMO strategy {t.peek().text.upper()}(…)")
    mark = t.at("MARK")
    if mark:
        t.take()
    t.take("{")
    phi = condition(t)
    t.take("}")
    register = None
    if t.at("->"):
        t.take()
        register = t.name()
    return Atom(phi, mark, register)


def parse(text: str, time_unit: str | None = None) -> tuple[Expr, list[str]]:
    """The SREMO expression of ``text`` and its ``PARTITION BY`` attributes (if any)."""
    t = Tokens(text, time_unit)
    e = _expr(t)
    attrs = []
    if t.at("PARTITION"):
        t.take()
        t.take("BY")
        attrs.append(t.name())
        while t.at(","):
            t.take()
            attrs.append(t.name())
    if not t.done():
        raise Uncovered(f"SREMO expression: {t.peek().text!r}")
    return e, attrs


def written(e: Expr) -> set[str]:
    """The registers ``e`` writes (``-> r``)."""
    if isinstance(e, Atom):
        return set() if e.register is None else {e.register}
    return set().union(*(written(x) for x in e.parts))


@dataclass
class Relation:
    """``(e, rows[i:j], M, v) ⊣ v′`` for the sub-expressions of one expression."""

    rows: Sequence[Row]
    reading: str
    memo: dict[tuple[int, int, int, Valuation], Pairs] = field(default_factory=dict)
    nodes: dict[int, Expr] = field(default_factory=dict)

    def satisfies(self, phi: Cond, u: int, v: Valuation) -> bool:
        registers = dict(v)

        def read(r: Ref) -> object:
            if r.var == "~":
                return self.rows[u].get(r.attr)
            if r.var not in registers:
                return EMPTY
            return self.rows[registers[r.var]].get(r.attr)

        return evaluate_condition(phi, read) is True

    def relate(self, e: Expr, i: int, j: int, v: Valuation) -> Pairs:
        """Every ``(M, v′)`` with ``(e, rows[i:j], M, v) ⊣ v′``."""
        key = (id(e), i, j, v)
        self.nodes[id(e)] = e  # keeps e alive while its id is a key
        if key not in self.memo:
            self.memo[key] = frozenset(self._relate(e, i, j, v))
        return self.memo[key]

    def _relate(self, e: Expr, i: int, j: int, v: Valuation) -> set[tuple[frozenset[int],
                                                                        Valuation]]:
        if isinstance(e, Atom):
            if j != i + 1 or not self.satisfies(e.phi, i, v):
                return set()
            after = v if e.register is None else frozenset(
                {(r, q) for r, q in v if r != e.register} | {(e.register, i)})
            return {(frozenset({i}) if e.mark else frozenset(), after)}
        if e.kind == "EPS":
            return {(frozenset(), v)} if i == j else set()
        if e.kind == "EMPTY":
            return set()
        if e.kind == "+":
            return set().union(*(self.relate(x, i, j, v) for x in e.parts))
        if e.kind == ";":
            return self._concat(e.parts, i, j, v)
        if e.kind == "*":
            out: set[tuple[frozenset[int], Valuation]] = {(frozenset(), v)} if i == j else set()
            for k in range(i + 1, j + 1):
                for m1, v1 in self.relate(e.parts[0], i, k, v):
                    out |= {(m1 | m2, v2) for m2, v2 in self.relate(e, k, j, v1)}
            return out
        if e.kind == "INTERSECT":
            return self._intersect(e.parts, i, j, v)
        if e.kind == "!":
            return set() if self.relate(e.parts[0], i, j, v) else {(frozenset(), v)}
        body = self.relate(e.parts[0], i, j, v)
        return {(m, w) for m, w in body if not m or self._window(e, m)}

    def _concat(self, parts: Sequence[Expr], i: int, j: int, v: Valuation
                ) -> set[tuple[frozenset[int], Valuation]]:
        if len(parts) == 1:
            return set(self.relate(parts[0], i, j, v))
        out: set[tuple[frozenset[int], Valuation]] = set()
        for k in range(i, j + 1):
            for m1, v1 in self.relate(parts[0], i, k, v):
                out |= {(m1 | m2, v2) for m2, v2 in self._concat(parts[1:], k, j, v1)}
        return out

    def _intersect(self, parts: Sequence[Expr], i: int, j: int, v: Valuation
                   ) -> set[tuple[frozenset[int], Valuation]]:
        """Thm 34: the same ``M`` from every part; each register as the part that writes
        it left it (no two parts write one, as the theorem assumes)."""
        out = {(m, v) for m, _ in self.relate(parts[0], i, j, v)}
        for part in parts:
            mine = written(part)
            if any(mine & written(other) for other in parts if other is not part):
                raise Uncovered("an intersection whose parts write one register")
            out = {(m, frozenset({(r, q) for r, q in w if r not in mine}
                                 | {(r, q) for r, q in w2 if r in mine}))
                   for m, w in out for m2, w2 in self.relate(part, i, j, v) if m2 == m}
        return out

    def _window(self, e: Node, m: frozenset[int]) -> bool:
        if e.kind == "count":
            return max(m) - min(m) + 1 <= e.width
        span = ts(self.rows, max(m)) - ts(self.rows, min(m))
        return bool(span <= e.width if self.reading == "inclusive" else span < e.width)


def stream_matches(e: Expr, rows: Sequence[Row], reading: str) -> set[frozenset[int]]:
    """Policy ``stream``: every non-empty ``M`` related to a slice ending at its last mark."""
    relation = Relation(rows, reading)
    out = set()
    for k in range(len(rows)):
        for j in range(k + 1):
            out |= {m for m, _ in relation.relate(e, j, k + 1, frozenset())
                    if m and max(m) == k}
    return out


def literal_matches(e: Expr, rows: Sequence[Row], reading: str) -> set[frozenset[int]]:
    """Policy ``literal``: ``Match(e, S)`` of Def. 18 on the whole stream (``M = ∅`` too)."""
    return {m for m, _ in Relation(rows, reading).relate(e, 0, len(rows), frozenset())}


POLICIES = {"stream": stream_matches, "literal": literal_matches}


def matches(text: str, rows: Sequence[Row], policy: str, reading: str = "inclusive",
            time_unit: str | None = None) -> set[frozenset[tuple[str, tuple[int, ...]]]]:
    """The matches of ``text`` on ``rows`` under ``policy``, each as ``{"~": M}`` (``{}``
    for the empty ``M`` of ``literal``).

    ``e PARTITION BY a, …`` (Kleene's extension, docs/semantics.md section 11):
    the union over the parts (the elements sharing their values of the
    attributes, by ``=``; an element missing one alone) of the matches of ``e``
    on the part's sub-stream, mapped back to the stream's positions."""
    if policy not in POLICIES:
        raise Uncovered(f"SREMO policy {policy!r}")
    e, attrs = parse(text, time_unit)
    parts: dict[object, list[int]] = {(): list(range(len(rows)))}  # one part, even if empty
    if attrs:
        parts = {}
        for q, row in enumerate(rows):
            parts.setdefault(part_of(row, attrs, q), []).append(q)
    out = set()
    for positions in parts.values():
        for m in POLICIES[policy](e, [rows[q] for q in positions], reading):
            out.add(frozenset({("~", tuple(sorted(positions[x] for x in m)))} if m else ()))
    return out
