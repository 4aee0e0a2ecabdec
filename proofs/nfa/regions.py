"""The classes of timestamps an operator pattern tells apart, enumerated directly (no Z3):
the timestamp atoms of :mod:`.classes` over events of the pattern's types.

The timestamp atoms are, per pair ``i < j`` of events of the pattern's types,
``ts_i < ts_j`` and, with a window τ, ``ts_j − ts_i ≤ τ`` and ``< τ``
(timestamps are non-decreasing). :func:`stamp_classes` builds one timestamp
vector per satisfiable assignment of them, *prefix-closed*: the classes of
``n`` events extend those of their first ``n − 1``.

Why this covers every stream. The atoms of ``n`` events are those of the first
``n − 1`` and those relating the last event, at ``t``, to each earlier typed
event ``i``; the latter say only where ``t`` lies among the points ``t_i`` and
``t_i + τ`` (``t_i < t``; ``t ≤ t_i + τ``; ``t < t_i + τ``), with ``t`` at least
the previous timestamp. The order of these points is fixed by the prefix's
atoms (``t_i`` against ``t_j`` by the order atoms, ``t_i + τ`` against ``t_j``
by the gap atoms, ``t_i + τ`` against ``t_j + τ`` as ``t_i`` against ``t_j``),
so the prefix's representative has the same points in the same order. One
candidate per cell of the line they cut — each point, a point strictly between
two consecutive ones, one beyond the last — therefore gives every assignment an
``n``-th event can add; by induction on ``n`` every class is reached. The
timestamps are rationals (halves of integers when τ is an integer), so a cell
is never empty; a class that integer timestamps cannot realize is only one more
stream to check. An event of another type has no timestamp atom: it takes the
previous timestamp. Duplicates (two cells with the same atoms) are dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache

#: A vector of timestamps.
Stamps = tuple[Fraction, ...]


def _signature(stamps: Stamps, typed: Sequence[bool], t: Fraction,
               tau: Fraction | None) -> tuple[tuple[bool, ...], ...]:
    """The atoms relating a new typed event at ``t`` to each earlier typed event."""
    return tuple((s < t,) + (() if tau is None else (t - s <= tau, t - s < tau))
                 for s, k in zip(stamps, typed, strict=True) if k)


def _candidates(stamps: Stamps, typed: Sequence[bool], tau: Fraction | None
                ) -> list[Fraction]:
    """One timestamp per cell of the points ``t_i``, ``t_i + τ`` at or above the last."""
    last = stamps[-1] if stamps else Fraction(0)
    points = {s for s, k in zip(stamps, typed, strict=True) if k}
    if tau is not None:
        points |= {s + tau for s in points}
    ordered = sorted({last, *(p for p in points if p >= last)})
    out = list(ordered)
    out += [(a + b) / 2 for a, b in zip(ordered, ordered[1:], strict=False)]
    out.append(ordered[-1] + 1)
    return out


@lru_cache(maxsize=256)
def stamp_classes(typed: tuple[bool, ...], tau: Fraction | None) -> tuple[Stamps, ...]:
    """One timestamp vector per class of the timestamp atoms, for events typed (a pattern
    type) or not as ``typed`` says, and the window ``tau`` (module docstring)."""
    if not typed:
        return ((),)
    out: list[Stamps] = []
    for stamps in stamp_classes(typed[:-1], tau):
        if not typed[-1]:
            out.append((*stamps, stamps[-1] if stamps else Fraction(0)))
            continue
        seen: set[tuple[tuple[bool, ...], ...]] = set()
        for t in _candidates(stamps, typed[:-1], tau):
            key = _signature(stamps, typed[:-1], t, tau)
            if key not in seen:
                seen.add(key)
                out.append((*stamps, t))
    return tuple(out)


def number(x: Fraction) -> int | float:
    """``x`` as an ``int`` when integral, else a ``float`` (exact: halves, quarters …)."""
    return int(x) if x.denominator == 1 else float(x)
