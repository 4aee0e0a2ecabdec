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
(``WHERE skip_till_any_match {…}``). Which ASTs mean something is decided by
:func:`check`, called on construction (below, "Well-formed patterns").

Conventions: ``p`` a pattern node, ``P`` an :class:`OperatorPattern`.

Well-formed patterns (:func:`check`, raising :class:`MalformedPattern`). Seed 003
gives no grammar of its own (it defers to SASE+, its ref. [21]); these rules make
every accepted pattern have exactly one reading under :mod:`.matching`, and say
clearly why the others are rejected:

1. names: variables and event types are not keywords; ``SEQ``, ``AND``, ``OR``
   have at least one part;
2. declarations: the parts of a ``SEQ`` or ``AND`` declare disjoint variables
   (the parts of an ``OR`` may share them: Pattern (8) has ``c`` in both
   branches); a variable is positive or negated, never both, and a negated one
   is declared by one ``NOT`` only;
3. negation (Sec. 4.4, docs/architecture.md, "Negation"): a ``NOT`` is a direct part of a
   ``SEQ`` or an ``AND`` that also has a positive part, and contains no
   ``NOT``. A ``NOT`` at the top, under ``OR`` (the branch would bind
   nothing; seed 003 Sec. 5.2's DNF writes such patterns as an ``OR`` of
   sequences, which is accepted: ``docs/errata.md#seed-003-negation-or``),
   under a Kleene operator (its iterations would have no places of their
   own) or under ``NOT`` is negation the language cannot express;
4. a ``NOT`` not enclosed by positive events on both sides (leading, trailing,
   or under an ``AND``) needs ``WITHIN``: only the window bounds where the
   forbidden event may be;
5. repetition ``{l,m}`` has ``1 ≤ l ≤ m`` (Sec. 4.5.2);
6. conditions: every variable is declared; the variables of one condition can
   be bound together by one match (not from two branches of an ``OR``), with
   the variables of at most one ``NOT``; aggregates apply to iterated
   variables only (Sec. 4.5.1: "an aggregation function can only be applied on
   events under an iteration operator").
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass

from kleene.reference.conditions import Agg, Condition, subterms
from kleene.reference.conditions import variables as condition_variables
from kleene.reference.durations import Duration
from kleene.reference.errors import PatternError
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


# ---------------------------------------------------------------- well-formed patterns


class MalformedPattern(PatternError):
    """A pattern that is not well formed; ``node`` or ``var`` says where (for positions)."""

    def __init__(self, message: str, *, node: Node | None = None, var: str | None = None) -> None:
        super().__init__(message)
        self.node = node
        self.var = var


def check(pattern: OperatorPattern) -> None:
    """Raise :class:`MalformedPattern` unless ``pattern`` satisfies rules 1–6."""
    if pattern.strategy is not None and pattern.strategy not in STRATEGIES:
        raise MalformedPattern(f"unknown selection strategy {pattern.strategy!r}; use one of "
                               f"{', '.join(STRATEGIES)}")
    if isinstance(pattern.expr, Neg):
        raise MalformedPattern("a pattern cannot be a negation alone: NOT needs a SEQ or AND "
                               "with a positive part around it", node=pattern.expr)
    _check_node(pattern.expr)
    _check_declarations(pattern.expr)
    if pattern.window is None:
        _check_bounded_negations(pattern.expr, lower=False, upper=False)
    for c in pattern.conditions:
        check_condition(pattern.expr, c)


def _check_node(p: Node) -> None:
    """Rules 1, 3 and 5 at ``p`` and below."""
    if isinstance(p, Primitive):
        if p.var.upper() in KEYWORDS or p.var == "~":
            raise MalformedPattern(f"{p.var!r} is a keyword and cannot name a variable", node=p)
        if p.type is not None and p.type.upper() in KEYWORDS:
            raise MalformedPattern(f"{p.type!r} is a keyword and cannot name an event type",
                                   node=p)
        return
    if isinstance(p, (Seq, Conj, Disj)) and not p.parts:
        raise MalformedPattern("an operator needs at least one part", node=p)
    if isinstance(p, Disj) and any(isinstance(q, Neg) for q in p.parts):
        raise MalformedPattern("NOT cannot be a branch of OR: that branch would bind no "
                               "event; put the OR around whole sequences instead, as in "
                               "OR(SEQ(A a, NOT(B b), D d), SEQ(A a, NOT(C c), D d))", node=p)
    if isinstance(p, (Seq, Conj)) and all(isinstance(q, Neg) for q in p.parts):
        raise MalformedPattern("a SEQ or AND needs a positive part besides its NOTs", node=p)
    if isinstance(p, Kleene):
        if p.low < 1 or (p.high is not None and p.high < p.low):
            raise MalformedPattern(f"repetition {{{p.low},{p.high}}} needs 1 <= l <= m "
                                   "(seed 003 Sec. 4.5.2)", node=p)
        if isinstance(p.part, Neg) or any(True for _ in negations(p.part)):
            raise MalformedPattern("NOT under a Kleene operator cannot be expressed: an "
                                   "iteration has no places of its own for the negated event",
                                   node=p)
    if isinstance(p, Neg):
        if any(True for _ in negations(p.part)):
            raise MalformedPattern("NOT inside NOT cannot be expressed", node=p)
    for q in parts(p):
        _check_node(q)


def _check_declarations(p: Node) -> None:
    """Rule 2."""
    for q in walk(p):
        if isinstance(q, (Seq, Conj)):
            seen: set[str] = set()
            for part in q.parts:
                clash = seen & variables(part)
                if clash:
                    name = sorted(clash)[0]
                    raise MalformedPattern(f"variable {name!r} is declared twice in one "
                                           "SEQ or AND", var=name,
                                           node=_declaring(part, name))
                seen |= variables(part)
    positive = positive_variables(p)
    owners: dict[str, Neg] = {}
    for n in negations(p):
        for x in primitives(n.part):
            if x.var in positive:
                raise MalformedPattern(f"variable {x.var!r} is both positive and negated",
                                       node=x)
            if owners.setdefault(x.var, n) is not n:
                raise MalformedPattern(f"negated variable {x.var!r} is declared by two NOTs",
                                       node=x)


def _declaring(p: Node, name: str) -> Node:
    return next(x for x in primitives(p) if x.var == name)


def _check_bounded_negations(p: Node, *, lower: bool, upper: bool) -> None:
    """Rule 4: without a window, every ``NOT`` lies between positive events of a ``SEQ``."""
    if isinstance(p, Neg):
        if not (lower and upper):
            raise MalformedPattern("a NOT that is leading, trailing or under AND forbids events "
                                   "up to the window: add WITHIN", node=p)
        return
    for i, q in enumerate(parts(p)):
        before = after = False
        if isinstance(p, Seq):
            before = any(not isinstance(x, Neg) for x in p.parts[:i])
            after = any(not isinstance(x, Neg) for x in p.parts[i + 1:])
        _check_bounded_negations(q, lower=lower or before, upper=upper or after)


def check_condition(expr: Node, c: Condition) -> None:
    """Rule 6 for one condition ``c`` of a pattern whose expression is ``expr``."""
    names = condition_variables(c)
    declared = variables(expr)
    for name in sorted(names):
        if name not in declared:
            raise MalformedPattern(f"condition refers to undeclared variable {name!r}",
                                   var=name)
    owners = {n for n in negations(expr) if names & variables(n.part)}
    if len(owners) > 1:
        name = sorted(names - positive_variables(expr))[-1]
        raise MalformedPattern("a condition cannot relate the variables of two NOTs: each "
                               "negation is checked on its own", var=name)
    if not any(names <= scope for scope in scopes(expr)):
        name = sorted(names)[-1]
        raise MalformedPattern(f"condition relates variables {', '.join(sorted(names))} that "
                               "no match binds together (different branches of an OR)",
                               var=name)
    iterated = iterated_variables(expr)
    for t in subterms(c):
        if isinstance(t, Agg) and t.var not in iterated:
            raise MalformedPattern(f"{t.func}({t.var}…) aggregates a variable that is not under "
                                   "an iteration (seed 003 Sec. 4.5.1)", var=t.var)
