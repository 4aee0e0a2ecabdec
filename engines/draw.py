"""Pictures of compiled automata: any engine's automaton → networkx → DOT / SVG / PNG.

Written once against :meth:`~kleene.engines.protocol.Compiled.iter_transitions`
(docs/architecture.md, Style 8, automata-lib's ``show_diagram``), so every engine is drawn the
same way. The conventions are seed 000's (Sec. 4.1, Figs. 3–5): "Nodes
represent states, and edges represent transitions. An edge is labeled with the
event variable that is bound by the transition and the corresponding
transition condition. The start state is marked with an incoming arrow, the
accepting state is doubly circled." Here:

- the start arrow comes from a point node (one per initial state: the brute
  force of Sec. 5.2 has several);
- accepting states are ``doublecircle``;
- an SES state (a set of variable names, Def. 3) is written as a set,
  ``{c, d, p+}`` and ``∅``, or in the paper's concatenated form ``cdp+``
  (Example 5: "we denote states by the concatenation of the corresponding
  event variables"); group variables (those that loop) carry their ``+``;
- a guard is printed by :func:`kleene.reference.condition_text.format_condition`, one
  conjunct per line, or, when the picture would be crowded, abbreviated to
  ``Θ1 .. Θn`` with a legend that lists each Θ as the set of its conditions,
  as Fig. 4 does. Transitions are numbered in a canonical order (states by
  size, then by name; variables by name within a state), which for Q1 is the
  paper's own numbering Θ1..Θ17;
- a state that is a pair ``(name, q)`` belongs to the automaton ``name`` of a
  set of automata run in parallel (:mod:`kleene.engines.ses.bruteforce`); each
  such automaton is drawn as a cluster labelled with its name (Fig. 10(b)).

:class:`Highlight` adds the marks of Fig. 6: the current state black, the
states a run traversed before gray, the transitions it takes thick.
Rendering calls Graphviz's ``dot`` program; :class:`GraphvizMissing` says how
to install it.

Engine families draw in their own paper's style by registering a *drawer*
(:mod:`kleene.engines.drawers`): a function from the compiled automaton to a
graph with the attributes of :func:`to_graph`, plus optional ones that
:func:`to_dot` honours (a node's ``shape`` and ``dot`` attributes, a cluster
given as a path of names for nested clusters, an edge's ``dot`` attributes
and ``ident``, the key :class:`Highlight` marks it by; the graph's ``notes``,
lines printed under the legend). The DOT text is written only here; the names of
states, transitions and guards are :mod:`kleene.engines.labels`'.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

import graphviz
import networkx as nx

from kleene.engines.labels import (
    canonical,
    conjuncts,
    group_variables,
    guard_lines,
    guard_set,
    split_state,
    state_key,
    state_label,
    variable_label,
)
from kleene.engines.protocol import Transition
from kleene.reference.errors import KleeneError

#: Output formats: Graphviz's ``svg`` and ``png``, or the DOT text itself.
FORMATS = ("svg", "png", "dot")
#: How states are written: ``set`` ``{c, p+}``, ``concat`` ``cp+``, or ``auto``
#: (``concat`` when every variable name is one letter, as in the papers).
STATE_STYLES = ("auto", "set", "concat")
#: How guards are written: ``full`` on the edge, ``legend`` (``Θi`` and a list),
#: ``none``, or ``auto`` (``full`` for small automata with short guards).
GUARD_STYLES = ("auto", "full", "legend", "none")

FONT = "DejaVu Sans"
#: ``auto`` prints guards in full up to this many transitions and conjuncts per guard.
AUTO_FULL_TRANSITIONS, AUTO_FULL_CONJUNCTS = 8, 3
#: Pixels per inch of PNG output (readable on a screen and in the docs).
PNG_DPI = 120


class DrawError(KleeneError):
    """A picture could not be made (bad option, or Graphviz failed)."""

    code = "draw"


class GraphvizMissing(DrawError):
    """Graphviz's ``dot`` program is not installed."""


class Drawable(Protocol):
    """What drawing reads: initial and accepting states and the transitions as data."""

    @property
    def initial(self) -> frozenset[Hashable]: ...

    @property
    def accepting(self) -> frozenset[Hashable]: ...

    def iter_transitions(self) -> Iterator[Transition]: ...


@dataclass(frozen=True)
class AutomatonView:
    """A drawable automaton given by its parts: for automata that do not run on their
    own, such as N1 and N2 of seed 000 Fig. 4 (they expect variables bound before)."""

    initial: frozenset[Hashable]
    accepting: frozenset[Hashable]
    transitions: tuple[Transition, ...]

    def iter_transitions(self) -> Iterator[Transition]:
        return iter(self.transitions)


@dataclass(frozen=True)
class Highlight:
    """The marks of seed 000 Fig. 6: ``current`` states black, ``visited`` gray,
    ``taken`` transitions (``(source, target, variable)``, or an edge's ``ident`` when
    its family's drawer gives one) thick."""

    current: frozenset[Hashable] = frozenset()
    visited: frozenset[Hashable] = frozenset()
    taken: frozenset[Hashable] = frozenset()

# ---------------------------------------------------------------- the graph


def to_graph(a: Drawable, *, states: str = "auto", guards: str = "auto",
             groups: Iterable[str] | None = None) -> nx.MultiDiGraph:
    """The automaton as a networkx multigraph whose attributes say how to draw it.

    Nodes are the states, with ``label``, ``initial``, ``accepting``,
    ``cluster`` (the automaton name of a pair state, else ``None``). Edges, in
    canonical order, carry ``variable``, ``guard`` (the condition AST),
    ``name`` (``Θi`` in ``legend`` mode) and ``label``. ``graph["legend"]``
    lists ``(Θi, guard as a set)`` and ``graph["guards"]`` the style used.
    """
    if states not in STATE_STYLES:
        raise DrawError(f"unknown state style {states!r}; choose one of {', '.join(STATE_STYLES)}")
    if guards not in GUARD_STYLES:
        raise DrawError(f"unknown guard style {guards!r}; choose one of {', '.join(GUARD_STYLES)}")
    transitions = canonical(a.iter_transitions())
    loops = frozenset(groups) if groups is not None else group_variables(transitions)
    order = list(dict.fromkeys(t.variable for t in transitions if t.variable is not None))
    style = _state_style(states, order)
    guard_style = _guard_style(guards, transitions)
    g = nx.MultiDiGraph(guards=guard_style, legend=[])
    nodes = [*sorted(a.initial, key=state_key),
             *(q for t in transitions for q in (t.source, t.target)),
             *sorted(a.accepting, key=state_key)]
    for q in dict.fromkeys(nodes):
        g.add_node(q, label=state_label(q, order=order, groups=loops, style=style),
                   initial=q in a.initial, accepting=q in a.accepting, cluster=split_state(q)[0])
    for i, t in enumerate(transitions, start=1):
        name = f"Θ{i}" if guard_style == "legend" else None
        if name is not None:
            g.graph["legend"].append((name, guard_set(t.guard)))
        g.add_edge(t.source, t.target, key=i, variable=t.variable, guard=t.guard, name=name,
                   label=_edge_label(t, name, guard_style, loops))
    return g


def _state_style(style: str, variables: Sequence[str]) -> str:
    if style != "auto":
        return style
    return "concat" if all(len(v) == 1 for v in variables) else "set"


def _guard_style(style: str, transitions: Sequence[Transition]) -> str:
    if style != "auto":
        return style
    small = len(transitions) <= AUTO_FULL_TRANSITIONS
    short = all(len(conjuncts(t.guard)) <= AUTO_FULL_CONJUNCTS for t in transitions)
    return "full" if small and short else "legend"


def _edge_label(t: Transition, name: str | None, style: str, groups: Iterable[str]) -> str:
    v = variable_label(t.variable, groups)
    if style == "legend":
        return f"{v}, {name}"
    if style == "none":
        return v
    return "\n".join([v, *guard_lines(t.guard)])

# ---------------------------------------------------------------- DOT


def to_dot(g: nx.MultiDiGraph, *, highlight: Highlight | None = None, title: str | None = None,
           rankdir: str = "LR", legend: bool = True, dom_ids: str | None = None) -> str:
    """DOT text for a graph of :func:`to_graph`: point-node start arrows, double-circled
    accepting states, the legend and ``title`` as the caption below the picture. With a
    ``dom_ids`` prefix each state and transition carries the SVG ``id`` :func:`dom_ids_of`
    names (an interactive trace marks them, :func:`kleene.engines.pages.player`)."""
    mark = highlight or Highlight()
    ids = {q: f"q{i}" for i, q in enumerate(g.nodes)}
    node_ids, edge_ids = dom_ids_of(g, dom_ids) if dom_ids is not None else ({}, {})
    dot = graphviz.Digraph(name="automaton",
                           graph_attr={"rankdir": rankdir, "fontname": FONT, "nodesep": "0.35",
                                       "ranksep": "0.45"},
                           node_attr={"fontname": FONT, "fontsize": "12"},
                           edge_attr={"fontname": FONT, "fontsize": "10", "arrowsize": "0.7"})
    _add_clusters(dot, g, list(g.nodes), ids, mark, rankdir, [0], dom_ids=node_ids)
    for source, target, data in g.edges(data=True):
        ident = data.get("ident", (source, target, data["variable"]))
        attrs = dict(data.get("dot", {}))
        if ident in edge_ids:
            attrs["id"] = edge_ids[ident]
        if ident in mark.taken:
            attrs.update(penwidth="3", color="black", style="solid")
        dot.edge(ids[source], ids[target], label=_dot_text(data["label"]), **attrs)
    caption = _caption(g, title, legend)
    if caption:
        dot.attr(label=caption, labelloc="b", labeljust="l", fontsize="11")
    return dot.source


def dom_ids_of(g: nx.MultiDiGraph, prefix: str) -> tuple[dict[Hashable, str],
                                                           dict[Hashable, str]]:
    """The SVG ``id`` of each state (``<prefix>q0``, ...) and of each transition by the key
    a :class:`Highlight` marks it by (``<prefix>e0``, ...), as ``to_dot(...,
    dom_ids=prefix)`` writes them."""
    states = {q: f"{prefix}q{i}" for i, q in enumerate(g.nodes)}
    edges: dict[Hashable, str] = {}
    for j, (source, target, data) in enumerate(g.edges(data=True)):
        edges.setdefault(data.get("ident", (source, target, data["variable"])), f"{prefix}e{j}")
    return states, edges


def cluster_path(cluster: object) -> tuple[str, ...]:
    """A node's cluster as a path of names: ``None`` none, a name one, a tuple nested."""
    if cluster is None:
        return ()
    return tuple(cluster) if isinstance(cluster, tuple) else (str(cluster),)


def _add_clusters(dot: graphviz.Digraph, g: nx.MultiDiGraph, qs: Sequence[Hashable],
                  ids: dict[Hashable, str], mark: Highlight, rankdir: str, count: list[int],
                  depth: int = 0, *, dom_ids: dict[Hashable, str] | None = None) -> None:
    """The states ``qs`` (all inside the cluster path's first ``depth`` names): those
    outside deeper clusters here, the others in one nested subgraph per next name."""
    clusters: dict[str | None, list[Hashable]] = {}
    for q in qs:
        path = cluster_path(g.nodes[q].get("cluster"))
        clusters.setdefault(path[depth] if len(path) > depth else None, []).append(q)
    # left to right, dot stacks clusters bottom-up: emit them reversed to read top-down
    ordered = list(clusters.items())[::-1 if rankdir == "LR" else 1]
    for name, members in ordered:
        if name is None:
            _add_states(dot, g, members, ids, mark, dom_ids=dom_ids)
            continue
        count[0] += 1
        with dot.subgraph(name=f"cluster_{count[0] - 1}") as sub:
            sub.attr(label=name, style="rounded", color="gray60", fontsize="11")
            _add_clusters(sub, g, members, ids, mark, rankdir, count, depth + 1,
                          dom_ids=dom_ids)


def _add_states(dot: graphviz.Digraph, g: nx.MultiDiGraph, qs: Sequence[Hashable],
                ids: dict[Hashable, str], mark: Highlight, *,
                dom_ids: dict[Hashable, str] | None = None) -> None:
    for q in qs:
        data = g.nodes[q]
        attrs = {"shape": data.get("shape") or
                 ("doublecircle" if data["accepting"] else "circle"),
                 "width": "0.45", "margin": "0.02", **data.get("dot", {})}
        if dom_ids:
            attrs["id"] = dom_ids[q]
        if q in mark.current:
            attrs.update(style="filled", fillcolor="black", fontcolor="white")
        elif q in mark.visited:
            attrs.update(style="filled", fillcolor="gray75")
        dot.node(ids[q], label=_dot_text(data["label"]), **attrs)
        if data["initial"]:
            dot.node(ids[q] + "_start", label="", shape="point", width="0.08")
            dot.edge(ids[q] + "_start", ids[q], arrowsize="0.7")


def _dot_text(text: str) -> str:
    """A label for DOT: backslashes escaped, lines centred (``\\n``), never read as an
    HTML-like label (a title ``<b>`` stays text)."""
    return graphviz.nohtml(text.replace("\\", "\\\\").replace("\n", "\\n"))


def _caption(g: nx.MultiDiGraph, title: str | None, legend: bool) -> str:
    lines = [f"{name} = {text}" for name, text in g.graph["legend"]] if legend else []
    lines += list(g.graph.get("notes", ())) if legend else []
    lines += title.splitlines() if title else []
    return "".join(_dot_text(line) + "\\l" for line in lines)

# ---------------------------------------------------------------- rendering


def render(source: str, fmt: str = "svg") -> bytes:
    """Render DOT ``source`` as ``fmt`` (``svg``, ``png``, or ``dot``: the text itself)."""
    if fmt not in FORMATS:
        raise DrawError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if fmt == "dot":
        return source.encode("utf-8")
    program = shutil.which("dot")
    if program is None:
        raise GraphvizMissing(
            "drawing needs the Graphviz program `dot`, which is not on PATH; install "
            "Graphviz (Debian/Ubuntu: apt-get install graphviz; macOS: brew install graphviz; "
            "conda: conda install -c conda-forge graphviz), or ask for --format dot")
    args = [program, f"-T{fmt}"] + ([f"-Gdpi={PNG_DPI}"] if fmt == "png" else [])
    done = subprocess.run(args, input=source.encode("utf-8"), capture_output=True, check=False)
    if done.returncode != 0 or not done.stdout:
        reason = done.stderr.decode("utf-8", "replace").strip() or f"exit code {done.returncode}"
        raise DrawError(f"Graphviz `dot` failed: {reason}")
    return done.stdout
