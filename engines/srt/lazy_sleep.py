"""The DSRT with marks over the columns of a loaded stream with a per-state schedule
(seed 004, report Alg. 1 over the DSRT of Thm 41 / Alg. 7,
:mod:`kleene.engines.srt.lazy_dsrt`): a configuration *sleeps* until the next row one of
its state's guards can take, as ``srt``'s groups do (:mod:`kleene.engines.srt.agenda`).

Each DSRT state carries a *mask*: the bits of the head-only conditions
(:func:`~kleene.engines.srt.skip.skipping`, the bits of
:func:`~kleene.engines.srt.columns.candidates`) of its members' transitions whose guard
is not ``TRUE``. On a row whose bits miss the mask, no such transition of any member can
fire: the row is idle *for that state*, its minterm is the state's clocks (every other
atom a guard, false there; :meth:`~kleene.engines.srt.lazy_dsrt.LazyDSRT.idle_bits`), and
it is read by timestamp, as a stretch of idle rows is (:meth:`Pass.stretch`: a clock
minterm that leaves the configuration as it is holds on a prefix of the rows, found by
bisection). So a configuration is touched only on the candidate rows its own state can
take, and where its clocks change its minterm (it dies at the end of its window). A
state with another live atom on idle rows (an ``unless`` test) has every bit in its
mask and is stepped on each idle row's event, as before. A fresh run (policy
``stream``) starts only on the rows the start state's mask meets: on any other it would
self-loop unmarked or die, and is the same as the fresh run of the next such row.
Events are built only for the rows some configuration wakes on. The configurations
after each row are those of :class:`Pass`'s row-by-row run, so the matches are the same
(tests/test_srt_dsrt_sleep.py)."""

from __future__ import annotations

import heapq
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Iterator
from math import floor, inf

import numpy as np

from kleene.data.columnar import Columns
from kleene.data.source import columns_of_source
from kleene.engines.protocol import Counters
from kleene.engines.srt.agenda import READ, fresh_rows, state_masks, waiting_moves
from kleene.engines.srt.automaton import Held, Registers
from kleene.engines.srt.columns import SMALL, candidates
from kleene.engines.srt.execution import Execution
from kleene.engines.srt.lazy_pass import Automaton, Pass, Step
from kleene.engines.srt.marks import ROOT, Marks, reported, union
from kleene.engines.srt.partition import stream_order
from kleene.reference.budget import Budget
from kleene.reference.events import Event
from kleene.reference.match import Match
from kleene.reference.policies import part_of

Config = tuple[int, Registers]
INT64_MAX = 2**63 - 1


def passes(d: Automaton, events: Iterable[Event], c: Counters, budget: Budget | None,
           by: tuple[str, ...]) -> Iterator[Match]:
    """The matches of ``d`` over ``events``: over a loaded stream's columns by the
    :class:`Schedule`, else one :class:`~kleene.engines.srt.lazy_pass.Pass` event by
    event, or under ``PARTITION BY by`` one per part
    (:func:`~kleene.reference.policies.part_of`)."""
    columns = columns_of_source(events)
    if not by and d.relevant is not None and columns is not None and len(columns) >= SMALL:
        whole = Pass(d, c, budget)
        try:
            yield from Schedule(d, columns, whole).run()
            yield from whole.finish()
        finally:
            whole.flush()
        return
    parts: dict[object, Pass] = {}
    one = None if by else Pass(d, c, budget)
    try:
        for u in events:
            if one is None:
                key = part_of(u, by)
                p = parts.get(key)
                if p is None:
                    p = parts[key] = Pass(d, c, budget)
            else:
                p = one
            found = p.step(u)
            if found:
                yield from found
        ends: set[Match] = set()
        for p in parts.values() if one is None else (one,):
            ends.update(p.finish())
        yield from sorted(ends, key=stream_order)
    finally:
        for p in parts.values() if one is None else (one,):
            p.flush()


class Schedule:
    """The sleeping configurations of one pass over ``columns`` (module docstring).
    Rows are found by their *candidate index* (into :attr:`rows`, the rows some bit holds
    on); a state's candidates are the indexes whose bits meet its mask."""

    def __init__(self, d: Automaton, columns: Columns, p: Pass) -> None:
        assert d.relevant is not None
        self.d, self.p = d, p
        rows, bits = candidates(columns, d.relevant)
        self.rows_np, self.bits_np = rows, bits
        self.rows: list[int] = rows.tolist()
        self.bitl: list[int] = bits.tolist()
        self.chunk: tuple[int, Callable[[int], Event]] | None = None
        self.ts = columns.ts.to_numpy()
        #: the timestamp of a row, a Python number (as the events' own)
        self.stamp: Callable[[int], int | float] = self.ts.item
        self.columns = columns
        self.n = len(self.ts)
        self.member_masks = d.member_masks
        self.masks: list[int] = []                 # per DSRT state, built on need
        self.lists: dict[int, list[int]] = {}      # per mask: its candidate indexes
        self.state_cands: list[list[int]] = []     # per DSRT state: its mask's list
        self.steps: list[dict[int, Step]] = []     # per DSRT state: per row bits
        #: per DSRT state: its clocks' outcomes on an idle row → (stays, target, keep)
        self.idle: list[dict[int, tuple[bool, int, tuple[int, ...] | None]]] = []
        self.wake: dict[int, dict[Config, Marks]] = {}   # candidate index → sleepers
        self.due: list[int] = []                   # the candidate indexes in ``wake``
        self.ended: dict[Config, Marks] = {}       # alive after the last row

    def mask(self, sid: int) -> int:
        """The mask of DSRT state ``sid`` (all bits unless its idle minterm is clocks)."""
        masks = self.masks
        while len(masks) <= sid:
            t = self.d.tables[len(masks)]
            m = 0
            if t.clocks_only:
                for q, _ in t.members:
                    m |= self.member_masks[q]
            else:
                m = -1
            masks.append(m)
        return masks[sid]

    def cands_of(self, sid: int) -> list[int]:
        """The candidate indexes of DSRT state ``sid`` (its mask's; kept per state)."""
        while len(self.state_cands) <= sid:
            k = len(self.state_cands)
            self.state_cands.append(self.candidates_of(self.mask(k)))
            self.steps.append({})
            self.idle.append({})
        return self.state_cands[sid]

    def candidates_of(self, mask: int) -> list[int]:
        """The candidate indexes whose bits meet ``mask``."""
        found = self.lists.get(mask)
        if found is None:
            found = self.lists[mask] = np.flatnonzero(self.bits_np & mask).tolist()
        return found

    def read(self, i: int) -> Event:
        """The event of candidate ``i`` (their cells read :data:`READ` at a time, in order;
        only the attributes an atom the bits do not decide reads)."""
        chunk = self.chunk
        if chunk is None or not chunk[0] <= i < chunk[0] + READ:
            lo = i - i % READ
            chunk = self.chunk = (lo, self.columns.reader(self.rows_np[lo:lo + READ],
                                                          only=self.d.read_attrs)[0])
        return chunk[1](i - chunk[0])

    def advance(self, i: int, runs: Iterable[tuple[Config, Marks]],
                nxt: dict[Config, Marks]) -> list[Marks]:
        """Every configuration of ``runs`` on candidate ``i`` into ``nxt`` (as
        :meth:`Pass._advance`, each atom the row's bits decide read off them); the marks
        it reports."""
        u = self.read(i)
        b = self.bitl[i]
        element: Held | None = None
        reports: list[Marks] = []
        steps = self.steps
        evaluations = 0
        for (sid, regs), marks in runs:
            if sid >= len(steps):
                self.cands_of(sid)
            st = steps[sid].get(b)
            if st is None:
                st = steps[sid][b] = Step.of(self.d, sid, b)
            r = 0
            k = 1
            for test in st.tests:
                if test(u, regs):
                    r |= k
                k <<= 1
            evaluations += len(st.tests)
            outs = st.outs.get(r) or st.out(self.d, sid, r)
            (target, keep, report), (after, kept, _) = outs
            if target >= 0:
                m = Marks(u.position, (marks,))
                if keep is None:
                    key = (target, regs)
                else:
                    if element is None:
                        element = Held(u)
                    key = (target, (None, *((regs + (element,))[j] for j in keep)))
                before = nxt.get(key)
                nxt[key] = m if before is None else union([before, m])
                if report:
                    reports.append(m)
            if after >= 0:
                if kept is None:
                    key = (after, regs)
                else:
                    if element is None:
                        element = Held(u)
                    key = (after, (None, *((regs + (element,))[j] for j in kept)))
                before = nxt.get(key)
                nxt[key] = marks if before is None else union([before, marks])
        self.p.evaluations += evaluations
        return reports

    def place(self, row: int, ci: int, config: Config, marks: Marks) -> None:
        """Put ``config`` (every row before ``row`` read; ``ci`` the first candidate index
        at or after ``row``) to sleep until its state's next candidate row, reading the
        idle rows before it by their timestamps."""
        work: list[tuple[int, int, Config, Marks]] = []
        self._place(row, ci, config, marks, work)
        while work:
            self._place(*work.pop(), work)

    def _place(self, row: int, ci: int, config: Config, marks: Marks,
               work: list[tuple[int, int, Config, Marks]]) -> None:
        """:meth:`place`; a configuration stepped on an idle row's event (a state with
        another live atom than clocks) leaves its successors in ``work``."""
        rows, stamp, tables = self.rows, self.stamp, self.d.tables
        nc = len(rows)
        while True:
            sid, regs = config
            cands = self.state_cands[sid] if sid < len(self.state_cands) \
                else self.cands_of(sid)
            at = bisect_left(cands, ci)
            w = cands[at] if at < len(cands) else nc
            wake = rows[w] if w < nc else self.n
            if row == wake:
                break
            t = tables[sid]
            if not t.clocks_only:                # another live atom: step the event
                after: dict[Config, Marks] = {}
                self.p._advance(self._event(row), ((config, marks),), after)
                if ci < nc and rows[ci] == row:
                    ci += 1
                work.extend((row + 1, ci, key, m) for key, m in after.items())
                return
            # each clock is monotone in the timestamps: the same outcome on the first and
            # the last idle row is its outcome on every idle row between
            first, last = stamp(row), stamp(wake - 1)
            now = end = 0
            k = 1
            for _, slot, bound, inside in t.clocks:
                held = regs[slot]
                if held is not None:
                    h = held.event.ts
                    if (first - h <= bound) == inside:
                        now |= k
                    if (last - h <= bound) == inside:
                        end |= k
                k <<= 1
            idle = self.idle[sid]
            stays, target, keep = idle.get(now) or self._idle_move(sid, now)
            if stays:
                if now == end:
                    break                        # asleep until the wake row
                if (now ^ end).bit_count() == 1:   # one clock changes, once
                    if (idle.get(end) or self._idle_move(sid, end))[1] < 0:
                        return                   # and that kills it
                row = self._clocks_hold(sid, regs, row, wake)
                ci = bisect_left(rows, row, ci, w)
                continue
            self.p.evaluations += len(t.atoms)
            if target < 0:
                return
            config = (target, regs if keep is None else (None, *(regs[j] for j in keep)))
            if ci < nc and rows[ci] == row:
                ci += 1
            row += 1
        if w == nc:
            self._merge(self.ended, config, marks)
            return
        sleepers = self.wake.get(w)
        if sleepers is None:
            self.wake[w] = {config: marks}
            heapq.heappush(self.due, w)
            return
        before = sleepers.get(config)
        sleepers[config] = marks if before is None else union([before, marks])

    def _idle_move(self, sid: int, clocks: int) -> tuple[bool, int, tuple[int, ...] | None]:
        """Where an idle row whose clock outcomes are the bits of ``clocks`` takes a
        configuration of ``sid``: whether it stays as it is, else its unmarked target."""
        found = self.idle[sid].get(clocks)
        if found is None:
            t = self.d.tables[sid]
            bits = [False] * len(t.atoms)
            for k, (a, _, _, _) in enumerate(t.clocks):
                bits[a] = bool(clocks >> k & 1)
            minterm = tuple(bits)
            target, keep, _ = self.d.move(sid, minterm)[1]
            found = self.idle[sid][clocks] = (self.d.unchanged(sid, minterm), target, keep)
        return found

    def _clocks_hold(self, sid: int, regs: Registers, row: int, wake: int) -> int:
        """The first row from ``row`` (before ``wake``, else ``wake``) where a clock of
        state ``sid`` changes: ``ts − r.ts ≤ b`` holds up to a row and fails from it on
        (timestamps never decrease), found by bisection on the timestamps."""
        ts = self.ts
        for _, slot, bound, _ in self.d.tables[sid].clocks:
            held = regs[slot]
            if held is None:
                continue
            h = held.event.ts
            if self.stamp(row) - h > bound:      # failed already: constant from here
                continue
            if type(h) is int and isinstance(bound, int | float) and bound != inf:
                # integer timestamps: t − h is an integer, so t − h ≤ b iff t ≤ h + ⌊b⌋
                # (exact: Python integers, no float rounding; int64 timestamps)
                last = h + floor(bound)
                if last < INT64_MAX:
                    wake = row + int(np.searchsorted(ts[row:wake], last, "right"))
            else:
                stamps = ts[row:wake].tolist()
                wake = row + bisect_right(stamps, bound, key=lambda t: t - h)
        return wake

    @staticmethod
    def _merge(into: dict[Config, Marks], config: Config, marks: Marks) -> None:
        before = into.get(config)
        into[config] = marks if before is None else union([before, marks])

    def _event(self, row: int) -> Event:
        return self.columns.slice(row, row + 1).events(offset=row)[0]

    def fresh(self) -> list[int]:
        """The candidates (indexes into the rows) a fresh run starts on: those where one
        of the SRT's fresh runs can leave a group alive or report, as ``srt`` finds them
        (:func:`~kleene.engines.srt.agenda.fresh_rows`; the DSRT's configurations are
        sets of the SRT's runs, so a fresh DSRT run from any other row dies without a
        report); else every row the start state's mask meets."""
        ex = Execution(self.d.srt, "stream", Counters())
        moves = waiting_moves(ex)
        if moves is None:
            return self.candidates_of(self.mask(self.d.start))
        assert ex.relevant == self.d.relevant
        masks = state_masks(ex)
        bits = self.bits_np
        cand = [np.flatnonzero(bits & m).tolist() for m in masks]
        return fresh_rows(ex, moves, masks, cand, self.rows_np, bits,
                          self.ts)

    def run(self) -> Iterator[Match]:
        """The pass: every candidate row some configuration wakes on (or a fresh run
        starts on) read in order, its reports yielded as it is read."""
        d, p = self.d, self.p
        start: Config = (d.start, (None,))
        fresh = self.fresh() if p.streaming else []
        f = woken = 0
        work: list[tuple[int, int, Config, Marks]] = []
        for config, marks in p.runs.items():
            self.place(0, 0, config, marks)
        p.runs = {}
        while self.due or f < len(fresh):
            i = self.due[0] if self.due else len(self.rows)
            if f < len(fresh) and fresh[f] <= i:
                i = fresh[f]
                f += 1
                sleepers = self.wake.pop(i, None)
                if sleepers is None:
                    sleepers = {}
                else:
                    heapq.heappop(self.due)
                self._merge(sleepers, start, ROOT)
            else:
                heapq.heappop(self.due)
                sleepers = self.wake.pop(i)
            nxt: dict[Config, Marks] = {}
            woken += 1
            reports = self.advance(i, sleepers.items(), nxt)
            p.created += len(nxt)
            p.peak = max(p.peak, len(nxt))
            row = self.rows[i] + 1
            for config, marks in nxt.items():
                self._place(row, i + 1, config, marks, work)
            while work:
                self._place(*work.pop(), work)
            if reports and p.streaming:
                yield from reported(reports, p.budget)
        p.read += self.n
        p.skipped += self.n - woken
        p.runs = self.ended
