"""DuckDB as a ``MATCH_RECOGNIZE`` peer, when the installed DuckDB accepts the clause
(issue 30, item 3): :func:`probe` asks it; today's wheel rejects it at parsing (DuckDB's
``MATCH_RECOGNIZE`` is in its sources and its sqllogictest files, not in a released wheel),
and ``make peers`` says so instead of running it.

:class:`DuckRecognizer` is the recognition as DuckDB runs it: the clause, printed back
(:func:`~kleene.reference.match_recognize.printer.format_clause`), over the source table
registered under :data:`~kleene.conformance.adapters.native.INPUT`.
"""

from __future__ import annotations

import duckdb
import pyarrow as pa

from kleene.conformance.adapters.native import INPUT, PeerError, output_names
from kleene.reference.match_recognize.ast import MatchRecognize
from kleene.reference.match_recognize.printer import format_clause

#: The probe: the smallest recognition, with its one expected row.
PROBE = ("SELECT * FROM (VALUES (1, 1)) AS t(ts, v) MATCH_RECOGNIZE (ORDER BY ts "
         "MEASURES COUNT(*) AS n PATTERN (A) DEFINE A AS v = 1)")


def probe() -> str:
    """What the installed DuckDB makes of :data:`PROBE`, one line."""
    try:
        rows = duckdb.connect().execute(PROBE).fetchall()
    except duckdb.Error as err:
        said = " ".join(str(err).split())[:200]
        return f"DuckDB {duckdb.__version__} rejects MATCH_RECOGNIZE ({said}): not run"
    ok = rows == [(1,)]
    return (f"DuckDB {duckdb.__version__} accepts MATCH_RECOGNIZE"
            + ("" if ok else f" but answers {rows} to the probe (1 row, n = 1 expected)"))


def accepts() -> bool:
    """Whether the installed DuckDB runs :data:`PROBE`."""
    return " accepts " in probe()


class DuckRecognizer:
    """A recognition run by the installed DuckDB (module docstring)."""

    def recognize_arrow(self, clause: MatchRecognize, table: pa.Table) -> pa.Table:
        connection = duckdb.connect()
        try:
            connection.register(INPUT, table)
            sql = f"SELECT * FROM {INPUT} MATCH_RECOGNIZE (\n{format_clause(clause)}\n)"
            got = connection.execute(sql).arrow()
        except duckdb.Error as err:
            raise PeerError(f"duckdb: {' '.join(str(err).split())[:600]}") from None
        finally:
            connection.close()
        names = output_names(clause, table.column_names)
        return got.rename_columns(names) if got.num_columns == len(names) else got


def recognizer() -> DuckRecognizer:
    """DuckDB's recognizer."""
    return DuckRecognizer()
