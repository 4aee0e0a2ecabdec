"""Running one engine on one stream and measuring it: time, counters, matches, a budget.

Every figure the benchmarks print comes from :func:`measure`: the engine is
found by name in the registry (:func:`kleene.engines.registry.engine`), the
pattern compiled once, and the run timed in CPU seconds of this process
(``time.process_time``), so that other processes sharing the cores do not
distort throughputs; loading and compiling are not timed. The counters are
the engine's own (:class:`kleene.engines.protocol.Counters`), never estimated.

Without a budget the engine reads the stream itself (a
:class:`~kleene.reference.events.Stream` keeps its ``time_unit``). A
:class:`Budget` stops feeding events when a run takes too long or holds too
many instances, so that an exploding configuration is reported as *capped*
(with the number of events it read) instead of hanging the benchmark.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from kleene.data.source import time_unit_of
from kleene.engines.protocol import Counters
from kleene.engines.registry import engine, engine_names
from kleene.reference.errors import KleeneError
from kleene.reference.events import Event, Stream
from kleene.reference.query import Query


@dataclass(frozen=True)
class Budget:
    """Stop a run after ``seconds`` of CPU time or once ``instances`` are alive at once."""

    seconds: float = float("inf")
    instances: int | None = None


@dataclass
class Measured:
    """One run: events read, CPU seconds, the engine's counters, the matches found.

    ``found`` counts the matches reported (``matches`` holds them when kept);
    ``capped`` says why the run stopped early (``None`` if it read every event);
    ``error`` why it could not run at all (engine missing, pattern unsupported).
    """

    engine: str
    events: int = 0
    seconds: float = 0.0
    counters: Counters = field(default_factory=Counters)
    matches: frozenset[Any] = frozenset()
    found: int = 0
    capped: str | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def throughput(self) -> float:
        """Events per CPU second (``nan`` if the run did not happen)."""
        if not self.ok or self.seconds <= 0:
            return float("nan")
        return self.events / self.seconds


def available(name: str) -> bool:
    """Whether an engine is registered under ``name``."""
    return name in engine_names()


def _fed(events: Sequence[Event], counters: Counters, budget: Budget,
         out: Measured, started: float) -> Iterator[Event]:
    """The events, one by one, until the budget runs out (then ``out.capped`` says why);
    ``counters`` are the run's, read as it goes."""
    timed = math.isfinite(budget.seconds)
    for i, e in enumerate(events):
        if timed and time.process_time() - started > budget.seconds:
            out.capped = f"time budget {budget.seconds:g} s"
            return
        if budget.instances is not None and counters.peak_instances >= budget.instances:
            out.capped = f"more than {budget.instances} instances"
            return
        out.events = i + 1
        yield e


def measure(name: str, pattern: Any, events: Stream | Sequence[Event], *,
            policy: str = "next", budget: Budget | None = None,
            keep_matches: bool = True) -> Measured:
    """Run engine ``name`` on ``events``; a missing engine or an unsupported pattern
    gives a :class:`Measured` with ``error`` set rather than an exception."""
    out = Measured(name)
    if not available(name):
        out.error = "not available (no engine registered under this name)"
        return out
    try:
        compiled = engine(name).compile(Query.of(pattern, policy=policy,
                                                 time_unit=time_unit_of(events)))
    except KleeneError as err:
        out.error = f"unsupported: {err}"
        return out
    counters = Counters()
    started = time.process_time()
    if budget is None:                 # no per-event checks: the engine reads the stream itself
        out.events = len(events)
        feed: Iterable[Event] = events
    else:
        feed = _fed(events, counters, budget, out, started)
    kept = []
    for m in compiled.run(feed, counters=counters):
        out.found += 1
        if keep_matches:
            kept.append(m)
    out.seconds = time.process_time() - started
    out.counters = counters
    out.matches = frozenset(kept)
    return out
