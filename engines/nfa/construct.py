"""The :class:`~kleene.engines.nfa.shape.Shape` of a disjunction-free operator pattern,
built construct by construct: each construct's module (:mod:`.sequence`,
:mod:`.conjunction`, :mod:`.iteration`) adds its slots, their order and the places of
its negations to a :class:`~kleene.engines.nfa.shape.Builder`.
"""

from __future__ import annotations

from kleene.engines.nfa import conjunction, iteration, negation, sequence
from kleene.engines.nfa.shape import Builder, Shape
from kleene.reference.errors import Unsupported
from kleene.reference.operators.pattern import Conj, Disj, Kleene, Node, Primitive, Seq


def shape_of(expr: Node) -> Shape:
    """The :class:`Shape` of ``expr`` (no ``OR``; see :mod:`.disjunction` for those)."""
    b = Builder([], set(), [])

    def build(p: Node) -> list[int]:
        if isinstance(p, Primitive):
            return b.primitive(p)
        if isinstance(p, Kleene):
            return iteration.slot(b, p)
        if isinstance(p, Seq):
            return sequence.build(b, p, build)
        if isinstance(p, Conj):
            return conjunction.build(b, p, build)
        if isinstance(p, Disj):
            raise Unsupported("OR needs the multi-chain NFA (nfa-multichain, seed 003 Sec. 5)")
        raise Unsupported("NOT must be a part of a SEQ or AND")

    build(expr)
    n = len(b.slots)
    before = tuple(frozenset(i for i, j in b.order if j == k) for k in range(n))
    after = tuple(frozenset(j for i, j in b.order if i == k) for k in range(n))
    negs = tuple(negation.spec(neg, lo, hi) for neg, lo, hi in b.negations)
    return Shape(tuple(b.slots), before, after, negs)
