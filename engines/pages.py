"""HTML pages of traces, for every family (``kleene trace -o run.html``, notebooks):
one self-contained page, pictures inline as SVG, cells escaped, no network.

A trace's steps play on one picture (:func:`player`): the automaton is drawn once, each
state and transition with an SVG ``id`` (:func:`~kleene.engines.draw.dom_ids_of`), and
each step's marks (seed 000 Fig. 6: the current states black, the states visited before
gray, the transitions taken thick) are data, applied by a few lines of script when the
step is shown: buttons, a slider, the arrow keys, or a click on an event's row.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
from collections.abc import Iterable, Sequence

import networkx as nx

from kleene.engines.draw import Highlight, dom_ids_of, render, to_dot

_STYLE = """
body{font-family:'DejaVu Sans',Helvetica,Arial,sans-serif;max-width:72em;margin:1em auto}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #bbb;padding:.2em .5em}
th{background:#eee}pre{background:#f6f6f6;padding:.5em}
.step{border-top:2px solid #888;margin-top:1.5em}
.reported{color:#070;font-weight:bold}.refused td{color:#a00}svg{max-width:100%;height:auto}
.player{position:sticky;top:0;background:#fff;border-bottom:2px solid #888;z-index:1}
.controls{display:flex;gap:.5em;align-items:center;margin:.3em 0}
.controls input[type=range]{flex:1}.player .step{border:0;margin:0}
.player svg{max-height:45vh}
g.cur ellipse,g.cur polygon{fill:#000}g.cur text{fill:#fff}
g.vis ellipse,g.vis polygon{fill:#bbb}
g.taken path,g.taken polygon{stroke:#000;stroke-width:3px}
tr.here td{background:#ffd}tr[data-step]{cursor:pointer}
.kleene-picture.large{overflow:auto;max-height:50vh;border:1px solid #ddd}
.player .kleene-picture.large svg{max-width:none;max-height:none;width:auto;height:auto}
.kleene-note{color:#555;font-style:italic}"""

#: A picture wider or taller than this (points) is drawn at its own size in a box that
#: scrolls, the current step's marks scrolled into view (shrunk to the page, its text
#: would be unreadable: a count window unrolled, seed 004 Alg. 4).
LARGE_PICTURE_PT = 1000.0
#: A step's page shows at most this many refusals (a guard false, an instance dropped).
MAX_REFUSALS_SHOWN = 25
#: An automaton with more states than this is not drawn on a trace's page: its layout
#: would be unreadable and slow; the steps still play, and the note says how to draw it.
MAX_DRAWN_STATES = 150

#: The script of :func:`player` (no library), run where it stands, after the trace's root
#: ``R``: shows step ``k`` and applies its marks, inside ``R`` only (a notebook may show
#: several traces).
_PLAYER = """(function(root){
const q=s=>root.querySelectorAll(s);
const marks=JSON.parse(root.querySelector('.kleene-steps').textContent);
const steps=q('.player .step'),rows=q('tr[data-step]');
const slider=root.querySelector('.kleene-slider'),where=root.querySelector('.kleene-where');
let k=0;
function show(j){
 k=Math.max(0,Math.min(steps.length-1,j));
 steps.forEach((s,i)=>{s.hidden=i!==k;});
 q('g.cur,g.vis,g.taken').forEach(e=>e.classList.remove('cur','vis','taken'));
 const m=marks[k]||{current:[],visited:[],taken:[]};
 for(const [cls,ids] of [['cur',m.current],['vis',m.visited],['taken',m.taken]])
  for(const id of ids){const e=document.getElementById(id);if(e)e.classList.add(cls);}
 rows.forEach(r=>r.classList.toggle('here',Number(r.dataset.step)===k));
 const box=root.querySelector('.kleene-picture.large'),
  on=q('g.taken').length?q('g.taken'):q('g.cur');
 if(box&&on.length){const rs=[...on].map(e=>e.getBoundingClientRect()),
  b=box.getBoundingClientRect(),mid=(lo,hi)=>(Math.min(...rs.map(lo))+Math.max(...rs.map(hi)))/2;
  box.scrollLeft+=mid(a=>a.left,a=>a.right)-(b.left+b.width/2);
  box.scrollTop+=mid(a=>a.top,a=>a.bottom)-(b.top+b.height/2);}
 slider.value=k;where.textContent='step '+(k+1)+' of '+steps.length;
}
root.querySelector('.kleene-prev').onclick=()=>show(k-1);
root.querySelector('.kleene-next').onclick=()=>show(k+1);
slider.oninput=()=>show(Number(slider.value));
rows.forEach(r=>{r.onclick=()=>show(Number(r.dataset.step));});
root.tabIndex=0;
root.addEventListener('keydown',e=>{if(e.key==='ArrowRight')show(k+1);
 if(e.key==='ArrowLeft')show(k-1);});
show(0);
})(document.getElementById('R'));"""


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


def table(header: Sequence[str], rows: Iterable[Sequence[object]], *,
          css: str | None = None, most: int | None = None) -> str:
    """An HTML table, every cell escaped (of class ``css`` if given: ``refused`` is red);
    with ``most``, at most that many rows and a last one saying how many are left out
    (the page stays small; the text trace prints them all)."""
    rows = list(rows)
    left = 0 if most is None else max(len(rows) - most, 0)
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join(_row(r) for r in rows[:len(rows) - left])
    if left:
        body += (f"<tr><td colspan='{len(header)}'>… {left} more (kleene trace --format "
                 "text prints them all)</td></tr>")
    klass = "" if css is None else f" class='{html.escape(css)}'"
    return f"<table{klass}><tr>{head}</tr>{body}</table>"


def player(g: nx.MultiDiGraph, steps: Sequence[tuple[str, Highlight]], *,
           title: str | None = None, after: Sequence[str] = ()) -> str:
    """A trace that plays ``steps`` (each its HTML and its marks) on one picture of ``g``
    (module docstring): the controls, the picture and the steps (one shown at a time),
    then the ``after`` parts (an events table of :func:`step_rows`: a click on a row shows
    its step), the marks as JSON and the script, all in one root element whose ids no
    other trace on the page shares."""
    bodies = [body for body, _ in steps]
    token = "kt" + hashlib.sha1("".join(bodies).encode("utf-8")).hexdigest()[:10]
    states, edges = dom_ids_of(g, token)
    marks = [{"current": sorted(states[q] for q in m.current if q in states),
              "visited": sorted(states[q] for q in m.visited if q in states),
              "taken": sorted(edges[t] for t in m.taken if t in edges)} for _, m in steps]
    n = len(steps)
    controls = ("<div class='controls'><button class='kleene-prev'>◀ previous</button>"
                f"<input class='kleene-slider' type='range' min='0' max='{max(n - 1, 0)}' "
                "value='0' aria-label='step'><button class='kleene-next'>next ▶</button>"
                f"<span class='kleene-where'>step 1 of {n}</span></div>")
    shown = "".join(f"<div class='step' data-k='{k}'>{body}</div>"
                    for k, body in enumerate(bodies))
    data = json.dumps(marks, separators=(",", ":")).replace("</", "<\\/")
    script = _PLAYER.replace("'R'", repr(token))
    return "\n".join([
        f"<div class='kleene-trace' id='{token}'>",
        f"<div class='player'>{controls}{_picture(g, title, token)}{shown}</div>", *after,
        f"<script type='application/json' class='kleene-steps'>{data}</script></div>",
        f"<script>{script}</script>"])


def _picture(g: nx.MultiDiGraph, title: str | None, token: str) -> str:
    """The player's picture of ``g``: fitted to the page; a large one at its own size in a
    scrolling box, with a note; beyond :data:`MAX_DRAWN_STATES` states none, with a note."""
    states = sum(1 for _, d in g.nodes(data=True) if "label" in d)
    if states > MAX_DRAWN_STATES:
        return (f"<p class='kleene-note'>The automaton has {states} states: too many to draw "
                "readably on this page (the steps below still say every state and "
                "transition; kleene draw draws it alone).</p>")
    svg = render(to_dot(g, title=title, dom_ids=token), "svg").decode("utf-8")
    svg = svg[svg.find("<svg"):]
    size = re.match(r'<svg width="([\d.]+)pt" height="([\d.]+)pt"', svg)
    if size is None or max(map(float, size.groups())) <= LARGE_PICTURE_PT:
        return f"<div class='kleene-picture'>{svg}</div>"
    return (f"<p class='kleene-note'>A large automaton ({states} states): drawn at its own "
            "size in a box that scrolls; each step centres the transitions it takes (else its "
            "current states).</p>"
            f"<div class='kleene-picture large'>{svg}</div>")


def step_rows(header: Sequence[str], rows: Iterable[tuple[int | None, Sequence[object]]]
              ) -> str:
    """An HTML table whose rows name the step they belong to (``None``: none): a click on
    such a row shows that step in the :func:`player`."""
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join(_row(r, k) for k, r in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def _row(cells: Sequence[object], step: int | None = None) -> str:
    """One table row, every cell escaped; ``step`` the player's step it shows."""
    opening = "<tr>" if step is None else f"<tr data-step='{step}'>"
    return opening + "".join(f"<td>{html.escape(str(c))}</td>" for c in cells) + "</tr>"
