"""The streaming run of an SRT: seed 004, report Alg. 1 (Sec. 4.3, Defs. 21–24), and
the engines ``srt`` and ``srt-faithful``.

Alg. 1 runs the *streaming* SRT ``T_s`` of ``⊤* · e`` (report Sec. 4.3); one pass
over a stream is an :class:`~kleene.engines.srt.execution.Execution` (the runs,
grouped by state and registers, their marks shared as a DAG:
:mod:`kleene.engines.srt.marks`). A run that reaches a final state *through a
marking transition* reports its M: exactly ``docs/errata.md``'s normative streaming
detection (policy ``stream``: every ``M ∈ Match(e, S_j..k)`` with ``max(M) = k``).
Runs equal as configurations are merged (a set), and a run whose state can no longer
reach a reporting transition is dropped (:func:`reporting`: it would never report;
this is what bounds memory under a window).

Policy ``literal`` (Def. 18 read literally) runs only from the first element
and reports, at the end of the stream, the M of every run in a final state.

This module compiles an expression for a policy (:func:`compile_expression`) and
drives the pass over events, over a loaded stream's columns
(:mod:`kleene.engines.srt.columns`, :mod:`kleene.engines.srt.agenda`) or per part
of ``e PARTITION BY a`` (:mod:`kleene.engines.srt.partition`).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from kleene.data.source import column_batches
from kleene.engines.pictured import Pictured
from kleene.engines.protocol import Counters, Feature, Query, Transition
from kleene.engines.registry import register
from kleene.engines.srt.agenda import drive_sleeping, waiting_moves
from kleene.engines.srt.automaton import SRT, trim
from kleene.engines.srt.columns import ROWS, drive
from kleene.engines.srt.compile import MAX_STATES, Options, compile_sremo
from kleene.engines.srt.execution import Execution
from kleene.engines.srt.partition import run_parts
from kleene.engines.srt.skip import key_index
from kleene.reference.budget import Budget
from kleene.reference.errors import Unsupported
from kleene.reference.events import Event
from kleene.reference.languages import STRICT_WINDOW, language_named
from kleene.reference.match import Match
from kleene.reference.sremo.expressions import Partition, check
from kleene.reference.sremo.features import CONSTRUCTS, EXPRESSION_TYPES

POLICIES = ("stream", "literal")


def reporting(a: SRT, policy: str) -> SRT:
    """``a`` trimmed to the states from which a report is still possible: a marking
    transition into a final state (``stream``) or a final state (``literal``)."""
    if policy == "literal":
        return trim(a)
    report = [e for e in a.edges if e.mark and e.target in a.finals]
    return trim(a, useful={e.source for e in report} | {e.target for e in report})


@dataclass
class CompiledSRT(Pictured):
    """An SREMO compiled to an ε-free SRT, ready to run (the ``Compiled`` protocol);
    ``by``: the attributes of ``e PARTITION BY by`` (one run per part,
    :mod:`kleene.engines.srt.partition`)."""

    srt: SRT
    policy: str
    faithful: bool = False
    by: tuple[str, ...] = ()
    shared: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    #: the unit of the events' timestamps it was compiled for (its other views need it)
    time_unit: str | None = None

    @property
    def initial(self) -> frozenset[Hashable]:
        return frozenset({self.srt.start})

    @property
    def accepting(self) -> frozenset[Hashable]:
        return self.srt.finals

    def iter_transitions(self) -> Iterator[Transition]:
        for e in self.srt.edges:
            yield Transition(e.source, e.target, None, e.shown_guard(), "bind", e.mark,
                             e.writes)

    def execution(self, counters: Counters, budget: Budget | None = None) -> Execution:
        """A fresh pass of Alg. 1 that counts into ``counters`` within ``budget`` (what
        passes share computed once: one pass per part of ``e PARTITION BY a``)."""
        return Execution(self.srt, self.policy, counters, faithful=self.faithful,
                         shared=self.shared, budget=budget)

    def run(self, events: Iterable[Event], *, counters: Counters | None = None,
            budget: Budget | None = None) -> Iterator[Match]:
        """Alg. 1 over ``events`` (one pass per part under ``PARTITION BY``), counted
        into ``counters``; ``budget``'s limit bounds the sets of marked positions listed
        at once (:func:`~kleene.engines.srt.marks.reported`)."""
        c = Counters() if counters is None else counters
        if self.by:
            yield from run_parts(self, self.by, events, c, budget)
        else:
            yield from self.run_one(events, c, budget)

    def run_one(self, events: Iterable[Event], counters: Counters,
                budget: Budget | None = None) -> Iterator[Match]:
        """One run over ``events`` (the whole stream, or one part of it)."""
        ex = self.execution(counters, budget)
        step = ex.step
        batches = column_batches(events, ROWS) if ex.relevant is not None else None
        index = key_index(self.srt) if batches is None and ex.tests is not None \
            and self.policy == "stream" and ex.fresh_dies else None
        try:
            if batches is not None:
                # a loaded stream: the candidates found over its columns (srt.columns)
                moves = ex.memo("moves", lambda: waiting_moves(ex))
                if moves is None:
                    yield from drive(ex, batches)
                else:
                    yield from drive_sleeping(ex, moves, batches)
            elif index is None:
                for u in events:
                    found = step(u)
                    if found:
                        ex.flush()
                        yield from found
            else:
                # No run alive and an element no guard but TRUE can take: the fresh run
                # dies at once (its start has no TRUE transition), nothing changes.
                attrs, keys = index
                for u in events:
                    if not ex.groups and tuple(u.type if x == "type" else u.attrs.get(x)
                                               for x in attrs) not in keys:
                        ex.events += 1
                        ex.skipped += 1
                        continue
                    found = step(u)
                    if found:
                        ex.flush()
                        yield from found
        finally:
            ex.flush()
        yield from ex.finish()


def compile_expression(query: Query, *, max_states: int = MAX_STATES,
                       faithful: bool = False) -> CompiledSRT:
    """Check the query's expression and compile it for its policy, window reading and time
    unit (every setting as the door decided it); :class:`Unsupported` says what is not."""
    e, policy, time_unit = query.pattern, query.policy, query.time_unit
    if not isinstance(e, EXPRESSION_TYPES):
        raise Unsupported(f"the SRT engines run SREMO expressions, not {type(e).__name__}")
    if policy not in POLICIES:
        raise Unsupported(f"the SRT engines have no policy {policy!r}; choose "
                          f"{' or '.join(POLICIES)}")
    check(e)
    by: tuple[str, ...] = ()
    if isinstance(e, Partition):
        by, e = e.by, e.body
    srt = compile_sremo(e, Options(time_unit, query.reading, max_states))
    return CompiledSRT(reporting(srt, policy), policy, faithful=faithful, by=by,
                       time_unit=time_unit)


def claimed(language: str, labels: tuple[str, ...] = (*POLICIES, *CONSTRUCTS, STRICT_WINDOW)
            ) -> frozenset[Feature]:
    """What an SRT engine claims for ``language`` (SREMO or a language read into SREMO
    expressions: ``.sre``, CEQL), of ``labels`` (``srt``: both policies, every construct,
    both window readings; negation and determinization beyond their fragment raise
    Unsupported): those the language has (CEQL has one policy, no registers)."""
    own = language_named(language).feature_labels()
    return Feature.of(language, *(label for label in labels if label in own))


@dataclass(frozen=True)
class SRTEngine:
    """The streaming SRT engine (report Alg. 1). ``faithful``: Alg. 1 as printed, which
    kills a run once it reports (lines 8–10), so a match that extends a reported one is
    lost (docs/errata.md#seed-004-alg1-kills-reporting-runs); it claims no policy."""

    name: str = "srt"
    faithful: bool = False

    @property
    def capabilities(self) -> frozenset[Feature]:
        if self.faithful:
            return Feature.of("sremo", *CONSTRUCTS) | Feature.of("wayeb", *CONSTRUCTS)
        # a CEQL query is the SREMO expression it denotes (reference/ceql): run as one
        return claimed("sremo") | claimed("wayeb") | claimed("ceql")

    def compile(self, query: Query) -> CompiledSRT:
        return compile_expression(query, faithful=self.faithful)


register("srt", SRTEngine)
register("srt-faithful", lambda: SRTEngine("srt-faithful", faithful=True))
