"""Iterations ``B+ b[]`` and repetitions ``B{l,m} b[]`` (seed 003 Sec. 4.5, 4.5.2).

An iterated primitive is one slot that binds ``l`` to ``m`` distinct events
(every non-empty subset under skip-till-any-match: Sec. 4.5's iterate edge
"returns all subsets"). Iterations are ordered by position, ties allowed
(``docs/errata.md#seed-003-iteration-order``), so the events of one slot are
any set of events of its type. Aggregates (Sec. 4.5.1) and ``prev`` read the
whole slot and are checked once the match is complete (:mod:`.conditions`).

An iteration of a sub-pattern (``SEQ(A a, B b)+``) is outside the fragment.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from kleene.reference.errors import Unsupported
from kleene.reference.events import Event
from kleene.reference.operators.pattern import Kleene, Primitive

if TYPE_CHECKING:
    from kleene.engines.nfa.shape import _Builder


def slot(b: _Builder, p: Kleene) -> list[int]:
    """The slot of ``p`` (a Kleene operator over a primitive)."""
    if not isinstance(p.part, Primitive):
        raise Unsupported("the NFA engines iterate single events only: seed 003 Sec. 4.5 "
                          "defines the lazy NFA of B+ b[] (the subsets of B events as an "
                          "artificial event type), not of an iterated sub-pattern; "
                          "use the reference")
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
