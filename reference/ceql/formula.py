"""CEL formulas as CEQL writes them, and their translation into SREMO (seed 004).

CEL (TODS 2021, Sec. 3) gives a formula a set of complex events over a stream S: an
interval ``[i, j]`` and the positions the formula's atoms read. Over the fragment here
(event types, unary filters, ``AS``, ``;``, ``:``, ``+``, ``:+``, ``OR``) every atom reads
one position, a formula's first and last positions are the interval's ends, and:

- ``T``: ``{([i, i], {i}) | S[i] has type T}``;
- ``φ1 ; φ2``: ``C1 ∪ C2`` for ``C1 ∈ ⟦φ1⟧``, ``C2 ∈ ⟦φ2⟧`` with ``end(C1) < start(C2)``
  (any events may lie between: skip-till-any-match);
- ``φ1 : φ2`` (CORE's contiguous sequencing): the same with ``start(C2) = end(C1) + 1``;
- ``φ+`` is ``φ ∪ φ ; φ+`` and ``φ:+`` is ``φ ∪ φ : φ:+`` (every choice of iterations:
  under ``ALL`` a group of n candidates gives 2^n − 1 complex events);
- ``φ OR ψ``: the union;
- ``φ AS x`` names every position of ``φ`` also ``x`` (an atom ``T`` names its own
  position ``T``), and ``φ FILTER x[P]`` keeps the complex events whose every position
  named ``x`` satisfies the unary predicate ``P`` (CEL's unary filters).

Because the predicates are unary, a filter is pushed into the atoms that bind ``x``
within the filtered formula (CEL Sec. 6, "unary filters"): ``FILTER x[P] AND y[Q]`` pushes
both, ``FILTER x[P] OR y[Q]`` is the union of the formula with ``P`` pushed and with
``Q`` pushed. A complex event is then a set of positions with its own first and last
position, which is what a SREMO match is: :func:`to_sremo` writes an atom as a marked
condition ``mark {~.type = 'T' AND P}``, ``;`` as a gap of unmarked elements
``{TRUE}*`` between its operands (seed 004, Def. 44, skip-till-any-match), ``:`` as
concatenation, ``φ+`` as ``φ ; ({TRUE}* ; φ)*``, ``φ:+`` as ``φ ; φ*`` and ``OR`` as
choice. Kleene's SREMO streaming semantics (docs/architecture.md, "SREMO streaming")
reports each such set once, at its last position: CEL's ``ALL`` output. A complex
event's variables are not kept: two complex events with the same positions but other
names are one match (CORE prints positions, not names).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from kleene.reference.conditions import (
    TRUE,
    Attr,
    Cmp,
    Condition,
    Const,
    Not,
    conjunction,
    conjuncts,
)
from kleene.reference.errors import PatternError
from kleene.reference.sremo.expressions import SKIP, Atom, Choice, Concat, Expr, Star
from kleene.reference.syntax import Token


@dataclass(frozen=True, slots=True)
class Leaf:
    """An event-type atom ``T``: the names its position has (``T`` and the ``AS`` names
    around it) and the unary predicates filtered onto it. ``negated``: CORE's
    ``NOT(T FILTER T[P])``, one event on which ``T`` with ``P`` does not hold, read and
    not output (no names)."""

    type: str
    names: frozenset[str]
    condition: Condition = TRUE
    negated: bool = False


@dataclass(frozen=True, slots=True)
class Seq:
    """``left ; right`` (``contiguous``: ``left : right``)."""

    left: Formula
    right: Formula
    contiguous: bool


@dataclass(frozen=True, slots=True)
class Iteration:
    """``body+`` (``contiguous``: ``body:+``)."""

    body: Formula
    contiguous: bool


@dataclass(frozen=True, slots=True)
class Union:
    """``left OR right``."""

    left: Formula
    right: Formula


Formula = Leaf | Seq | Iteration | Union


@dataclass(frozen=True, slots=True)
class Unary:
    """``x[P]``: the predicate ``P`` on every position named ``x``; ``where`` is ``x``'s
    token (an error about it points there)."""

    name: str
    predicate: Condition
    where: Token


@dataclass(frozen=True, slots=True)
class Both:
    """``f AND g`` of filters."""

    left: Filter
    right: Filter


@dataclass(frozen=True, slots=True)
class Either:
    """``f OR g`` of filters."""

    left: Filter
    right: Filter


Filter = Unary | Both | Either


class Unbound(PatternError):
    """A filter names a variable that no atom of its formula has; ``where`` is its token."""

    def __init__(self, message: str, where: Token) -> None:
        super().__init__(message)
        self.where = where


def both(c: Condition, d: Condition) -> Condition:
    """``c AND d`` as one flat conjunction (``TRUE`` parts left out)."""
    return conjunction([part for x in (c, d) if x != TRUE for part in conjuncts(x)])


def names(phi: Formula) -> frozenset[str]:
    """Every name a position of ``phi`` may have (event types and ``AS`` names)."""
    if isinstance(phi, Leaf):
        return phi.names
    if isinstance(phi, Iteration):
        return names(phi.body)
    return names(phi.left) | names(phi.right)


def named(phi: Formula, name: str) -> Formula:
    """``phi AS name``: every position of ``phi`` is also called ``name`` (a ``NOT(...)``
    event is not output: it has no name)."""
    if isinstance(phi, Leaf):
        return phi if phi.negated else replace(phi, names=phi.names | {name})
    if isinstance(phi, Iteration):
        return replace(phi, body=named(phi.body, name))
    return replace(phi, left=named(phi.left, name), right=named(phi.right, name))


def _pushed(phi: Formula, name: str, predicate: Condition) -> Formula:
    if isinstance(phi, Leaf):
        if name not in phi.names:
            return phi
        return replace(phi, condition=both(phi.condition, predicate))
    if isinstance(phi, Iteration):
        return replace(phi, body=_pushed(phi.body, name, predicate))
    return replace(phi, left=_pushed(phi.left, name, predicate),
                   right=_pushed(phi.right, name, predicate))


def filtered(phi: Formula, f: Filter) -> Formula:
    """``phi FILTER f`` with its unary predicates pushed into the atoms (module docstring);
    :class:`Unbound` when ``f`` names a variable no atom of ``phi`` has."""
    if isinstance(f, Unary):
        if f.name not in names(phi):
            raise Unbound(f"FILTER names {f.name}, which its formula does not bind "
                          f"(it binds {', '.join(sorted(names(phi)))})", f.where)
        return _pushed(phi, f.name, f.predicate)
    if isinstance(f, Both):
        return filtered(filtered(phi, f.left), f.right)
    return Union(filtered(phi, f.left), filtered(phi, f.right))


def negated_at(phi: Formula, end: int) -> bool:
    """Whether a complex event of ``phi`` may begin (``end`` 0) or finish (``end`` −1)
    with the event of a ``NOT(...)``."""
    if isinstance(phi, Leaf):
        return phi.negated
    if isinstance(phi, Iteration):
        return negated_at(phi.body, end)
    if isinstance(phi, Union):
        return negated_at(phi.left, end) or negated_at(phi.right, end)
    return negated_at(phi.left if end == 0 else phi.right, end)


def to_sremo(phi: Formula) -> Expr:
    """The SREMO expression whose streaming matches are ``phi``'s complex events under
    ``ALL`` (module docstring)."""
    if isinstance(phi, Leaf):
        holds = both(Cmp("=", Attr("~", "type"), Const(phi.type)), phi.condition)
        return Atom(Not(holds), marked=False) if phi.negated else Atom(holds, marked=True)
    if isinstance(phi, Seq):
        left, right = to_sremo(phi.left), to_sremo(phi.right)
        return Concat((left, right) if phi.contiguous else (left, Star(SKIP), right))
    if isinstance(phi, Iteration):
        body = to_sremo(phi.body)
        again = body if phi.contiguous else Concat((Star(SKIP), body))
        return Concat((body, Star(again)))
    return Choice((to_sremo(phi.left), to_sremo(phi.right)))
