"""``e PARTITION BY a`` on the engine ``srt``: one streaming run (seed 004, report
Alg. 1) per part of the stream, as the reference defines it
(:func:`kleene.reference.sremo.streaming.parts`, Kleene's extension for Wayeb's
``{partitionBy:a}``): the elements that share their values of ``a``
(:func:`kleene.reference.policies.part_of`; an element missing a value is a part
of its own), matches mapped back to the positions of the stream.

Over events, each element goes to the :class:`~kleene.engines.srt.execution.Execution`
of its part as it arrives; an element keeps its position, so the marks need no
mapping (windows are compiled into the SRT: a count window counts the elements
its run reads, those of its part; a time window reads timestamps). Over the
columns of a loaded stream whose partitioning columns hold strings, integers or
booleans without a missing value (then the parts are the distinct values), each
part is cut from the columns (one ``take`` for all, a slice each) and run over its own columns, its
matches mapped back and all of them reported in stream order at the end.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from kleene.data.columnar import Columns
from kleene.data.source import columns_of_source, time_unit_of
from kleene.data.textvalues import BOOL_KIND, INT_KIND, STR_KIND
from kleene.engines.protocol import Counters
from kleene.reference.budget import Budget
from kleene.reference.events import Event, Stream
from kleene.reference.match import Match
from kleene.reference.policies import part_of

#: Column kinds whose distinct values are exactly the parts of ``part_of``.
SPLIT_KINDS = (STR_KIND, INT_KIND, BOOL_KIND)


def split(c: Columns, by: tuple[str, ...]) -> list[np.ndarray] | None:
    """The rows of each part of ``c`` (positions in stream order, parts in order of
    their first row), or ``None`` when a column of ``by`` is not one
    :data:`SPLIT_KINDS` column without nulls (the parts are then read event by event)."""
    codes = np.zeros(len(c), dtype=np.int64)
    for name in by:
        found = c.column(name)
        if found is None or found[1] not in SPLIT_KINDS or found[0].null_count:
            return None
        column = found[0].combine_chunks() if isinstance(found[0], pa.ChunkedArray) \
            else found[0]
        encoded = pc.dictionary_encode(column)
        codes = codes * len(encoded.dictionary) + np.asarray(
            encoded.indices.to_numpy(zero_copy_only=False), dtype=np.int64)
    order = np.argsort(codes, kind="stable")        # each part's rows, in stream order
    cuts = np.flatnonzero(np.diff(codes[order])) + 1
    groups = np.split(order, cuts)
    groups.sort(key=lambda rows: int(rows[0]) if len(rows) else 0)
    return groups


def rows_of(c: Columns, rows: np.ndarray) -> Columns:
    """The rows ``rows`` of ``c`` as columns of their own (positions 0..)."""
    return c.take(rows)


def stream_order(m: Match) -> tuple[float, tuple[int, ...]]:
    """Where a streaming run reports ``m``: at its last position (the empty match of
    policy ``literal``, at the end of the stream)."""
    return (m.positions[-1] if m.positions else math.inf, m.positions)


def run_parts(compiled: Any, by: tuple[str, ...], events: Iterable[Event],
              counters: Counters, budget: Budget | None = None) -> Iterator[Match]:
    """The matches of ``compiled`` (a :class:`~kleene.engines.srt.run.CompiledSRT` of the
    body) on every part of ``events`` (module docstring), counted into ``counters``,
    each part within ``budget``."""
    columns = columns_of_source(events)
    groups = split(columns, by) if columns is not None and len(columns) else None
    if groups is not None:
        assert columns is not None
        unit = time_unit_of(events)
        found: list[Match] = []
        together = rows_of(columns, np.concatenate(groups))   # one take, parts in a row
        start = 0
        for rows in groups:
            sub = Stream.from_columns(together.slice(start, start + len(rows)), unit)
            start += len(rows)
            back = rows.tolist()
            found.extend(Match.marked(back[i] for i in m.positions) if m.positions else m
                         for m in compiled.run_one(sub, counters, budget))
        yield from sorted(set(found), key=stream_order)
        return
    runs: dict[object, Any] = {}
    try:
        for u in events:
            key = part_of(u, by)
            ex = runs.get(key)
            if ex is None:
                ex = runs[key] = compiled.execution(counters, budget)
            reported = ex.step(u)
            if reported:
                ex.flush()
                yield from reported
        ends: set[Match] = set()
        for ex in runs.values():
            ex.flush()
            ends.update(ex.finish())
        yield from sorted(ends, key=stream_order)
    finally:
        for ex in runs.values():
            ex.flush()
