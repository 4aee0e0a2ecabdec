"""Sleeping groups: the streaming run of an SRT (seed 004, report Alg. 1) over the
columns of a loaded stream, where a group of runs is woken only on the rows that
one of its state's guards can take.

A group ``(q, v)`` of :class:`~kleene.engines.srt.run.Execution` whose state ``q``
is *still* (``Execution.still``: no ``TRUE`` transition, or one unmarked ``TRUE``
self-loop writing nothing whose clocks are all "inside") does nothing on a row
whose bits (:func:`~kleene.engines.srt.columns.candidates`) satisfy no head of
``q``'s other transitions: it takes the self-loop if its clocks hold, else dies.
The clocks ``~.ts − r.ts ≤ b`` are monotone in the timestamp, which never
decreases along the stream, so the group survives every row up to ``j`` iff
its clocks hold on row ``j − 1``'s timestamp. Hence, after reading row ``i``, a
group in ``q`` *sleeps* until ``next_q(i)``, the next row where a head of ``q``
holds (per-state candidate lists, ``bisect``), and is dropped at once if it
cannot survive the rows in between (no self-loop and ``next_q(i) > i + 1``, or
its clocks fail on the row before ``next_q(i)``). Groups that reach the same
``(q', v')`` sleep until the same row and are merged, as
:meth:`~kleene.engines.srt.run.Execution.advance` merges them. A fresh run (the
``⊤*`` prefix of ``T_s``) is due on the rows where a head of the start state
holds; on every other row it would die at once or only self-loop with nothing
marked, which changes no report.

A woken row is read exactly as :meth:`Execution.advance` reads it (same
transitions, :meth:`Execution.edges_for`), so the matches are those of the
row-by-row run (tests/test_srt_columns.py compares both with the reference).
Used for policy ``stream`` when every state is still (every Wayeb query:
skip-till-any gaps are ``TRUE`` self-loops, time windows "inside" clocks).
"""

from __future__ import annotations

import heapq
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

from kleene.engines.srt.columns import SMALL, candidates
from kleene.engines.srt.skip import head_condition
from kleene.reference.conditions import TRUE
from kleene.reference.events import Event
from kleene.reference.match import Match

#: Candidate rows whose cells are read from the columns at once (events are built
#: only for the rows woken).
READ = 4_096


def waiting_moves(ex: Any) -> list[tuple[tuple, int] | None] | None:
    """Per state its one ``TRUE`` transition as ``(clocks, target)`` (``None``: it has
    none), when sleeping groups are exact for ``ex`` (an
    :class:`~kleene.engines.srt.run.Execution`): policy ``stream``, a column filter,
    at most one ``TRUE`` transition per state with "inside" clocks only, no cycle of
    ``TRUE`` transitions but self-loops, and the start state's a self-loop if any
    (so a fresh run on a row no head of the start holds changes nothing). Else
    ``None``."""
    if not ex.streaming or ex.relevant is None or ex.faithful:
        return None
    moves: list[tuple[tuple, int] | None] = []
    for m in ex.loops:
        if len(m) > 1 or any(not inside for clocks, _ in m for _, _, inside in clocks):
            return None
        moves.append(m[0] if m else None)
    start = moves[ex.a.start]
    if start is not None and start[1] != ex.a.start:
        return None
    for q in range(len(moves)):     # following TRUE moves ends in a self-loop or a halt
        seen: set[int] = set()
        r = q
        while (move := moves[r]) is not None and move[1] != r:
            if r in seen:
                return None
            seen.add(r)
            r = move[1]
    return moves


def state_masks(ex: Any) -> list[int]:
    """Per state, the bits of ``ex.relevant`` one of which a row must satisfy for one
    of the state's transitions other than ``TRUE`` to fire (all bits past
    ``columns.MAX_BITS`` conditions: every candidate row then wakes every state)."""
    index = {c: i for i, c in enumerate(ex.relevant)}
    wide = len(ex.relevant) > 62
    masks = [0] * ex.a.size
    for e in ex.a.edges:
        if e.guard == TRUE and not e.unless:
            continue
        head = head_condition(e)
        assert head is not None
        masks[e.source] |= -1 if wide else 1 << index[head]
    return masks


def fresh_rows(ex: Any, moves: list[tuple[tuple, int] | None], masks: list[int],
               cand: list[list[int]], rows: np.ndarray, bits: np.ndarray,
               stamps: np.ndarray | None) -> list[int]:
    """The candidates (indexes into ``rows``) on which a fresh run can leave a group
    alive or report: :func:`drive_sleeping`'s ``schedule`` computed for every row a
    head of the start state holds on at once (numpy), for the start's transitions
    as a fresh run takes them (registers empty but those it writes). A row is kept
    when a transition whose head holds reports, or when its successor would be woken
    (its state's next candidate is the next row, or after ``TRUE`` moves whose clocks
    hold); the register conjuncts, ``unless`` and clocks of the start's transitions
    themselves are not tested here (such a row is kept and read exactly)."""
    a = ex.a
    starts = np.asarray(cand[a.start], dtype=np.int64)
    if not len(starts) or moves[a.start] is not None:
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
            keep |= woken
            alive &= ~woken
            move = moves[q]
            if move is None or not alive.any():
                break
            clocks, target = move
            for slot, bound, _ in clocks:
                if slot not in written or stamps is None:
                    alive[:] = False
                    break
                t = stamps[np.where(alive, row - 1 if target == q else r + 1, 0)]
                alive &= t - stamps[j0] <= bound
            if target == q:
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
    groups sleep."""

    def __init__(self, moves: list[tuple[tuple, int] | None], cand: list[list[int]],
                 rowl: list[int], stamps: list[Any], n: int) -> None:
        self.moves, self.cand, self.rowl, self.stamps, self.n = moves, cand, rowl, stamps, n
        self.agenda: dict[int, dict[tuple, list]] = {}
        self.heap: list[int] = []
        self.carried: dict[tuple, list] = {}
        self.alive = 0

    def schedule(self, key: tuple, parts: list, r: int, at: int) -> None:
        """The group ``key`` (marks ``parts``) has read row ``r`` (``-1``: none of this
        batch); ``at`` is the first candidate index whose row is past ``r``. It sleeps
        until its state's next candidate row (``n``: the next batch's first row),
        moving along ``TRUE`` transitions and testing their clocks, or is dropped."""
        cand, rowl, moves, stamps, n = self.cand, self.rowl, self.moves, self.stamps, self.n
        q, regs = key
        while True:
            lst = cand[q]
            i = bisect_left(lst, at)
            if i < len(lst):
                w = lst[i]
                row = rowl[w]
            else:
                w, row = -1, n
            if row != r + 1:          # rows r+1 .. row-1 only take q's TRUE move
                move = moves[q]
                if move is None:
                    return
                clocks, target = move
                t = stamps[row - 1 if target == q else r + 1] if clocks else 0
                for slot, bound, _ in clocks:
                    held = regs[slot]
                    if held is None or t - held.event.ts > bound:
                        return
                if target != q:       # read row r+1 by the move, then sleep in target
                    r += 1
                    if at < len(rowl) and rowl[at] == r:
                        at += 1
                    q = target
                    key = (q, regs)
                    continue
            if w < 0:
                self.carried.setdefault(key, []).extend(parts)
                return
            slot_ = self.agenda.get(w)
            if slot_ is None:
                self.agenda[w] = {key: list(parts)}
                heapq.heappush(self.heap, w)
                self.alive += 1
                return
            found = slot_.get(key)
            if found is None:
                slot_[key] = list(parts)
                self.alive += 1
            else:
                found.extend(parts)
            return


def drive_sleeping(ex: Any, moves: list[tuple[tuple, int] | None],
                   batches: Iterable[tuple[int, Any]]) -> Iterator[Match]:
    """Run ``ex`` over ``(offset, columns)`` batches with sleeping groups (module
    docstring; ``moves`` from :func:`waiting_moves`), yielding the reports of each
    woken row as it is read."""
    from kleene.engines.srt.run import ROOT, reported, union

    a = ex.a
    masks = state_masks(ex)
    fresh_key = (a.start, ex.empty)
    relevant = ex.relevant
    need_ts = any(move[0] for move in moves if move is not None)
    carried: dict[tuple, list] = {}
    for start, part in batches:
        n = len(part)
        if n < SMALL:   # the vector kernels' fixed cost exceeds the rows' (a partition)
            ex.groups = {key: parts[0] if len(parts) == 1 else union(parts)
                         for key, parts in carried.items()}
            for u in part.events(offset=start):
                found = ex.step(u)
                if found:
                    ex.flush()
                    yield from found
            carried = {key: [m] for key, m in ex.groups.items()}
            continue
        ex.events += n
        rows, bits = candidates(part, relevant)
        ex.evaluations += n * len(relevant)
        rowl: list[int] = rows.tolist()
        bitl: list[int] = bits.tolist()
        stamps: list[Any] = part.ts.to_pylist() if need_ts else []
        cand: list[list[int]] = [np.flatnonzero(bits & mask).tolist() if mask else []
                                 for mask in masks]
        sleep = Sleepers(moves, cand, rowl, stamps, n)
        schedule = sleep.schedule
        agenda, heap = sleep.agenda, sleep.heap
        old, carried = carried, sleep.carried
        for key, parts in old.items():
            schedule(key, parts, -1, 0)
        starts = fresh_rows(ex, moves, masks, cand, rows, bits,
                            part.ts.to_numpy() if need_ts else None)
        si = 0
        ns = len(starts)
        woken = 0
        readers: dict[int, Callable[[int], Event]] = {}
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
            read = readers.get(p // READ)
            if read is None:
                lo = p - p % READ
                read = readers[p // READ] = part.reader(rows[lo:lo + READ], start)[0]
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
                yield from reported(reports)
        ex.skipped += n - woken
