"""A partition's rows as the reference's evaluator reads them, from the sorted Arrow input.

The reference's :class:`~kleene.reference.match_recognize.evaluation.Scope` reads a
partition as ``rows[i][j]``; :class:`Rows` answers that from the sorted input's Arrow
columns, converting a column to Python values (as :func:`kleene.data.sql.table_of` does)
only when a measure, an output column or a condition the kernels do not compute first
reads it. :class:`RowCondition` is such a condition, evaluated by the reference at a row
when the run first asks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import numpy as np
import pyarrow as pa

from kleene.engines.match_recognize.order import Sorted
from kleene.reference.match_recognize.ast import Expr
from kleene.reference.match_recognize.evaluation import Scope, holds


class Columns:
    """The sorted input's columns as Python values: a value converted alone while few of
    a column's are read (at its input row, through the sort's order: no column moved), the
    whole column once many are (:data:`WHOLE`)."""

    #: A column is converted whole at its ``len / WHOLE``-th value read.
    WHOLE = 16

    def __init__(self, ordered: Sorted) -> None:
        self.ordered = ordered
        self.table = ordered.table
        self.order = ordered.order
        self.cache: dict[int, list[object]] = {}
        self.reads: dict[int, int] = {}

    def get(self, j: int) -> list[object]:
        """Column ``j``, whole, in sorted order."""
        values = self.cache.get(j)
        if values is None:
            values = self.cache[j] = self.ordered.column(j).to_pylist()
        return values

    def value(self, j: int, i: int) -> object:
        """Column ``j`` at sorted row ``i``."""
        values = self.cache.get(j)
        if values is not None:
            return values[i]
        reads = self.reads[j] = self.reads.get(j, 0) + 1
        if reads * self.WHOLE >= self.table.num_rows:
            return self.get(j)[i]
        # the column's chunks as read (a CSV file's: 81 at ×10), not combined: a copy of
        # the whole column for a few values cost seq3 0.2 CPU s (four columns read by Z)
        return self.table.column(j)[i if self.order is None else int(self.order[i])].as_py()

    def picked(self, j: int, rows: np.ndarray, found: np.ndarray | None = None) -> pa.Array:
        """Column ``j`` at sorted ``rows`` (through the sort's order: no column moved), as
        Arrow; NULL where ``found`` is false."""
        at = rows if self.order is None else self.order[rows]
        indices = pa.array(at, type=pa.int64(), mask=None if found is None else ~found)
        return self.table.column(j).take(indices).combine_chunks()


class _Row(Sequence[object]):
    """Row ``i`` of the sorted input, its values read when asked for."""

    __slots__ = ("columns", "i")

    def __init__(self, columns: Columns, i: int) -> None:
        self.columns, self.i = columns, i

    def __len__(self) -> int:
        return self.columns.table.num_columns

    def __getitem__(self, j: int) -> object:  # type: ignore[override]  # by int only
        return self.columns.value(j, self.i)


class Rows(Sequence[Sequence[object]]):
    """Rows ``lo, …, hi − 1`` of the sorted input, as the reference's ``Scope`` reads a
    partition (``rows[i][j]``), each value converted only if read."""

    def __init__(self, columns: Columns, lo: int, hi: int) -> None:
        self.columns, self.lo, self.hi = columns, lo, hi

    def __len__(self) -> int:
        return self.hi - self.lo

    def value(self, i: int, j: int) -> object:
        """Column ``j`` of row ``i``."""
        return self.columns.value(j, self.lo + i)

    def __getitem__(self, i: int) -> tuple[object, ...]:  # type: ignore[override]  # by int
        # a lazy row where the reference's Recognizer.output types a tuple: it only indexes it
        return cast(tuple[object, ...], _Row(self.columns, self.lo + i))


class RowCondition:
    """A row-local condition the kernels do not compute, evaluated by the reference at
    each row when it is first asked for (a data exception raised then, as there)."""

    def __init__(self, condition: Expr, var: str, rows: Rows, columns: dict[str, int],
                 subsets: dict[str, frozenset[str]]) -> None:
        self.condition, self.var, self.rows = condition, var, rows
        self.columns, self.subsets = columns, subsets
        self.known: dict[int, bool] = {}

    def __getitem__(self, row: int) -> bool:
        known = self.known.get(row)
        if known is None:
            scope = Scope(self.rows, self.columns, row, (self.var,), 1, 0, self.subsets)
            known = self.known[row] = holds(self.condition, scope)
        return known
