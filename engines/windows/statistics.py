"""Summary statistics of a match window, as counters and bit vectors: seed 001
Def. 5, Theorem 3 and the bit-vector form of Sec. 5 (Example 13).

The engine's form of :mod:`kleene.reference.ses.statistics`: events come in
as their timestamp and ē (:class:`~kleene.engines.columns.PropertyBits`,
bit ``j`` for variable v_{j+1}), so no property is evaluated twice, and the
statistics keep ``positive``, the bit vector with bit ``j`` set iff
``cnt_j > 0``. The paper's s̄ is its complement ("a 0 bit means that the
counter is greater than zero"); Algorithm 1's test ``∀(v, cnt) ∈ S (cnt > 0)``
is ``positive == full``, and the test "all counters of B_{i−1} are > 0" of
the printed update rule is ``s̄ ∧ b̄_i = 0``, that is ``b̄_i & ~positive == 0``.

- :class:`BitStatistics` (default) keeps Def. 5 (8) exactly after every step,
  as :class:`kleene.reference.ses.statistics.SummaryStatistics` does: per
  variable the timestamps of W's events with its properties; an event counts
  for v ∈ B_i iff it is strictly later than the *threshold* of B_i, the latest
  first timestamp among B_{i−1}'s queues. Dequeuing W's first event
  decrements B1's counters and recounts the set after each set whose first
  event moved (the paper's reset, corrected).
- :class:`PaperBitStatistics` is the update rule as printed in Sec. 4.3.2,
  which is not Def. 5 and loses matches in Algorithm 1
  (``docs/errata.md#seed-001-statistics-update-rule``); it equals
  :class:`kleene.reference.ses.statistics.PaperStatistics` step by step.

Both are correct only for a window that is changed as Algorithm 1 changes it:
events enqueued in stream order, and only W's first event dequeued.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from kleene.reference.ses.pattern import SESPattern


@dataclass(frozen=True)
class Layout:
    """The shape of ``P = (<B1..Bk>, Θ, τ)`` the statistics read (variables by index j).

    ``set_of[j]`` is the 0-based set of v_{j+1}; ``sets[i]`` the indices of B_{i+1};
    ``previous[i]`` is b̄_{i+1} of Sec. 5 as an integer (the bits of B_i's
    variables, 0 for B1); ``b1`` the bits of B1 (condition 5 of Thm 2).
    """

    m: int
    set_of: tuple[int, ...]
    sets: tuple[tuple[int, ...], ...]
    previous: tuple[int, ...]
    b1: int
    full: int
    _indices: dict[int, tuple[int, ...]] = field(default_factory=dict, compare=False,
                                                 repr=False)

    @classmethod
    def of(cls, pattern: SESPattern) -> Layout:
        names = pattern.names
        set_of = tuple(pattern.set_index(v) for v in names)
        sets = tuple(tuple(j for j in range(len(names)) if set_of[j] == i)
                     for i in range(len(pattern.sets)))
        bits = tuple(sum(1 << j for j in s) for s in sets)
        return cls(m=len(names), set_of=set_of, sets=sets, previous=(0, *bits[:-1]),
                   b1=bits[0], full=(1 << len(names)) - 1)

    @property
    def k(self) -> int:
        return len(self.sets)

    def indices(self, bits: int) -> tuple[int, ...]:
        """The variable indices j whose bit is set in ``bits``, ascending (cached)."""
        out = self._indices.get(bits)
        if out is None:
            out = self._indices[bits] = tuple(j for j in range(self.m) if bits >> j & 1)
        return out


class BitStatistics:
    """Def. 5 (8) maintained incrementally; ``counts`` equals
    :func:`kleene.reference.ses.statistics.summary_statistics` after every step."""

    __slots__ = ("layout", "counts", "positive", "queues")

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self.counts = [0] * layout.m
        self.positive = 0
        # Timestamps of W's events with Θp_vj; only thresholds read them (k > 1).
        self.queues: list[deque[int | float]] | None = \
            [deque() for _ in range(layout.m)] if layout.k > 1 else None

    def threshold(self, i: int) -> int | float | None:
        """The latest first timestamp among B_i's queues (0-based ``i`` ≥ 1 reads set
        ``i − 1``); ``None`` when one is empty (no event follows one of every vj)."""
        assert self.queues is not None
        t = None
        for j in self.layout.sets[i - 1]:
            q = self.queues[j]
            if not q:
                return None
            if t is None or q[0] > t:
                t = q[0]
        return t

    def enqueue(self, ts: int | float, bits: int) -> None:
        """Add an event with timestamp ``ts`` and ē ``bits`` at the end of W."""
        layout, queues = self.layout, self.queues
        for j in layout.indices(bits):
            if queues is not None:
                queues[j].append(ts)
        for j in layout.indices(bits):
            i = layout.set_of[j]
            if i == 0:
                later = True
            else:
                t = self.threshold(i)
                later = t is not None and t < ts
            if later:
                self.counts[j] += 1
                self.positive |= 1 << j

    def dequeue(self, bits: int) -> None:
        """Remove W's first event, whose ē is ``bits``."""
        layout, queues, counts = self.layout, self.queues, self.counts
        moved = set()
        for j in layout.indices(bits):
            i = layout.set_of[j]
            if queues is not None:
                queues[j].popleft()
            if i == 0:
                counts[j] -= 1
                if counts[j] == 0:
                    self.positive &= ~(1 << j)
            if i + 1 < layout.k:
                moved.add(i + 1)
        for i in moved:
            t = self.threshold(i)
            assert queues is not None       # a set moved: k > 1, so the queues are kept
            for j in layout.sets[i]:
                counts[j] = 0 if t is None else _later_than(queues[j], t)
                self.positive = self.positive | (1 << j) if counts[j] > 0 \
                    else self.positive & ~(1 << j)


def _later_than(q: deque[int | float], t: int | float) -> int:
    """How many timestamps of the sorted queue ``q`` are strictly later than ``t``."""
    skip = 0
    for ts in q:
        if ts > t:
            break
        skip += 1
    return len(q) - skip


class PaperBitStatistics:
    """The update rule of Sec. 4.3.2 as printed, in the bit-vector form of Sec. 5."""

    __slots__ = ("layout", "counts", "positive")

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self.counts = [0] * layout.m
        self.positive = 0

    def enqueue(self, ts: int | float, bits: int) -> None:
        """Increment cnt_v for each v ∈ B_i that ē has, if s̄ ∧ b̄_i = 0 before the event."""
        before = self.positive
        for j in self.layout.indices(bits):
            if self.layout.previous[self.layout.set_of[j]] & ~before == 0:
                self.counts[j] += 1
        self._recompute()

    def dequeue(self, bits: int) -> None:
        """Decrement every counter ē has; one that becomes zero resets the later sets."""
        layout, counts = self.layout, self.counts
        hit = layout.indices(bits)
        for j in hit:
            counts[j] -= 1
        for j in hit:
            if counts[j] == 0:
                for later in layout.sets[layout.set_of[j] + 1:]:
                    for x in later:
                        counts[x] = 0
        self._recompute()

    def _recompute(self) -> None:
        self.positive = sum(1 << j for j, c in enumerate(self.counts) if c > 0)
