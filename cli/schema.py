"""``kleene match``'s check of the pattern against the events' columns
(:mod:`kleene.reference.schema`), before any matching."""

from __future__ import annotations

import sys

from kleene.data.kinds import kinds_of
from kleene.data.source import column_batches
from kleene.reference.events import Stream
from kleene.reference.query import Query
from kleene.reference.schema import check_pattern, check_static


def check_schema(query: Query, stream: Stream, *, source: str,
                 allow_missing: bool = False) -> None:
    """Raise a one-line error when the query's pattern reads ``prev`` of a single event,
    reads what the events of ``source`` lack, or compares kinds that never meet."""
    check_static(query)
    if _empty(stream):   # no events, no columns to check: zero matches, said on stderr
        print(f"kleene match: {source} holds no events", file=sys.stderr)
        return
    check_pattern(query.pattern, kinds_of(stream), text=query.text, source=query.source,
                  events=f"the events of {source}", allow_missing=allow_missing)


def _empty(stream: Stream) -> bool:
    """Whether ``stream`` holds no event; a source read in batches (``--stream``) is
    asked for its first batch (its ``len`` counts only the events read so far)."""
    batches = column_batches(stream, 1 << 62)
    if batches is not None:
        return next(iter(batches), None) is None
    return len(stream) == 0
