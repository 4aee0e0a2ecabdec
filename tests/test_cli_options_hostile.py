"""Bad option values, bad plug-ins and a full standard output: one line on stderr, exit 2
(issue 27, item 3; docs/architecture.md, "Bad input"). Each case is its command line and
the line expected, written by hand from the docs; the hostile suite may take them as data.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.helpers import run_cli, unregistered

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
MISBEHAVING = ROOT / "tests" / "backends" / "misbehaving.py"
V_SHAPE = ROOT / "examples" / "ticks" / "v_shape.sql"
TICKS = ROOT / "examples" / "ticks" / "ticks.csv"
PATTERN = "PATTERN SEQ(A a, B b) WITHIN 10\n"
EVENTS = "ts,type\n0,A\n1,B\n"


@pytest.fixture
def work(tmp_path: Path) -> Path:
    (tmp_path / "p.op").write_text(PATTERN)
    (tmp_path / "e.csv").write_text(EVENTS)
    (tmp_path / "empty").mkdir()
    return tmp_path


#: (command line with {w} for the work folder, the one line on stderr).
CASES = [
    (["match", "--pattern", "{w}/p.op", "--events", "{w}/e.csv", "--output", ""],
     "kleene match: --output needs a path: FILE.jsonl, FILE.csv or FILE.parquet"),
    (["match", "--pattern", "{w}/p.op", "--events", "{w}/e.csv", "--output", "", "--spark"],
     "kleene match: --output needs a path: FILE.jsonl, FILE.csv or FILE.parquet"),
    (["match", "--pattern", str(V_SHAPE), "--events", str(TICKS), "--output", ""],
     "kleene match: --output needs a path: FILE.jsonl, FILE.csv or FILE.parquet"),
    (["draw", "{w}/p.op", "-o", ""], "kleene draw: --output needs a path"),
    (["trace", "{w}/p.op", "--events", "{w}/e.csv", "-o", ""],
     "kleene trace: --output needs a path"),
    (["conform", "--backend", "reference", "--timeout", "-1"],
     "kleene conform: argument --timeout: expected a positive number, got '-1' "
     "(see kleene conform --help)"),
    (["conform", "--backend", "reference", "--timeout", "nan"],
     "kleene conform: argument --timeout: expected a positive number, got 'nan' "
     "(see kleene conform --help)"),
    (["conform", "--backend", "reference", "--timeout", "inf"],
     "kleene conform: argument --timeout: expected a positive number, got 'inf' "
     "(see kleene conform --help)"),
    (["conform", "--sqllogictest", "--timeout", "0"],
     "kleene conform: argument --timeout: expected a positive number, got '0' "
     "(see kleene conform --help)"),
    (["conform", "--sqllogictest", "--junit", "{w}/r.xml"],
     "kleene conform: unsupported: --junit reports a run of the conformance cases; --export, "
     "--check-protocol and --sqllogictest write no report"),
    (["conform", "--export", "{w}/corpus", "--report", "{w}/r.html"],
     "kleene conform: unsupported: --report reports a run of the conformance cases; --export, "
     "--check-protocol and --sqllogictest write no report"),
    (["conform", "--backend", "reference", "--cases", "/nonexistent"],
     "kleene conform: case: --cases /nonexistent: no such folder"),
    (["conform", "--backend", "reference", "--cases", "{w}/empty"],
     "kleene conform: case: --cases {w}/empty: no case file (*.json) in it"),
    (["conform", "--backend", "cmd:node 'unbalanced.js"],
     "kleene conform: backend: cannot read the backend \"node 'unbalanced.js\": No closing "
     "quotation (quote as a shell would)"),
    (["conform", "--backend", f"cmd:{PY} {MISBEHAVING} not-utf8-hello"],
     f"kleene conform: backend: external command {PY} {MISBEHAVING} not-utf8-hello: the "
     "hello handshake failed (malformed): the hello answer is not UTF-8: "),
]


@pytest.mark.parametrize("argv, line", CASES, ids=[" ".join(a[:4]) + f" #{i}"
                                                    for i, (a, _) in enumerate(CASES)])
def test_a_bad_option_is_one_line(capsys, work, argv, line):
    code, out, err = run_cli(capsys, *[a.format(w=work) for a in argv])
    expected = line.format(w=work)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    if expected.endswith(": "):     # the rest quotes the backend's bytes
        assert err.startswith(expected), err
    else:
        assert err == expected + "\n"


def test_an_unbalanced_quote_in_the_environment_is_one_line(capsys, monkeypatch):
    monkeypatch.setenv("KLEENE_BACKEND", "'ses-automaton")
    code, out, err = run_cli(capsys, "conform")
    assert (code, out, err) == (2, "", "kleene conform: backend: cannot read the backend "
                                       "\"'ses-automaton\": No closing quotation (quote as "
                                       "a shell would)\n")


PLUGINS = textwrap.dedent("""
    from kleene.engines.registry import engine
    from kleene.reference.query import Feature

    class Plugin:
        def __init__(self, **attrs):
            self.__dict__.update(attrs)

        def compile(self, query):
            return engine("ses-automaton").compile(query)

    SES = frozenset({Feature("ses"), Feature("ses", "any")})
    nameless = Plugin(capabilities=SES)
    blank = Plugin(name=" ", capabilities=SES)
    no_capabilities = Plugin(name="p", capabilities=None)
    teleport = Plugin(name="p", capabilities=SES | {Feature("ses", "teleport")})
    klingon = Plugin(name="p", capabilities=SES | {Feature("klingon")})
    text = Plugin(name="p", capabilities={"ses", "ses:any"})
""")

#: (the factory, the rest of the line after ``Python factory plugins:NAME: ``).
PLUGIN_CASES = [
    ("nameless", "the plug-in has no name (a non-empty str attribute 'name'; it has None)"),
    ("blank", "the plug-in has no name (a non-empty str attribute 'name'; it has ' ')"),
    ("no_capabilities", "capabilities is NoneType None, not a set of Feature"),
    ("teleport", "unknown capability 'ses:teleport': ses has no feature 'teleport'; its "
                 "features: ses:any, ses:next, ses:next-literal, ses:earliest-maximal, "
                 "ses:earliest-maximal-contained, ses:contiguous, ses:partition-contiguous, "
                 "ses:group-variables, ses:prev, ses:window-strict"),
    ("klingon", "unknown capability 'klingon': unknown pattern language 'klingon'; known: "),
    ("text", "is str, not a Feature (Feature.parse('ses:next'))"),
]


def _plugins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    """The module ``plugins`` of ``text``, importable (freshly) for this test only."""
    (tmp_path / "plugins.py").write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "plugins", raising=False)


@pytest.mark.parametrize("factory, rest", PLUGIN_CASES, ids=[c[0] for c in PLUGIN_CASES])
def test_a_bad_in_process_plugin_is_one_line(capsys, tmp_path, monkeypatch, factory, rest):
    _plugins(tmp_path, monkeypatch, PLUGINS)
    code, out, err = run_cli(capsys, "conform", "--backend", f"plugins:{factory}")
    head = f"kleene conform: backend: Python factory plugins:{factory}: "
    assert code == 2 and out == "" and err.count("\n") == 1, err
    if factory == "text":     # a set of text: which item is named first is the set's order
        assert err.startswith(head + "the capability 'ses") and rest in err, err
    elif factory == "klingon":
        assert err.startswith(head + rest) and "ses" in err, err
    else:
        assert err == head + rest + "\n"


def test_a_good_in_process_plugin_runs(capsys, tmp_path, monkeypatch):
    _plugins(tmp_path, monkeypatch, PLUGINS + "good = Plugin(name='p', capabilities=SES)\n")
    code, out, err = run_cli(capsys, "conform", "--backend", "plugins:good", "-q",
                             "--case", "ses-q1/q1-on-fig-1/any")
    assert code == 0, out + err
    assert "capabilities: ses, ses:any" in out


def test_stdout_on_a_full_disk_is_one_line(work):
    with open("/dev/full", "w") as full:
        done = subprocess.run([PY, "-m", "kleene", "match", "--pattern", str(work / "p.op"),
                               "--events", str(work / "e.csv")], stdout=full,
                              stderr=subprocess.PIPE, text=True, cwd=work, check=False)
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [
        "kleene match: engine nfa-chain (the fastest engine that claims operator, "
        "operator:any)",
        "kleene match: cannot write the standard output: No space left on device"]


def test_the_engine_line_comes_after_every_check(capsys, work, monkeypatch):
    # --stream needs an engine, and none claims an SES pattern under next-literal once its
    # engine is out of the registry
    unregistered(monkeypatch, "ses-next-literal")
    (work / "q.ses").write_text("PATTERN <{a}, {b}> WHERE a.type = 'A' AND b.type = 'B' "
                                "WITHIN 10\n")
    assert run_cli(capsys, "convert", str(work / "e.csv"), "-o", str(work / "e.parquet"))[0] == 0
    code, out, err = run_cli(capsys, "match", "--pattern", str(work / "q.ses"), "--events",
                             str(work / "e.parquet"), "--policy", "next-literal", "--stream")
    assert (code, out, err) == (2, "", "kleene match: unsupported: --stream needs an engine, "
                                       "and no registered engine claims this pattern under "
                                       "this policy\n")
