"""The layer contract of ``make lint`` (``[tool.importlinter]`` in pyproject.toml;
docs/architecture.md, "Layers") catches what it is there for.

Each case runs ``lint-imports`` on a copy of the package with one import added by
hand: a lower floor importing a higher one (also inside a function, where a lazy
import would hide it from a reader), two modules importing each other, and the
independent evaluator importing the reference (directly, or through a module that
does: issue 28). The
unchanged copy passes, so a failure below is the added import's.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT = Path(sys.executable).with_name("lint-imports")
FLOORS = ("reference", "data", "engines", "proofs", "conformance", "cli", "bench")


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the package's Python files as ``<tmp>/kleene`` (the contract and its
    floors; the tests and data files are not needed)."""
    top = tmp_path_factory.mktemp("copy") / "kleene"
    ignore = shutil.ignore_patterns("__pycache__", "*.json", "*.md", "*.js")
    for floor in FLOORS:
        shutil.copytree(ROOT / floor, top / floor, ignore=ignore)
    for name in ("__init__.py", "__main__.py", "api.py", "setup.py", "pyproject.toml"):
        shutil.copy(ROOT / name, top / name)
    return top


def lint(top: Path, edit: tuple[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` on ``top`` (imported as ``kleene`` from its parent folder), with
    ``edit`` = (module path, a line appended to it) applied first and undone after."""
    path = top / edit[0] if edit else None
    before = path.read_text() if path else ""
    if path and edit:
        path.write_text(before + "\n" + edit[1] + "\n")
    try:
        return subprocess.run([str(LINT), "--no-cache", "--no-logo", str(top / "pyproject.toml")],
                              cwd=top.parent, capture_output=True, text=True, timeout=300,
                              env={"PYTHONPATH": str(top.parent), "PATH": "/usr/bin:/bin"})
    finally:
        if path:
            path.write_text(before)


def test_the_copy_keeps_the_contracts(package: Path) -> None:
    done = lint(package)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "3 kept, 0 broken" in done.stdout
    assert str(package) in subprocess.run(
        [sys.executable, "-c", "import kleene; print(kleene.__file__)"], cwd=package.parent,
        capture_output=True, text=True, env={"PYTHONPATH": str(package.parent)}).stdout


@pytest.mark.parametrize("module, line", [
    ("reference/events.py", "from kleene.data import loaders  # noqa"),
    ("data/columnar.py", "import kleene.engines.columns  # noqa"),
    ("engines/protocol.py", "def f():\n    from kleene.conformance import runner  # noqa"),
    ("conformance/cases.py", "from kleene.cli import common  # noqa"),
], ids=["reference->data", "data->engines", "engines->conformance (lazy)", "conformance->cli"])
def test_a_lower_floor_importing_a_higher_one_fails(package: Path, module: str,
                                                   line: str) -> None:
    done = lint(package, (module, line))
    assert done.returncode != 0
    assert "reference -> data -> engines -> proofs/conformance -> api -> cli BROKEN" in done.stdout
    assert f"kleene.{module[:-3].replace('/', '.')}" in done.stdout


def test_two_modules_importing_each_other_fail(package: Path) -> None:
    done = lint(package, ("data/stock.py", "def f():\n    from kleene.data import loaders  # noqa"))
    assert done.returncode != 0
    assert "no import cycle between sibling packages or modules BROKEN" in done.stdout
    assert ".stock -> .loaders" in done.stdout or ".loaders -> .stock" in done.stdout


@pytest.mark.parametrize("line", [
    "from kleene.reference import conditions  # noqa",
    "def f():\n    from kleene.conformance import corpus_draw  # noqa",
], ids=["directly", "through a conformance module (lazy)"])
def test_the_independent_evaluator_importing_the_reference_fails(package: Path,
                                                                 line: str) -> None:
    done = lint(package, ("conformance/independent/sremo.py", line))
    assert done.returncode != 0
    assert "the independent evaluator shares no code with the reference (issue 28) BROKEN" \
        in done.stdout
    assert "kleene.conformance.independent.sremo" in done.stdout
