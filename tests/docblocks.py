"""The shell blocks of a Markdown page as tests/test_docs_commands.py reads them (its
docstring says how a page marks them), for every test that runs a page's commands."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FENCE = re.compile(r"^```([\w-]*)[ \t]*([^\n]*)\n(.*?)^```[ \t]*$", re.M | re.S)
NOT_RUN = re.compile(r"<!--\s*not run:\s*(.*?)\s*-->\s*$", re.S)
COMMAND = re.compile(r"^(\$ |\.venv/bin/|kleene [a-z]+ |python3? |make [a-z])", re.M)


@dataclass(frozen=True)
class Block:
    """One ``sh`` or ``console`` block of a page, as the page shows it."""

    page: str
    line: int
    kind: str
    text: str
    expected: str | None = None   # a sh block: the output block that follows it
    slow: bool = False
    not_run: str | None = None
    commands: list[tuple[str, list[str]]] = field(default_factory=list)   # console

    @property
    def name(self) -> str:
        return f"{self.page}:{self.line}"


def fences(text: str) -> list[tuple[str, str, str, int, str]]:
    """``(language, rest of the fence line, body, line number, text before it)`` per fence."""
    found, end = [], 0
    for m in FENCE.finditer(text):
        found.append((m.group(1), m.group(2), m.group(3), text.count("\n", 0, m.start()) + 1,
                      text[end:m.start()]))
        end = m.end()
    return found


def console_commands(body: str, where: str) -> list[tuple[str, list[str]]]:
    """Each ``$`` command of a console block and the output lines shown after it."""
    found: list[tuple[str, list[str]]] = []
    for line in body.splitlines():
        if line.startswith("$ "):
            found.append((line[2:], []))
        elif not found:
            raise ValueError(f"{where}: output before any command: {line!r}")
        else:
            found[-1][1].append(line)
    return found


def page_blocks(page: str, text: str | None = None) -> list[Block]:
    """The runnable blocks of ``page`` (a path from the repository's root; ``text`` its
    text, read from the file if not given), in order."""
    found: list[Block] = []
    parsed = fences((ROOT / page).read_text(encoding="utf-8") if text is None else text)
    for i, (lang, rest, body, line, before) in enumerate(parsed):
        if lang not in ("sh", "console"):
            continue
        after = parsed[i + 1] if i + 1 < len(parsed) else None
        expected = after[2] if lang == "sh" and after and after[0] == "output" else None
        marked = NOT_RUN.search(before)
        block = Block(page, line, lang, body, expected, "slow" in rest.split(),
                      marked.group(1) if marked else None)
        if lang == "console":
            block.commands.extend(console_commands(body, block.name))
        found.append(block)
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
