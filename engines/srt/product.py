"""Intersection of SRT: seed 004, report Thm 34 (the product construction).

The product of ε-free SRT ``T1 × T2`` reads each element with both at once:
``(p, q) --φ1 ∧ φ2 ↑ o ↓ W1 ∪ W2--> (p', q')`` for every pair of transitions
with the *same* output ``o`` (a match of ``e1 ∩ e2`` is one M produced by
both, position by position). Thm 34 assumes ``R1 ∩ R2 = ∅``; the reference's
well-formedness check only lets both parts *read* a register written before
the intersection, which the product reads unchanged. The finals are the pairs
of finals. Only the pairs reachable from the start pair are built, within the
state cap.
"""

from __future__ import annotations

from collections.abc import Sequence

from kleene.engines.srt.automaton import SRT, Edge, trim
from kleene.reference.conditions import TRUE, conjunction
from kleene.reference.errors import Unsupported


def _and(a: Edge, b: Edge, source: int, target: int) -> Edge:
    guards = [g for g in (a.guard, b.guard) if g != TRUE]
    guard = conjunction(guards) if guards else TRUE
    return Edge(source, target, guard, a.mark, a.writes + b.writes, a.unless + b.unless,
                a.clocks + b.clocks)


def intersect2(a: SRT, b: SRT, max_states: int) -> SRT:
    """``T1 × T2`` of Thm 34."""
    index = {(a.start, b.start): 0}
    todo = [(a.start, b.start)]
    edges: list[Edge] = []
    while todo:
        p, q = todo.pop()
        for x in a.out[p]:
            for y in b.out[q]:
                if x.mark != y.mark:
                    continue
                key = (x.target, y.target)
                if key not in index:
                    if len(index) >= max_states:
                        raise Unsupported(f"the product of an intersection needs more than "
                                          f"{max_states} states (the cap)")
                    index[key] = len(index)
                    todo.append(key)
                edges.append(_and(x, y, index[(p, q)], index[key]))
    finals = frozenset(i for (p, q), i in index.items() if p in a.finals and q in b.finals)
    return trim(SRT(len(index), 0, finals, tuple(edges)))


def intersect(parts: Sequence[SRT], max_states: int) -> SRT:
    """``e1 ∩ e2 ∩ ...``: the product, left to right."""
    out = parts[0]
    for b in parts[1:]:
        out = intersect2(out, b, max_states)
    return out
