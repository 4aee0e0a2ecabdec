"""Package discovery for the one-distribution layout of docs/architecture.md.

The repository root *is* the ``kleene`` package: every folder below it with an
``__init__.py`` (reference/, engines/, conformance/, proofs/, cli/ and their
subfolders) is a subpackage ``kleene.<path>``. Discovering them here means a
new subpackage needs no edit to the build configuration. Everything else lives
in ``pyproject.toml``.
"""

import os
from pathlib import Path

from setuptools import setup

ROOT = Path(__file__).resolve().parent
NOT_PACKAGES = {"tests", "bench", "docs", "scripts", "build", "out", "dist"}


def packages() -> list[str]:
    found = ["kleene"]
    for top in sorted(p for p in ROOT.iterdir() if p.is_dir()):
        if top.name in NOT_PACKAGES or top.name.startswith((".", "_")):
            continue
        for folder, dirs, files in os.walk(top):
            dirs[:] = sorted(d for d in dirs if not d.startswith((".", "_")))
            if "__init__.py" in files:
                rel = Path(folder).relative_to(ROOT)
                found.append("kleene." + ".".join(rel.parts))
    return found


setup(packages=packages(), package_dir={"kleene": "."})
