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
over a primitive or over a sub-pattern, ``NOT`` over a primitive or over a
sub-pattern. A Kleene operator over a sub-pattern is one slot whose ``unit``
says what it iterates, and a negated sub-pattern a :class:`NegSpec` with its
``part`` (:mod:`.subpattern`: Sec. 4.5's artificial event type, extended).
"""

from __future__ import annotations

from dataclasses import dataclass

from kleene.engines.nfa.subpattern import Unit
from kleene.reference.operators.pattern import Neg, Node, Primitive, primitives
from kleene.reference.operators.pattern import variables as node_variables


@dataclass(frozen=True, slots=True)
class Slot:
    """One positive variable: its event type (``None``: any) and how many events it binds."""

    index: int
    var: str
    type: str | None
    low: int = 1
    high: int | None = 1
    #: a Kleene operator over a sub-pattern: the slot binds a chain of its pieces
    #: (:mod:`.subpattern`); ``var`` is then the sub-pattern's text, bound by no match
    unit: Unit | None = None

    @property
    def iterated(self) -> bool:
        """Whether the slot may bind more than one event, one by one (Sec. 4.5)."""
        return self.high != 1

    @property
    def deferred(self) -> bool:
        """Whether σ puts the slot last (Sec. 4.5: an iteration's subsets, or a unit's
        chains, are the most frequent "events" whatever the types' rates)."""
        return self.iterated or self.unit is not None


@dataclass(frozen=True, slots=True)
class NegSpec:
    """``NOT(N n)``: forbidden strictly after every event of the ``lo`` slots and strictly
    before every event of the ``hi`` slots (empty: unbounded on that side, up to the window)."""

    var: str
    type: str | None
    lo: tuple[int, ...]
    hi: tuple[int, ...]
    #: a negated sub-pattern (``var`` its text, ``type`` ``None``), else ``None``
    part: Node | None = None

    @property
    def types(self) -> frozenset[str | None]:
        """The types of the events the negation reads (``None``: any)."""
        if self.part is None:
            return frozenset({self.type})
        return frozenset(x.type for x in primitives(self.part))

    @property
    def variables(self) -> frozenset[str]:
        return frozenset({self.var}) if self.part is None else node_variables(self.part)


@dataclass(frozen=True)
class Shape:
    """Slots, the strict ``ts`` order among them, and the negations (see the module docstring)."""

    slots: tuple[Slot, ...]
    before: tuple[frozenset[int], ...]  # before[i]: slots whose events all precede slot i's
    after: tuple[frozenset[int], ...]   # after[i]: slots whose events all follow slot i's
    negations: tuple[NegSpec, ...]

    @property
    def types(self) -> frozenset[str | None]:
        """The types the slots read (a unit's: its body's, beside its own name)."""
        out = {s.type for s in self.slots}
        for s in self.slots:
            if s.unit is not None:
                out |= s.unit.types
        return frozenset(out)

    @property
    def buffered(self) -> tuple[str | None, ...]:
        """The types the lazy NFA buffers: :attr:`types` but a unit's own name, in the
        order of the slots (a unit's body types by name), so that a trace lists the
        buffers the same way under every hash seed."""
        units = {s.type for s in self.slots if s.unit is not None}
        out: list[str | None] = []
        for s in self.slots:
            body = [s.type] if s.unit is None else sorted(
                s.unit.types, key=lambda t: (t is None, t or ""))
            out += [t for t in body if t not in units and t not in out]
        return tuple(out)

    @property
    def units(self) -> bool:
        """Whether a slot iterates a sub-pattern or a negation negates one."""
        return (any(s.unit is not None for s in self.slots)
                or any(n.part is not None for n in self.negations))

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

    def unit(self, name: str, unit: Unit) -> list[int]:
        """A slot for a Kleene operator over a sub-pattern (``name``: its text)."""
        i = len(self.slots)
        self.slots.append(Slot(i, name, name, unit=unit))
        return [i]
