"""A deliberately broken backend: the SES automaton, but each run drops its last match.

The conformance runner must fail it with reproductions, whether it is loaded
in-process (``--backend kleene.conformance.examples.broken_backend:engine``)
or run as an external command speaking the protocol
(``--backend "cmd:python -m kleene.conformance.examples.broken_backend"``).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from typing import Any

from kleene.engines.protocol import Compiled, Counters, Feature, Query
from kleene.engines.registry import engine as builtin
from kleene.reference.budget import Budget
from kleene.reference.events import Event
from kleene.reference.match import Match


class DropLast:
    """A compiled pattern whose run loses the last match it would report."""

    def __init__(self, inner: Compiled) -> None:
        self.inner = inner
        self.initial, self.accepting = inner.initial, inner.accepting

    def iter_transitions(self) -> Iterator[Any]:
        return self.inner.iter_transitions()

    def run(self, events: Iterable[Event], *, counters: Counters | None = None,
            budget: Budget | None = None) -> Iterator[Match]:
        found = list(self.inner.run(events, counters=counters, budget=budget))
        yield from found[:-1]


class BrokenEngine:
    """``ses-automaton`` with :class:`DropLast` runs; it claims what the automaton claims."""

    name = "broken-drop-last"
    version = "0.0-broken"

    def __init__(self) -> None:
        self.inner = builtin("ses-automaton")

    @property
    def capabilities(self) -> frozenset[Feature]:
        return self.inner.capabilities

    def compile(self, query: Query) -> DropLast:
        return DropLast(self.inner.compile(query))


def engine() -> BrokenEngine:
    """The factory (``module:factory``, or an entry point of group ``kleene.engines``)."""
    return BrokenEngine()


if __name__ == "__main__":
    from kleene.conformance.backends import EngineBackend
    from kleene.conformance.serve import serve

    sys.exit(serve(EngineBackend(engine(), version=BrokenEngine.version)))
