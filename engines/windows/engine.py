"""The match-window framework of seed 001 as an engine around any SES engine.

``WindowsEngine(inner=..., filtering=, partitioning=, conditions=, paper_faithful=)``
runs Algorithm 1 (:mod:`kleene.engines.windows.framework`) with A = the
inner engine (:mod:`kleene.engines.windows.matching`, seed 001 Def. 4). Each
step can be switched off, as the experiments of Sec. 6 do (baseline "plain
match window", then f, f+p, f+p+c). Partitioning uses only the attributes
that are sound for the policy
(:func:`kleene.reference.ses.pruning.partitioning_attributes_for`), and
the equalities on them are dropped from Θ before A is compiled, as Sec. 4.4
says.

Claims: the inner engine's language and constructs, and each policy the inner
engine claims that the framework preserves with these steps
(:func:`~kleene.engines.windows.soundness.preserved_policies`). Other policies
compile (documented variants, e.g. ``contiguous`` behind the filter) but are
not claimed.

Registered: ``windows+ses`` (= ``windows-fpc+ses``: every step, around
``ses-automaton``), ``windows-plain+ses``, ``windows-f+ses``,
``windows-fp+ses``, ``windows-fc+ses``, ``windows-fpc+ses``,
``windows+ses-bruteforce``, ``windows+ses-earliest`` (every step, A searching each
window for its earliest-maximal matches: :mod:`kleene.engines.windows.earliest`) and
``windows-paper+ses`` (Algorithm 1 as printed,
claims no policy).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass, replace
from itertools import islice
from typing import TypeVar

from kleene.data.source import time_unit_of
from kleene.engines.match_columns import CHUNK, MatchColumns, gathered
from kleene.engines.pictured import Pictured
from kleene.engines.protocol import (
    Compiled,
    Counters,
    Engine,
    Feature,
    Query,
    Transition,
    WindowReading,
    require,
    window_in_units,
)
from kleene.engines.registry import engine, register
from kleene.engines.ses.automaton import required_features
from kleene.engines.ses.buffers import instance_columns
from kleene.engines.ses.run import CompiledSES
from kleene.engines.spans import Window
from kleene.engines.windows.earliest import EARLIEST_POLICIES, EarliestMatcher
from kleene.engines.windows.framework import BATCH, ROWS, MatchWindows
from kleene.engines.windows.matching import (
    AnchoredMatcher,
    Buffers,
    WindowMatcher,
    absorb,
    matcher,
)
from kleene.engines.windows.soundness import preserved_policies
from kleene.reference.budget import Budget
from kleene.reference.errors import Unsupported
from kleene.reference.events import Event
from kleene.reference.match import Match
from kleene.reference.ses.partitioning import is_partitioning_equality, partitioning_attributes
from kleene.reference.ses.pattern import SESPattern
from kleene.reference.ses.policies import POLICIES
from kleene.reference.ses.pruning import partitioning_attributes_for
from kleene.reference.ses.text import format_ses

#: What A reports of each match: a match, or the instance whose buffer it is.
R = TypeVar("R")


def without_equalities(pattern: SESPattern, attributes: tuple[str, ...]) -> SESPattern:
    """``pattern`` without the equalities ``vi.A = vj.A`` on ``attributes`` (Sec. 4.4:
    "They can be removed from Θ before calling A"; valid within one partition)."""
    if not attributes:
        return pattern
    return replace(pattern, conditions=tuple(
        c for c in pattern.conditions if not is_partitioning_equality(c, attributes)))


@dataclass
class CompiledWindows(Pictured):
    """A pattern compiled for the framework: the inner engine compiled for A.

    ``initial``, ``accepting`` and ``iter_transitions`` are A's (the framework
    itself has no states); a run's counters add A's counts to the framework's
    (``calls_to_a``, ``events_to_a``, ``events_read``, ``events_filtered``).
    """

    engine: WindowsEngine
    pattern: SESPattern
    policy: str
    attributes: tuple[str, ...]
    #: A's query: the pattern's without the equalities the partitioning dropped
    inner_query: Query
    inner: Compiled
    time_unit: str | None = None
    reading: WindowReading = "inclusive"

    @property
    def initial(self) -> frozenset[Hashable]:
        return self.inner.initial

    @property
    def accepting(self) -> frozenset[Hashable]:
        return self.inner.accepting

    def iter_transitions(self) -> Iterator[Transition]:
        return self.inner.iter_transitions()

    def run(self, events: Iterable[Event], *, counters: Counters | None = None,
            budget: Budget | None = None) -> Iterator[Match]:
        """Algorithm 1 over ``events``, one pass; matches as their windows complete,
        counted into ``counters``; each call of A runs within ``budget``."""
        c = Counters() if counters is None else counters
        found = self._matcher(events, budget)
        if found is None:
            return
        A, win = found
        try:
            yield from self._windows(A, win, c).run(events)
        finally:
            absorb(c, A.counters)

    def run_columns(self, events: Iterable[Event], *, counters: Counters | None = None,
                    budget: Budget | None = None) -> Iterator[MatchColumns]:
        """:meth:`run`'s matches, in its order, as columns
        (:mod:`kleene.engines.match_columns`), :data:`CHUNK` at a time: where A is the
        anchored SES automaton, its instances' buffers read at once
        (:func:`~kleene.engines.ses.buffers.instance_columns`, no match made); else
        gathered from :meth:`run`."""
        c = Counters() if counters is None else counters
        found = self._matcher(events, budget)
        if found is None:
            return
        A, win = found
        if not isinstance(A, AnchoredMatcher):
            yield from gathered(self.run(events, counters=c, budget=budget))
            return
        try:
            buffers = self._windows(Buffers(A), win, c).run(events)
            while chunk := list(islice(buffers, CHUNK)):
                yield from instance_columns(chunk)
        finally:
            absorb(c, A.counters)

    def _matcher(self, events: Iterable[Event],
                 budget: Budget | None) -> tuple[WindowMatcher[Match], Window] | None:
        """A for a run over ``events`` (within ``budget``) and the window in the events'
        time unit; ``None`` when no span fits the window (``WITHIN 0`` read strictly:
        nothing matches)."""
        unit = self.time_unit if self.time_unit is not None else time_unit_of(events)
        win = window_in_units(self.pattern.window, unit, events, self.reading)
        if not win.fits(0):
            return None
        inner = self.inner if unit == self.time_unit else self.engine.inner_engine.compile(
            self.inner_query.with_time_unit(unit))
        steps = self.engine
        if steps.earliest:
            if self.policy not in EARLIEST_POLICIES:   # compiled to be drawn: not run
                raise Unsupported(f"{steps.name} computes the policies "
                                  f"{', '.join(EARLIEST_POLICIES)}, not {self.policy!r}")
            if not isinstance(inner, CompiledSES):
                raise Unsupported("an earliest-maximal A searches the runs of the SES "
                                  "automaton: its inner engine is ses-automaton")
            return EarliestMatcher(inner.automaton, self.pattern, self.policy, win, budget), win
        return matcher(inner, win, prefiltered=steps.filtering, properties=self.pattern,
                       anchored=steps.anchored, budget=budget), win

    def _windows(self, A: WindowMatcher[R], win: Window, c: Counters) -> MatchWindows[R]:
        """Algorithm 1 around ``A``, with this engine's steps, counting into ``c``."""
        steps = self.engine
        return MatchWindows(self.pattern, A, win=win, attributes=self.attributes,
                            filtering=steps.filtering, conditions=steps.conditions,
                            paper_faithful=steps.paper_faithful, counters=c,
                            batch=steps.batch, rows=steps.rows)


@dataclass(frozen=True)
class WindowsEngine:
    """Seed 001's two-phase strategy around the engine ``inner`` (a name or an engine).

    ``anchored``: A runs only the run started at W's first event when the inner
    engine is an SES automaton or brute force (else every run, keeping the
    matches that start there); ``batch``: events filtered at once; ``rows``: rows of
    a loaded stream's columns filtered at once; ``earliest``: A searches the runs of the
    inner SES automaton under ``any`` for the earliest-maximal matches of each window
    (:mod:`kleene.engines.windows.earliest`): the engine then claims those policies,
    and runs only them (a query under another compiles, to be drawn).
    """

    name: str = "windows+ses"
    inner: str | Engine = "ses-automaton"
    filtering: bool = True
    partitioning: bool = True
    conditions: bool = True
    paper_faithful: bool = False
    anchored: bool = True
    batch: int = BATCH
    rows: int = ROWS
    earliest: bool = False

    @property
    def inner_engine(self) -> Engine:
        return engine(self.inner) if isinstance(self.inner, str) else self.inner

    @property
    def capabilities(self) -> frozenset[Feature]:
        inner = self.inner_engine.capabilities
        if Feature("ses") not in inner:
            return frozenset()
        kept = preserved_policies(filtering=self.filtering, paper_faithful=self.paper_faithful)
        if self.earliest:   # A searches the inner automaton's `any` runs, exact if it claims it
            policies = {p for p in EARLIEST_POLICIES if p in kept}
            if Feature("ses", "any") not in inner:
                policies = set()
            return frozenset({f for f in inner if f.kind != "policy"}
                             | {Feature("ses", p) for p in policies})
        return frozenset(f for f in inner if f.kind != "policy" or f.label in kept)

    def compile(self, query: Query) -> CompiledWindows:
        pattern, policy = query.pattern, query.policy
        if not isinstance(pattern, SESPattern):
            raise Unsupported(f"the match-window engines take SES patterns, not "
                              f"{type(pattern).__name__}")
        if policy not in POLICIES:
            raise Unsupported(f"unknown policy {policy!r}; choose one of {', '.join(POLICIES)}")
        require(self, required_features(pattern))
        attributes: tuple[str, ...] = ()
        if self.partitioning:
            # the paper-faithful Algorithm 1 partitions by all of X under every policy
            attributes = (partitioning_attributes(pattern) if self.paper_faithful
                          else partitioning_attributes_for(pattern, policy))
        inner_pattern = without_equalities(pattern, attributes)
        inner_query = replace(query, pattern=inner_pattern, text=format_ses(inner_pattern),
                              policy="any" if self.earliest else policy)
        return CompiledWindows(self, pattern, policy, attributes, inner_query,
                               self.inner_engine.compile(inner_query), query.time_unit,
                               query.reading)


def _variant(name: str, *, inner: str = "ses-automaton",
             **steps: bool) -> Callable[[], WindowsEngine]:
    return lambda: WindowsEngine(name, inner, **steps)


register("windows+ses", _variant("windows+ses"))
register("windows-plain+ses", _variant("windows-plain+ses", filtering=False,
                                       partitioning=False, conditions=False))
register("windows-f+ses", _variant("windows-f+ses", partitioning=False, conditions=False))
register("windows-fp+ses", _variant("windows-fp+ses", conditions=False))
register("windows-fc+ses", _variant("windows-fc+ses", partitioning=False))
register("windows-fpc+ses", _variant("windows-fpc+ses"))
register("windows+ses-bruteforce", _variant("windows+ses-bruteforce", inner="ses-bruteforce"))
register("windows+ses-earliest", _variant("windows+ses-earliest", earliest=True))
register("windows-paper+ses", _variant("windows-paper+ses", paper_faithful=True))
