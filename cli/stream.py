"""``kleene stream``: continuous matching on Spark Structured Streaming (issue 14).

Event files (CSV with a header, JSON Lines or Parquet) arrive in a directory;
every match is written once to ``--output`` when no later event can change it
(:mod:`kleene.engines.spark.stream`), with Spark's checkpoint and Kleene's state
in ``--checkpoint``. A run killed at any point and started again with the
same ``--checkpoint`` and ``--output`` continues where the last committed
micro-batch stopped: no match lost or written twice. Printing is here;
``engines/spark/stream/`` computes.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from kleene.cli.common import (
    Commands,
    QueryHelpFormatter,
    add_query_options,
    budget_limit,
    plural,
    query_of,
    say_query,
)
from kleene.cli.spark import started_spark
from kleene.cli.spark_failures import spark_errors
from kleene.engines.spark.stream import ContinuousMatch
from kleene.engines.spark.stream.query import FORMATS, Continuous, check_targets
from kleene.reference.errors import Unsupported
from kleene.reference.query import Query

NAME = "stream"
HELP = "match continuously on files arriving in a directory (Spark Structured Streaming)"
DESCRIPTION = """\
Match the pattern in FILE on the event files arriving in --source (CSV with a
header, JSON Lines or Parquet; taken in order of modification time) with Spark
Structured Streaming. A match is written to --output (a .parquet or .jsonl
folder, one batch=K folder per micro-batch) once, when the event-time watermark
(the largest timestamp seen minus --watermark) shows that no later event can
change it under the policy: for 'any', when the watermark passes the first
event's ts plus the window. Events older than the watermark are late: they are
counted, and written with the reason to OUTPUT/_late. The state (Spark's
checkpoint and Kleene's) is in --checkpoint; restart with the same
--checkpoint and --output after a crash. --once processes the files present
and ends the stream (every pending match is then final); --idle-end S ends it
after S seconds without a new file; otherwise it runs until interrupted
(Ctrl-C keeps the state: run again to continue)."""


def add_parser(commands: Commands) -> argparse.ArgumentParser:
    """Declare ``kleene stream`` and its options."""
    parser = commands.add_parser(NAME, help=HELP, description=DESCRIPTION,
                                 formatter_class=QueryHelpFormatter)
    add_query_options(parser)
    parser.add_argument("--source", required=True, metavar="DIR",
                        help="the directory where event files arrive")
    parser.add_argument("--format", choices=FORMATS,
                        help="the files' format (default: from the files present)")
    parser.add_argument("--output", required=True, metavar="DIR.parquet|DIR.jsonl",
                        help="where the matches are written (Parquet unless it ends in .jsonl)")
    parser.add_argument("--checkpoint", required=True, metavar="DIR",
                        help="Spark's checkpoint and Kleene's state")
    parser.add_argument("--engine", metavar="NAME",
                        help="the engine (default: the fastest that claims the query)")
    parser.add_argument("--ts", default="ts", help="the timestamp column (default: ts)")
    parser.add_argument("--type-field", default="type", help="the type column (default: type)")
    parser.add_argument("--time-unit", choices=("ms", "s", "min", "h", "d"),
                        help="the unit of the timestamps (datetimes: ms)")
    parser.add_argument("--watermark", metavar="DELAY",
                        help="how far out of order events may arrive, e.g. '2 s' (default and "
                             "minimum: the pattern's window)")
    parser.add_argument("--schema", metavar="DDL",
                        help="the files' columns, e.g. 'ts BIGINT, type STRING' (default: "
                             "read from the files present)")
    parser.add_argument("--columns", default="", metavar="A,B",
                        help="event columns copied to each match row")
    parser.add_argument("--master", metavar="URL",
                        help="the Spark master: local[*] (default), local[N] or spark://HOST:PORT")
    parser.add_argument("--budget", type=budget_limit, metavar="N",
                        help="the engine's step budget for each micro-batch: the matches it "
                             "reports and the most it holds at once (default: those of "
                             "kleene match); past it the stream stops with an error")
    parser.add_argument("--max-files", type=int, metavar="N",
                        help="at most N new files per micro-batch")
    parser.add_argument("--interval", metavar="TIME",
                        help="start a micro-batch every TIME, e.g. '2 seconds' (default: as "
                             "soon as the previous one ends)")
    end = parser.add_mutually_exclusive_group()
    end.add_argument("--once", action="store_true",
                     help="process the files present, then end the stream")
    end.add_argument("--idle-end", type=float, metavar="SECONDS",
                     help="end the stream after SECONDS without a new file")
    return parser


def _progress(p: Any) -> None:
    print(f"kleene stream: {p.line()}", file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    """Start the query; print one progress line per micro-batch on stderr."""
    query = query_of(args)
    if query.answers_tables:
        return _run_recognition(args, query)
    query = query.matches_at("kleene stream")
    columns = [c for c in args.columns.split(",") if c]
    check_targets(args.source, output=args.output, checkpoint=args.checkpoint)  # before Spark
    with spark_errors():
        spark = started_spark(NAME, args.master)
        run_ = ContinuousMatch(spark, args.source, query, output=args.output,
                               checkpoint=args.checkpoint, engine=args.engine,
                               format=args.format, ts=args.ts, type=args.type_field,
                               watermark=args.watermark, schema=args.schema, columns=columns,
                               max_files=args.max_files, budget=args.budget,
                               on_progress=_progress)
        say_query(NAME, query)
        print(f"kleene stream: engine {run_.setup.engine.name}, policy {query.policy}; "
              f"{'; '.join(run_.setup.finality.explain(run_.setup.query.time_unit))}",
              file=sys.stderr, flush=True)
        if _drive(run_, args):
            return 130
    _said(run_, args, "match")
    return 0


def _run_recognition(args: argparse.Namespace, query: Query) -> int:
    """``kleene stream`` on a ``SELECT * FROM t MATCH_RECOGNIZE (...)`` (issue 30, item 2:
    docs/match-recognize-spark.md, "Continuous")."""
    if args.engine not in (None, "reference"):
        raise Unsupported(f"--engine {args.engine}: a continuous MATCH_RECOGNIZE decides "
                          "each search by the reference's finality (docs/match-recognize-"
                          "spark.md), with no engine to choose")
    if args.columns:
        raise Unsupported("--columns copies event columns to each match; a MATCH_RECOGNIZE "
                          "says its output's columns itself (MEASURES, ALL ROWS PER MATCH)")
    # lazy: Spark, DuckDB and the MATCH_RECOGNIZE door, for this language only
    from kleene.engines.spark.stream.recognition import ContinuousRecognition, streamed_clause

    streamed_clause(query)                                                     # before Spark
    check_targets(args.source, output=args.output, checkpoint=args.checkpoint)  # before Spark
    with spark_errors():
        spark = started_spark(NAME, args.master)
        run_ = ContinuousRecognition(
            spark, args.source, query, output=args.output, checkpoint=args.checkpoint,
            format=args.format, ts=None if args.ts == "ts" else args.ts,
            time_unit=args.time_unit, watermark=args.watermark, schema=args.schema,
            max_files=args.max_files, budget=args.budget, on_progress=_progress)
        for note in run_.notes:
            print(f"kleene stream: {note}", file=sys.stderr, flush=True)
        print(f"kleene stream: MATCH_RECOGNIZE; final: an output row once no later row of its "
              f"key can change it; watermark: the largest {run_.setup.event_time}"
              f" - {run_.setup.delay:g}", file=sys.stderr, flush=True)
        if _drive(run_, args):
            return 130
    _said(run_, args, "row")
    return 0


def _drive(run_: Continuous, args: argparse.Namespace) -> bool:
    """Run until the end of the stream (``--once``, ``--idle-end``); ``True`` when
    interrupted (the state kept)."""
    if args.once:
        run_.run_available()
        run_.end()
        return False
    query = run_.start(interval=args.interval)
    try:
        _wait(query, args.idle_end)
    except KeyboardInterrupt:
        query.stop()
        print("kleene stream: stopped; run again with the same --checkpoint to "
              "continue", file=sys.stderr)
        return True
    run_.run_available()   # the files that arrived as it stopped, then the end
    run_.end()
    return False


def _said(run_: Continuous, args: argparse.Namespace, what: str) -> None:
    """The last line: what was written where."""
    counts = run_.counts()
    late = counts.get("late", 0) + counts.get("rejected", 0)
    kind = "JSON Lines" if run_.setup.output_format == "jsonl" else "Parquet"
    print(f"{plural(counts.get('matches', 0), what)} written to the folder "
          f"{args.output.rstrip('/')}/ ({kind} files, one batch=K folder per micro-batch); "
          f"{plural(counts.get('events', 0), 'event')}"
          + (f", {late} late or malformed (in {args.output}/_late)" if late else ""))


def _wait(query: Any, idle: float | None) -> None:
    """Until the query stops, or (``idle``) it was idle (no micro-batch running, no new
    file) for ``idle`` seconds."""
    if idle is None:
        query.awaitTermination()
        return
    last = time.monotonic()
    while query.isActive:
        status = query.status
        if status.get("isTriggerActive") or status.get("isDataAvailable"):
            last = time.monotonic()
        elif time.monotonic() - last > idle:
            query.stop()
            return
        query.awaitTermination(0.5)
