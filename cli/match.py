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
from typing import Any

from kleene.cli import progress, results
from kleene.cli.common import (
    add_budget_option,
    add_engine_options,
    add_event_options,
    budget_of,
    canonical_order,
    load_stream,
    plural,
    read_pattern,
    table,
)
from kleene.cli.schema import check_schema
from kleene.cli.spark import add_spark_options, run_spark, wants_spark
from kleene.cli.watchdog import limits
from kleene.data.source import reads_in_batches
from kleene.engines.fastest import REFERENCE, choose, run_engine
from kleene.engines.protocol import Query
from kleene.reference.errors import Unsupported
from kleene.reference.languages import LANGUAGES, Language, detect_language, language_named
from kleene.reference.match import Match

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
as missing, the three-valued reading of docs/semantics.md), and comparing a
text column with a number is an error."""



class _HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """``--help`` with every language's policies listed: computed when the help is
    printed, so that running a command builds no language it does not use."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help
        if text is not None and "%(policies)" in text:
            policies = sorted({p for lang in LANGUAGES.values() for p in lang.policies})
            text = text.replace("%(policies)s", ", ".join(policies))
        return text


def add_parser(commands: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Declare ``kleene match`` and its options."""
    parser = commands.add_parser(NAME, help=HELP, description=DESCRIPTION,
                                 formatter_class=_HelpFormatter)
    parser.add_argument("--pattern", required=True, metavar="FILE", help="the pattern file")
    parser.add_argument("--language", choices=list(LANGUAGES),
                        help="the pattern language (default: recognised from the text)")
    parser.add_argument("--policy", default=None, metavar="POLICY",
                        help="the selection policy: %(policies)s (default: the "
                             "language's first: any for SES and operator patterns, every "
                             "match; stream for SREMO)")
    parser.add_argument("--format", choices=("jsonl", "table"), default="jsonl",
                        help="one canonical JSON match per line, or a table with one column "
                             "per variable (default: jsonl)")
    parser.add_argument("--window-reading", choices=("inclusive", "strict"), default=None,
                        help="how the window bounds a match: inclusive, max ts - min ts <= "
                             "the window (the papers' reading, the default), or strict, < "
                             "(Wayeb's; the default for .sre files)")
    parser.add_argument("--window", type=_window_value, default=None, metavar="N",
                        help="for a Wayeb .sre pattern: the window, replacing the file's "
                             "{window:..} (elements for a count window, timestamp units for "
                             "a time window)")
    parser.add_argument("--window-type", choices=("count", "time"), default=None,
                        help="for a Wayeb .sre pattern: the window's type, replacing the "
                             "file's {windowType:..}")
    parser.add_argument("--count", action="store_true",
                        help="print only the number of matches")
    parser.add_argument("--allow-missing", action="store_true",
                        help="accept attributes the events lack (they read as missing and "
                             "make comparisons unknown) instead of stopping")
    add_output_options(parser)
    add_event_options(parser)
    add_budget_option(parser)
    add_engine_options(parser)
    add_spark_options(parser)
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
    """Parse, load, check, match, print or write; user mistakes propagate as
    ``KleeneError``."""
    text = read_pattern(args.pattern)
    language = language_named(args.language) if args.language \
        else detect_language(text, args.pattern)
    if args.policy is None:
        args.policy = language.default_policy
    language.check_policy(args.policy)
    pattern = _parse(args, language, text)
    variables = list(language.variables(pattern))
    columns = results.parse_columns(args.columns, args.layout, variables)
    if args.columns and not args.output:
        raise Unsupported("--columns needs --output")
    fmt = results.check_output(args.output, args.overwrite) if args.output else None
    if args.counters and (args.spark or args.engine == REFERENCE):
        raise Unsupported("--counters needs an engine (the reference semantics keep no "
                          "counters) and no --spark")
    if wants_spark(args):
        return run_spark(args, pattern, columns)
    stream = load_stream(args)
    check_schema(pattern, stream, source=args.events, pattern_file=args.pattern,
                 allow_missing=args.allow_missing)
    found, by = _compute(args, language, pattern, stream)
    if args.count:
        print(len(found))
        return 0
    if args.output:
        assert fmt is not None
        header = results.header(args.layout, columns, variables)
        datetimes = results.input_has_datetimes(args.events, args.ts)
        rows = results.rows(found, stream, args.layout, columns, variables, datetimes)
        results.write(rows, args.output, fmt, header)
        print(f"kleene match: wrote {plural(len(found), 'match')} to {args.output} "
              f"({args.layout} layout, {plural(len(rows), 'row')})", file=sys.stderr)
        return 0
    out = sys.stdout
    if args.format == "table":
        for line in table(found, variables):
            print(line, file=out)
        print(f"({plural(len(found), 'match')} on {plural(len(stream), 'event')}, "
              f"policy {args.policy}, {by})", file=out)
    else:
        for m in canonical_order(found):
            print(m.dumps(), file=out)
    return 0


def _window_value(text: str) -> int | float:
    """A ``--window`` value: a positive number (an argparse ``type``)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return int(value) if value.is_integer() else value


def _parse(args: argparse.Namespace, language: Language, text: str) -> Any:
    """The pattern; a Wayeb ``.sre`` query with ``--window``/``--window-type`` applied,
    and which window it has said on stderr."""
    windowed = language.windowed
    if windowed is None:
        if args.window is not None or args.window_type is not None:
            raise Unsupported(f"--window and --window-type apply to Wayeb .sre patterns, not "
                              f"to {language.title}; write the window in the pattern")
        return language.parse(text, args.pattern)
    try:
        pattern, said = windowed(text, args.pattern, args.window, args.window_type)
    except ValueError as err:
        raise Unsupported(f"--window: {err}") from None
    args.window_said = bool(said)
    if said:
        reading = args.window_reading or language.default_reading
        how = "max ts - min ts < τ" if reading == "strict" else "max ts - min ts <= τ"
        print(f"kleene match: {said}, read {reading} ({how})" if "time" in said
              else f"kleene match: {said}", file=sys.stderr)
    return pattern


def _compute(args: argparse.Namespace, language: Language, pattern: Any,
             stream: Any) -> tuple[set[Match], str]:
    """The matches, and which backend computed them (said on stderr)."""
    name = args.engine
    reading = args.window_reading or language.default_reading
    if args.window_reading is None and reading != "inclusive" and \
            not getattr(args, "window_said", False):
        print(f"kleene match: the window is read {reading} ({language.title} mean it so; "
              "--window-reading inclusive reads it as the papers do)", file=sys.stderr)
    if name is None:
        name, reason = choose(Query.of(pattern, policy=args.policy, time_unit=stream.time_unit,
                                       window=reading))  # type: ignore[arg-type]
        if name == REFERENCE:
            print(f"kleene match: the reference semantics ({reason})", file=sys.stderr)
        else:
            print(f"kleene match: engine {name} ({reason})", file=sys.stderr)
    if name == REFERENCE:
        if reads_in_batches(stream):
            raise Unsupported("--stream needs an engine, and no registered engine claims "
                              "this pattern under this policy")
        budget = budget_of(args)
        with progress.steps("reference") as tick:
            budget.tick = tick
            found = language.reference(pattern, stream, args.policy, budget=budget,
                                       reading=reading)
        return found, "the reference semantics"
    events = progress.Reading(stream, name)
    budget = budget_of(args)
    with limits(budget.seconds, budget.memory_mb, f"running engine {name}"):
        query = Query.of(pattern, policy=args.policy, time_unit=stream.time_unit,
                         window=reading)  # type: ignore[arg-type]
        found, counters = run_engine(name, query, events, budget=budget)
    if args.counters:
        print(json.dumps(counters.as_dict()), file=sys.stderr)
    return found, f"engine {name}"
