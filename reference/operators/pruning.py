"""Pruning soundness for operator patterns (seed 003), per selection policy.

The three cuts of seed 001 Sec. 4 (:mod:`kleene.reference.pruning`), argued
for the operator reference (:mod:`kleene.reference.operators.matching`,
:mod:`kleene.reference.operators.negation`); ``tests/test_spark_pruning.py``
checks each permitted step against the reference.

**Filtering** (Thm 1 carried over): an event is kept when it passes the type
test and the properties (unary conditions, ``is_property_of``) of *some*
variable, positive or negated. An event that passes none can be bound by no
derivation (condition 1: a primitive checks its type; condition 2: a property
holds for every bound event) and is in no derivation β of a ``NOT``, whose
relevant conditions include its variable's properties: so it is in no match
and forbids none. Windows bound timestamps, not positions, so dropping it
moves nothing. Sound for ``any`` and ``next`` (an event no variable can take
never *could extend* a run, :func:`~kleene.reference.operators.prefixes.could_extend`);
not for ``contiguous`` and ``partition-contiguous``, which read the events
between a match's first and last (as for SES, ``docs/errata.md#seed-001-filter-contiguous``).

**Partitioning** by an attribute A: the top-level conjuncts ``u.A = v.A`` of
Θ must connect every positive variable (all of them are bound by every match:
no ``OR``; a condition over an iterated variable holds for each of its events, so
an edge ties them all — but a lone iterated variable has no edge, and its events
need not share A), and every variable of each ``NOT`` must be connected to them
through the positives and its own ``NOT``'s variables (the conditions its
derivation β is checked with, :func:`~kleene.reference.operators.negation.forbids`).
Then every event of a match, and every event of a β that forbids it, has the
match's value of A, so each part is matched alone. Sound for ``any`` and
``partition-contiguous`` (A is one of the match's Def. 6 attributes, so the
events it reads share A); not for ``contiguous`` (it reads every event between
first and last) nor ``next`` (a run may take an event of another part before
an equality pins it, as for SES, ``docs/errata.md#seed-001-partitioning-next``).

**Time slices** own the matches whose first event lies in them and need the
events with ``ts`` in ``[first.ts − L·τ, first.ts + A·τ]``: a match spans at
most τ (A = 1); ``next`` looks at the events within τ of the first
(:func:`~kleene.reference.operators.policies.is_next`); a ``NOT`` forbids with
an event that fits in one window with the match, so up to τ *before* its
first event (L = 1 when the pattern negates, else 0).
"""

from __future__ import annotations

from kleene.reference.conditions import (
    TRUE,
    Attr,
    Cmp,
    Condition,
    Const,
    conjunction,
    conjuncts,
    disjunction,
    is_property_of,
    rename,
)
from kleene.reference.operators.pattern import (
    Disj,
    Kleene,
    OperatorPattern,
    negations,
    positive_variables,
    primitives,
    walk,
)
from kleene.reference.operators.pattern import (
    variables as node_variables,
)
from kleene.reference.pruning import Pruning
from kleene.reference.ses.filtering import EVENT

#: Policies whose matches on the filtered stream are the stream's.
FILTER_INVARIANT_POLICIES = ("any", "next")

#: Policies whose matches, computed per part, are the whole stream's.
PARTITION_INVARIANT_POLICIES = ("any", "partition-contiguous")


def filter_condition(pattern: OperatorPattern, var: str = EVENT) -> Condition:
    """The disjunction over every primitive (positive or negated) of its type test and
    its variable's properties, renamed to ``var``; ``TRUE`` when one accepts anything."""
    parts: list[Condition] = []
    for p in primitives(pattern.expr):
        tests: list[Condition] = []
        if p.type is not None:
            tests.append(Cmp("=", Attr(var, "type"), Const(p.type)))
        tests += [rename(c, {p.var: var}) for c in pattern.conditions
                  if is_property_of(c, p.var)]
        part = conjunction(tests)
        if part == TRUE:
            return TRUE
        if part not in parts:
            parts.append(part)
    return disjunction(parts)


def _equalities(pattern: OperatorPattern, attr: str) -> list[tuple[str, str]]:
    out = []
    for c in pattern.conditions:
        for x in conjuncts(c):
            if isinstance(x, Cmp) and x.op == "=" and isinstance(x.left, Attr) \
                    and isinstance(x.right, Attr) and x.left.attr == attr \
                    and x.right.attr == attr and x.left.var != x.right.var:
                out.append((x.left.var, x.right.var))
    return out


def _connected(nodes: frozenset[str], edges: list[tuple[str, str]], start: frozenset[str]
               ) -> frozenset[str]:
    """The nodes reachable from ``start`` through ``edges`` inside ``nodes``."""
    seen = set(start & nodes)
    grew = True
    while grew:
        grew = False
        for a, b in edges:
            if a in nodes and b in nodes and (a in seen) != (b in seen):
                seen |= {a, b}
                grew = True
    return frozenset(seen)


def partitioning_attributes(pattern: OperatorPattern) -> tuple[str, ...]:
    """The attributes A by which the matches may be computed per part (module docstring)."""
    if any(isinstance(p, Disj) for p in walk(pattern.expr)):
        return ()
    positives = positive_variables(pattern.expr)
    if not positives:
        return ()
    iterated = {v for p in walk(pattern.expr) if isinstance(p, Kleene)
                and (p.high is None or p.high > 1) for v in node_variables(p.part)}
    if len(positives) == 1 and positives <= iterated:
        return ()   # nothing ties the events of a lone iteration to one another
    candidates = sorted({x.left.attr for c in pattern.conditions for x in conjuncts(c)
                         if isinstance(x, Cmp) and x.op == "=" and isinstance(x.left, Attr)
                         and isinstance(x.right, Attr) and x.left.attr == x.right.attr})
    out = []
    for attr in candidates:
        edges = _equalities(pattern, attr)
        first = frozenset(sorted(positives)[:1])
        if _connected(positives, edges, first) != positives:
            continue
        if all(_connected(positives | node_variables(n.part), edges, positives)
               == positives | node_variables(n.part) for n in negations(pattern.expr)):
            out.append(attr)
    return tuple(out)


def pruning(pattern: OperatorPattern, policy: str) -> Pruning:
    """Which of filtering, partitioning and time slices keep ``policy``'s matches."""
    notes = []
    condition: Condition | None = None
    if policy in FILTER_INVARIANT_POLICIES:
        condition = filter_condition(pattern)
        if condition == TRUE:
            condition = None
            notes.append("filter: none, a primitive accepts every event")
        else:
            notes.append(f"filter: applied (types and properties), {policy!r} is "
                         "filter-invariant")
    else:
        notes.append(f"filter: not applied, {policy!r} reads the filtered events")
    every = partitioning_attributes(pattern)
    keys = every if policy in PARTITION_INVARIANT_POLICIES else ()
    if keys:
        notes.append(f"partitions (Def. 6): by {', '.join(keys)}")
    elif every:
        notes.append(f"partitions (Def. 6): not by {', '.join(every)}, unsound for {policy!r}")
    else:
        notes.append("partitions (Def. 6): no attribute joins every variable by equalities")
    back = 1 if any(True for _ in negations(pattern.expr)) else 0
    notes.append(f"time slices: sound if each holds [start − {back}τ, end + 1τ] and owns the "
                 "matches that start in it")
    return Pruning(policy, condition, keys, (back, 1), tuple(notes))
