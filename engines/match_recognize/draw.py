"""Pictures of row pattern recognition: the engine's program, and a search as a tree.

**The program** (``kleene draw q.sql --engine match-recognize``): the instructions of
:mod:`.program` as an automaton over their addresses (``Done`` doubly circled), drawn so
that preferment shows (ISO/IEC TR 19075-5:2016 §4.7): where a ``Split`` or a quantifier's
``Loop`` leaves two ways, the more preferred is a solid edge marked ``1st`` and the other
a dashed edge marked ``2nd``, tried only when everything after the first failed (greedy:
iterate first; reluctant: leave first; an alternation: its left part first). A ``Test``
edge maps a row to its variable and carries the variable's ``DEFINE`` (none: true for
every row); quantifiers' counters are ``#k`` with their bounds; rows inside ``{- … -}``
are marked excluded; ``^`` and ``$`` are edges that map no row.

**A search** (:func:`search_graph`, the pictures of ``kleene trace -o page.html`` and of
docs/tutorial-match-recognize.md): the rows tried from one start row as a tree, drawn top
down, each node a row tried for a variable (numbered in the order tried, ✓ mapped, ✗
not), its children the rows tried after it on the same way, left to right in the order
tried, which is preferment order. The way that matched is bold, ending in the match; the
ways given up are gray.
"""

from __future__ import annotations

import networkx as nx

from kleene.engines.drawers import register_drawer
from kleene.engines.match_recognize.program import (
    AnchorAt,
    Done,
    Enter,
    Jump,
    Loop,
    Split,
    Test,
)
from kleene.engines.match_recognize.recognition import CompiledRecognition
from kleene.engines.match_recognize.trace import Search
from kleene.reference.match_recognize.printer import format_expr, format_pattern

FIRST = {"penwidth": "1.6"}
SECOND = {"style": "dashed", "color": "gray40", "fontcolor": "gray30"}
PLAIN = {"color": "gray55", "fontcolor": "gray40"}
GIVEN_UP = {"color": "gray60", "fontcolor": "gray45"}
WON = {"penwidth": "2.6"}


def _graph(notes: list[str]) -> nx.MultiDiGraph:
    return nx.MultiDiGraph(guards="full", legend=[], notes=notes)


def _node(g: nx.MultiDiGraph, q: object, label: str, *, initial: bool = False,
          accepting: bool = False, shape: str | None = None,
          dot: dict[str, str] | None = None) -> None:
    g.add_node(q, label=label, initial=initial, accepting=accepting, cluster=None,
               shape=shape, dot=dot or {})


def _edge(g: nx.MultiDiGraph, source: object, target: object, label: str,
          dot: dict[str, str]) -> None:
    key = g.number_of_edges()
    g.add_edge(source, target, key=key, variable=None, guard=None, name=None, label=label,
               dot=dot, ident=(source, target, key))


def program_graph(c: CompiledRecognition, *, states: str = "auto",
                  guards: str = "auto") -> nx.MultiDiGraph:
    """The program of ``c`` (module docstring); ``guards="none"`` leaves out the
    ``DEFINE`` conditions."""
    clause = c.clause
    g = _graph([f"PATTERN ({format_pattern(clause.pattern)})",
                "solid 1st: the more preferred way; dashed 2nd: tried when all after the "
                "1st failed"])
    code = c.program.code
    for pc, ins in enumerate(code):
        _node(g, pc, str(pc), initial=pc == 0, accepting=isinstance(ins, Done))
    for pc, ins in enumerate(code):
        if isinstance(ins, Test):
            condition = c.defines.get(ins.var.upper())
            text = "true" if condition is None else format_expr(condition)
            head = f"{ins.var} (excluded)" if ins.excluded else ins.var
            _edge(g, pc, pc + 1, head if guards == "none" else f"{head}\n{text}", FIRST)
        elif isinstance(ins, Split):
            _edge(g, pc, ins.first, "1st", FIRST)
            _edge(g, pc, ins.second, "2nd", SECOND)
        elif isinstance(ins, Loop):
            bound = "∞" if ins.high is None else str(ins.high)
            iterate = f"iterate #{ins.slot} ({ins.low}..{bound})"
            leave = f"leave #{ins.slot} (after ≥ {ins.low})" if ins.low else f"leave #{ins.slot}"
            if ins.reluctant:
                _edge(g, pc, ins.exit, f"1st: {leave}", FIRST)
                _edge(g, pc, ins.body, f"2nd: {iterate}, reluctant", SECOND)
            else:
                _edge(g, pc, ins.body, f"1st: {iterate}", FIRST)
                _edge(g, pc, ins.exit, f"2nd: {leave}", SECOND)
        elif isinstance(ins, Jump):
            _edge(g, pc, ins.target, "", PLAIN)
        elif isinstance(ins, Enter):
            _edge(g, pc, pc + 1, f"#{ins.slot} := 0", PLAIN)
        elif isinstance(ins, AnchorAt):
            where = "the first row" if ins.kind == "^" else "after the last row"
            _edge(g, pc, pc + 1, f"{ins.kind} ({where})", PLAIN)
    return g


def search_graph(s: Search) -> nx.MultiDiGraph:
    """The search ``s`` as a tree (module docstring)."""
    g = _graph([])
    root = ("start",)
    _node(g, root, f"start: row {s.start + 1}", initial=True, shape="box",
          accepting=s.match is not None and not s.match.variables)
    won: set[object] = {root} if s.match is not None else set()
    path: list[object] = [root]   # the nodes of the rows mapped on the way followed
    count = 0
    for step in s.steps:
        if step.kind not in ("test", "end", "dead"):
            continue
        count += 1
        offset = step.row - s.start
        del path[offset + 1:]
        parent = path[-1]
        q = ("step", count)
        if step.kind == "test":
            label = f"{count}. row {step.row + 1}\n{step.var} {'✓' if step.ok else '✗'}"
        elif step.kind == "end":
            label = f"{count}. {step.var}:\nno row {step.row + 1} ✗"
        else:
            label = f"{count}. row {step.row + 1}\nanchor ✗"
        _node(g, q, label, shape="box", dot={} if step.ok else {"style": "dashed",
                                                                 "fontcolor": "gray35"})
        _edge(g, parent, q, "", GIVEN_UP)
        if step.ok:
            path.append(q)
    if s.match is not None and s.match.variables:
        mapped = path[:len(s.match.variables) + 1]   # the last way's first rows: the match's
        won.update(mapped)
        done = ("match",)
        _node(g, done, f"match {s.number}", accepting=True, shape="doublecircle")
        _edge(g, mapped[-1], done, "", WON)
    for source, target, data in g.edges(data=True):
        if source in won and target in won:
            data["dot"] = WON
    return g


register_drawer(CompiledRecognition, program_graph)
