"""HTML pages of traces, for every family (``kleene trace -o run.html``, notebooks):
one self-contained page, pictures inline as SVG, cells escaped."""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence

import networkx as nx

from kleene.engines.draw import Highlight, render, to_dot

_STYLE = """
body{font-family:'DejaVu Sans',Helvetica,Arial,sans-serif;max-width:72em;margin:1em auto}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #bbb;padding:.2em .5em}
th{background:#eee}pre{background:#f6f6f6;padding:.5em}
.step{border-top:2px solid #888;margin-top:1.5em}
.reported{color:#070;font-weight:bold}svg{max-width:100%;height:auto}"""


def svg_of(g: nx.MultiDiGraph, highlight: Highlight | None = None, *, legend: bool = True,
           title: str | None = None, rankdir: str = "LR") -> str:
    """The picture of graph ``g`` as inline SVG (for a page or a notebook), drawn left to
    right or, with ``rankdir="TB"``, top down."""
    text = render(to_dot(g, highlight=highlight, legend=legend, title=title, rankdir=rankdir),
                  "svg")
    svg = text.decode("utf-8")
    return svg[svg.find("<svg"):]


def page(title: str, parts: Iterable[str]) -> str:
    """A self-contained HTML page: ``title`` and the HTML ``parts`` (pictures inline)."""
    head = (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}"
            f"</title><style>{_STYLE}</style></head><body><h1>{html.escape(title)}</h1>")
    return "\n".join([head, *parts, "</body></html>"])


def table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """An HTML table, every cell escaped."""
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in r) + "</tr>"
                   for r in rows)
    return f"<table><tr>{head}</tr>{body}</table>"
