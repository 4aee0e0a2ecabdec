"""``kleene prove --time-limit SECONDS`` bounds the whole run (docs/proofs.md): a bound
of 10^6 events for the equivalence check, which builds constraints for minutes between
two Z3 queries (``--timeout`` bounds each query only), stops in about the limit with
the lines printed so far, then one line, exit 2."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from kleene.cli.prove import DEFAULT_TIME_LIMIT
from tests.helpers import run_cli

KLEENE = Path(sys.executable).parent / "kleene"


def test_the_whole_run_stops_at_its_time_limit(tmp_path: Path) -> None:
    pattern = tmp_path / "q.op"
    pattern.write_text("PATTERN SEQ(A+ a[], B b) WITHIN 1000\n")
    began = time.monotonic()
    done = subprocess.run([KLEENE, "prove", str(pattern), "--bound", "1000000", "--check",
                           "equivalence", "--time-limit", "2"],
                          capture_output=True, text=True, timeout=120)
    took = time.monotonic() - began
    assert done.returncode == 2
    assert done.stdout.splitlines()[0] == f"pattern {pattern}; language operator"
    assert done.stderr.splitlines() == [
        f"kleene prove: budget seconds=2 exceeded while proving {pattern}; raise it "
        "(--time-limit SECONDS) or shrink the stream or window"]
    assert took < 30


def test_the_default_time_limit_is_five_minutes() -> None:
    assert DEFAULT_TIME_LIMIT == 300


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "soon"])
def test_a_bad_time_limit_is_one_line(tmp_path: Path, capsys, value: str) -> None:
    pattern = tmp_path / "q.op"
    pattern.write_text("PATTERN SEQ(A a, B b) WITHIN 10\n")
    code, _, err = run_cli(capsys, "prove", str(pattern), "--time-limit", value)
    assert code == 2
    assert len(err.splitlines()) == 1 and "argument --time-limit" in err
