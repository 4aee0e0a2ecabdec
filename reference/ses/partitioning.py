"""Partitioning attributes: seed 001 Sec. 4.4, Def. 6.

Θeq is the set of relationships ``vi.A = vj.A`` (one attribute on both
sides). An attribute A partitions the stream iff the transitive closure Θ+eq
relates every pair of variables through A, that is, iff the equalities on A
connect all m variables. Then every match has one value of A on all its
events, and matching per partition equals matching the whole stream.

Def. 6 (Partitioned Match Windows): X partitions a window W into W1, ..., Wn
with ``∀ei, ej ∈ Wi ∀A ∈ X (ei.A = ej.A)``; after partitioning, the
equalities ``vi.A = vj.A`` on A ∈ X "can be removed from Θ before calling A"
(Sec. 4.4, Algorithm 1). "=" is the condition language's: values of different
kinds (``1`` and ``TRUE``, ``1`` and ``'1'``) are never equal, ``1`` and
``1.0`` are, and a missing value equals nothing, not even another missing
value. So :func:`~kleene.reference.policies.partition_key` tags values with
their kind, and an event that misses a value of X is alone in its part: it can
be in no match (m ≥ 2, and each of its variable's equalities is unknown).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from kleene.reference.budget import Budget
from kleene.reference.conditions import Attr, Cmp, Condition
from kleene.reference.events import Event
from kleene.reference.match import Match
from kleene.reference.policies import part_of, partition_key  # noqa: F401  (re-exported)
from kleene.reference.ses.pattern import SESPattern
from kleene.reference.ses.windows import check_order, matches_over


def equality_relationships(pattern: SESPattern) -> list[tuple[str, str, str]]:
    """Θeq as ``(vi, vj, A)`` triples: the conditions ``vi.A = vj.A`` with vi ≠ vj."""
    out = []
    for c in pattern.conditions:
        if (isinstance(c, Cmp) and c.op == "=" and isinstance(c.left, Attr)
                and isinstance(c.right, Attr) and c.left.attr == c.right.attr
                and c.left.var != c.right.var):
            out.append((c.left.var, c.right.var, c.left.attr))
    return out


def connects_all(names: Sequence[str], edges: Sequence[tuple[str, str]]) -> bool:
    """Whether the undirected ``edges`` connect every one of ``names`` (union-find)."""
    parent = {n: n for n in names}

    def root(n: str) -> str:
        while parent[n] != n:
            n = parent[n]
        return n

    for vi, vj in edges:
        parent[root(vi)] = root(vj)
    return len({root(n) for n in names}) == 1


def partitioning_attributes(pattern: SESPattern) -> tuple[str, ...]:
    """X of Def. 6: the attributes whose equalities (closed transitively) relate all variables."""
    names = pattern.names
    if len(names) < 2:
        return ()
    eq = equality_relationships(pattern)
    return tuple(attr for attr in sorted({a for _, _, a in eq})
                 if connects_all(names, [(vi, vj) for vi, vj, a in eq if a == attr]))


def is_partitioning_equality(c: Condition, attributes: Sequence[str]) -> bool:
    """Whether ``c`` is an equality ``vi.A = vj.A`` on a partitioning attribute A
    (Def. 6: such conditions can be dropped from Θ before calling A)."""
    return (isinstance(c, Cmp) and c.op == "=" and isinstance(c.left, Attr)
            and isinstance(c.right, Attr) and c.left.attr == c.right.attr
            and c.left.attr in attributes)


def partitioned(W: Sequence[Event], attributes: Sequence[str]) -> tuple[tuple[Event, ...], ...]:
    """W1, ..., Wn of Def. 6: ``W`` split by :func:`partition_key`, each part in
    stream order, parts ordered by their first event; an event that misses a
    value of ``attributes`` forms a part alone."""
    check_order(W)
    parts: dict[object, list[Event]] = {}
    for e in W:
        parts.setdefault(part_of(e, attributes), []).append(e)
    return tuple(tuple(p) for p in parts.values())


def partitioned_window(pattern: SESPattern, W: Sequence[Event]) -> tuple[tuple[Event, ...], ...]:
    """Def. 6: ``W`` partitioned by the partitioning attributes X of ``pattern``
    (one part, ``W`` itself, when X is empty). Example 12: W'1 by PID."""
    return partitioned(W, partitioning_attributes(pattern))


def without_partitioning_equalities(pattern: SESPattern) -> SESPattern:
    """``pattern`` with the equalities ``vi.A = vj.A`` on A ∈ X removed from Θ
    (Sec. 4.4; Algorithm 1 calls A with them dropped). Valid only per partition."""
    attributes = partitioning_attributes(pattern)
    kept = tuple(c for c in pattern.conditions if not is_partitioning_equality(c, attributes))
    return replace(pattern, conditions=kept)


def partitioned_matches(pattern: SESPattern, events: Sequence[Event], *,
                        time_unit: str | None = None, drop_equalities: bool = False,
                        budget: Budget | None = None) -> set[Match]:
    """The union over the Def. 6 partitions of ``events`` of the matches in each
    part (positions kept); with ``drop_equalities`` each part is matched with
    :func:`without_partitioning_equalities`. Equals the matches of ``events``."""
    budget = budget or Budget()
    used = without_partitioning_equalities(pattern) if drop_equalities else pattern
    out: set[Match] = set()
    for part in partitioned_window(pattern, events):
        out |= matches_over(used, part, time_unit=time_unit, budget=budget)
    return out
