"""Partitioning attributes: seed 001 Sec. 4.4, Def. 6.

Θeq is the set of relationships ``vi.A = vj.A`` (one attribute on both
sides). An attribute A partitions the stream iff the transitive closure Θ+eq
relates every pair of variables through A, that is, iff the equalities on A
connect all m variables. Then every match has one value of A on all its
events, and matching per partition equals matching the whole stream.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from kleene.reference.conditions import Attr, Cmp, Condition
from kleene.reference.events import Event, Stream, Value
from kleene.reference.ses.pattern import SESPattern


def equality_relationships(pattern: SESPattern) -> list[tuple[str, str, str]]:
    """Θeq as ``(vi, vj, A)`` triples: the conditions ``vi.A = vj.A`` with vi ≠ vj."""
    out = []
    for c in pattern.conditions:
        if (isinstance(c, Cmp) and c.op == "=" and isinstance(c.left, Attr)
                and isinstance(c.right, Attr) and c.left.attr == c.right.attr
                and c.left.var != c.right.var):
            out.append((c.left.var, c.right.var, c.left.attr))
    return out


def partitioning_attributes(pattern: SESPattern) -> tuple[str, ...]:
    """X of Def. 6: the attributes whose equalities (closed transitively) relate all variables."""
    names = pattern.names
    if len(names) < 2:
        return ()
    out = []
    for attr in sorted({a for _, _, a in equality_relationships(pattern)}):
        parent = {n: n for n in names}

        def root(n: str) -> str:
            while parent[n] != n:
                n = parent[n]
            return n

        for vi, vj, a in equality_relationships(pattern):
            if a == attr:
                parent[root(vi)] = root(vj)
        if len({root(n) for n in names}) == 1:
            out.append(attr)
    return tuple(out)


def is_partitioning_equality(c: Condition, attributes: Sequence[str]) -> bool:
    """Whether ``c`` is an equality ``vi.A = vj.A`` on a partitioning attribute A
    (Def. 6: such conditions can be dropped from Θ before calling A)."""
    return (isinstance(c, Cmp) and c.op == "=" and isinstance(c.left, Attr)
            and isinstance(c.right, Attr) and c.left.attr == c.right.attr
            and c.left.attr in attributes)


def key(e: Event, attributes: Sequence[str]) -> tuple[Value, ...]:
    """The partition key of ``e``: its values of the partitioning attributes."""
    return tuple(e.value(a) for a in attributes)


def partitions(s: Stream, attributes: Sequence[str]) -> Iterator[tuple[tuple[Value, ...],
                                                                      tuple[Event, ...]]]:
    """The stream split by key, each part in stream order (positions kept)."""
    parts: dict[tuple[Value, ...], list[Event]] = {}
    for e in s:
        parts.setdefault(key(e, attributes), []).append(e)
    for k, events in parts.items():
        yield k, tuple(events)
