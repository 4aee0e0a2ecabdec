"""The Python API of ``kleene match``: the matches of a pattern on events, computed
by the fastest registered engine that claims the query exactly, else by the
reference semantics (docs/architecture.md, "Engines").

Example::

    from kleene.engines.fastest import find_matches
    from kleene.reference.loaders import load_events

    found = find_matches(open("examples/chemo/q1.ses").read(),
                         load_events("examples/chemo/chemo.csv", time_unit="h"),
                         policy="next")
    found.matches, found.backend        # a set of Match, "windows+ses"
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from kleene.engines.protocol import Query, compile_query, engine, fastest_engine
from kleene.reference.budget import Budget
from kleene.reference.events import Event, Stream
from kleene.reference.languages import language_of
from kleene.reference.match import Match

#: The backend name of the reference semantics.
REFERENCE = "reference"


@dataclass(frozen=True)
class Found:
    """The matches and the backend that computed them (an engine name or ``reference``)."""

    matches: set[Match]
    backend: str
    reason: str


def choose(pattern: Any, policy: str | None = None,
           time_unit: str | None = None) -> tuple[str, str]:
    """The backend for ``pattern`` under ``policy`` and why: the fastest claiming
    engine, else ``reference``."""
    query = pattern if isinstance(pattern, Query) else \
        Query.parse(pattern, policy=policy, time_unit=time_unit) if isinstance(pattern, str) \
        else Query.of(pattern, policy=policy, time_unit=time_unit)
    choice = fastest_engine(query)
    if choice is None:
        return REFERENCE, (f"no registered engine claims this {query.language} pattern under "
                           f"policy {query.policy}")
    return choice.name, choice.reason


def find_matches(pattern: Any, stream: Stream, *, policy: str | None = None,
                 engine_name: str | None = None, budget: Budget | None = None,
                 events: Iterable[Event] | None = None) -> Found:
    """The matches of ``pattern`` (text or AST) on ``stream`` under ``policy`` (default:
    the language's), by ``engine_name`` (``reference`` forces the reference semantics)
    or the fastest engine that claims the query. ``events`` reads the stream otherwise
    (a progress bar); ``budget`` bounds the reference's search."""
    query = Query.parse(pattern, policy=policy, time_unit=stream.time_unit) \
        if isinstance(pattern, str) else Query.of(pattern, policy=policy,
                                                  time_unit=stream.time_unit)
    if engine_name is None:
        engine_name, reason = choose(query)
    else:
        reason = "named"
    if engine_name == REFERENCE:
        lang = language_of(query.pattern)
        return Found(lang.reference(query.pattern, stream, query.policy, budget=budget),
                     REFERENCE, reason)
    compiled = compile_query(engine(engine_name), query)
    return Found(set(compiled.run(stream if events is None else events)), engine_name, reason)
