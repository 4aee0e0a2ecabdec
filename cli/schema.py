"""The check of a query against the events it runs on, before any matching: the pattern
against the events' columns (:mod:`kleene.reference.schema`), and the plausibility
warnings (:mod:`kleene.data.plausible`), at every door that runs a query on a file
(``kleene match``, ``kleene trace``)."""

from __future__ import annotations

import argparse
import sys

from kleene.data.kinds import kinds_of
from kleene.data.plausible import epoch_hint, warnings
from kleene.data.source import column_batches
from kleene.reference.errors import PatternError
from kleene.reference.events import Stream
from kleene.reference.query import Query
from kleene.reference.schema import Schema, check_pattern, check_static, check_units


def add_allow_missing_option(parser: argparse.ArgumentParser) -> None:
    """``--allow-missing``: an attribute the events lack reads as missing."""
    parser.add_argument("--allow-missing", action="store_true",
                        help="accept attributes the events lack (they read as missing and "
                             "make comparisons unknown) instead of stopping")


def add_quiet_option(parser: argparse.ArgumentParser, more: str = "") -> None:
    """``-q``/``--quiet``: no plausibility warnings (and ``more``, said in its help)."""
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="say no plausibility warnings (a text value or event type no "
                             "event has, a time unit that puts the timestamps in implausible "
                             f"years, a window longer than the whole stream){more}")


def check_schema(query: Query, stream: Stream, *, source: str, command: str = "match",
                 allow_missing: bool = False) -> Schema:
    """Raise a one-line error when the query's pattern reads ``prev`` of a single event,
    has a window in a time unit over timestamps of none, reads what the events of
    ``source`` lack, or compares kinds that never meet; else the events' schema."""
    check_static(query)
    try:
        check_units(query)
    except PatternError as err:   # no unit: say the one the timestamps look written in
        hint = epoch_hint(stream)
        if hint is None:
            raise
        raise PatternError(f"{err.args[0]}; {hint}") from None
    if _empty(stream):   # no events, no columns to check: zero matches, said on stderr
        print(f"kleene {command}: {source} holds no events", file=sys.stderr)
        return {}
    schema = kinds_of(stream)
    check_pattern(query.pattern, schema, text=query.text, source=query.source,
                  events=f"the events of {source}", allow_missing=allow_missing)
    return schema


def say_warnings(command: str, query: Query, stream: Stream, *, quiet: bool = False,
                 more: list[str] | None = None) -> None:
    """Say each plausibility warning of ``query`` on ``stream`` (and the ``more`` the door
    found itself) on one line of stderr, ``kleene COMMAND: warning: ...``; nothing with
    ``quiet``."""
    if quiet:
        return
    for line in [*(more or []), *warnings(query, stream)]:
        print(f"kleene {command}: warning: {line}", file=sys.stderr)


def _empty(stream: Stream) -> bool:
    """Whether ``stream`` holds no event; a source read in batches (``--stream``) is
    asked for its first batch (its ``len`` counts only the events read so far)."""
    batches = column_batches(stream, 1 << 62)
    if batches is not None:
        return next(iter(batches), None) is None
    return len(stream) == 0
