"""The policies ``next`` and ``partition-contiguous`` as filters on Γ, while streaming.

Both policies of the operator reference (:mod:`kleene.reference.operators.policies`)
are predicates over Γ (skip-till-any-match, what every NFA here computes) and
the stream (docs/architecture.md, "All-matches first"). An NFA engine computes
them exactly by running under ``any`` and applying the reference's own
predicates to each match it finds, over the events it has read:

- ``partition-contiguous``: :func:`~kleene.reference.policies.is_contiguous`
  over the match's partitioning attributes
  (:func:`~kleene.reference.operators.policies.partition_attributes`), decided
  as soon as the match is found (every event up to its last one has been read);
- ``next``: :func:`~kleene.reference.operators.policies.is_next` on the run of
  the match, decided once the window after its first event has passed (or at
  the end of the stream). The run is the match's derivation tree; without
  ``OR`` and with iterations of single events only (the NFAs' fragment,
  :mod:`.shape`) a match has exactly one tree (:func:`tree_of`), so "some run
  of it never skipped an event" is that run's verdict. With ``OR`` the runs of
  the multi-chain are not those of the pattern (``docs/errata.md#seed-003-next-dnf``):
  the engines with ``OR`` do not claim ``next``.

The events read are kept in :class:`Recent` (by absolute position) as long as
a match still to be decided may read them.
"""

from __future__ import annotations

import bisect
import heapq
import itertools
from collections.abc import Iterable, Iterator, Sequence
from typing import cast, overload

from kleene.reference.budget import Budget
from kleene.reference.errors import Unsupported
from kleene.reference.events import Event, Stream
from kleene.reference.match import Match
from kleene.reference.operators.derivations import (
    Context,
    Derivation,
    Iterations,
    Parts,
    Taken,
    Tree,
)
from kleene.reference.operators.pattern import (
    Conj,
    Kleene,
    Neg,
    Node,
    OperatorPattern,
    Primitive,
    Seq,
)
from kleene.reference.operators.policies import is_next, partition_attributes
from kleene.reference.policies import is_contiguous

#: The policies this module applies (``any`` and ``contiguous`` need no stream).
FILTERED = ("next", "partition-contiguous")


def tree_of(p: Node, m: Match) -> Tree:
    """The derivation tree of ``m`` in ``p`` (no ``OR``, iterations of single events)."""
    if isinstance(p, Primitive):
        (position,) = m[p.var]
        return Taken(position)
    if isinstance(p, Kleene) and isinstance(p.part, Primitive):
        return Iterations(tuple(Taken(q) for q in m[p.part.var]))
    if isinstance(p, (Seq, Conj)):
        return Parts(tuple(tree_of(q, m) for q in p.parts if not isinstance(q, Neg)))
    raise Unsupported(f"policy next: no single run for {type(p).__name__} here")


class Recent(Sequence[Event]):
    """The events read, indexed by their absolute position (what the reference's
    predicates read as the stream, ``s[i]`` and ``s.events[i:j]``). Positions may
    skip the events filtered out before the NFA (:mod:`.columns`): a slice holds
    the events read in it."""

    def __init__(self) -> None:
        self.items: list[Event] = []
        self.positions: list[int] = []
        self.times: list[float] = []
        self.head = 0

    @property
    def events(self) -> Recent:
        return self

    def add(self, e: Event) -> None:
        self.items.append(e)
        self.positions.append(e.position)
        self.times.append(e.ts)

    def forget_before(self, ts: float) -> None:
        self.head = bisect.bisect_left(self.times, ts, self.head)
        if self.head > 4096 and 2 * self.head > len(self.items):
            del self.items[:self.head], self.positions[:self.head], self.times[:self.head]
            self.head = 0

    def __len__(self) -> int:
        return self.positions[-1] + 1 if self.positions else 0

    @overload
    def __getitem__(self, i: int) -> Event: ...

    @overload
    def __getitem__(self, i: slice) -> Sequence[Event]: ...

    def __getitem__(self, i: int | slice) -> Event | Sequence[Event]:
        if isinstance(i, slice):
            lo = self.head if i.start is None else bisect.bisect_left(
                self.positions, i.start, self.head)
            hi = len(self.items) if i.stop is None else bisect.bisect_left(
                self.positions, i.stop, lo)
            return self.items[lo:hi]
        k = bisect.bisect_left(self.positions, i, self.head)
        if k == len(self.items) or self.positions[k] != i:
            raise IndexError(f"position {i} was not read or was forgotten")
        return self.items[k]


class Selection:
    """Applies ``policy`` (one of :data:`FILTERED`) to the matches of one run."""

    def __init__(self, pattern: OperatorPattern, policy: str, bound: float | None,
                 relevant: frozenset[str | None] | None) -> None:
        self.pattern = pattern
        self.policy = policy
        self.bound = bound
        self.relevant = relevant
        self.recent = Recent()
        # within(start, ts) iff ts − start ≤ bound: ``bound`` is the reading's inclusive bound
        self.ctx = Context(cast(Stream, self.recent), bound, "inclusive", (), Budget())
        self.held: list[tuple[float, int, Match]] = []
        self.tick = itertools.count()
        self.ready: list[Match] = []
        self.last_ts = -float("inf")
        self.last_relevant = -float("inf")

    def watch(self, stream: Iterable[Event]) -> Iterator[Event]:
        """``stream`` unchanged, each event remembered (and held matches decided) first."""
        for e in stream:
            self._see(e)
            yield e

    def _see(self, e: Event) -> None:
        ts = e.ts
        held, bound = self.held, self.bound
        while held and bound is not None and ts - held[0][0] > bound:
            self._decide(heapq.heappop(held)[2])
        if bound is not None:
            # later matches start at most ``bound`` before the last event the NFA stepped
            low = self.last_relevant - bound
            self.recent.forget_before(min(low, held[0][0]) if held else low)
        self.recent.add(e)
        self.last_ts = ts
        if self.relevant is None or e.type in self.relevant:
            self.last_relevant = ts

    def offer(self, m: Match) -> list[Match]:
        """Take the match ``m`` of Γ; the matches decided so far."""
        if self.policy == "partition-contiguous":
            if is_contiguous(cast(Stream, self.recent), m, partition_attributes(self.pattern, m)):
                self.ready.append(m)
        else:
            first = self.recent[m.first].ts
            if self.bound is not None and self.last_ts - first > self.bound:
                self._decide(m)
            else:
                heapq.heappush(self.held, (first, next(self.tick), m))
        out, self.ready = self.ready, []
        return out

    def close(self) -> list[Match]:
        while self.held:
            self._decide(heapq.heappop(self.held)[2])
        out, self.ready = self.ready, []
        return out

    def _decide(self, m: Match) -> None:
        d = Derivation(m, frozenset(), tree_of(self.pattern.expr, m))
        self.ctx.budget = Budget(name="nfa-next", what="deciding skip-till-next-match")
        if is_next(self.pattern, d, self.ctx):
            self.ready.append(m)


def select(sel: Selection, found: Iterable[Match]) -> Iterator[Match]:
    """The matches of ``found`` (Γ, from a run whose stream ``sel`` watches) that
    ``sel``'s policy keeps."""
    for m in found:
        yield from sel.offer(m)
    yield from sel.close()
