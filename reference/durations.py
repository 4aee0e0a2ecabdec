"""Durations: the ``τ`` of seed 000 Def. 1 / seed 001 Def. 1 and ``WITHIN`` of seed 003.

A pattern's window is written ``WITHIN 264 hours`` (a unit) or ``WITHIN 264``
(timestamp units). With a unit it is converted into the stream's timestamp
unit (:attr:`kleene.reference.events.Stream.time_unit`); a unit-less stream
cannot be given a window with a unit, and says so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

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
        """The largest ``max ts − min ts`` a match may span, in timestamp units:
        τ itself under the ``inclusive`` reading (``≤ τ``), and under the
        ``strict`` one (``< τ``) the largest float below τ (no float lies between
        the two, so ``d < τ`` iff ``d ≤ bound`` for every float or integer span
        ``d`` below 2**53)."""
        tau = self.in_units_of(time_unit)
        return within(tau, reading)

    def __str__(self) -> str:
        if self.unit is None:
            return f"{self.value}"
        words = {"ms": "ms", "s": "second", "min": "minute", "h": "hour", "d": "day"}
        word = words[canonical_unit(self.unit)]
        plural = "" if word == "ms" or self.value == 1 else "s"
        return f"{self.value} {word}{plural}"


def within(tau: int | float, reading: str = "inclusive") -> int | float:
    """The inclusive bound of a window τ under ``reading`` (see :meth:`Duration.bound`)."""
    if reading == "inclusive":
        return tau
    if reading == "strict":
        return math.nextafter(tau, -math.inf)
    raise PatternError(f"unknown window reading {reading!r}; use 'inclusive' or 'strict'")
