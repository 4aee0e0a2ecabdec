"""``AND(p1, …, pn)`` (seed 003 Sec. 4.2) and partial sequences (Sec. 4.3).

The parts match on distinct events in any order: no order between the slots
of different parts (a partial sequence ``AND(SEQ(…), SEQ(…))`` keeps the
order inside each ``SEQ``, Pattern (3)). Distinctness holds for every match
anyway (every engine here refuses to bind one event twice). A ``NOT`` part of
an ``AND`` is pending with no bounds of its own: forbidden anywhere the window
allows around the match, unless an enclosing ``SEQ`` narrows it.
"""

from __future__ import annotations

from collections.abc import Callable

from kleene.engines.nfa.shape import Builder
from kleene.reference.operators.pattern import Conj, Neg, Node


def build(b: Builder, p: Conj, build_part: Callable[[Node], list[int]]) -> list[int]:
    """Add the slots of ``p``'s parts (unordered) and its negations (unbounded)."""
    out: list[int] = []
    for q in p.parts:
        if isinstance(q, Neg):
            b.negations.append((q, set(), set()))
        else:
            out += build_part(q)
    return out
