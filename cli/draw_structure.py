"""``kleene draw PATTERN --structure EVENTS --after N``: the shared structure of partial
matches (CORE's tECS, :mod:`kleene.engines.count.tecs`) of a SREMO, ``.sre`` or CEQL
query after the first N events, drawn by :mod:`kleene.engines.count.tecs_picture`
(docs/counting.md, "Listing from a shared structure")."""

from __future__ import annotations

import argparse

import networkx as nx

from kleene.cli.common import plural
from kleene.data.loaders import load_events
from kleene.engines.count.counting import reads_sremo
from kleene.engines.count.tecs import structure
from kleene.engines.count.tecs_picture import structure_graph
from kleene.reference.errors import Unsupported
from kleene.reference.query import Query


def structure_picture(args: argparse.Namespace, query: Query) -> tuple[nx.MultiDiGraph, str]:
    """The graph of ``query``'s structure after ``args.after`` events of ``args.structure``,
    and a caption saying after how many."""
    if not reads_sremo(query):
        raise Unsupported(f"--structure draws a SREMO, .sre or CEQL query's shared structure "
                          f"of partial matches, not a {query.lang.title} pattern's")
    stream = load_events(args.structure, time_unit=args.time_unit, limit=args.after)
    s = structure(query.with_time_unit(stream.time_unit))
    ended = 0
    for p, ts, m, key, run in s.minterms(stream):
        ended += sum(1 for _ in s.feed(p, ts, m, key, run))
    caption = (f"after {plural(len(stream), 'event')} ({plural(ended, 'match')} "
               "ended)")
    return structure_graph(s), caption
