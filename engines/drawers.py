"""Family drawers: each engine family draws its automata in its own paper's style.

A family registers, for its compiled automaton class, a *drawer* (the
compiled automaton and the style options → a graph in the schema of
:func:`kleene.engines.draw.to_graph`, rendered by :func:`kleene.engines.draw.to_dot`)
and named *views* (``kleene draw --view``: the SRT's ``unrolled``, ``dsrt`` and
``complement`` forms). The family's ``draw`` module (``kleene.engines.nfa.draw``,
``kleene.engines.srt.draw``) is imported on first use and registers itself; an
automaton without a drawer is drawn in seed 000's style (:func:`~kleene.engines.draw.to_graph`).
:func:`beside` puts the graphs of several engines side by side, one cluster each.
:func:`draw` and :func:`write` make the picture of any automaton: its family's graph
(:func:`picture_graph`), as DOT (:func:`~kleene.engines.draw.to_dot`), rendered.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Hashable, Mapping, Sequence
from pathlib import Path
from typing import Any

import networkx as nx

from kleene.engines.draw import (
    AUTO_FULL_CONJUNCTS,
    AUTO_FULL_TRANSITIONS,
    FORMATS,
    GUARD_STYLES,
    Drawable,
    DrawError,
    Highlight,
    cluster_path,
    render,
    to_dot,
    to_graph,
)
from kleene.engines.labels import conjuncts
from kleene.reference.conditions import Condition

#: A family's drawer: the compiled automaton and the style options → a graph.
Drawer = Callable[..., nx.MultiDiGraph]
#: A named view: the compiled automaton and its pattern → a graph.
View = Callable[[Any, Any], nx.MultiDiGraph]

_DRAWERS: dict[type, Drawer] = {}
_VIEWS: dict[type, dict[str, View]] = {}


def register_drawer(cls: type, drawer: Drawer, views: Mapping[str, View] | None = None) -> None:
    """Draw instances of ``cls`` with ``drawer`` (called as ``drawer(a, states=...,
    guards=...)``), and offer ``views`` by name."""
    _DRAWERS[cls] = drawer
    _VIEWS[cls] = dict(views or {})


def _family_module(a: object) -> None:
    """Import the ``draw`` module of ``a``'s engine family (where it registers its drawer)."""
    package = type(a).__module__.rpartition(".")[0]
    name = f"{package}.draw"
    if package.startswith("kleene.engines.") and importlib.util.find_spec(name) is not None:
        importlib.import_module(name)


def _lookup(table: Mapping[type, Any], a: object) -> Any:
    _family_module(a)
    for cls in type(a).__mro__:
        if cls in table:
            return table[cls]
    return None


def picture_graph(a: Drawable, *, states: str = "auto", guards: str = "auto") -> nx.MultiDiGraph:
    """The graph of ``a``: its family's drawer, else :func:`to_graph` (seed 000's style)."""
    drawer = _lookup(_DRAWERS, a)
    if drawer is None:
        return to_graph(a, states=states, guards=guards)
    if guards not in GUARD_STYLES:
        raise DrawError(f"unknown guard style {guards!r}; choose one of {', '.join(GUARD_STYLES)}")
    return drawer(a, states=states, guards=guards)


def views_of(a: object) -> tuple[str, ...]:
    """The names of the views ``a``'s family offers besides its automaton."""
    return tuple(_lookup(_VIEWS, a) or ())


def view(a: object, name: str, pattern: object) -> nx.MultiDiGraph:
    """The view ``name`` of ``a`` (compiled from ``pattern``); :class:`DrawError` names the
    views there are."""
    views = _lookup(_VIEWS, a) or {}
    if name not in views:
        offered = ", ".join(views) or "none"
        raise DrawError(f"{type(a).__name__} has no view {name!r}; its views: {offered}")
    return views[name](a, pattern)


def guard_style(style: str, guards: Sequence[Condition], small: int = AUTO_FULL_TRANSITIONS
                ) -> str:
    """``auto`` resolved for a family's drawer: ``full`` when there are at most ``small``
    guards of at most :data:`AUTO_FULL_CONJUNCTS` conjuncts each, else ``legend``."""
    if style != "auto":
        return style
    short = all(len(conjuncts(g)) <= AUTO_FULL_CONJUNCTS for g in guards)
    return "full" if len(guards) <= small and short else "legend"


def beside(graphs: Sequence[tuple[str, nx.MultiDiGraph]]) -> nx.MultiDiGraph:
    """The graphs side by side, each in a cluster named by its name (its own clusters
    nested inside), the legends and notes prefixed by the name."""
    out = nx.MultiDiGraph(guards="legend", legend=[], notes=[])
    for name, g in graphs:
        for q, data in g.nodes(data=True):
            nested = (name, *cluster_path(data.get("cluster")))
            out.add_node((name, q), **{**data, "cluster": nested})
        for source, target, key, data in g.edges(keys=True, data=True):
            ident = data.get("ident", (source, target, data["variable"]))
            out.add_edge((name, source), (name, target), key=(name, key),
                         **{**data, "ident": (name, ident)})
        out.graph["legend"] += [(f"{name}: {k}", text) for k, text in g.graph["legend"]]
        out.graph["notes"] += [f"{name}: {line}" for line in g.graph.get("notes", ())]
    return out


#: A picture keeps at most this many states (:func:`collapse`).
MAX_DRAWN_STATES = 48


def collapse(g: nx.MultiDiGraph, start: Hashable, limit: int = MAX_DRAWN_STATES
             ) -> nx.MultiDiGraph:
    """``g`` with at most ``limit`` states: the first ones in breadth-first order from
    ``start`` are kept, the others become one dashed box ``+k states`` (an edge into it
    from each kept state that leads there), so that a large automaton stays readable.
    ``g`` itself when it is small enough."""
    if g.number_of_nodes() <= limit:
        return g
    order = [start, *(v for _, v in nx.bfs_edges(g, start))]
    order += [q for q in g.nodes if q not in set(order)]
    keep = set(order[:limit])
    hidden = g.number_of_nodes() - len(keep)
    out = nx.MultiDiGraph(**g.graph)
    out.graph["notes"] = [*g.graph.get("notes", ()),
                          f"{hidden} of {g.number_of_nodes()} states collapsed into the box "
                          f"(the first {limit} in breadth-first order are drawn)"]
    for q in order[:limit]:
        out.add_node(q, **g.nodes[q])
    box = ("collapsed",)
    out.add_node(box, label=f"+{hidden} states", initial=False, accepting=False,
                 cluster=None, shape="box", dot={"style": "dashed,rounded", "fontcolor": "gray30"})
    for source, target, key, data in g.edges(keys=True, data=True):
        if source in keep and target in keep:
            out.add_edge(source, target, key=key, **data)
        elif source in keep and not out.has_edge(source, box):
            out.add_edge(source, box, variable=None, guard=data["guard"], name=None, label="",
                         dot={"style": "dashed", "color": "gray60"})
    return out


def draw(a: Drawable | nx.MultiDiGraph, fmt: str = "svg", *, title: str | None = None,
         highlight: Highlight | None = None, states: str = "auto", guards: str = "auto",
         rankdir: str = "LR", legend: bool = True) -> bytes:
    """The picture of ``a`` as ``fmt`` bytes: :func:`picture_graph` (or ``a`` itself when it
    is a graph already), :func:`to_dot`, :func:`render`."""
    g = a if isinstance(a, nx.MultiDiGraph) else picture_graph(a, states=states, guards=guards)
    return render(to_dot(g, highlight=highlight, title=title, rankdir=rankdir, legend=legend),
                  fmt)


def format_for(path: str | Path, fmt: str | None = None) -> str:
    """``fmt`` if given, else the format named by ``path``'s suffix (``.svg .png .dot .gv``)."""
    if fmt is not None:
        return fmt
    suffix = Path(path).suffix.lower().lstrip(".")
    suffix = "dot" if suffix == "gv" else suffix
    if suffix not in FORMATS:
        raise DrawError(f"cannot tell the picture format of {path}; name one of "
                        f"{', '.join(FORMATS)}")
    return suffix


def write(a: Drawable | nx.MultiDiGraph, path: str | Path, fmt: str | None = None,
          **options: Any) -> Path:
    """Draw ``a`` into ``path`` (format from ``fmt`` or the suffix; ``options`` as
    :func:`draw`'s); returns the path."""
    out = Path(path)
    data = draw(a, format_for(out, fmt), **options)
    try:
        out.write_bytes(data)
    except OSError as err:
        raise DrawError(f"cannot write {out}: {err.strerror or err}") from None
    return out
