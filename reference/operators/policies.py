"""Selection policies over the all-matches set of an operator pattern.

docs/architecture.md, "All-matches first": each policy is a predicate over Γ
(:func:`~kleene.reference.operators.matching.all_matches`) and the stream:

- ``any``: Γ itself, skip-till-any-match (seed 003 Sec. 1);
- ``next``: skip-till-next-match, generalising the normative SES reading
  (:mod:`kleene.reference.ses.policies`): ``m`` is kept iff some run of it
  (a derivation that makes it a match, with its tree), started at ``m``'s
  first event, never skipped an event (within the window of that first
  event) that could extend its partial match at that moment
  (:mod:`kleene.reference.operators.prefixes` says what "could extend" means
  under nested operators);
- ``contiguous``, ``partition-contiguous``: shared with every language
  (:mod:`kleene.reference.policies`). The partition of a match is given by the
  attributes whose equalities ``vi.A = vj.A`` among the match's variables
  connect them all (seed 001 Def. 6, computed per match since an ``OR``
  decides which variables a match binds).

A SASE+ text may name its strategy (``WHERE skip_till_any_match {…}``); a
policy asked for explicitly must agree with it.
"""

from __future__ import annotations

from collections.abc import Callable

from kleene.reference.budget import Budget
from kleene.reference.conditions import Attr, Cmp, Condition, variables
from kleene.reference.durations import Duration, WindowReading
from kleene.reference.errors import PatternError
from kleene.reference.events import Stream
from kleene.reference.match import Match
from kleene.reference.operators.derivations import Context, Derivation
from kleene.reference.operators.matching import (
    context,
    match_derivations,
    positive_conditions,
)
from kleene.reference.operators.pattern import OperatorPattern
from kleene.reference.operators.prefixes import could_extend, prefix, refuting_conditions
from kleene.reference.operators.text import parse_operator
from kleene.reference.policies import contiguous, is_contiguous
from kleene.reference.ses.partitioning import partitioning_attributes
from kleene.reference.ses.pattern import SESPattern, Variable

POLICIES = ("any", "next", "contiguous", "partition-contiguous")


def is_next(pattern: OperatorPattern, d: Derivation, ctx: Context) -> bool:
    """Whether the run ``d`` (a derivation and its tree) never skipped an event it could take."""
    s, m = ctx.s, d.gamma
    conditions = refuting_conditions(positive_conditions(pattern))
    start = s[m.first].ts
    bound = set(m.positions)
    for e in s.events[m.first + 1:]:
        if not ctx.within(start, e.ts):
            break
        state = prefix(pattern.expr, d.tree, e.position)
        if e.position not in bound and could_extend(pattern.expr, conditions, s, state, e,
                                                    ctx.budget):
            return False
    return True


def partition_attributes(pattern: OperatorPattern, m: Match) -> tuple[str, ...]:
    """Def. 6's X for the variables of ``m``: the SES pattern of those variables
    and the equalities among them has these partitioning attributes."""
    bound = set(m.variables)
    equalities: tuple[Condition, ...] = tuple(
        c for c in positive_conditions(pattern)
        if isinstance(c, Cmp) and c.op == "=" and isinstance(c.left, Attr)
        and isinstance(c.right, Attr) and variables(c) <= bound)
    sets = tuple((Variable(v),) for v in m.variables)
    return partitioning_attributes(SESPattern(sets, equalities, Duration(0)))


Runs = dict[Match, list[Derivation]]


def _next(pattern: OperatorPattern, ctx: Context, runs: Runs) -> set[Match]:
    return {m for m, ds in runs.items() if any(is_next(pattern, d, ctx) for d in ds)}


def _partition_contiguous(pattern: OperatorPattern, ctx: Context, runs: Runs) -> set[Match]:
    return {m for m in runs if is_contiguous(ctx.s, m, partition_attributes(pattern, m))}


_SELECT: dict[str, Callable[[OperatorPattern, Context, Runs], set[Match]]] = {
    "any": lambda pattern, ctx, runs: set(runs),
    "next": _next,
    "contiguous": lambda pattern, ctx, runs: contiguous(ctx.s, runs),
    "partition-contiguous": _partition_contiguous,
}


def chosen_policy(pattern: OperatorPattern, policy: str | None) -> str:
    """``policy``, else the pattern's own strategy, else ``any``; they must agree."""
    own = pattern.policy
    if policy is None:
        return own or "any"
    if policy not in _SELECT:
        raise PatternError(f"unknown policy {policy!r} for operator patterns; choose one of "
                           f"{', '.join(POLICIES)}")
    if own is not None and own != policy:
        raise PatternError(f"the pattern asks for {pattern.strategy} ({own!r}) but policy "
                           f"{policy!r} was requested")
    return policy


def matches(pattern: OperatorPattern, s: Stream, policy: str | None = None,
            budget: Budget | None = None, *, reading: WindowReading = "inclusive") -> set[Match]:
    """The reference result: Γ of ``pattern`` on ``s`` under ``policy``.

    ``reading`` is the window's: ``inclusive`` (``max ts − min ts ≤ τ``, the
    default of docs/architecture.md) or ``strict`` (``< τ``).
    """
    chosen = chosen_policy(pattern, policy)
    ctx = context(pattern, s, reading=reading, budget=budget)
    return _SELECT[chosen](pattern, ctx, match_derivations(pattern, ctx))


def run_text(text: str, s: Stream, policy: str | None = None, *,
             budget: Budget | None = None, reading: WindowReading = "inclusive") -> set[Match]:
    """Parse ``text`` (:func:`~kleene.reference.operators.text.parse_operator`) and match it."""
    return matches(parse_operator(text), s, policy, budget, reading=reading)
