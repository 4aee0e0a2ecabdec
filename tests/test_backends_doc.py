"""docs/backends.md shows real outputs (issue 28, item 5): every ``console`` block's
command runs as written, in a fresh shell from a clone's root (``kleene`` and
``python`` of this environment on the ``PATH``, no ``PYTHONPATH``), must not be a usage
error or a traceback, and the lines the guide shows after it must be in what it prints,
in order, where ``...`` stands for text left out (a line of its own: any lines).

Synopses (``kleene conform --backend BACKEND [...]``) are ``text`` blocks: not run.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GUIDE = (ROOT / "docs" / "backends.md").read_text(encoding="utf-8")
BIN = Path(sys.executable).parent
#: Commands that run for minutes (the Oracle sqllogictest file over the protocol).
SLOW = ("--sqllogictest", "--generated 20", "--generated 30", ":slow")


def blocks() -> list[tuple[str, list[str]]]:
    """Each command of a ``console`` block and the output lines shown after it."""
    found: list[tuple[str, list[str]]] = []
    for block in re.findall(r"```console\n(.*?)```", GUIDE, re.S):
        for line in block.splitlines():
            if line.startswith("$ "):
                found.append((line[2:], []))
            else:
                assert found, f"output before any command: {line!r}"
                found[-1][1].append(line)
    return found


def shown_pattern(shown: list[str]) -> re.Pattern[str]:
    """The lines ``shown`` as a pattern: each a whole line, ``...`` any text (a line of
    ``...`` any lines)."""
    parts = []
    for line in shown:
        if line.strip() == "...":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append("[^\n]*?".join(map(re.escape, line.split("..."))) + r"\n")
    return re.compile("^" + "".join(parts), re.M)


def test_the_guide_runs_its_commands_and_shows_outputs() -> None:
    commands = blocks()
    assert len(commands) >= 10
    assert all(c.startswith("kleene ") for c, _ in commands)
    assert sum(bool(shown) for _, shown in commands) >= 9


def test_the_pattern_of_shown_lines_elides_and_orders() -> None:
    real = "a 1\nb 2 s\nc\nd\n"
    assert shown_pattern(["a 1", "b ... s", "..."]).search(real)
    assert shown_pattern(["a 1", "...", "d"]).search(real)
    assert not shown_pattern(["b 2 s", "a 1"]).search(real)
    assert not shown_pattern(["a 1", "d"]).search(real)
    assert not shown_pattern(["2 s"]).search(real)


@pytest.mark.parametrize(("command", "shown"), [
    pytest.param(c, s, marks=[pytest.mark.slow] * any(x in c for x in SLOW))
    for c, s in blocks()])
def test_guide_command(command: str, shown: list[str], tmp_path: Path) -> None:
    if "cmd:node " in command and not (shutil.which("node") or shutil.which("nodejs")):
        pytest.skip("Node.js is not installed (scripts/bootstrap-system.sh installs nodejs)")
    for folder in ("conformance", "examples", "tests"):   # what a clone's root holds
        (tmp_path / folder).symlink_to(ROOT / folder)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "KLEENE_BACKEND")}
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    done = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=1200)
    assert done.returncode in (0, 1), done.stderr
    assert "Traceback" not in done.stderr
    if shown:
        assert shown_pattern(shown).search(done.stdout), (
            "the guide shows:\n" + "\n".join(shown) + "\n\nthe command printed:\n"
            + done.stdout)
