"""Operator patterns: the AST of seed 003 Sec. 2.1 (SASE+), Secs. 4.1–4.5 and 5.1.

A pattern is ``PATTERN expr WHERE Θ WITHIN τ`` (seed 003 Sec. 2.1, Pattern (1)).
``expr`` is built from

- :class:`Primitive` ``A a``: one event of type ``A`` bound to variable ``a``
  (``ANY a``, type ``None``, accepts every event; the SES translation uses it);
- :class:`Seq` ``SEQ(p1, …, pn)`` (Sec. 4.1): the parts in strict ``ts`` order;
- :class:`Conj` ``AND(p1, …, pn)`` (Sec. 4.2): the parts in any order; a
  *partial sequence* (Sec. 4.3) is an ``AND`` of ``SEQ``s, Pattern (3);
- :class:`Disj` ``OR(p1, …, pn)`` (Sec. 5.1): one of the parts;
- :class:`Neg` ``NOT(p)`` or ``~p`` (Sec. 4.4): no match of ``p`` at the places
  the enclosing operator allows;
- :class:`Kleene` ``p+`` (Sec. 4.5, iteration) and ``p{l,m}`` (Sec. 4.5.2,
  repetition), on any sub-pattern; ``B+ b[]`` is ``Kleene(Primitive('B', 'b'))``.

Θ is a tuple of conditions of the shared language
(:mod:`kleene.reference.conditions`), the top-level ``AND``-separated parts of
``WHERE`` as for SES patterns; aggregates (Sec. 4.5.1) are its ``Agg`` terms.
``τ`` is an optional :class:`~kleene.reference.durations.Duration`.
``strategy`` keeps the selection strategy a SASE+ text may name
(``WHERE skip_till_any_match {…}``). Which ASTs mean something is decided in
:mod:`kleene.reference.operators.wellformed`, called on construction.

Conventions: ``p`` a pattern node, ``P`` an :class:`OperatorPattern`.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass

from kleene.reference.conditions import Condition
from kleene.reference.durations import Duration
from kleene.reference.events import Event
from kleene.reference.pattern import Pattern


@dataclass(frozen=True, slots=True)
class Primitive:
    """``A a``: one event whose ``type`` is ``A`` (any type when ``type`` is ``None``)."""

    type: str | None
    var: str

    def accepts(self, e: Event) -> bool:
        """Whether ``e`` has this primitive's event type."""
        return self.type is None or e.type == self.type


@dataclass(frozen=True, slots=True)
class Seq:
    """``SEQ(p1, …, pn)``: each event of ``p_i`` strictly before (``ts``) each of ``p_i+1``."""

    parts: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Conj:
    """``AND(p1, …, pn)``: a match of every part, on distinct events, in any order."""

    parts: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Disj:
    """``OR(p1, …, pn)``: a match of one part; the variables of the others stay unbound."""

    parts: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Neg:
    """``NOT(p)``: no match of ``p`` where the enclosing ``SEQ``/``AND`` would put it."""

    part: Node


@dataclass(frozen=True, slots=True)
class Kleene:
    """``p{low,high}``: ``low`` to ``high`` (``None``: unbounded) iterations of ``p``."""

    part: Node
    low: int = 1
    high: int | None = None


Node = Primitive | Seq | Conj | Disj | Neg | Kleene

#: SASE+ selection strategies (seed 003 Sec. 1 and 2.1) and the policy each names.
STRATEGIES = {
    "skip_till_any_match": "any",
    "skip_till_next_match": "next",
    "strict_contiguity": "contiguous",
    "partition_contiguity": "partition-contiguous",
}

#: Words that name neither a variable nor an event type (``ANY`` is the wildcard type).
KEYWORDS = frozenset({"PATTERN", "WHERE", "WITHIN", "SEQ", "AND", "OR", "NOT", "ANY",
                      "TRUE", "FALSE", "PREV", "SUM", "AVG", "MIN", "MAX", "COUNT"})


@dataclass(frozen=True)
class OperatorPattern(Pattern):
    """``PATTERN expr WHERE conditions WITHIN window``; validated on construction."""

    expr: Node
    conditions: tuple[Condition, ...] = ()
    window: Duration | None = None
    strategy: str | None = None

    def __post_init__(self) -> None:
        from kleene.reference.operators.wellformed import check

        check(self)

    @property
    def names(self) -> tuple[str, ...]:
        """The positive variables in the order the pattern first declares them."""
        return tuple(dict.fromkeys(x.var for x in primitives(self.expr, negated=False)))

    @property
    def policy(self) -> str | None:
        """The policy that ``strategy`` names, if any."""
        return None if self.strategy is None else STRATEGIES[self.strategy]

# ---------------------------------------------------------------- structure


def parts(p: Node) -> tuple[Node, ...]:
    """The direct sub-patterns of ``p``."""
    if isinstance(p, Primitive):
        return ()
    if isinstance(p, (Neg, Kleene)):
        return (p.part,)
    return p.parts


def walk(p: Node) -> Iterator[Node]:
    """``p`` and every sub-pattern, pre-order."""
    yield p
    for q in parts(p):
        yield from walk(q)


def primitives(p: Node, *, negated: bool | None = None) -> Iterator[Primitive]:
    """The primitives of ``p``: all, only positive ones (``negated=False``) or only negated ones."""
    if isinstance(p, Primitive):
        if negated is not True:
            yield p
        return
    if isinstance(p, Neg):
        if negated is not False:
            yield from primitives(p.part, negated=None)
        return
    for q in parts(p):
        yield from primitives(q, negated=negated)


def variables(p: Node) -> frozenset[str]:
    """Every variable ``p`` declares, positive or negated."""
    return frozenset(x.var for x in primitives(p))


def positive_variables(p: Node) -> frozenset[str]:
    """The variables a match of ``p`` can bind (none under a ``NOT``)."""
    return frozenset(x.var for x in primitives(p, negated=False))


def negated_variables(p: Node) -> frozenset[str]:
    """The variables declared under a ``NOT``; never part of a match."""
    return frozenset(x.var for x in primitives(p, negated=True))


def iterated_variables(p: Node, under: bool = False) -> frozenset[str]:
    """The variables under a Kleene operator: they bind sequences (seed 003 Sec. 4.5)."""
    if isinstance(p, Primitive):
        return frozenset({p.var}) if under else frozenset()
    inside = under or isinstance(p, Kleene)
    return frozenset().union(*(iterated_variables(q, inside) for q in parts(p)))


def negations(p: Node) -> Iterator[Neg]:
    """Every ``NOT`` of ``p``."""
    return (q for q in walk(p) if isinstance(q, Neg))


def scopes(p: Node) -> frozenset[frozenset[str]]:
    """The sets of variables that one match of ``p`` can bind together.

    Negated parts count as if positive, so that a condition relating a negated
    variable to positive ones can be checked for sense too. ``OR`` chooses a
    part; a Kleene operator unites the scopes of up to ``high`` iterations.
    """
    if isinstance(p, Primitive):
        return frozenset({frozenset({p.var})})
    if isinstance(p, Neg):
        return scopes(p.part)
    if isinstance(p, Disj):
        return frozenset().union(*(scopes(q) for q in p.parts))
    if isinstance(p, Kleene):
        one = scopes(p.part)
        reached, frontier, n = set(one), set(one), 1
        while frontier and (p.high is None or n < p.high):
            frontier = {a | b for a in frontier for b in one} - reached
            reached |= frontier
            n += 1
        return frozenset(reached)
    combined = {frozenset[str]()}
    for q in p.parts:
        combined = {a | b for a, b in itertools.product(combined, scopes(q))}
    return frozenset(combined)
