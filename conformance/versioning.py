"""The version of the case corpus, and the fingerprint that holds it to its changelog.

The engine-facing case files (``conformance/cases/*.json``) are one versioned corpus,
like JSON-Schema-Test-Suite's releases: ``conformance/cases/VERSION`` holds its version
(``MAJOR.MINOR.PATCH``) and ``conformance/CHANGELOG.md`` says what each version added,
changed or removed, and what a bump of each number means. ``kleene conform`` reports the
version in its summary, its JUnit XML and its JSON results, so a result always names the
corpus it was measured on.

:func:`fingerprint` digests the files' content (each parsed and written back as
canonical JSON, so reformatting a file is no change); the changelog's newest entry records
it, and a test (tests/test_conform_product.py) fails when the files no longer match it:
a case added, changed or removed without a new version and entry is caught.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from importlib.resources.abc import Traversable
from pathlib import Path

from kleene.conformance.cases import case_directory

#: The file of a case folder that holds the corpus version.
VERSION_FILE = "VERSION"

#: The version said of a folder of case files without a ``VERSION`` file (``--cases DIR``).
UNVERSIONED = "unversioned"

_VERSION = re.compile(r"^\d+\.\d+\.\d+$")


def corpus_version(directory: Traversable | Path | None = None) -> str:
    """The version of the case files of ``directory`` (default: the packaged corpus), or
    :data:`UNVERSIONED` when the folder has no ``VERSION`` file."""
    root = directory if directory is not None else case_directory()
    entry = root / VERSION_FILE
    if not entry.is_file():
        return UNVERSIONED
    text = entry.read_text(encoding="utf-8").strip()
    return text if _VERSION.match(text) else UNVERSIONED


@dataclass(frozen=True)
class Fingerprint:
    """What a changelog entry pins: the digest of the case files, and their counts."""

    digest: str
    files: int
    cases: int
    tests: int


def fingerprint(directory: Traversable | Path | None = None) -> Fingerprint:
    """The digest (SHA-256 of each ``*.json`` file's name and canonical JSON, in name
    order; its first 16 hex digits) and the counts of the case files of ``directory``."""
    root = directory if directory is not None else case_directory()
    digest = hashlib.sha256()
    files = cases = tests = 0
    for entry in sorted(root.iterdir(), key=lambda e: e.name):
        if not (entry.name.endswith(".json") and entry.is_file()):
            continue
        data = json.loads(entry.read_text(encoding="utf-8"))
        digest.update(entry.name.encode("utf-8") + b"\n")
        digest.update(json.dumps(data, sort_keys=True, ensure_ascii=False).encode("utf-8"))
        digest.update(b"\n")
        files += 1
        cases += len(data.get("cases", ()))
        tests += sum(len(c.get("tests", ())) for c in data.get("cases", ()))
    return Fingerprint(digest.hexdigest()[:16], files, cases, tests)
