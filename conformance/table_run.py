"""A table request answered in process: the statement over its tables, each recognition by
a Python recognizer (the reference or a ``MATCH_RECOGNIZE`` engine), the SQL around it by
DuckDB (:func:`kleene.data.sql.run_statement`). What ``--backend reference`` and
``--backend match-recognize`` (and ``python -m kleene.conformance.serve``) answer."""

from __future__ import annotations

import time

import duckdb

from kleene.conformance.outcome import Outcome
from kleene.conformance.sql_tables import SqlTable
from kleene.conformance.wire import TableRequest
from kleene.data.sql import ArrowRecognizer, Recognize, run_statement
from kleene.reference.errors import KleeneError
from kleene.reference.match_recognize.parser import parse_statement


def answer_table(request: TableRequest, recognize: Recognize | ArrowRecognizer) -> Outcome:
    """The outcome of ``request``: its output table, or the error a Kleene or DuckDB step
    raised (its stable code)."""
    start = time.perf_counter()
    connection = duckdb.connect()
    try:
        statement = parse_statement(request.sql, "<request>")
        for name, table in request.tables.items():
            connection.register(name, table.arrow())
        found = SqlTable.of_arrow(run_statement(statement, connection, recognize))
    except KleeneError as err:
        return Outcome(error=(err.code, " ".join(str(err).split())),
                       seconds=time.perf_counter() - start)
    finally:
        connection.close()
    return Outcome(table=found, seconds=time.perf_counter() - start)
