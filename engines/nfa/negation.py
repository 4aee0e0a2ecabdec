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

A negated sub-pattern ``NOT(SEQ(B b, C c))`` (outside Sec. 4.4, which negates
types) is post-processed: a match of the sub-pattern in the buffers of its
types forbids as a negated event does (:func:`forbidding_piece`, :mod:`.subpattern`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from kleene.engines.nfa.shape import NegSpec
from kleene.engines.nfa.subpattern import Spend, Unary, pieces
from kleene.engines.spans import Window
from kleene.reference.conditions import Condition, holds, variables
from kleene.reference.events import Event
from kleene.reference.operators.pattern import Neg, Node, Primitive
from kleene.reference.operators.text import format_expr


def spec(q: Neg, lo: set[int], hi: set[int]) -> NegSpec:
    """The :class:`NegSpec` of ``q`` between the slots ``lo`` and ``hi``: a negated type,
    or a negated sub-pattern (its text names it; :mod:`.subpattern`)."""
    low, high = tuple(sorted(lo)), tuple(sorted(hi))
    if isinstance(q.part, Primitive):
        return NegSpec(q.part.var, q.part.type, low, high)
    return NegSpec(format_expr(q.part), None, low, high, q.part)


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


def forbidding_piece(part: Node, candidates: Iterable[Event],
                     gamma: Mapping[str, Sequence[Event]], conditions: Sequence[Condition],
                     low: float, high: float, first: float, last: float,
                     bound: Window | None, taken: frozenset[int], evaluations: list[int],
                     spend: Spend, unary: Unary | None = None) -> Event | None:
    """The first event of a match of the negated sub-pattern ``part`` that forbids the
    (partial) match ``gamma``, if any: its events strictly inside ``(low, high)``, not
    in the match, each fitting in one window with the match and all of them together,
    and the negation's ``conditions`` whose variables are then bound holding
    (:mod:`kleene.reference.operators.negation`; ``candidates`` in stream order)."""
    pool = [e for e in candidates
            if low < e.ts < high and e.position not in taken
            and (bound is None or bound.fits(max(last, e.ts) - min(first, e.ts)))]
    for piece in pieces(part, pool, spend, unary):
        lo, hi = piece.first.ts, piece.last.ts
        if bound is not None and not bound.fits(max(last, hi) - min(first, lo)):
            continue
        joint = {**gamma, **dict(piece.binds)}
        evaluations[0] += len(conditions) or 1
        if all(holds(c, joint) for c in conditions if variables(c) <= joint.keys()):
            return piece.first
    return None
