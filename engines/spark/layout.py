"""Where each event goes: time slices with τ overlap, Def. 6 keys, Spark partitions.

The :class:`~kleene.engines.spark.plan.Plan` says which cuts are sound; this
module lays them out on a DataFrame (docs/architecture.md, "Spark": "partitioning keys
(Def. 6) become ``repartition``; unkeyed patterns are cut into time slices that
overlap by τ, each slice owning the matches that start in it").

- **Slices.** ``K − 1`` boundaries are drawn from timestamps sampled in stream
  order (:func:`boundaries`), so slices hold about as many events each (for a
  count window, :attr:`.plan.Plan.by_position`, they are positions). An
  event goes to every slice whose extended range holds it (``explode``), and
  slice ``j`` becomes Spark partition ``j`` exactly (:func:`surrogates`), so no
  two slices share a task by hash collision.
- **Keys.** Within a slice the engine runs once per Def. 6 key: the rows are
  sorted by key and position, and the worker cuts them into groups. A heavy key
  (the stock stream's busiest ticker holds a fifth of the events) is therefore
  cut by the slices too and never stalls one task. Without slices
  (``slices=1``) the rows are hash-partitioned by key, which is what skew hurts.
- **Streams.** Columns that name independent streams in one DataFrame (one per
  case of a test batch) lead every group key.

Events that miss a key value can be in no match (each variable is in an
equality on the key, which is unknown for them) and vetoes no run (they fail
that equality), so they are dropped; floating-point keys are normalised
(``-0.0`` is ``0.0``, NaN is missing) so that Spark's grouping agrees with the
condition language's ``=``.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from kleene.engines.spark.plan import Plan
from kleene.reference.durations import reach_after, reach_before

#: Internal columns added by the layout.
SLICE = "_kleene_slice"
PART = "_kleene_part"

#: Seed of Spark's ``hash()`` and of its hash partitioning (Murmur3, x86 32-bit).
SPARK_HASH_SEED = 42


def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (32 - r))) & 0xFFFFFFFF


def murmur3_int(value: int, seed: int = SPARK_HASH_SEED) -> int:
    """Spark's ``hash(value)`` of a 32-bit integer (``Murmur3_x86_32.hashInt``), signed."""
    k1 = (value & 0xFFFFFFFF) * 0xCC9E2D51 & 0xFFFFFFFF
    k1 = _rotl(k1, 15) * 0x1B873593 & 0xFFFFFFFF
    h1 = _rotl((seed & 0xFFFFFFFF) ^ k1, 13)
    h1 = (h1 * 5 + 0xE6546B64) & 0xFFFFFFFF
    h1 ^= 4
    h1 ^= h1 >> 16
    h1 = h1 * 0x85EBCA6B & 0xFFFFFFFF
    h1 ^= h1 >> 13
    h1 = h1 * 0xC2B2AE35 & 0xFFFFFFFF
    h1 ^= h1 >> 16
    return h1 - (1 << 32) if h1 >= 1 << 31 else h1


def surrogates(n: int) -> list[int]:
    """For each partition ``j < n``, the smallest integer that Spark's
    ``repartition(n, col)`` sends to partition ``j`` (``pmod(hash(x), n) = j``)."""
    out: dict[int, int] = {}
    x = 0
    while len(out) < n:
        out.setdefault(murmur3_int(x) % n, x)
        x += 1
    return [out[j] for j in range(n)]


def boundaries(samples: Sequence[int | float], slices: int, *,
               min_gap: int | float = 0) -> tuple[int | float, ...]:
    """``slices − 1`` (or fewer) increasing boundaries that cut the timestamps
    sampled in stream order into parts of about equal counts; a boundary closer
    than ``min_gap`` to the previous one (or to the first timestamp) is dropped."""
    if slices <= 1 or not samples:
        return ()
    ordered = sorted(samples)
    out: list[int | float] = []
    last = ordered[0]
    for j in range(1, slices):
        b = ordered[min(len(ordered) - 1, round(j * len(ordered) / slices))]
        if b > last and b - last >= min_gap:
            out.append(b)
            last = b
    return tuple(out)


def owner(bounds: Sequence[int | float], ts: int | float) -> int:
    """The slice that owns the matches whose first event has timestamp ``ts``."""
    return bisect.bisect_right(bounds, ts)


def owners(bounds: Sequence[int | float], at: Any) -> Any:
    """:func:`owner` of each value of the NumPy array ``at``: a binary search over the
    array where the values and the bounds are both integers or both floats; else one
    by one, exactly (NumPy compares an integer with a float as floats, which round
    beyond 2**53)."""
    import numpy as np

    values, cuts = np.asarray(at), np.asarray(bounds)
    if not len(bounds):
        return np.zeros(len(values), dtype=np.int64)
    if (values.dtype.kind in "iu") == (cuts.dtype.kind in "iu"):
        return np.searchsorted(cuts, values, side="right")
    return np.fromiter((bisect.bisect_right(bounds, v) for v in values.tolist()),
                       dtype=np.int64, count=len(values))


def _widen(x: int | float, direction: float) -> int | float:
    return math.nextafter(x, direction) if isinstance(x, float) else x


def _count(col: Any, thresholds: Sequence[int | float], *, strict: bool,
           lo: int = 0, hi: int | None = None) -> Any:
    """The number of (sorted) ``thresholds`` below ``col`` (``<`` if strict, else ``<=``):
    a binary search written as nested ``CASE WHEN``, ``log2`` comparisons per row."""
    from pyspark.sql import functions as F

    hi = len(thresholds) if hi is None else hi
    if lo == hi:
        return F.lit(lo)
    mid = (lo + hi) // 2
    counted = col > thresholds[mid] if strict else col >= thresholds[mid]
    return F.when(counted, _count(col, thresholds, strict=strict, lo=mid + 1, hi=hi)) \
        .otherwise(_count(col, thresholds, strict=strict, lo=lo, hi=mid))


@dataclass(frozen=True)
class Layout:
    """How the rows of a run are arranged: the groups the worker runs the engine
    on (``groups``, in sort order), the slice boundaries (``bounds``, empty when
    not sliced) and the number of Spark partitions (``partitions``)."""

    groups: tuple[str, ...]
    bounds: tuple[int | float, ...]
    sliced: bool
    partitions: int


def slice_column(ts: Any, bounds: Sequence[int | float], reach: tuple[int, int],
                 tau: int | float) -> Any:
    """The slices whose extended range ``[b_j − L·τ, b_{j+1} + A·τ]`` holds ``ts``
    (an array column, to ``explode``); thresholds are widened by one ulp when
    they are floats, so rounding can only add an event to a slice."""
    from pyspark.sql import functions as F

    low, high = thresholds(bounds, reach, tau)
    return F.sequence(_count(ts, low, strict=True), _count(ts, high, strict=False))


def thresholds(bounds: Sequence[int | float], reach: tuple[int, int], tau: int | float
               ) -> tuple[list[int | float], list[int | float]]:
    """The ends ``b_{j+1} + A·τ`` and the starts ``b_j − L·τ`` of the extended slices:
    slice ``j`` holds ``[high[j−1], low[j]]``. Each end is the larger of the sum
    (widened by one ulp when a float) and the exact reach of ``A`` window steps
    (:func:`~kleene.reference.durations.reach_after`, decided by ``fits``), each
    start the smaller of the mirrors: a slice may hold more events, never fewer."""
    back, ahead = reach
    low = [max(_widen(b + ahead * tau, math.inf), reach_after(b, tau, ahead))
           for b in bounds]                                       # slice j ends at b_{j+1}+Aτ
    high = [min(_widen(b - back * tau, -math.inf), reach_before(b, tau, back))
            for b in bounds]                                      # slice j starts at b_j−Lτ
    return low, high


def extent(bounds: Sequence[int | float], reach: tuple[int, int], tau: int | float,
           j: int) -> tuple[int | float, int | float]:
    """The range ``[first, last]`` (both included) that slice ``j`` holds: the rows
    :func:`slice_column` puts in slice ``j``."""
    low, high = thresholds(bounds, reach, tau)
    return (high[j - 1] if j > 0 else -math.inf), (low[j] if j < len(bounds) else math.inf)


def key_column(df: Any, name: str) -> Any:
    """Column ``name`` as a grouping key: floats normalised (``-0.0`` → ``0.0``)."""
    from pyspark.sql import functions as F

    kind = df.schema[name].dataType.simpleString()
    if kind in ("float", "double"):
        return (F.col(name) + F.lit(0.0)).alias(name)
    return F.col(name)


def has_key(df: Any, names: Sequence[str]) -> Any:
    """The rows that have a value for every key (not null, not NaN)."""
    from pyspark.sql import functions as F

    cond = F.lit(True)
    for name in names:
        present = F.col(name).isNotNull()
        if df.schema[name].dataType.simpleString() in ("float", "double"):
            present = present & ~F.isnan(F.col(name))
        cond = cond & present
    return cond


def arrange(df: Any, plan: Plan, *, ts: str, position: str, keys: Sequence[str],
            streams: Sequence[str], bounds: Sequence[int | float],
            tasks: int) -> tuple[Any, Layout]:
    """``df`` partitioned and sorted for the worker, and its :class:`Layout`.

    ``keys`` are the column names of the plan's Def. 6 attributes; ``bounds``
    the slice boundaries (used only if the plan has a reach).
    """
    from pyspark.sql import functions as F

    if keys:
        df = df.filter(has_key(df, keys))
        df = df.select(*[key_column(df, c) if c in keys else F.col(c) for c in df.columns])
    sliced = plan.reach is not None and plan.tau is not None and len(bounds) > 0
    groups = [*streams]
    if sliced:
        assert plan.reach is not None and plan.tau is not None
        n = len(bounds) + 1
        axis = F.col(position if plan.by_position else ts)
        df = df.withColumn(SLICE, F.explode(slice_column(axis, bounds, plan.reach, plan.tau)))
        df = df.withColumn(PART, F.element_at(F.array(*[F.lit(s) for s in surrogates(n)]),
                                              F.col(SLICE) + 1))
        df = df.repartition(n, PART).drop(PART)
        groups.append(SLICE)
        partitions = n
    elif keys or streams:
        df = df.repartition(tasks, *streams, *keys)
        partitions = tasks
    else:
        df = df.repartition(1)
        partitions = 1
    groups += keys
    df = df.sortWithinPartitions(*groups, position)
    return df, Layout(tuple(groups), tuple(bounds) if sliced else (), sliced, partitions)
