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
  with the product of the candidates whatever the matches.

The faster equivalents named are computed, never guessed: the other policies
of the query's language under which a registered engine claims the same pattern
(:func:`~kleene.engines.registry.fastest_engine` on the query with the policy
replaced) without enumerating the product itself, and ``--limit N`` (the first
``N`` events) for a long input.
"""

from __future__ import annotations

import dataclasses

from kleene.engines.protocol import enumerates_any
from kleene.engines.registry import engine, fastest_engine
from kleene.reference.errors import PatternError, Unsupported
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


def warning(query: Query, name: str) -> str | None:
    """The one line said before a run by the backend ``name`` (an engine, or
    ``reference``) that ``kleene match`` chose for ``query`` when the run may fall off a
    cliff, naming the faster equivalents; ``None`` when it will not."""
    if name == "reference":
        policies = faster_policies(query)
        faster = (f"; an engine claims this pattern under --policy {', '.join(policies)}"
                  if policies else "")
        return (f"slow: the reference semantics enumerate substitutions, exponential in "
                f"the events in the worst case{faster}; --limit N matches the first N events")
    if enumerates_any(engine(name), query):
        policies = faster_policies(query, exclude_any=True)
        faster = (f"; without that enumeration: --policy {', '.join(policies)}" if policies
                  else "; no engine claims a faster policy for this pattern")
        return (f"slow: engine {name} computes policy {query.policy} by enumerating every "
                f"skip-till-any-match match and keeping some, a cost that grows with the "
                f"product of the candidates{faster}; --limit N matches the first N events")
    return None
