"""Partition keys over columns: the chain over columns keyed by Def. 6's attributes.

Seed 001 Def. 6 partitions a window by the attributes ``X`` whose equalities
``vi.A = vj.A`` connect all the variables of a pattern: every match lies in one
part. The operator reference reads the same ``X`` per match
(:func:`~kleene.reference.operators.policies.partition_attributes`; a pattern
without ``OR`` binds all its variables, so ``X`` is the pattern's): its
``partition-contiguous`` compares the events of the match's part, and Kleene's
``PARTITION BY a`` is the equalities ``v.a = w.a`` for every pair of variables.

Over columns each row gets the *code* of its part (:class:`Keys`): rows share a code
iff they share :func:`~kleene.reference.policies.partition_key` (``=`` holds on
every attribute of ``X``; computed by that function on each distinct value of a
batch), ``-1`` when a row misses a value (a part of its own, in no match: the
equalities that connect its variables are unknown there). Codes and each row's
*rank* in its part (the rows of the part before it) hold across batches for one run.

The chain over columns (:mod:`.join`) then looks candidates up in *keyed order*
(:class:`KeyedView`): each slot's candidates sorted by (code, position), searched by
``code · W + rank of ts`` (the timestamps' dense rank among the piece's
candidates, ``W`` one more than their count), so an instance finds only the
candidates of its own part: the equalities of ``X`` would reject the others
(they still run, exact), and the cost is no longer the product of the
candidates of all parts within a window.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from kleene.data.columnar import Columns as EventColumns
from kleene.data.source import column_batches
from kleene.data.textvalues import TEXT_KIND, text_value
from kleene.engines.nfa.partial import Plan
from kleene.engines.spans import Window
from kleene.reference.events import Event
from kleene.reference.match import Match
from kleene.reference.operators.pattern import OperatorPattern
from kleene.reference.operators.policies import partition_attributes
from kleene.reference.policies import partition_key


def key_attributes(pattern: OperatorPattern, plan: Plan) -> tuple[str, ...]:
    """``X`` of the plan's variables (the reference's own function on a match that
    binds them all; it reads only the variables), ``()`` for a single slot."""
    if len(plan.shape.slots) < 2:
        return ()
    return partition_attributes(pattern, Match.of({s.var: (0,) for s in plan.shape.slots}))


class Keys:
    """The codes and ranks of the rows of one run's batches (see the module docstring)."""

    def __init__(self, attributes: Sequence[str]) -> None:
        self.attributes = tuple(attributes)
        self.codes: dict[object, int] = {}
        self.counts = np.zeros(0, dtype=np.int64)  # rows seen per code

    def of(self, part: EventColumns) -> tuple[np.ndarray, np.ndarray]:
        """Per row of ``part`` (the next rows of the stream): its code and its rank."""
        n = len(part)
        local, values = self._local(part)
        key_of = [partition_key(_event(self.attributes, row), self.attributes) for row in values]
        for k in key_of:
            if k is not None and k not in self.codes:
                self.codes[k] = len(self.codes)
        table = np.array([-1 if k is None else self.codes[k] for k in key_of] or [-1],
                         dtype=np.int64)
        codes = table[local] if n else np.zeros(0, dtype=np.int64)
        if len(self.codes) > len(self.counts):
            self.counts = np.concatenate(
                [self.counts, np.zeros(len(self.codes) - len(self.counts), dtype=np.int64)])
        ranks = np.full(n, -1, dtype=np.int64)
        keyed = np.flatnonzero(codes >= 0)
        if len(keyed):
            c = codes[keyed]
            order = np.argsort(c, kind="stable")
            sc = c[order]
            starts = np.flatnonzero(np.r_[True, sc[1:] != sc[:-1]])
            group = np.repeat(starts, np.diff(np.r_[starts, len(sc)]))
            ranks[keyed[order]] = self.counts[sc] + np.arange(len(sc)) - group
            np.add.at(self.counts, c, 1)
        return codes, ranks

    def _local(self, part: EventColumns) -> tuple[np.ndarray, list[tuple[Any, ...]]]:
        """Per row, the index of its combination of values among ``values``, the distinct
        combinations of the batch (as the reference reads them)."""
        n = len(part)
        indices, uniques = [], []
        for a in self.attributes:
            column = _column(part, a)
            distinct = pc.unique(column)
            indices.append(np.asarray(pc.index_in(column, value_set=distinct, skip_nulls=False)
                                      .to_numpy(zero_copy_only=False), dtype=np.int64))
            vals = distinct.to_pylist()
            if a in part.kinds and part.kinds[a] == TEXT_KIND:
                vals = [v if v is None else text_value(v) for v in vals]
            uniques.append(vals)
        if len(indices) == 1:
            return indices[0], [(v,) for v in uniques[0]]
        combos, local = np.unique(np.stack(indices, axis=1).reshape(n, len(indices)),
                                  axis=0, return_inverse=True)
        return (np.asarray(local, dtype=np.int64).reshape(n),
                [tuple(u[int(i)] for u, i in zip(uniques, row, strict=True)) for row in combos])


def _event(attributes: tuple[str, ...], values: tuple[Any, ...]) -> Event:
    """An event holding ``values`` of ``attributes`` (``ts`` and ``type`` its own)."""
    given = dict(zip(attributes, values, strict=True))
    ts, kind = given.pop("ts", 0), given.pop("type", None)
    return Event(0, 0 if ts is None else ts, kind, given)


def _column(part: EventColumns, name: str) -> Any:
    """The values of attribute ``name`` (``ts`` and ``type`` address the event, as
    :meth:`~kleene.reference.events.Event.value` reads them), nulls where missing."""
    if name == "ts":
        return part.ts.combine_chunks()
    if name == "type":
        return (part.types.combine_chunks() if part.types is not None
                else pa.nulls(len(part), pa.string()))
    if name in part.attrs.column_names:
        column = part.attrs.column(name)
        column = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
        return (column.cast(column.type.value_type) if pa.types.is_dictionary(column.type)
                else column)
    return pa.nulls(len(part), pa.string())


#: The rows :func:`most_in_a_window` reads at most (a stream read in batches: its first).
MOST_ROWS = 1 << 20


def most_in_a_window(events: Any, attributes: Sequence[str], window: Window,
                     rows: int = MOST_ROWS) -> int:
    """The most rows of one part (the codes of :class:`Keys` over ``attributes``; a row
    missing a value is in no part) whose timestamps fit in one ``window``, over the first
    ``rows`` rows of ``events``' columns (``0`` without columns): what the keyed chain's
    cost grows with, the product of one part's candidates within a window."""
    batches = column_batches(events, rows)
    if batches is None:
        return 0
    keys, codes, stamps, read = Keys(attributes), [], [], 0
    for _, part in batches:
        codes.append(keys.of(part)[0])
        stamps.append(np.asarray(part.ts.to_numpy()))
        read += len(part)
        if read >= rows:
            break
    if not codes:
        return 0
    code, ts = np.concatenate(codes), np.concatenate(stamps)   # ts: never decreasing
    # from each row, the rows up to the last that fits with it, of its own part:
    # the part's rows in position order, searched by code · (n + 1) + position
    ends = np.searchsorted(ts, window.latests(ts), "right")
    keyed = np.flatnonzero(code >= 0)
    if not len(keyed):
        return 0
    order = keyed[np.argsort(code[keyed], kind="stable")]
    width = len(code) + 1
    placed = code[order] * width + order
    return int((np.searchsorted(placed, code[order] * width + ends[order], "left")
                - np.arange(len(order))).max())


class KeyedView:
    """One piece's candidates in keyed order, per slot: ``order`` (keyed index → held
    index), ``place`` (its inverse) and ``sorted`` (``code · W + rank of ts``, ascending);
    ``stamps`` the distinct timestamps of all slots' candidates, ``codes`` each slot's
    candidates' parts (held order)."""

    def __init__(self, codes: Sequence[np.ndarray], times: Sequence[np.ndarray]) -> None:
        self.stamps = (np.unique(np.concatenate(list(times))) if times
                       else np.zeros(0))
        self.width = len(self.stamps) + 1
        self.codes = list(codes)
        self.order, self.place, self.sorted = [], [], []
        for c, t in zip(codes, times, strict=True):
            order = np.argsort(c, kind="stable")   # held order is position order
            place = np.empty_like(order)
            place[order] = np.arange(len(order))
            self.order.append(order)
            self.place.append(place)
            self.sorted.append(c[order] * self.width
                               + np.searchsorted(self.stamps, t[order], "left"))

    def after(self, ts: np.ndarray) -> np.ndarray:
        """The rank of the first stamp after each of ``ts``."""
        return np.searchsorted(self.stamps, ts, "right")

    def range(self, slot: int, codes: np.ndarray, lo_rank: np.ndarray,
              hi_rank: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Keyed indices ``[lo, hi)`` of ``slot``'s candidates of part ``codes`` whose
        timestamps' ranks are in ``[lo_rank, hi_rank)``."""
        base = codes * self.width
        keys = self.sorted[slot]
        return (np.searchsorted(keys, base + lo_rank, "left"),
                np.searchsorted(keys, base + np.maximum(hi_rank, lo_rank), "left"))
