"""``kleene translate``: an SES or operator pattern as the SQL:2016 ``MATCH_RECOGNIZE`` statement
with the same matches, where one exists.

The translation is :mod:`kleene.reference.operators.to_match_recognize` (its fragment and
why a pattern outside it has none), checked against Kleene's ``MATCH_RECOGNIZE`` reference
by tests/test_translate_match_recognize.py; docs/semantics.md, "Translations into MATCH_RECOGNIZE".
"""

from __future__ import annotations

import argparse
import re

from kleene.cli.common import Commands, _time_unit, pattern_text
from kleene.reference.durations import READINGS
from kleene.reference.operators.to_match_recognize import POLICIES, Naming, translate
from kleene.reference.query import Query

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def sql_name(text: str) -> str:
    """``text`` as a plain SQL name (an argparse ``type``): letters, digits and ``_``, not
    starting with a digit, so that it stands in the statement as one name."""
    if not _NAME.match(text):
        raise argparse.ArgumentTypeError(f"expected a name of letters, digits and _, got {text!r}")
    return text


NAME = "translate"
HELP = "print an SES or operator pattern as an SQL MATCH_RECOGNIZE statement (where exact)"
DESCRIPTION = """\
Print the SQL:2016 MATCH_RECOGNIZE statement whose matches are the pattern's under
the policy contiguous (consecutive events) or partition-contiguous (consecutive
events of one partition, PARTITION BY the attributes whose equalities join every
variable). The fragment: a sequence of single variables (SES sets of one
variable; SEQ of primitives), WHERE conditions on the variable bound last
(relating it to earlier ones), a window. Anything else, and a quantifier (a
group variable v+, B+ b[]: MATCH_RECOGNIZE keeps one match per start row, Kleene
every one), is refused in one line saying why.

The statement reads a table of events with a column ts and a column per
attribute (a type column for typed primitives), ordered by ts (then by the
--position column, if named); it has a row per match with the ts (the position)
of each variable's event. `kleene match --pattern FILE.sql --events EVENTS`
runs it.

examples:
  kleene translate --pattern examples/ticks/dip.ses --policy partition-contiguous --table ticks
  kleene translate --pattern "PATTERN SEQ(A a, B b) WITHIN 5" --policy contiguous"""


def add_parser(commands: Commands) -> argparse.ArgumentParser:
    """Declare ``kleene translate --pattern P --policy POLICY [--to match_recognize]``."""
    parser = commands.add_parser(NAME, help=HELP, description=DESCRIPTION,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pattern", required=True, metavar="FILE",
                        help="the pattern file (.ses or .op), or the pattern's text itself")
    parser.add_argument("--language", choices=("ses", "operator"),
                        help="the pattern language (default: recognised from the text)")
    parser.add_argument("--policy", required=True, choices=POLICIES,
                        help="the selection policy whose matches the statement gives")
    parser.add_argument("--to", choices=("match_recognize",), default="match_recognize",
                        help="the target language (default and only one: match_recognize)")
    parser.add_argument("--window-reading", choices=READINGS, default=None,
                        help="how the window bounds a match: inclusive, max ts - min ts <= "
                             "the window (the default), or strict, <")
    parser.add_argument("--time-unit", type=_time_unit, default=None, metavar="UNIT",
                        help="the unit of the table's ts (ms s min h d): needed when the "
                             "window has a unit")
    parser.add_argument("--table", type=sql_name, default="events", metavar="NAME",
                        help="the table the statement reads (default: events)")
    parser.add_argument("--position", type=sql_name, default=None, metavar="COLUMN",
                        help="a column holding each event's position: rows tied in ts are "
                             "ordered by it, and the measures give positions, not ts")
    return parser


def run(args: argparse.Namespace) -> int:
    """Parse, translate (one line naming why when there is no exact translation), print."""
    text, source = pattern_text(args.pattern)
    query = Query.parse(text, language=args.language, policy=args.policy,
                        reading=args.window_reading, time_unit=args.time_unit, source=source)
    print(translate(query, naming=Naming(position=args.position)).sql(args.table))
    return 0
