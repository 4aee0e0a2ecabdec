"""``kleene match``'s check of the pattern against the events' columns
(:mod:`kleene.reference.schema`), before any matching."""

from __future__ import annotations

import sys
from typing import Any

from kleene.cli.common import read_pattern
from kleene.data.kinds import kinds_of
from kleene.data.source import column_batches
from kleene.reference.errors import PatternError
from kleene.reference.events import Stream
from kleene.reference.schema import check_pattern, check_static


def check_schema(pattern: Any, stream: Stream, *, source: str, pattern_file: str,
                 allow_missing: bool = False) -> None:
    """Raise a one-line error when ``pattern`` reads ``prev`` of a single event, reads
    what the events of ``source`` lack, or compares kinds that never meet."""
    try:
        text: str | None = read_pattern(pattern_file)
    except PatternError:
        text = None
    if text is not None:
        check_static(pattern, text, pattern_file)
    if _empty(stream):   # no events, no columns to check: zero matches, said on stderr
        print(f"kleene match: {source} holds no events", file=sys.stderr)
        return
    check_pattern(pattern, kinds_of(stream), text=text, source=pattern_file,
                  events=f"the events of {source}", allow_missing=allow_missing)


def _empty(stream: Stream) -> bool:
    """Whether ``stream`` holds no event; a source read in batches (``--stream``) is
    asked for its first batch (its ``len`` counts only the events read so far)."""
    batches = column_batches(stream, 1 << 62)
    if batches is not None:
        return next(iter(batches), None) is None
    return len(stream) == 0
