"""A deliberately broken backend: the SES automaton with one defect.

``drop-last`` (the default): each run drops its last match; ``off-by-one``: every
position is one too far (the papers' 1-based ``e1`` read as position 1), so a match
holding the last event names a position past the end of the stream; ``slow``: correct,
but each run first sleeps :data:`SLOW` seconds. The conformance runner must fail the
first two with reproductions and warn of the third, whether it is loaded in-process
(``--backend kleene.conformance.examples.broken_backend:engine``, ``:off_by_one``,
``:slow``) or run as an external command speaking the protocol
(``--backend "cmd:python -m kleene.conformance.examples.broken_backend --defect
off-by-one"``).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterable, Iterator
from typing import Any

from kleene.conformance.backends import EngineBackend
from kleene.conformance.serve import serve
from kleene.engines.protocol import Compiled, Counters, Feature, Query
from kleene.engines.registry import engine as builtin
from kleene.reference.budget import Budget
from kleene.reference.events import Event
from kleene.reference.match import Match

#: Seconds the ``slow`` defect sleeps before each run (above the runner's slow-test
#: threshold, :data:`kleene.conformance.report.SLOW_SECONDS`).
SLOW = 1.2

#: The defects, by name.
DEFECTS = ("drop-last", "off-by-one", "slow")


class Defective:
    """A compiled pattern whose run has ``defect``."""

    def __init__(self, inner: Compiled, defect: str) -> None:
        self.inner, self.defect = inner, defect
        self.initial, self.accepting = inner.initial, inner.accepting

    def iter_transitions(self) -> Iterator[Any]:
        return self.inner.iter_transitions()

    def run(self, events: Iterable[Event], *, counters: Counters | None = None,
            budget: Budget | None = None) -> Iterator[Match]:
        if self.defect == "slow":
            time.sleep(SLOW)
        found = list(self.inner.run(events, counters=counters, budget=budget))
        if self.defect == "drop-last":
            found = found[:-1]
        elif self.defect == "off-by-one":
            found = [Match.of({v: [p + 1 for p in m[v]] for v in m.variables}) for m in found]
        yield from found


class BrokenEngine:
    """``ses-automaton`` with :class:`Defective` runs; it claims what the automaton
    claims."""

    version = "0.0-broken"

    def __init__(self, defect: str = "drop-last") -> None:
        self.inner = builtin("ses-automaton")
        self.defect = defect
        self.name = f"broken-{defect}"

    @property
    def capabilities(self) -> frozenset[Feature]:
        return self.inner.capabilities

    def compile(self, query: Query) -> Defective:
        return Defective(self.inner.compile(query), self.defect)


def engine() -> BrokenEngine:
    """The factory (``module:factory``, or an entry point of group ``kleene.engines``):
    each run drops its last match."""
    return BrokenEngine()


def off_by_one() -> BrokenEngine:
    """The factory of the ``off-by-one`` defect."""
    return BrokenEngine("off-by-one")


def slow() -> BrokenEngine:
    """The factory of the ``slow`` defect (correct, but slow)."""
    return BrokenEngine("slow")


def main(argv: list[str] | None = None) -> int:
    """Serve the engine with ``--defect`` over the protocol."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--defect", choices=DEFECTS, default="drop-last")
    defect = parser.parse_args(argv).defect
    return serve(EngineBackend(BrokenEngine(defect), version=BrokenEngine.version))


if __name__ == "__main__":
    sys.exit(main())
