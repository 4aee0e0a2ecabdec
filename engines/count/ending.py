"""The matches ending at each element of one part, element by element, for the SREMO count
(:mod:`kleene.engines.count.sremo`, docs/counting.md), restartable at any element.

An automaton here is the streaming SRT determinized over (minterm, bit) letters
(:class:`kleene.engines.count.sremo._Determinized`): every mark word reaches one state,
and the matches ending at element ``k`` are the words whose bit at ``k`` is 1 and whose
step there reports. The all-0 word reaches a state ``z`` (it never dies: a run may still
start). An element is ``[position, timestamp, minterm, run, at]`` (:data:`Element`): a
run (``run ≥ 1``) is that many consecutive elements no marking transition takes.

Each counter's :meth:`~Ending.feed` gives the number of matches ending at an element whose
marked positions all lie at or after the last :meth:`~Ending.reset` (the start of the part
without one): the words that are 0 before it. They are those that leave the all-0 word's
state at that point, so a reset puts the count back at ``z``, exactly (a leading unmarked
atom still reads the elements before: ``z`` is where the all-0 word has taken it). CORE's
consumption restarts the count so (:mod:`kleene.engines.count.consume`).

Three counters, each exact:

- :class:`Unwindowed`: no window; the number of words by state, one vector, O(n) per
  element (``n`` the states);
- :class:`Sliding`: a window; ``z_lo · M_lo ⋯ M_{k−1} · report_k`` over the sliding
  window of elements (:class:`~kleene.engines.count.transfer.SlidingProduct`, two stacks),
  O(n²) per element: dense products;
- :class:`PerStart`: a window; the words by their first marked element ``s`` (every word
  that can report has one), a sparse vector per start still in the window; the matches
  ending at ``k`` are those of the starts that fit with ``k``. O(Σ_s entries of s's
  vector) per element: each entry is at least one partial match, so it never does more
  than a listing that keeps partial matches, and on a long sequence of selective guards
  in a time window (CORE's q5: 24 steps within 10 s) it keeps a few starts of a few
  states where the sliding products multiply 48 × 48 matrices.

:func:`counter` chooses between the last two by an estimate: :class:`PerStart` when the
elements that start a word fall, on average, at most ``n`` at a time in the window (each
start's vector has at most ``n`` entries, so its cost is then at most about that of the
O(n²) products), else :class:`Sliding`.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence
from typing import Protocol

from kleene.engines.count.transfer import SlidingProduct, Sparse
from kleene.reference.durations import fits

#: An element of a part: position in the part, timestamp, minterm, the length of the run
#: it stands for (0: one element), and its position in the whole stream (a run: -1).
Element = list[int | float]
Vector = dict[int, int]


class Automaton(Protocol):
    """What a counter reads of the determinized automaton."""

    @property
    def states(self) -> Sequence[object]: ...

    zero: dict[int, list[int | None]]
    one: dict[int, list[int | None]]
    reports: dict[int, list[int]]

    def matrix(self, m: int) -> Sparse: ...

    def zero_power(self, m: int, times: int) -> list[int | None]: ...


class Ending:
    """A counter of one part (the module docstring): ``feed`` each element in order."""

    def __init__(self, automaton: Automaton) -> None:
        self.automaton = automaton
        self.z = 0      # the state of the all-0 word

    def feed(self, element: Element) -> int:
        """The matches ending at ``element`` since the last reset (0 for a run)."""
        m, run = int(element[2]), int(element[3])
        found = 0
        if run:
            f = self.automaton.zero_power(m, run)
            self.skip(f)
            z = f[self.z]
        else:
            found = self.ending(self.where(element), m)
            z = self.automaton.zero[m][self.z]
        assert z is not None   # the all-0 word stays fresh: never dead
        self.z = z
        return found

    def where(self, element: Element) -> int | float:
        """What the window measures of ``element`` (its position; its timestamp)."""
        return element[0]

    def skip(self, f: list[int | None]) -> None:
        """Read a run, whose step is the function ``f`` on states."""
        raise NotImplementedError

    def ending(self, where: int | float, m: int) -> int:
        """Read an element of minterm ``m``: the matches ending there."""
        raise NotImplementedError

    def reset(self) -> None:
        """Count only the matches marking nothing before the next element."""
        raise NotImplementedError


def _apply(v: Vector, f: list[int | None]) -> Vector:
    out: Vector = {}
    for q, c in v.items():
        r = f[q]
        if r is not None:
            out[r] = out.get(r, 0) + c
    return out


def _step(v: Vector, zero: list[int | None], one: list[int | None]) -> Vector:
    out: Vector = {}
    for q, c in v.items():
        a, b = zero[q], one[q]
        if a is not None:
            out[a] = out.get(a, 0) + c
        if b is not None:
            out[b] = out.get(b, 0) + c
    return out


class Unwindowed(Ending):
    """No window: the words by state."""

    def __init__(self, automaton: Automaton) -> None:
        super().__init__(automaton)
        self.vector: Vector = {0: 1}

    def skip(self, f: list[int | None]) -> None:
        self.vector = _apply(self.vector, f)

    def ending(self, where: int | float, m: int) -> int:
        a = self.automaton
        found = sum(self.vector.get(q, 0) for q in a.reports[m])
        self.vector = _step(self.vector, a.zero[m], a.one[m])
        return found

    def reset(self) -> None:
        self.vector = {self.z: 1}


class Windowed(Ending):
    """A window of ``tau`` (``timed``: over timestamps under ``reading``, else over
    positions, inclusive)."""

    def __init__(self, automaton: Automaton, tau: int | float, reading: str,
                 timed: bool) -> None:
        super().__init__(automaton)
        self.tau, self.reading, self.timed = tau, reading, timed

    def where(self, element: Element) -> int | float:
        return element[1] if self.timed else element[0]

    def fit(self, span: int | float) -> bool:
        return fits(span, self.tau, self.reading)


class Sliding(Windowed):
    """The product of the window's matrices (the module docstring)."""

    def __init__(self, automaton: Automaton, tau: int | float, reading: str,
                 timed: bool) -> None:
        super().__init__(automaton, tau, reading, timed)
        self.matrices: dict[int, Sparse] = {}
        self.reset()

    def reset(self) -> None:
        self.held = SlidingProduct(len(self.automaton.states), 0, frozenset())
        # per element held: where, whether a run, the all-0 word's state before it
        self.meta: deque[tuple[int | float, bool, int]] = deque()

    def skip(self, f: list[int | None]) -> None:
        if self.meta:     # at the front of the window a run is dropped at once
            self.held.push(0, [[] if q is None else [(q, 1)] for q in f])
            self.meta.append((0, True, self.z))

    def ending(self, where: int | float, m: int) -> int:
        held, meta = self.held, self.meta
        while meta and (meta[0][1] or not self.fit(where - meta[0][0])):
            held.drop()
            meta.popleft()
        row = held.row(meta[0][2] if meta else self.z)
        found = sum(row[q] for q in self.automaton.reports[m])
        step = self.matrices.get(m)
        if step is None:
            step = self.matrices[m] = self.automaton.matrix(m)
        held.push(0, step)
        meta.append((where, False, self.z))
        return found


class PerStart(Windowed):
    """The words by their first marked element, one vector per start in the window."""

    def __init__(self, automaton: Automaton, tau: int | float, reading: str,
                 timed: bool) -> None:
        super().__init__(automaton, tau, reading, timed)
        self.starts: deque[tuple[int | float, Vector]] = deque()

    def reset(self) -> None:
        self.starts.clear()

    def skip(self, f: list[int | None]) -> None:
        kept = deque((w, v) for w, v in ((w, _apply(v, f)) for w, v in self.starts) if v)
        self.starts = kept

    def ending(self, where: int | float, m: int) -> int:
        a = self.automaton
        starts = self.starts
        while starts and not self.fit(where - starts[0][0]):
            starts.popleft()
        reports = a.reports[m]
        found = int(self.z in reports)      # the word whose first 1 is here
        zero, one = a.zero[m], a.one[m]
        after: deque[tuple[int | float, Vector]] = deque()
        for w, v in starts:
            found += self.reported(v, reports)
            v = _step(v, zero, one)
            if v:
                after.append((w, v))
        first = one[self.z]
        if first is not None:
            after.append((where, {first: 1}))
        self.starts = after
        return found

    def reported(self, v: Vector, reports: list[int]) -> int:
        """What one start's words ending here count for: their number."""
        return sum(v.get(q, 0) for q in reports)


class Intervals(PerStart):
    """The intervals (first and last marked element) holding some match, one vector per
    start: what ``SELECT NEXT|LAST`` keeps (one complex event per such interval,
    :mod:`kleene.engines.count.consume`); ``window`` as :func:`counter` reads it, ``None``
    for none (every start is then kept while its vector lives)."""

    def __init__(self, automaton: Automaton,
                 window: tuple[int | float, str, bool] | None) -> None:
        tau, reading, timed = window if window is not None else (math.inf, "inclusive",
                                                                 False)
        super().__init__(automaton, tau, reading, timed)

    def reported(self, v: Vector, reports: list[int]) -> int:
        """One interval (this start, here) when any of its words ends here."""
        return int(any(v.get(q, 0) for q in reports))


def up_to_last_end(automaton: Automaton, elements: list[Element]) -> list[Element]:
    """``elements`` up to the last whose minterm reports from some state (after it no
    match ends: not read); none when no element does (the part has no match)."""
    for i in range(len(elements) - 1, -1, -1):
        x = elements[i]
        if not x[3] and automaton.reports[int(x[2])]:
            return elements[:i + 1]
    return []


def started(automaton: Automaton, elements: list[Element], tau: int | float, reading: str,
            timed: bool) -> float:
    """The average number of elements of ``elements`` that start a word (a bit-1 step
    from the all-0 word's state) within the window before each element that is not a
    run: what :class:`PerStart` keeps vectors for."""
    z = 0
    opened: deque[int | float] = deque()
    total = elements_read = 0
    for position, ts, mid, run, _ in elements:
        m = int(mid)
        if run:
            z_run = automaton.zero_power(m, int(run))[z]
            assert z_run is not None   # as in Ending.feed
            z = z_run
            continue
        where = ts if timed else position
        while opened and not fits(where - opened[0], tau, reading):
            opened.popleft()
        total += len(opened)
        elements_read += 1
        if automaton.one[m][z] is not None:
            opened.append(where)
        z_next = automaton.zero[m][z]
        assert z_next is not None
        z = z_next
    return total / elements_read if elements_read else 0.0


def counter(automaton: Automaton, elements: list[Element], window: tuple[int | float, str,
            bool] | None) -> Ending:
    """A counter for one part's ``elements`` under ``window`` (τ, reading, timed; ``None``:
    none), chosen by the estimate of the module docstring."""
    if window is None:
        return Unwindowed(automaton)
    tau, reading, timed = window
    if started(automaton, elements, tau, reading, timed) <= len(automaton.states):
        return PerStart(automaton, tau, reading, timed)
    return Sliding(automaton, tau, reading, timed)
