"""A backend's expected failures (``kleene conform --expected-failures FILE``).

A backend that knows it fails some tests lists them, each with its reason, in a file
it keeps beside its code (as test262's hosts keep their expectations, and as pytest's
strict ``xfail``): a listed test that fails is an **expected failure** (``xfail``) and
does not fail the run; a listed test that passes **unexpectedly passed** (``xpass``)
and fails the run, so the entry is removed when the defect is fixed; a listed test
that is skipped stays skipped. An id in the file that names no test is one line, before
any test runs. Two forms (docs/backends.md, "Expected failures"):

- plain text: one test per line, its id, then spaces, then the reason; blank lines and
  lines starting with ``#`` are ignored;
- JSON (a file named ``*.json``): a list of objects ``{"id": ID, "reason": TEXT}``.

An id is a test's id as the run prints it (``FILE/CASE/TEST``) or a generated batch's
(``generated/LANGUAGE``).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

from kleene.conformance.runner import FAIL, PASS, XFAIL, XPASS, Result
from kleene.reference.errors import KleeneError


class ExpectedFailuresError(KleeneError):
    """An expected-failures file that cannot be read, or names no test."""

    code = "usage"


def _entry(option: str, where: str, ident: Any, why: Any, listed: dict[str, str]) -> None:
    if not isinstance(ident, str) or not ident.strip() or any(c.isspace() for c in ident):
        raise ExpectedFailuresError(f"{option}: {where}: the id {ident!r} is not a test id "
                                    "(FILE/CASE/TEST, no spaces)")
    if not isinstance(why, str) or not why.strip():
        raise ExpectedFailuresError(f"{option}: {where}: {ident} has no reason (each listed "
                                    "test says why it is expected to fail)")
    if ident in listed:
        raise ExpectedFailuresError(f"{option}: {where}: {ident} is listed twice")
    listed[ident] = why.strip()


def load(path: Path, *, option: str = "--expected-failures") -> dict[str, str]:
    """The listed tests of ``path`` and their reasons, in file order; a file that cannot
    be read or breaks its form is one :class:`ExpectedFailuresError` line."""
    where = f"{option} {path}"
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        why = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        raise ExpectedFailuresError(f"cannot read {where}: {why}") from None
    listed: dict[str, str] = {}
    if path.name.endswith(".json"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as err:
            raise ExpectedFailuresError(f"{where}: not JSON: {err}") from None
        if not isinstance(data, list):
            raise ExpectedFailuresError(f"{where}: a JSON list of "
                                        '{"id": ..., "reason": ...} objects is expected')
        for i, item in enumerate(data):
            if not isinstance(item, dict) or set(item) != {"id", "reason"}:
                raise ExpectedFailuresError(f"{where}: item {i} is not an object with exactly "
                                            '"id" and "reason"')
            _entry(where, f"item {i}", item["id"], item["reason"], listed)
        return listed
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        ident, *rest = stripped.split(None, 1)
        _entry(where, f"line {number}", ident, rest[0] if rest else "", listed)
    return listed


def check_known(listed: Mapping[str, str], known: Collection[str], path: Path, *,
                option: str = "--expected-failures") -> None:
    """Every listed id names a test of ``known``; else one line naming the first that
    does not (and how many do not)."""
    unknown = [ident for ident in listed if ident not in known]
    if unknown:
        more = f" (and {len(unknown) - 1} more)" if len(unknown) > 1 else ""
        raise ExpectedFailuresError(
            f"{option} {path}: {unknown[0]!r} names no test{more}; an id is FILE/CASE/TEST "
            "as the run prints it, or generated/LANGUAGE")


def mark(result: Result, listed: Mapping[str, str]) -> Result:
    """``result`` as the expectation lists it: a listed failure becomes ``xfail``, a
    listed pass ``xpass`` (with the reason given); anything else is unchanged."""
    why = listed.get(result.id)
    if why is None:
        return result
    if result.status == FAIL:
        result.status, result.reason = XFAIL, f"expected failure: {why}; {result.reason}"
    elif result.status == PASS:
        result.status = XPASS
        result.reason = f"unexpectedly passed; listed as an expected failure: {why}"
    return result
