"""sqllogictest files as a conformance source: DuckDB's ``MATCH_RECOGNIZE`` tests (``duckdb/``,
with ``duckdb/PROVENANCE.md``) read by :mod:`.reader`, their values rendered and compared as
DuckDB's runner does (:mod:`.values`) and run by :mod:`.runner`: every ``MATCH_RECOGNIZE``
by Kleene (:func:`kleene.data.sql.run_statement`), all other SQL by DuckDB."""

from __future__ import annotations

from pathlib import Path

#: The shipped DuckDB test files (``kleene conform --sqllogictest`` without a path).
DUCKDB_FILES = Path(__file__).resolve().parent / "duckdb"

#: Kleene's own hand-computed ``MATCH_RECOGNIZE`` file(s).
KLEENE_FILES = Path(__file__).resolve().parent / "kleene"
