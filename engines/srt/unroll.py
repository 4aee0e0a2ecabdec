"""The unrolled SRT of a windowed SREMO: seed 004, report Lemma 46 and Algorithms 3–6
(``ConstructWSRA``, ``Unroll``, ``Unroll0``, ``UnrollK``), the first step of Alg. 7.

:func:`unroll` unrolls the cycles of an ε-free SRT so that no walk is longer
than ``w``: a state is ``(q, d, copies)`` with ``d`` the number of elements
read (the depth) and ``copies`` the depth at which each register was last
written. A write of ``r`` at depth ``d`` writes the register *copy* ``r@d``
(the report's ``CopyOfR``), and a guard reads the copy its path wrote. Every
walk of the result reaches depth ``d`` after exactly ``d`` elements, so on one
string every run that writes ``r@d`` writes the same element (the one at depth
``d``): this is what lets Alg. 7 keep one register per copy in the DSRT.

The walk-length bound is Def. 39 only when the first and the last element of
every accepted string are marked (then ``max(M) − min(M) + 1`` is the length of
the string): :func:`boundary_marked` checks it, and
:func:`kleene.engines.srt.dsrt.compile_dsrt` uses the unrolling only then
(docs/errata.md#seed-004-def39-span-vs-length). All of Wayeb's benchmark
queries are boundary-marked.
"""

from __future__ import annotations

from kleene.engines.srt.automaton import SRT, Edge, trim
from kleene.reference.conditions import Condition, rename
from kleene.reference.errors import Unsupported
from kleene.reference.sremo.expressions import reads

Copies = tuple[tuple[str, int], ...]


def boundary_marked(a: SRT) -> bool:
    """Whether every accepted string starts and ends with a marked element: the start is
    not final, and every transition leaving the start or entering a final state marks."""
    if a.start in a.finals:
        return False
    return all(e.mark for e in a.edges if e.source == a.start or e.target in a.finals)


def longest_walk(a: SRT) -> int | None:
    """The length of the longest walk of ``a`` from its start (``None`` if a cycle is
    reachable from the start): every string ``a`` accepts is at most that long."""
    reach = {a.start}
    todo = [a.start]
    while todo:
        for e in a.out[todo.pop()]:
            if e.target not in reach:
                reach.add(e.target)
                todo.append(e.target)
    entering = dict.fromkeys(reach, 0)
    for q in reach:
        for e in a.out[q]:
            entering[e.target] += 1
    depth = dict.fromkeys(reach, 0)
    ready = [q for q in reach if entering[q] == 0]   # the start, unless on a cycle
    done = 0
    while ready:                                     # Kahn's order: longest depths
        q = ready.pop()
        done += 1
        for e in a.out[q]:
            depth[e.target] = max(depth[e.target], depth[q] + 1)
            entering[e.target] -= 1
            if entering[e.target] == 0:
                ready.append(e.target)
    return max(depth.values()) if done == len(reach) else None


def copy_name(register: str, depth: int) -> str:
    """The copy of ``register`` written at ``depth`` (report Alg. 6, ``CopyOfR``)."""
    return f"{register}@{depth}"


def _renamed(c: Condition, copies: dict[str, int]) -> Condition:
    mapping = {r: copy_name(r, copies[r]) for r in reads(c) if r in copies}
    return rename(c, mapping) if mapping else c


def unroll(a: SRT, w: int, max_states: int) -> SRT:
    """The acyclic SRT of the walks of ``a`` of length at most ``w`` (Algs. 4–6)."""
    if any(e.clocks for e in a.edges):
        raise Unsupported("unrolling a time window is not possible: it bounds time, not "
                          "the number of elements (report Alg. 4 needs a count window)")
    start: tuple[int, int, Copies] = (a.start, 0, ())
    index: dict[tuple[int, int, Copies], int] = {start: 0}
    todo = [start]
    edges: list[Edge] = []
    while todo:
        node = todo.pop()
        q, d, copies = node
        if d == w:
            continue
        held: dict[str, int] = dict(copies)
        for e in a.out[q]:
            after = dict(held)
            for r in e.writes:
                after[r] = d
            key = (e.target, d + 1, tuple(sorted(after.items())))
            if key not in index:
                if len(index) >= max_states:
                    raise Unsupported(f"unrolling the window [1..{w}] needs more than "
                                      f"{max_states} states (the cap)")
                index[key] = len(index)
                todo.append(key)
            edges.append(Edge(index[node], index[key], _renamed(e.guard, held), e.mark,
                              tuple(copy_name(r, d) for r in e.writes),
                              tuple(_renamed(c, held) for c in e.unless)))
    finals = frozenset(i for (q, _, _), i in index.items() if q in a.finals)
    return trim(SRT(len(index), 0, finals, tuple(edges)))
