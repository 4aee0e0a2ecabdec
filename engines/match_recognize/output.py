"""``ONE ROW PER MATCH`` output built as Arrow from the matches' columns, no Python row.

A partition run by the compiled loop whose measures are all read off the matches'
variables (:func:`.measures.column_reader`) hands its output over as a :class:`Block`: per
output column, the rows of the sorted input it is read at (:class:`~.measures.Picked`: a
partition key at each match's last row, ``v.x``, ``FIRST``/``LAST``) or its Python values
(``MATCH_NUMBER()``, ``COUNT``, ``CLASSIFIER()``). :func:`table` builds the recognition's
output from every partition's blocks with one Arrow ``take`` per column, and it is the
table :func:`kleene.data.sql.arrow_of` builds from the same rows (the reference's output
converted as the statement runner converts it): a column read from the input keeps its
Arrow values, typed by :func:`typed`, which is ``arrow_of``'s rule restated for a column
of integers, floats, text or booleans; any other column goes through ``arrow_of``'s own
rule (:func:`~kleene.data.sql.arrow_column`) over its Python values.

Profiling the V shape over the stock stream ×10 (docs/benchmarks.md, "The last steps
toward 10×"): its 60,427 output rows were built as Python tuples, then split back into
columns and typed value by value.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from kleene.data.sql import arrow_column, kept_types
from kleene.engines.match_recognize.measures import Cell, Picked
from kleene.engines.match_recognize.rows import Columns


@dataclass(frozen=True)
class Block:
    """A partition's ``size`` output rows as columns (module docstring), one cell each."""

    cells: tuple[Cell, ...]
    size: int

    def rows(self, columns: Columns) -> list[tuple[object, ...]]:
        """The rows as the reference's output holds them (``columns``: the sorted input)."""
        values = [values_of(c, columns) for c in self.cells]
        return list(zip(*values, strict=True)) if values else [()] * self.size


def values_of(cell: Cell, columns: Columns) -> list[object]:
    """A cell's Python values (``columns``: the sorted input)."""
    if isinstance(cell, Picked):
        return columns.picked(cell.j, cell.rows, cell.found).to_pylist()
    return cell


def table(names: Sequence[str], blocks: Sequence[Block], columns: Columns,
          like: pa.Schema) -> pa.Table:
    """The output table of ``blocks`` (in order; each of the columns ``names``), as
    :func:`~kleene.data.sql.arrow_of` converts the same rows ``like`` the input's schema
    (module docstring)."""
    source = kept_types(like)
    arrays = []
    for k, name in enumerate(names):
        cells = [b.cells[k] for b in blocks]
        picks = [c for c in cells if isinstance(c, Picked)]
        if len(picks) == len(cells) and len({c.j for c in picks}) == 1:
            found = [np.ones(len(c.rows), dtype=bool) if c.found is None else c.found
                     for c in picks]
            read = columns.picked(picks[0].j, np.concatenate([c.rows for c in picks]),
                                  np.concatenate(found))
            array = typed(read, name, source)
            values = read.to_pylist() if array is None else []
        else:
            array, values = None, [v for c in cells for v in values_of(c, columns)]
        arrays.append(array if array is not None else arrow_column(values, name, source))
    return pa.Table.from_arrays(arrays, names=list(names))


def typed(array: pa.Array, name: str, source: Mapping[str, pa.DataType]) -> pa.Array | None:
    """``arrow_column(array.to_pylist(), name, source)`` from the Arrow values themselves,
    where ``array`` holds integers (not ``uint64``, whose values may pass ``int64``'s),
    ``float32``/``float64``, text or booleans; else ``None``. The rule
    (:func:`~kleene.data.sql.arrow_column`): a source column of the same name keeps its
    type where the values fit it, and an array's own values fit its own type; otherwise
    the values' type (:func:`~kleene.data.sql.arrow_type`): all NULL ``null``, Python
    ``int`` ``int64``, ``float`` ``float64``, ``str`` ``string``, ``bool`` ``bool``."""
    kind = array.type
    integer = pa.types.is_integer(kind) and kind != pa.uint64()
    floating = kind in (pa.float32(), pa.float64())
    text = kind in (pa.string(), pa.large_string())
    if not (integer or floating or text or kind == pa.bool_()):
        return None
    kept = source.get(name.upper())
    if kept is not None:
        return array if kept == kind else None
    if array.null_count == len(array):
        return pa.nulls(len(array))
    if integer:
        return array.cast(pa.int64())
    if floating:
        return array.cast(pa.float64())
    return array.cast(pa.string()) if text else array
