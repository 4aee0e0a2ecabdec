"""How a run is cut for Spark: which pruning steps are sound for a policy (DESIGN.md, "Spark").

Three steps of seed 001 Sec. 4 can cut one run into many: filtering (Thm 1),
partitioning by the Def. 6 attributes, and time slices that overlap by a
multiple of τ. Each is sound only for some selection policies; the
:class:`Plan` records which ones apply, and why, so the runner never applies an
unsound one. Everything here is pure Python (no Spark), so it is unit-tested
on its own.

**Filtering** (Thm 1) leaves the matches of the *filter-invariant* policies
unchanged (:data:`~kleene.reference.ses.filtering.FILTER_INVARIANT_POLICIES`:
``any``, ``next``, ``next-literal``, ``earliest-maximal``, proved by the
property tests of ``tests/test_ses_window_properties.py``); ``contiguous`` and
``partition-contiguous`` read the dropped events
(``docs/errata.md#seed-001-filter-contiguous``), so their events are not
filtered.

**Partitioning** by the attributes X of Def. 6 (every match has one value of X)
is sound for a policy whose verdict on a match reads only events of the match's
partition:

- ``any``: every match lies in one partition;
- ``earliest-maximal``: it compares matches with the same first event, which
  all lie in that event's partition;
- ``partition-contiguous``: it reads only the match's partition;
- ``next``: only when no run can take an event of another partition, see
  :func:`next_partition_attributes` and ``docs/errata.md#seed-001-partitioning-next``
  (a run takes an event for a variable that no equality on X relates to the
  bindings made so far, and dies: per partition it would have lived);
- not ``contiguous`` (it reads every event between first and last) and not
  ``next-literal`` (its condition 4 quantifies over the matches of every
  partition, ``docs/errata.md#seed-000-condition-4-across-partitions``).

**Time slices**: the stream is cut at boundaries ``b_1 < ... < b_{K-1}``; slice
``j`` *owns* the matches whose first event has ``ts`` in ``[b_j, b_{j+1})``
and holds the events with ``ts`` in ``[b_j − L·τ, b_{j+1} + A·τ]``; so every
match is reported once, by its owner. This is sound when the verdict on a match
reads only events with ``ts`` in ``[first.ts − L·τ, first.ts + A·τ]``
(:data:`SLICE_REACH` gives ``(L, A)``): ``any``, ``earliest-maximal`` (matches
with the same first event lie within ``first.ts + τ``), ``next`` (a run that
starts at the first event sees only events up to ``first.ts + τ``),
``contiguous`` and ``partition-contiguous`` (the events between first and last
lie in the window; the slice holds every event of its time range, as nothing is
filtered for them) need ``(0, 1)``. ``next-literal`` needs ``(1, 2)``: condition
4 looks for a match γ′ binding an event e″ strictly inside the match's span, so
γ′ lies within ``[e″.ts − τ, e″.ts + τ] ⊆ [first.ts − τ, first.ts + 2τ]``, and
condition 5 compares with matches of the same first event.

An engine that does not *claim* a policy (``protocol.claims``) is not known to
compute the reference policy, so none of the proofs above apply to it: it runs
on the whole stream in one task, exactly as the single-process engine does.
Patterns other than SES patterns are run the same way (their windows and
partitioning attributes are not worked out here).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from kleene.engines.protocol import Engine, claims
from kleene.reference.conditions import TRUE, Attr, Cmp, Condition, Prev, variables
from kleene.reference.errors import Unsupported
from kleene.reference.ses.filtering import FILTER_INVARIANT_POLICIES, filter_condition
from kleene.reference.ses.partitioning import partitioning_attributes
from kleene.reference.ses.pattern import SESPattern

#: Policies whose matches, computed per Def. 6 partition, equal the whole stream's
#: (``next`` only under :func:`next_partition_attributes`).
PARTITION_INVARIANT_POLICIES = ("any", "earliest-maximal", "partition-contiguous")

#: ``(L, A)`` per policy: the verdict on a match reads only events with ``ts`` in
#: ``[first.ts − L·τ, first.ts + A·τ]`` (see the module docstring).
SLICE_REACH: dict[str, tuple[int, int]] = {
    "any": (0, 1), "next": (0, 1), "earliest-maximal": (0, 1), "contiguous": (0, 1),
    "partition-contiguous": (0, 1), "next-literal": (1, 2),
}

#: Sets with more variables than this are not searched by :func:`next_partition_attributes`.
MAX_SET_FOR_NEXT = 12


@dataclass(frozen=True)
class Plan:
    """The pruning steps that are sound for one (engine, pattern, policy).

    ``filter`` is the Thm 1 condition over the variable ``e`` (``None``: keep
    every event); ``keys`` the attributes to partition by (empty: none);
    ``reach`` the ``(L, A)`` of time slices in units of τ (``None``: no
    slices); ``tau`` τ in timestamp units (``None`` when there is no window to
    slice by). ``notes`` say, in words, what was decided and why.
    """

    policy: str
    filter: Condition | None = None
    keys: tuple[str, ...] = ()
    reach: tuple[int, int] | None = None
    tau: int | float | None = None
    notes: tuple[str, ...] = ()

    @property
    def whole(self) -> bool:
        """Whether the run is one task over the whole stream (nothing is cut)."""
        return not self.keys and self.reach is None

    def explain(self) -> str:
        """The decisions in one line each."""
        return "\n".join(self.notes)


def attributes_read(pattern: Any) -> frozenset[str]:
    """Every attribute name the pattern reads (``v.A``, ``prev(v.A)``, ``SUM(v.A)``),
    found by walking its dataclass fields, so any pattern language's AST works."""
    found: set[str] = set()
    seen: set[int] = set()

    def walk(node: Any) -> None:
        if id(node) in seen or isinstance(node, (str, int, float, bool, type(None))):
            return
        seen.add(id(node))
        if isinstance(node, (Attr, Prev)):
            found.add(node.attr)
            return
        attr = getattr(node, "attr", None)
        if isinstance(attr, str) and hasattr(node, "func"):   # an aggregate
            found.add(attr)
        if isinstance(node, dict):
            for value in node.values():
                walk(value)
        elif isinstance(node, (tuple, list, set, frozenset)):
            for value in node:
                walk(value)
        elif hasattr(node, "__dataclass_fields__"):
            for name in node.__dataclass_fields__:
                walk(getattr(node, name, None))

    walk(pattern)
    return frozenset(found)


def _steps(pattern: SESPattern) -> Iterator[tuple[frozenset[str], str]]:
    """Every (bound variables S ≠ ∅, variable w) such that a run in the state S
    may take an event for w (the options of ``policies.can_take``)."""
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


def _guards(c: Condition, bound: frozenset[str], w: str, attr: str) -> bool:
    """Whether ``c`` forces an event taken for ``w`` to have the ``attr`` of an
    event already bound: ``w.A = u.A`` (u bound, u ≠ w), or ``prev(w.A) = w.A``."""
    if not (isinstance(c, Cmp) and c.op == "="):
        return False
    sides = {c.left, c.right}
    if Attr(w, attr) not in sides or len(sides) != 2:
        return False
    (other,) = sides - {Attr(w, attr)}
    if isinstance(other, Attr):
        return other.attr == attr and other.var != w and other.var in bound
    return isinstance(other, Prev) and other == Prev(w, attr) and w in bound


def next_partition_attributes(pattern: SESPattern) -> tuple[str, ...]:
    """The attributes A of X (Def. 6) by which ``next`` may be computed per partition.

    A qualifies when every event a run could take after its first one is checked
    at that moment against a bound event for equality on A: for every state S ≠ ∅
    and every variable w a run in S may take, some condition of Θ, fully bound
    once w is, is ``w.A = u.A`` with u in S, or ``prev(w.A) = w.A`` when w loops.
    Then an event of another partition (it differs from the run's events in some
    attribute of the result, or misses it) enables no transition, so it vetoes
    no run (``policies.is_next``), and the runs of each partition are the whole
    stream's. Without it, a run may take such an event and die (``docs/errata.md``).
    """
    candidates = partitioning_attributes(pattern)
    if not candidates or max(len(b) for b in pattern.sets) > MAX_SET_FOR_NEXT:
        return ()
    steps = list(_steps(pattern))
    out = []
    for attr in candidates:
        if all(any(_guards(c, bound, w, attr) for c in pattern.conditions
                   if w in variables(c) and variables(c) <= bound | {w})
               for bound, w in steps):
            out.append(attr)
    return tuple(out)


def plan_for(engine: Engine, pattern: Any, policy: str, *, tau: int | float | None) -> Plan:
    """The :class:`Plan` for running ``engine`` on ``pattern`` under ``policy``.

    ``tau`` is the pattern's window in timestamp units (``None`` if unknown).
    Raises :class:`Unsupported` for a policy no engine knows.
    """
    if policy not in SLICE_REACH:
        raise Unsupported(f"unknown policy {policy!r}; known: {', '.join(SLICE_REACH)}")
    if not isinstance(pattern, SESPattern):
        return Plan(policy, notes=(f"{type(pattern).__name__}: run on the whole stream in one "
                                   "task (only SES patterns are cut)",))
    if not claims(engine, policy):
        return Plan(policy, notes=(f"engine {engine.name!r} does not claim policy {policy!r}: "
                                   "run on the whole stream in one task, unfiltered",))
    notes = []
    condition = None
    if policy in FILTER_INVARIANT_POLICIES:
        condition = filter_condition(pattern)
        if condition == TRUE:
            condition = None
            notes.append("filter (Thm 1): none, a variable has no property")
        else:
            notes.append(f"filter (Thm 1): pushed down, {policy!r} is filter-invariant")
    else:
        notes.append(f"filter (Thm 1): not applied, {policy!r} reads the filtered events")
    keys: tuple[str, ...] = ()
    every = partitioning_attributes(pattern)
    if policy in PARTITION_INVARIANT_POLICIES:
        keys = every
    elif policy == "next":
        keys = next_partition_attributes(pattern)
    if keys:
        notes.append(f"partitions (Def. 6): by {', '.join(keys)}")
    elif every:
        notes.append(f"partitions (Def. 6): not by {', '.join(every)}, unsound for {policy!r}")
    else:
        notes.append("partitions (Def. 6): the pattern has no partitioning attribute")
    reach = SLICE_REACH[policy] if tau is not None else None
    if reach is not None:
        notes.append(f"time slices: sound if each holds [start − {reach[0]}τ, end + {reach[1]}τ] "
                     f"(τ = {tau}) and owns the matches that start in it")
    return Plan(policy, condition, keys, reach, tau, tuple(notes))
