"""Pruning soundness for SES patterns, per selection policy (seed 001 Sec. 4).

**Filtering** (Thm 1) keeps the matches of the filter-invariant policies
(:data:`~kleene.reference.ses.filtering.FILTER_INVARIANT_POLICIES`: ``any``,
``next``, ``next-literal``, ``earliest-maximal``); ``contiguous`` and
``partition-contiguous`` read the dropped events
(``docs/errata.md#seed-001-filter-contiguous``).

**Partitioning** by X of Def. 6 (every match has one value of X on all its
events, compared with ``=``: :func:`~kleene.reference.policies.partition_key`)
keeps a policy whose verdict on a match reads only events of the match's part:

- ``any``: every match lies in one part;
- ``earliest-maximal``: it compares matches with the same first event, which
  all lie in that event's part;
- ``partition-contiguous``: it reads only the match's part (grouped by the
  same kind-aware key);
- ``next``: only for the attributes every step of a run pins
  (:func:`next_partitioning_attributes`): otherwise a run may *take* an event
  of another part before any equality relates it to its bindings, and then
  no longer waits for the event of its own part
  (``docs/errata.md#seed-001-partitioning-next``);
- not ``contiguous`` (it reads every event between first and last) and not
  ``next-literal`` (its condition 4 quantifies over the matches of every
  part, ``docs/errata.md#seed-000-condition-4-across-partitions``).

**Time slices** that own the matches starting in them and hold the events
with ``ts`` in ``[start − L·τ, end + A·τ]`` are sound when the verdict on a
match reads only events within ``[first.ts − L·τ, first.ts + A·τ]``:
``(0, 1)`` for every policy but ``next-literal``, whose condition 4 looks for
a match γ′ binding an event strictly inside the match's span, so γ′ lies in
``[first.ts − τ, first.ts + 2τ]``: ``(1, 2)``.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations

from kleene.reference.conditions import TRUE, Attr, Cmp, Condition, Prev, conjuncts, variables
from kleene.reference.pruning import Pruning
from kleene.reference.ses.filtering import FILTER_INVARIANT_POLICIES, filter_condition
from kleene.reference.ses.partitioning import partitioning_attributes
from kleene.reference.ses.pattern import SESPattern

#: Policies whose matches, computed per Def. 6 part, equal the whole stream's
#: (``next`` only by :func:`next_partitioning_attributes`).
PARTITION_INVARIANT_POLICIES: tuple[str, ...] = ("any", "earliest-maximal",
                                                 "earliest-maximal-contained",
                                                 "partition-contiguous")

#: ``(L, A)`` per policy (see the module docstring).
SLICE_REACH: dict[str, tuple[int, int]] = {
    "any": (0, 1), "next": (0, 1), "earliest-maximal": (0, 1),
    "earliest-maximal-contained": (0, 1), "contiguous": (0, 1),
    "partition-contiguous": (0, 1), "next-literal": (1, 2),
}

#: Sets with more variables than this are not searched by
#: :func:`next_partitioning_attributes` (the steps grow as 2^|B|).
MAX_SET_FOR_NEXT = 12


def steps(pattern: SESPattern) -> Iterator[tuple[frozenset[str], str]]:
    """Every (bound variables S ≠ ∅, variable w) such that a run in the state S
    may take an event for w (the options of
    :func:`kleene.reference.ses.policies.can_take`, seed 000 Sec. 4.2)."""
    sets = pattern.sets
    for i, block in enumerate(sets):
        before = frozenset(v.name for b in sets[:i] for v in b)
        for size in range(1, len(block) + 1):
            for chosen in combinations(block, size):
                bound = before | {v.name for v in chosen}
                for v in block:
                    if v.name not in bound or v.group:
                        yield bound, v.name
                if size == len(block) and i + 1 < len(sets):
                    for v in sets[i + 1]:
                        yield bound, v.name


def pins(c: Condition, bound: frozenset[str], w: str, attr: str) -> bool:
    """Whether ``c`` forces an event taken for ``w`` to share ``attr`` with an event
    already bound: ``w.A = u.A`` (u bound, u ≠ w), or ``prev(w.A) = w.A`` (w bound)."""
    if not (isinstance(c, Cmp) and c.op == "="):
        return False
    sides = {c.left, c.right}
    if Attr(w, attr) not in sides or len(sides) != 2:
        return False
    (other,) = sides - {Attr(w, attr)}
    if isinstance(other, Attr):
        return other.attr == attr and other.var != w and other.var in bound
    return isinstance(other, Prev) and other == Prev(w, attr) and w in bound


def next_partitioning_attributes(pattern: SESPattern) -> tuple[str, ...]:
    """The attributes A of X (Def. 6) by which ``next`` may be computed per part.

    A qualifies when every event a run could take after its first one is checked
    at that moment against a bound event for equality on A: for every state S ≠ ∅
    and every variable w a run in S may take, some conjunct of a condition of Θ,
    fully bound once w is, pins A (:func:`pins`). Then an event of another part
    enables no transition, so it vetoes no run
    (:func:`kleene.reference.ses.policies.is_next`), and the runs of each part
    are the whole stream's.
    """
    candidates = partitioning_attributes(pattern)
    if not candidates or max(len(b) for b in pattern.sets) > MAX_SET_FOR_NEXT:
        return ()
    moves = list(steps(pattern))
    out = []
    for attr in candidates:
        if all(any(pins(x, bound, w, attr) for c in pattern.conditions
                   if w in variables(c) and variables(c) <= bound | {w}
                   for x in conjuncts(c))
               for bound, w in moves):
            out.append(attr)
    return tuple(out)


def partitioning_attributes_for(pattern: SESPattern, policy: str) -> tuple[str, ...]:
    """The attributes by which ``policy``'s matches may be computed per part."""
    if policy in PARTITION_INVARIANT_POLICIES:
        return partitioning_attributes(pattern)
    if policy == "next":
        return next_partitioning_attributes(pattern)
    return ()


def pruning(pattern: SESPattern, policy: str) -> Pruning:
    """Which of filtering, partitioning and time slices keep ``policy``'s matches."""
    notes = []
    condition = None
    if policy in FILTER_INVARIANT_POLICIES:
        condition = filter_condition(pattern)
        if condition == TRUE:
            condition = None
            notes.append("filter (Thm 1): none, a variable has no property")
        else:
            notes.append(f"filter (Thm 1): applied, {policy!r} is filter-invariant")
    else:
        notes.append(f"filter (Thm 1): not applied, {policy!r} reads the filtered events")
    keys = partitioning_attributes_for(pattern, policy)
    every = partitioning_attributes(pattern)
    if keys:
        notes.append(f"partitions (Def. 6): by {', '.join(keys)}")
    elif every:
        notes.append(f"partitions (Def. 6): not by {', '.join(every)}, unsound for {policy!r}")
    else:
        notes.append("partitions (Def. 6): the pattern has no partitioning attribute")
    reach = SLICE_REACH.get(policy)
    if reach is not None:
        notes.append(f"time slices: sound if each holds [start − {reach[0]}τ, end + {reach[1]}τ] "
                     "and owns the matches that start in it")
    return Pruning(policy, condition, keys, reach, tuple(notes))
