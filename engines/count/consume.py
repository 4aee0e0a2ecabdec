"""The number of complex events a CEQL query with ``SELECT ALL`` outputs under ``CONSUME BY``
and ``LIMIT``, without listing its ``ALL`` set (issue 31 item 2; docs/counting.md).

The definition is the reference's (reference/ceql/selection.py, docs/ceql.md "Strategies
and consumption"): over the ``ALL`` set, from ``r = 0``, the complex events starting at
``r`` or later that end first, at ``j``, are output, and ``r`` becomes ``j + 1`` (``ANY``:
one ``r`` for every partition; ``PARTITION``: one per partition); then ``LIMIT k`` keeps
at most ``k`` of those ending at each position. So, reading the positions in order, with
``c_j(r)`` the number of ``ALL`` complex events ending at ``j`` whose marked positions all
lie at or after ``r``:

- ``NONE``: ``c_j(0)`` are output at ``j``;
- ``ANY``/``PARTITION``: ``c_j(r)`` are output at ``j`` (``r`` of ``j``'s partition under
  ``PARTITION``), and where that is not 0, ``r`` becomes ``j + 1``: the least last
  position of those starting at ``r`` or later is the first ``j`` with ``c_j(r) ≠ 0``;
- ``LIMIT k``: ``min(k, ·)`` of that at each ``j``.

``c_j(r)`` is what the count of one part gives at ``j`` when it is restarted at ``r``
(:meth:`kleene.engines.count.ending.Ending.reset`: the words that are 0 before ``r``), so
the count is linear in the stream as the ``ALL`` count is. The parts are read in the
order of the stream (each element's position in it), the complex events ending at one
position summed before any restart; an ``ANY`` restart reaches another part when it next
reads an element, before the run that precedes that element (a run takes no mark, so
restarting before it or inside it keeps the same words).

The strategies ``NEXT`` and ``LAST`` keep exactly one complex event of each interval (the
same first and last position) that has any (CEL, TODS 2021 Sec. 4: among the complex
events of an interval, the one whose earliest, or latest, differing position is its own:
the sets of one interval are totally ordered so), so under them ``c_j(r)`` is the number of
first positions ``s ≥ r`` from which some complex event ends at ``j``: the per-start
counter read as booleans (:class:`kleene.engines.count.ending.Intervals`); the strategy
comes before the consumption and the limit, as in the reference. ``MAX`` and ``STRICT``
compare the complex events of an interval by inclusion: such a query is listed
(``srt+selection``), and the count says so.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator

from kleene.engines.count.ending import (
    Automaton,
    Element,
    Ending,
    Intervals,
    counter,
    up_to_last_end,
)


def kept(automaton: Automaton, parts: dict[object, list[Element]],
         window: tuple[int | float, str, bool] | None, consumption: str,
         limit: int | None, intervals: bool = False) -> int:
    """The complex events output (module docstring) over the ``parts``' elements of the
    ``ALL`` set's count (``window``: τ, reading, timed, as
    :func:`~kleene.engines.count.ending.counter` reads it); ``consumption`` is ``NONE``,
    ``ANY`` or ``PARTITION`` (one reset per part); ``intervals``: ``SELECT NEXT|LAST``,
    one complex event per interval."""
    tracks: list[tuple[Ending, list[Element]]] = []
    for xs in parts.values():
        xs = up_to_last_end(automaton, xs)
        if xs:
            track = Intervals(automaton, window) if intervals else counter(automaton, xs,
                                                                           window)
            tracks.append((track, xs))
    fed = [0] * len(tracks)
    synced = [0] * len(tracks)    # the restarts of ANY each part has taken
    restarts = 0
    total = 0
    here, output = -1, 0          # a position of the stream, what ends there
    for at, i, k in heapq.merge(*(_ends(i, xs) for i, (_, xs) in enumerate(tracks))):
        if at != here:
            total += output if limit is None else min(output, limit)
            if consumption == "ANY" and output:
                restarts += 1
            here, output = at, 0
        ending, xs = tracks[i]
        if synced[i] < restarts:
            ending.reset()
            synced[i] = restarts
        found = 0
        for x in xs[fed[i]:k + 1]:
            found = ending.feed(x)
        fed[i] = k + 1
        if consumption == "PARTITION" and found:
            ending.reset()
        output += found
    return total + (output if limit is None else min(output, limit))


def _ends(i: int, xs: list[Element]) -> Iterator[tuple[int, int, int]]:
    """``(position in the stream, i, index)`` of each element of ``xs`` that is not a run."""
    for k, x in enumerate(xs):
        if not x[3]:
            yield int(x[4]), i, k
