"""The first K matches in the order of their last event, reading only what holds them
(CEQL's ``LIMIT K``; ``kleene match --first K``; docs/counting.md).

Order: by last position, then by the canonical text (:meth:`Match.dumps`) among matches
with the same last event. The first K are the K least in that order of the reference's
match set.

A query is *prefix-closed* when its matches whose last position is below ``n`` are
exactly the matches of the prefix ``s[:n]``: nothing a verdict reads lies after the
match's last event. SES patterns under ``any`` are (seed 000 Def. 2 reads only the bound
events), and so are operator patterns under ``any`` without ``NOT`` (seed 003's
conditions read bound events only), and SREMO expressions (``.sre``, CEQL) under
``stream``: a match reported at ``k`` is one of ``S_j..k`` (docs/architecture.md, "SREMO
streaming"; a negation reads inside the run only). Then the first K of the whole stream
are the first K of any prefix holding K matches, and only that prefix is matched:

- where the SES count claims the query (:mod:`kleene.engines.count.ses`), its pass over
  the stream stops at the tie group where the matches ending so far reach K, and the prefix
  up to that group's end is enumerated (its matches: K, plus the others ending in that
  group);
- where the SREMO count claims the query (not a register keying the runs), the matches
  are listed from the shared structure of :mod:`kleene.engines.count.tecs` as each last
  event is read, and reading stops after the event where they reach K (of the matches
  ending there, the least by text are kept, ``heapq.nsmallest``: memory K matches); past
  the structure's automaton cap, prefixes doubling as below with engine ``srt``
  (:attr:`First.gave_way` says why);
- else the prefix doubles from :data:`FIRST_PREFIX` events until it holds K matches.

Any other query (a policy that keeps some matches by what follows them, a negation that
reads the window after the match) is enumerated whole and cut, and :func:`first_matches`
says why.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

from kleene.engines import fastest
from kleene.engines.count import ses
from kleene.engines.count.counting import outside, reads_sremo, ses_pattern
from kleene.reference.budget import Budget
from kleene.reference.events import Stream
from kleene.reference.match import Match
from kleene.reference.pattern import Pattern
from kleene.reference.query import Query
from kleene.reference.ses.pattern import SESPattern

#: The operator constructs that read events outside the match (seed 003 Sec. 4.4).
NEGATIONS = frozenset({"negation", "negated-subpattern"})
#: The first prefix tried when the count does not guide the search (events).
FIRST_PREFIX = 4096


@dataclass(frozen=True)
class First:
    """The first ``matches`` (in order), the ``backend`` that enumerated them, the
    ``events`` of the prefix read, ``why`` the whole stream was matched (``None``
    when a prefix sufficed), and why the shared structure gave way to engine ``srt``
    (:func:`kleene.engines.count.tecs.gave_way`; ``None`` when it did not)."""

    matches: tuple[Match, ...]
    backend: str
    events: int
    why: str | None
    query: Query
    gave_way: str | None = None


def order(m: Match) -> tuple[int, str]:
    """The order of :func:`first_matches`: last position, then canonical text."""
    return m.last, m.dumps()


def not_prefix_closed(query: Query) -> str | None:
    """Why ``query``'s matches may depend on events after their last one, or ``None``."""
    if query.policy not in ("any", "stream"):
        return f"policy {query.policy} keeps matches by what follows them"
    if query.language == "ses" or (reads_sremo(query) and query.policy == "stream"):
        return None
    if query.language == "operator":
        if NEGATIONS & set(query.lang.constructs_of(query.pattern)):
            return "a NOT reads the window after the match"
        return None
    return f"the first matches of a {query.lang.title} query are not worked out"


def prefix(stream: Stream, n: int) -> Stream:
    """The first ``n`` events of ``stream`` (its columns kept when loaded)."""
    if n >= len(stream):
        return stream
    if stream.columns is not None:
        return Stream.from_columns(stream.columns.slice(0, n), stream.time_unit)
    return Stream(stream.events[:n], stream.time_unit)


def counted_prefix(query: Query, stream: Stream, k: int) -> int:
    """The length of the shortest prefix that ends a tie group and holds the first
    ``k`` matches, by the count's pass (which stops there)."""
    pattern = ses_pattern(query)
    assert isinstance(pattern, SESPattern)
    total, until, end = 0, None, len(stream)
    for x in ses.endings(pattern, stream, time_unit=query.time_unit,
                         reading=query.reading):
        if until is not None and x.ts != until:
            break
        total += x.count
        if total >= k:
            if until is None:
                until, end = x.ts, x.position + 1
            end = max(end, x.position + 1)
    return end if until is not None else len(stream)


def first_matches(pattern: str | Pattern | Query, stream: Stream,
                  k: int, *, policy: str | None = None, engine_name: str | None = None,
                  budget: Budget | None = None) -> First:
    """The first ``k`` matches of ``pattern`` on ``stream`` in :func:`order`, matching only
    a prefix of the stream where the query is prefix-closed (the module docstring)."""
    query = Query.ask(pattern, policy=policy, door="--first").with_time_unit(stream.time_unit)
    why = not_prefix_closed(query)
    if why is not None:
        found = fastest.find_matches(query, stream, engine_name=engine_name, budget=budget)
        return First(tuple(sorted(found.matches, key=order)[:k]), found.backend, len(stream),
                     why, query)
    gave_way = None
    if engine_name is None and from_structure(query):
        got = listed(query, stream, k, budget)
        if isinstance(got, First):
            return got
        gave_way, engine_name = got, "srt"
    if outside(query) is None and not reads_sremo(query):
        n = counted_prefix(query, stream, k)
    else:
        n = min(FIRST_PREFIX, len(stream))
    while True:
        found = fastest.find_matches(query, prefix(stream, n), engine_name=engine_name,
                                     budget=budget)
        if len(found.matches) >= k or n >= len(stream):
            return First(tuple(sorted(found.matches, key=order)[:k]), found.backend, n, None,
                         query, gave_way)
        n = min(2 * n, len(stream))


def from_structure(query: Query) -> bool:
    """Whether the first matches of ``query`` (no engine named) are listed from the shared
    structure of :mod:`kleene.engines.count.tecs`."""
    if not reads_sremo(query):
        return False
    # lazy: the SRT modules only for a SREMO query (the startup floor of kleene match on an
    # SES pattern, tests/test_cli_imports.py)
    from kleene.engines.count import tecs

    return not isinstance(tecs.claims(query), str)


def listed(query: Query, stream: Stream, k: int, budget: Budget | None = None
           ) -> First | str:
    """The first ``k`` matches of a SREMO query :func:`from_structure` lists, reading events
    until ``k`` have ended; each match listed spends a step of ``budget`` (those ending
    with the K-th too: they are ordered by text). Past the automaton's cap, why the
    structure gave way (:func:`first_matches` then reads prefixes with engine ``srt``)."""
    # lazy: the SRT modules only for a SREMO query (as in from_structure)
    from kleene.engines.count import tecs

    s = tecs.structure(query)
    got: list[Match] = []
    read = p = 0
    try:
        for p, ts, m, key, run in s.minterms(stream):
            ending = s.feed(p, ts, m, key, run)
            read = p + max(run, 1)
            if budget is not None:
                ending = tecs.spending(ending, budget)
            got.extend(heapq.nsmallest(k - len(got), ending, key=Match.dumps))
            if len(got) >= k:
                break
    except tecs.TooManyStates:
        return tecs.gave_way(p)
    return First(tuple(got), tecs.NAME, len(stream) if len(got) < k else read, None, query)
