"""Filtered match windows: seed 001 Sec. 4.2, Theorem 1.

Thm 1: let ``P = (B, Θ, τ)`` have variables v1, ..., vm and γ be a match of P
in E; each event e in γ satisfies ``Θp_v1(e) ∨ ... ∨ Θp_vm(e)``, where
``Θp_v`` is the conjunction of the properties of v (Sec. 3: the conditions
``v.A φ C``; an empty conjunction is true). Events that fail this condition
can be dropped before A is called (Example 8: e6 is dropped for P1).

:func:`filter_condition` is that disjunction *as data*: a
:class:`~kleene.reference.conditions.Condition` over the single event
variable :data:`EVENT`, each property renamed to it (so the Spark engine can
compile it to a Column expression, docs/architecture.md, "Spark"). :func:`filtered`
keeps the passing events with their original positions.

Which selection policies may be computed on the filtered stream? Γ itself
(``any``) is unchanged by Thm 1. A policy is *filter-invariant* when it only
reads Γ, the order of positions and events that some variable could take:
``next`` (an event no variable can take never vetoes a run),
``next-literal`` and ``earliest-maximal`` (they read Γ only). ``contiguous``
and ``partition-contiguous`` read the skipped events themselves: with
``<{a}, {b}>`` on A X B, ``{a/0, b/2}`` is not contiguous in the stream but is
in the filtered stream (``docs/errata.md#seed-001-filter-contiguous``);
filtering can only add matches to them.
"""

from __future__ import annotations

from kleene.reference.budget import Budget
from kleene.reference.conditions import TRUE, Condition, disjunction, holds, rename
from kleene.reference.events import Event, Stream
from kleene.reference.match import Match
from kleene.reference.ses.pattern import SESPattern
from kleene.reference.ses.policies import matches
from kleene.reference.ses.windows import as_stream, restore

#: The single event variable of the filter condition.
EVENT = "e"

#: The policies whose result on the filtered stream equals the result on the stream.
FILTER_INVARIANT_POLICIES = ("any", "next", "next-literal", "earliest-maximal",
                             "earliest-maximal-contained")


def satisfies(pattern: SESPattern, name: str, e: Event) -> bool:
    """Θp_v(e): event ``e`` satisfies every property of variable ``name``."""
    return holds(pattern.property_of(name), {name: (e,)})


def filter_condition(pattern: SESPattern, var: str = EVENT) -> Condition:
    """``Θp_v1(var) ∨ ... ∨ Θp_vm(var)`` of Thm 1 as a condition over ``var`` alone.

    Each disjunct is the conjunction of a variable's properties renamed to
    ``var``; repeated disjuncts are kept once, and a variable without
    properties makes the whole filter ``TRUE``.
    """
    parts: list[Condition] = []
    for v in pattern.names:
        part = rename(pattern.property_of(v), {v: var})
        if part == TRUE:
            return TRUE
        if part not in parts:
            parts.append(part)
    return disjunction(parts)


def passes_filter(pattern: SESPattern, e: Event) -> bool:
    """Whether ``e`` satisfies the filter condition of Thm 1."""
    return holds(filter_condition(pattern), {EVENT: (e,)})


def filtered(pattern: SESPattern, s: Stream) -> tuple[Event, ...]:
    """The events of ``s`` that pass the filter, in stream order, positions kept."""
    condition = filter_condition(pattern)
    return tuple(e for e in s if holds(condition, {EVENT: (e,)}))


def filtered_matches(pattern: SESPattern, s: Stream, policy: str = "any", *,
                     budget: Budget | None = None) -> set[Match]:
    """The matches under ``policy`` of the filtered stream (renumbered, as an engine
    behind the filter sees it), reported with the original positions.

    Equal to :func:`~kleene.reference.ses.policies.matches` on ``s`` for the
    policies of :data:`FILTER_INVARIANT_POLICIES`; a superset for the others.
    """
    stream, origin = as_stream(filtered(pattern, s), s.time_unit)
    return {restore(m, origin) for m in matches(pattern, stream, policy, budget=budget)}
