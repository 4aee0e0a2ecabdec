"""The tutorials of seeds 000, 001, 003 and 004 run as written (issue 15 item 5).

Every ``sh`` block of docs/tutorial-seed-000.md, -001, -003 and -004
runs, in order, in one scratch folder holding ``examples/`` and
``conformance/`` (a clone's root), with ``.venv/bin/kleene`` this
interpreter's ``kleene``: it must exit 0 and print no traceback, and where an
``output`` block follows it, print exactly that. Every picture a tutorial
links is one ``docs/make_pictures.py`` draws, committed as SVG and PNG.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
KLEENE = Path(sys.executable).parent / "kleene"
PAGES = ("tutorial-seed-000.md", "tutorial-seed-001.md", "tutorial-seed-003.md",
         "tutorial-seed-004.md")


def blocks(page: str) -> list[tuple[str, str | None]]:
    """``(script, expected output or None)`` for each ``sh`` block of ``page``."""
    text = (DOCS / page).read_text(encoding="utf-8")
    found = re.findall(r"```sh\n(.*?)```\n(?:\n```output\n(.*?)```)?", text, re.S)
    return [(script, out or None) for script, out in found]


@pytest.mark.parametrize("page", PAGES)
def test_every_command_of_the_tutorial_runs(page: str, tmp_path: Path) -> None:
    for folder in ("examples", "conformance"):
        (tmp_path / folder).symlink_to(ROOT / folder)
    found = blocks(page)
    assert len(found) >= 3
    for script, expected in found:
        run = script.replace(".venv/bin/kleene", str(KLEENE))
        done = subprocess.run(["bash", "-e", "-c", run], cwd=tmp_path, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, f"{script}\n{done.stderr}"
        assert "Traceback" not in done.stderr, script
        if expected is not None:
            assert done.stdout == expected, script


def test_every_picture_the_tutorials_link_is_drawn_and_committed() -> None:
    spec = importlib.util.spec_from_file_location("make_pictures", DOCS / "make_pictures.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["make_pictures"] = module
    spec.loader.exec_module(module)
    names = {p.name for p in module.pictures()}
    for page in PAGES:
        linked = set(re.findall(r"\(img/([\w-]+)\.svg\)", (DOCS / page).read_text()))
        assert linked and linked <= names, linked - names
        for name in linked:
            for suffix in ("svg", "png"):
                assert (DOCS / "img" / f"{name}.{suffix}").stat().st_size > 0
