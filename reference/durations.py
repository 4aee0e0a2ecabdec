"""Durations: the ``τ`` of seed 000 Def. 1 / seed 001 Def. 1 and ``WITHIN`` of seed 003.

A pattern's window is written ``WITHIN 264 hours`` (a unit) or ``WITHIN 264``
(timestamp units). With a unit it is converted into the stream's timestamp
unit (:attr:`kleene.reference.events.Stream.time_unit`); a unit-less stream
cannot be given a window with a unit, and says so.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from kleene.reference.errors import PatternError
from kleene.reference.events import UNIT_MS, canonical_unit


@dataclass(frozen=True, slots=True)
class Duration:
    """``value`` in ``unit`` (``ms s min h d``), or in timestamp units when ``unit`` is ``None``."""

    value: int | float
    unit: str | None = None

    def __post_init__(self) -> None:
        if self.value < 0:
            raise PatternError(f"a window cannot be negative: {self.value}")
        if self.unit is not None and self.unit.lower() not in UNIT_MS:
            raise PatternError(f"unknown time unit {self.unit!r}; use one of ms, s, min, h, d")

    def in_units_of(self, time_unit: str | None) -> int | float:
        """This duration in timestamp units of a stream whose ``ts`` is in ``time_unit``."""
        if self.unit is None:
            return self.value
        if time_unit is None:
            raise PatternError(
                f"the window is {self} but the events' timestamps have no declared unit; "
                "declare one (--time-unit h, or \"time_unit\" in a case file) or write the "
                "window in timestamp units")
        ratio = UNIT_MS[self.unit.lower()] / UNIT_MS[time_unit]
        scaled = self.value * ratio
        return int(scaled) if float(scaled).is_integer() else scaled

    def bound(self, time_unit: str | None, reading: str = "inclusive") -> int | float:
        """:func:`inclusive_bound` of τ in timestamp units: a span ``d`` (a Python
        int or float) fits iff ``d ≤ bound`` (for automata whose clocks compare)."""
        return inclusive_bound(self.in_units_of(time_unit), reading)

    def __str__(self) -> str:
        if self.unit is None:
            return f"{self.value}"
        words = {"ms": "ms", "s": "second", "min": "minute", "h": "hour", "d": "day"}
        word = words[canonical_unit(self.unit)]
        plural = "" if word == "ms" or self.value == 1 else "s"
        return f"{self.value} {word}{plural}"


#: How a window bounds a match (docs/semantics.md, "Window readings"): ``max ts − min ts``
#: at most τ (``inclusive``, the papers') or below τ (``strict``, Wayeb's).
WindowReading = Literal["inclusive", "strict"]

#: The window readings.
READINGS: tuple[WindowReading, ...] = ("inclusive", "strict")


def check_reading(reading: str) -> None:
    """Raise :class:`PatternError` unless ``reading`` is a window reading."""
    if reading not in READINGS:
        raise PatternError(f"unknown window reading {reading!r}; use 'inclusive' or 'strict'")


def fits(span: int | float, tau: int | float, reading: str = "inclusive") -> bool:
    """Whether a match whose events span ``span`` = ``max ts − min ts`` fits the window τ.

    THE window predicate; every other window test in Kleene is this one or a
    bound proved equivalent to it (:func:`span_bound`, :func:`latest_fitting`,
    :func:`earliest_fitting`, :mod:`kleene.engines.spans`).

    - seed 000 Def. 1 condition 3 and seed 001 Def. 1: ``max ts − min ts ≤ τ``;
    - seed 003 ``WITHIN τ`` (Sec. 3): the same span, inclusive;
    - seed 004 report Def. 39: a count window ``[1..w]`` over positions,
      ``max M − min M + 1 ≤ w``, i.e. ``fits(max M − min M, w − 1)``;
    - Wayeb (seed 004's implementation) bounds time strictly: ``span < τ``,
      the ``strict`` reading (docs/architecture.md, "Windows").

    ``span`` is ``max − min`` computed on the timestamps as they are (Python
    ints stay exact at any size; a float span is the rounded difference, the
    one the definition's arithmetic gives in floating point). Python compares
    an int with a float exactly, so no conversion rounds here.
    """
    if reading == "inclusive":
        return span <= tau
    if reading == "strict":
        return span < tau
    check_reading(reading)
    raise AssertionError  # unreachable: check_reading raised


def span_bound(tau: int | float, reading: str, kind: type) -> int | float:
    """The largest span of ``kind`` (``int`` or ``float``) that :func:`fits` τ.

    Proof of ``fits(d, τ, reading) ⇔ d ≤ span_bound(τ, reading, type(d))``:
    for an integer ``d``, ``d ≤ τ ⇔ d ≤ ⌊τ⌋`` and ``d < τ ⇔ d ≤ ⌈τ⌉ − 1``
    (computed on Python ints: exact at any size); for a float ``d`` the bound is
    by construction the largest float ``f`` with ``fits(f)``, and ``fits`` is
    downward closed, so ``fits(d) ⇔ d ≤ f``. (``math.nextafter(τ, −∞)`` alone is
    not that bound for an int τ past 2**53, nor for integer spans; the copies
    of it were replaced by this function.)
    """
    check_reading(reading)
    if kind is int:
        if isinstance(tau, int):
            return tau if reading == "inclusive" else tau - 1
        return math.floor(tau) if reading == "inclusive" else math.ceil(tau) - 1
    f = float(tau)
    while not fits(f, tau, reading):
        f = math.nextafter(f, -math.inf)
    while fits(up := math.nextafter(f, math.inf), tau, reading):
        f = up
    return f


def inclusive_bound(tau: int | float, reading: str) -> int | float:
    """The number ``b`` with ``fits(d, τ, reading) ⇔ d ≤ b`` for every Python int
    and float ``d`` (Python compares ints and floats exactly).

    Inclusive: ``b = τ``. Strict: ``b = max(g, ⌈τ⌉ − 1)`` with ``g`` the largest
    float below τ. Proof: a float ``d < τ`` is ``≤ g``; an int ``d < τ`` is
    ``≤ ⌈τ⌉ − 1``; conversely ``g < τ`` and ``⌈τ⌉ − 1 < τ``. And no number of the
    other kind lies between: an int ``d ≤ g`` is ``< τ``, and a float
    ``d ≤ ⌈τ⌉ − 1`` is ``< τ``. (``g`` alone fails for integer spans once τ is
    past 2**53, where floats are more than 1 apart; ``⌈τ⌉ − 1`` alone fails for
    float spans such as 0.5 < 1.)
    """
    check_reading(reading)
    if reading == "inclusive":
        return tau
    g = span_bound(tau, reading, float)
    whole = span_bound(tau, reading, int)
    return g if g >= whole else whole


def latest_fitting(first: int | float, tau: int | float, reading: str) -> int | float:
    """The largest timestamp ``x`` of ``first``'s kind with ``fits(x − first, τ)``.

    For ints: ``first + span_bound(τ, int)`` (exact). For floats ``x ↦ fl(x − first)``
    is monotone (rounding is monotone), so ``{x : fits(x − first)}`` is a down-set
    of the floats; :func:`_largest` finds its largest member from ``fl(first + τ)``
    on, by galloping and bisecting over the floats in order (at most ~128
    evaluations of ``fits``: near 0 the answer can be 2**62 ulps away). Hence
    for every float ``x ≥ first``: ``fits(x − first) ⇔ x ≤ latest_fitting``
    (below ``first`` when nothing fits: a strict window of 0). ``first + τ``
    alone is not that bound: for ``first = 25263126.0`` and the strict τ = 500,
    ``first + nextafter(500, −∞)`` rounds to ``first + 500``, a span that does not
    fit. An infinite ``first`` is its own answer.
    """
    if isinstance(first, int) and not isinstance(first, bool):
        return first + span_bound(tau, reading, int)
    first = float(first)
    if not math.isfinite(first):
        return first
    try:
        start = first + float(tau)
    except OverflowError:
        start = math.inf
    return _largest(lambda x: fits(x - first, tau, reading), start)


def earliest_fitting(last: int | float, tau: int | float, reading: str) -> int | float:
    """The smallest timestamp ``x`` of ``last``'s kind with ``fits(last − x, τ)``:
    the mirror of :func:`latest_fitting` (``fl(last − x) = fl(x' − (−last))`` for
    ``x' = −x``, negation being exact), so ``−latest_fitting(−last)``."""
    if isinstance(last, int) and not isinstance(last, bool):
        return last - span_bound(tau, reading, int)
    return -latest_fitting(-float(last), tau, reading)


#: The order key of +∞ (:func:`_key`): keys of finite floats lie strictly between ±this.
KEY_INF = 0x7FF0000000000000


def _key(x: float) -> int:
    """An integer that orders floats as their values (adjacent floats: adjacent keys)."""
    (b,) = struct.unpack("<q", struct.pack("<d", x))
    return b if b >= 0 else -(b & 0x7FFFFFFFFFFFFFFF)


def _float(k: int) -> float:
    """The float of order key ``k`` (:func:`_key`'s inverse)."""
    b = k if k >= 0 else (-k) | (1 << 63)
    (x,) = struct.unpack("<d", struct.pack("<Q", b))
    return float(x)


def _largest(holds: Callable[[float], bool], start: float) -> float:
    """The largest float with ``holds`` (true below some float, false above it),
    searched from ``start``; −∞ when it holds nowhere above −∞."""
    k = _key(start)
    if holds(start):
        lo, step = k, 1
        while True:
            hi = min(lo + step, KEY_INF)
            if hi == lo:
                return _float(lo)            # +∞ holds
            if not holds(_float(hi)):
                break
            lo, step = hi, step * 2
    else:
        hi, step = k, 1
        while True:
            lo = max(hi - step, -KEY_INF)
            if lo == hi:
                return -math.inf             # holds nowhere
            if holds(_float(lo)):
                break
            hi, step = lo, step * 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if holds(_float(mid)):
            lo = mid
        else:
            hi = mid
    return _float(lo)


def reach_after(first: int | float, tau: int | float, steps: int) -> int | float:
    """The latest timestamp a chain of ``steps`` windows reaches from ``first``:
    :func:`latest_fitting` (inclusive, the wider reading) applied ``steps`` times.

    The pruning answers (:mod:`kleene.reference.pruning`) bound what a verdict
    reads by ``[first − L·τ, first + A·τ]``, each τ one window step (an event
    that fits with one that fits with ``first``, ...). In floating point,
    ``first + A·τ`` can round below the last event that fits; this bound is the
    exact one, and :func:`latest_fitting` is monotone, so ``x ≤ reach_after`` for
    every ``x`` a chain of ``steps`` fitting events leads to.
    """
    x = first
    for _ in range(steps):
        x = latest_fitting(x, tau, "inclusive")
    return x


def reach_before(last: int | float, tau: int | float, steps: int) -> int | float:
    """The mirror of :func:`reach_after`: :func:`earliest_fitting` ``steps`` times."""
    x = last
    for _ in range(steps):
        x = earliest_fitting(x, tau, "inclusive")
    return x
