"""Operator patterns in the SES fragment, read back as SES patterns for the count.

:func:`kleene.reference.operators.from_ses.from_ses` writes ``(<B1..Bk>, Θ, τ)`` as
``SEQ(AND(B1), …, AND(Bk)) WHERE Θ WITHIN τ`` (a singleton ``v`` as ``ANY v``, a group
``v+`` as ``ANY+ v[]``) and its docstring proves the two have the same matches (seed 001
Def. 2 against seed 003 Sec. 4.3; a property test checks it). :func:`as_ses` is its
inverse on that fragment, with a typed primitive ``T v`` read as ``ANY v`` and the
property ``v.type = 'T'`` (``Primitive.accepts`` is ``e.type == T``, and ``v.type``
addresses the event's type, :meth:`Event.value`): a ``SEQ`` of parts, each a primitive,
``p+`` of a primitive, or an ``AND`` of those (a single part alone is one set), a
``WITHIN`` window, conditions an SES pattern takes (no aggregates).
"""

from __future__ import annotations

from kleene.reference.conditions import Attr, Cmp, Condition, Const
from kleene.reference.errors import PatternError
from kleene.reference.operators.pattern import Conj, Kleene, Node, OperatorPattern, Primitive, Seq
from kleene.reference.ses.pattern import SESPattern, Variable


class _NotSES(Exception):
    """The operator pattern is not ``SEQ(AND(...), ...)`` over primitives."""


def _variable(node: Node, types: list[Condition]) -> Variable:
    if isinstance(node, Kleene) and (node.low, node.high) == (1, None) \
            and isinstance(node.part, Primitive):
        leaf, group = node.part, True
    elif isinstance(node, Primitive):
        leaf, group = node, False
    else:
        raise _NotSES
    if leaf.type is not None:
        types.append(Cmp("=", Attr(leaf.var, "type"), Const(leaf.type)))
    return Variable(leaf.var, group)


def _set(node: Node, types: list[Condition]) -> tuple[Variable, ...]:
    if isinstance(node, Conj):
        return tuple(_variable(part, types) for part in node.parts)
    return (_variable(node, types),)


def as_ses(pattern: OperatorPattern) -> SESPattern | str:
    """The SES pattern with the same matches as ``pattern``, or why there is none."""
    if pattern.window is None:
        return "an operator pattern without WITHIN is counted by listing its matches"
    types: list[Condition] = []
    try:
        parts = pattern.expr.parts if isinstance(pattern.expr, Seq) else (pattern.expr,)
        sets = tuple(_set(part, types) for part in parts)
        return SESPattern(sets, (*types, *pattern.conditions), pattern.window)
    except (_NotSES, PatternError):
        return ("only an operator pattern of the form SEQ(AND(T v, T w+, ...), ...) with "
                "conditions an SES pattern takes is counted without listing")
