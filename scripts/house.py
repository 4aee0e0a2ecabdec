"""House rules `make lint` checks that ruff and mypy do not (docs/architecture.md, Style 10).

- No dead definition: every top-level function, class and constant of the repository's
  Python files is named somewhere else in the tracked files (code, docs, configuration).
  A decorated function counts as used (a decorator may register it: ``atexit``, an
  autouse fixture); so do ``main``, tests and pytest hooks.
- No helper copied between test files: two top-level functions of ``tests/`` with the same
  body and arguments, reading nothing of their own module but its imports, are one helper
  (``tests/helpers.py``).

Prints one line per finding and exits 1 if there is any.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEXT = (".py", ".md", ".toml", ".sh", ".json", ".js", ".cfg", ".txt", ".yml", ".yaml", ".html")
ENTRY_POINTS = re.compile(r"test_\w*|pytest_\w*|main|__all__|pytestmark")
Def = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


def tracked() -> dict[str, str]:
    """The text of every tracked (or new, not ignored) file git lists."""
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"],
                            cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return {name: (ROOT / name).read_text(encoding="utf-8", errors="replace")
            for name in listed.split() if name.endswith(TEXT) and (ROOT / name).is_file()}


def defined(tree: ast.Module) -> Iterator[tuple[int, str, ast.stmt]]:
    """``(line, name, statement)`` of each top-level definition."""
    for node in tree.body:
        if isinstance(node, Def):
            yield node.lineno, node.name, node
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    yield node.lineno, target.id, node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            yield node.lineno, node.target.id, node


def dead(texts: dict[str, str]) -> Iterator[str]:
    """Definitions whose name appears nowhere else."""
    words = Counter(w for text in texts.values() for w in re.findall(r"[A-Za-z_]\w*", text))
    for name, text in sorted(texts.items()):
        if not name.endswith(".py"):
            continue
        for line, what, node in defined(ast.parse(text)):
            registered = isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) \
                and bool(node.decorator_list)
            if words[what] <= 1 and not registered and not ENTRY_POINTS.fullmatch(what):
                yield f"{name}:{line}: {what} is defined but never used"


def _own_names(tree: ast.Module) -> set[str]:
    """What a module defines itself (not what it imports)."""
    return {what for _, what, _ in defined(tree)}


def copied_helpers(texts: dict[str, str]) -> Iterator[str]:
    """Top-level functions of two test files that are the same code."""
    seen: defaultdict[str, list[str]] = defaultdict(list)
    for name, text in sorted(texts.items()):
        if not (name.startswith("tests/") and name.endswith(".py")):
            continue
        tree = ast.parse(text)
        own = _own_names(tree)
        for node in tree.body:
            if not isinstance(node, ast.FunctionDef) or node.name.startswith("test_"):
                continue
            body = node.body[1:] if ast.get_docstring(node) is not None else node.body
            reads = {n.id for b in body for n in ast.walk(b) if isinstance(n, ast.Name)}
            if body and not reads & own:
                key = ast.dump(node.args) + ast.dump(ast.Module(body=body, type_ignores=[]))
                seen[key].append(f"{name}:{node.lineno} {node.name}")
    for places in seen.values():
        if len({p.split(":")[0] for p in places}) > 1:
            yield f"{', '.join(places)}: one helper copied (tests/helpers.py)"


def main() -> int:
    texts = tracked()
    findings = [*dead(texts), *copied_helpers(texts)]
    for finding in findings:
        print(finding)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
