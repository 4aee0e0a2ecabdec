"""What ``MATCH_RECOGNIZE`` must answer, derived from the reference (SQL:2016 semantics).

For a translation (:mod:`kleene.reference.operators.to_match_recognize`: a
sequence of primitives, each matched once or
under a greedy quantifier), SQL:2016 row-pattern recognition tries each row
of a partition in order as a start row and keeps, among the matches starting
there, the first in *preferment order*: greedy quantifiers prefer more rows,
the earlier quantifier first, so the preferred match is the one whose vector
of per-variable row counts is lexicographically largest. The candidate
matches are exactly the reference's matches of the same pattern under the
contiguity policy the plan stands for (``contiguous``: the whole stream is one
partition; ``partition-contiguous``: the partitions of Def. 6), because a
contiguous match binds exactly the rows from its first to its last one.

- ``AFTER MATCH SKIP TO NEXT ROW``: the preferred match of every start row;
- ``AFTER MATCH SKIP PAST LAST ROW``: from the first row, the preferred match
  of the current row, then resume after its last row (a row without a match:
  resume at the next row).

No Kleene policy is either of these (the contiguous policies keep every
contiguous match); they agree with ``TO NEXT ROW`` when every variable binds
one row. This oracle is what the adapters' engines are held to in the
``MATCH_RECOGNIZE``-semantics probe of ``make peers``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from kleene.reference.events import Stream
from kleene.reference.match import Match
from kleene.reference.operators.to_match_recognize import Translation
from kleene.reference.policies import part_of


def counts(p: Translation, m: Match) -> tuple[int, ...]:
    """How many rows each variable of the row pattern binds in ``m``, in pattern order."""
    bound = dict(m.bindings)
    return tuple(len(bound.get(i.var, ())) for i in p.items)


def preferred(p: Translation, candidates: Iterable[Match]) -> dict[int, Match]:
    """The preferred match of each start row (its first position)."""
    best: dict[int, Match] = {}
    for m in candidates:
        cur = best.get(m.first)
        if cur is None or counts(p, m) > counts(p, cur):
            best[m.first] = m
    return best


def expected(p: Translation, s: Stream, contiguous_matches: Iterable[Match]) -> set[Match]:
    """The match set ``MATCH_RECOGNIZE`` with ``p.skip`` must give over ``s``, from the
    reference's matches under the contiguity policy ``p`` translates."""
    best = preferred(p, contiguous_matches)
    if p.skip == "TO NEXT ROW":
        return set(best.values())
    out: set[Match] = set()
    for rows in partitions(s, p.partition):
        k = 0
        while k < len(rows):
            m = best.get(rows[k])
            if m is None:
                k += 1
                continue
            out.add(m)
            k = next((j for j in range(k + 1, len(rows)) if rows[j] > m.last), len(rows))
    return out


def partitions(s: Stream, attributes: Sequence[str]) -> list[list[int]]:
    """The positions of each part of ``s`` (Def. 6 keys; all one part without attributes)."""
    parts: dict[object, list[int]] = {}
    for e in s.events:
        parts.setdefault(part_of(e, attributes), []).append(e.position)
    return list(parts.values())
