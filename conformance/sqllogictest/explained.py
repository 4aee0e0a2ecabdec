"""Why a shipped record does not pass: a folder's ``EXPLAINED.toml``, read and applied.

A folder of sqllogictest files may hold ``EXPLAINED.toml``: one ``[[record]]`` table per
record of its files that Kleene does not pass, each read by hand (``file``, ``line``: the
record's command line; ``category``; ``why``: what the record does and what Kleene does,
in one or two sentences; and by category):

- ``duckdb-only-sql``: the record needs SQL that only DuckDB has (a lambda, ``DEFINE AUTO``,
  a DuckDB function inside ``MATCH_RECOGNIZE``), so Kleene does not judge it;
- ``duckdb-behaviour``: DuckDB answers as no standard reading does; ``cite`` names the
  file's line that shows it (``file:line``) and ``why`` says what DuckDB does;
- ``erratum``: the standard and DuckDB disagree and Kleene follows the standard;
  ``erratum`` names the anchor of the entry in ``docs/errata.md``;
- ``harness``: the file relies on DuckDB's test runner or build (a data file not shipped,
  a setting of DuckDB's own), not on the language.

A Kleene gap is not an explanation: it stays a failure. :func:`explain` turns each failed
or unsupported outcome that an entry names into ``explained`` (the reason kept, the entry's
category and ``why`` beside it); an entry whose record passes, or that names no record of a
file that ran, is *stale* and reported, so the file stays honest.
"""

from __future__ import annotations

import dataclasses
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, cast

from kleene.conformance.sqllogictest.runner import FileReport, Outcome
from kleene.reference.errors import KleeneError

Category = Literal["duckdb-only-sql", "duckdb-behaviour", "erratum", "harness"]
CATEGORIES: tuple[Category, ...] = ("duckdb-only-sql", "duckdb-behaviour", "erratum",
                                    "harness")

#: The name of a folder's explanations.
EXPLAINED = "EXPLAINED.toml"


@dataclass(frozen=True)
class Explanation:
    """One entry of ``EXPLAINED.toml`` (module docstring)."""

    file: str
    line: int
    category: Category
    why: str
    cite: str = ""
    erratum: str = ""

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"

    def says(self) -> str:
        """The explanation in one line: its category, what it names, and why."""
        named = self.erratum and f" (docs/errata.md#{self.erratum})" or \
            self.cite and f" (see {self.cite})"
        return f"{self.category}{named}: {self.why}"


@dataclass(frozen=True)
class Stale:
    """An entry that explains nothing: its record passes, or there is no such record."""

    explanation: Explanation
    reason: str


def read_explanations(path: str | Path) -> dict[tuple[str, int], Explanation]:
    """The entries of the ``EXPLAINED.toml`` at ``path`` by ``(file name, line)``; a
    malformed entry is one :class:`KleeneError` line naming the file and the entry."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as err:
        raise KleeneError(f"{path}: {err}") from None
    found: dict[tuple[str, int], Explanation] = {}
    for number, entry in enumerate(data.get("record", []), 1):
        try:
            explanation = _entry(entry)
        except (KeyError, TypeError, ValueError) as err:
            raise KleeneError(f"{path}: record {number}: {err}") from None
        key = (explanation.file, explanation.line)
        if key in found:
            raise KleeneError(f"{path}: record {number}: {explanation.where} is explained twice")
        found[key] = explanation
    return found


def _entry(entry: dict[str, object]) -> Explanation:
    unknown = set(entry) - {f.name for f in dataclasses.fields(Explanation)}
    if unknown:
        raise ValueError(f"unknown keys {sorted(unknown)}")
    category = entry["category"]
    if category not in CATEGORIES:
        raise ValueError(f"category {category!r} is none of {', '.join(CATEGORIES)}")
    explanation = Explanation(str(entry["file"]), int(cast(int, entry["line"])),
                              cast(Category, category), str(entry["why"]),
                              str(entry.get("cite", "")), str(entry.get("erratum", "")))
    if not explanation.why.strip():
        raise ValueError("an empty why")
    if category == "erratum" and not explanation.erratum:
        raise ValueError("an erratum names its anchor in docs/errata.md (erratum = ...)")
    if category == "duckdb-behaviour" and not explanation.cite:
        raise ValueError("a DuckDB behaviour cites the line that shows it (cite = ...)")
    return explanation


def explanations_for(file: str | Path) -> dict[tuple[str, int], Explanation]:
    """The entries of the ``EXPLAINED.toml`` beside ``file`` (none when there is none)."""
    beside = Path(file).parent / EXPLAINED
    return read_explanations(beside) if beside.is_file() else {}


def explain(report: FileReport, explanations: dict[tuple[str, int], Explanation],
            *, whole: bool = True) -> tuple[FileReport, list[Stale]]:
    """``report`` with every failed or unsupported outcome that an entry names made
    ``explained``, and the stale entries of its file (``whole``: the report holds every
    record of the file, so an entry naming none of them is stale too)."""
    name = Path(report.file).name
    mine = {line: e for (file, line), e in explanations.items() if file == name}
    outcomes: list[Outcome] = []
    stale: dict[int, Stale] = {}
    seen: set[int] = set()
    used: set[int] = set()
    for o in report.outcomes:
        found = mine.get(o.record.line)
        seen.add(o.record.line)
        if found is not None and o.status in ("failed", "unsupported"):
            o = dataclasses.replace(o, status="explained", explanation=found.says())
            used.add(found.line)
        elif found is not None and o.status == "passed":
            stale[found.line] = Stale(found, "its record passes")
        outcomes.append(o)
    for line in used:     # a loop's record explained in one turn and passing in another
        stale.pop(line, None)
    if whole and not report.skipped:
        stale.update((line, Stale(e, "no record of the file starts on that line"))
                     for line, e in mine.items() if line not in seen)
    return dataclasses.replace(report, outcomes=tuple(outcomes)), \
        [stale[line] for line in sorted(stale)]

