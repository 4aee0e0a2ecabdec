"""Where each condition of Θ is checked (seed 003 Sec. 2.2: the predicates on the edges).

- *incremental* conditions (no ``prev``, no aggregate: a failure persists as
  events are added, :func:`~kleene.reference.operators.derivations.monotone`)
  are checked on the edge that binds the last of their variables, and again
  on every edge that adds an event to one of their iterated variables, on the
  new instantiations only (the new event against all the others);
- *final* conditions (``prev``, aggregates, Sec. 4.5.1; conditions without
  variables) are checked once the match is complete;
- *negation* conditions (those that mention a negated variable) belong to
  their ``NOT`` (:mod:`.negation`).

A variable of an iterated sub-pattern is placed on its unit's slot (:mod:`.subpattern`).

Only the conditions whose variables a branch declares apply to it (an ``OR``
branch not taken binds nothing, :mod:`.disjunction`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kleene.engines.nfa.shape import Shape
from kleene.reference.conditions import Condition, variables
from kleene.reference.operators.derivations import monotone


@dataclass(frozen=True)
class Placed:
    """The conditions of one branch, placed on the slots of its :class:`Shape`."""

    #: per slot: (condition, slots of its variables) checked when that slot takes events
    incremental: tuple[tuple[tuple[Condition, tuple[int, ...]], ...], ...]
    #: checked on the complete match
    final: tuple[Condition, ...]
    #: per negation of the shape: its conditions
    negation: tuple[tuple[Condition, ...], ...]

    def guard(self, slot: int) -> tuple[Condition, ...]:
        """The conditions on the edges that bind ``slot`` (for drawings and proofs)."""
        return tuple(c for c, _ in self.incremental[slot])


def slot_index(shape: Shape) -> dict[str, int]:
    """Each positive variable's slot: its own, or the unit that binds it (:mod:`.subpattern`)."""
    out = {s.var: s.index for s in shape.slots if s.unit is None}
    for s in shape.slots:
        if s.unit is not None:
            out.update(dict.fromkeys(s.unit.variables, s.index))
    return out


def place(shape: Shape, conditions: Sequence[Condition]) -> Placed:
    """Place ``conditions`` (those of the branch only) on ``shape``."""
    index = slot_index(shape)
    negated = {v: k for k, n in enumerate(shape.negations) for v in n.variables}
    incremental: list[list[tuple[Condition, tuple[int, ...]]]] = [[] for _ in shape.slots]
    final: list[Condition] = []
    negation: list[list[Condition]] = [[] for _ in shape.negations]
    for c in conditions:
        names = variables(c)
        owner = [negated[v] for v in names if v in negated]
        if owner:
            negation[owner[0]].append(c)
        elif names and monotone(c):
            slots = tuple(sorted(index[v] for v in names))
            for i in slots:
                incremental[i].append((c, slots))
        else:
            final.append(c)
    return Placed(tuple(tuple(x) for x in incremental), tuple(final),
                  tuple(tuple(x) for x in negation))
