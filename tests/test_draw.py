"""Pictures of automata (``kleene.engines.draw``) and ``kleene draw``.

Expected counts are read off seed 000 by hand: Fig. 3 (⟨{b}⟩) has 2 states and
1 transition; Fig. 4(a) N1 for {c, p+, d} has the 8 subsets and Θ1..Θ16 (from
∅: c, d, p; from {c}: d, p; from {d}: c, p; from {p}: c, d, loop; from
{c, d}: p; from {c, p}: d, loop; from {d, p}: c, loop; at {c, d, p}: loop =
3+2+2+3+1+2+2+1 = 16); Fig. 5 adds the state {c, d, p+, b} and Θ'17: 9 states,
17 transitions. Fig. 10(b): 3!·1! = 6 chains of 5 states and 4 transitions.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kleene.cli import main
from kleene.engines import draw, drawers
from kleene.engines.labels import guard_set, state_label
from kleene.engines.registry import engine
from kleene.engines.ses.automaton import set_automaton
from kleene.engines.ses.trace import view_of
from kleene.reference.query import Query
from kleene.reference.ses.text import parse_ses
from tests.helpers import node_labels

CASES = Path(__file__).resolve().parents[1] / "conformance" / "cases"
Q1 = json.loads((CASES / "ses-q1.json").read_text())["cases"][0]["pattern"]
FIG3 = "PATTERN <{b}> WHERE b.L = 'B' WITHIN 264 hours"
FIG10 = Q1.replace("p+", "p")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz `dot` not installed")


def compiled(text: str, name: str = "ses-automaton"):
    return engine(name).compile(Query.of(parse_ses(text), policy="next"))


def test_q1_is_fig_5_nine_states_seventeen_transitions():
    g = draw.to_graph(compiled(Q1))
    assert (g.number_of_nodes(), g.number_of_edges()) == (9, 17)
    assert node_labels(g) == {"∅", "c", "d", "p+", "cd", "cp+", "dp+", "cdp+", "cdp+b"}
    assert [d["label"] for _, d in g.nodes(data=True) if d["initial"]] == ["∅"]
    assert [d["label"] for _, d in g.nodes(data=True) if d["accepting"]] == ["cdp+b"]
    loops = sorted(d["label"] for u, v, d in g.edges(data=True) if u == v)
    assert loops == ["p+, Θ10", "p+, Θ13", "p+, Θ15", "p+, Θ16"]


def test_q1_legend_is_the_papers_numbering():
    legend = dict(draw.to_graph(compiled(Q1)).graph["legend"])
    assert list(legend) == [f"Θ{i}" for i in range(1, 18)]
    assert legend["Θ1"] == "{c.L = 'C'}"
    assert legend["Θ4"] == "{d.L = 'D', c.ID = d.ID}"
    assert legend["Θ11"] == "{p.L = 'P', c.ID = p.ID}"        # Fig. 6(e)
    assert legend["Θ9"] == "{d.L = 'D'}"      # docs/errata.md#seed-000-fig-4-theta-9
    assert legend["Θ17"] == ("{b.L = 'B', d.ID = b.ID, c.ts < b.ts, d.ts < b.ts, "
                             "p.ts < b.ts}")                  # Θ'17 of Fig. 5


def test_fig_3_prints_its_guard_in_full():
    g = draw.to_graph(compiled(FIG3))
    assert (g.number_of_nodes(), g.number_of_edges(), g.graph["guards"]) == (2, 1, "full")
    [(_, _, data)] = g.edges(data=True)
    assert data["label"] == "b\nb.L = 'B'"


def test_fig_4_set_automata():
    p = parse_ses(Q1)
    n1, n2 = (draw.to_graph(view_of(set_automaton(p, i))) for i in (0, 1))
    assert (n1.number_of_nodes(), n1.number_of_edges()) == (8, 16)
    assert (n2.number_of_nodes(), n2.number_of_edges()) == (2, 1)
    # N2 alone: Θ17 without the time constraints of the concatenation
    [(_, _, data)] = n2.edges(data=True)
    assert guard_set(data["guard"]) == "{b.L = 'B', d.ID = b.ID}"


def test_state_styles():
    q = frozenset({"p", "c", "d"})
    assert state_label(q, order="cdp", groups={"p"}, style="set") == "{c, d, p+}"
    assert state_label(q, order="cdp", groups={"p"}, style="concat") == "cdp+"
    assert state_label(frozenset(), style="set") == "∅"
    g = draw.to_graph(compiled(Q1), states="set")
    assert "{c, d, p+, b}" in node_labels(g)


def test_long_names_are_written_as_sets():
    g = draw.to_graph(compiled("PATTERN <{chemo, pred+}> WHERE chemo.L = 'C' WITHIN 5"))
    assert node_labels(g) == {"∅", "{chemo}", "{pred+}", "{chemo, pred+}"}


def test_dot_marks_start_and_accepting_states():
    dot = draw.to_dot(draw.to_graph(compiled(Q1)))
    assert dot.count("doublecircle") == 1
    assert dot.count("shape=point") == 1
    assert "Θ17 = {b.L = 'B'" in dot


def test_highlight_marks_current_visited_and_taken():
    q, cd = frozenset({"c", "d", "p"}), frozenset({"c", "d"})
    mark = draw.Highlight(current=frozenset({q}), visited=frozenset({cd}),
                          taken=frozenset({(q, q, "p")}))
    dot = draw.to_dot(draw.to_graph(compiled(Q1)), highlight=mark)
    assert dot.count("fillcolor=black") == 1
    assert dot.count("fillcolor=gray75") == 1
    assert dot.count("penwidth=3") == 1


def test_brute_force_has_one_start_arrow_per_automaton():
    c = compiled(FIG10, "ses-bruteforce-paper")
    g = draw.to_graph(c)
    assert (g.number_of_nodes(), g.number_of_edges()) == (30, 24)
    assert sum(d["initial"] for _, d in g.nodes(data=True)) == 6
    dot = draw.to_dot(g)
    assert (dot.count("subgraph cluster_"), dot.count("shape=point")) == (6, 6)
    assert dot.count("doublecircle") == 6
    assert "c d p | b" in dot and "p d c | b" in dot


@needs_dot
def test_dot_parses_and_svg_png_render():
    c = compiled(Q1)
    source = draw.to_dot(draw.to_graph(c))
    canon = subprocess.run(["dot", "-Tcanon"], input=source.encode(), capture_output=True)
    assert canon.returncode == 0, canon.stderr
    svg = drawers.draw(c, "svg").decode()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg and "cdp+b" in svg
    png = drawers.draw(c, "png")
    assert png.startswith(PNG_MAGIC) and len(png) > 5000


def test_missing_graphviz_says_how_to_install(monkeypatch):
    monkeypatch.setattr(draw.shutil, "which", lambda _: None)
    with pytest.raises(draw.GraphvizMissing, match="install Graphviz"):
        drawers.draw(compiled(FIG3), "svg")
    assert drawers.draw(compiled(FIG3), "dot").startswith(b"digraph")   # DOT needs no program


def test_bad_options_fail_loudly():
    with pytest.raises(draw.DrawError, match="unknown format"):
        draw.render("digraph {}", "gif")
    with pytest.raises(draw.DrawError, match="guard style"):
        draw.to_graph(compiled(FIG3), guards="short")
    with pytest.raises(draw.DrawError, match="picture format"):
        drawers.format_for("q1.jpeg")

# ---------------------------------------------------------------- kleene draw


@pytest.fixture
def q1_file(tmp_path: Path) -> Path:
    path = tmp_path / "q1.ses"
    path.write_text(Q1 + "\n")
    return path


@needs_dot
@pytest.mark.parametrize("suffix", ["svg", "png"])
def test_cli_writes_svg_and_png(q1_file, tmp_path, capsys, suffix):
    out = tmp_path / f"q1.{suffix}"
    assert main(["draw", str(q1_file), "-o", str(out)]) == 0
    data = out.read_bytes()
    assert data.startswith(PNG_MAGIC) if suffix == "png" else b"<svg" in data


def test_cli_dot_to_stdout_and_pattern_text(capsysbinary):
    assert main(["draw", FIG3, "--format", "dot"]) == 0
    out = capsysbinary.readouterr().out.decode()
    assert out.startswith("digraph") and "doublecircle" in out


def test_cli_errors_exit_2(q1_file, capsys):
    assert main(["draw", str(q1_file), "--engine", "nope"]) == 2
    assert "registered engines" in capsys.readouterr().err
    assert main(["draw", "missing.ses"]) == 2
    assert "cannot read the pattern file missing.ses" in capsys.readouterr().err

# ---------------------------------------------------------------- the tutorials' pictures

DOCS = Path(__file__).resolve().parents[1] / "docs"


def make_pictures():
    spec = importlib.util.spec_from_file_location("make_pictures", DOCS / "make_pictures.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["make_pictures"] = module   # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_every_picture_a_tutorial_links_is_generated_and_committed():
    names = {p.name for p in make_pictures().pictures()}
    linked = set()
    for page in ("tutorial-seed-000.md", "tutorial-seed-001.md"):
        linked |= set(re.findall(r"\(img/([\w-]+)\.svg\)", (DOCS / page).read_text()))
    assert linked and linked <= names
    for name in names:
        for suffix in ("svg", "png"):
            assert (DOCS / "img" / f"{name}.{suffix}").stat().st_size > 0


@needs_dot
def test_make_pictures_regenerates(tmp_path):
    written = make_pictures().write_all(tmp_path, formats=("png",), report=lambda _: None)
    assert len(written) == len(list(make_pictures().pictures()))
    assert all(p.read_bytes().startswith(PNG_MAGIC) for p in written)


def test_a_compiled_automaton_and_a_trace_show_themselves_in_a_notebook():
    # Jupyter renders _repr_svg_ / _repr_html_; the picture is the one kleene draw makes
    from kleene.engines.trace import trace
    from kleene.reference.events import Stream

    c = compiled("PATTERN <{a}, {b}> WHERE a.L = 'A' AND b.L = 'B' WITHIN 5")
    svg = c._repr_svg_()
    assert "<svg" in svg and "a.L = &#39;A&#39;" in svg     # the guard, as kleene draw writes it
    t = trace(c, Stream.from_rows([{"ts": 0, "L": "A"}, {"ts": 1, "L": "B"}]))
    html = t._repr_html_()
    assert "<svg" in html and "{a/e1, b/e2}" in html
