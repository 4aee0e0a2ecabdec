"""Matches of a SREMO on a stream: the normative streaming detection (docs/architecture.md,
"SREMO streaming") and Def. 18 read literally (seed 004, report Def. 18).

- ``stream`` (normative): at each position ``k``, report every
  ``M ∈ Match(e, S_j..k)``, for any start ``j ≤ k``, whose last element is
  marked, i.e. ``max(M) = k``. This is what the paper's engine computes
  (seed 004 Alg. 1 over the streaming SRT of ``⊤* · e``, report Sec. 4.3: a
  run reports when it reaches a final state through a marking transition),
  and it gives Example 3.7's "M = {1, 4} is also a match of e1 on S".
- ``literal``: ``Match(e, S)`` of Def. 18 over the whole stream: every match
  must consume the entire string, so {1, 4} is *not* a match of e1 on
  S_1..5 (``docs/errata.md#seed-004-def18-whole-string``). Kept for teaching.
  The empty match (a run that marks nothing) is :data:`EMPTY_MATCH`.

``e PARTITION BY a`` (:class:`~kleene.reference.sremo.expressions.Partition`,
Kleene's extension for Wayeb's ``{partitionBy:a}``): either policy on each
sub-stream of the elements sharing their values of ``a``, positions mapped back.

Matches are :class:`~kleene.reference.match.Match` values built with
``Match.marked`` (0-based positions; the paper's index 1 is position 0).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import replace
from typing import Any, TypeAlias

from kleene.reference.budget import Budget
from kleene.reference.durations import READINGS
from kleene.reference.errors import PatternError
from kleene.reference.events import Stream, stream_of
from kleene.reference.match import Match
from kleene.reference.policies import part_of
from kleene.reference.sremo.expressions import Expr, Partition, check
from kleene.reference.sremo.semantics import Marks, Semantics, match_sets
from kleene.reference.sremo.text import parse_sremo

#: The readings of a time window (docs/semantics.md, "SREMO time windows").

#: The literal Def. 18 match that marks no position.
EMPTY_MATCH = Match.of({})

Events: TypeAlias = Stream | Iterable[Mapping[str, Any]]


def as_match(m: Marks) -> Match:
    """A set of marked positions as the canonical match (``{}`` when empty)."""
    return Match.marked(m) if m else EMPTY_MATCH


def detect(e: Expr, s: Stream, *, budget: Budget | None = None,
           reading: str = "inclusive") -> Iterator[tuple[int, Match]]:
    """``(k, M)`` for every match reported at position ``k``, in stream order (k ascending);
    ``reading`` is the reading of time windows (``inclusive`` or ``strict``)."""
    semantics = Semantics(s, budget, reading=reading)
    for k in range(len(s)):
        found: set[Marks] = set()
        for j in range(k + 1):
            found.update(m for m, _ in semantics.relate(e, j, k + 1) if k in m)
        for m in sorted(found, key=sorted):
            yield k, Match.marked(m)


def stream_matches(e: Expr, s: Stream, *, budget: Budget | None = None,
                   reading: str = "inclusive") -> set[Match]:
    """The normative match set: every match :func:`detect` reports."""
    return {m for _, m in detect(e, s, budget=budget, reading=reading)}


def literal_matches(e: Expr, s: Stream, *, budget: Budget | None = None,
                    reading: str = "inclusive") -> set[Match]:
    """``Match(e, S)`` of Def. 18 read literally, over the whole stream."""
    return {as_match(m) for m in match_sets(e, s, budget=budget, reading=reading)}


POLICIES: dict[str, Callable[..., set[Match]]] = {
    "stream": stream_matches,
    "literal": literal_matches,
}


def matches(expr: Expr | str, stream: Events, budget: Budget | None = None,
            *, policy: str = "stream", reading: str = "inclusive") -> set[Match]:
    """The reference result of ``expr`` (an expression or its text) on ``stream``;
    ``reading`` is how time windows bound a match (``inclusive`` ≤ τ, ``strict`` < τ)."""
    if policy not in POLICIES:
        raise PatternError(f"unknown SREMO policy {policy!r}; choose one of "
                           f"{', '.join(POLICIES)}")
    e = parse_sremo(expr) if isinstance(expr, str) else check(expr)
    if reading not in READINGS:
        raise PatternError(f"unknown window reading {reading!r}; choose one of "
                           f"{', '.join(READINGS)}")
    s = stream_of(stream)
    if isinstance(e, Partition):
        return {Match.marked(positions[i] for i in m.positions) if m.positions else m
                for positions, part in parts(s, e.by)
                for m in POLICIES[policy](e.body, part, budget=budget, reading=reading)}
    return POLICIES[policy](e, s, budget=budget, reading=reading)


def parts(s: Stream, by: tuple[str, ...]) -> list[tuple[list[int], Stream]]:
    """The sub-streams of ``e PARTITION BY by`` (:class:`Partition`): for each part
    (:func:`~kleene.reference.policies.part_of`, in order of first element) the
    positions of its elements in ``s`` and the sub-stream (positions 0..)."""
    found: dict[object, list[int]] = {}
    for x in s:
        found.setdefault(part_of(x, by), []).append(x.position)
    return [(positions, Stream([replace(s[p], position=i) for i, p in enumerate(positions)],
                               s.time_unit)) for positions in found.values()]


def run_text(text: str, stream: Events, policy: str = "stream", *,
             budget: Budget | None = None, reading: str = "inclusive") -> set[Match]:
    """Parse ``text`` (our SREMO syntax) and run it under ``policy`` (``stream`` or ``literal``)."""
    return matches(parse_sremo(text), stream, budget, policy=policy, reading=reading)
