"""The per-key state of a continuous ``MATCH_RECOGNIZE`` and one micro-batch's advance.

docs/match-recognize-spark.md, "Continuous". Pure Python and Arrow (no Spark): the
micro-batch of :mod:`.recognition` hands :meth:`Recognitions.advance` the rows it settled
(every row with ``ts`` below the watermark, in arrival order); each ``PARTITION BY`` key
keeps the rows a search can still read (from its cursor less the clause's ``PREV`` reach,
:func:`kleene.reference.match_recognize.finality.reach`) and its cursor (the row the next
search starts at, ``MATCH_NUMBER`` so far, the end of the last match), and
:func:`~kleene.reference.match_recognize.finality.settle` says which output rows no later
row can change (the engine's run computes it as far as it can,
:class:`~kleene.engines.match_recognize.settling.Settler`). Those are returned, in the
order of the keys' first rows; the rest waits.

The settled rows of a micro-batch all sort after the rows settled before (the first
``ORDER BY`` key is the event time, ascending, and a row below the watermark arrived
late), so a key's new rows, ordered as the reference orders a partition (the ``ORDER BY``
keys, ties in arrival order), are appended to its tail.

The state is two Arrow tables for the store (:meth:`Recognitions.tables`,
:meth:`Recognitions.from_tables`): ``tails`` (the kept rows, with their key's number) and
``cursors`` (each key's values, first kept row and cursor).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from kleene.data.sql import arrow_of, table_of
from kleene.engines.match_recognize.order import ordered
from kleene.engines.match_recognize.settling import Settler
from kleene.reference.budget import Budget
from kleene.reference.match_recognize.ast import Column, MatchRecognize
from kleene.reference.match_recognize.finality import reach
from kleene.reference.match_recognize.semantics import (
    Cursor,
    Recognizer,
    Row,
    keyed_partitions,
)
from kleene.reference.match_recognize.table import Table

#: Internal columns of the state tables: a row's key number; a key's first kept row and
#: cursor.
KEY, BASE, POS, NUMBER, COVERED = ("_kleene_key", "_kleene_base", "_kleene_pos",
                                   "_kleene_number", "_kleene_covered")


@dataclass
class Part:
    """One key's state: the rows from partition index ``base`` on (Arrow, the
    recognition's schema), and its cursor."""

    rows: pa.Table
    base: int = 0
    cursor: Cursor = Cursor()


class Recognitions:
    """The state of one continuous recognition of ``clause`` over rows of ``schema``."""

    def __init__(self, clause: MatchRecognize, schema: pa.Schema) -> None:
        self.clause, self.schema = clause, schema
        self.names = tuple(schema.names)
        self.back = reach(clause).back
        self.parts: dict[tuple[object, ...], Part] = {}
        self.output_names = Recognizer(clause, Table(self.names, ()), Budget()).names()
        self.settler = Settler(clause, schema)

    def advance(self, settled: pa.Table, *, floor: object = None, ended: bool = False,
                budget: Budget | None = None) -> Table:
        """Take the rows settled now (``settled``, in arrival order; every later row sorts
        at or above ``floor`` on the first ``ORDER BY`` key, ``None``: unknown; ``ended``:
        none follows) and return the output rows that became final."""
        budget = budget or Budget(what="recognizing a row pattern")
        new = self._by_key(settled.select(list(self.names)).cast(self.schema))
        for key, rows in new.items():
            part = self.parts.setdefault(key, Part(self.schema.empty_table()))
            part.rows = pa.concat_tables([part.rows, rows]) if part.rows.num_rows else rows
        revisit = self.parts if ended or (self.clause.within is not None
                                          and floor is not None) else new
        out: list[Row] = []
        for key in [k for k in self.parts if k in revisit]:
            part = self.parts[key]
            if part.base + part.rows.num_rows <= part.cursor.pos:
                continue
            done = self.settler.settle(part.rows, base=part.base, cursor=part.cursor,
                                       floor=floor, ended=ended, budget=budget)
            out.extend(done.rows)
            keep = max(part.base, done.cursor.pos - self.back)
            part.rows = part.rows.slice(keep - part.base)
            part.base, part.cursor = keep, done.cursor
        return Table(self.output_names, tuple(out))

    def _by_key(self, settled: pa.Table) -> dict[tuple[object, ...], pa.Table]:
        """The settled rows by key (keys in order of their first row), each key's in
        ``ORDER BY`` order, ties in arrival order: the reference's
        :func:`~kleene.reference.match_recognize.semantics.keyed_partitions`, sorted by
        Arrow (:func:`kleene.engines.match_recognize.order.ordered`, the single process's
        order), each key's rows a slice. A floating-point key (NaN is no key equal to
        itself in the reference) is grouped by the reference."""
        keys = [Table(self.names, ()).index(e.name) for e in self.clause.partition_by
                if isinstance(e, Column)]
        if settled.num_rows == 0 or len(keys) != len(self.clause.partition_by) or any(
                pa.types.is_floating(settled.schema.field(i).type) for i in keys):
            return {key: arrow_of(Table(self.names, tuple(rows)), like=self.schema)
                    for key, rows in keyed_partitions(self.clause, table_of(settled)).items()}
        order, ranks = ordered(self.clause, settled)
        rows = settled.take(pa.array(order))
        edges = [0, *(np.flatnonzero(np.diff(ranks)) + 1).tolist(), rows.num_rows]
        firsts = [rows.column(i).take(pa.array(edges[:-1])).to_pylist() for i in keys]
        values = list(zip(*firsts, strict=True)) if keys else [()] * (len(edges) - 1)
        return {tuple(key): rows.slice(lo, hi - lo)
                for key, lo, hi in zip(values, edges, edges[1:], strict=False)}

    def tables(self) -> dict[str, pa.Table]:
        """The state as Arrow tables (module docstring)."""
        keys = list(self.parts)
        kept = [p.rows for p in self.parts.values()]
        tails = pa.concat_tables(kept).combine_chunks() \
            if any(t.num_rows for t in kept) else None
        if tails is not None:
            tails = tails.append_column(KEY, pa.array(np.repeat(
                np.arange(len(kept), dtype=np.int64), [t.num_rows for t in kept])))
        columns: dict[str, Any] = {f"_k{j}": pa.array([k[j] for k in keys])
                                   for j in range(len(self.clause.partition_by))}
        for name, values in ((BASE, [p.base for p in self.parts.values()]),
                             (POS, [p.cursor.pos for p in self.parts.values()]),
                             (NUMBER, [p.cursor.number for p in self.parts.values()]),
                             (COVERED, [p.cursor.covered for p in self.parts.values()])):
            columns[name] = pa.array(values, pa.int64())
        return {"tails": tails, "cursors": pa.table(columns) if keys else None}

    @classmethod
    def from_tables(cls, clause: MatchRecognize, schema: pa.Schema,
                    tables: dict[str, pa.Table]) -> Recognitions:
        """The state :meth:`tables` wrote (none: the start)."""
        state = cls(clause, schema)
        cursors = tables.get("cursors")
        if cursors is None:
            return state
        width = len(clause.partition_by)
        keyed = table_of(cursors)
        parts = []
        for row in keyed.rows:
            key, (base, pos, number, covered) = tuple(row[:width]), row[width:]
            part = Part(state.schema.empty_table(), _int(base),
                        Cursor(_int(pos), _int(number), _int(covered)))
            state.parts[key] = part
            parts.append(part)
        tails = tables.get("tails")
        if tails is not None:
            which = tails.column(KEY).to_numpy()
            rows = pa.Table.from_arrays(tails.drop_columns([KEY]).columns, schema=schema)
            for i, part in enumerate(parts):
                part.rows = rows.filter(pa.array(which == i))
        return state


def _int(value: object) -> int:
    assert isinstance(value, int)
    return value


__all__ = ["Part", "Recognitions"]
