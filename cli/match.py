"""``kleene match``: the reference's matches of one pattern on one event file."""

from __future__ import annotations

import argparse
import sys

from kleene.cli.common import (
    add_budget_option,
    add_engine_options,
    add_event_options,
    canonical_order,
    engine_matches,
    load_stream,
    make_budget,
    plural,
    read_pattern,
    table,
    write_matches,
)
from kleene.engines.spark.command import add_spark_options, run_spark, wants_spark
from kleene.reference.errors import Unsupported
from kleene.reference.languages import LANGUAGES, detect_language, language_named

NAME = "match"
HELP = "print the matches of a pattern on events (the reference semantics)"
DESCRIPTION = """\
Print every match of the pattern in FILE on the events, under a selection
policy, computed by the reference semantics (the oracle engines are checked
against). With --format jsonl (the default) each line is one canonical match,
{"b": [11], "c": [0], "p": [3, 8]}: each variable with the 0-based positions
(row indexes) of the events it binds; lines are sorted by first position.
With --engine NAME a registered engine computes them instead (it must claim
the policy), and --counters prints what it counted on stderr."""


def add_parser(commands: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Declare ``kleene match`` and its options."""
    parser = commands.add_parser(NAME, help=HELP, description=DESCRIPTION,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pattern", required=True, metavar="FILE", help="the pattern file")
    parser.add_argument("--language", choices=list(LANGUAGES),
                        help="the pattern language (default: recognised from the text)")
    policies = sorted({p for lang in LANGUAGES.values() for p in lang.policies})
    parser.add_argument("--policy", default=None, metavar="POLICY",
                        help=f"the selection policy: {', '.join(policies)} (default: the "
                             "language's first: any for SES and operator patterns, every "
                             "match; stream for SREMO)")
    parser.add_argument("--format", choices=("jsonl", "table"), default="jsonl",
                        help="one canonical JSON match per line, or a table with one column "
                             "per variable (default: jsonl)")
    parser.add_argument("--count", action="store_true",
                        help="print only the number of matches")
    add_event_options(parser)
    add_budget_option(parser)
    add_engine_options(parser)
    add_spark_options(parser)
    return parser


def run(args: argparse.Namespace) -> int:
    """Parse, load, match, print; user mistakes propagate as ``KleeneError``."""
    text = read_pattern(args.pattern)
    language = language_named(args.language) if args.language \
        else detect_language(text, args.pattern)
    if args.policy is None:
        args.policy = language.policies[0]
    language.check_policy(args.policy)
    pattern = language.parse(text, args.pattern)
    if args.counters and (args.spark or not args.engine):
        raise Unsupported("--counters needs --engine NAME (the reference semantics keep no "
                          "counters) and no --spark")
    if wants_spark(args):
        return run_spark(args, pattern)
    stream = load_stream(args)
    if args.engine:
        found = engine_matches(args.engine, pattern, stream, args.policy, args.counters)
    else:
        found = language.reference(pattern, stream, args.policy, budget=make_budget(args.budget))
    if args.count:
        print(len(found))
        return 0
    if args.output:
        write_matches(found, args.output)
        return 0
    out = sys.stdout
    if args.format == "table":
        for line in table(found, language.variables(pattern)):
            print(line, file=out)
        by = f", engine {args.engine}" if args.engine else ""
        print(f"({plural(len(found), 'match')} on {plural(len(stream), 'event')}, "
              f"policy {args.policy}{by})", file=out)
    else:
        for m in canonical_order(found):
            print(m.dumps(), file=out)
    return 0
