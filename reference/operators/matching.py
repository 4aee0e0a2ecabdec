"""All matches of an operator pattern: skip-till-any-match (seed 003 Sec. 1, Sec. 2.1).

Seed 003 assumes "all possible matching combinations of events are requested
to be detected", skip-till-any-match, and leaves the formal semantics to SASE+
(its ref. [21]). By definition here, a *match* of ``PATTERN expr WHERE Θ
WITHIN τ`` on a stream ``s`` is a substitution γ (each positive variable to a
non-empty tuple of positions, in stream order; :class:`~kleene.reference.match.Match`)
such that

1. γ is a derivation of ``expr`` (:mod:`.derivations`): the operators place
   its events; variables of an ``OR`` branch not taken are absent, negated
   variables are never in γ, and variables under a Kleene operator bind the
   events of all iterations;
2. every condition of Θ whose variables γ all binds holds on γ, decomposed
   as everywhere in Kleene (:func:`~kleene.reference.conditions.holds`: a
   property for each bound event, a relationship for each combination, even
   across iterations, ``prev`` for consecutive events of one variable, an
   aggregate over the whole sequence, Sec. 4.5.1). A condition over a
   variable the match does not bind (an ``OR`` branch not taken) does not
   apply; :func:`.pattern.check` rejects those that could never apply;
3. the window: ``max ts − min ts ≤ τ`` over γ's events (docs/architecture.md,
   "Windows"); ``reading="strict"`` asks for ``< τ`` instead;
4. no pending negation of that derivation forbids γ (:mod:`.negation`).

γ is a match if *some* derivation of it satisfies 1–4; duplicates coincide,
since results are sets (seed 003 Sec. 5.2 notes that its DNF construction may
report the same match twice; a set semantics has no such defect).
"""

from __future__ import annotations

from kleene.reference.budget import Budget
from kleene.reference.conditions import Condition, holds, variables
from kleene.reference.events import Stream
from kleene.reference.match import Match, substitution
from kleene.reference.operators.derivations import (
    Context,
    Derivation,
    WindowReading,
    derivations,
    monotone,
)
from kleene.reference.operators.negation import forbids
from kleene.reference.operators.pattern import OperatorPattern, negated_variables


def context(pattern: OperatorPattern, s: Stream, *, reading: WindowReading = "inclusive",
            budget: Budget | None = None) -> Context:
    """The evaluation context of ``pattern`` on ``s`` (τ in the stream's time unit)."""
    tau = None if pattern.window is None else pattern.window.in_units_of(s.time_unit)
    if reading not in ("inclusive", "strict"):
        raise ValueError(f"unknown window reading {reading!r}; use 'inclusive' or 'strict'")
    prune = tuple(c for c in positive_conditions(pattern) if monotone(c))
    return Context(s, tau, reading, prune, budget or Budget())


def positive_conditions(pattern: OperatorPattern) -> tuple[Condition, ...]:
    """The conditions of Θ over positive variables only (the others belong to a ``NOT``)."""
    negated = negated_variables(pattern.expr)
    return tuple(c for c in pattern.conditions if not variables(c) & negated)


def is_match(pattern: OperatorPattern, d: Derivation, ctx: Context) -> bool:
    """Conditions 2–4 for the derivation ``d`` (condition 1 is how ``d`` was made)."""
    m = d.gamma
    if not ctx.spans(m):
        return False
    bound = set(m.variables)
    gamma = substitution(m, ctx.s.events)
    if not all(holds(c, gamma) for c in positive_conditions(pattern) if variables(c) <= bound):
        return False
    return not any(forbids(x, m, pattern.conditions, ctx) for x in d.pending)


def all_matches(pattern: OperatorPattern, s: Stream, *, budget: Budget | None = None,
                reading: WindowReading = "inclusive") -> set[Match]:
    """Γ: every match of ``pattern`` on ``s`` (the policy ``any``)."""
    ctx = context(pattern, s, reading=reading, budget=budget)
    out: set[Match] = set()
    for d in derivations(pattern.expr, s.events, ctx):
        if d.gamma not in out and is_match(pattern, d, ctx):
            out.add(d.gamma)
    return out


def match_derivations(pattern: OperatorPattern, ctx: Context) -> dict[Match, list[Derivation]]:
    """Every match, with all the derivations that make it one (``next`` reads their trees)."""
    out: dict[Match, list[Derivation]] = {}
    for d in derivations(pattern.expr, ctx.s.events, ctx):
        if is_match(pattern, d, ctx):
            out.setdefault(d.gamma, []).append(d)
    return out
