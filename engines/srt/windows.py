"""Windows on an SRT: seed 004, report Def. 39 (count windows), Alg. 4 (unrolling) and
Kleene's time windows (docs/semantics.md, "SREMO time windows").

Count windows. Def. 39 bounds the *marked* positions of a match:
``max(M) − min(M) + 1 ≤ w``. The report's Alg. 4 unrolls the SRT so that no
walk is longer than ``w``; that bounds the length of the whole string, which
is Def. 39 only when every element read is marked and the string starts and
ends with a marked element (all of Wayeb's patterns; not ``(⊤↑⊗)* · φ↑•``,
see ``docs/errata.md#seed-004-def39-span-vs-length``). :func:`count_window` unrolls
the SRT against a counter that measures what Def. 39 measures: each state
``q`` becomes ``(q, c)`` with

- ``c = ⊥`` before the first marked element (any number of unmarked ones);
- ``c = d ∈ 0..w−1``: ``d`` elements read since the first marked one, which
  was at distance ``d``; a marking transition is kept only if ``d + 1 ≤ w − 1``;
- ``c = ⊤``: the window has passed: only non-marking transitions are left.

So the result has at most ``|Q|·(w + 2)`` states and, like Alg. 4's, no cycle
through a marking transition; it is capped (:class:`Unsupported` names the cap).

Time windows (our extension): a hidden register ``@wN`` stores the window's
first marked element; each later transition tests ``~.ts − @wN.ts ≤ bound``
(:class:`~kleene.engines.srt.automaton.Clock`), marking ones only inside the
window, non-marking ones moving to a ``⊤`` copy once outside. ``bound`` is τ
(inclusive reading) or the largest number below τ (strict reading).
"""

from __future__ import annotations

from kleene.engines.srt.automaton import SRT, Clock, Edge, trim
from kleene.reference.errors import Unsupported

BOTTOM = -1


def count_window(a: SRT, w: int, max_states: int) -> SRT:
    """``a[1..w]`` (Def. 39) by unrolling against the mark counter described above."""
    top = w
    index: dict[tuple[int, int], int] = {(a.start, BOTTOM): 0}
    todo = [(a.start, BOTTOM)]
    edges: list[Edge] = []
    while todo:
        q, c = todo.pop()
        for e in a.out[q]:
            if c == BOTTOM:
                c2 = 0 if e.mark else BOTTOM
            elif c == top:
                if e.mark:
                    continue
                c2 = top
            else:
                d = c + 1
                if e.mark and d > w - 1:
                    continue
                c2 = min(d, top)
            key = (e.target, c2)
            if key not in index:
                if len(index) >= max_states:
                    raise Unsupported(f"unrolling the window [1..{w}] needs more than "
                                      f"{max_states} states (the cap)")
                index[key] = len(index)
                todo.append(key)
            edges.append(e.moved(index[(q, c)], index[key]))
    finals = frozenset(i for (q, _), i in index.items() if q in a.finals)
    return trim(SRT(len(index), 0, finals, tuple(edges)))


def time_window(a: SRT, bound: int | float, register: str) -> SRT:
    """``a`` within a time window: the timestamps of its marked elements span at most
    ``bound`` (see the module docstring)."""
    outside, inside, passed = 0, 1, 2
    n = a.size
    edges: list[Edge] = []

    def at(q: int, s: int) -> int:
        return q + s * n
    for e in a.edges:
        p, q = e.source, e.target
        if e.mark:
            if bound >= 0:  # a single mark spans 0: within τ unless the strict τ is 0
                edges.append(Edge(at(p, outside), at(q, inside), e.guard, True,
                                  e.writes + (register,), e.unless, e.clocks))
            edges.append(Edge(at(p, inside), at(q, inside), e.guard, True, e.writes, e.unless,
                              e.clocks + (Clock(register, bound),)))
        else:
            edges.append(e.moved(at(p, outside), at(q, outside)))
            edges.append(Edge(at(p, inside), at(q, inside), e.guard, False, e.writes,
                              e.unless, e.clocks + (Clock(register, bound),)))
            edges.append(Edge(at(p, inside), at(q, passed), e.guard, False, e.writes,
                              e.unless, e.clocks + (Clock(register, bound, inside=False),)))
            edges.append(e.moved(at(p, passed), at(q, passed)))
    finals = frozenset(at(f, s) for f in a.finals for s in (outside, inside, passed))
    return trim(SRT(3 * n, at(a.start, outside), finals, tuple(edges)))
