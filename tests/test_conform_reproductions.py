"""Reproductions that run (issue 28, item 5): a plug-in's rerun line carries
``PYTHONPATH``, a generated failure prints its seed and a rerun line, a position past the
end of the stream is "out of range", ``--check-protocol`` says nothing of an exit after
a ``bye`` it never sent, a slow backend is warned of.

Each uses a backend that really fails (conformance/examples/broken_backend.py: drop-last,
off-by-one, slow; mr_backend.py --defect reluctant; tests/backends/misbehaving.py), and
each rerun line is run as a fresh shell would: ``bash -c``, no ``PYTHONPATH``, another
folder.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from kleene.cli import main
from kleene.conformance.backends import find_backend
from kleene.conformance.generated import check_language
from kleene.conformance.runner import FAIL
from tests.helpers import tiny_cases

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
BIN = Path(PY).parent
BROKEN = "kleene.conformance.examples.broken_backend"
MISBEHAVING = ROOT / "tests" / "backends" / "misbehaving.py"
#: A test of ses-q1.json whose expected set is not empty (the broken backend fails it).
Q1_NEXT = "ses-q1/q1-on-fig-1/next-gives-the-two-intended-results-and-the-run-started-at-e7"


def fresh_shell(line: str) -> subprocess.CompletedProcess[str]:
    """``line`` in a fresh shell: ``kleene`` on the PATH, no PYTHONPATH, from ``/``."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "KLEENE_BACKEND")}
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    return subprocess.run(["bash", "-c", line], cwd="/", env=env, capture_output=True,
                          text=True, timeout=600)


def rerun_lines(out: str) -> list[str]:
    return [line.split("rerun: ", 1)[1] for line in out.splitlines() if "  rerun: " in line]


# ---------------------------------------------------------------- rerun lines


def test_a_plugin_found_through_pythonpath_reruns_in_a_fresh_shell(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "my plugins"
    folder.mkdir()
    (folder / "acme_plugin.py").write_text(
        f"from {BROKEN} import BrokenEngine\n\n\ndef engine():\n    return BrokenEngine()\n")
    monkeypatch.setenv("PYTHONPATH", str(folder))
    monkeypatch.syspath_prepend(str(folder))
    assert main(["conform", "--backend", "acme_plugin:engine", "--case", Q1_NEXT]) == 1
    [line] = rerun_lines(capsys.readouterr().out)
    prefix = f"PYTHONPATH={shlex.quote(str(folder))} "
    assert line.startswith(f"{prefix}kleene conform ")
    done = fresh_shell(line)
    assert done.returncode == 1, done.stderr
    assert f"FAIL {Q1_NEXT}" in done.stdout and "1 failed" in done.stdout
    # without the prefix, the fresh shell cannot import the plug-in: the prefix is needed
    bare = fresh_shell(line.removeprefix(prefix))
    assert bare.returncode == 2 and "cannot import 'acme_plugin'" in bare.stderr


def test_an_installed_plugin_and_the_environment_variable_rerun_as_named(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("KLEENE_BACKEND", f"{BROKEN}:engine")
    assert main(["conform", "--case", Q1_NEXT]) == 1
    [line] = rerun_lines(capsys.readouterr().out)
    assert line == f"kleene conform --backend {BROKEN}:engine --case {Q1_NEXT}"
    done = fresh_shell(line)
    assert done.returncode == 1 and f"FAIL {Q1_NEXT}" in done.stdout


def test_a_generated_failure_prints_its_seed_and_a_rerun_line_that_reproduces_it(
        capsys: pytest.CaptureFixture[str]) -> None:
    spec = f"{BROKEN}:engine"
    assert main(["conform", "--backend", spec, "--generated", "25", "--seed", "7",
                 "--case", "generated/ses", "-q"]) == 1
    out = capsys.readouterr().out
    assert "FAIL generated/ses (shrunk by Hypothesis to a minimal counterexample; " \
           "Hypothesis seed 7)" in out
    [line] = rerun_lines(out)
    assert line == f"kleene conform --backend {spec} --generated 25 --seed 7 " \
                   "--case generated/ses"
    again = fresh_shell(line)
    assert again.returncode == 1
    # the same seed draws the same queries: the same minimal counterexample
    shown = out[out.index("━━ failures"):out.index("  rerun: ")]
    assert shown in again.stdout
    # dropping the last match is seen on the smallest pattern with a match: one variable
    assert 'missing (expected, not reported):\n    {"a": [0]}' in shown


@pytest.mark.slow
def test_a_generated_table_failure_prints_its_seed_and_rerun_line() -> None:
    spec = f"cmd:{PY} -m kleene.conformance.examples.mr_backend --defect reluctant"
    backend = find_backend(spec)
    try:
        result = check_language(backend, "match_recognize", 100, seed=4,
                                rerun=lambda ident: f"RERUN {ident}")
    finally:
        backend.close()
    assert result.status == FAIL and result.seed == 4
    assert result.reproduction.startswith(
        "FAIL generated/match_recognize (shrunk by Hypothesis to a minimal counterexample; "
        "Hypothesis seed 4)")
    assert "  rerun: RERUN generated/match_recognize" in result.reproduction


# ---------------------------------------------------------------- out of range


@pytest.mark.parametrize("spec", [f"{BROKEN}:off_by_one",
                                  f"cmd:{PY} -m {BROKEN} --defect off-by-one"],
                         ids=["python-plugin", "external-command"])
def test_a_position_past_the_end_is_out_of_range(spec: str, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    # A at 0, B at 1: the match {a: [0], b: [1]}, which the defect reports as
    # {a: [1], b: [2]}: position 2 of a stream of 2 events
    folder = tiny_cases(tmp_path)
    assert main(["conform", "--backend", spec, "--cases", str(folder),
                 "--case", "ses-tiny/a-then-b/first"]) == 1
    out = capsys.readouterr().out
    assert "FAIL ses-tiny/a-then-b/first  (1 out of range (a position past the stream's 2 " \
           "events), 1 missing)" in out
    assert 'out of range (positions are 0 to 1):\n    {"a": [1], "b": [2]}' in out
    assert "extra" not in out


# ---------------------------------------------------------------- --check-protocol


def test_check_protocol_says_no_bye_was_sent_to_a_backend_it_stopped(
        capsys: pytest.CaptureFixture[str]) -> None:
    spec = f"cmd:{PY} {MISBEHAVING} malformed-always"
    assert main(["conform", "--check-protocol", "--backend", spec]) == 1
    out = capsys.readouterr().out
    runs = out.count("✗ backend → runner: run-response #")
    assert runs >= 1
    assert "· bye not sent: the backend was stopped after its last answer's verdict" in out
    assert "✗ after bye" not in out and "did not exit" not in out and "status None" not in out
    assert f"protocol check FAILED: {runs} problem(s):" in out


# ---------------------------------------------------------------- slow tests


def test_a_slow_backend_is_warned_of_with_its_slowest_tests(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["conform", "--backend", f"{BROKEN}:slow", "--case", "ses-q1/q1-on-fig-1",
                 "-q"]) == 0
    out = capsys.readouterr().out
    warning = out[out.index("warning: "):].splitlines()
    # the slow defect sleeps 1.2 s before each run; two of the three tests run
    assert warning[0] == "warning: 2 tests took longer than 1 s each; the slowest:"
    listed = [line.split()[-1] for line in warning[1:3]]
    assert sorted(listed) == sorted(
        ["ses-q1/q1-on-fig-1/any-admits-17-substitutions-3-for-patient-1-and-14-for-patient-2",
         Q1_NEXT])
    assert all(float(line.split()[0]) >= 1.2 for line in warning[1:3])
    assert main(["conform", "--backend", "ses-automaton", "--case", "ses-q1/q1-on-fig-1",
                 "-q"]) == 0
    assert "warning:" not in capsys.readouterr().out

