"""Valuations and the semantics of conditions: seed 004, report Defs. 12 and 13
(paper Def. 3.3).

A valuation ``v`` is a partial function from registers to elements of the
string; we store, for each non-empty register, the 0-based position of the
element it holds (so valuations are small, hashable and comparable), as a
sorted tuple of ``(register, position)`` pairs. :data:`EMPTY` is ♯, the
valuation in which every register is empty.

``(u, v) ⊨ phi`` (Def. 13) evaluates ``phi`` with the head ``~`` bound to
the element ``u`` and each register ``r`` to the element ``v(r)``:

- Def. 13 case 2 requires ``v(x)`` to be defined for every argument of an
  atomic formula, so a comparison that reads an empty register is *false*
  (and its negation true), as in Wayeb's register predicates;
- otherwise the shared three-valued reading of the condition language
  applies (:mod:`kleene.reference.conditions`): a missing attribute or values
  of different kinds make a comparison unknown, and a condition is satisfied
  only when it is true.
"""

from __future__ import annotations

from collections.abc import Sequence

from kleene.reference.conditions import Condition, Truth, holds, map_comparisons
from kleene.reference.events import Event
from kleene.reference.sremo.expressions import HEAD, reads

#: A valuation: sorted ``(register, position)`` pairs for the non-empty registers.
Valuation = tuple[tuple[str, int], ...]

#: ♯: all registers empty.
EMPTY: Valuation = ()


def lookup(v: Valuation, register: str) -> int | None:
    """``v(r)`` as a position, or ``None`` for ♯ (empty)."""
    for name, position in v:
        if name == register:
            return position
    return None


def update(v: Valuation, register: str, position: int) -> Valuation:
    """``v[r ← u]`` of Def. 12, ``u`` given by its position."""
    return tuple(sorted({**dict(v), register: position}.items()))


def restrict(phi: Condition, defined: frozenset[str]) -> Condition:
    """``phi`` with every comparison that reads a register outside ``defined`` replaced
    by FALSE (Def. 13 case 2: an atomic formula over an empty register is not satisfied)."""
    return map_comparisons(phi, lambda cmp: cmp if reads(cmp) <= defined else Truth(False))


def satisfies(phi: Condition, u: Event, v: Valuation, s: Sequence[Event]) -> bool:
    """``(u, v) ⊨ phi`` of Def. 13; ``s`` holds the elements the registers point to."""
    needed = reads(phi)
    gamma: dict[str, tuple[Event, ...]] = {HEAD: (u,)}
    defined = set()
    for register in needed:
        position = lookup(v, register)
        if position is not None:
            gamma[register] = (s[position],)
            defined.add(register)
    if len(defined) < len(needed):
        phi = restrict(phi, frozenset(defined))
    return holds(phi, gamma)
