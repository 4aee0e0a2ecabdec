"""Cliffs said before a run (issue 29, "no cliffs without a word").

``kleene match`` picks its backend itself (:func:`~kleene.engines.fastest.choose`).
Two choices can make a run slow where another choice is fast, and this module
says so, on one line on stderr, before the run:

- the *reference semantics*, when no registered engine claims the query: they
  enumerate substitutions by definition (exponential in the events in the worst
  case, docs/architecture.md, "All matches first, budgets always"); on more than
  :data:`REFERENCE_MAX_EVENTS` events ``kleene match`` refuses to fall back on
  them unless ``--engine reference`` is named;
- an engine that computes the policy by enumerating every skip-till-any-match
  match and keeping some (:func:`~kleene.engines.protocol.enumerates_any`: the
  NFAs under ``next``, ``contiguous`` and ``partition-contiguous``), whose cost grows
  with the product of the candidates whatever the matches; not said when the engine
  enumerates each part of a ``PARTITION BY`` alone and no part holds more than
  :data:`SMALL_PART` events within one window
  (:func:`~kleene.engines.protocol.keyed_by`: the operator funnel under ``next``).

The faster equivalents named are computed, never guessed: the other policies
of the query's language under which a registered engine claims the same pattern
(:func:`~kleene.engines.registry.fastest_engine` on the query with the policy
replaced) without enumerating the product itself, and ``--limit N`` (the first
``N`` events) for a long input.

A third cliff is the listing itself: millions of matches (a group variable under
``any``: 2^n - 1 of them) take minutes to list whatever the engine. Where the count
claims the query (:mod:`kleene.engines.count`, docs/counting.md), :func:`tally` counts
them first, by dynamic programming within :data:`COUNT_SECONDS`, and past
:data:`MANY_MATCHES` :func:`listing` says so in one line with ``--count`` and
``--first K``; a count past the budget's steps (one per match listed) stops the run
before it starts, with the budget's own error (:func:`over_budget`).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator
from typing import Any

from kleene.data.source import column_batches, source_name, time_unit_of
from kleene.engines.protocol import enumerates_any, keyed_by
from kleene.engines.registry import engine, fastest_engine
from kleene.reference.budget import Budget
from kleene.reference.errors import BudgetExceeded, PatternError, Unsupported
from kleene.reference.events import Event
from kleene.reference.query import Query

#: The most events ``kleene match`` hands to the reference semantics when it falls back on
#: them by itself; above, it refuses unless ``--engine reference`` is named.
REFERENCE_MAX_EVENTS = 50_000

#: The policy whose matches are every combination of candidates (skip-till-any-match), in
#: the languages that have it: an engine enumerating it is never faster than one filtering it.
ANY = "any"


def faster_policies(query: Query, *, exclude_any: bool = False) -> list[str]:
    """The other policies of ``query``'s language under which some registered engine
    claims the same pattern without enumerating every skip-till-any-match match, each as
    ``POLICY (ENGINE)``; ``exclude_any`` leaves out ``any`` itself (whose matches are that
    enumeration)."""
    found = []
    for policy in query.lang.policies:
        if policy == query.policy or (exclude_any and policy == ANY):
            continue
        try:
            other = dataclasses.replace(query, policy=policy)
        except PatternError:   # the pattern names its own policy
            continue
        choice = fastest_engine(other)
        if choice is None:
            continue
        fast = [n for n in (choice.name, *choice.others)
                if not enumerates_any(engine(n), other)]
        if fast:
            found.append(f"{policy} ({fast[0]})")
    return found


def _instead(options: list[str]) -> str:
    return "; ".join(options)


def refuse_reference(query: Query, events: int | None) -> None:
    """One :class:`Unsupported` line when the reference semantics, fallen back on, would
    read more than :data:`REFERENCE_MAX_EVENTS` events, saying how to run it anyway or what
    runs faster; nothing otherwise (``events``: the stream's length, ``None`` unknown)."""
    if events is None or events <= REFERENCE_MAX_EVENTS:
        return
    options = ["--engine reference runs it anyway",
               f"--limit {REFERENCE_MAX_EVENTS} matches the first {REFERENCE_MAX_EVENTS:,}"]
    policies = faster_policies(query)
    if policies:
        options.append("an engine claims it under --policy " + ", ".join(policies))
    raise Unsupported(f"no registered engine claims this {query.language} pattern under policy "
                      f"{query.policy}, and the reference semantics (exponential in the worst "
                      f"case) are not run by default on {events:,} events (more than "
                      f"{REFERENCE_MAX_EVENTS:,}): {_instead(options)}")


def warning(query: Query, name: str, events: Any = None) -> str | None:
    """The one line said before a run by the backend ``name`` (an engine, or
    ``reference``) that ``kleene match`` chose for ``query`` on ``events`` when the run may
    fall off a cliff, naming the faster equivalents; ``None`` when it will not: also when
    the engine enumerates each part alone (:func:`~kleene.engines.protocol.keyed_by`) and
    no part holds more than :data:`SMALL_PART` events within one window."""
    if name == "reference":
        policies = faster_policies(query)
        faster = (f"; an engine claims this pattern under --policy {', '.join(policies)}"
                  if policies else "")
        return (f"slow: the reference semantics enumerate substitutions, exponential in "
                f"the events in the worst case{faster}; --limit N matches the first N events")
    if enumerates_any(engine(name), query):
        keyed = None if events is None else keyed_by(engine(name).compile(query), events)
        if keyed is not None and keyed[1] <= SMALL_PART:
            return None
        policies = faster_policies(query, exclude_any=True)
        faster = (f"; without that enumeration: --policy {', '.join(policies)}" if policies
                  else "; no engine claims a faster policy for this pattern")
        product = ("the product of the candidates" if keyed is None else
                   f"the product of one part's candidates within a window (a part of "
                   f"{', '.join(keyed[0])} holds {keyed[1]:,} events within one)")
        return (f"slow: engine {name} computes policy {query.policy} by enumerating every "
                f"skip-till-any-match match and keeping some, a cost that grows with "
                f"{product}{faster}; --limit N matches the first N events")
    return None


#: The most events of one part within one window for which an engine enumerating each part
#: alone (the NFAs keyed by ``PARTITION BY``) is not said to be slow: with k single events
#: in the pattern, at most C(100, k) skip-till-any-match matches per part and window (the
#: 1 M-row funnel's largest part holds 26 events within 30 minutes).
SMALL_PART = 100

#: Seconds the count before a listing may take (:func:`tally`); past them it stops and
#: keeps what it counted, a lower bound.
COUNT_SECONDS = 2.0

#: Matches past which a listing is said before it starts (:func:`listing`): some 10 CPU
#: seconds of ``windows+ses`` (:data:`LISTING_RATE`).
MANY_MATCHES = 500_000
#: What answers a query whose matches are too many to list.
ANSWER_NOW = "--count answers now, --first K lists K"

#: Matches listed per CPU second (start-up included) by the engines ``kleene match`` lists
#: the counted queries with, measured on docs/counting.md's windowed case ("The listing
#: cliff": 655,320 matches in 13.0 and 9.0 CPU s); the time said is the count over the
#: rate, on an idle core (a loaded machine takes longer).
LISTING_RATE = {"windows+ses": 50_000, "nfa-chain": 70_000}

#: Rows of the stream the count reads between two looks at the clock.
_ROWS = 16_384


@dataclasses.dataclass(frozen=True)
class Tally:
    """The matches counted before a listing: ``matches`` of them end in the first
    ``events`` events (all of them when ``complete``), counted in ``seconds``."""

    matches: int
    events: int
    complete: bool
    seconds: float


class _Until:
    """``stream`` read up to a deadline: its batches of columns (or events) until the
    clock passes ``deadline``, then none; ``read`` the events given, ``stopped`` whether
    the clock stopped them."""

    def __init__(self, stream: Any, deadline: float) -> None:
        self.stream, self.deadline = stream, deadline
        self.time_unit = time_unit_of(stream)
        self.source = source_name(stream)
        self.read, self.stopped = 0, False

    def batches(self) -> Iterator[tuple[int, Any]] | None:
        found = column_batches(self.stream, _ROWS)
        return None if found is None else self._batches(found)

    def _batches(self, found: Iterator[tuple[int, Any]]) -> Iterator[tuple[int, Any]]:
        for offset, part in found:
            if time.monotonic() > self.deadline:
                self.stopped = True
                return
            self.read = offset + len(part)
            yield offset, part

    def __iter__(self) -> Iterator[Event]:
        for e in self.stream:
            if self.read % _ROWS == 0 and time.monotonic() > self.deadline:
                self.stopped = True
                return
            self.read += 1
            yield e


def tally(query: Query, stream: Any, seconds: float | None = None) -> Tally | None:
    """The number of matches of ``query`` on ``stream`` by dynamic programming
    (:func:`kleene.engines.count.ses.endings`), read for at most ``seconds`` (default
    :data:`COUNT_SECONDS`): what it counted by then; ``None`` where the count does not
    claim the query (:func:`kleene.engines.count.counting.outside`)."""
    if query.policy != ANY:   # the count claims any only: no module imported for the rest
        return None
    # lazy: the counting modules only for a listing they may claim (the startup floor of
    # kleene match, tests/test_cli_imports.py)
    from kleene.engines.count.counting import outside, ses_pattern
    from kleene.engines.count.ses import endings

    if outside(query) is not None:
        return None
    pattern = ses_pattern(query)
    assert not isinstance(pattern, str)
    began = time.monotonic()
    source = _Until(stream, began + (COUNT_SECONDS if seconds is None else seconds))
    n = sum(x.count for x in endings(pattern, source, time_unit=query.time_unit,
                                     reading=query.reading))
    return Tally(n, source.read, not source.stopped, time.monotonic() - began)


def _duration(seconds: float) -> str:
    """``~40 s``, ``~9 min``, ``~3 h``, ``~12 days``."""
    for unit, size in (("days", 86_400), ("h", 3_600), ("min", 60)):
        if seconds >= 2 * size:
            return f"~{seconds / size:,.0f} {unit}"
    return f"~{max(1, round(seconds))} s"


def listing(counted: Tally, name: str, events: int | None) -> str | None:
    """The one line said before engine ``name`` lists the matches ``counted`` when they
    pass :data:`MANY_MATCHES`, ``None`` below (``events``: the stream's length, ``None``
    unknown): how many, how long listing them takes at the engine's measured rate, and
    the options that answer now. (Past the budget :func:`over_budget` stops the run
    first, in its one line.)"""
    if counted.matches <= MANY_MATCHES:
        return None
    many = (f"{counted.matches:,} matches" if counted.complete else
            f"at least {counted.matches:,} matches (in the first {counted.events:,} events"
            + (f" of {events:,})" if events is not None else ")"))
    rate = LISTING_RATE.get(name)
    more = "" if counted.complete else "more than "
    takes = (f"listing them takes {more}{_duration(counted.matches / rate)} of CPU "
             f"(~{rate:,} matches/s)" if rate is not None else "listing them takes minutes")
    return f"slow: {many}: {takes}; {ANSWER_NOW}"


def over_budget(counted: Tally, budget: Budget, name: str) -> None:
    """The budget's own error now, in its one line, when listing the matches ``counted``
    would spend more steps than ``budget`` has (one per match listed,
    :func:`kleene.engines.fastest.spent`): the listing would stop there with that error,
    minutes later; nothing otherwise."""
    if counted.matches > budget.limit:
        many = f"{counted.matches:,}" if counted.complete else f"at least {counted.matches:,}"
        raise BudgetExceeded(budget.name, budget.limit,
                             f"running engine {name} ({many} matches counted before "
                             f"listing, one step each; {ANSWER_NOW})")
