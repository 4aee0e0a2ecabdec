"""Iterated and negated sub-patterns in the lazy NFAs (seed 003 Secs. 4.4, 4.5, 4.5.3).

Sec. 4.5 turns ``B+ b[]`` into a sequence over an artificial event type, the
subsets of the buffered B events, and says the construction "can be easily
extended ... to an arbitrary number of events under iteration". Here that
extension is made for a Kleene operator over a sub-pattern, ``SEQ(A a, B b)+``:
its artificial "events" are *pieces*, the matches of the body over the
buffered events (:func:`pieces`), and its iterate edge produces every chain of
pieces, each entirely after the previous one in stream order, ``l`` to ``m`` of
them (:func:`chains`; the reference's iterations,
:mod:`kleene.reference.operators.derivations`). Such a chain is one slot of the
outer chain (its :class:`Unit`), placed last in σ as Sec. 4.5 places an
iterated type ("the most frequent regardless of the original frequency"), and
it *arrives* with its last event: an instance waiting for the unit takes, on
entering the state, the chains among the buffered events and, on each later
event ``e``, the chains whose last event is ``e`` (so each is made once).

Sec. 4.4 negates primitive types; a negated sub-pattern ``NOT(SEQ(B b, C c))``
is checked the way Sec. 4.4.1 post-processes a negated type: once the match is
complete, the negation buffer is searched, here for a piece of the negated
sub-pattern inside the negation's interval that fits the window with the match
and satisfies the negation's conditions (:func:`forbidding_piece`; the
reference, :mod:`kleene.reference.operators.negation`). First chance
(Sec. 4.4.2) applies to primitive types only.

The group-by-attribute optimisation (Sec. 4.5.3) for a unit: when equalities
``u.x = v.x`` of Θ connect every variable of the body (all bound in every
iteration: no ``OR`` in it), the relationships, checked for every pair across
iterations, make every event of the unit share one value of ``x``; pieces
mixing values, or missing ``x``, are dropped and chains join pieces of one
value only (:func:`group_attribute`). It is exact: ``=`` is the condition
language's (:func:`~kleene.reference.policies.partition_key`), and a missing
value makes ``=`` unknown, so no match holds one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from kleene.reference.conditions import Attr, Cmp, Condition, holds
from kleene.reference.events import Event
from kleene.reference.operators.pattern import (
    Conj,
    Disj,
    Kleene,
    Node,
    Primitive,
    Seq,
    positive_variables,
    primitives,
    walk,
)
from kleene.reference.policies import partition_key


@dataclass(frozen=True, slots=True)
class Unit:
    """A Kleene operator over a sub-pattern: its ``body``, ``low``..``high`` iterations,
    and the types of the body's primitives (``None``: any)."""

    body: Node
    low: int
    high: int | None

    @property
    def types(self) -> frozenset[str | None]:
        return frozenset(x.type for x in primitives(self.body))

    @property
    def variables(self) -> frozenset[str]:
        return positive_variables(self.body)

    @property
    def loose(self) -> bool:
        """Whether the body has an ``OR``: a chain may leave some variables unbound."""
        return any(isinstance(q, Disj) for q in walk(self.body))


@dataclass(frozen=True, slots=True)
class Piece:
    """A match of a sub-pattern over some events: ``events`` in stream order, and each
    variable's events (``binds``, in stream order)."""

    events: tuple[Event, ...]
    binds: tuple[tuple[str, tuple[Event, ...]], ...]

    @property
    def first(self) -> Event:
        return self.events[0]

    @property
    def last(self) -> Event:
        return self.events[-1]

    @property
    def key(self) -> tuple[tuple[str, tuple[int, ...]], ...]:
        """What the piece binds, as positions: two ways to lay a sub-pattern over the same
        events (``AND(A+ a[], B+ b[])+``: one iteration or two) bind the same."""
        return tuple((var, tuple(e.position for e in es)) for var, es in self.binds)


#: Called once per piece or chain made (the engine's budget: :meth:`.partial.Plan.check_budget`).
Spend = Callable[[int], None]


def _joined(a: Piece, b: Piece) -> Piece:
    events = tuple(sorted((*a.events, *b.events), key=lambda e: e.position))
    binds: dict[str, tuple[Event, ...]] = dict(a.binds)
    for var, es in b.binds:
        binds[var] = tuple(sorted((*binds.get(var, ()), *es), key=lambda e: e.position))
    return Piece(events, tuple(sorted(binds.items())))


#: Per variable, the conditions of Θ over it alone without ``prev`` or aggregates: an
#: event that fails one is in no match (a property holds for every bound event).
Unary = Mapping[str, Sequence[Condition]]


def pieces(p: Node, pool: Sequence[Event], spend: Spend, unary: Unary | None = None
           ) -> list[Piece]:
    """Every match of ``p`` (no ``NOT`` inside) whose events are in ``pool`` (stream order):
    ``SEQ`` strictly in ``ts``, ``AND`` on distinct events, ``OR`` one part, a Kleene
    operator a chain of its body's pieces in stream order (Secs. 4.1, 4.2, 4.5, 5.1);
    a primitive's events pass its variable's ``unary`` conditions."""
    if isinstance(p, Primitive):
        own = () if unary is None else unary.get(p.var, ())
        return [Piece((e,), ((p.var, (e,)),)) for e in pool
                if p.accepts(e) and all(holds(c, {p.var: (e,)}) for c in own)]
    if isinstance(p, Disj):
        return _distinct(x for q in p.parts for x in pieces(q, pool, spend, unary))
    if isinstance(p, Kleene):
        body = pieces(p.part, pool, spend, unary)
        return list(chains(body, p.low, p.high, spend))
    if isinstance(p, (Seq, Conj)):
        out: list[Piece] = []
        parts = [pieces(q, pool, spend, unary) for q in p.parts]

        def grow(k: int, have: Piece | None) -> None:
            if k == len(parts):
                assert have is not None
                out.append(have)
                spend(len(out))
                return
            for x in parts[k]:
                if have is not None:
                    if isinstance(p, Seq):
                        if x.first.ts <= have.last.ts:
                            continue
                    elif not {e.position for e in have.events}.isdisjoint(
                            e.position for e in x.events):
                        continue
                grow(k + 1, x if have is None else _joined(have, x))

        grow(0, None)
        return _distinct(out)
    raise TypeError(f"a NOT has no pieces of its own: {p!r}")


def _distinct(found: Iterable[Piece]) -> list[Piece]:
    """``found`` without a piece binding what an earlier one binds."""
    return list({x.key: x for x in found}.values())


def chains(body: Sequence[Piece], low: int, high: int | None, spend: Spend,
           ending: Event | None = None) -> Iterator[Piece]:
    """Every chain of ``low`` to ``high`` pieces of ``body``, each after the previous one
    in stream order (positions), as one piece; only those whose last event is
    ``ending`` when given. Each chain is made once, by its last piece, then backwards,
    and each binding once (two chains may bind the same: :attr:`Piece.key`)."""
    ordered = sorted(body, key=lambda x: x.last.position)
    made = 0
    seen: set[tuple[tuple[str, tuple[int, ...]], ...]] = set()

    def back(chain: Piece, start: int, n: int) -> Iterator[Piece]:
        nonlocal made
        if n >= low and chain.key not in seen:
            seen.add(chain.key)
            made += 1
            spend(made)
            yield chain
        if high is not None and n >= high:
            return
        for x in ordered:
            if x.last.position < start:
                yield from back(_joined(x, chain), x.first.position, n + 1)

    for x in ordered:
        if ending is None or x.last.position == ending.position:
            yield from back(x, x.first.position, 1)


def grouped(found: Sequence[Piece], attr: str | None) -> list[list[Piece]]:
    """``found`` hashed by their common value of ``attr`` (Sec. 4.5.3), a piece whose
    events do not share one dropped; one group of all when ``attr`` is ``None``."""
    if attr is None:
        return [list(found)]
    groups: dict[object, list[Piece]] = {}
    for x in found:
        key = partition_key(x.first, (attr,))
        if key is not None and all(partition_key(e, (attr,)) == key for e in x.events[1:]):
            groups.setdefault(key, []).append(x)
    return list(groups.values())


def group_attribute(unit: Unit, conditions: Sequence[Condition]) -> str | None:
    """The attribute ``x`` whose equalities ``u.x = v.x`` among ``conditions`` (Θ's
    conjuncts) connect every variable of ``unit``'s body, if any (see the module
    docstring); ``None`` for a body with ``OR`` or fewer than two variables."""
    names = unit.variables
    if len(names) < 2 or unit.loose:
        return None
    edges: dict[str, list[tuple[str, str]]] = {}
    for c in conditions:
        if (isinstance(c, Cmp) and c.op == "=" and isinstance(c.left, Attr)
                and isinstance(c.right, Attr) and c.left.attr == c.right.attr
                and {c.left.var, c.right.var} <= names):
            edges.setdefault(c.left.attr, []).append((c.left.var, c.right.var))
    for attr, pairs in sorted(edges.items()):
        reached = {min(names)}
        grew = True
        while grew:
            grew = False
            for u, v in pairs:
                if (u in reached) != (v in reached):
                    reached |= {u, v}
                    grew = True
        if reached == names:
            return attr
    return None
