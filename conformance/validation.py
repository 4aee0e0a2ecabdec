"""Validation of the conformance case files: ``case.schema.json`` and the suite's
sanity rules (``conformance/CASES.md``; docs/architecture.md, Style 2).

:func:`problems` lists every way a case document breaks the schema (JSON Schema
2020-12) or the rules: a file named after its language, descriptions unique per
file and free of "should", streams that load, positions inside the stream and in
stream order, no match listed twice, pruning checks only in ``optional/`` files.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import cache
from importlib.resources import files
from typing import Any

from jsonschema import Draft202012Validator

from kleene.reference.errors import KleeneError
from kleene.reference.events import Stream
from kleene.reference.languages import LANGUAGES

_SHOULD = re.compile(r"\bshould\b", re.IGNORECASE)

@cache
def schema() -> dict[str, Any]:
    """The schema of the case files, ``conformance/case.schema.json``."""
    text = (files("kleene.conformance") / "case.schema.json").read_text(encoding="utf-8")
    return json.loads(text)


def problems(name: str, data: Any, *, optional: bool = False) -> list[str]:
    """Every way the document ``data`` of file ``name`` breaks the schema or the
    sanity rules of CASES.md; empty when it is a valid case file. Checks of the
    reference's pruning definitions (a ``check`` other than ``matches``) belong
    in ``optional/`` files only."""
    validator = Draft202012Validator(schema())
    found = [f"{name}: {'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}"
             for e in sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path))]
    if found:
        return found  # the sanity rules assume the schema's shape
    language = data["language"]   # its file-name prefixes (CASES.md: <prefix><construct>.json)
    prefixes = LANGUAGES[language].case_prefixes if language in LANGUAGES else ()
    if not (name.startswith(prefixes) and name.endswith(".json")):
        found.append(f"{name}: a {data['language']} case file is named "
                     f"{' or '.join(p + '<construct>.json' for p in prefixes)}")
    seen_cases: set[str] = set()
    seen_tests: set[str] = set()
    for c in data["cases"]:
        where = f"{name}: case {c['description']!r}"
        found += _unique(c["description"], seen_cases, where, "case description")
        found += _pattern_problems(c, language, where)
        for t in c["tests"]:
            found += _unique(t["description"], seen_tests, f"{where}: test {t['description']!r}",
                             "test description")
            found += _test_problems(c, t, f"{where}: test {t['description']!r}")
            if not optional and t.get("check", "matches") != "matches":
                found.append(f"{where}: test {t['description']!r}: a {t['check']} check "
                             "tests the reference's own pruning, not an engine: move it to "
                             "cases/optional/")
    return found


def _pattern_problems(c: Mapping[str, Any], language: str, where: str) -> list[str]:
    """The case's pattern must parse in its language, unless a test of the case expects
    an error (a syntax error may be the point of the case)."""
    if language not in LANGUAGES or any("error" in t for t in c["tests"]):
        return []
    try:
        LANGUAGES[language].parse(c["pattern"], "<pattern>")
    except KleeneError as err:
        return [f"{where}: the pattern does not parse: {str(err).splitlines()[0]}"]
    return []


def _unique(description: str, seen: set[str], where: str, what: str) -> list[str]:
    out = []
    if description in seen:
        out.append(f"{where}: the {what} is used twice in the file")
    if _SHOULD.search(description):
        out.append(f"{where}: say what happens (\"X matches\"), not what \"should\" happen")
    seen.add(description)
    return out


def _test_problems(c: Mapping[str, Any], t: Mapping[str, Any], where: str) -> list[str]:
    rows = t.get("events", c.get("events"))
    try:
        Stream.from_rows(rows, time_unit=t.get("time_unit", c.get("time_unit")))
    except KleeneError as err:
        return [f"{where}: {err}"]
    out = []
    by_reading = t.get("readings", {})
    if by_reading and by_reading.get("inclusive") == by_reading.get("strict"):
        out.append(f"{where}: both window readings expect the same matches: "
                   "use `matches` (and `reading`)")
    for listing in [t.get("matches", ()), *by_reading.values()]:
        listed: set[str] = set()
        for m in listing:
            bound = [p for positions in m.values() for p in positions]
            if any(p >= len(rows) for p in bound):
                out.append(f"{where}: match {m} binds a position past the last event "
                           f"({len(rows) - 1})")
            if len(set(bound)) != len(bound):
                out.append(f"{where}: match {m} binds an event twice")
            if any(list(ps) != sorted(ps) for ps in m.values()):
                out.append(f"{where}: match {m} lists positions out of stream order")
            key = json.dumps(m, sort_keys=True)
            if key in listed:
                out.append(f"{where}: match {m} is listed twice")
            listed.add(key)
    return out
