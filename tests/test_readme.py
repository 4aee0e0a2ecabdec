"""Every shell command of README.md, run as written (issue 11 item 6), so the
README cannot drift: each ``sh`` block line that calls ``.venv/bin/kleene`` runs
from a scratch folder holding ``examples/`` and ``conformance/`` (the repository's), with this
interpreter's ``kleene``; it must exit 0, print no traceback, and print what the
README says it prints where the README quotes it. ``make`` lines are the
Makefile's own targets (``make test`` runs this file)."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
KLEENE = Path(sys.executable).parent / "kleene"


def commands() -> list[str]:
    """The command lines of the README's ``sh`` blocks, ``make`` lines excepted."""
    found = []
    for block in re.findall(r"```sh\n(.*?)```", README, re.S):
        for line in block.splitlines():
            line = line.split("  #")[0].strip()
            if line and not line.startswith("make "):
                found.append(line)
    return found


def test_the_readme_has_commands_and_only_kleene_ones():
    assert len(commands()) >= 8
    assert all(c.startswith(".venv/bin/kleene ") for c in commands())


@pytest.mark.parametrize("command", commands())
def test_readme_command(command: str, tmp_path: Path) -> None:
    if "--spark" in command and os.environ.get("KLEENE_SKIP_SPARK"):
        pytest.skip("KLEENE_SKIP_SPARK is set")
    for folder in ("examples", "conformance"):   # what a clone's root holds
        (tmp_path / folder).symlink_to(ROOT / folder)
    argv = shlex.split(command)
    argv[0] = str(KLEENE)
    done = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "WARN" not in done.stderr
    assert "warning:" not in done.stderr   # the examples are plausible (data/plausible.py)


def test_the_first_example_prints_what_the_readme_says(tmp_path: Path) -> None:
    first = commands()[0]
    quoted = re.search(r"prints one canonical match per line, `(\{.*?\})`", README)
    assert quoted is not None
    argv = shlex.split(first)
    argv[0] = str(KLEENE)
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert quoted.group(1) in done.stdout.splitlines()
