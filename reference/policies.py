"""Selection policies that read only matches and the stream (no pattern language).

docs/architecture.md, "All-matches first": policies are predicates over the set Γ of all
matches. Two of them need nothing of the pattern but the attributes that
partition it, so every language shares them:

- ``contiguous``: strict contiguity, every event between the first and the
  last of the match is in it;
- ``partition-contiguous``: contiguity within the match's partition, the
  events that share its values of the partitioning attributes (seed 001
  Def. 6; each language says which attributes partition its patterns).
  "Share" is the condition language's ``=`` (:func:`partition_key`): ``1``
  and ``TRUE`` differ, ``1`` and ``1.0`` do not, and an event that misses a
  value shares it with no other event.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from kleene.reference.events import Event, Stream, Value
from kleene.reference.match import Match


def partition_key(e: Event, attributes: Sequence[str]) -> tuple[tuple[str, Value], ...] | None:
    """The Def. 6 key of ``e``: ``(kind, value)`` per attribute, so that two events
    share a key iff ``=`` holds on every attribute; ``None`` if ``e`` misses one."""
    out = []
    for a in attributes:
        v = e.value(a)
        if v is None:
            return None
        out.append(("bool" if isinstance(v, bool) else
                    "num" if isinstance(v, (int, float)) else "str", v))
    return tuple(out)


def part_of(e: Event, attributes: Sequence[str]) -> object:
    """The part ``e`` belongs to: its :func:`partition_key`, or a part of its own
    when it misses a value."""
    k = partition_key(e, attributes)
    return ("missing", e.position) if k is None else k


def is_contiguous(s: Stream, m: Match, attributes: Sequence[str] = ()) -> bool:
    """Whether ``m`` binds every event from its first to its last one that is in
    the part of its first event (with no ``attributes``: every event in between)."""
    k = part_of(s[m.first], attributes)
    span = [e.position for e in s.events[m.first:m.last + 1] if part_of(e, attributes) == k]
    return span == list(m.positions)


def contiguous(s: Stream, gamma_all: Iterable[Match],
               attributes: Sequence[str] = ()) -> set[Match]:
    """The matches of ``gamma_all`` that are contiguous (within their partition)."""
    return {m for m in gamma_all if is_contiguous(s, m, attributes)}
