"""Sleeping groups: the streaming run of an SRT (seed 004, report Alg. 1) over the
columns of a loaded stream, where a group of runs is woken only on the rows that
one of its state's guards can take.

On a row whose bits (:func:`~kleene.engines.srt.columns.candidates`) satisfy no
head of the non-``TRUE`` transitions of its state ``q``, a group of
:class:`~kleene.engines.srt.execution.Execution` only takes ``q``'s ``TRUE``
transitions (unmarked, writing nothing: ``Execution.loops``). When their clocks
are all "inside" (``~.ts − r.ts ≤ b``, monotone in the timestamp, which never
decreases along the stream), a group with a ``TRUE`` self-loop survives every
row up to ``j`` iff its clocks hold on row ``j − 1``. Hence, after reading row
``i``, a group in ``q`` *sleeps* until ``next_q(i)``, the next row where a head
of ``q`` holds (per-state candidate lists, ``bisect``), or is dropped at once if
it cannot survive the rows in between; each other ``TRUE`` transition
``q → t`` sends a copy to ``t`` on row ``i + 1`` (clocks tested there), which is
scheduled the same way. Copies ``q`` would send on later idle rows are the same
runs as the first copy (same state, registers and marks) as long as that copy
lives, which :func:`waiting_moves` ensures by asking ``t`` to have a self-loop
with the clocks of ``q → t``. Groups that reach the same ``(q', v')`` sleep
until the same row and are merged, as
:meth:`~kleene.engines.srt.execution.Execution.advance` merges them. A fresh run (the
``⊤*`` prefix of ``T_s``) is due on the rows where a head of the start state
holds, and of those only where it can leave a live group (:func:`fresh_rows`);
on every other row it would die at once or only self-loop with nothing marked,
which changes no report. A group is also dropped instead of woken when every
transition of its state has an inside clock that fails on the row it would wake
on (:func:`state_expiry`): on a head-filtered stream (what the Spark runner hands
``srt``) no row between tests the self-loop's clocks, and without this test each
group outliving its window was woken by the next candidate row (twice the rows
read on the stock stream's INTC pattern).

A woken row is read by :meth:`Execution.successors`, as every row is read by
:meth:`Execution.advance`, so the matches are those of the row-by-row run
(tests/test_srt_columns.py compares both with the reference). Used for policy
``stream`` when :func:`waiting_moves` allows it: every Wayeb query (skip-till-any
gaps are ``TRUE`` self-loops, time windows "inside" clocks).
"""

from __future__ import annotations

import heapq
from bisect import bisect_left
from collections.abc import Generator, Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from kleene.engines.spans import within_bound
from kleene.engines.srt import columns
from kleene.engines.srt.automaton import SRT, Registers
from kleene.engines.srt.columns import candidates
from kleene.engines.srt.execution import Group
from kleene.engines.srt.marks import ROOT, Marks, reported, union
from kleene.engines.srt.skip import ClockTests, Move, head_condition
from kleene.reference.conditions import TRUE, Condition
from kleene.reference.match import Match

#: Candidate rows whose cells are read from the columns at once (events are built
#: only for the rows woken).
READ = 4_096


#: Groups ``(state, registers)`` and the marks of their runs (scheduled, or carried on).
Asleep = dict[Group, list[Marks]]

#: Per state: the clocks of its ``TRUE`` self-loop (``None``: it has none) and its
#: ``TRUE`` transitions to other states as ``(clocks, target)``.
Waiting = tuple[ClockTests | None, tuple[Move, ...]]


def waiting_moves(ex: Any) -> list[Waiting] | None:
    """Per state its ``TRUE`` transitions (:data:`Waiting`), when sleeping groups are
    exact for ``ex`` (an :class:`~kleene.engines.srt.execution.Execution`), else ``None``:
    policy ``stream``, a column filter, "inside" clocks only, no cycle of ``TRUE``
    transitions but self-loops, the start state's a self-loop if any (so a fresh run
    on a row no head of the start holds changes nothing), and a state with a
    self-loop moves on ``TRUE`` only to states with a self-loop of the same clocks
    (so the copy it sends on its first idle row stands for those of later rows)."""
    if not ex.streaming or ex.relevant is None or ex.faithful:
        return None
    moves: list[Waiting] = []
    for q, m in enumerate(ex.loops):
        if any(not inside for clocks, _ in m for _, _, inside in clocks):
            return None
        loops = [clocks for clocks, target in m if target == q]
        if len(loops) > 1:
            return None
        moves.append((loops[0] if loops else None,
                      tuple((clocks, t) for clocks, t in m if t != q)))
    if moves[ex.a.start][1]:
        return None
    for loop, others in moves:
        if loop is not None and any(moves[t][0] != clocks for clocks, t in others):
            return None
    done: set[int] = set()
    for q in range(len(moves)):     # no cycle of TRUE moves but self-loops (DFS)
        path: set[int] = set()
        todo = [(q, iter(moves[q][1]))]
        path.add(q)
        while todo:
            state, it = todo[-1]
            step = next(it, None)
            if step is None:
                todo.pop()
                path.discard(state)
                done.add(state)
                continue
            t = step[1]
            if t in path:
                return None
            if t not in done:
                path.add(t)
                todo.append((t, iter(moves[t][1])))
    return moves


def state_masks(ex: Any) -> list[int]:
    """Per state of ``ex.a``, :func:`srt_masks` over ``ex.relevant``."""
    return srt_masks(ex.a, ex.relevant)


def srt_masks(srt: SRT, relevant: Sequence[Condition]) -> list[int]:
    """Per SRT state, the bits of ``relevant`` one of which a row must satisfy for one
    of the state's transitions other than ``TRUE`` to fire (all bits past
    ``columns.MAX_BITS`` conditions: every candidate row then wakes every state)."""
    index = {c: i for i, c in enumerate(relevant)}
    wide = len(relevant) > columns.MAX_BITS
    masks = [0] * srt.size
    for e in srt.edges:
        if e.guard == TRUE and not e.unless:
            continue
        head = head_condition(e)
        assert head is not None
        masks[e.source] |= -1 if wide else 1 << index[head]
    return masks


#: Per state, the "inside" clocks ``(slot, bound)`` of each of its transitions, or
#: ``None`` when one of them has none (a group there never expires by time).
Expiry = tuple[tuple[tuple[int, Any], ...], ...] | None


def state_expiry(ex: Any) -> list[Expiry]:
    """Per state of ``ex.a`` its :data:`Expiry`: a group in state ``q`` whose every
    transition has an inside clock failing at timestamp ``t`` (register ``♯`` or
    ``t − r.ts > b``) can fire none of them on any element from ``t`` on (timestamps
    never decrease), so it is dropped instead of woken (:meth:`Sleepers.schedule`)."""
    found: list[Expiry] = []
    for q in range(ex.a.size):
        edges = [tuple((ex.slots[c.register], c.bound) for c in e.clocks if c.inside)
                 for e in ex.a.out[q]]
        found.append(tuple(edges) if edges and all(edges) else None)
    return found


def expired(expiry: Expiry, regs: Registers, t: Any) -> bool:
    """Whether every transition of :data:`Expiry` ``expiry`` has a clock failing at ``t``."""
    if expiry is None:
        return False
    for clocks in expiry:
        for slot, bound in clocks:
            held = regs[slot]
            if held is None or t - held.event.ts > bound:
                break
        else:
            return False
    return True


def live_rows(expiry: Expiry, written: set[int], t: np.ndarray, t0: np.ndarray) -> np.ndarray:
    """:func:`expired` negated for fresh runs at once: registers ``written`` hold the
    events of timestamps ``t0`` (the others ``♯``), read at timestamps ``t``."""
    if expiry is None:
        return np.ones(len(t), dtype=bool)
    live = np.zeros(len(t), dtype=bool)
    for clocks in expiry:
        if all(slot in written for slot, _ in clocks):
            ok = np.ones(len(t), dtype=bool)
            for _, bound in clocks:
                ok &= within_bound(t - t0, bound)
            live |= ok
    return live


def fresh_rows(ex: Any, moves: list[Waiting], masks: list[int],
               cand: list[list[int]], rows: np.ndarray, bits: np.ndarray,
               stamps: np.ndarray | None) -> list[int]:
    """The candidates (indexes into ``rows``) on which a fresh run can leave a group
    alive or report: :func:`drive_sleeping`'s ``schedule`` computed for every row a
    head of the start state holds on at once (numpy), for the start's transitions
    as a fresh run takes them (registers empty but those it writes). A row is kept
    when a transition whose head holds reports, or when its successor would be woken
    (its state's next candidate is the next row, or after ``TRUE`` moves whose clocks
    hold); the register conjuncts, ``unless`` and clocks of the start's transitions
    themselves are not tested here (such a row is kept and read exactly); a row whose
    successor would have :func:`expired` when woken is not kept."""
    a = ex.a
    expiry = ex.memo("expiry", lambda: state_expiry(ex))
    starts = np.asarray(cand[a.start], dtype=np.int64)
    if not len(starts) or moves[a.start][0] is not None:
        return cand[a.start]
    n = len(stamps) if stamps is not None else int(rows[-1]) + 1 if len(rows) else 0
    index = {c: i for i, c in enumerate(ex.relevant)}
    wide = len(ex.relevant) > 62
    at_rows = [rows[np.asarray(c, dtype=np.int64)] for c in cand]
    j0 = rows[starts]
    b0 = bits[starts]
    keep = np.zeros(len(starts), dtype=bool)
    for e in a.out[a.start]:
        if e.guard == TRUE and not e.unless:
            continue
        head = head_condition(e)
        alive = np.ones(len(starts), dtype=bool) if wide else \
            (b0 >> index[head]) & 1 == 1
        if e.mark and e.target in a.finals:
            keep |= alive
            continue
        written = {ex.slots[r] for r in e.writes}
        q, r = e.target, j0
        for _ in range(a.size + 1):
            ahead = at_rows[q]
            if len(ahead):
                nxt = np.searchsorted(ahead, r + 1)
                row = np.where(nxt < len(ahead), ahead[np.minimum(nxt, len(ahead) - 1)], n)
            else:
                row = np.full(len(starts), n, dtype=np.int64)
            woken = alive & (row == r + 1)
            live = woken if stamps is None else \
                live_rows(expiry[q], written, stamps[np.minimum(row, n - 1)], stamps[j0])
            keep |= woken & live
            alive &= ~woken
            loop, others = moves[q]
            if len(others) > 1 or (others and loop is not None):
                keep |= alive       # the copies fork: not followed here (kept, read exactly)
                break
            if not alive.any() or (loop is None and not others):
                break
            clocks, target = others[0] if others else (loop, q)
            for slot, bound, _ in clocks:
                if slot not in written or stamps is None:
                    alive[:] = False
                    break
                t = stamps[np.where(alive, row - 1 if target == q else r + 1, 0)]
                alive &= within_bound(t - stamps[j0], bound)
            if target == q:
                if stamps is not None:
                    alive &= (row >= n) | live_rows(expiry[q], written,
                                                    stamps[np.minimum(row, n - 1)], stamps[j0])
                keep |= alive
                break
            q, r = target, r + 1
        else:
            keep |= alive
    return starts[keep].tolist()


class Sleepers:
    """The sleeping groups of one batch of ``n`` rows: ``agenda[w]`` holds the groups
    (``(state, registers)`` → marks to unite) woken on candidate ``w``, ``heap`` those
    ``w``, ``carried`` the groups alive after the batch's last row, ``alive`` how many
    groups sleep; ``expiry`` per state (:func:`state_expiry`)."""

    def __init__(self, moves: list[Waiting], cand: list[list[int]],
                 rowl: list[int], stamps: list[Any], n: int, expiry: list[Expiry]) -> None:
        self.moves, self.cand, self.rowl, self.stamps, self.n = moves, cand, rowl, stamps, n
        self.expiry = expiry
        self.agenda: dict[int, Asleep] = {}
        self.heap: list[int] = []
        self.carried: Asleep = {}
        self.alive = 0

    def schedule(self, key: Group, parts: list[Marks], r: int, at: int) -> None:
        """The group ``key`` (marks ``parts``) has read row ``r`` (``-1``: none of this
        batch); ``at`` is the first candidate index whose row is past ``r``. It sleeps
        until its state's next candidate row (``n``: the next batch's first row) if it
        has a ``TRUE`` self-loop whose clocks hold until then, after sending a copy
        along each other ``TRUE`` transition on row ``r + 1`` (clocks tested there),
        and is dropped if it has :func:`expired` by that row's timestamp (on a
        filtered stream, where no row between tests the self-loop's clocks)."""
        q, regs = key
        lst = self.cand[q]
        i = bisect_left(lst, at)
        if i < len(lst):
            w = lst[i]
            row = self.rowl[w]
        else:
            w, row = -1, self.n
        if row != r + 1:              # rows r+1 .. row-1 only take q's TRUE moves
            loop, others = self.moves[q]
            stamps = self.stamps
            if others:
                nxt = at + 1 if at < len(self.rowl) and self.rowl[at] == r + 1 else at
                for clocks, target in others:
                    if holds(clocks, regs, stamps[r + 1] if clocks else 0):
                        self.schedule((target, regs), parts, r + 1, nxt)
            if loop is None or not holds(loop, regs, stamps[row - 1] if loop else 0):
                return
        if w < 0:
            self.carried.setdefault(key, []).extend(parts)
            return
        if self.stamps and expired(self.expiry[q], regs, self.stamps[row]):
            return
        slot = self.agenda.get(w)
        if slot is None:
            self.agenda[w] = {key: list(parts)}
            heapq.heappush(self.heap, w)
            self.alive += 1
            return
        found = slot.get(key)
        if found is None:
            slot[key] = list(parts)
            self.alive += 1
        else:
            found.extend(parts)


def holds(clocks: ClockTests, regs: Registers, t: Any) -> bool:
    """Whether the clocks ``(slot, bound, inside)`` (all inside) hold at timestamp ``t``."""
    for slot, bound, _ in clocks:
        held = regs[slot]
        if held is None or t - held.event.ts > bound:
            return False
    return True


def drive_sleeping(ex: Any, moves: list[Waiting],
                   batches: Iterable[tuple[int, Any]]) -> Iterator[Match]:
    """Run ``ex`` over ``(offset, columns)`` batches with sleeping groups (module
    docstring; ``moves`` from :func:`waiting_moves`), yielding the reports of each
    woken row as it is read."""
    masks = ex.memo("masks", lambda: state_masks(ex))
    expiry = ex.memo("expiry", lambda: state_expiry(ex))
    need_ts = any(loop or any(clocks for clocks, _ in others) for loop, others in moves) \
        or any(x is not None for x in expiry)
    carried: Asleep = {}
    for start, part in batches:
        n = len(part)
        if n < columns.SMALL:   # the vector kernels' fixed cost exceeds the rows' (a partition)
            ex.groups = {key: parts[0] if len(parts) == 1 else union(parts)
                         for key, parts in carried.items()}
            for u in part.events(offset=start):
                found = ex.step(u)
                if found:
                    ex.flush()
                    yield from found
            carried = {key: [m] for key, m in ex.groups.items()}
            continue
        carried = yield from sleep_batch(ex, moves, masks, expiry, need_ts, start, part,
                                         carried)


def sleep_batch(ex: Any, moves: list[Waiting], masks: list[int], expiry: list[Expiry],
                need_ts: bool, start: int, part: Any,
                carried: Asleep) -> Generator[Match, None, Asleep]:
    """:func:`drive_sleeping` on the batch ``part`` (rows from position ``start``), the
    groups ``carried`` from the previous batch woken first; returns the groups alive
    after its last row (what it built for its rows is freed before the next batch's)."""
    a = ex.a
    fresh_key = (a.start, ex.empty)
    n = len(part)
    ex.events += n
    rows, bits = candidates(part, ex.relevant)
    ex.evaluations += n * len(ex.relevant)
    rowl: list[int] = rows.tolist()
    bitl: list[int] = bits.tolist()
    stamps: list[Any] = part.ts.to_pylist() if need_ts else []
    by_mask: dict[int, list[int]] = {0: []}    # states sharing heads share their list
    for mask in masks:
        if mask not in by_mask:
            by_mask[mask] = np.flatnonzero(bits & mask).tolist()
    cand = [by_mask[mask] for mask in masks]
    sleep = Sleepers(moves, cand, rowl, stamps, n, expiry)
    schedule = sleep.schedule
    agenda, heap = sleep.agenda, sleep.heap
    for key, parts in carried.items():
        schedule(key, parts, -1, 0)
    starts = fresh_rows(ex, moves, masks, cand, rows, bits,
                        part.ts.to_numpy() if need_ts else None)
    si = 0
    ns = len(starts)
    woken = 0
    chunk, read = -1, None    # the candidates are read in order: one chunk at a time
    while True:
        if si < ns and (not heap or starts[si] <= heap[0]):
            p = starts[si]
            si += 1
            fresh = True
        elif heap:
            p = heap[0]
            fresh = False
        else:
            break
        due = agenda.pop(p, None)
        if due is None:
            due = {}
        else:
            heapq.heappop(heap)
            sleep.alive -= len(due)
        if fresh:
            held_parts = due.get(fresh_key)
            if held_parts is None:
                due[fresh_key] = [ROOT]
            else:
                held_parts.append(ROOT)
        if p // READ != chunk or read is None:
            chunk, lo = p // READ, p - p % READ
            read = part.reader(rows[lo:lo + READ], start)[0]
        u = read(p % READ)
        woken += 1
        nxt, reports = ex.successors(
            ((key, parts[0] if len(parts) == 1 else union(parts))
             for key, parts in due.items()), u, bitl[p])
        j = rowl[p]
        for key, parts in nxt.items():
            schedule(key, parts, j, p + 1)
        if sleep.alive > ex.peak:
            ex.peak = sleep.alive
        if reports:
            ex.flush()
            yield from reported(reports, ex.budget)
    ex.skipped += n - woken
    return sleep.carried
