"""The picture of a shared structure of partial matches (:mod:`kleene.engines.count.tecs`)
after some events, for teaching (``kleene draw PATTERN --structure EVENTS --after N``;
docs/counting.md, "Listing from a shared structure").

Each live state of the determinized automaton is a box pointing at its node; an output
node is a circle naming the position it marks, a union node ``∪``, the all-0 word ``⊥``
(the start); each node says ``start``, the latest first mark over its words, which the
window is checked against. A node cut because its element left the window is drawn
dashed, without its children. A union's edges are numbered: 1 to its head (the output
node of its latest ``start``), then its heaps (:func:`~kleene.engines.count.tecs.meld`).
Nodes are drawn in the order a walk from the states (in their numbers' order, parts in the
order they were met) first reaches them, so the picture is the same under any
``PYTHONHASHSEED``.
"""

from __future__ import annotations

import math

import networkx as nx

from kleene.engines.count.tecs import BOTTOM, Node, Structure


def _start(n: Node) -> str:
    return "" if math.isinf(n.start) else f"\nstart {n.start!r}"


def structure_graph(s: Structure) -> nx.MultiDiGraph:
    """The graph :func:`kleene.engines.drawers.draw` draws: live states, then the nodes
    they reach."""
    g = nx.MultiDiGraph(legend=[], notes=[
        "box: a state of the automaton and its node; circle: an output node (the position "
        "it marks); ∪: a union, its edge 1 to its head (the latest start), the others to "
        "heaps starting no later; ⊥: no mark yet; dashed: cut (its element left the window)"])
    names: dict[int, str] = {}

    def add(n: Node) -> str:
        key = names.get(id(n))
        if key is not None:
            return key
        key = names[id(n)] = f"n{len(names)}"
        if n is BOTTOM:
            label, shape = "⊥", "plaintext"
        elif n.mark is not None:
            label, shape = f"{n.mark}{_start(n)}", "circle"
        else:
            label, shape = f"∪{_start(n)}", "circle"
        cut = n is not BOTTOM and not n.children
        g.add_node(key, label=label, accepting=False, initial=False, shape=shape,
                   dot={"style": "dashed"} if cut else {})
        for i, child in enumerate(n.children):
            to = add(child)
            g.add_edge(key, to, label="" if n.mark is not None else str(i + 1),
                       variable=None, ident=(key, to, i))
        return key

    many = len(s.parts) > 1
    for p, (part_key, part) in enumerate(s.parts.items()):
        for q in sorted(part.nodes):
            box = f"p{p}q{q}"
            g.add_node(box, label=f"q{q}", accepting=False, initial=False, shape="box",
                       cluster=f"part {part_key!r}" if many else None)
            target = add(part.nodes[q])
            g.add_edge(box, target, label="", variable=None, ident=(box, target, 0))
    return g
