"""SES patterns as operator patterns: ``(<B1..Bk>, Θ, τ)`` → ``SEQ(AND(B1), …, AND(Bk))``.

docs/architecture.md, "The three pattern languages": an SES pattern (seed 000 Def. 1,
seed 001 Def. 1) is the fragment ``SEQ(AND(B1), …, AND(Bk)) WHERE Θ WITHIN τ``
of the operator algebra, with a singleton ``v`` as ``ANY v`` and a group
``v+`` as ``ANY+ v[]``. It preserves seed 001 Def. 2 exactly:

1. Θ is kept condition by condition (a condition is decomposed on its own,
   so splitting or joining conditions would change ``prev`` instantiations);
   every variable is bound in every match, so every condition applies;
2. ``SEQ`` puts each event of part i strictly before (``ts``) each event of
   part i+1, which is condition 2 for consecutive sets; ``AND`` places the
   variables of one set in any order on distinct events; ``ANY+ v[]`` binds
   any non-empty set of events in stream order, tied ``ts`` included
   (iterations are ordered by position), as a group variable does;
3. ``WITHIN τ`` is the same inclusive window ``max ts − min ts ≤ τ``.

So :func:`~kleene.reference.operators.matching.all_matches` of the
translation equals :func:`kleene.reference.ses.matching.all_matches`
(a property test checks it, also under ``next``).
"""

from __future__ import annotations

from kleene.reference.operators.pattern import Conj, Kleene, Node, OperatorPattern, Primitive, Seq
from kleene.reference.ses.pattern import SESPattern, Variable


def variable_node(v: Variable) -> Node:
    """``ANY v`` for a singleton variable, ``ANY+ v[]`` for a group variable."""
    leaf = Primitive(None, v.name)
    return Kleene(leaf) if v.group else leaf


def from_ses(pattern: SESPattern) -> OperatorPattern:
    """The operator pattern ``SEQ(AND(B1), …, AND(Bk)) WHERE Θ WITHIN τ``."""
    expr = Seq(tuple(Conj(tuple(variable_node(v) for v in b)) for b in pattern.sets))
    return OperatorPattern(expr, pattern.conditions, pattern.window)
