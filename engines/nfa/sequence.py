"""``SEQ(p1, …, pn)`` (seed 003 Sec. 4.1): every event of part i strictly before (``ts``)
every event of part i+1.

The reference (:mod:`kleene.reference.operators.derivations`) orders the
positive parts of a ``SEQ`` strictly in ``ts``; as a relation on slots this is
``x < y`` for every slot ``x`` of an earlier positive part and ``y`` of a
later one. A ``NOT`` part is pending between the last event of the nearest
positive part before it and the first of the nearest positive part after it;
the negations pending inside a positive part are narrowed the same way by
its neighbours (the enclosing ``SEQ`` narrows the interval).
"""

from __future__ import annotations

from collections.abc import Callable

from kleene.engines.nfa.shape import Builder
from kleene.reference.operators.pattern import Neg, Node, Seq


def build(b: Builder, p: Seq, build_part: Callable[[Node], list[int]]) -> list[int]:
    """Add the slots of ``p``'s parts, their order, and the negations' places."""
    groups: list[list[int]] = []
    own_negations: list[tuple[int, Neg]] = []  # (number of positive parts before it, NOT)
    inner: list[tuple[int, int, int]] = []      # (part index, first, end) of b.negations
    for q in p.parts:
        if isinstance(q, Neg):
            own_negations.append((len(groups), q))
            continue
        start = len(b.negations)
        groups.append(build_part(q))
        inner.append((len(groups) - 1, start, len(b.negations)))
    for i, xs in enumerate(groups):
        for ys in groups[i + 1:]:
            b.order.update((x, y) for x in xs for y in ys)
    # negations pending inside a positive part: narrowed by its neighbours
    for k, start, end in inner:
        for j in range(start, end):
            neg, lo, hi = b.negations[j]
            if k > 0:
                lo.update(groups[k - 1])
            if k + 1 < len(groups):
                hi.update(groups[k + 1])
    for k, neg in own_negations:
        lo = set(groups[k - 1]) if k > 0 else set()
        hi = set(groups[k]) if k < len(groups) else set()
        b.negations.append((neg, lo, hi))
    return [x for xs in groups for x in xs]
