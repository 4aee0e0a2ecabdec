"""Negation: when a ``NOT`` forbids a match (seed 003 Sec. 4.4; docs/architecture.md, "Negation").

Seed 003 says a negated event "is not allowed to appear at the predefined
places" and that negated events "form mutual conditions with positive events":
in Pattern (4), ``SEQ(A a, NOT(B b), C c, D d) WHERE b.x < c.y``, "only events
of type B satisfying the condition with an event of type C are not allowed to
appear". Our reading (normative, docs/architecture.md):

    ``NOT(p)`` forbids a match γ iff some derivation β of ``p`` exists
    (:mod:`.derivations`) on events not in γ, all strictly inside the pending
    ``ts`` interval (between the positive neighbours in a ``SEQ``, anywhere
    for an ``AND``; enclosing ``SEQ``\\ s narrow it), such that γ ∪ β fits in
    the window and every condition that mentions a variable of ``p`` — and
    whose other variables γ binds — holds on γ ∪ β.

So a leading or trailing ``NOT`` (and one under ``AND``) reaches as far as the
window allows around the match, on both sides: the forbidden event and the
match's events must all fit in one window. A condition relating ``b`` to a
variable of an ``OR`` branch the match did not take does not apply: ``b`` is
then forbidden by its other conditions alone (``docs/errata.md#seed-003-negation-or``).
A negated part is a pattern like any other, so ``NOT(SEQ(B b, C c))``
forbids a B followed by a C; seed 003 only negates single events.
"""

from __future__ import annotations

from collections.abc import Sequence

from kleene.reference.conditions import Condition, holds, variables
from kleene.reference.match import Match, substitution
from kleene.reference.operators.derivations import Context, Pending, derivations, merge
from kleene.reference.operators.pattern import variables as node_variables


def forbids(pending: Pending, m: Match, conditions: Sequence[Condition], ctx: Context) -> bool:
    """Whether the negation ``pending`` forbids the match ``m`` (see the module docstring)."""
    negated = node_variables(pending.neg.part)
    first, last = ctx.ts(m.first), ctx.ts(m.last)
    taken = set(m.positions)
    pool = [e for e in ctx.s.events
            if e.position not in taken
            and (pending.lo is None or pending.lo < e.ts)
            and (pending.hi is None or e.ts < pending.hi)
            and ctx.within(min(first, e.ts), max(last, e.ts))]
    relevant = [c for c in conditions if variables(c) & negated]
    for beta in derivations(pending.neg.part, pool, ctx):
        ctx.budget.spend()
        joint = merge(m, beta.gamma)
        if not ctx.spans(joint):
            continue
        bound = set(joint.variables)
        gamma = substitution(joint, ctx.s.events)
        if all(holds(c, gamma) for c in relevant if variables(c) <= bound):
            return True
    return False
