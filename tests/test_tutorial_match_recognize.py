"""docs/tutorial-match-recognize.md and the MATCH_RECOGNIZE and ``kleene translate`` sections
of docs/cli.md run as written with the reference (issue 26, item 6): every ``sh`` block runs,
in order, in one empty scratch folder (the tutorial writes its tables first; docs/cli.md's
blocks read ``examples/``), with ``.venv/bin/kleene match`` this interpreter's ``kleene match
--engine reference``; it must exit 0 and print no traceback, and print exactly the
``output`` block that follows it (nothing, where none follows: a picture or a page written
to a file). tests/test_docs_commands.py runs the same blocks as written (the fastest engine
that claims them). The outputs were worked out by hand (the text below each block says
how), so these tests hold the reference and the engine to them. Every
picture the tutorial links is one ``docs/make_pictures.py`` draws, from the statements the
tutorial writes, committed as SVG and PNG."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.docblocks import page_blocks

ROOT = Path(__file__).resolve().parents[1]
KLEENE = Path(sys.executable).parent / "kleene"


def blocks(text: str) -> list[tuple[str, str | None]]:
    """``(script, expected output or None)`` for each ``sh`` block of ``text``."""
    return [(b.text, b.expected) for b in page_blocks("page", text) if b.kind == "sh"]


def _section(text: str, title: str) -> str:
    start = text.index(f"## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end >= 0 else None]


CLI = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
PAGES = {
    "tutorial": (ROOT / "docs" / "tutorial-match-recognize.md").read_text(encoding="utf-8"),
    "cli": _section(CLI, "MATCH_RECOGNIZE") + _section(CLI, "kleene translate"),
}


@pytest.mark.slow
@pytest.mark.parametrize("page", sorted(PAGES))
def test_every_command_prints_what_the_page_shows_with_the_reference(page: str,
                                                                     tmp_path: Path) -> None:
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    found = blocks(PAGES[page])
    assert len(found) >= (8 if page == "tutorial" else 1)
    assert sum(expected is not None for _, expected in found) >= (8 if page == "tutorial" else 1)
    chosen = " --engine reference"   # kleene match's backend
    for script, expected in found:
        run = re.sub(r"\.venv/bin/kleene( match)?",
                     lambda m: f"{KLEENE}{' match' + chosen if m.group(1) else ''}", script)
        done = subprocess.run(["bash", "-e", "-c", run], cwd=tmp_path, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, f"{script}\n{done.stderr}"
        assert "Traceback" not in done.stderr and "warning" not in done.stderr, script
        assert done.stdout == (expected or ""), script


def _make_pictures():
    spec = importlib.util.spec_from_file_location("make_pictures",
                                                  ROOT / "docs" / "make_pictures.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["make_pictures"] = module   # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_every_picture_the_tutorial_links_is_drawn_from_its_statements_and_committed():
    pictures = _make_pictures()
    names = {p.name for p in pictures.pictures()}
    linked = set(re.findall(r"\(img/([\w-]+)\.svg\)", PAGES["tutorial"]))
    assert len(linked) >= 5 and linked <= names, linked - names
    for name in linked:
        for suffix in ("svg", "png"):
            assert (ROOT / "docs" / "img" / f"{name}.{suffix}").stat().st_size > 0
    for file, text in pictures.MR_STATEMENTS.items():   # the statements the pictures draw
        assert f"cat > {file} <<'EOF'\n{text}EOF\n" in PAGES["tutorial"], file
