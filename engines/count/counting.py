"""The number of matches of a query: by dynamic programming where it is exact and
linear, else by enumerating (docs/counting.md).

The count is defined by the reference: ``len(query.reference(stream))``. The dynamic
programme (:mod:`kleene.engines.count.ses`) claims SES patterns under ``any`` whose
relationships are equalities partitioning the events; every other query is counted by
enumerating its matches with the backend ``kleene match`` would choose
(:func:`kleene.engines.fastest.find_matches`), and :func:`outside` says why in one line.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from kleene.engines import fastest
from kleene.engines.count import ses
from kleene.reference.budget import Budget
from kleene.reference.events import Event, Stream
from kleene.reference.pattern import Pattern
from kleene.reference.query import Query
from kleene.reference.ses.pattern import SESPattern

#: The backend name of the count by dynamic programming.
DP = "dynamic programming"


@dataclass(frozen=True)
class Counted:
    """``count`` matches, computed by ``backend`` (:data:`DP`, an engine's name or
    ``reference``); ``why`` says why the matches were enumerated (``None`` under :data:`DP`)."""

    count: int
    backend: str
    why: str | None
    query: Query


def outside(query: Query) -> str | None:
    """Why the dynamic programme does not count ``query`` (one line), or ``None``."""
    if query.language != "ses" or not isinstance(query.pattern, SESPattern):
        return f"counting covers SES patterns under any, not {query.lang.title}"
    if query.policy != "any":
        return (f"counting covers policy any, not {query.policy} (which keeps some "
                "matches)")
    return ses.outside(query.pattern)


def count_dp(query: Query, source: Iterable[Event]) -> int:
    """``|Γ|`` of a query :func:`outside` accepts, by dynamic programming."""
    assert isinstance(query.pattern, SESPattern)
    return ses.count(query.pattern, source, time_unit=query.time_unit, reading=query.reading)


def count_matches(pattern: str | Pattern | Query, stream: Stream, *,
                  policy: str | None = None, reading: str | None = None,
                  engine_name: str | None = None, budget: Budget | None = None,
                  events: Iterable[Event] | None = None) -> Counted:
    """The number of matches of ``pattern`` on ``stream`` (the reference's ``len``): by
    dynamic programming when no ``engine_name`` is given and :func:`outside` accepts the
    query, else by enumerating them as :func:`~kleene.engines.fastest.find_matches` does
    (``budget`` bounds that enumeration). ``events`` reads the stream otherwise (a
    progress bar)."""
    query = Query.ask(pattern, policy=policy, reading=reading,
                      door="count_matches").with_time_unit(stream.time_unit)
    why = "an engine was named" if engine_name is not None else outside(query)
    if why is None:
        return Counted(count_dp(query, stream if events is None else events), DP, None, query)
    found = fastest.find_matches(query, stream, engine_name=engine_name, budget=budget,
                                 events=events)
    return Counted(len(found.matches), found.backend, why, query)
