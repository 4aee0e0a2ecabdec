"""docs/counting.md: every shell command runs as written from a clone's root, and prints
what the page says (the counts by hand: seq3 on the example file has 4 matches, which the
reference lists too)."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from bench.count import measured, stopped

ROOT = Path(__file__).resolve().parents[1]
PAGE = (ROOT / "docs" / "counting.md").read_text(encoding="utf-8")
KLEENE = Path(sys.executable).parent / "kleene"


def blocks() -> list[tuple[str, str]]:
    """The page's fenced blocks, each as (its info string, its text), fences paired in
    order (a closing fence is never taken for an opening one)."""
    out: list[tuple[str, str]] = []
    info: str | None = None
    body: list[str] = []
    for line in PAGE.splitlines():
        if line.startswith("```"):
            if info is None:
                info, body = line[3:].strip(), []
            else:
                out.append((info, "\n".join(body)))
                info = None
        elif info is not None:
            body.append(line)
    return out


def commands() -> list[str]:
    return [line.strip() for info, block in blocks() if info == "sh"
            for line in block.splitlines() if line.strip()]


def quoted() -> list[str]:
    """The page's plain blocks: what a command says on stderr."""
    return [b.strip() for info, b in blocks() if info == "" and "kleene match:" in b]


def kleene(command: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    if not (tmp_path / "examples").exists():
        (tmp_path / "examples").symlink_to(ROOT / "examples")
    argv = shlex.split(command)
    argv[0] = str(KLEENE)
    return subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("command", commands())
def test_every_command_runs(command: str, tmp_path: Path) -> None:
    done = kleene(command, tmp_path)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    argv = shlex.split(command)
    if "-o" in argv:   # a picture written to a file: the file, not stdout
        written = tmp_path / argv[argv.index("-o") + 1]
        assert written.stat().st_size > 0 and f"wrote {written.name}" in done.stderr
    else:
        assert done.stdout


def test_the_page_says_what_the_commands_print(tmp_path: Path) -> None:
    seq3, burst, listed, *_ = commands()
    assert kleene(seq3, tmp_path).stdout == "4\n"
    reference = kleene(seq3.replace("--count", "--engine reference --count"), tmp_path)
    assert reference.stdout == "4\n"
    count = kleene(burst, tmp_path)
    assert re.fullmatch(r"\d{55}\n", count.stdout) and int(count.stdout) > 2 ** 64
    first = next(c for c in commands() if "seq3.ceql" in c and "--first" in c)
    cliff = kleene(burst.replace(" --count", ""), tmp_path)   # the listing cliff's stop
    assert cliff.returncode == 2 and not cliff.stdout
    said = [line for c in (seq3, listed, first) for line in kleene(c, tmp_path).stderr
            .splitlines()] + cliff.stderr.splitlines()
    assert len(quoted()) == 4
    assert all(line in said for q in quoted() for line in q.splitlines()), (quoted(), said)


def test_the_bench_measures_one_run(tmp_path: Path) -> None:
    """``bench.count.measured``: the exit code, the count printed, a peak memory."""
    seq3 = commands()[0]
    code, cpu, wall, mb, said = measured(shlex.split(seq3)[1:])
    assert code == 0 and said == "4" and cpu > 0 and wall > 0 and mb > 10


def test_a_stopped_run_is_named_in_a_few_words() -> None:
    assert stopped("kleene match: budget seconds=600 exceeded while running engine x") == \
        "stopped: seconds"
    assert stopped("kleene match: budget memory=6000MB exceeded while x") == "stopped: memory"
    assert stopped("something else") == "failed"
