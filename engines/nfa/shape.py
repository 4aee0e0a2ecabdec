"""The shape of a disjunction-free operator pattern: slots, order, negations, conditions.

Seed 003 builds every NFA of the paper from the same pieces: a set of event
*types* (one per positive variable), the order among them that ``SEQ``
imposes (Sec. 4.1) and ``AND`` does not (Sec. 4.2; a partial sequence,
Sec. 4.3, is a partial order), iterated types (Sec. 4.5, a slot that binds
``l`` to ``m`` events) and negated types with the places where they are
forbidden (Sec. 4.4). A :class:`Shape` is that common description; the eager
NFA (:mod:`.eager`) and the lazy chain (:mod:`.chain`) are two ways of
running it. :func:`kleene.engines.nfa.construct.shape_of` builds it; the construct
modules fill it in:

- :mod:`.sequence` and :mod:`.conjunction`: the slots and their strict
  ``ts`` order (``SEQ`` orders every event of part i before every event of
  part i+1; ``AND`` orders nothing, and its events are distinct);
- :mod:`.iteration`: ``B+ b[]`` and ``B{l,m} b[]`` slots;
- :mod:`.negation`: ``NOT(N n)`` and its interval;
- :mod:`.disjunction`: ``OR`` through the DNF of Sec. 5 (the multi-chain).

The fragment: primitives, ``SEQ``/``AND`` nested freely, a Kleene operator
over a primitive, ``NOT`` over a primitive. A Kleene operator over a
sub-pattern, or a ``NOT`` over one, raises
:class:`~kleene.reference.errors.Unsupported` (seed 003 Sec. 4.5 defines
iterations of single events only; the reference's iterations of
sub-patterns interleave nothing and are not a slot).
"""

from __future__ import annotations

from dataclasses import dataclass

from kleene.reference.operators.pattern import Neg, Primitive


@dataclass(frozen=True, slots=True)
class Slot:
    """One positive variable: its event type (``None``: any) and how many events it binds."""

    index: int
    var: str
    type: str | None
    low: int = 1
    high: int | None = 1

    @property
    def iterated(self) -> bool:
        """Whether the slot may bind more than one event (Sec. 4.5)."""
        return self.high != 1


@dataclass(frozen=True, slots=True)
class NegSpec:
    """``NOT(N n)``: forbidden strictly after every event of the ``lo`` slots and strictly
    before every event of the ``hi`` slots (empty: unbounded on that side, up to the window)."""

    var: str
    type: str | None
    lo: tuple[int, ...]
    hi: tuple[int, ...]


@dataclass(frozen=True)
class Shape:
    """Slots, the strict ``ts`` order among them, and the negations (see the module docstring)."""

    slots: tuple[Slot, ...]
    before: tuple[frozenset[int], ...]  # before[i]: slots whose events all precede slot i's
    after: tuple[frozenset[int], ...]   # after[i]: slots whose events all follow slot i's
    negations: tuple[NegSpec, ...]

    @property
    def types(self) -> frozenset[str | None]:
        return frozenset(s.type for s in self.slots)

    def slot_of(self, var: str) -> Slot:
        return next(s for s in self.slots if s.var == var)


@dataclass
class Builder:
    """A :class:`Shape` being filled in by the construct modules (:mod:`.construct`)."""

    slots: list[Slot]
    order: set[tuple[int, int]]
    negations: list[tuple[Neg, set[int], set[int]]]

    def primitive(self, p: Primitive, low: int = 1, high: int | None = 1) -> list[int]:
        i = len(self.slots)
        self.slots.append(Slot(i, p.var, p.type, low, high))
        return [i]
