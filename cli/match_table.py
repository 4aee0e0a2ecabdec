"""``kleene match`` on a query that answers a table (``MATCH_RECOGNIZE``): the rows.

``kleene match`` decides the query first (:func:`~kleene.cli.common.query_of`); when its
language answers tables (:attr:`~kleene.reference.query.Query.answers_tables`) it comes
here: the events file is the table the statement's ``FROM`` names, read by DuckDB's
readers (:mod:`kleene.engines.tables` says why), the recognitions are run by the engine
named with ``--engine`` or the fastest that claims the query (else the reference; said on
stderr like the other doors), the SQL around them by DuckDB, under ``--budget``,
``--time-limit`` and ``--memory-limit``, rows tied on every ``ORDER BY`` key as ``--ties``
says. The rows are printed as CSV (a header line, then
one line per row), or written by ``--output FILE.csv|.jsonl|.parquet`` (the writer of
``kleene match``'s matches, :mod:`kleene.cli.results`).
"""

from __future__ import annotations

import argparse
import csv
import sys

import pyarrow as pa

from kleene.cli import results
from kleene.cli.common import budget_of, plural
from kleene.cli.spark import collect_tasks, say_if_small, started_spark, timed, wants_spark
from kleene.cli.spark_failures import spark_errors
from kleene.cli.watchdog import limits
from kleene.engines.fastest import REFERENCE
from kleene.engines.tables import answer_table
from kleene.reference.errors import Unsupported
from kleene.reference.match_recognize.tie_choices import INPUT_ORDER
from kleene.reference.query import Query

#: Options of ``kleene match`` that shape matches or events, which a table has not: each
#: with how it is spelt (``--format table`` and ``--layout wide``: their other values are
#: the defaults).
_MATCH_ONLY = (("columns", "--columns"), ("counters", "--counters"), ("stream", "--stream"),
               ("allow_missing", "--allow-missing"), ("sort", "--sort"), ("limit", "--limit"),
               ("events_format", "--events-format"), ("ts", "--ts"),
               ("time_unit", "--time-unit"))


def run_table(args: argparse.Namespace, query: Query) -> int:
    """Answer the table query over ``args.events``; print or write its rows."""
    on_spark = wants_spark(args)
    given = [spelt for option, spelt in _MATCH_ONLY if getattr(args, option) not in
             (None, False, "")]
    given += [f"--{option} {value}" for option, value in (("format", "table"),
                                                            ("layout", "wide"))
              if getattr(args, option) == value]
    if given:
        raise Unsupported(f"{given[0]} applies to matches and events; a {query.language} "
                          "query answers a table (the SELECT says its columns and order)")
    fmt = results.check_output(args.output, args.overwrite, [args.events, args.pattern]) \
        if args.output is not None else None
    if on_spark:
        with spark_errors():
            table = _on_spark(args, query)
        done = (f"wrote {args.output}" if fmt is not None else
                "printed the count" if args.count else "printed the rows")
        with timed(args, done):
            return _said(args, fmt, table)
    budget = budget_of(args)
    budget.what = "recognizing a row pattern"
    with limits(budget.seconds, budget.memory_mb, "recognizing a row pattern"):
        answered = answer_table(query, args.events, engine_name=args.engine, budget=budget,
                                ties=args.ties or INPUT_ORDER)
    if answered.backend == REFERENCE:
        print(f"kleene match: the reference semantics ({answered.reason})", file=sys.stderr)
    else:
        print(f"kleene match: engine {answered.backend} ({answered.reason})", file=sys.stderr)
    for line in answered.warnings:
        print(f"kleene match: warning: {line}", file=sys.stderr)
    return _said(args, fmt, answered.table)


def _on_spark(args: argparse.Namespace, query: Query) -> pa.Table:
    """``kleene match --spark``: the table read by Spark's reader (``--schema``), each
    recognition per ``PARTITION BY`` key in Spark tasks, the SQL around it by Spark SQL
    (:mod:`kleene.engines.spark.match_recognize`); the rows collected to the driver. With
    ``-v`` each step's seconds on stderr, as for the other languages
    (:func:`kleene.cli.spark.timed`)."""
    # lazy: Spark only with --spark
    from kleene.engines.spark.match_recognize import match_recognize, read_table

    if args.explain:
        raise Unsupported("--explain shows an event pattern's Spark plan; a MATCH_RECOGNIZE "
                          "plan is said in docs/match-recognize-spark.md")
    if not args.quiet:   # -q: no warning of a slow backend
        say_if_small(args.events)
    spark = started_spark("match", args.master)
    with timed(args, "read the table"):
        source = read_table(spark, args.events, args.schema)
    with timed(args, "planned"):
        answered = match_recognize(source, query, engine_name=args.engine, tasks=args.tasks,
                                   steps=args.budget, ties=args.ties or INPUT_ORDER)
    backend = ("the reference semantics" if answered.backend == REFERENCE
               else f"engine {answered.backend}")
    print(f"kleene match: {backend} on Spark ({answered.reason})", file=sys.stderr)
    for line in answered.notes:
        print(f"kleene match: {line}", file=sys.stderr)
    if args.verbose and answered.direct:
        print(f"kleene match: the tasks read {', '.join(answered.direct)} themselves (no row "
              "through the JVM)", file=sys.stderr)
    with timed(args, "recognition stage and collect"):
        table: pa.Table = collect_tasks(spark, answered.frame.toArrow)
    for line in answered.measured():   # a skewed key, measured by the tasks
        print(f"kleene match: {line}", file=sys.stderr)
    return table


def _said(args: argparse.Namespace, fmt: str | None, table: pa.Table) -> int:
    """Print the table's rows as CSV, its row count (``--count``), or write ``--output``."""
    if args.count:
        print(table.num_rows)
        return 0
    rows = table.to_pylist()
    if fmt is not None:
        results.write(rows, args.output, fmt, table.column_names)
        print(f"kleene match: wrote {plural(len(rows), 'row')} to {args.output}",
              file=sys.stderr)
        return 0
    writer = csv.writer(sys.stdout, lineterminator="\n")
    writer.writerow(table.column_names)
    for row in rows:
        writer.writerow([results.text_value(row[name]) for name in table.column_names])
    return 0


