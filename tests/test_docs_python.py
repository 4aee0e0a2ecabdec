"""The Python blocks of docs/python.md run as written from a clone's root and print what
the page says they print (the "prints" block after each)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = (ROOT / "docs" / "python.md").read_text(encoding="utf-8")


def test_every_python_block_prints_what_the_page_says(tmp_path: Path) -> None:
    pairs = re.findall(r"```python\n(.*?)```\n\nprints\n\n```\n(.*?)```", PAGE, re.S)
    assert pairs, "docs/python.md shows no Python block with its output"
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    for code, printed in pairs:
        done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        assert done.stdout == printed
