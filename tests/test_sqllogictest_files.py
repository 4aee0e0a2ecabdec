"""The shipped DuckDB sqllogictest files are DuckDB's, byte for byte (issue 26, item 5).

``conformance/sqllogictest/duckdb/PROVENANCE.md`` lists every file of the folder with its
size and sha256, as copied; ``SOURCE.md`` (DuckDB's provenance note, shipped with the
files) lists the test files likewise. Each file is checked against both, and the folder
holds nothing else but Kleene's two notes (``PROVENANCE.md``, ``EXPLAINED.toml``); the
package data installs all of it.
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from fnmatch import fnmatch
from pathlib import Path

from kleene.conformance.sqllogictest import DUCKDB_FILES

ROOT = Path(__file__).resolve().parents[1]
ROW = re.compile(r"^\| `([^`]+)` \| (\d+) \| (?:`([0-9a-f]{40})`|—) \| `([0-9a-f]{64})` \|$",
                 re.M)


def table(note: str) -> dict[str, tuple[int, str]]:
    """``file -> (bytes, sha256)`` from a provenance note's table."""
    text = (DUCKDB_FILES / note).read_text(encoding="utf-8")
    return {name: (int(size), sha) for name, size, _, sha in ROW.findall(text)}


def test_every_shipped_file_is_the_one_provenance_lists() -> None:
    listed = table("PROVENANCE.md")
    present = {p.name for p in DUCKDB_FILES.iterdir()} - {"PROVENANCE.md", "EXPLAINED.toml"}
    assert present == set(listed)
    assert len(listed) == 40     # 38 test files, LICENSE, SOURCE.md
    for name, (size, sha) in listed.items():
        data = (DUCKDB_FILES / name).read_bytes()
        assert (len(data), hashlib.sha256(data).hexdigest()) == (size, sha), name


def test_provenance_agrees_with_duckdbs_own_note() -> None:
    source = table("SOURCE.md")
    assert len(source) == 38
    assert all(name.endswith((".test", ".test_slow")) for name in source)
    listed = table("PROVENANCE.md")
    assert {name: listed[name] for name in source} == source


def test_the_licence_is_mit_with_duckdbs_notice() -> None:
    text = (DUCKDB_FILES / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("Copyright 2018-2026 Stichting DuckDB Foundation")
    assert "Permission is hereby granted, free of charge" in text


def test_the_package_data_installs_every_file() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["kleene.conformance.sqllogictest"]
    package = DUCKDB_FILES.parent
    for path in DUCKDB_FILES.iterdir():
        relative = path.relative_to(package).as_posix()
        assert any(fnmatch(relative, pattern) for pattern in patterns), relative
