"""Every shell block of README.md and of every ``docs/*.md`` page runs as written (issue 11
item 6, issue 28 item 5, issue 29 item 8): a page added later is picked up as it is.

The Markdown says how a block is run:

- a ``sh`` block is a script. The blocks of a page run in order (a block may read what an
  earlier one wrote) with ``bash -e`` in one scratch folder that holds a clone's root
  (``examples/``, ``conformance/``, ``data/``, ``bench/``, ``tests/``, ``docs/`` as links,
  ``.venv`` this interpreter's environment, so ``.venv/bin/kleene`` is the one under test);
  it must exit 0 with no traceback and no ``warning:`` on stderr (the examples are
  plausible), and print exactly the ``output`` block that follows it, if one does before
  any other block (prose between them is fine);
- a ``console`` block holds commands (``$ kleene ...``), each followed by lines of what it
  prints: each command runs in a fresh shell (``kleene`` and ``python`` of this
  environment on the ``PATH``); it may exit 0 or 1 (``kleene conform`` failing a broken
  backend is what the guides show) but not 2 (a usage error), prints no traceback, and the
  lines shown are in its output, in order, where ``...`` stands for text left out (a line
  of its own: any lines);
- ``slow`` after the fence's language (```` ```sh slow ````) marks a block that runs for
  minutes: marked ``pytest.mark.slow`` (it still runs in CI), and never replayed as the
  set-up of a later block, so it must not write what a later block reads;
- ``<!-- not run: REASON -->`` right before a fence says why a block cannot run in CI
  (a peer engine that needs Flink, an hour of benchmarks); the list of them is counted and
  kept short (:data:`MOST_NOT_RUN`), and printed by the test that counts them;
- a fence with no language that holds a command (a line starting with ``kleene SUB``,
  ``.venv/bin/``, ``python``, ``make`` or ``$``) is a mistake: it is tagged ``sh`` or
  ``console`` (run), or ``text`` (a synopsis with placeholders, not a command).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.docblocks import (
    COMMAND,
    Block,
    fences,
    page_blocks,
    shown_pattern,
)

ROOT = Path(__file__).resolve().parents[1]
PAGES = ["README.md"] + sorted(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md"))
#: What a clone's root holds that the commands read (linked into the scratch folder).
CLONE = ("examples", "conformance", "data", "bench", "tests", "docs")
#: The blocks marked ``<!-- not run: ... -->`` in all pages together, at most.
MOST_NOT_RUN = 5
BLOCKS = [b for page in PAGES for b in page_blocks(page)]


def environment() -> dict[str, str]:
    """A user's shell: this environment's ``kleene`` and ``python`` first on the PATH."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "KLEENE_BACKEND")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


def clone(folder: Path) -> Path:
    """``folder`` made to look like a clone's root with its ``.venv``."""
    for name in CLONE:
        (folder / name).symlink_to(ROOT / name)
    (folder / ".venv").symlink_to(Path(sys.prefix))
    return folder


def run_sh(block: Block, folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-e", "-c", block.text], cwd=folder, env=environment(),
                          capture_output=True, text=True, timeout=1800 if block.slow else 600)


def check_sh(block: Block, folder: Path) -> None:
    done = run_sh(block, folder)
    assert done.returncode == 0, f"{block.name}\n{block.text}\n{done.stderr}"
    assert "Traceback" not in done.stderr, f"{block.name}\n{done.stderr}"
    assert "warning:" not in done.stderr and "WARN" not in done.stderr, (
        f"{block.name}: the examples are plausible\n{done.stderr}")
    if block.expected is not None:
        assert done.stdout == block.expected, (
            f"{block.name}: the page shows\n{block.expected}\nthe block printed\n{done.stdout}")


def check_console(block: Block, folder: Path) -> None:
    for command, shown in block.commands:
        if "cmd:node " in command and not (shutil.which("node") or shutil.which("nodejs")):
            pytest.skip("Node.js is not installed (scripts/bootstrap-system.sh installs nodejs)")
        done = subprocess.run(["bash", "-c", command], cwd=folder, env=environment(),
                              capture_output=True, text=True,
                              timeout=1800 if block.slow else 600)
        assert done.returncode in (0, 1), f"{block.name}: {command}\n{done.stderr}"
        assert "Traceback" not in done.stderr, f"{block.name}: {command}\n{done.stderr}"
        if shown:
            assert shown_pattern(shown).search(done.stdout), (
                f"{block.name}: {command}\nthe page shows:\n" + "\n".join(shown)
                + "\n\nthe command printed:\n" + done.stdout)


class Scratch:
    """One scratch clone per page; the blocks of a page that ran in it."""

    def __init__(self, factory: pytest.TempPathFactory) -> None:
        self.factory = factory
        self.folders: dict[str, Path] = {}
        self.ran: set[str] = set()

    def ready(self, block: Block) -> Path:
        """The page's folder, after the page's earlier quick blocks ran in it (unchecked:
        each is checked by its own test)."""
        if block.page not in self.folders:
            self.folders[block.page] = clone(self.factory.mktemp("clone"))
        folder = self.folders[block.page]
        for earlier in BLOCKS:
            if earlier.page != block.page or earlier.line >= block.line:
                continue
            if earlier.kind == "sh" and not earlier.slow and earlier.not_run is None \
                    and earlier.name not in self.ran:
                run_sh(earlier, folder)
                self.ran.add(earlier.name)
        self.ran.add(block.name)
        return folder


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Scratch:
    return Scratch(tmp_path_factory)


def _param(block: Block) -> object:
    return pytest.param(block, id=block.name, marks=[pytest.mark.slow] * block.slow)


@pytest.mark.parametrize("block", [_param(b) for b in BLOCKS if b.not_run is None])
def test_block_runs_as_written(block: Block, scratch: Scratch) -> None:
    if os.environ.get("KLEENE_SKIP_SPARK") and re.search(r"--spark|kleene stream", block.text):
        pytest.skip("KLEENE_SKIP_SPARK is set")
    folder = scratch.ready(block)
    (check_sh if block.kind == "sh" else check_console)(block, folder)


def test_the_blocks_not_run_are_few_and_say_why() -> None:
    skipped = [b for b in BLOCKS if b.not_run is not None]
    listed = "\n".join(f"{b.name}: {b.not_run}" for b in skipped)
    print(f"{len(skipped)} blocks not run:\n{listed}")
    assert len(skipped) <= MOST_NOT_RUN, listed
    assert all(len(b.not_run.split()) >= 3 for b in skipped if b.not_run), listed


def test_every_command_of_a_page_is_in_a_block_that_says_how_it_runs() -> None:
    untagged = [f"{page}:{line}" for page in PAGES
                for lang, _, body, line, _ in fences((ROOT / page).read_text(encoding="utf-8"))
                if lang == "" and COMMAND.search(body)]
    assert not untagged, f"tag these sh, console or text: {untagged}"


def test_the_pages_have_blocks_with_outputs() -> None:
    readme = [b for b in BLOCKS if b.page == "README.md" and b.not_run is None]
    assert len(readme) >= 8 and sum(b.expected is not None for b in readme) >= 3
    assert {b.page for b in BLOCKS} >= {"README.md", "docs/backends.md",
                                        "docs/tutorial-seed-000.md", "docs/outputs.md"}
    assert sum(bool(shown) for b in BLOCKS for _, shown in b.commands) >= 9


def test_the_parser_reads_fences_outputs_marks_and_console_lines() -> None:
    text = ("x\n<!-- not run: needs Flink here -->\n```sh\nkleene a\n```\n\nprose\n\n"
            "```output\n1\n```\n```console slow\n$ kleene b\n...\nok\n```\n"
            "```sh\nkleene c\n```\n```python\nx\n```\n```output\n2\n```\n")
    found = page_blocks("p.md", text)
    assert [(b.name, b.kind, b.slow) for b in found] == [
        ("p.md:3", "sh", False), ("p.md:12", "console", True), ("p.md:17", "sh", False)]
    assert [b.not_run for b in found] == ["needs Flink here", None, None]
    assert [b.expected for b in found] == ["1\n", None, None]
    assert found[1].commands == [("kleene b", ["...", "ok"])]
    assert COMMAND.search("cli/ the command\nkleene match --x") and not COMMAND.search(
        "kleene match: budget exceeded")


def test_the_pattern_of_shown_lines_elides_and_orders() -> None:
    real = "a 1\nb 2 s\nc\nd\n"
    assert shown_pattern(["a 1", "b ... s", "..."]).search(real)
    assert shown_pattern(["a 1", "...", "d"]).search(real)
    assert not shown_pattern(["b 2 s", "a 1"]).search(real)
    assert not shown_pattern(["a 1", "d"]).search(real)
    assert not shown_pattern(["2 s"]).search(real)
