"""Whether ``kleene match`` reads its events whole or in batches (issue 33, item 3:
bounded memory by default; docs/memory.md).

A file of stock lines or Parquet holding about :data:`~kleene.data.filebytes.BATCHED_FROM`
events or more (:func:`~kleene.data.batches.estimated_events`: Parquet's row count,
stock lines by their text's size; ``--limit`` counted) is read in batches, as
``--stream`` reads any: the engine keeps what its window needs, so memory is bounded by
the batch and the window, not by the file (the stock stream ×100, 22 M events: 0.37 GB
against 6.9 GB loaded whole). A smaller file is loaded whole, which is no slower and
keeps what only a loaded stream has: every plausibility warning
(:mod:`kleene.data.plausible` asks a stream read in batches only its first batch, and
not about its time unit). What needs the whole stream loads it, and says so on one line
with the file's size (:func:`whole_reason`).
"""

from __future__ import annotations

import argparse
import os
import sys

from kleene.data.batches import estimated_events
from kleene.data.filebytes import BATCHED_FROM, format_of
from kleene.engines.fastest import REFERENCE, choose
from kleene.reference.query import Query

#: The formats read in batches (:class:`kleene.data.batches.Batched`).
BATCHED_FORMATS = ("stock", "parquet")


def whole_reason(args: argparse.Namespace, query: Query) -> str | None:
    """Why ``kleene match``'s run needs the whole stream loaded, or ``None`` when it
    reads it in batches as well."""
    if args.first is not None:
        return "--first K matches the prefix of the loaded events that holds them"
    if args.output is not None:
        return "--output copies the matched events' columns from the loaded stream"
    backend = args.engine or choose(query)[0]
    if backend == REFERENCE:
        return "the reference semantics read the whole stream"
    if query.language in ("sremo", "ceql") and _partitioned(query):
        return (f"engine {backend} cuts the parts of PARTITION BY from all the columns at "
                "once (in batches it steps every event in Python, tens of times slower)")
    return None


def _partitioned(query: Query) -> bool:
    # lazy: SREMO's expressions only for a SREMO query (the startup floor of kleene match,
    # tests/test_cli_imports.py)
    from kleene.reference.sremo.expressions import Partition

    return isinstance(query.pattern, Partition)


def batched(args: argparse.Namespace, query: Query) -> bool:
    """Whether ``kleene match`` reads the events of ``args`` in batches: with
    ``--stream``, or a large file of stock lines or Parquet (module docstring) whose
    run does not need it whole. A large file that is loaded whole is said on stderr,
    with its size and why."""
    if args.stream:
        return True
    fmt = (args.events_format or format_of(args.events) or "").lower()
    if fmt not in BATCHED_FORMATS or args.sort:
        return False
    events = estimated_events(args.events, fmt)
    if events is None:
        return False
    if args.limit is not None:
        events = min(events, args.limit)
    if events < BATCHED_FROM:
        return False
    why = whole_reason(args, query)
    if why is None:
        return True
    print(f"kleene match: loading the events whole ({_size(args.events)}, about "
          f"{events:,} events): {why}", file=sys.stderr)
    return False


def _size(path: str) -> str:
    """The file's size on disk, in MB or GB."""
    size = os.path.getsize(path)
    return f"{size / 1e9:.1f} GB" if size >= 1e9 else f"{size / 1e6:.1f} MB"
