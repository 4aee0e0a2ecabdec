"""``srt+selection``: a CEQL query with a selection strategy, a consumption policy or a
``LIMIT`` (``ceql:selection``, reference/ceql/selection.py), run as its definition reads:
the ``ALL`` set of its SREMO body by the ``srt`` engine (which equals the reference on
it: tests/test_ceql.py), then :func:`~kleene.reference.ceql.selection.kept`, the
reference's own function. Exact; it lists the whole ``ALL`` set, so its time and memory
are those of the listing of the body, and it emits the matches after the last event, not
as each becomes final.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator
from dataclasses import dataclass, replace

from kleene.engines.protocol import Compiled, Counters, Feature, Query, Transition
from kleene.engines.registry import register
from kleene.engines.srt.run import SRTEngine, claimed
from kleene.reference.budget import Budget
from kleene.reference.ceql.selection import Selected, kept
from kleene.reference.errors import Unsupported
from kleene.reference.events import Event
from kleene.reference.match import Match
from kleene.reference.sremo.text import format_sremo


@dataclass(frozen=True)
class CompiledSelection:
    """The body's compiled SRT (its states and transitions are this automaton's) and the
    query whose strategy, consumption and limit :meth:`run` applies."""

    body: Compiled
    query: Selected

    @property
    def initial(self) -> frozenset[Hashable]:
        return self.body.initial

    @property
    def accepting(self) -> frozenset[Hashable]:
        return self.body.accepting

    def iter_transitions(self) -> Iterator[Transition]:
        return self.body.iter_transitions()

    def run(self, events: Iterable[Event], *, counters: Counters | None = None,
            budget: Budget | None = None) -> Iterator[Match]:
        at: dict[int, Event] = {}

        def kept_events() -> Iterator[Event]:
            for e in events:
                at[e.position] = e
                yield e

        everything = set(self.body.run(kept_events(), counters=counters, budget=budget))
        yield from sorted(kept(self.query, everything, at.__getitem__),
                          key=lambda m: (m.last, m.dumps()))


@dataclass(frozen=True)
class SelectionEngine:
    """``srt+selection`` (module docstring)."""

    name: str = "srt+selection"

    @property
    def capabilities(self) -> frozenset[Feature]:
        return claimed("ceql") | Feature.of("ceql", "selection")

    def compile(self, query: Query) -> CompiledSelection:
        q = query.pattern
        if not isinstance(q, Selected):
            raise Unsupported("srt+selection runs CEQL queries with a strategy, a "
                              "consumption or a LIMIT; run the others on srt")
        body = replace(query, pattern=q.body, text=format_sremo(q.body))
        return CompiledSelection(SRTEngine().compile(body), q)


register("srt+selection", SelectionEngine)
