"""The conform runner bounds an external backend (docs/backends.md, "Failures of the
backend itself"): an answer line longer than ``--max-answer`` characters is
``malformed`` and its rest is skipped (also a line that never ends), and on a timeout
the backend's whole process group is killed, so a child that keeps its stdout open
cannot make the run ignore ``--timeout``. Each misbehaviour hits the middle of three
tests; the run goes on and passes the other two."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from kleene.cli import main
from kleene.conformance.backends import find_backend
from kleene.conformance.cases import load_case_files
from kleene.conformance.command import DEFAULT_MAX_ANSWER
from kleene.conformance.generated import conform
from kleene.conformance.runner import FAIL, PASS
from tests.helpers import tiny_cases

ROOT = Path(__file__).resolve().parents[1]
MISBEHAVING = ROOT / "tests" / "backends" / "misbehaving.py"
PY = sys.executable


def test_the_default_answer_bound_is_below_an_eleven_megabyte_line():
    assert DEFAULT_MAX_ANSWER == 8 * 2**20


@pytest.mark.parametrize(("mode", "timeout", "verdict", "seconds"), [
    # one 11 MB line of bogus matches: past the 8 MiB bound, never parsed
    ("huge", 20, "malformed: the run answer is longer than 8,388,608 characters "
             "(--max-answer): '{\"seq\": 2, \"matches\": [{\"a\": [0], \"b\": [1]}", 60),
    # a line that never ends: skipped past the bound until the backend is killed
    ("endless", 20, "malformed: the run answer is longer than 8,388,608 characters "
                "(--max-answer): '[[[[", 60),
    # the backend exits, its forked child keeps stdout open: --timeout still holds
    ("orphan", 1, "timeout: no run answer within 1 s", 15),
])
def test_a_backend_is_bounded_in_size_and_time(tmp_path: Path, mode: str, timeout: float,
                                               verdict: str, seconds: float) -> None:
    files = load_case_files(tiny_cases(tmp_path))
    began = time.monotonic()
    backend = find_backend(f"cmd:{PY} {MISBEHAVING} {mode}", timeout=timeout)
    try:
        report = conform(backend, files)
    finally:
        backend.close()
    assert [r.status for r in report.results] == [PASS, FAIL, PASS]
    assert report.results[1].reason.startswith(verdict), report.results[1].reason[:300]
    assert time.monotonic() - began < seconds


def test_max_answer_is_an_option_of_conform(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    # the hello answer (a name, a version, the capabilities) is longer than 20 characters
    code = main(["conform", "--backend", f"cmd:{PY} {MISBEHAVING} none", "--cases",
                 str(tiny_cases(tmp_path)), "--max-answer", "20", "--timeout", "5"])
    err = capsys.readouterr().err.splitlines()
    assert code == 2
    assert len(err) == 1 and "the hello handshake failed (malformed): the hello answer is " \
        "longer than 20 characters (--max-answer)" in err[0]


@pytest.mark.parametrize("value", ["0", "-3", "many"])
def test_a_bad_max_answer_is_one_line(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["conform", "--max-answer", value]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("kleene conform: argument --max-answer: ")
