"""``kleene match --engine NAME [--counters]``: an engine's matches, printed as the
reference's are. Expected outputs are the reference's own (the same command
with ``--engine reference``) and the engine's counters through the Python API;
without ``--engine`` the fastest engine that claims the query runs and says so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kleene.cli import main
from kleene.data.loaders import load_events
from kleene.engines.protocol import Counters
from kleene.engines.registry import engine
from kleene.reference.query import Query
from kleene.reference.ses.text import parse_ses
from tests.helpers import unregistered

PATTERN = ("PATTERN <{c, p+}, {b}> WHERE c.L = 'C' AND p.L = 'P' AND b.L = 'B' "
           "AND c.ID = p.ID AND p.ID = b.ID WITHIN 6\n")
ROWS = [(0, "C", 1), (1, "P", 1), (2, "P", 2), (3, "C", 2), (4, "B", 1), (5, "P", 2),
        (6, "X", 1), (7, "B", 2), (8, "P", 1), (12, "B", 1)]
EVENTS = "ts,L,ID\n" + "".join(f"{t},{label},{i}\n" for t, label, i in ROWS)


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "q.ses").write_text(PATTERN)
    (tmp_path / "e.csv").write_text(EVENTS)
    return tmp_path


def run(capsys, files: Path, *extra: str) -> tuple[int, str, str]:
    code = main(["match", "--pattern", str(files / "q.ses"), "--events",
                 str(files / "e.csv"), *extra])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(("name", "policy"), [
    ("ses-automaton", "next"), ("ses-automaton", "any"), ("ses-bruteforce", "any"),
    ("windows+ses", "next"), ("windows+ses", "any"), ("windows-plain+ses", "next"),
    ("windows+ses-bruteforce", "any")])
@pytest.mark.parametrize("fmt", ["jsonl", "table"])
def test_an_engine_prints_the_references_matches(capsys, files, name, policy, fmt):
    code, expected, _ = run(capsys, files, "--policy", policy, "--format", fmt,
                            "--engine", "reference")
    assert code == 0 and expected
    code, out, err = run(capsys, files, "--policy", policy, "--format", fmt, "--engine", name)
    assert (code, err) == (0, "")
    if fmt == "table":   # the footer also names the engine
        expected = expected.replace("the reference semantics)", f"engine {name})")
    assert out == expected


def test_counters_go_to_stderr_as_json(capsys, files):
    code, out, err = run(capsys, files, "--policy", "next", "--engine", "windows+ses",
                         "--counters")
    assert code == 0 and out
    counters = json.loads(err)
    compiled = engine("windows+ses").compile(Query.of(parse_ses(PATTERN), policy="next"))
    counted = Counters()
    list(compiled.run(load_events(files / "e.csv"), counters=counted))
    assert counters == counted.as_dict()
    assert counters["events_read"] == len(ROWS) and counters["events_filtered"] == 1   # X


@pytest.mark.parametrize(("argv", "message"), [
    (["--policy", "next", "--engine", "ses-bruteforce"],
     "engine 'ses-bruteforce' does not claim ses:next (it claims: ses, ses:any, "),
    (["--policy", "any", "--engine", "windows-paper+ses"],
     "engine 'windows-paper+ses' does not claim ses:any (it claims: ses, ses:group-variables"),
    (["--policy", "contiguous", "--engine", "windows+ses"],
     "engine 'windows+ses' does not claim ses:contiguous"),
    (["--engine", "no-such-engine"], "no engine named 'no-such-engine'; registered engines:"),
    (["--counters", "--engine", "reference"], "--counters needs an engine"),
])
def test_mistakes_are_one_line_and_exit_2(capsys, files, argv, message):
    code, out, err = run(capsys, files, *argv)
    assert (code, out) == (2, "")
    assert err.startswith("kleene match: ") and message in err and err.count("\n") == 1


def test_an_engine_that_raises_unsupported(capsys, tmp_path):
    # An operator pattern: the SES engines raise Unsupported on compile.
    (tmp_path / "q.op").write_text("PATTERN SEQ(A a, B b) WITHIN 10\n")
    (tmp_path / "e.csv").write_text("ts,type\n0,A\n1,B\n")
    code = main(["match", "--pattern", str(tmp_path / "q.op"), "--events",
                 str(tmp_path / "e.csv"), "--engine", "windows+ses"])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert "does not claim operator" in err and err.count("\n") == 1


def test_the_default_is_the_fastest_claiming_engine_named_on_stderr(capsys, files):
    code, out, err = run(capsys, files, "--policy", "next")
    assert code == 0
    assert err == ("kleene match: engine windows+ses (the fastest engine that claims ses, "
                   "ses:group-variables, ses:next)\n")
    _, expected, _ = run(capsys, files, "--policy", "next", "--engine", "reference")
    assert out == expected


def test_without_a_claiming_engine_the_reference_runs_and_says_so(capsys, tmp_path,
                                                                 monkeypatch):
    # next-literal (seed 000 Def. 2 read literally) without its engine: only the reference
    unregistered(monkeypatch, "ses-next-literal")
    (tmp_path / "q.ses").write_text("PATTERN <{c}, {b}> WHERE c.L = 'C' AND b.L = 'B' "
                                    "WITHIN 1000\n")
    (tmp_path / "e.csv").write_text(EVENTS)
    code = main(["match", "--pattern", str(tmp_path / "q.ses"), "--events",
                 str(tmp_path / "e.csv"), "--policy", "next-literal"])
    out, err = capsys.readouterr()
    assert code == 0 and out
    assert err.startswith("kleene match: the reference semantics (no registered engine "
                          "claims this ses pattern")


def test_the_python_api_picks_the_same_backend(files):
    from kleene.engines.fastest import find_matches

    stream = load_events(files / "e.csv")
    found = find_matches(PATTERN, stream, policy="next")
    reference = find_matches(PATTERN, stream, policy="next", engine_name="reference")
    assert (found.backend, reference.backend) == ("windows+ses", "reference")
    assert found.matches == reference.matches and found.matches


@pytest.mark.parametrize("engine_name", ["reference", "windows+ses", "ses-automaton"])
def test_the_window_reading_is_an_option(capsys, tmp_path, engine_name):
    # By hand: a at ts 0, b at ts 5, WITHIN 5: 5 <= 5 holds (inclusive), 5 < 5 does not.
    (tmp_path / "w.ses").write_text("PATTERN <{a}, {b}> WHERE a.L = 'A' AND b.L = 'B' "
                                    "WITHIN 5\n")
    (tmp_path / "w.csv").write_text("ts,L\n0,A\n5,B\n")
    argv = ["match", "--pattern", str(tmp_path / "w.ses"), "--events", str(tmp_path / "w.csv"),
            "--engine", engine_name]
    assert main(argv) == 0
    assert capsys.readouterr().out == '{"a": [0], "b": [1]}\n'
    assert main([*argv, "--window-reading", "strict"]) == 0
    assert capsys.readouterr().out == ""
