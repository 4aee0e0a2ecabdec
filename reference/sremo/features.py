"""What a SREMO expression (seed 004, report Def. 15 and Secs. 4–5) asks of an engine.

Atoms, choice and concatenation are the core; each further construct is a
capability an engine claims (scoped ``sremo:<name>`` by the language
registry): ``registers`` (a write ``↓ r`` or a condition reading a register,
Def. 15), ``star`` (Kleene ``*``), ``window`` (``e[1..w]``, Def. 39),
``intersection`` (Thm 34), ``negation`` (windowed negation, Cor. 43),
``strategy`` (selection strategies as operators, Defs. 44–45),
``time-window`` (a window ``e[WITHIN τ]``, Kleene's extension, beside
``window``) and ``unmarked`` (an atom ``φ ↑ ⊗``: the expression reads elements
it does not mark, so an engine must track outputs, not only acceptance —
the output-agnostic DSRT of report Thm 41 cannot) and ``partition``
(``e PARTITION BY a``, Kleene's extension for Wayeb's ``{partitionBy:a}``).
"""

from __future__ import annotations

from kleene.reference.sremo.expressions import (
    Atom,
    Choice,
    Concat,
    Empty,
    Epsilon,
    Expr,
    Intersect,
    Not,
    Partition,
    Star,
    Strategy,
    Window,
    registers,
    walk,
)

#: The constructs a SREMO engine may claim.
CONSTRUCTS: tuple[str, ...] = ("registers", "star", "window", "intersection", "negation",
                               "strategy", "time-window", "unmarked", "partition")

_NODE = {Star: "star", Window: "window", Intersect: "intersection", Not: "negation",
         Strategy: "strategy", Partition: "partition"}


def constructs(e: Expr) -> frozenset[str]:
    """The constructs ``e`` uses."""
    out = {name for node in walk(e) if (name := _NODE.get(type(node)))}
    for node in walk(e):
        if isinstance(node, Window) and not isinstance(node.width, int):
            out.add("time-window")
        if isinstance(node, Atom) and not node.marked:
            out.add("unmarked")
    if registers(e):
        out.add("registers")
    return frozenset(out)


#: The classes of SREMO expressions (how the language registry recognises one).
EXPRESSION_TYPES = (Epsilon, Empty, Atom, Choice, Concat, Star, Window, Intersect, Not, Strategy,
                    Partition)
