"""Negation ``NOT(N n)`` (seed 003 Sec. 4.4).

A negated event forbids a match when it lies strictly between the places of
its ``NOT`` (:mod:`.sequence`, :mod:`.conjunction`), is not an event of the
match, fits in one window with the match, and every condition that mentions
``n`` holds on the match and it (the reference,
:mod:`kleene.reference.operators.negation`). Two ways to check it:

- *post-processing* (Sec. 4.4.1): once the match is complete, look in the
  buffer of ``N`` events; when the interval is open to the future (a trailing
  ``NOT``, or one under ``AND``), the match is held back until the window has
  passed;
- *first chance* (Sec. 4.4.2, ``nfa-chain-fc``): as soon as the partial match
  binds every slot that bounds the interval (on both sides) and every variable
  of the negation's conditions, with none of them still able to grow (an
  iterated slot), check it and drop the partial match if forbidden. Every
  event strictly between two bound events has arrived, and it lies inside the
  match's span, so the window cannot change the verdict later.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from kleene.engines.spans import Window
from kleene.reference.conditions import Condition, holds
from kleene.reference.errors import Unsupported
from kleene.reference.events import Event
from kleene.reference.operators.pattern import Neg, Primitive


def negated_part(q: Neg) -> Primitive:
    """The primitive under ``q``; a negated sub-pattern is outside the fragment."""
    if not isinstance(q.part, Primitive):
        raise Unsupported("the NFA engines negate single events only: seed 003 Sec. 4.4 "
                          "defines negated primitive event types (one negative state or "
                          "first-chance edge per type), not a negated sub-pattern; "
                          "use the reference")
    return q.part


def interval(binds: Sequence[tuple[Event, ...]], lo: Iterable[int],
             hi: Iterable[int]) -> tuple[float, float]:
    """The open ``ts`` interval of a negation on bound slots ``binds``."""
    low = max((e.ts for i in lo for e in binds[i]), default=-float("inf"))
    high = min((e.ts for i in hi for e in binds[i]), default=float("inf"))
    return low, high


def forbidden(candidates: Iterable[Event], gamma: Mapping[str, Sequence[Event]], var: str,
              conditions: Sequence[Condition], low: float, high: float, first: float,
              last: float, bound: Window | None, taken: frozenset[int],
              evaluations: list[int]) -> Event | None:
    """The first candidate ``N`` event that forbids the (partial) match ``gamma``, if any.

    ``first``/``last``: the match's ts span; ``bound``: the window
    (``None``: none); ``evaluations`` counts predicate evaluations.
    """
    for e in candidates:
        if not (low < e.ts < high) or e.position in taken:
            continue
        if bound is not None and not bound.fits(max(last, e.ts) - min(first, e.ts)):
            continue
        joint = {**gamma, var: (e,)}
        evaluations[0] += len(conditions) or 1
        if all(holds(c, joint) for c in conditions):
            return e
    return None
