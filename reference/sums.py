"""Sums and means of numbers, computed exactly and rounded once (issue 27, "exact values").

Seed 003 Sec. 4.5.1 defines ``SUM`` and ``AVG`` of a bound sequence as the
arithmetic sum and mean of its values; floating point is the stream's
representation, not part of the definition. Adding floats one by one rounds
at every step and overflows where the mean does not (``AVG`` of two values of
1.7e308 is 1.7e308, but ``1.7e308 + 1.7e308`` is ``inf``), so a condition on
an aggregate would change with the order of the events and drop matches. Here
the sum is the exact rational number (:class:`fractions.Fraction`, Python
ints), and the result is that value itself when every number is an int
(``SUM``), else the float nearest to it (round half to even, as
:func:`math.fsum` rounds; ``±inf`` only where the exact value lies beyond the
largest float). The reference and every engine call these two functions (the
engines evaluate aggregates through the reference's conditions).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction


def rounded(value: Fraction) -> float:
    """The float nearest to ``value`` (ties to even); ``±inf`` past the largest float."""
    try:
        return float(value)   # Fraction → float is correctly rounded
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def exact_sum(numbers: Sequence[int | float]) -> int | float:
    """The sum of ``numbers`` (non-empty, finite or not): an int when all are ints
    (exact), else the float nearest to the exact sum."""
    if all(isinstance(x, int) for x in numbers):
        return sum(numbers)
    if any(isinstance(x, float) and not math.isfinite(x) for x in numbers):
        return sum(numbers)   # an infinity or NaN decides it, as IEEE adds it
    return rounded(sum((Fraction(x) for x in numbers), Fraction(0)))


def exact_mean(numbers: Sequence[int | float]) -> float:
    """The mean of ``numbers`` (non-empty): the float nearest to the exact mean."""
    if any(isinstance(x, float) and not math.isfinite(x) for x in numbers):
        return sum(numbers) / len(numbers)
    return rounded(sum((Fraction(x) for x in numbers), Fraction(0)) / len(numbers))
