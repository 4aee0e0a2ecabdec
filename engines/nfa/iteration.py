"""Iterations ``B+ b[]`` and repetitions ``B{l,m} b[]`` (seed 003 Sec. 4.5, 4.5.2).

An iterated primitive is one slot that binds ``l`` to ``m`` distinct events
(every non-empty subset under skip-till-any-match: Sec. 4.5's iterate edge
"returns all subsets"). Iterations are ordered by position, ties allowed
(``docs/errata.md#seed-003-iteration-order``), so the events of one slot are
any set of events of its type. Aggregates (Sec. 4.5.1) and ``prev`` read the
whole slot and are checked once the match is complete (:mod:`.conditions`).

The group-by-attribute optimisation (Sec. 4.5.3): when Θ requires the events
of an iterated variable to share an attribute, ``prev(b.x) = b.x`` (the
paper's ``b[i].x = b[i-1].x``), a subset mixing two values of ``x`` can never
be a match, so the iterate edge hashes the slot's buffered events by ``x``
(:func:`grouped_subsets`) and builds subsets within one value only, and an
open slot refuses a later event of another value. It is exact: ``=`` is the
condition language's (:func:`~kleene.reference.policies.partition_key`), and
an event that misses ``x`` forms a one-event subset only (``prev`` holds
vacuously on one event). :func:`group_attributes` finds the attribute.

An iteration of a sub-pattern (``SEQ(A a, B b)+``) is one slot too, a *unit*
whose events are the chains of its body's matches (:mod:`.subpattern`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from kleene.engines.nfa.shape import Builder
from kleene.engines.nfa.subpattern import Unit
from kleene.reference.conditions import Attr, Cmp, Condition, Prev
from kleene.reference.events import Event
from kleene.reference.operators.pattern import Kleene, Primitive
from kleene.reference.operators.text import format_expr
from kleene.reference.policies import partition_key


def slot(b: Builder, p: Kleene) -> list[int]:
    """The slot of ``p``: an iterated primitive, or a unit (a Kleene operator over a
    sub-pattern, :mod:`.subpattern`; its text names it)."""
    if not isinstance(p.part, Primitive):
        return b.unit(format_expr(p), Unit(p.part, p.low, p.high))
    return b.primitive(p.part, p.low, p.high)


def subsets(events: Sequence[Event], most: int | None) -> Iterator[tuple[Event, ...]]:
    """Every non-empty subset of ``events`` with at most ``most`` elements, in stream order."""
    n = len(events)
    limit = n if most is None else min(most, n)

    def grow(start: int, chosen: tuple[Event, ...]) -> Iterator[tuple[Event, ...]]:
        for i in range(start, n):
            now = (*chosen, events[i])
            yield now
            if len(now) < limit:
                yield from grow(i + 1, now)

    if limit > 0:
        yield from grow(0, ())


def group_attribute(var: str, conditions: Sequence[Condition]) -> str | None:
    """The attribute ``x`` of a condition ``prev(var.x) = var.x`` (either side) among
    ``conditions`` (the conjuncts of Θ), if any: Sec. 4.5.3's group-by-attribute."""
    for c in conditions:
        if isinstance(c, Cmp) and c.op == "=":
            for a, b in ((c.left, c.right), (c.right, c.left)):
                if (isinstance(a, Prev) and isinstance(b, Attr) and a.var == b.var == var
                        and a.attr == b.attr):
                    return a.attr
    return None


def same_group(attr: str, have: Sequence[Event], new: Sequence[Event]) -> bool:
    """Whether ``have + new`` (``have`` non-empty) may all share ``attr`` (see above)."""
    key = partition_key(have[0], (attr,))
    return key is not None and all(partition_key(e, (attr,)) == key for e in new)


def grouped_subsets(events: Sequence[Event], most: int | None,
                    attr: str | None) -> Iterator[tuple[Event, ...]]:
    """:func:`subsets` of ``events``, within one value of ``attr`` when given: the
    buffer hashed by ``attr`` (Sec. 4.5.3), an event missing it alone."""
    if attr is None:
        yield from subsets(events, most)
        return
    groups: dict[object, list[Event]] = {}
    for e in events:
        key = partition_key(e, (attr,))
        if key is None:
            yield (e,)
        else:
            groups.setdefault(key, []).append(e)
    for group in groups.values():
        yield from subsets(group, most)
