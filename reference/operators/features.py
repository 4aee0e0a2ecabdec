"""What an operator pattern (SASE+, seed 003) asks of an engine.

A sequence of primitives is the core every operator engine runs; each further
construct is a capability an engine claims (scoped ``operator:<name>`` by the
language registry): ``conjunction`` (AND, Sec. 4.2), ``disjunction`` (OR,
Sec. 5.1), ``negation`` (NOT, Sec. 4.4), ``kleene`` (``p+``, Sec. 4.5),
``repetition`` (``p{l,m}``, Sec. 4.5.2), ``aggregates`` (SUM/AVG/MIN/MAX/COUNT
in conditions, Sec. 4.5.1), ``prev`` (``prev(v.A)`` over an iteration),
``iterated-subpattern`` (a Kleene operator or repetition over a sub-pattern,
``SEQ(A a, B b)+``: seed 003 Sec. 4.5 iterates single events only) and
``negated-subpattern`` (``NOT(SEQ(B b, C c))``: Sec. 4.4 negates primitive
event types only). The last two come on top of ``kleene``/``repetition`` and
``negation``, so an engine that runs only the paper's constructs can say so.
"""

from __future__ import annotations

from kleene.reference.conditions import has_aggregate, prev_variables
from kleene.reference.operators.pattern import (
    Conj,
    Disj,
    Kleene,
    Neg,
    OperatorPattern,
    Primitive,
    walk,
)

#: The constructs an operator engine may claim.
CONSTRUCTS: tuple[str, ...] = ("conjunction", "disjunction", "negation", "kleene",
                               "repetition", "aggregates", "prev", "iterated-subpattern",
                               "negated-subpattern")

_NODE = {Conj: "conjunction", Disj: "disjunction", Neg: "negation"}


def constructs(pattern: OperatorPattern) -> frozenset[str]:
    """The constructs ``pattern`` uses."""
    out = set()
    for node in walk(pattern.expr):
        name = _NODE.get(type(node))
        if name:
            out.add(name)
        if type(node) is Kleene:
            out.add("kleene" if (node.low, node.high) == (1, None) else "repetition")
        if isinstance(node, (Kleene, Neg)) and type(node.part) is not Primitive:
            out.add("iterated-subpattern" if isinstance(node, Kleene) else "negated-subpattern")
    if any(has_aggregate(c) for c in pattern.conditions):
        out.add("aggregates")
    if any(prev_variables(c) for c in pattern.conditions):
        out.add("prev")
    return frozenset(out)
