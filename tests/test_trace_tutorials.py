"""The pictures of the tutorials of seeds 000, 001, 003 and 004 (issue 15 item 5).

Every picture a tutorial links is one ``docs/make_pictures.py`` draws, committed as SVG
and PNG. The tutorials' ``sh`` blocks run as written in tests/test_docs_commands.py.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = ("tutorial-seed-000.md", "tutorial-seed-001.md", "tutorial-seed-003.md",
         "tutorial-seed-004.md")


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
