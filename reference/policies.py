"""Selection policies that read only matches and the stream (no pattern language).

DESIGN.md, "All-matches first": policies are predicates over the set Γ of all
matches. Two of them need nothing of the pattern but the attributes that
partition it, so every language shares them:

- ``contiguous``: strict contiguity, every event between the first and the
  last of the match is in it;
- ``partition-contiguous``: contiguity within the match's partition, the
  events that share its values of the partitioning attributes (seed 001
  Def. 6; each language says which attributes partition its patterns).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from kleene.reference.events import Event, Stream, Value
from kleene.reference.match import Match


def key(e: Event, attributes: Sequence[str]) -> tuple[Value, ...]:
    """The partition key of ``e``: its values of ``attributes``."""
    return tuple(e.value(a) for a in attributes)


def is_contiguous(s: Stream, m: Match, attributes: Sequence[str] = ()) -> bool:
    """Whether ``m`` binds every event from its first to its last one that has the
    key of its first event (with no ``attributes``: every event in between)."""
    k = key(s[m.first], attributes)
    span = [e.position for e in s.events[m.first:m.last + 1] if key(e, attributes) == k]
    return span == list(m.positions)


def contiguous(s: Stream, gamma_all: Iterable[Match],
               attributes: Sequence[str] = ()) -> set[Match]:
    """The matches of ``gamma_all`` that are contiguous (within their partition)."""
    return {m for m in gamma_all if is_contiguous(s, m, attributes)}
