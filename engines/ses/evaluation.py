"""Conditions of Θ_δ evaluated fast while the SES automaton runs (seed 000 Alg. 2
lines 3–4), with the reference's verdicts.

:func:`plan` sorts each condition of a transition: a single comparison of
attributes and constants is evaluated by :func:`comparison_holds` over the
instantiations that involve the new event (seed 001 Sec. 3's decomposition,
without building :class:`~kleene.reference.conditions.Instance` objects); a
property of the variable being bound (Sec. 4.2.1) is evaluated once per event
(:class:`~kleene.engines.ses.run.Execution` caches its verdict); anything
else goes to :func:`~kleene.reference.conditions.holds`. Every verdict is
:func:`~kleene.reference.conditions.compare`'s three-valued one, true only
when true.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

from kleene.reference.conditions import Attr, Cmp, Condition, Const, compare, is_property_of
from kleene.reference.events import Event, Value

Buffer = Mapping[str, tuple[Event, ...]]


#: :func:`plan` of a property of the variable being bound (Sec. 4.2.1: one event alone).
PROPERTY: tuple[bool] = (True,)
#: :func:`plan` of one comparison: ``(property, op, left, right)``.
Comparison = tuple[bool, str, Attr | Const, Attr | Const]


@lru_cache(maxsize=4096)
def plan(theta: Condition, v: str) -> Comparison | tuple[bool] | None:
    """How :meth:`Execution._bind` evaluates ``theta`` when ``v`` binds an event.

    ``(property, op, left, right)`` for one comparison of attributes and
    constants, no ``prev`` or aggregate (evaluated without building
    instantiations); :data:`PROPERTY` for another property of ``v``;
    ``None`` otherwise (the reference's :func:`~kleene.reference.conditions.holds`).
    A property's verdict depends on the event alone (Sec. 4.2.1), so it is
    computed once per event.
    """
    prop = is_property_of(theta, v)
    if isinstance(theta, Cmp) and isinstance(theta.left, (Attr, Const)) \
            and isinstance(theta.right, (Attr, Const)):
        return (prop, theta.op, theta.left, theta.right)
    if prop:
        return PROPERTY
    return None


def comparison_holds(plan: Comparison, beta: Buffer, v: str, e: Event) -> bool:
    """``holds(Cmp(op, left, right), β ∪ {v/(e,)})`` for attributes and constants: every
    pair of bound events compares true (seed 001 Sec. 3's decomposition), with ``v``
    bound to ``e`` alone (the instantiations without ``e`` were checked before)."""
    _, op, left, right = plan
    a = left.value if isinstance(left, Const) else e.value(left.attr) if left.var == v \
        else _bound(beta[left.var], left.attr)
    b = right.value if isinstance(right, Const) else e.value(right.attr) if right.var == v \
        else _bound(beta[right.var], right.attr)
    if isinstance(a, list) or isinstance(b, list):
        la = a if isinstance(a, list) else [a]
        lb = b if isinstance(b, list) else [b]
        if isinstance(left, Attr) and isinstance(right, Attr) and left.var == right.var \
                and left.var != v:      # one variable on both sides: the same event
            return all(compare(op, x, y) is True for x, y in zip(la, lb, strict=True))
        return all(compare(op, x, y) is True for x in la for y in lb)
    return compare(op, a, b) is True


def _bound(events: tuple[Event, ...], attr: str) -> list[Value] | Value:
    """Attribute ``attr`` of each event bound to a variable other than the one binding
    now: a list, unless one event is bound (comparing with its value alone is
    comparing with each of the list's)."""
    if len(events) == 1:
        return events[0].value(attr)
    return [x.value(attr) for x in events]
