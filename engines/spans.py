"""The window of a run, decided exactly: the engines' bounds proved equal to the reference's.

The reference decides a window with one predicate,
:func:`kleene.reference.durations.fits` (``max ts − min ts ≤ τ``, or ``< τ``
under the strict reading; docs/architecture.md, "Windows"). Engines need the
same predicate in three shapes, and :class:`Window` gives each as a bound
proved equivalent to it:

- a span: :meth:`Window.fits` (scalars), :meth:`Window.fits_array` (columns);
- the timestamps that fit with a first (last) event: :meth:`Window.latest`
  (:meth:`Window.earliest`), the reference's
  :func:`~kleene.reference.durations.latest_fitting` /
  :func:`~kleene.reference.durations.earliest_fitting`;
- index ranges of a sorted column: :meth:`Window.ends` and :meth:`Window.starts`.

Adding the bound to a timestamp (``first + τ``) is NOT the predicate in
floating point: on A@0.1, C@1.1 with τ = 1, ``1.1 − 0.1 = 1.0 ≤ 1`` fits but
``0.1 < fl(1.1 − 1) = 0.10000000000000009``, so a search from the last event
back by ``last − τ`` misses the first; and ``first + nextafter(500, −∞)``
rounds back to ``first + 500`` once ``first`` is large, so a strict window
admitted spans equal to τ.

Proof for the sorted columns. Let ``ts`` be sorted, of one kind. For integer
columns ``x − first`` is exact (int64, non-negative timestamps), and
``fits(x − first) ⇔ x ≤ first + span_bound(τ, int)``. For float columns,
``x ↦ fl(x − first)`` is monotone, so ``{x ≥ first : fits(x − first)}`` is
the set of floats in ``[first, latest(first)]``: it is a prefix of the
elements ``≥ first``, and ``searchsorted(ts, latest(first), "right")`` is its
end. The vectorised latest starts at ``fl(first + τ)`` and gallops, then
bisects, over the floats in order while the exact predicate says where the
boundary is (as the scalar one: the same floats, the same predicate), so
each element ends at the largest float that fits. The mirror holds for ``starts``
(``x ↦ fl(last − x)`` is antitone).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from kleene.reference.durations import (
    KEY_INF,
    check_reading,
    earliest_fitting,
    fits,
    latest_fitting,
    span_bound,
)

_I64_MAX = int(np.iinfo(np.int64).max)
_I64_MIN = int(np.iinfo(np.int64).min)


def _clip64(v: int) -> int:
    return max(_I64_MIN, min(_I64_MAX, v))


@dataclass(frozen=True, slots=True)
class Window:
    """τ in timestamp units (or positions, for a count window) and its reading."""

    tau: int | float
    reading: str = "inclusive"

    def __post_init__(self) -> None:
        check_reading(self.reading)

    def fits(self, span: int | float) -> bool:
        """:func:`kleene.reference.durations.fits` of ``span`` (Python numbers)."""
        return fits(span, self.tau, self.reading)

    def fits_between(self, first: int | float, last: int | float) -> bool:
        """Whether events at ``first`` and ``last`` (``first ≤ last``) fit together."""
        return fits(last - first, self.tau, self.reading)

    def latest(self, first: int | float) -> int | float:
        """The largest timestamp that fits with ``first`` (same kind as ``first``)."""
        return latest_fitting(_py(first), self.tau, self.reading)

    def earliest(self, last: int | float) -> int | float:
        """The smallest timestamp that fits with ``last`` (same kind as ``last``)."""
        return earliest_fitting(_py(last), self.tau, self.reading)

    def fits_array(self, spans: np.ndarray) -> np.ndarray:
        """``fits`` of every span of a column (int: exact at any int64; float: exact)."""
        spans = np.asarray(spans)
        if spans.dtype.kind == "u":
            return spans <= min(int(span_bound(self.tau, self.reading, int)), _U64_MAX)
        if spans.dtype.kind in "ib":
            return spans <= _clip64(int(span_bound(self.tau, self.reading, int)))
        if spans.dtype.kind == "f":
            return spans <= span_bound(self.tau, self.reading, float)
        return np.fromiter((self.fits(d) for d in spans.tolist()), bool, len(spans))

    def latests(self, firsts: np.ndarray) -> np.ndarray:
        """:meth:`latest` of each element of a column (see the module's proof)."""
        firsts = np.asarray(firsts)
        if firsts.dtype.kind in "iu":
            return _saturated(firsts, int(span_bound(self.tau, self.reading, int)))
        if firsts.dtype.kind != "f":
            return np.array([self.latest(x) for x in firsts.tolist()], dtype=object)
        firsts = firsts.astype(np.float64)
        finite = np.isfinite(firsts)
        base = np.where(finite, firsts, 0.0)
        with np.errstate(invalid="ignore", over="ignore"):
            start = base + (float(self.tau) if self.tau < 1e308 else np.inf)
            out = _largests(lambda x: self.fits_array(x - base), start)
        return np.where(finite, out, firsts)

    def earliests(self, lasts: np.ndarray) -> np.ndarray:
        """:meth:`earliest` of each element of a column (the mirror of :meth:`latests`)."""
        lasts = np.asarray(lasts)
        if lasts.dtype.kind in "iu":
            return _saturated(lasts, -int(span_bound(self.tau, self.reading, int)))
        if lasts.dtype.kind != "f":
            return np.array([self.earliest(x) for x in lasts.tolist()], dtype=object)
        return -self.latests(-lasts.astype(np.float64))

    def ends(self, ts: np.ndarray, firsts: np.ndarray | int | float) -> Any:
        """For sorted ``ts``: the index past the last element that fits with each first
        (an int for one first; a first of +∞ ends past every element, −∞ before all)."""
        return self._index(ts, firsts, "right")

    def starts(self, ts: np.ndarray, lasts: np.ndarray | int | float) -> Any:
        """For sorted ``ts``: the index of the first element that fits with each last
        (an int for one last; a last of +∞ starts past every element, −∞ at 0)."""
        return self._index(ts, lasts, "left")

    def _index(self, ts: np.ndarray, values: np.ndarray | int | float,
               side: Literal["left", "right"]) -> Any:
        v = np.atleast_1d(np.asarray(values))
        infinite = np.zeros(len(v), dtype=bool)
        if ts.dtype.kind in "iu" and v.dtype.kind == "f":
            infinite = ~np.isfinite(v)
            v = np.where(infinite, 0, v)
        if ts.dtype.kind != "O":
            v = v.astype(ts.dtype)
        bound = self.latests(v) if side == "right" else self.earliests(v)
        out = np.searchsorted(ts, bound, side=side)
        if infinite.any():
            out = np.where(infinite, np.where(np.asarray(values) > 0, len(ts), 0), out)
        return out if np.ndim(values) else int(out[0])

_BIAS = np.uint64(2**63)
_U64_MAX = 2**64 - 1


def _saturated(values: np.ndarray, b: int) -> np.ndarray:
    """``values + b`` for an int64 column and any Python int ``b``, exactly, saturated
    to the int64 range: computed on ``v − min`` as uint64 (``v ^ 2**63``), never
    overflowing (an int64 timestamp plus τ past 2**63 is every later timestamp)."""
    u = np.ascontiguousarray(values, dtype=np.int64).view(np.uint64) ^ _BIAS
    if b >= 0:
        out = (np.full(len(u), _U64_MAX, dtype=np.uint64) if b > _U64_MAX else
               np.where(~u >= np.uint64(b), u + np.uint64(b), np.uint64(_U64_MAX)))
    else:
        out = (np.zeros(len(u), dtype=np.uint64) if -b > _U64_MAX else
               np.where(u >= np.uint64(-b), u - np.uint64(-b), np.uint64(0)))
    return np.ascontiguousarray(out ^ _BIAS).view(np.int64)


_SIGN = np.int64(-(2**63))
_MAGNITUDE = np.int64(2**63 - 1)


def _keys(x: np.ndarray) -> np.ndarray:
    """:func:`kleene.reference.durations._key` of each float."""
    b = np.ascontiguousarray(x, dtype=np.float64).view(np.int64)
    return np.where(b >= 0, b, -(b & _MAGNITUDE))


def _floats(k: np.ndarray) -> np.ndarray:
    """The floats of order keys ``k`` (keys clipped to ±∞)."""
    k = np.clip(k, -KEY_INF, KEY_INF)
    return np.ascontiguousarray(np.where(k >= 0, k, (-k) | _SIGN)).view(np.float64)


def _largests(holds: Callable[[np.ndarray], np.ndarray], start: np.ndarray) -> np.ndarray:
    """:func:`kleene.reference.durations._largest` of each element at once: gallop
    from ``start`` in order keys until ``holds`` changes, then bisect."""
    k = _keys(start)
    ok = holds(start)
    lo, hi = k.copy(), k.copy()
    step = np.ones(len(k), dtype=np.int64)
    active = np.ones(len(k), dtype=bool)
    while active.any():
        cand = np.where(ok, np.minimum(lo + step, KEY_INF), np.maximum(hi - step, -KEY_INF))
        t = holds(_floats(cand))
        up, down = active & ok, active & ~ok
        rise, fall = up & t, down & ~t
        lo = np.where(rise | (down & t), cand, lo)
        hi = np.where(fall | (up & ~t), cand, hi)
        hi = np.where(rise & (cand == KEY_INF), KEY_INF + 1, hi)     # +∞ holds
        lo = np.where(fall & (cand == -KEY_INF), -KEY_INF - 1, lo)   # holds nowhere
        active = (rise & (cand < KEY_INF)) | (fall & (cand > -KEY_INF))
        step = np.minimum(step * 2, 2**61)
    while (gap := (hi - lo) > 1).any():
        mid = lo + (hi - lo) // 2
        t = holds(_floats(np.where(gap, mid, 0)))
        lo = np.where(gap & t, mid, lo)
        hi = np.where(gap & ~t, mid, hi)
    return _floats(lo)


def searched(ts: np.ndarray, values: list[int | float], side: Literal["left", "right"]
             ) -> np.ndarray:
    """``np.searchsorted(ts, values, side)`` decided exactly for Python numbers (ints of any
    size, floats, ±∞): NumPy searches an int64 column for a float in float64, which
    rounds its elements past 2**53, and cannot hold an int past int64."""
    if ts.dtype.kind not in "iu":
        return np.searchsorted(ts, np.asarray(values, dtype=ts.dtype), side)
    out = np.empty(len(values), dtype=np.int64)
    for j, v in enumerate(values):
        if isinstance(v, float):
            if math.isnan(v):
                raise ValueError("NaN is no bound")
            if math.isinf(v):
                out[j] = len(ts) if v > 0 else 0
                continue
            v = math.ceil(v) if side == "left" else math.floor(v)   # x < v ⇔ x < ⌈v⌉
        if v < _I64_MIN:
            out[j] = 0
        elif v > _I64_MAX:
            out[j] = len(ts)
        else:
            out[j] = np.searchsorted(ts, np.int64(v), side)
    return out


def spans_of(last: np.ndarray, first: np.ndarray) -> np.ndarray:
    """``last − first`` element by element (``first ≤ last``), exactly: for int64 columns
    as uint64 (a span of two int64 timestamps may pass int64; :meth:`Window.fits_array`
    decides it)."""
    if last.dtype.kind == "i" and first.dtype.kind == "i":
        return ((np.ascontiguousarray(last, dtype=np.int64).view(np.uint64) ^ _BIAS)
                - (np.ascontiguousarray(first, dtype=np.int64).view(np.uint64) ^ _BIAS))
    return last - first


def within_bound(spans: np.ndarray, bound: int | float) -> np.ndarray:
    """``spans ≤ bound`` decided exactly for a column of spans, ``bound`` an
    :func:`~kleene.reference.durations.inclusive_bound` (the automata's clocks).

    NumPy compares an int64 column with a float (or a float column with a
    large int) in float64, which rounds; here an integer column is compared with
    ``⌊bound⌋`` (an int: ``d ≤ b ⇔ d ≤ ⌊b⌋`` for an integer ``d``) and a float
    column with the largest float ``≤ bound`` (for a float ``d`` the same).
    """
    spans = np.asarray(spans)
    if spans.dtype.kind in "iub":
        return spans <= _clip64(math.floor(bound))
    if spans.dtype.kind == "f":
        f = float(bound)
        if f > bound:
            f = math.nextafter(f, -math.inf)
        return spans <= f
    return np.fromiter((d <= bound for d in spans.tolist()), bool, len(spans))


def _py(x: int | float) -> int | float:
    """A numpy scalar as the Python number of its kind (ints stay exact)."""
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.floating):
        return float(x)
    return x
