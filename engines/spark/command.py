"""``kleene match --spark``: the same matches, computed by an engine on Spark.

``kleene match`` prints the reference's matches; with ``--spark`` an engine
(``--engine``, default ``ses-automaton``) runs on Spark (``--master``, default
``local[*]``) through :mod:`kleene.engines.spark.runner`, and the output is
the same canonical JSON lines (or table), so the two commands can be diffed.
``--output PATH`` writes the match rows as Parquet or JSON Lines instead
(``.jsonl``/``.json``: JSON Lines; anything else: Parquet), with the event
columns of ``--columns``. ``--explain`` prints the plan (filter, partitions,
slices) on stderr. Nothing here imports Spark until ``--spark`` is given.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from kleene.cli.common import canonical_order, plural, table
from kleene.reference.errors import KleeneError
from kleene.reference.languages import language_of

#: Options that mean nothing without ``--spark``.
SPARK_ONLY = ("master", "columns", "tasks", "explain", "schema")


class SparkOptionError(KleeneError):
    """A Spark option given without ``--spark``."""

    code = "usage"


def add_spark_options(parser: argparse.ArgumentParser) -> None:
    """The ``--spark`` option group of ``kleene match``."""
    group = parser.add_argument_group("spark (run an engine on Apache Spark)")
    group.add_argument("--spark", action="store_true",
                       help="compute the matches with an engine on Spark instead of the "
                            "reference")
    group.add_argument("--master", metavar="URL",
                       help="the Spark master: local[*] (default), local[N] or "
                            "spark://HOST:PORT")
    group.add_argument("--output", metavar="PATH",
                       help="write the matches to PATH instead of printing them; with "
                            "--spark a directory of match rows (Parquet, or JSON Lines if it "
                            "ends in .jsonl), without it one file (Parquet if it ends in "
                            ".parquet: a list of positions per variable, else JSON lines)")
    group.add_argument("--columns", default="", metavar="A,B",
                       help="event columns to copy to each match row of --output")
    group.add_argument("--tasks", type=int, metavar="N",
                       help="Spark partitions for the engine (default: 4 per core)")
    group.add_argument("--schema", metavar="DDL",
                       help="declare the columns of a CSV or JSON Lines file instead of "
                            "inferring them, e.g. 'ts BIGINT, L STRING, ID INT'")
    group.add_argument("--stock-reader", choices=("sql", "python"), default="sql",
                       help="parse stock lines in Spark SQL (default) or with the Python "
                            "loader")
    group.add_argument("--explain", action="store_true",
                       help="print the plan (filter, partitions, slices) on stderr")


def wants_spark(args: argparse.Namespace) -> bool:
    """Whether ``--spark`` was given; a Spark-only option without it is a mistake."""
    if not args.spark:
        for name in SPARK_ONLY:
            if getattr(args, name):
                raise SparkOptionError(f"--{name} needs --spark")
    return bool(args.spark)


def run_spark(args: argparse.Namespace, pattern: Any) -> int:
    """``kleene match --spark``: run, then print or write the matches."""
    from kleene.engines.protocol import engine
    from kleene.engines.spark.runner import collect_matches, match_file, write_matches
    from kleene.engines.spark.session import session

    eng = engine(args.engine or "ses-automaton")   # --engine: kleene.cli.common
    spark = session(args.master)
    columns = [c.strip() for c in args.columns.split(",") if c.strip()]
    explain = (lambda text: print(text, file=sys.stderr)) if args.explain else None
    matches = match_file(spark, args.events, pattern, engine=eng, policy=args.policy,
                         format=args.events_format, ts=args.ts,
                         type=args.type_field or None, time_unit=args.time_unit,
                         columns=columns, tasks=args.tasks, stock=args.stock_reader,
                         limit=args.limit, schema=args.schema, explain=explain)
    if args.output:
        write_matches(matches, args.output)
        return 0
    found = collect_matches(matches)
    if args.format == "table":
        names = language_of(pattern).variables(pattern)
        for line in table(found, names):
            print(line)
        print(f"({plural(len(found), 'match')}, engine {eng.name} on Spark, "
              f"policy {args.policy})")
    else:
        for m in canonical_order(found):
            print(m.dumps())
    return 0
