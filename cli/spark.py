"""``kleene match --spark``: the same matches, computed by an engine on Spark.

With ``--spark`` an engine (``--engine``, default: the fastest that claims
the query) runs on Spark (``--master``, default ``local[*]``) through
:mod:`kleene.engines.spark.runner`, and the output is the same canonical JSON
lines (or table) as single-process, so the two commands can be diffed.
``--output FILE`` writes the same files in the same layouts as single-process
(:mod:`kleene.cli.results`; the match rows are collected to the driver, as a
match set is small; the Python API's ``write_matches`` writes distributed).
``--explain`` prints the plan (filter, partitions, slices) on stderr. Nothing
here imports Spark until ``--spark`` is given. Printing is here, in ``cli/``;
``engines/spark/`` computes.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from kleene.cli import results
from kleene.cli.common import (
    canonical_order,
    plural,
    positive_count,
    readable,
    readable_name,
    say_query,
    table,
)
from kleene.cli.progress import spark_tasks
from kleene.cli.spark_failures import spark_errors
from kleene.data.filebytes import format_of
from kleene.data.loaders import open_text
from kleene.engines.match_columns import MatchColumns
from kleene.reference.errors import KleeneError, Unsupported
from kleene.reference.events import Event
from kleene.reference.query import Query
from kleene.reference.schema import check_pattern

#: Options that mean nothing without ``--spark``.
SPARK_ONLY = ("master", "tasks", "explain", "schema", "verbose")

#: Options of one process that a Spark run cannot honour, and why (said, not ignored).
NOT_ON_SPARK = {
    "sort": "Spark reads the events in the file's order; sort the file first",
    "stream": "Spark reads the file in splits already",
    "time_limit": "the limits of the search are the single process's",
    "memory_limit": "the limits of the search are the single process's",
}


#: Below this many bytes of events one process matched faster than Spark ``local[2]`` on
#: the 2-core machine Kleene is measured on, start-up included (docs/outputs.md, "Spark":
#: the funnel of issue 29 at 4.3 to 30.3 MB one process, at 43.2 MB Spark):
#: ``kleene match --spark`` says so in one line, and runs.
SMALL_INPUT_BYTES = 40_000_000


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
    group.add_argument("--tasks", type=positive_count, metavar="N",
                       help="Spark partitions for the engine (default: 2 per core)")
    group.add_argument("--schema", metavar="DDL",
                       help="declare the columns of a CSV or JSON Lines file instead of "
                            "inferring them, e.g. 'ts BIGINT, L STRING, ID INT'")
    group.add_argument("--stock-reader", choices=("arrow", "sql", "python"), default="arrow",
                       help="parse stock lines in one pass with the loader's Arrow reader "
                            "inside Spark tasks (default; Spark SQL names a bad line), in "
                            "Spark SQL, or with the Python loader on the driver")
    group.add_argument("--explain", action="store_true",
                       help="print the plan (filter, partitions, slices) on stderr")
    group.add_argument("-v", "--verbose", action="store_true",
                       help="with --spark: the seconds of each step after Spark's start "
                            "(reading the events, the plan, the engine stage and its "
                            "collect, the output) on stderr, one line each")


def wants_spark(args: argparse.Namespace) -> bool:
    """Whether ``--spark`` was given; a Spark-only option without it is a mistake."""
    if not args.spark:
        for name in SPARK_ONLY:
            if getattr(args, name):
                raise SparkOptionError(f"--{name} needs --spark")
    else:
        for name, why in NOT_ON_SPARK.items():
            if getattr(args, name, None):
                raise SparkOptionError(f"--{name.replace('_', '-')} does not apply with "
                                       f"--spark: {why}")
        if holds_no_events(args.events, args.events_format):
            print("kleene match: Spark not started: one process answers an input with no "
                  "events", file=sys.stderr)
            return False
    return bool(args.spark)


def holds_no_events(path: str, fmt: str | None) -> bool:
    """Whether the local file ``path`` certainly holds no event, told without Spark: no
    byte, a CSV of a header alone, JSON Lines of blank lines, a Parquet file of no row
    (its footer). A folder, a file that cannot be read, or any doubt: ``False`` (Spark's
    reader speaks for it)."""
    try:
        if not os.path.isfile(path):
            return False
        if os.path.getsize(path) == 0:
            return True
        kind = fmt or format_of(path)
        if kind == "parquet":
            import pyarrow.parquet as pq

            return bool(pq.read_metadata(path).num_rows == 0)
        if kind not in ("csv", "jsonl"):
            return False
        with open_text(path) as f:
            lines = [line for line in f.read(1 << 16).splitlines() if line.strip()][:2]
        return len(lines) <= (1 if kind == "csv" else 0)
    except (OSError, ValueError, KleeneError):
        return False


def run_spark(args: argparse.Namespace, query: Query,
              columns: Sequence[tuple[str, str]] = ()) -> int:
    """``kleene match --spark``: run the query the door decided, then print the matches
    or write ``--output`` (the same layouts as single-process:
    :mod:`kleene.cli.results`); any Spark or Java failure is one line."""
    with spark_errors():
        return _run(args, query, columns)


def started_spark(command: str, master: str | None, *, one_query: bool = False) -> Any:
    """The Spark session of ``master`` (:func:`~kleene.engines.spark.session.session`;
    ``one_query``: the process runs one query and ends), its start announced on stderr in
    one line and, once it is up, its time in another."""
    # lazy: Spark only with `--spark` (`kleene match` imports this module)
    from kleene.engines.spark.session import DEFAULT_MASTER, session

    print(f"kleene {command}: starting Spark ({master or DEFAULT_MASTER})", file=sys.stderr,
          flush=True)
    began = time.monotonic()
    spark = session(master, one_query=one_query)
    print(f"kleene {command}: Spark ready in {time.monotonic() - began:.1f} s",
          file=sys.stderr, flush=True)
    return spark


def say_if_small(path: str) -> None:
    """Say on stderr, in one line, when the events file ``path`` is below
    :data:`SMALL_INPUT_BYTES` (one process is faster there); nothing for a folder, a
    link to nothing, or a file that large."""
    try:
        size = os.stat(path).st_size
    except OSError:   # the reader says what is wrong with it
        return
    if os.path.isfile(path) and size < SMALL_INPUT_BYTES:
        print(f"kleene match: {path} is {size / 1e6:.2g} MB; below "
              f"{SMALL_INPUT_BYTES // 1_000_000} MB one process matches faster than Spark "
              "(start-up included; docs/outputs.md, \"Spark\"): drop --spark", file=sys.stderr)


def collect_tasks(spark: Any, job: Any) -> Any:
    """Run ``job()`` (a Spark action) under a progress bar of its tasks."""
    with spark_tasks(spark):
        return job()


@contextmanager
def timed(args: argparse.Namespace, what: str) -> Iterator[None]:
    """With ``-v``, say on stderr how many seconds the step ``what`` took (the
    session's start is always said: :func:`started_spark`)."""
    began = time.monotonic()
    yield
    if getattr(args, "verbose", False):
        print(f"kleene match: {what} in {time.monotonic() - began:.1f} s", file=sys.stderr,
              flush=True)


def _run(args: argparse.Namespace, query: Query, columns: Sequence[tuple[str, str]]) -> int:
    from kleene.engines.spark.runner import collect_matches, job_errors, match_frame

    eng, chosen = _engine_for(args, query)
    if not args.quiet:   # -q: no warning of a slow backend
        say_if_small(args.events)
    spark = started_spark("match", args.master, one_query=True)
    explain = (lambda text: print(text, file=sys.stderr)) if args.explain else None
    with timed(args, "read the events"):
        frame = _frame(spark, args, query)
        present = _check_columns(args, frame, columns)
    attrs = [a for a in dict.fromkeys(a for _, a in columns) if a in present]
    wanted = list(dict.fromkeys([frame.ts, *(frame.column_of(a) for a in attrs)]))
    with timed(args, "planned"):
        matches = match_frame(frame, query, engine=eng,
                              columns=wanted if args.output is not None else [],
                              tasks=args.tasks, explain=explain, budget=args.budget)
    say_query("match", query)   # once the events are read and checked, and the plan made
    if chosen:
        print(f"kleene match: {chosen}", file=sys.stderr)
    if args.output is not None:
        with timed(args, "engine stage and collect"), job_errors():
            collected = collect_tasks(spark, matches.toArrow)
        with timed(args, f"wrote {args.output}"):
            _write(args, query, collected, frame, columns)
        return 0
    if args.count:   # the matches' number, not the matches: no rows to the driver
        with timed(args, "engine stage and count"), job_errors():
            print(collect_tasks(spark, matches.select("match_id").distinct().count))
        return 0
    with timed(args, "engine stage and collect"):
        found = readable(collect_tasks(spark, lambda: collect_matches(matches)))
    with timed(args, "printed the matches"):
        if args.format == "table":
            names = [readable_name(v) for v in query.lang.variables(query.pattern)]
            for line in table(found, names):
                print(line)
            print(f"({plural(len(found), 'match')}, engine {eng.name} on Spark, "
                  f"policy {query.policy})")
        else:
            for m in canonical_order(found):
                print(m.dumps())
    return 0


def _check_columns(args: argparse.Namespace, frame: Any,
                   columns: Sequence[tuple[str, str]]) -> set[str]:
    """``--columns`` against the frame's columns, as single-process (read from its
    schema: no job): an attribute no event has is refused, or with ``--allow-missing``
    a warning (``-q``: none) and an empty column. Returns the attributes present."""
    from kleene.engines.spark.frames import INTERNAL

    present = {c for c in frame.df.columns if not c.startswith(INTERNAL)} | {"ts"}
    if frame.type is not None:
        present.add("type")
    for line in results.check_columns(columns, present, allow_missing=args.allow_missing):
        if not args.quiet:
            print(f"kleene match: warning: {line}", file=sys.stderr)
    return present


def _engine_for(args: argparse.Namespace, query: Query) -> tuple[Any, str | None]:
    """``--engine``, or the fastest engine that claims the query, checked on the driver
    before Spark starts (:func:`~kleene.engines.spark.runner.checked_engine`); with what
    to say on stderr of a chosen engine (said once the input is checked)."""
    from kleene.engines.registry import engine, fastest_engine
    from kleene.engines.spark.plan import check_supported
    from kleene.engines.spark.runner import checked_engine

    check_supported(query)
    if args.engine == "reference":
        raise Unsupported("--spark runs an engine; the reference semantics run "
                          "single-process (drop --spark)")
    if args.engine:
        return checked_engine(engine(args.engine), query), None
    choice = fastest_engine(query)
    if choice is None:
        raise Unsupported(f"no registered engine claims this pattern under policy "
                          f"{query.policy}, so it cannot run on Spark; drop --spark to use "
                          "the reference semantics")
    return (checked_engine(engine(choice.name), query),
            f"engine {choice.name} on Spark ({choice.reason})")


def _frame(spark: Any, args: argparse.Namespace, query: Query) -> Any:
    """The events read on Spark; an attribute they lack is named where the pattern
    reads it (file, line, column, caret), as single-process does."""
    from kleene.engines.spark.frames import INTERNAL, MissingAttributes, read_events
    from kleene.engines.spark.plan import attributes_read

    try:
        return read_events(spark, args.events, format=args.events_format, ts=args.ts,
                           type=args.type_field or None, time_unit=query.time_unit,
                           require=attributes_read(query.pattern), stock=args.stock_reader,
                           limit=args.limit, schema=args.schema)
    except MissingAttributes as err:
        ts, kind = args.ts or "ts", args.type_field or "type"
        present = {c: frozenset[str]() for c in err.columns if not c.startswith(INTERNAL)}
        present |= {alias: frozenset() for alias, c in (("ts", ts), ("type", kind))
                    if c in err.columns}
        check_pattern(query.pattern, present, text=query.text, source=query.source,
                      events=f"the events of {args.events}", can_allow_missing=False)
        raise


def _write(args: argparse.Namespace, query: Query, collected: Any, frame: Any,
           columns: Sequence[tuple[str, str]]) -> None:
    """Regroup the match rows of Spark (an Arrow table, one row per bound event) as
    matches in columns (:meth:`MatchColumns.from_rows`: no Python object per match) and
    write them as single-process output does; the events are made once per position."""
    import pyarrow as pa

    names = {a: c for _, a in columns   # an absent column: no cell (warned before)
             if (c := frame.column_of(a)) in collected.column_names}
    first = collected.append_column("kleene_row", pa.array(range(collected.num_rows))) \
        .group_by("position").aggregate([("kleene_row", "min")]).column("kleene_row_min")
    cells = collected.take(first).select(["position", frame.ts, *dict.fromkeys(names.values())])
    events = {int(row["position"]): Event(int(row["position"]), _epoch(row[frame.ts]), None,
                                          {a: row.get(c) for a, c in names.items()})
              for row in cells.to_pylist()}
    found = MatchColumns.from_rows(collected.column("match_id"), collected.column("variable"),
                                   collected.column("position"), name=readable_name)
    variables = [readable_name(v) for v in query.lang.variables(query.pattern)]
    fmt = results.output_format(args.output)
    datetimes = results.input_has_datetimes(args.events, args.ts)
    rows = results.match_rows(found, events, args.layout, columns, variables, datetimes,
                              results.repeated_variables(query))
    results.write_matches([rows], args.output, fmt)
    n = sum(map(len, found))
    print(f"kleene match: wrote {plural(n, 'match')} to {args.output} "
          f"({args.layout} layout, {plural(results.row_count(rows), 'row')})", file=sys.stderr)


def _epoch(value: Any) -> int | float:
    """A Spark timestamp value as a number (``datetime`` as epoch milliseconds)."""
    import datetime as dt

    if isinstance(value, dt.datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=dt.UTC)
        return int(round(moment.timestamp() * 1000))
    return value
