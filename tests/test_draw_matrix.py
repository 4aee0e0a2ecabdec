"""Issue 15's "done when": ``kleene draw``, ``kleene trace`` and ``kleene prove`` work for
one pattern of each language (SES, operator, SREMO) with every engine that compiles it,
and an engine that cannot is one plain line (exit 2) naming the ones that can.

Bounded in time: small patterns, streams of at most 5 events, ``--format dot`` (no
Graphviz needed), and ``kleene prove`` on sections that decide in seconds.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kleene.engines.registry import engine, engine_names
from tests.helpers import run_cli

Q1 = (Path(__file__).resolve().parents[1] / "examples" / "chemo" / "q1.ses").read_text()

#: language → (file name, pattern, events CSV, engines that trace it, prove's sections)
LANGUAGES = {
    "ses": ("q1.ses", Q1,
            "ts,L,ID\n0,C,1\n1,P,1\n2,D,1\n3,B,1\n",
            {"ses-automaton", "ses-automaton-faithful", "ses-automaton-paper-filter",
             "ses-automaton-unfiltered"},
            ("variables", "pattern", "exclusivity")),
    # the seed 003 tutorial's first pattern, as written (a window with a unit)
    "operator": ("seq.op", "PATTERN SEQ(A a, B b, C c) WITHIN 1 hour\n",
                 "ts,type\n0,A\n1,A\n2,B\n3,B\n4,C\n",
                 {"nfa-eager", "nfa-chain", "nfa-chain-fc", "nfa-multichain", "nfa-tree"},
                 ("variables", "branches")),
    # every atom marked and no register: srt, srt-faithful and dsrt all compile it
    "sremo": ("bs.sremo", "(mark {~.type = 'B'} ; mark {~.type = 'S'})[1..3]\n",
              "ts,type\n0,B\n1,B\n2,S\n3,S\n",
              {"srt", "srt-faithful", "dsrt"},
              ("language", "transitions", "dsrt", "negation")),
}


def compiling(language: str) -> list[str]:
    """The engines whose capabilities name ``language``."""
    return [n for n in engine_names()
            if any(f.language == language for f in engine(n).capabilities)]


@pytest.mark.parametrize("language", LANGUAGES)
def test_draw_trace_and_prove_with_every_engine(language: str, tmp_path: Path,
                                                capsys) -> None:
    name, text, events, tracing, sections = LANGUAGES[language]
    (tmp_path / name).write_text(text)
    (tmp_path / "events.csv").write_text(events)
    pattern, stream = str(tmp_path / name), str(tmp_path / "events.csv")
    engines = compiling(language)
    assert tracing <= set(engines)
    for e in engines:
        code, out, err = run_cli(capsys, "draw", pattern, "--engine", e, "--format", "dot")
        assert (code, err) == (0, ""), e
        assert out.startswith("digraph"), e
        code, out, err = run_cli(capsys, "trace", pattern, "--engine", e, "--events", stream,
                             "--time-unit", "h", "--format", "text")
        if e in tracing:
            assert (code, err) == (0, "") and out.startswith("e1 (ts 0"), e
        else:
            assert code == 2 and err.count("\n") == 1, e
            assert f"engine {e} runs no automaton a trace follows" in err
    checks = [x for s in sections for x in ("--check", s)]
    code, out, err = run_cli(capsys, "prove", pattern, *checks)
    assert (code, err) == (0, "")
    last = out.rstrip().splitlines()[-1]
    assert last.endswith(" ok, 0 problem, 0 info, 0 unknown") and not last.startswith("0 ")


@pytest.mark.parametrize("language", LANGUAGES)
def test_an_engine_of_another_language_is_one_line_naming_those_that_compile(
        language: str, tmp_path: Path, capsys) -> None:
    name, text, events, _, _ = LANGUAGES[language]
    (tmp_path / name).write_text(text)
    (tmp_path / "events.csv").write_text(events)
    other = next(n for n in engine_names() if n not in compiling(language))
    for argv in (("draw", str(tmp_path / name), "--engine", other, "--format", "dot"),
                 ("trace", str(tmp_path / name), "--engine", other, "--events",
                  str(tmp_path / "events.csv"), "--time-unit", "h")):
        code, out, err = run_cli(capsys, *argv)
        assert code == 2 and out == "" and err.count("\n") == 1
        assert f"engine {other} does not run" in err
        assert f"engines that do: {', '.join(compiling(language))}" in err


def test_a_sremo_time_window_is_drawn_and_traced_in_the_given_unit(tmp_path: Path,
                                                                   capsys) -> None:
    """The SRT's clock test ``~.ts − @w.ts ≤ τ`` is compiled in the timestamps' unit:
    one hour is 60 minutes (kleene draw had no --time-unit to give, so it failed)."""
    (tmp_path / "tw.sremo").write_text("(mark {~.type = 'B'} ; mark {~.type = 'S'})"
                                       "[WITHIN 1 hour]\n")
    (tmp_path / "e.csv").write_text("ts,type\n0,B\n30,S\n")
    code, out, err = run_cli(capsys, "draw", str(tmp_path / "tw.sremo"), "--format", "dot",
                         "--time-unit", "min")
    assert (code, err) == (0, "") and "@w1.ts <= 60" in out and "@w1.ts <= 1 " not in out
    code, out, err = run_cli(capsys, "trace", str(tmp_path / "tw.sremo"), "--events",
                         str(tmp_path / "e.csv"), "--time-unit", "min", "--format", "text")
    assert (code, err) == (0, "")
    assert "e2 (ts 30, type=S)" in out and '{"marked": [0, 1]}' in out


def test_the_dsrt_view_of_a_time_window_says_why_there_is_none(tmp_path: Path, capsys) -> None:
    # With the unit given, the view must not ask for it again: a time window has no DSRT.
    (tmp_path / "tw.sremo").write_text("(mark {~.type = 'B'} ; mark {~.type = 'S'})"
                                       "[WITHIN 2 h]\n")
    code, out, err = run_cli(capsys, "draw", str(tmp_path / "tw.sremo"), "--engine", "srt",
                         "--view", "dsrt", "--time-unit", "h", "--format", "dot")
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert "determinizing a time window is not implemented" in err
