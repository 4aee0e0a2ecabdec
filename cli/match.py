"""``kleene match``: the matches of one pattern on one event file.

By default the fastest registered engine that claims the query exactly (its
language, constructs and policy; :func:`~kleene.engines.registry.fastest_engine`)
computes the matches, and the command says which on stderr; the reference
semantics compute them only when no engine claims the query, or when
``--engine reference`` forces them (docs/architecture.md, "Engines").
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from kleene.cli import cliffs, listing, progress, reading, results
from kleene.cli.common import (
    Commands,
    QueryHelpFormatter,
    add_budget_option,
    add_engine_options,
    add_event_options,
    add_query_options,
    budget_of,
    canonical_order,
    load_stream,
    plural,
    positive_count,
    query_of,
    readable,
    readable_name,
    say_query,
    table,
)
from kleene.cli.schema import (
    add_allow_missing_option,
    add_quiet_option,
    check_schema,
    say_warnings,
)
from kleene.cli.spark import add_spark_options, run_spark, wants_spark
from kleene.cli.watchdog import limits
from kleene.data.source import reads_in_batches
from kleene.engines.fastest import REFERENCE, choose, run_engine
from kleene.engines.match_columns import gathered
from kleene.engines.protocol import Query
from kleene.reference.budget import Budget
from kleene.reference.errors import Unsupported
from kleene.reference.match import Match
from kleene.reference.match_recognize.tie_choices import TIES

NAME = "match"
HELP = "print the matches of a pattern on events (the fastest exact engine)"
DESCRIPTION = """\
Print every match of the pattern in FILE on the events, under a selection
policy. The fastest registered engine that claims the pattern's language,
constructs and policy exactly computes them (it is named on stderr); the
reference semantics (the oracle engines are checked against) compute them
when no engine claims the pattern, or with --engine reference. With
--format jsonl (the default) each line is one canonical match,
{"b": [11], "c": [0], "p": [3, 8]}: each variable with the 0-based positions
(row indexes) of the events it binds; lines are sorted by first position.
--output FILE.jsonl|.csv|.parquet writes them instead, in --layout long (one
row per match, variable and event) or wide (one row per match, with the first
and last timestamps and the --columns var.attr,...).

The pattern is checked against the events' columns first: an attribute the
events lack is an error naming the columns present (--allow-missing reads it
as missing, the three-valued reading of docs/semantics.md), and so is a
--columns attribute; comparing a text column with a number is an error. What
is valid but rarely meant is a warning on stderr, one line each (-q: none): a
text value or event type the pattern compares with that no event has (naming
the nearest ones), a time unit that puts the timestamps in implausible years,
a window longer than the whole stream.

A SQL statement holding MATCH_RECOGNIZE answers a table instead: the table
its FROM names is the --events file (Parquet, CSV or JSON Lines, read by
DuckDB), the rows are printed as CSV with a header line (or written by
--output FILE.csv|.jsonl|.parquet), and the engine that ran the recognition
is named on stderr."""



def add_parser(commands: Commands) -> argparse.ArgumentParser:
    """Declare ``kleene match`` and its options."""
    parser = commands.add_parser(NAME, help=HELP, description=DESCRIPTION,
                                 formatter_class=QueryHelpFormatter)
    add_query_options(parser)
    parser.add_argument("--format", choices=("jsonl", "table"), default="jsonl",
                        help="one canonical JSON match per line, or a table with one column "
                             "per variable (default: jsonl)")
    parser.add_argument("--count", action="store_true",
                        help="print only the number of matches (SES patterns under any: "
                             "counted without listing them, docs/counting.md)")
    parser.add_argument("--first", type=positive_count, metavar="K",
                        help="only the first K matches in the order of their last event "
                             "(CEQL's LIMIT K; --limit N reads the first N events): only "
                             "the prefix of the events holding them is matched")
    add_allow_missing_option(parser)
    add_output_options(parser)
    add_event_options(parser)
    add_budget_option(parser)
    add_engine_options(parser)
    parser.add_argument("--ties", choices=TIES, metavar="|".join(TIES),
                        help="MATCH_RECOGNIZE: rows tied on every ORDER BY key keep their "
                             f"input order ({TIES[0]}, the default) or, with {TIES[1]}, a "
                             "tie whose order can change the answer is refused "
                             "(docs/match-recognize-spark.md)")
    add_spark_options(parser)
    add_quiet_option(parser, more=", no warning of a slow backend (the reference, an engine "
                     "enumerating every combination) and no progress (a bar on a terminal, "
                     f"else a line every {progress.EVERY:g} seconds)")
    return parser


def add_output_options(parser: argparse.ArgumentParser) -> None:
    """``--output``, ``--layout``, ``--columns``, ``--overwrite``."""
    group = parser.add_argument_group("results")
    group.add_argument("--output", metavar="FILE",
                       help="write the matches to FILE.jsonl, FILE.csv or FILE.parquet "
                            "instead of printing them")
    group.add_argument("--layout", choices=results.LAYOUTS, default="long",
                       help="long: a row per match, variable and event; wide: a row per "
                            "match with first_ts, last_ts and the --columns (default: long)")
    group.add_argument("--columns", default="", metavar="V.A,...",
                       help="event attributes to copy: var.attr for --layout wide, attr "
                            "for long")
    group.add_argument("--overwrite", action="store_true",
                       help="replace an existing --output")


def run(args: argparse.Namespace) -> int:
    """Decide the query, load, check, match, print or write; user mistakes propagate as
    ``KleeneError``."""
    query = query_of(args)
    if query.answers_tables:
        # lazy: DuckDB and the MATCH_RECOGNIZE modules only for a query that answers a
        # table (the startup floor of kleene match, tests/test_cli_imports.py)
        from kleene.cli.match_table import run_table

        return run_table(args, query)
    if args.ties is not None:
        raise Unsupported(f"--ties orders the rows of a MATCH_RECOGNIZE; a {query.language} "
                          "pattern's events are ordered by their timestamps")
    variables = [readable_name(v) for v in query.lang.variables(query.pattern)]
    columns = results.parse_columns(args.columns, args.layout, variables)
    if args.columns and args.output is None:
        raise Unsupported("--columns needs --output")
    if args.stream and args.output is not None:
        raise Unsupported("--output writes each matched event's columns, which --stream does "
                          "not keep (it reads the events in batches); drop --stream, or print "
                          "the matches as JSON Lines or --count them")
    if args.count and args.output is not None:
        raise Unsupported("--count prints the number of matches, --output writes them; give one")
    if args.count and args.first is not None:
        raise Unsupported("--count prints the number of matches, --first K the first K; "
                          "give one")
    if args.first is not None and wants_spark(args):
        raise Unsupported("--first runs in one process; leave out --spark")
    fmt = results.check_output(args.output, args.overwrite, [args.events, args.pattern]) \
        if args.output is not None else None
    if args.counters and (args.spark or args.engine == REFERENCE):
        raise Unsupported("--counters needs an engine (the reference semantics keep no "
                          "counters) and no --spark")
    if wants_spark(args):
        return run_spark(args, query, columns)
    stream = load_stream(args, batched=reading.batched(args, query))
    query = query.with_time_unit(stream.time_unit)
    schema = check_schema(query, stream, source=args.events, allow_missing=args.allow_missing)
    missing = results.check_columns(columns, schema, allow_missing=args.allow_missing) \
        if schema else []
    say_warnings(NAME, query, stream, quiet=args.quiet, more=missing)
    say_query(NAME, query)
    listed = None
    if args.count:
        listed = counted(args, query, stream)
        if listed is None:
            return 0
    first: list[Match] | None = None
    with progress.said(args.quiet):
        if args.first is None:
            name = _backend(args, query, stream, listed or "")
            if not args.count:
                _say_listing(args, query, stream, name)
            if name != REFERENCE and fmt is None and (args.count or args.format == "jsonl"):
                n = _listed(args, query, stream, name)
                if args.count:
                    print(n)
                return 0
            if name != REFERENCE and fmt is not None:
                _written(args, query, stream, name, fmt, columns, variables)
                return 0
            found, by = _compute(args, query, stream, name)
        else:
            first, by = _first(args, query, stream)
            found = set(first)
    found = readable(found)   # SREMO's marked positions as `marked` (docs/outputs.md)
    if args.count:
        print(len(found))
        return 0
    if fmt is not None:
        datetimes = results.input_has_datetimes(args.events, args.ts)
        rows = results.match_rows(found, stream, args.layout, columns, variables, datetimes,
                                  results.repeated_variables(query))
        results.write_matches([rows], args.output, fmt)
        _say_written(args, len(found), results.row_count(rows))
        return 0
    out = sys.stdout
    if args.format == "table":
        for line in table(found, variables):
            print(line, file=out)
        print(f"({plural(len(found), 'match')} on {plural(len(stream), 'event')}, "
              f"policy {query.policy}, {by})", file=out)
    else:
        for m in canonical_order(found) if first is None else [readable([x]).pop()
                                                                for x in first]:
            print(m.dumps(), file=out)
    return 0


def counted(args: argparse.Namespace, query: Query, stream: Any) -> str | None:
    """``--count`` by dynamic programming when no engine is named and the query is in its
    fragment (:mod:`kleene.engines.count`): print the count and say so, ``None``; else
    why the matches are listed, which the line naming the backend says (``""`` when an
    engine is named, or its ``--counters`` asked for)."""
    # lazy: the counting modules only for --count (the startup floor, test_cli_imports.py)
    from kleene.engines.count.counting import count_dp, outside, over

    if args.engine is not None or args.counters:   # an engine's run asked for
        return ""
    why = outside(query)
    if why is not None:
        return f"; --count lists the matches: {why}"
    print("kleene match: counting without listing the matches (dynamic programming over "
          f"{over(query)}, docs/counting.md)", file=sys.stderr)
    budget = budget_of(args)
    with progress.said(args.quiet), \
            limits(budget.seconds, budget.memory_mb, "counting the matches"):
        print(count_dp(query, progress.Reading(stream, "counting")))
    return None


def _first(args: argparse.Namespace, query: Query, stream: Any) -> tuple[list[Match], str]:
    """``--first K``: the first K matches in the order of their last event, and the backend
    (:func:`kleene.engines.count.first.first_matches`); says on stderr how many events it
    read, or why it matched them all."""
    # lazy: the counting modules only for --first (the startup floor, test_cli_imports.py)
    from kleene.engines.count.first import first_matches, from_structure

    if reads_in_batches(stream):
        raise Unsupported("--first needs the events loaded (leave out --stream)")
    if args.engine is None and from_structure(query):
        print(f"kleene match: {STRUCTURE_SAID}", file=sys.stderr)   # as the engine chosen
    elif args.engine is None:
        name, reason = choose(query)
        _say_choice(query, name, reason, stream, args.quiet)
    budget = budget_of(args)
    with limits(budget.seconds, budget.memory_mb, "finding the first matches"):
        got = first_matches(query, stream, args.first, engine_name=args.engine, budget=budget)
    if got.gave_way is not None:
        print(f"kleene match: {got.gave_way}", file=sys.stderr)
    if got.why is None:
        print(f"kleene match: --first {args.first} matched the first "
              f"{plural(got.events, 'event')} of {len(stream):,}", file=sys.stderr)
    else:
        print(f"kleene match: --first matched every event: {got.why}", file=sys.stderr)
    by = "the reference semantics" if got.backend == REFERENCE else f"engine {got.backend}"
    return list(got.matches), by


def _say_choice(query: Query, name: str, reason: str, stream: Any, quiet: bool,
                more: str = "") -> None:
    """Say the backend chosen and why on stderr, and (unless ``quiet``) the cliff it may
    fall off with its faster equivalents (:mod:`kleene.cli.cliffs`); refuse a long input
    to the reference. ``more`` ends the reason (why ``--count`` lists the matches)."""
    if name == REFERENCE:
        cliffs.refuse_reference(query, None if reads_in_batches(stream) else len(stream))
    said = "the reference semantics" if name == REFERENCE else f"engine {name}"
    print(f"kleene match: {said} ({reason}{more})", file=sys.stderr)
    warning = None if quiet else cliffs.warning(query, name, stream)
    if warning is not None:
        print(f"kleene match: {warning}", file=sys.stderr)


#: The backend name of a listing from the shared structure (:mod:`kleene.engines.count.tecs`).
STRUCTURE = "tecs"
#: What ``kleene match`` says when it lists from the shared structure.
STRUCTURE_SAID = ("listing from a shared structure of partial matches as the events are read "
                  "(tecs, docs/counting.md)")
#: What a budget or a limit stopped while the structure listed (its one-line error).
LISTING = "listing from the shared structure (tecs)"


def _structure_lists(args: argparse.Namespace, query: Query) -> bool:
    """Whether the matches are listed from the shared structure: no engine named, no
    ``--count`` or ``--counters`` (an engine's run), and a SREMO, ``.sre`` or CEQL query
    the structure claims."""
    if args.engine is not None or args.count or args.counters:
        return False
    # lazy: the counting modules only for a SREMO query (the startup floor,
    # test_cli_imports.py)
    from kleene.engines.count.first import from_structure

    return from_structure(query)


def _backend(args: argparse.Namespace, query: Query, stream: Any, more: str = "") -> str:
    """The backend that computes the matches: the engine named, else the shared structure
    where it lists the query, else the engine chosen, which is said on stderr (``more``
    after the reason)."""
    if _structure_lists(args, query):
        print(f"kleene match: {STRUCTURE_SAID}", file=sys.stderr)   # as the engine chosen
        return STRUCTURE
    name = args.engine
    chosen = name is None
    if name is None:
        name, reason = choose(query)
    if name == REFERENCE and reads_in_batches(stream):
        raise Unsupported("--stream needs an engine, and no registered engine claims "
                          "this pattern under this policy")
    if chosen:   # said once every check that can fail has passed
        _say_choice(query, name, reason, stream, args.quiet, more)
    return name


def _say_listing(args: argparse.Namespace, query: Query, stream: Any, name: str) -> None:
    """Before the engine ``kleene match`` chose lists the matches: count them where the
    count claims the query, within seconds, and say on one line when they are many; stop
    now with the budget's error when they are more than its steps
    (:func:`kleene.cli.cliffs.listing`). Nothing with ``-q`` or ``--engine``."""
    if args.quiet or args.engine is not None or name == REFERENCE:
        return
    counted = cliffs.tally(query, stream)
    if counted is None:
        return
    cliffs.over_budget(counted, budget_of(args), name)
    line = cliffs.listing(counted, name, None if reads_in_batches(stream) else len(stream))
    if line is not None:
        print(f"kleene match: {line}", file=sys.stderr)


def _listed(args: argparse.Namespace, query: Query, stream: Any, name: str) -> int:
    """Print engine ``name``'s matches as JSON Lines in canonical order (with ``--count``,
    none), holding a run of them at a time, not all (:mod:`kleene.cli.listing`); how
    many."""
    budget = budget_of(args)
    if name == STRUCTURE:
        with limits(budget.seconds, budget.memory_mb, LISTING):
            return listing.print_found(_from_structure(query, stream, budget),
                                       None if args.count else sys.stdout)
    with limits(budget.seconds, budget.memory_mb, f"running engine {name}"):
        n, counters = listing.print_matches(
            name, query, progress.Reading(stream, name, listing.ENGINE_ROWS), budget,
            None if args.count else sys.stdout)
    if args.counters:   # the run's totals, after its matches (stdout flushed first)
        sys.stdout.flush()
        print(json.dumps(counters.as_dict()), file=sys.stderr)
    return n


def _written(args: argparse.Namespace, query: Query, stream: Any, name: str, fmt: str,
             columns: Sequence[tuple[str, str]], variables: Sequence[str]) -> None:
    """Write engine ``name``'s matches to ``--output`` as ``kleene match`` prints them,
    sorted a run at a time and written a batch at a time (:func:`results.sorted_rows`):
    memory holds a run of matches and a batch of rows, not every match (issue 33
    item 5)."""
    budget = budget_of(args)
    datetimes = results.input_has_datetimes(args.events, args.ts)
    matches = rows = 0
    counters = None
    doing = LISTING if name == STRUCTURE else f"running engine {name}"
    with limits(budget.seconds, budget.memory_mb, doing), \
            tempfile.TemporaryDirectory(prefix="kleene-matches-") as folder:
        if name == STRUCTURE:
            found = gathered(_from_structure(query, stream, budget))
        else:
            found, counters = listing.engine_matches(
                name, query, progress.Reading(stream, name, listing.ENGINE_ROWS), budget)
        matches, rows = results.write_matches(results.sorted_rows(
            found, Path(folder), stream, args.layout, columns, variables, datetimes,
            results.repeated_variables(query)), args.output, fmt)
    if args.counters and counters is not None:
        print(json.dumps(counters.as_dict()), file=sys.stderr)
    _say_written(args, matches, rows)


def _say_written(args: argparse.Namespace, matches: int, rows: int) -> None:
    print(f"kleene match: wrote {plural(matches, 'match')} to {args.output} "
          f"({args.layout} layout, {plural(rows, 'row')})", file=sys.stderr)


def _compute(args: argparse.Namespace, query: Query, stream: Any,
             name: str) -> tuple[set[Match], str]:
    """The matches computed by the backend ``name`` (:func:`_backend`), and its name as
    the table's last line says it."""
    if name == REFERENCE:
        budget = budget_of(args)
        with progress.steps("reference") as tick:
            budget.tick = tick
            found = query.reference(stream, budget=budget)
        return found, "the reference semantics"
    events = progress.Reading(stream, name)
    budget = budget_of(args)
    if name == STRUCTURE:
        with limits(budget.seconds, budget.memory_mb, LISTING):
            return set(_from_structure(query, stream, budget)), "a shared structure (tecs)"
    with limits(budget.seconds, budget.memory_mb, f"running engine {name}"):
        found, counters = run_engine(name, query, events, budget=budget)
    if args.counters:
        print(json.dumps(counters.as_dict()), file=sys.stderr)
    return found, f"engine {name}"


def _from_structure(query: Query, stream: Any, budget: Budget) -> Iterator[Match]:
    """The matches of ``query`` listed from its shared structure, one step of ``budget``
    each, the events read through a progress bar."""
    # lazy: the SRT modules only for a SREMO query (the startup floor, test_cli_imports.py)
    from kleene.engines.count import tecs

    budget.what = LISTING
    return tecs.matches(query, progress.Reading(stream, STRUCTURE), budget,
                        lambda line: print(f"kleene match: {line}", file=sys.stderr))
