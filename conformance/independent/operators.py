"""Operator patterns (seed 003, SASE+), evaluated from the definition (docs/semantics.md, sec. 12).

Independent of :mod:`kleene.reference` (issue 28, item 3): its own parser
and a bottom-up computation of every *derivation* (the sets of bindings
``(variable, position)`` a node lays over the stream), transcribed case by
case from the definition, written to be checked, not to be fast:

- ``A a`` binds one event of type ``A`` (``ANY a``: of any type);
- ``SEQ(p1, …, pn)``: a derivation of each positive part, every event of part
  i strictly before (``ts``) every event of part i+1 (Sec. 4.1);
- ``AND(p1, …, pn)``: a derivation of each positive part, on distinct events,
  in any order (Sec. 4.2);
- ``OR(p1, …, pn)``: a derivation of one part (Sec. 5.1);
- ``p{l,m}`` (``+``: ``{1,}``): ``l`` to ``m`` derivations of ``p``, each after
  the previous one in stream order (positions), their bindings united
  (Sec. 4.5; ``docs/errata.md#seed-003-iteration-order``).

A match (Sec. 2.1, skip-till-any-match) is a derivation of the whole
expression such that every condition of Θ whose variables it all binds holds
on every instance (a property per event, a relationship per combination,
``prev`` per consecutive pair), its events fit the window (``max ts − min ts
≤ τ``, ``< τ`` strictly), and no ``NOT`` forbids it: ``NOT(p)`` forbids a match
γ iff a derivation β of ``p`` on events outside γ lies strictly inside the
open ``ts`` interval between its positive neighbours in the enclosing
``SEQ``\\ s (no bound of its own under ``AND``), γ ∪ β fits the window, and
every condition that reads a variable of ``p`` and only variables γ ∪ β
binds holds on γ ∪ β (seed 003 Pattern 4).

Pruning, each step sound because nothing later removes an event: a node's
derivations whose events do not fit the window are dropped; so are, at a node
under no Kleene operator (where each variable's events are final), those on
which a condition over variables they all bind fails.

Policies: ``any``; ``contiguous`` and ``partition-contiguous`` as for SES,
the partition per match from the equalities among the variables it binds
(seed 001 Def. 6); ``next`` only for the patterns written from SES
(a ``SEQ`` of ``AND``\\ s of ``ANY v`` and ``ANY+ v[]``, or of such variables
alone), where it is the SES definition
(:func:`kleene.conformance.independent.ses.is_next`).

Not covered (:class:`Uncovered`): a ``NOT`` under a Kleene operator (its
interval is per iteration, which a match does not record), ``{0,m}``,
strategies in ``WHERE``, aggregates, ``next`` on any other shape.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from dataclasses import dataclass

from kleene.conformance.independent import ses
from kleene.conformance.independent.text import (
    Cond,
    Row,
    Tokens,
    Uncovered,
    conditions,
    holds,
    partition_by,
    prev_variables,
    ts,
    variables,
    window,
)

#: A derivation: its bindings ``(variable, position)``.
Bindings = frozenset[tuple[str, int]]
POLICIES = ("any", "next", "contiguous", "partition-contiguous")


@dataclass(frozen=True)
class Prim:
    """``A a`` (``type`` ``None``: ``ANY``)."""

    type: str | None
    var: str


@dataclass(frozen=True)
class Op:
    """``SEQ``, ``AND``, ``OR`` (``kind``) or ``NOT`` (one part)."""

    kind: str
    parts: tuple[Node, ...]


@dataclass(frozen=True)
class Iter:
    """``part{low,high}`` (``high`` ``None``: no bound)."""

    part: Node
    low: int
    high: int | None


Node = Prim | Op | Iter


def _repeat(t: Tokens) -> tuple[int, int | None] | None:
    if t.at("+"):
        t.take()
        return (1, None)
    if not t.at("{"):
        return None
    t.take("{")
    low = int(t.number())
    high: int | None = low
    if t.at(","):
        t.take()
        high = None if t.at("}") else int(t.number())
    t.take("}")
    if low < 1:
        raise Uncovered("a repetition {0,m}")
    return (low, high)


def _expr(t: Tokens) -> Node:
    node = _primary(t)
    while (r := _repeat(t)) is not None:
        node = Iter(node, *r)
    return node


def _primary(t: Tokens) -> Node:
    if t.at("SEQ", "AND", "OR", "NOT"):
        kind = t.take().text.upper()
        t.take("(")
        parts = [_expr(t)]
        while t.at(","):
            t.take()
            parts.append(_expr(t))
        t.take(")")
        return Op(kind, tuple(parts))
    if t.at("("):
        t.take()
        node = _expr(t)
        t.take(")")
        return node
    kind = t.name()
    r = _repeat(t)
    var = t.name()
    if r is not None:
        t.take("[")
        t.take("]")
    leaf = Prim(None if kind.upper() == "ANY" else kind, var)
    return leaf if r is None else Iter(leaf, *r)


@dataclass(frozen=True)
class Pattern:
    """``PATTERN expr [PARTITION BY A, …] [WHERE Θ] [WITHIN τ]``."""

    expr: Node
    theta: tuple[Cond, ...]
    tau: int | float | None


def parse(text: str, time_unit: str | None = None) -> Pattern:
    """The operator pattern of ``text``."""
    t = Tokens(text, time_unit)
    t.take("PATTERN")
    expr = _expr(t)
    theta = partition_by(t, declared(expr))
    if t.at("WHERE"):
        t.take()
        theta += conditions(t)
    tau = None
    if t.at("WITHIN"):
        t.take()
        tau = window(t)
    if not t.done():
        raise Uncovered(f"operator pattern: {t.peek().text!r} (only expr, WHERE, WITHIN τ)")
    return Pattern(expr, tuple(theta), tau)


def declared(node: Node) -> list[str]:
    """The variables of ``node`` in the order the text declares them (negated ones too)."""
    if isinstance(node, Prim):
        return [node.var]
    if isinstance(node, Iter):
        return declared(node.part)
    return [v for p in node.parts for v in declared(p)]


def names(node: Node) -> set[str]:
    """The variables of ``node``."""
    if isinstance(node, Prim):
        return {node.var}
    if isinstance(node, Iter):
        return names(node.part)
    return set().union(*(names(p) for p in node.parts))


def negated(node: Node) -> set[str]:
    """The variables under a ``NOT``."""
    if isinstance(node, Prim):
        return set()
    if isinstance(node, Iter):
        return negated(node.part)
    if node.kind == "NOT":
        return names(node)
    return set().union(*(negated(p) for p in node.parts))


@dataclass
class Evaluation:
    """A pattern over the stream ``rows`` with the window's reading."""

    p: Pattern
    rows: Sequence[Row]
    reading: str

    def ts(self, q: int) -> float:
        return ts(self.rows, q)

    def fits(self, b: Bindings) -> bool:
        times = [self.ts(q) for _, q in b]
        return not times or ses.fits(max(times) - min(times), self.p.tau, self.reading)

    def binding(self, b: Bindings) -> dict[str, list[Row]]:
        out: dict[str, list[Row]] = {}
        for v, q in sorted(b, key=lambda x: x[1]):
            out.setdefault(v, []).append(self.rows[q])
        return out

    def conditions_hold(self, b: Bindings, theta: Sequence[Cond]) -> bool:
        """Every condition of ``theta`` whose variables ``b`` all binds holds."""
        bound = {v for v, _ in b}
        events = self.binding(b)
        return all(holds(c, events) for c in theta if variables(c) <= bound)

    def positive(self) -> list[Cond]:
        neg = negated(self.p.expr)
        return [c for c in self.p.theta if not variables(c) & neg]

    def takes(self, leaf: Prim, q: int) -> bool:
        """Whether ``leaf`` can bind event ``q``: its type, and every condition over its
        variable alone without ``prev`` (it must hold on each event the variable binds,
        so an event failing it is in no match, and in no negated derivation)."""
        alone = [c for c in self.p.theta if variables(c) == {leaf.var} and not prev_variables(c)]
        return (leaf.type is None or self.rows[q].get("type") == leaf.type) \
            and self.conditions_hold(frozenset({(leaf.var, q)}), alone)

    def derivations(self, node: Node, pool: Sequence[int], final: bool) -> set[Bindings]:
        """Every derivation of ``node`` on the events ``pool`` (``final``: under no Kleene
        operator, so the conditions prune)."""
        if isinstance(node, Prim):
            found = {frozenset({(node.var, q)}) for q in pool if self.takes(node, q)}
        elif isinstance(node, Iter):
            found = self._iterations(node, pool)
        elif node.kind == "OR":
            found = set().union(*(self.derivations(q, pool, final) for q in node.parts))
        elif node.kind in ("SEQ", "AND"):
            found = {frozenset()}
            for part in node.parts:
                if isinstance(part, Op) and part.kind == "NOT":
                    continue
                choices = self.derivations(part, pool, final)
                found = {a | b for a in found for b in choices
                         if self._joins(node.kind, a, b) and self._keep(a | b, final)}
        else:
            raise Uncovered("a NOT outside SEQ and AND")
        return {b for b in found if self._keep(b, final)}

    def _keep(self, b: Bindings, final: bool) -> bool:
        return self.fits(b) and (not final or self.conditions_hold(b, self.positive()))

    def _joins(self, kind: str, a: Bindings, b: Bindings) -> bool:
        if not a:
            return True
        if kind == "AND":
            return not {q for _, q in a} & {q for _, q in b}
        return max(self.ts(q) for _, q in a) < min(self.ts(q) for _, q in b)

    def _iterations(self, node: Iter, pool: Sequence[int]) -> set[Bindings]:
        if negated(node.part):
            raise Uncovered("a NOT under a Kleene operator")
        body = self.derivations(node.part, pool, final=False)
        chains, out, n = set(body), set(), 1
        while chains:
            if n >= node.low:
                out |= chains
            if node.high is not None and n >= node.high:
                break
            chains = {c | d for c in chains for d in body
                      if max(q for _, q in c) < min(q for _, q in d) and self.fits(c | d)}
            n += 1
        return out

    def forbidden(self, node: Node, m: Bindings, lo: float | None, hi: float | None) -> bool:
        """Whether a ``NOT`` in ``node`` (whose derivation in ``m`` lies in the interval
        ``(lo, hi)`` of the enclosing ``SEQ``\\ s) forbids ``m``."""
        mine = {(v, q) for v, q in m if v in names(node)}
        if isinstance(node, Prim) or not mine:
            return False  # an OR branch not taken: nothing of it applies
        if isinstance(node, Iter):
            return False  # no NOT inside (refused by _iterations)
        if node.kind == "OR":
            return any(self.forbidden(q, m, lo, hi) for q in node.parts)
        if node.kind == "AND":
            return any(self._negation(q, m, lo, hi) if _is_not(q) else
                       self.forbidden(q, m, lo, hi) for q in node.parts)
        for i, part in enumerate(node.parts):  # SEQ: the positive neighbours bound each part
            before = [self.ts(q) for x in node.parts[:i] if not _is_not(x)
                      for v, q in m if v in names(x)]
            after = [self.ts(q) for x in node.parts[i + 1:] if not _is_not(x)
                     for v, q in m if v in names(x)]
            left = max([*before, *([] if lo is None else [lo])], default=None)
            right = min([*after, *([] if hi is None else [hi])], default=None)
            if (self._negation(part, m, left, right) if _is_not(part)
                    else self.forbidden(part, m, left, right)):
                return True
        return False

    def _negation(self, neg: Node, m: Bindings, lo: float | None, hi: float | None) -> bool:
        assert isinstance(neg, Op)
        taken = {q for _, q in m}
        pool = [q for q in range(len(self.rows)) if q not in taken
                and (lo is None or lo < self.ts(q)) and (hi is None or self.ts(q) < hi)]
        inner = names(neg)
        relevant = [c for c in self.p.theta if variables(c) & inner]
        return any(self.fits(m | beta) and self.conditions_hold(m | beta, relevant)
                   for beta in self.derivations(neg.parts[0], pool, final=False))


def _is_not(node: Node) -> bool:
    return isinstance(node, Op) and node.kind == "NOT"


def as_match(b: Bindings) -> ses.Match:
    """A derivation as a match: each variable with its positions in stream order."""
    out: dict[str, list[int]] = {}
    for v, q in sorted(b, key=lambda x: x[1]):
        out.setdefault(v, []).append(q)
    return frozenset((v, tuple(ps)) for v, ps in out.items())


def all_matches(ev: Evaluation) -> set[ses.Match]:
    """Γ: every derivation that the conditions, the window and the negations allow."""
    for c in ev.p.theta:
        if not variables(c) <= names(ev.p.expr):
            raise Uncovered(f"a condition names an unknown variable: {sorted(variables(c))}")
    found = ev.derivations(ev.p.expr, range(len(ev.rows)), final=True)
    return {as_match(b) for b in found
            if ev.conditions_hold(b, ev.positive()) and ev.fits(b)
            and not ev.forbidden(ev.p.expr, b, None, None)}


@functools.lru_cache(maxsize=16)
def _gamma_of(text: str, events: str, reading: str, time_unit: str | None
              ) -> frozenset[ses.Match]:
    """Γ of the pattern ``text`` on the events (as JSON), kept for the case's other tests."""
    return frozenset(all_matches(Evaluation(parse(text, time_unit), json.loads(events),
                                            reading)))


def as_ses(p: Pattern) -> ses.SES:
    """The SES pattern of an operator pattern written from one (``from_ses``'s shape): a
    ``SEQ`` of sets, each an ``AND`` of variables or one variable, a variable ``ANY v``
    or ``ANY+ v[]``; for ``next``, any other shape is not covered."""
    parts = p.expr.parts if isinstance(p.expr, Op) and p.expr.kind == "SEQ" else (p.expr,)
    sets = []
    for part in parts:
        leaves = part.parts if isinstance(part, Op) and part.kind == "AND" else (part,)
        block = []
        for leaf in leaves:
            if isinstance(leaf, Prim) and leaf.type is None:
                block.append((leaf.var, False))
            elif isinstance(leaf, Iter) and isinstance(leaf.part, Prim) \
                    and leaf.part.type is None and (leaf.low, leaf.high) == (1, None):
                block.append((leaf.part.var, True))
            else:
                raise Uncovered("next on an operator pattern not written from SES")
        sets.append(tuple(block))
    return ses.SES(tuple(sets), p.theta, p.tau)


def matches(text: str, rows: Sequence[Row], policy: str, reading: str = "inclusive",
            time_unit: str | None = None) -> set[ses.Match]:
    """The matches of the operator pattern ``text`` on ``rows`` under ``policy``."""
    p = parse(text, time_unit)
    if policy not in POLICIES:
        raise Uncovered(f"operator policy {policy!r}")
    shape = as_ses(p) if policy == "next" else None
    found = set(_gamma_of(text, json.dumps(list(rows)), reading, time_unit))
    if shape is not None:
        return {m for m in found if ses.is_next(shape, m, rows, reading)}
    if policy == "contiguous":
        return {m for m in found if ses.is_contiguous(m, rows)}
    if policy == "partition-contiguous":
        positive = Evaluation(p, rows, reading).positive()
        return {m for m in found if ses.is_contiguous(
            m, rows, ses.partitioning_attributes(
                [v for v, _ in sorted(m)],
                [c for c in positive if variables(c) <= {v for v, _ in m}]))}
    return found

