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
- ``next``: :func:`~kleene.reference.operators.policies.is_next` on the runs of
  the match, decided once every report of it is in: after the first event
  past the window of its first event has been stepped (a held-back match is
  released at that event, :class:`~.partial.Pending`), or at the end of the
  stream. A run is the match's derivation tree in the *pattern* (not in a DNF
  conjunct: the ``OR`` commits where it stands, ``docs/errata.md#seed-003-next-dnf``).
  With iterations of single events only (the NFAs' fragment, :mod:`.shape`),
  a conjunct has exactly one tree per match, and each choice of ``OR`` parts
  that yields the conjunct (:func:`~.disjunction.dnf_choices`) puts it back
  into the pattern's tree (:func:`tree_of`); the match is kept iff one of
  the runs of the conjuncts that reported it never skipped an event it could
  take, which is the reference's "some run" over its derivations (each is
  such a conjunct run, Sec. 5.2). An iterated sub-pattern (:mod:`.subpattern`)
  may split a match into iterations in several ways: its runs are then every
  derivation tree of the match over its own events (:func:`runs_of`, the
  reference's derivations); without ``OR`` every such tree carries the same
  pending negations (a unit's events bound its neighbours' intervals whatever
  the split), so each is a run of a reported match.

The events read are kept in :class:`Recent` (by absolute position) as long as
a match still to be decided may read them.
"""

from __future__ import annotations

import bisect
import heapq
import itertools
from collections.abc import Iterable, Iterator, Sequence
from typing import cast, overload

from kleene.engines.spans import Window
from kleene.reference.budget import Budget
from kleene.reference.errors import Unsupported
from kleene.reference.events import Event, Stream
from kleene.reference.match import Match
from kleene.reference.operators.derivations import (
    Branch,
    Context,
    Derivation,
    Iterations,
    Parts,
    Taken,
    Tree,
    WindowReading,
    derivations,
)
from kleene.reference.operators.pattern import (
    Conj,
    Disj,
    Kleene,
    Neg,
    Node,
    OperatorPattern,
    Primitive,
    Seq,
    walk,
)
from kleene.reference.operators.policies import is_next, partition_attributes
from kleene.reference.policies import is_contiguous

#: The policies this module applies (``any`` and ``contiguous`` need no stream).
FILTERED = ("next", "partition-contiguous")


def tree_of(p: Node, m: Match, choices: Iterator[int] | None = None) -> Tree:
    """The derivation tree of ``m`` in ``p`` (iterations of single events), taking at
    each ``OR`` (pre-order) the part ``choices`` names (:func:`~.disjunction.dnf_choices`)."""
    if isinstance(p, Primitive):
        (position,) = m[p.var]
        return Taken(position)
    if isinstance(p, Disj):
        if choices is None:
            raise ValueError("tree_of: an OR needs the conjunct's choices")
        j = next(choices)
        return Branch(j, tree_of(p.parts[j], m, choices))
    if isinstance(p, Kleene) and isinstance(p.part, Primitive):
        return Iterations(tuple(Taken(q) for q in m[p.part.var]))
    if isinstance(p, Kleene):
        raise Unsupported("policy next: an iterated sub-pattern has several runs "
                          "(runs_of)")
    if isinstance(p, (Seq, Conj)):
        return Parts(tuple(tree_of(q, m, choices) for q in p.parts if not isinstance(q, Neg)))
    raise Unsupported(f"policy next: no single run for {type(p).__name__} here")


def iterates_subpattern(p: Node) -> bool:
    """Whether ``p`` has a Kleene operator over a sub-pattern."""
    return any(isinstance(q, Kleene) and not isinstance(q.part, Primitive) for q in walk(p))


def runs_of(p: Node, m: Match, ctx: Context) -> list[Tree]:
    """Every derivation tree of ``m`` in ``p`` over ``m``'s own events (a pattern without
    ``OR``: see the module docstring)."""
    pool = [ctx.s[i] for i in m.positions]
    return [d.tree for d in derivations(p, pool, ctx) if d.gamma == m]


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

    def __init__(self, pattern: OperatorPattern, policy: str, bound: Window | None,
                 relevant: frozenset[str | None] | None,
                 choices: Sequence[Sequence[tuple[int, ...]]] = ((),)) -> None:
        """``choices[b]``: the ``OR`` choices conjunct ``b``'s runs stand for."""
        self.pattern = pattern
        self.policy = policy
        self.bound = bound
        self.relevant = relevant
        self.choices = choices
        self.units = iterates_subpattern(pattern.expr)
        self.recent = Recent()
        self.ctx = (Context(cast(Stream, self.recent), None, "inclusive", (), Budget())
                    if bound is None else
                    Context(cast(Stream, self.recent), bound.tau,
                            cast(WindowReading, bound.reading), (), Budget()))
        self.held: list[tuple[float, int, Match]] = []
        self.runs: dict[Match, list[Tree]] = {}
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
        # every report of a match comes at the latest while the first event past its
        # window is stepped (the previous one, ``last_ts``)
        while held and bound is not None and not bound.fits(self.last_ts - held[0][0]):
            self._decide(heapq.heappop(held)[2])
        if bound is not None:
            # later matches start where they still fit with the last event the NFA stepped
            low = bound.earliest(self.last_relevant)
            self.recent.forget_before(min(low, held[0][0]) if held else low)
        self.recent.add(e)
        self.last_ts = ts
        if self.relevant is None or e.type in self.relevant:
            self.last_relevant = ts

    def offer(self, m: Match, branch: int = 0) -> list[Match]:
        """Take the match ``m`` of Γ, reported by conjunct ``branch``; the matches
        decided so far."""
        if self.policy == "partition-contiguous":
            if is_contiguous(cast(Stream, self.recent), m, partition_attributes(self.pattern, m)):
                self.ready.append(m)
        else:
            expr = self.pattern.expr
            trees = (runs_of(expr, m, self.ctx) if self.units else
                     [tree_of(expr, m, iter(path)) for path in self.choices[branch]])
            if m in self.runs:
                self.runs[m] += trees
            else:
                self.runs[m] = trees
                heapq.heappush(self.held, (self.recent[m.first].ts, next(self.tick), m))
        out, self.ready = self.ready, []
        return out

    def close(self) -> list[Match]:
        while self.held:
            self._decide(heapq.heappop(self.held)[2])
        out, self.ready = self.ready, []
        return out

    def _decide(self, m: Match) -> None:
        self.ctx.budget = Budget(name="nfa-next", what="deciding skip-till-next-match")
        if any(is_next(self.pattern, Derivation(m, frozenset(), tree), self.ctx)
               for tree in self.runs.pop(m)):
            self.ready.append(m)


def select(sel: Selection, found: Iterable[tuple[Match, int]]) -> Iterator[Match]:
    """The matches of ``found`` (Γ with the conjunct that reported each, from a run
    whose stream ``sel`` watches) that ``sel``'s policy keeps."""
    for m, branch in found:
        yield from sel.offer(m, branch)
    yield from sel.close()
