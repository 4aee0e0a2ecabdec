"""The Tree NFA over a loaded stream's columns: the chain's plan, re-planned as rates drift.

Seed 003 Sec. 7: the Tree NFA evaluates the event types in ascending order
of their *current* frequencies, "chosen on-the-fly", so that it follows
rates that change (Sec. 8.3, Fig. 18). Over columns (:mod:`.join`) the
candidates of a piece (:mod:`.pieces`) are read before they are matched,
so their frequencies are known block by block: a piece's report range
``[lo, hi)`` (the first timestamps of the matches it reports) is cut into
blocks of :data:`BLOCK` candidate rows. The current σ is kept unless the
block's own order (its slots' candidate counts ascending, as :func:`.join.order`
orders a whole piece) is clearly better (:func:`better`, the root switch rule
of :mod:`.tree` at the first slot where the orders differ; a switch is a
re-plan). The counts are the block's own, read before it is matched, where
the event-by-event tree reads the window behind the current event.
Consecutive blocks with one σ form one *span*, computed by :func:`.join.run`
with ``[lo, hi)`` narrowed to the span: between two re-plans the tree costs
exactly what the chain of that σ costs over the span.

Every match is reported once, with the same events: the spans partition the
first timestamps (as pieces do, :mod:`.pieces`), and Sec. 6's equivalence
makes each span's matches independent of its σ.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from kleene.engines.nfa.join import Scan
from kleene.engines.nfa.partial import Plan
from kleene.engines.nfa.tree import SWITCH_RATIO
from kleene.engines.spans import searched

#: Candidate rows (all slots together) per block whose counts choose σ.
BLOCK = 1_000


def better(best: tuple[int, ...], sigma: tuple[int, ...], counts: list[int]) -> bool:
    """Whether to re-plan from ``sigma`` to ``best`` (the block's ascending order): at
    the first place they differ, ``best``'s slot has at most :data:`~.tree.SWITCH_RATIO`
    times the candidates of ``sigma``'s (the root switch rule of :mod:`.tree`)."""
    for b, s in zip(best, sigma, strict=True):
        if b != s:
            return counts[b] < SWITCH_RATIO * counts[s]
    return False


def spans(plan: Plan, found: Scan, current: tuple[int, ...] | None, block: int = BLOCK,
          ) -> Iterator[tuple[int | float, int | float, tuple[int, ...]]]:
    """``(lo, hi, σ)`` covering ``[found.lo, found.hi)`` in order (see the module
    docstring); ``current``: the σ the previous piece ended with (``None``: none)."""
    bound = plan.bound
    assert bound is not None
    slots = plan.shape.slots
    n = len(slots)
    every = np.concatenate(found.times) if n else np.zeros(0)
    every = np.sort(every[(every >= found.lo) & (every < found.hi)])
    edges = [found.lo]
    if len(every):
        cuts = np.unique(every[block::block]) if block > 0 else np.zeros(0)
        edges += [t.item() for t in cuts if t > found.lo]   # Python numbers: ints exact
    bounds = [*edges, found.hi]
    starts = [searched(t, bounds, "left") for t in found.times]
    sigma = current
    lo = found.lo
    for j in range(len(edges)):
        counts = [int(starts[i][j + 1] - starts[i][j]) for i in range(n)]
        best = tuple(sorted(range(n), key=lambda i: (slots[i].iterated, counts[i], i)))
        chosen = best if sigma is None or better(best, sigma, counts) else sigma
        if sigma is not None and chosen != sigma:
            yield lo, bounds[j], sigma
            lo = bounds[j]
        sigma = chosen
    assert sigma is not None
    yield lo, found.hi, sigma
