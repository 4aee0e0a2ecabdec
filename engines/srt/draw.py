"""Pictures of symbolic register transducers: seed 004 Fig. 1 and the report's figures.

A transition is written as the paper writes it (Def. 4.1, Example 4.2):
``φ ↑ o ↓ W``: its condition ``φ`` over the head ``~`` and the registers
(one conjunct a line, or ``φi`` with a legend when the picture is crowded),
its output ``●`` (marks the element) or ``⊗`` (does not), and the registers
``W`` it writes the element to (omitted when none). A time window's test
``~.ts - @w.ts <= τ`` over its hidden register ``@w`` is one more line. States
are ``q0 .. qn`` (``q0`` the start); final states are double circles.

A large SRT stays readable: guards go to a legend (``φi``) beyond a few
transitions, and beyond :data:`~kleene.engines.drawers.MAX_DRAWN_STATES`
states the picture keeps the first ones in breadth-first order from the start
and collapses the rest into one box (:func:`~kleene.engines.drawers.collapse`).

Views (``kleene draw --engine srt --view NAME``), each computed by the same
functions the engines use:

- ``unrolled``: a count-windowed expression ``body[1..w]`` unrolled (report
  Lemma 46, Algs. 3–6): states grouped by depth (one cluster per number of
  elements read), register copies ``r@d`` written at depth ``d``;
- ``dsrt``: the output-agnostic deterministic SRT (report Alg. 7, Thm 41),
  states named by the subsets of states they stand for, every transition a
  *minterm*: a sign vector over the atoms ``φ1 .. φk`` listed in the legend
  (``φ1 ∧ ¬φ2``: the element satisfies φ1 and does not satisfy φ2);
- ``complement``: the complement (report Alg. 8, Cor. 43): the DSRT of the
  expression with final and non-final states swapped.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

import networkx as nx

from kleene.engines.draw import DrawError
from kleene.engines.drawers import collapse, guard_style, register_drawer
from kleene.engines.labels import conjuncts, guard_lines, guard_set
from kleene.engines.srt.automaton import HIDDEN, SRT, Edge
from kleene.engines.srt.compile import MAX_STATES, Options, compile_sremo
from kleene.engines.srt.complement import complement, determinize
from kleene.engines.srt.dsrt import CompiledDSRT, compile_dsrt
from kleene.engines.srt.run import CompiledSRT
from kleene.engines.srt.unroll import unroll
from kleene.reference.condition_text import format_condition
from kleene.reference.conditions import TRUE, Condition
from kleene.reference.errors import Unsupported
from kleene.reference.sremo.expressions import Window, check
from kleene.reference.sremo.features import EXPRESSION_TYPES

MARKED, UNMARKED = "●", "⊗"


def output_text(e: Edge) -> str:
    """``↑ ● ↓ r1``: the output and the write registers of ``e`` (Def. 4.1's notation)."""
    return f"↑ {MARKED if e.mark else UNMARKED}" + (f" ↓ {', '.join(e.writes)}" if e.writes
                                                    else "")


def edge_lines(e: Edge, style: str = "full") -> list[str]:
    """The label of ``e`` in a picture, one item a line: its guard (one conjunct a line,
    ``⊤`` when none; nothing in ``compact`` style), its clocks, ``↑ o ↓ W``."""
    guard = e.shown_guard()
    lines = (guard_lines(guard) if guard != TRUE else ["⊤"]) if style == "full" else []
    return [*lines, *(str(c) for c in e.clocks), output_text(e)]


def edge_name(e: Edge) -> str:
    """``q0 --~.L = 'A' ↑ ●--> q1``: ``e`` named on one line as the picture labels it
    (``kleene prove`` names transitions so)."""
    return f"q{e.source} --{' ∧ '.join(edge_lines(e)[:-1])} {output_text(e)}--> q{e.target}"


def srt_graph(a: SRT, *, guards: str = "auto", state_names: Iterable[str] | None = None,
              depth_clusters: bool = False, note: str | None = None) -> nx.MultiDiGraph:
    """The picture of ``a``: states ``q0..``, edges ``φ ↑ o ↓ W`` (module docstring)."""
    shown = [e.shown_guard() for e in a.edges]
    style = guard_style(guards, shown)
    g = nx.MultiDiGraph(guards=style, legend=[], notes=[note] if note else [])
    names = list(state_names) if state_names is not None else [f"q{i}" for i in range(a.size)]
    depth = _depths(a) if depth_clusters else {}
    for q in range(a.size):
        g.add_node(q, label=names[q], initial=q == a.start, accepting=q in a.finals,
                   cluster=f"depth {depth[q]}" if q in depth else None)
    legend: dict[Condition, str] = {}
    for e, guard in zip(a.edges, shown, strict=True):
        if style == "legend" and guard != TRUE and guard not in legend:
            legend[guard] = f"φ{len(legend) + 1}"
            g.graph["legend"].append((legend[guard], guard_set(guard)))
        lines = ([legend.get(guard, "⊤")] if style == "legend" else []) + \
            edge_lines(e, style)
        g.add_edge(e.source, e.target, variable=None, guard=guard, name=None,
                   label="\n".join(lines), ident=e)
    hidden = [r for r in a.registers() if r.startswith(HIDDEN)]
    if hidden:
        g.graph["notes"].append(f"{', '.join(hidden)}: hidden register of a time window "
                                "(holds the window's first marked element)")
    return collapse(g, a.start)


def _depths(a: SRT) -> dict[int, int]:
    """The number of elements read to reach each state (unique in an unrolled SRT)."""
    depth = {a.start: 0}
    todo = deque([a.start])
    while todo:
        q = todo.popleft()
        for e in a.out[q]:
            if e.target not in depth:
                depth[e.target] = depth[q] + 1
                todo.append(e.target)
    return depth


def subset_label(subset: frozenset[int]) -> str:
    """``{q0, q2}``: a DSRT state named by the SRT states it stands for (``∅``: the sink)."""
    return "{" + ", ".join(f"q{i}" for i in sorted(subset)) + "}" if subset else "∅"


def minterm_graph(d: SRT, subsets: Iterable[frozenset[int]], note: str) -> nx.MultiDiGraph:
    """A deterministic SRT whose transitions are minterms: each labelled by its sign
    vector over the atoms φ1..φk of the legend (report Alg. 7)."""
    g = nx.MultiDiGraph(guards="legend", legend=[], notes=[note])
    for q, subset in enumerate(subsets):
        label = subset_label(subset)
        g.add_node(q, label=label, initial=q == d.start, accepting=q in d.finals, cluster=None)
    atoms: dict[Condition, str] = {}

    def atom(c: Condition) -> str:
        if c not in atoms:
            atoms[c] = f"φ{len(atoms) + 1}"
            g.graph["legend"].append((atoms[c], format_condition(c)))
        return atoms[c]
    known = list(dict.fromkeys(u for e in d.edges for u in e.unless))
    for e in d.edges:
        yes = [atom(c) for c in _atoms(e.guard, known)]
        no = ["¬" + atom(c) for c in e.unless]
        sign = " ∧ ".join(yes + no) or "⊤"
        writes = f"\n↓ {', '.join(e.writes)}" if e.writes else ""
        g.add_edge(e.source, e.target, variable=None, guard=e.shown_guard(), name=None,
                   label=sign + writes, ident=e)
    g.graph["notes"].append("∅: the sink (no state of the SRT left); every element fires "
                            "exactly one minterm of a state")
    return collapse(g, d.start)


def _atoms(guard: Condition, known: list[Condition]) -> list[Condition]:
    """The atoms a minterm's guard is the conjunction of (Alg. 7 flattens them): the
    ``known`` atoms (those other minterms require unsatisfied) whose conjuncts it has,
    then its other conjuncts one by one."""
    parts = list(conjuncts(guard))
    out: list[Condition] = []
    for a in sorted(known, key=lambda a: -len(conjuncts(a))):
        mine = conjuncts(a)
        if mine and all(x in parts for x in mine):
            out.append(a)
            parts = [x for x in parts if x not in mine]
    return out + parts


def compiled_srt_graph(c: CompiledSRT, *, states: str = "auto", guards: str = "auto"
                       ) -> nx.MultiDiGraph:
    """``kleene draw --engine srt``: the ε-free SRT the engine runs (trimmed for its policy)."""
    return srt_graph(c.srt, guards=guards,
                     note=f"SRT (seed 004 Def. 4.1), ε-free, trimmed for policy {c.policy}")


def compiled_dsrt_graph(c: CompiledDSRT, *, states: str = "auto", guards: str = "auto"
                        ) -> nx.MultiDiGraph:
    """``kleene draw --engine dsrt``: the DSRT with its minterms."""
    return minterm_graph(c.dsrt, c.subsets, "DSRT (report Alg. 7, Thm 41): "
                         "output-agnostic, deterministic and complete")

# ---------------------------------------------------------------- views


def _options(c: object) -> Options:
    return Options(getattr(c, "time_unit", None), "inclusive", MAX_STATES)


def unrolled_view(c: object, pattern: object) -> nx.MultiDiGraph:
    """The unrolled SRT of ``body[1..w]`` (report Algs. 3–6), one cluster per depth."""
    if not (isinstance(pattern, Window) and isinstance(pattern.width, int)):
        raise DrawError("the unrolled view needs a count-windowed expression body[1..w] "
                        "(report Alg. 4)")
    check(pattern)
    try:
        a = unroll(compile_sremo(pattern.body, _options(c)), pattern.width, MAX_STATES)
    except Unsupported as err:
        raise DrawError(f"cannot unroll: {err}") from None
    return srt_graph(a, depth_clusters=True,
                     note=f"the SRT of the body unrolled to depth {pattern.width} (report "
                          "Lemma 46, Algs. 3-6); r@d: the copy of r written at depth d")


def dsrt_view(c: object, pattern: object) -> nx.MultiDiGraph:
    """The DSRT of the expression (report Alg. 7), minterms in the legend."""
    assert isinstance(pattern, EXPRESSION_TYPES)    # drawn only for SREMO patterns
    check(pattern)
    try:
        d = compile_dsrt(pattern, time_unit=getattr(c, "time_unit", None))
    except Unsupported as err:
        raise DrawError(f"cannot determinize: {err}") from None
    return compiled_dsrt_graph(d)


def complement_view(c: object, pattern: object) -> nx.MultiDiGraph:
    """The complement of the expression (report Alg. 8): its DSRT, finals swapped."""
    assert isinstance(pattern, EXPRESSION_TYPES)    # drawn only for SREMO patterns
    check(pattern)
    try:
        a = compile_sremo(pattern, _options(c))
        d, subsets = determinize(a, MAX_STATES)
        comp = complement(a, MAX_STATES)
    except Unsupported as err:
        raise DrawError(f"cannot complement: {err}") from None
    if comp.size != d.size:  # trimmed: name the states by what is left
        return srt_graph(comp, note="complement (report Alg. 8): the DSRT with final and "
                                    "non-final states swapped, trimmed")
    return minterm_graph(comp, subsets, "complement (report Alg. 8, Cor. 43): the DSRT "
                                        "with final and non-final states swapped")


VIEWS = {"unrolled": unrolled_view, "dsrt": dsrt_view, "complement": complement_view}

register_drawer(CompiledSRT, compiled_srt_graph, VIEWS)
register_drawer(CompiledDSRT, compiled_dsrt_graph, VIEWS)
