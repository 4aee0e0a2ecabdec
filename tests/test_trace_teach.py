"""Traces that teach (issue 29 item 6): every refusal with the false guard named, and
the instances a negated event or the window drops, with the event that caused it.

Expected lines are hand-derived. Seed 000's Q1 (conformance case ses-q1): the run from
e1 is in cdp+ after e4 (patient 1: c/e1, d/e3, p/e4); e5 is patient 2's B, so Θ17
(``b``) fails on ``d.ID = b.ID`` (1 ≠ 2) and the loop Θ16 (``p+``) on ``p.L = 'P'``;
e6 is patient 2's P, so the loop fails on ``c.ID = p.ID`` and Θ17 on ``b.L = 'B'``.
The NFA cases are three events each (below)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from kleene.cli import main
from kleene.engines.pages import table
from kleene.engines.registry import engine
from kleene.engines.ses.trace import to_html, to_text
from kleene.engines.trace import trace
from kleene.reference.events import stream_of
from kleene.reference.query import Query
from kleene.reference.ses.text import parse_ses

ROOT = Path(__file__).resolve().parents[1]
Q1 = json.loads((ROOT / "conformance" / "cases" / "ses-q1.json").read_text())["cases"][0]

# SEQ(A a, B b) WHERE b.x = a.x: e2 (x=2) is refused by the instance {a/e1} (x=1), e3 taken
GUARD = ("PATTERN SEQ(A a, B b) WHERE b.x = a.x WITHIN 10 hours",
         "ts,type,x\n0,A,1\n1,B,2\n2,B,1\n")
# SEQ(A a, NOT(C n), B b): the complete instance {a/e1, b/e3} is forbidden by the C at e2
NEG = ("PATTERN SEQ(A a, NOT(C n), B b) WITHIN 10 hours", "ts,type,x\n0,A,1\n1,C,2\n2,B,1\n")
# WITHIN 2 hours: at e3 (ts 5) both instances of a (ts 0 and 1) are out of the window
WIN = ("PATTERN SEQ(A a, B b) WITHIN 2 hours", "ts,type,x\n0,A,1\n1,A,2\n5,B,1\n")


def ses_q1():
    compiled = engine("ses-automaton").compile(Query.of(parse_ses(Q1["pattern"]),
                                                        policy="next"))
    return trace(compiled, stream_of(Q1["events"], time_unit=Q1["time_unit"]))


def test_ses_names_the_false_guard_of_every_transition_not_taken():
    lines = to_text(ses_q1(), first=0)
    at = lines.index("e5 (ts 105): ID=2, L=B, V=0, U=WHO-Tox")
    assert lines[at + 1:at + 4] == [
        "  run from e1: cdp+  {} (no transition)  β = {c/e1, d/e3, p/e4}",
        "  refused: run from e1: cdp+ --p+, Θ16--✗ on e5: p.L = 'P' is false",
        "  refused: run from e1: cdp+ --b, Θ17--✗ on e5: d.ID = b.ID is false"]
    assert "  refused: run from e1: cdp+ --p+, Θ16--✗ on e6: c.ID = p.ID is false" in lines
    assert "  refused: run from e1: cdp+ --b, Θ17--✗ on e6: b.L = 'B' is false" in lines
    # e4 is taken on Θ11, and nothing else leaves cd: no refusal there
    at = lines.index("e4 (ts 81): ID=1, L=P, V=111.5, U=mg")
    assert not lines[at + 2].startswith("  refused")


def test_the_ses_page_shows_the_refusals():
    page = to_html(ses_q1(), first=0)
    assert "<table class='refused'>" in page
    assert "cdp+ --b, Θ17--✗ on e5: d.ID = b.ID is false" in page


def nfa_lines(tmp_path: Path, case: tuple[str, str], name: str, capsys) -> list[str]:
    (tmp_path / "p.txt").write_text(case[0])
    (tmp_path / "e.csv").write_text(case[1])
    assert main(["trace", str(tmp_path / "p.txt"), "--events", str(tmp_path / "e.csv"),
                 "--time-unit", "hours", "--engine", name]) == 0
    return capsys.readouterr().out.splitlines()


@pytest.mark.parametrize("name,refusal", [
    ("nfa-eager", "a --b--✗ b/e2"), ("nfa-chain", "a --b--✗ b/e2"),
    # the Tree NFA builds b's instance at e2, then looks for an a in A's buffer (Sec. 7)
    ("nfa-tree", "b --a--✗ a/e1")])
def test_an_nfa_names_the_false_guard(tmp_path, capsys, name, refusal):
    lines = nfa_lines(tmp_path, GUARD, name, capsys)
    e2 = lines.index("e2 (ts 1, type=B): x=2")
    e3 = lines.index("e3 (ts 2, type=B): x=1")
    assert f"  refused: {refusal}: b.x = a.x is false" in lines[e2:e3]
    assert not any(line.startswith("  refused") for line in lines[e3:])


@pytest.mark.parametrize("name", ["nfa-eager", "nfa-chain", "nfa-chain-fc", "nfa-tree"])
def test_an_nfa_names_the_negated_event_that_kills(tmp_path, capsys, name):
    lines = nfa_lines(tmp_path, NEG, name, capsys)
    e3 = lines.index("e3 (ts 2, type=B): x=1")
    assert "  killed: ab {a/e1, b/e3} dropped: NOT C n: forbidden by e2" in lines[e3:]
    assert not any(line.startswith("  killed") for line in lines[:e3])
    assert not any("reported" in line for line in lines)


def test_an_nfa_names_the_event_that_expires_an_instance(tmp_path, capsys):
    lines = nfa_lines(tmp_path, WIN, "nfa-eager", capsys)
    e3 = lines.index("e3 (ts 5, type=B): x=1")
    why = "dropped: expired (τ): e3 is out of the window of its first event"
    assert lines[e3 + 1:e3 + 3] == [f"  killed: a {{a/e1}} {why}", f"  killed: a {{a/e2}} {why}"]


# ---------------------------------------------------------------- pictures

# SEQ(A a, C c, D d): a.x = d.x needs d, c.v > a.v needs c (issue 29: `∅ → a` showed both)
GUARDS = "PATTERN SEQ(A a, C c, D d) WHERE a.x = d.x AND c.v > a.v WITHIN 5 hours"


def nfa_picture(name: str, guards: str = "full", frequencies: str | None = None):
    args = ["draw", GUARDS, "--engine", name, "--format", "dot", "--guards", guards]
    return args + (["--frequencies", frequencies] if frequencies else [])


def dot_of(capsysbinary, args: list[str]) -> str:
    assert main(args) == 0
    return capsysbinary.readouterr().out.decode("utf-8")


def test_an_nfa_edge_shows_only_the_guards_of_bound_variables(capsysbinary):
    dot = dot_of(capsysbinary, nfa_picture("nfa-eager"))
    assert 'q0 -> q1 [label="take A a"]' in dot
    assert 'q1 -> q2 [label="take C c\\nc.v > a.v"]' in dot
    assert 'q2 -> q3 [label="take D d\\na.x = d.x"]' in dot
    # the chain with D first: d binds alone, then a (a.x = d.x), then c (c.v > a.v)
    dot = dot_of(capsysbinary, nfa_picture("nfa-chain", "legend", "D=1,A=2,C=3"))
    assert 'label="take D d"' in dot and 'label="take A a, Θ1"' in dot
    assert 'label="take C c, Θ2"' in dot
    assert "Θ1 = {a.x = d.x}\\lΘ2 = {c.v > a.v}" in dot


def test_the_buffer_caption_names_the_boxes_drawn(capsysbinary):
    for name in ("nfa-chain", "nfa-tree"):
        dot = dot_of(capsysbinary, nfa_picture(name))
        boxes = sorted(re.findall(r'label="buffer (\w+)"', dot))
        assert boxes == ["A", "C", "D"]
        assert "input buffers: A, C, D (every event" in dot


def test_dsrt_refused_points_to_the_srt_view(tmp_path, capsys):
    (tmp_path / "t.sremo").write_text("mark {~.type = 'a'} ; {TRUE}* ; mark {~.type = 'b'}\n")
    pattern = str(tmp_path / "t.sremo")
    assert main(["draw", pattern, "--engine", "dsrt", "--format", "dot"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no whole automaton to draw" in err
    assert err.rstrip().endswith(f"to draw its DSRT: kleene draw {pattern} --engine srt "
                                 "--view dsrt")
    assert main(["draw", pattern, "--engine", "srt", "--view", "dsrt", "--format", "dot"]) == 0


def test_a_large_automaton_on_a_trace_page_is_scrolled_or_left_out(tmp_path):
    (tmp_path / "e.csv").write_text("ts,L\n0,A\n1,B\n")
    events = str(tmp_path / "e.csv")
    # <{a, ..., e}>: one state per subset of the set, 2^5 = 32, wider than the page
    assert main(["trace", "PATTERN <{a, b, c, d, e}> WITHIN 10", "--events", events,
                 "-o", str(tmp_path / "five.html")]) == 0
    five = (tmp_path / "five.html").read_text()
    assert "A large automaton (32 states): drawn at its own size" in five
    assert five.count("<svg") == 1 and "<div class='kleene-picture large'><svg" in five
    # <{a, ..., h}>: 2^8 = 256 states, beyond the 150 drawn: no picture, a note, the steps
    assert main(["trace", "PATTERN <{a, b, c, d, e, f, g, h}> WITHIN 10", "--events", events,
                 "-o", str(tmp_path / "eight.html")]) == 0
    eight = (tmp_path / "eight.html").read_text()
    assert "The automaton has 256 states: too many to draw" in eight
    assert "<svg" not in eight and eight.count("<div class='step'") == 2


def test_an_srt_names_the_run_the_count_window_drops(tmp_path, capsys):
    # intc.sre, window [1..20] counted: one INTC buy then 19 RIMM buys; the run from e1
    # moves on ⊤ through e19, and at e20 only the marking φ2 (an INTC buy above x's
    # price) is left to it: the RIMM buy fails it, and the run is dropped
    (tmp_path / "s.stream").write_text("".join(
        f"BUY(id={k},name={'RIMM' if k else 'INTC'},volume=100,price=20.5,"
        f"stock_time={1000 + k})\n" for k in range(20)))
    assert main(["trace", str(ROOT / "examples" / "stocks" / "intc.sre"), "--events",
                 str(tmp_path / "s.stream")]) == 0
    lines = capsys.readouterr().out.splitlines()
    dropped = [k for k, line in enumerate(lines) if line.startswith("  dropped: ")]
    assert [lines[k - 1].split(" ")[0] for k in dropped] == ["e20"]
    [k] = dropped
    assert lines[k].startswith("  dropped: q36 [x = e1] marked {e1}: false: q36 --~.type = "
                               "'BUY' AND ~.name = 'INTC' AND ~.price > x.price ↑ ●--> ")
    assert lines[k + 1] == "  runs (0): none"


def test_a_step_shows_at_most_so_many_refusals_and_says_how_many_more():
    out = table(["why"], [("x",), ("y",), ("<z>",)], css="refused", most=2)
    assert out.count("<tr>") == 4          # the header, two rows, the note
    assert "<td>x</td>" in out and "<td>y</td>" in out and "&lt;z&gt;" not in out
    assert "<td colspan='1'>… 1 more (kleene trace --format text prints them all)</td>" in out
    assert table(["why"], [("x",)], most=2).count("<tr>") == 2
