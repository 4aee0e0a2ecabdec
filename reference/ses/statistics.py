"""Summary statistics for match windows: seed 001 Sec. 4.3.2 (Def. 5, Thm 3) and
the bit-vector form of Sec. 5 (Example 13).

Def. 5: for ``P = (B, Θ, τ)`` with variables v1, ..., vm and a window W, the
summary statistics ``S = <(v1, cnt1), ..., (vm, cntm)>`` has, for each
``vi ∈ Bi``, ::

    cnt_i = |{ei ∈ W | Θp_vi(ei) ∧ ∀vj ∈ Bi−1 ∃ej ∈ W (Θp_vj(ej) ∧ ej.T < ei.T)}|   (8)

(for B1 the ∀ ranges over nothing: cnt counts the events with v's
properties). Ties stay strict: an event does not follow one with its own
timestamp. :func:`summary_statistics` is (8) verbatim.

Thm 3: ``cnt1 > 0 ∧ ... ∧ cntm > 0`` implies conditions 6 and 7 of Thm 2. The
converse holds too (the appendix even says "equivalent"): if condition 7 holds
for vj ∈ Bi−1 and vi ∈ Bi, the *latest* event with vi's properties follows an
event of every vj, so cnt_i > 0; condition 6 gives the counters of B1
(:func:`all_positive`).

Two incremental maintenances, both with :meth:`enqueue` (add an event at the
end) and :meth:`dequeue` (remove the first event):

- :class:`PaperStatistics`: the update rule as printed in Sec. 4.3.2, through
  the bit vectors of Sec. 5. Enqueue: if e satisfies the properties of
  ``v ∈ Bi`` and the counters of all variables of Bi−1 are > 0, increment
  cnt_v. Dequeue: decrement the counter of every variable whose properties
  the first event satisfies; a counter of Bi that becomes zero resets the
  counters of all Bj, j > i. It reproduces Fig. 5, but it is not Def. 5: it
  counts an event tied with its predecessor, reads Bi−1's *counters* instead
  of its properties, decrements counters the event never incremented (they
  go negative, or reach zero too early and lose a match in Algorithm 1), and
  keeps counting events that no longer follow any event after a dequeue
  (``docs/errata.md#seed-001-statistics-update-rule``).
- :class:`SummaryStatistics`: our correction, equal to (8) after every step.
  It keeps, per variable, the queue of W's events with its properties; the
  *threshold* of Bi is the latest of the first timestamps of Bi−1's queues.
  Enqueue increments cnt_v iff e is strictly later than the threshold.
  Dequeue decrements the counters of B1 it hits and recounts, against the
  new threshold, the one set after each set whose first event moved; this
  replaces the paper's reset (a recount is zero when some variable of Bi−1
  has no event left). The removed event was never counted in a later set:
  nothing in W precedes it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping, Sequence

from kleene.reference.errors import StreamError
from kleene.reference.events import Event
from kleene.reference.ses.filtering import satisfies
from kleene.reference.ses.pattern import SESPattern

Counters = dict[str, int]


def summary_statistics(pattern: SESPattern, W: Sequence[Event]) -> Counters:
    """S of Def. 5 by definition (8): ``{v: cnt}`` in the order v1, ..., vm."""
    out: Counters = {}
    for i, b in enumerate(pattern.sets):
        previous = pattern.sets[i - 1] if i > 0 else ()
        for v in b:
            out[v.name] = sum(
                1 for ei in W
                if satisfies(pattern, v.name, ei)
                and all(any(satisfies(pattern, vj.name, ej) and ej.ts < ei.ts for ej in W)
                        for vj in previous))
    return out


def all_positive(counters: Mapping[str, int]) -> bool:
    """``cnt1 > 0 ∧ ... ∧ cntm > 0``: by Thm 3 (and its converse) exactly
    conditions 6 ∧ 7 of Thm 2 when the counters are those of Def. 5."""
    return all(c > 0 for c in counters.values())

# ---------------------------------------------------------------- bit vectors (Sec. 5)


def event_bits(pattern: SESPattern, e: Event) -> str:
    """ē: bit j is 1 iff ``e`` satisfies all properties of v_j (Example 13: ē1 = 100)."""
    return "".join("1" if satisfies(pattern, v, e) else "0" for v in pattern.names)


def statistics_bits(counters: Mapping[str, int]) -> str:
    """s̄: bit j is 0 iff cnt_j > 0 (Sec. 5: "a 0 bit means that the counter is
    greater than zero"); 111 for P1's empty window, 001 after e1, e2, e3."""
    return "".join("0" if c > 0 else "1" for c in counters.values())


def set_masks(pattern: SESPattern) -> tuple[str, ...]:
    """b̄_i per set Bi: 1 at the positions of the variables of Bi−1 (b̄1 = 000, b̄2 = 110)."""
    out = []
    for i in range(len(pattern.sets)):
        previous = {v.name for v in pattern.sets[i - 1]} if i > 0 else set()
        out.append("".join("1" if v in previous else "0" for v in pattern.names))
    return tuple(out)

# ---------------------------------------------------------------- incremental forms


class _Maintained:
    """A window W with counters, changed one event at a time (Sec. 4.3.2)."""

    def __init__(self, pattern: SESPattern) -> None:
        self.pattern = pattern
        self.window: deque[Event] = deque()
        self.counters: Counters = {v: 0 for v in pattern.names}

    @property
    def bits(self) -> str:
        """s̄ of the current counters."""
        return statistics_bits(self.counters)

    def enqueue(self, e: Event) -> None:
        """Add ``e`` at the end of W (it must follow W's last event in stream order)."""
        if self.window and (e.position <= self.window[-1].position
                            or e.ts < self.window[-1].ts):
            raise StreamError(f"event {e.position} (ts {e.ts}) cannot follow event "
                              f"{self.window[-1].position} (ts {self.window[-1].ts})",
                              row=e.position)
        self.window.append(e)
        self._added(e)

    def dequeue(self) -> Event:
        """Remove and return W's first event."""
        if not self.window:
            raise StreamError("cannot dequeue from an empty match window")
        d = self.window.popleft()
        self._removed(d)
        return d

    def _added(self, e: Event) -> None:
        raise NotImplementedError

    def _removed(self, d: Event) -> None:
        raise NotImplementedError


class PaperStatistics(_Maintained):
    """The update rule of Sec. 4.3.2 as printed, in the bit-vector form of Sec. 5.

    Enqueue reads s̄ *before* the event's own increments (one AND per set:
    ``s̄ ∧ b̄_i = 0``); dequeue first decrements, then applies the resets of the
    counters that became zero. Counters may go negative (the rule decrements
    without asking whether the event was counted).
    """

    def _added(self, e: Event) -> None:
        s = int(self.bits, 2)
        masks = set_masks(self.pattern)
        for v, bit in zip(self.pattern.names, event_bits(self.pattern, e), strict=True):
            if bit == "1" and s & int(masks[self.pattern.set_index(v)], 2) == 0:
                self.counters[v] += 1

    def _removed(self, d: Event) -> None:
        bits = event_bits(self.pattern, d)
        hit = [v for v, bit in zip(self.pattern.names, bits, strict=True) if bit == "1"]
        for v in hit:
            self.counters[v] -= 1
        for v in hit:
            if self.counters[v] == 0:
                for later in self.pattern.sets[self.pattern.set_index(v) + 1:]:
                    for w in later:
                        self.counters[w.name] = 0


class SummaryStatistics(_Maintained):
    """Def. 5 maintained incrementally: ``counters == summary_statistics(W)`` after every step."""

    def __init__(self, pattern: SESPattern) -> None:
        super().__init__(pattern)
        self.qualifying: dict[str, deque[Event]] = {v: deque() for v in pattern.names}

    def threshold(self, i: int) -> int | float | None:
        """For set index ``i`` ≥ 1: the latest first timestamp among Bi−1's queues
        (``None`` when one is empty: nothing follows an event of every vj)."""
        firsts = [self.qualifying[v.name][0].ts if self.qualifying[v.name] else None
                  for v in self.pattern.sets[i - 1]]
        return None if None in firsts else max(t for t in firsts if t is not None)

    def _later_than_threshold(self, i: int, e: Event) -> bool:
        t = self.threshold(i) if i > 0 else None
        return i == 0 or (t is not None and t < e.ts)

    def _added(self, e: Event) -> None:
        hit = [v for v in self.pattern.names if satisfies(self.pattern, v, e)]
        for v in hit:
            self.qualifying[v].append(e)
        for v in hit:
            if self._later_than_threshold(self.pattern.set_index(v), e):
                self.counters[v] += 1

    def _removed(self, d: Event) -> None:
        moved: set[int] = set()
        for v in self.pattern.names:
            queue = self.qualifying[v]
            if queue and queue[0].position == d.position:
                queue.popleft()
                i = self.pattern.set_index(v)
                if i == 0:
                    self.counters[v] -= 1
                moved.add(i + 1)
        for i in sorted(moved):
            if i < len(self.pattern.sets):
                for w in self.pattern.sets[i]:
                    self.counters[w.name] = sum(
                        1 for x in self.qualifying[w.name] if self._later_than_threshold(i, x))


def replay(statistics: PaperStatistics | SummaryStatistics,
           trace: Iterable[tuple[str, Event]]) -> Counters:
    """Apply ``("enqueue", e)`` / ``("dequeue", e)`` steps (the dequeued event must
    be ``e``, W's first) and return the final counters."""
    for op, e in trace:
        if op == "enqueue":
            statistics.enqueue(e)
        elif op == "dequeue":
            if not statistics.window or statistics.window[0].position != e.position:
                first = statistics.window[0].position if statistics.window else None
                raise StreamError(f"dequeue names event {e.position}, but W's first event is "
                                  f"{first}", row=e.position)
            statistics.dequeue()
        else:
            raise StreamError(f"unknown step {op!r}; use 'enqueue' or 'dequeue'")
    return dict(statistics.counters)
