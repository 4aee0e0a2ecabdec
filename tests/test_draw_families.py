"""Pictures of the seed 003 NFAs and the seed 004 SRTs (issue 15 item 1).

Expected shapes are the papers' figures: seed 003 Fig. 1 (the eager NFA of
Example 1.1, SEQ(A, B, C): states in pattern order), Fig. 4 (the Chain NFA
with frequency order C, B, A: states in evaluation order, B and A read from
their buffers), Figs. 6/7 (negation by post-processing: search_failed to F
and take B into R after the positive chain; first chance: take B into R from
the first state that binds a, c, the bounds of the interval and b's condition
partner), Fig. 8 (Multi-Chain: one chain per conjunct, merged initial and
accepting states), Fig. 9 (Tree NFA: every order, the current one bold);
seed 004 Fig. 1 (the SRT of SREMO (1): q0 --TypeIsB ↑ ● ↓ r1--> q1, a ⊤ loop,
the marking S-transition into the final state).
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping

import networkx as nx
import pytest

from kleene.cli import main
from kleene.engines import draw, drawers
from kleene.engines.nfa.draw import IGNORE
from kleene.engines.nfa.engine import NFAEngine
from kleene.engines.protocol import Query
from kleene.engines.registry import engine
from kleene.reference.languages import detect_language
from tests.helpers import node_labels

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz `dot` not installed")

EX11 = "PATTERN SEQ(A a, B b, C c) WHERE a.price > 10 WITHIN 1 hour"
NEG = "PATTERN SEQ(A a, NOT(B b), C c, D d) WHERE b.x < c.y WITHIN 1 hour"
OR8 = "PATTERN OR(SEQ(A a, B b, C c), SEQ(C c, D d, E e)) WITHIN 1 hour"
AND5 = "PATTERN AND(A a, B b, C c, D d, E e) WITHIN 1 hour"
SREMO1 = "mark {~.type = 'B'} -> r1 ; {TRUE}* ; mark {~.type = 'S' AND ~.id = r1.id}"
WINDOWED = f"({SREMO1})[1..4]"


def compiled(text: str, name: str, frequencies: Mapping[str, float] | None = None):
    pattern = detect_language(text, "<t>").parse(text, "<t>")
    eng = engine(name)
    if frequencies is not None:
        assert isinstance(eng, NFAEngine)       # only the lazy NFAs take an order
        eng.frequencies = frequencies
    return eng.compile(Query.of(pattern)), pattern


def graph(text: str, name: str, frequencies: Mapping[str, float] | None = None) -> nx.MultiDiGraph:
    return drawers.picture_graph(compiled(text, name, frequencies)[0])


def edge_labels(g: nx.MultiDiGraph) -> list[str]:
    return [d["label"] for _, _, d in g.edges(data=True)]


def test_eager_nfa_is_fig_1():
    g = graph(EX11, "nfa-eager")
    assert node_labels(g) == {"∅", "a", "ab", "abc"}
    takes = sorted(lab.split("\n")[0] for lab in edge_labels(g) if lab.startswith("take"))
    assert takes == ["take A a", "take B b", "take C c"]
    assert edge_labels(g).count("ignore") == 3          # no ignore loop on the accepting state
    [final] = [d["label"] for _, d in g.nodes(data=True) if d["accepting"]]
    assert final == "abc"
    assert "a.price > 10" in next(lab for lab in edge_labels(g) if lab.startswith("take A"))


def test_chain_nfa_is_fig_4_states_in_evaluation_order_and_buffers():
    g = graph(EX11, "nfa-chain", {"C": 1, "B": 5, "A": 10})
    states = {d["label"] for q, d in g.nodes(data=True) if q[0] != "buffer"}
    assert states == {"∅", "c", "cb", "cba"}
    reads = {(g.nodes[a]["label"], g.nodes[b]["label"]) for a, b, d in g.edges(data=True)
             if d["label"] == "read"}
    assert reads == {("buffer B", "c"), ("buffer A", "cb")}   # B looked up in c, A in cb
    assert "frequency order C, B, A" in g.graph["notes"]
    loops = {g.nodes[a]["label"]: d["label"] for a, b, d in g.edges(data=True) if a == b}
    assert loops == {"∅": "store B, A", "c": "ignore C\nstore A", "cb": "ignore C, B"}


def test_negation_post_processing_is_fig_6_and_first_chance_fig_7():
    freqs: dict[str, float] = {"C": 1, "A": 2, "D": 3, "B": 10}
    post = graph(NEG, "nfa-chain", freqs)
    edges = {(post.nodes[a]["label"], d["label"].split("\n")[0], post.nodes[b]["label"])
             for a, b, d in post.edges(data=True)}
    assert ("cad", "search_failed", "F") in edges
    assert ("cad", "take B b (post-processing)", "R") in edges
    fc = graph(NEG, "nfa-chain-fc", freqs)
    edges = {(fc.nodes[a]["label"], d["label"].split("\n")[0], fc.nodes[b]["label"])
             for a, b, d in fc.edges(data=True)}
    assert ("ca", "take B b (first chance)", "R") in edges      # decided once a and c are bound
    assert not any(lab == "search_failed" for _, lab, _ in edges)
    assert any(d["accepting"] and d["label"] == "cad" for _, d in fc.nodes(data=True))


def test_multichain_is_fig_8_one_chain_per_conjunct_merged_ends():
    g = graph(OR8, "nfa-multichain", {"C": 1, "B": 2, "A": 3, "D": 4, "E": 5})
    clusters = {d["cluster"] for _, d in g.nodes(data=True) if d["cluster"]}
    assert clusters == {"input buffers", "conjunct 1: SEQ(A a, B b, C c)",
                        "conjunct 2: SEQ(C c, D d, E e)"}
    starts = [q for q, d in g.nodes(data=True) if d["initial"]]
    finals = [q for q, d in g.nodes(data=True) if d["accepting"]]
    assert starts == ["start"] and finals == ["F"]
    assert sum(1 for a, b, d in g.edges(data=True) if a == "start" and d["label"].startswith(
        "take C c")) == 2                                    # C starts both chains (Fig. 8)
    loops = sorted(d["label"] for a, b, d in g.edges(data=True) if d.get("dot") == IGNORE)
    assert loops == ["ignore C\nstore A", "ignore C\nstore E", "ignore C, B", "ignore C, D",
                     "store B, A, D, E"]             # q1 stores for both chains (Sec. 4.1's E_i)


def test_tree_nfa_bolds_its_current_order_and_a_large_one_is_collapsed():
    c, _ = compiled(AND5, "nfa-tree")
    c.orders = ((2, 0, 1, 3, 4),)          # c, a, b, d, e: as if the buffers chose it
    g = drawers.picture_graph(c)
    bold = {d["label"] for _, d in g.nodes(data=True) if d.get("dot", {}).get("penwidth")}
    assert bold == {"∅", "c", "ca", "cab", "cabd", "cabde"}
    states = [d for q, d in g.nodes(data=True) if q[0] not in ("buffer", "more")]
    boxes = [d for q, d in g.nodes(data=True) if q[0] == "more"]
    hidden = sum(int(d["label"].split()[0].removeprefix("+")) for d in boxes)   # "+n states"
    assert len(states) + hidden == 2 ** 5 and boxes and len(states) <= 20
    small = graph(EX11, "nfa-tree")
    assert not any(q[0] == "more" for q in small.nodes)      # 8 states: all drawn


def test_srt_is_seed_004_fig_1():
    g = graph(SREMO1, "srt")
    assert g.number_of_nodes() == 4
    text = edge_labels(g)
    assert "~.type = 'B'\n↑ ● ↓ r1" in text
    assert "⊤\n↑ ⊗" in text
    assert "~.type = 'S'\n~.id = r1.id\n↑ ●" in text


def test_srt_views_unrolled_dsrt_complement():
    c, pattern = compiled(WINDOWED, "srt")
    assert drawers.views_of(c) == ("unrolled", "dsrt", "complement")
    unrolled = drawers.view(c, "unrolled", pattern)
    depths = {d["cluster"] for _, d in unrolled.nodes(data=True)}
    assert depths == {f"depth {k}" for k in range(5)}
    assert any("↓ r1@0" in lab for lab in edge_labels(unrolled))     # the copy written at 0
    d = drawers.view(c, "dsrt", pattern)
    legend = dict(d.graph["legend"])
    assert legend["φ1"] == "~.type = 'B'"
    assert {"φ1\n↓ r1@0", "¬φ1", "⊤"} <= set(edge_labels(d))          # minterms; the sink loop
    assert "∅" in node_labels(d)
    plain, p2 = compiled("mark {~.type = 'A'} ; mark {~.type = 'B'}", "srt")
    comp = drawers.view(plain, "complement", p2)
    dsrt = drawers.view(plain, "dsrt", p2)
    finals = {q for q, x in dsrt.nodes(data=True) if x["accepting"]}
    assert {q for q, x in comp.nodes(data=True) if x["accepting"]} == set(dsrt.nodes) - finals


def test_views_fail_in_one_line():
    c, pattern = compiled(SREMO1, "srt")
    with pytest.raises(draw.DrawError, match="count-windowed"):
        drawers.view(c, "unrolled", pattern)
    with pytest.raises(draw.DrawError, match="views: unrolled, dsrt, complement"):
        drawers.view(c, "nope", pattern)
    nfa, p = compiled(EX11, "nfa-chain")
    with pytest.raises(draw.DrawError, match="no view"):
        drawers.view(nfa, "dsrt", p)


@needs_dot
def test_compiled_nfa_and_srt_show_themselves_in_a_notebook():
    for text, name in ((EX11, "nfa-chain"), (SREMO1, "srt")):
        svg = compiled(text, name)[0]._repr_svg_()
        assert svg.lstrip().startswith("<?xml") and "<svg" in svg


@needs_dot
def test_cli_side_by_side_views_and_errors(tmp_path, capsysbinary):
    out = tmp_path / "s.dot"
    assert main(["draw", EX11, "--engine", "nfa-chain", "--beside", "nfa-eager",
                 "--frequencies", "C=1,B=5,A=10", "-o", str(out)]) == 0
    dot = out.read_text()
    assert 'label="nfa-chain"' in dot and 'label="nfa-eager"' in dot
    assert main(["draw", WINDOWED, "--engine", "srt", "--view", "dsrt", "--format", "svg"]) == 0
    assert b"<svg" in capsysbinary.readouterr().out
    assert main(["draw", EX11, "--engine", "srt-faithful"]) == 2
    assert main(["draw", EX11, "--engine", "nfa-chain", "--frequencies", "C=x"]) == 2
    assert "'C=x' is not TYPE=NUMBER" in capsysbinary.readouterr().err.decode()
    assert main(["draw", SREMO1, "--engine", "srt", "--frequencies", "A=1"]) == 2
    assert "no evaluation order" in capsysbinary.readouterr().err.decode()


def test_a_large_srt_picture_is_collapsed_breadth_first():
    c, pattern = compiled("(mark {~.type = 'B'} ; {TRUE}* ; mark {~.type = 'S'})[1..80]", "srt")
    d = drawers.view(c, "dsrt", pattern)
    [box] = [q for q in d.nodes if q == ("collapsed",)]
    kept = d.number_of_nodes() - 1
    hidden = int(d.nodes[box]["label"].split()[0].lstrip("+"))
    assert kept == drawers.MAX_DRAWN_STATES and kept + hidden == 160   # 2 per depth, sink, start
    assert d.nodes[0]["initial"] and any("collapsed into the box" in n for n in d.graph["notes"])
    c, pattern = compiled(WINDOWED, "srt")
    small = drawers.view(c, "dsrt", pattern)
    assert ("collapsed",) not in small


def test_the_dsrt_engine_shows_its_minterms_in_a_notebook():
    c, _ = compiled("mark {~.type = 'A'} ; mark {~.type = 'B'}", "dsrt")
    svg = c._repr_svg_()
    assert svg.lstrip().startswith("<?xml") or "<svg" in svg
    assert "DSRT (report Alg. 7" in svg and "φ1" in svg
