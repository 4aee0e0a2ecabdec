"""Run traces of the SES automaton (``kleene.engines.ses.trace``) and ``kleene trace``.

Seed 000 Example 8 / Fig. 6 follow the instance that produces patient 1's
match: started at e1 it takes c/e1, ignores e2 ({}), takes d/e3, p/e4
(Fig. 6(e): in {c, d}, e4 triggers ({c, d}, p+, Θ11)), ignores patient 2's
events, takes p/e9 on the loop and b/e12 into the accepting state; the
buffer is then {c/e1, d/e3, p/⟨e4, e9⟩, b/e12}.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from kleene.cli import main
from kleene.engines.registry import engine
from kleene.engines.ses.trace import run_steps, to_html, to_text
from kleene.engines.trace import substitution_text, trace
from kleene.reference.errors import Unsupported
from kleene.reference.events import stream_of
from kleene.reference.match import Match
from kleene.reference.query import Query
from kleene.reference.ses.text import parse_ses

CASES = Path(__file__).resolve().parents[1] / "conformance" / "cases"


def case(name: str) -> dict[str, Any]:
    return json.loads((CASES / name).read_text())["cases"][0]


Q1, P1 = case("ses-q1.json"), case("ses-p1.json")
needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz `dot` not installed")


def traced(c: dict[str, Any], name: str = "ses-automaton", policy: str = "next"):
    compiled = engine(name).compile(Query.of(parse_ses(c["pattern"]), policy=policy))
    return trace(compiled, stream_of(c["events"], time_unit=c["time_unit"]))


def test_the_run_from_e1_is_fig_6():
    steps = run_steps(traced(Q1), first=0)
    assert [rs.step.event.position for rs in steps] == list(range(12))   # e1 .. e12
    taken = [(rs.step.event.position + 1, d.variable, sorted(d.source), sorted(d.target))
             for rs in steps for m in rs.moves for d, _ in m.taken]
    assert taken == [(1, "c", [], ["c"]),
                     (3, "d", ["c"], ["c", "d"]),
                     (4, "p", ["c", "d"], ["c", "d", "p"]),
                     (9, "p", ["c", "d", "p"], ["c", "d", "p"]),
                     (12, "b", ["c", "d", "p"], ["b", "c", "d", "p"])]
    # e2 is ignored: the instance stays in {c} with its buffer ({} in Fig. 6)
    [ignored] = steps[1].moves
    assert (ignored.taken, ignored.kept) == ((), ignored.before)
    assert steps[-1].step.reported == (Match.of({"c": [0], "d": [2], "p": [3, 8], "b": [11]}),)


def test_fig_6_marks():
    steps = run_steps(traced(Q1), first=0)
    q = frozenset({"c", "d", "p"})
    e9 = steps[8].highlight
    assert e9.current == {q}
    assert e9.visited == {frozenset(), frozenset({"c"}), frozenset({"c", "d"})}
    assert e9.taken == {(q, q, "p")}
    assert steps[1].highlight.taken == frozenset()          # e2: {} (no transition)


def test_buffers_in_the_papers_notation():
    steps = run_steps(traced(Q1), first=0)
    [(_, after)] = steps[8].moves[0].taken
    assert substitution_text(after.beta) == "{c/e1, d/e3, p/⟨e4, e9⟩}"


@pytest.mark.parametrize("name,policy", [("ses-automaton", "next"), ("ses-automaton", "any"),
                                         ("ses-automaton-faithful", "next"),
                                         ("ses-automaton-paper-filter", "next")])
@pytest.mark.parametrize("c", [Q1, P1], ids=["Q1", "P1"])
def test_observing_changes_nothing(c, name, policy):
    compiled = engine(name).compile(Query.of(parse_ses(c["pattern"]), policy=policy))
    s = stream_of(c["events"], time_unit=c["time_unit"])
    run = list(compiled.run(s))
    assert list(trace(compiled, s).matches) == run


def test_every_run_view_and_text():
    t = traced(Q1)
    assert set(t.matches) == {Match.from_json(m) for m in Q1["tests"][1]["matches"]}
    lines = to_text(t)
    assert "  run from e1: cd --p+, Θ11--> cdp+  β = {c/e1, d/e3, p/e4}" in lines
    assert "  run from e7: cdp+ --b, Θ17--> cdp+b  β = {d/e7, c/e8, p/⟨e10, e11⟩, b/e13}" \
        in lines
    assert sum(line.startswith("  reported: ") for line in lines) == 3


def test_a_filtered_event_is_shown():
    c = dict(Q1, events=[*Q1["events"][:2], {"ts": 58, "ID": 1, "L": "X"}, *Q1["events"][2:]])
    lines = to_text(traced(c), first=0)
    assert any(line.startswith("e3 (ts 58)") and line.endswith("[filtered out]")
               for line in lines)


def test_only_the_ses_automaton_is_traced():
    compiled = engine("ses-bruteforce").compile(Query.of(parse_ses(Q1["pattern"]), policy="next"))
    with pytest.raises(Unsupported, match="one SES automaton"):
        trace(compiled, stream_of(Q1["events"], time_unit="h"))


@needs_dot
def test_html_page_plays_every_step_on_one_picture():
    t = traced(Q1)
    page = to_html(t, 0, events=stream_of(Q1["events"], time_unit="h"))
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert page.count("<svg") == 1                          # the automaton, once
    assert page.count("<div class='step' data-k=") == 12    # e1 .. e12
    found = re.search(r"class='kleene-steps'>(.*?)</script>", page)
    assert found is not None
    marks = json.loads(found.group(1))
    assert len(marks) == 12 and all(len(m["current"]) == 1 for m in marks)  # one state each
    assert all(f'id="{i}"' in page for m in marks for i in m["current"] + m["taken"])
    assert "{c/e1, d/e3, p/⟨e4, e9⟩, b/e12}" in page

# ---------------------------------------------------------------- kleene trace


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "q1.ses").write_text(Q1["pattern"] + "\n")
    (tmp_path / "chemo.jsonl").write_text("".join(json.dumps(e) + "\n" for e in Q1["events"]))
    return tmp_path


def args(files: Path, *extra: str) -> list[str]:
    return ["trace", str(files / "q1.ses"), "--events", str(files / "chemo.jsonl"),
            "--time-unit", "h", *extra]


def test_cli_text(files, capsys):
    assert main(args(files, "--run", "e1")) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1] == "  run from e1: ∅ --c, Θ1--> c  β = {c/e1}"
    assert out[-1].startswith("  reported: {c/e1, d/e3, p/⟨e4, e9⟩, b/e12}")
    assert main(args(files, "--run", "0")) == 0
    assert capsys.readouterr().out.splitlines() == out     # e1 is position 0


@needs_dot
def test_cli_html(files, capsys):
    out = files / "run.html"
    assert main(args(files, "--run", "e1", "-o", str(out))) == 0
    text = out.read_text(encoding="utf-8")
    assert text.count("<svg") == 1 and text.count("<div class='step' data-k=") == 12


def test_cli_errors(files, capsys):
    assert main(args(files, "--run", "e15")) == 2
    assert "the stream has 14 events" in capsys.readouterr().err
    assert main(args(files, "--engine", "ses-bruteforce")) == 2
    assert "engine ses-bruteforce runs no automaton a trace follows" in \
        capsys.readouterr().err
