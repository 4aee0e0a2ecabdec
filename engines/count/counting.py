"""The number of matches of a query: by dynamic programming where it is exact and
linear, else by enumerating (docs/counting.md).

The count is defined by the reference: ``len(query.reference(stream))``. The dynamic
programme (:mod:`kleene.engines.count.ses`) claims SES patterns under ``any`` whose
relationships are equalities partitioning the events, and the operator patterns that
are such SES patterns written as ``SEQ(AND(...), ...)``
(:mod:`kleene.engines.count.operators`); :mod:`kleene.engines.count.sremo` claims SREMO
expressions (``.sremo``, Wayeb's ``.sre``, CEQL) under ``stream`` whose guards are unary,
windowed at the top if at all; every other query is counted by
enumerating its matches with the backend ``kleene match`` would choose
(:func:`kleene.engines.fastest.find_matches`), and :func:`outside` says why in one line.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from kleene.engines import fastest
from kleene.engines.count import ses
from kleene.reference.budget import Budget
from kleene.reference.errors import Unsupported
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


#: What the dynamic programme runs over, by the kind of query (said on stderr).
OVER_SES = "the SES automaton's runs"
OVER_SRT = "the SRT's runs"


def reads_sremo(query: Query) -> bool:
    """Whether ``query``'s pattern is a SREMO expression (SREMO, ``.sre``, CEQL)."""
    return query.language in SREMO_LANGUAGES


#: The languages whose patterns are SREMO expressions.
SREMO_LANGUAGES = ("sremo", "wayeb", "ceql")


def over(query: Query) -> str:
    """The automaton whose runs the dynamic programme counts for ``query``."""
    return OVER_SRT if reads_sremo(query) else OVER_SES


def outside(query: Query) -> str | None:
    """Why the dynamic programme does not count ``query`` (one line), or ``None``."""
    if reads_sremo(query):
        # lazy: the SRT modules only for a SREMO query (the startup floor of kleene match
        # on an SES pattern, tests/test_cli_imports.py)
        from kleene.engines.count import sremo

        return sremo.outside(query)
    counted = ses_pattern(query)
    if isinstance(counted, str):
        return counted
    if query.policy != "any":
        return (f"counting covers policy any, not {query.policy} (which keeps some "
                "matches)")
    return ses.outside(counted)


def ses_pattern(query: Query) -> SESPattern | str:
    """The SES pattern the count reads for ``query`` (an SES pattern, or an operator
    pattern in its fragment: :func:`kleene.engines.count.operators.as_ses`), or why none."""
    if isinstance(query.pattern, SESPattern):
        return query.pattern
    if query.language == "operator":
        # lazy: the operator language's modules only for an operator query (the startup
        # floor of kleene match on an SES pattern, tests/test_cli_imports.py)
        from kleene.engines.count.operators import as_ses
        from kleene.reference.operators.pattern import OperatorPattern

        if isinstance(query.pattern, OperatorPattern):
            return as_ses(query.pattern)
    return f"counting covers SES and operator patterns under any, not {query.lang.title}"


def count_dp(query: Query, source: Iterable[Event]) -> int:
    """The number of matches of a query :func:`outside` accepts, by dynamic programming
    (:class:`~kleene.engines.count.sremo.TooManyStates` when a SREMO expression's
    determinized automaton grows past its cap)."""
    if reads_sremo(query):
        # lazy: the SRT modules only for a SREMO query (as in outside)
        from kleene.engines.count import sremo

        return sremo.count(query, source)
    pattern = ses_pattern(query)
    assert isinstance(pattern, SESPattern)
    return ses.count(pattern, source, time_unit=query.time_unit, reading=query.reading)


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
        try:
            return Counted(count_dp(query, stream if events is None else events), DP, None,
                           query)
        except Unsupported as e:   # sremo.TooManyStates, met while counting: list instead
            why = str(e)
    found = fastest.find_matches(query, stream, engine_name=engine_name, budget=budget,
                                 events=events)
    return Counted(len(found.matches), found.backend, why, query)
