"""What lets the streaming run of an SRT (seed 004, report Alg. 1) pass an element
without evaluating every guard: exact tests derived from the SRT at compile time.

An element that satisfies none of the guards' *head-only* conjuncts (those that read
no register) can fire only ``TRUE`` transitions; when those are unmarked and write
nothing, such an element moves the runs along them (clocks tested) and changes nothing
else (:meth:`kleene.engines.srt.execution.Execution.skip`).
"""

from __future__ import annotations

from kleene.engines.srt.automaton import SRT, Edge
from kleene.reference.conditions import TRUE, Attr, Cmp, Condition, Const, conjunction, conjuncts
from kleene.reference.sremo.expressions import HEAD, reads

#: A ``TRUE`` transition's clock tests ``(register slot, bound, inside)``.
ClockTests = tuple[tuple[int, int | float, bool], ...]
#: A state's ``TRUE`` transition: ``(clock tests, target)``.
Move = tuple[ClockTests, int]


def skipping(a: SRT, slots: dict[str, int]) -> tuple[list[Condition] | None, list[list[Move]]]:
    """What lets a run skip an element cheaply (exact): ``relevant``, conditions over the
    head only, one of which holds for every element that can fire a transition whose guard
    is not ``TRUE`` (each guard's conjuncts that read no register); and per state its
    ``TRUE`` transitions as ``(clock tests, target)``, a clock test being
    ``(register slot, bound, inside)``. ``relevant`` is ``None`` (never skip) unless every
    ``TRUE`` transition is unmarked and writes nothing."""
    moves: list[list[Move]] = [[] for _ in range(a.size)]
    needs: list[Condition] = []
    for e in a.edges:
        if e.guard == TRUE and not e.unless:
            if e.mark or e.writes:
                return None, moves
            clocks = tuple((slots[c.register], c.bound, c.inside) for c in e.clocks)
            moves[e.source].append((clocks, e.target))
            continue
        head = head_condition(e)
        if head is None:
            return None, moves
        needs.append(head)
    return list(dict.fromkeys(needs)), moves


def head_condition(e: Edge) -> Condition | None:
    """The conjuncts of ``e``'s guard that read no register (``None`` if there are none):
    an element that does not satisfy them cannot fire ``e``."""
    head = [c for c in conjuncts(e.guard) if not reads(c)]
    if not head:
        return None
    return conjunction(head) if len(head) > 1 else head[0]


def key_index(a: SRT) -> tuple[tuple[str, ...], frozenset[tuple[object, ...]]] | None:
    """``(attributes, keys)`` when every transition whose guard is not ``TRUE`` requires
    ``~.A = c`` (a conjunct) for each of ``attributes``, so that an element whose values of
    ``attributes`` are not in ``keys`` can only fire ``TRUE`` transitions; else ``None``."""
    per_edge: list[dict[str, object]] = []
    for e in a.edges:
        if e.guard == TRUE and not e.unless:
            continue
        eqs: dict[str, object] = {}
        for c in conjuncts(e.guard):
            if isinstance(c, Cmp) and c.op == "=" and isinstance(c.left, Attr) and \
                    c.left.var == HEAD and isinstance(c.right, Const) and \
                    not isinstance(c.right.value, bool) and c.left.attr != "ts":
                eqs[c.left.attr] = c.right.value
        per_edge.append(eqs)
    if not per_edge:
        return None
    common = set.intersection(*(set(eqs) for eqs in per_edge))
    if not common:
        return None
    attrs = tuple(sorted(common))
    return attrs, frozenset(tuple(eqs[x] for x in attrs) for eqs in per_edge)
