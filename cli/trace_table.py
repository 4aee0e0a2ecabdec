"""``kleene trace`` on a ``MATCH_RECOGNIZE`` statement: its recognitions' searches.

The events file is the table the statement's ``FROM`` names, read by DuckDB's readers as
``kleene match`` reads it (:mod:`kleene.cli.match_table`); each recognition is run by the
reference, observed (:mod:`kleene.engines.match_recognize.trace` says what a trace shows
and why it follows the reference's search rather than the engine's), the SQL around it by
DuckDB. Text on standard output (the searches, then the statement's answer as CSV), or an
HTML page with ``-o FILE.html`` (:mod:`kleene.engines.match_recognize.trace_page`). A
recognition that fails (a data exception, the budget spent) prints its trace up to the
failure, then the one-line error.
"""

from __future__ import annotations

import argparse
import csv
import io

from kleene.cli.draw import pattern_name
from kleene.cli.results import text_value
from kleene.engines.match_recognize.trace import StatementTrace, recognition_text, trace_statement
from kleene.engines.match_recognize.trace_page import trace_page
from kleene.reference.errors import KleeneError, Unsupported
from kleene.reference.match_recognize.ast import Statement
from kleene.reference.query import Query

#: Options of ``kleene trace`` that say how to read events or compile an automaton, which a
#: table query has not: each with how it is spelt.
_STREAM_ONLY = (("run_from", "--run"), ("events_format", "--events-format"), ("ts", "--ts"),
                ("time_unit", "--time-unit"), ("limit", "--limit"), ("sort", "--sort"),
                ("stream", "--stream"), ("frequencies", "--frequencies"),
                ("policy", "--policy"), ("allow_missing", "--allow-missing"))


def trace_table(args: argparse.Namespace, query: Query) -> tuple[str, KleeneError | None]:
    """The trace of the statement of ``query`` over ``args.events`` as text or a page
    (``args.format``, ``args.output``), and the error its recognition ended with, if any
    (``kleene trace`` writes the one, then raises the other)."""
    if args.engine not in (None, "reference"):
        raise Unsupported(f"kleene trace follows the reference's search of a {query.language} "
                          f"statement (its definition); engine {args.engine} answers the same "
                          "rows: leave out --engine")
    given = [spelt for option, spelt in _STREAM_ONLY if getattr(args, option, None)]
    given += ["--type-field"] if args.type_field != "type" else []
    if given:
        raise Unsupported(f"{given[0]} applies to event streams and automata; a "
                          f"{query.language} statement reads the table its FROM names "
                          "(--events FILE)")
    statement = query.pattern
    assert isinstance(statement, Statement)
    traced = trace_statement(statement, args.events)
    fmt = args.format or ("html" if args.output else "text")
    if fmt == "html":
        text = trace_page(traced, title=f"kleene trace: {pattern_name(args.pattern)}".rstrip(": "),
                          sql=statement.text)
    else:
        text = "\n".join(statement_lines(traced)) + "\n"
    return text, traced.error


def statement_lines(t: StatementTrace) -> list[str]:
    """Each recognition's trace, then the statement's answer: its row count and CSV."""
    lines: list[str] = []
    for i, r in enumerate(t.recognitions):
        if len(t.recognitions) > 1:
            lines.append(f"recognition {i + 1} of {len(t.recognitions)}")
        lines += recognition_text(r)
    if t.answer is not None:
        count = t.answer.num_rows
        lines.append(f"answer: {count} row{'' if count == 1 else 's'}")
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(t.answer.column_names)
        for row in t.answer.to_pylist():
            writer.writerow([text_value(row[c]) for c in t.answer.column_names])
        lines += out.getvalue().splitlines()
    return lines
