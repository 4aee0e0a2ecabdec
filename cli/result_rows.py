"""``--output``'s match rows built as Arrow arrays, and written as JSON Lines, CSV or
Parquet (issue 33, item 1: a writer at the engine's speed).

The matches go in as :class:`~kleene.engines.match_columns.MatchColumns` (each
variable's positions as one flat array), are put in canonical order by one sort
(first position, then the canonical JSON of Arrow's string kernels), and every
column of a layout is an index into the events' columns (``take``): no Python object
per match or row. A loaded stream's columns are read as they are; events held as
Python objects (a Spark run's collected rows) as their values. The rows, the columns
and every byte written are those :mod:`kleene.cli.results` documents
(tests/test_result_rows.py: outputs of the former per-match writer, by hand).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, BinaryIO

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from kleene.cli.result_cells import Cells, Column, column_cells, value_cells
from kleene.cli.result_csv import csv_quoted, plain_csv, write_csv
from kleene.engines.match_columns import MatchColumns, arrow_ints, offsets_of
from kleene.reference.events import Event

#: Rows encoded as text at once.
BATCH = 1 << 16


@dataclass(frozen=True)
class Ordered:
    """The matches in canonical order: ``variables`` (the layout's order), each match's
    number of positions per variable (``lengths[v]``) and their positions, flat."""

    variables: tuple[str, ...]
    lengths: tuple[np.ndarray, ...]
    positions: tuple[np.ndarray, ...]

    def __len__(self) -> int:
        return len(self.lengths[0]) if self.lengths else 0


def ordered(found: Sequence[MatchColumns], variables: Sequence[str]) -> Ordered:
    """``found`` in canonical order (first position, then canonical JSON), the variables
    in ``variables``' order, any other by name (as ``kleene match`` prints them)."""
    names = list(variables) + sorted({v for g in found for v in g.variables} - set(variables))
    found = [g for g in found if len(g)]
    if not found:
        return Ordered(tuple(names), tuple(np.zeros(0, np.int64) for _ in names),
                       tuple(np.zeros(0, np.int64) for _ in names))
    first = np.concatenate([g.first() for g in found])
    texts = pa.chunked_array([g.text_array() for g in found], pa.string())
    order = pc.sort_indices(pa.table({"first": first, "text": texts}),
                            sort_keys=[("first", "ascending"), ("text", "ascending")])
    lengths, positions = [], []
    for v in names:
        parts, flat = [], []
        for g in found:
            if v in g.variables:
                i = g.variables.index(v)
                parts.append(g.lengths(i))
                flat.append(g.positions[i])
            else:
                parts.append(np.zeros(len(g), np.int64))
        lists = pa.LargeListArray.from_arrays(
            pa.array(offsets_of(np.concatenate(parts))),
            pa.array(np.concatenate(flat) if flat else np.zeros(0, np.int64))).take(order)
        lengths.append(pc.list_value_length(lists).to_numpy(zero_copy_only=False)
                       .astype(np.int64))
        positions.append(lists.flatten().to_numpy(zero_copy_only=False).astype(np.int64))
    return Ordered(tuple(names), tuple(lengths), tuple(positions))


class EventCells:
    """The events' cells at any positions: a loaded stream's columns (``columns``: row
    ``p`` is position ``p``), or events held as Python objects (a sequence or a mapping
    from position to event)."""

    def __init__(self, stream: Sequence[Event] | Mapping[int, Event], datetimes: bool) -> None:
        self.columns = getattr(stream, "columns", None)
        self.stream, self.datetimes = stream, datetimes
        self._whole: dict[str, Cells | None] = {}   # attribute → the whole column's cells

    def cells(self, attr: str, positions: np.ndarray) -> Cells:
        """Attribute ``attr`` (``ts``: the timestamps, as the layout's own) at
        ``positions``."""
        rows = pa.array(positions.astype(np.int64))
        if self.columns is not None:
            whole = self._column(attr)
            if whole is None:
                return value_cells([None] * len(positions))
            cells = whole.take(rows)
            return Cells(cells.array, datetimes=True) if attr == "ts" and self.datetimes \
                else cells
        events = [self.stream[p] for p in positions.tolist()]
        if attr == "ts":
            return Cells(pa.array([e.ts for e in events]), datetimes=self.datetimes)
        return value_cells([e.value(attr) for e in events])

    def _column(self, attr: str) -> Cells | None:
        """The cells of the stream's whole column ``attr`` (``None``: no such column),
        made once for every batch of rows."""
        if attr not in self._whole:
            assert self.columns is not None
            found = self.columns.column(attr)
            self._whole[attr] = None if found is None else \
                column_cells(found[0], None if attr == "ts" else found[1])
        return self._whole[attr]


def long_columns(m: Ordered, events: EventCells, named: Sequence[str],
                 attrs: Sequence[str], numbered_from: int = 0) -> list[Column]:
    """The long layout: a row per match, variable and event (the matches numbered from
    ``numbered_from``)."""
    per_match = np.add.reduce(m.lengths) if m.lengths else np.zeros(0, np.int64)
    total = int(per_match.sum())
    position = np.zeros(total, np.int64)
    variable = np.zeros(total, np.int32)
    start = offsets_of(per_match)[:-1]
    for i, (lengths, flat) in enumerate(zip(m.lengths, m.positions, strict=True)):
        own = offsets_of(lengths)
        dest = np.repeat(start, lengths) + np.arange(len(flat)) - np.repeat(own[:-1], lengths)
        position[dest] = flat
        variable[dest] = i
        start = start + lengths
    match = np.repeat(np.arange(numbered_from, numbered_from + len(m), dtype=np.int64),
                      per_match)
    names = Cells(values=list(m.variables), index=arrow_ints(variable))
    # every column after the match's number is of the row's variable and event
    by = position * max(1, len(m.variables)) + variable
    cols = [Column("match", Cells(pa.array(match))), Column("variable", names, by=by),
            Column("position", Cells(pa.array(position)), by=by),
            Column("ts", events.cells("ts", position), by=by)]
    cols += [Column(n, events.cells(a, position), by=by)
             for n, a in zip(named, attrs, strict=True)]
    return cols


def wide_columns(m: Ordered, events: EventCells, named: Sequence[str],
                 columns: Sequence[tuple[str, str]], variables: Sequence[str],
                 repeated: frozenset[str] = frozenset(),
                 numbered_from: int = 0) -> list[Column]:
    """The wide layout: a row per match (numbered from ``numbered_from``). A ``--columns`` cell
    of a variable is a list in every row when the variable binds several events
    (``repeated``: the pattern's group variables, and, where the rows are written in
    batches, those that bind other than one event in some match of any batch), or when
    it does in some match of ``m``; else the value itself — never a list in one row and
    a value in another (a column of one type: Parquet, SQL)."""
    n = len(m)
    big = np.iinfo(np.int64).max
    firsts, lasts = np.full(n, big), np.full(n, -1)
    for lengths, flat in zip(m.lengths, m.positions, strict=True):
        own, bound = offsets_of(lengths), lengths > 0
        firsts[bound] = np.minimum(firsts[bound], flat[own[:-1][bound]])
        lasts[bound] = np.maximum(lasts[bound], flat[own[1:][bound] - 1])
    cols = [Column("match", Cells(pa.array(np.arange(numbered_from, numbered_from + n,
                                                     dtype=np.int64)))),
            Column("first_ts", events.cells("ts", firsts)),
            Column("last_ts", events.cells("ts", lasts))]
    if not columns:
        for name, v in zip(named, variables, strict=True):
            i = m.variables.index(v)
            cols.append(Column(name, Cells(pa.array(m.positions[i])),
                               offsets_of(m.lengths[i]), m.lengths[i] > 0))
        return cols
    for (var, attr), name in zip(columns, named, strict=True):
        binds = var in m.variables
        i = m.variables.index(var) if binds else 0
        lengths = m.lengths[i] if binds else np.zeros(n, np.int64)
        flat = m.positions[i] if binds else np.zeros(0, np.int64)
        listed = var in repeated or not (lengths == 1).all()
        cols.append(Column(name, events.cells(attr, flat),
                           offsets_of(lengths) if listed else None))
    return cols


def _lists(col: Column, texts: pa.Array) -> pa.Array:
    """Each row's list of ``texts`` as JSON: ``[a, b]``."""
    assert col.offsets is not None
    lists = pa.LargeListArray.from_arrays(pa.array(col.offsets), texts)
    return pc.binary_join_element_wise("[", pc.binary_join(lists, ", "), "]", "")


def json_texts(col: Column) -> pa.Array:
    """The column's cells as JSON."""
    if col.offsets is None:
        return col.cells.json()
    return _lists(col, col.cells.json())


def csv_texts(col: Column) -> pa.Array:
    """The column's cells as CSV writes them, before quoting."""
    if col.offsets is None:
        return col.cells.csv()
    return _lists(col, col.cells.json(ascii=True))


def typed(col: Column) -> pa.Array:
    """The column as Parquet holds it (``pyarrow.array`` of the rows' values)."""
    values = col.cells.typed()
    if col.offsets is not None:
        values = pa.LargeListArray.from_arrays(pa.array(col.offsets), values) \
            .cast(pa.list_(values.type))
    if col.present is not None and not col.present.all():
        values = pc.if_else(pa.array(col.present), values, pa.nulls(len(values), values.type))
    return values


def table(cols: Sequence[Column], names: Collection[str] | None = None) -> pa.Table:
    """The rows as an Arrow table (the Parquet file's), the columns of the first row
    (``names``: those columns, the first row of an earlier batch's)."""
    if not cols or not len(cols[0].cells):
        return pa.table({c.name: pa.array([], pa.null()) for c in cols})
    kept = [c for c in cols if c.present is None or c.present[0]] if names is None \
        else [c for c in cols if c.name in names]
    return pa.table({c.name: typed(c) for c in kept})


def lines(cols: Sequence[Column], fmt: str, header: bool = True) -> Iterator[bytes | pa.Buffer]:
    """The rows as JSON Lines or CSV text (a header line first, if ``header``),
    :data:`BATCH` rows at a time; consecutive columns of one ``by`` (:class:`Column`) as
    one text per distinct ``by`` (:func:`_by_position`)."""
    n = len(cols[0].cells) if cols else 0
    if fmt == "csv" and header:
        yield (",".join(c.name for c in cols) + "\r\n").encode()
    runs, k = [], 0        # runs of consecutive columns of one `by` (or one column)
    while k < len(cols):
        j = k + 1
        while cols[k].by is not None and j < len(cols) and cols[j].by is cols[k].by:
            j += 1
        runs.append((k, j))
        k = j
    for lo in range(0, n, BATCH):
        hi = min(lo + BATCH, n)
        parts: list[Any] = []
        for k, j in runs:
            run = [(_sliced(c, lo, hi), i == 0, i == len(cols) - 1)
                   for i, c in enumerate(cols[k:j], start=k)]
            parts += _by_position(run, fmt) if cols[k].by is not None else \
                _cell_parts(*run[0], fmt)
        if fmt != "csv":
            parts.append("}\n")
        yield text_buffer(pc.binary_join_element_wise(*parts, ""))


def _cell_parts(c: Column, first: bool, last: bool, fmt: str) -> list[Any]:
    """Column ``c``'s cells as ``fmt`` writes them in a row, with what goes before (JSON:
    the key) or after (CSV: the separator); ``first`` or ``last`` column of the row."""
    if fmt == "csv":
        cell = csv_quoted(csv_texts(c))
        if c.present is not None:
            cell = pc.if_else(pa.array(c.present), cell, "")
        return [cell, "\r\n" if last else ","]
    head = ("{" if first else ", ") + _json_key(c.name) + ": "
    if c.present is None:
        return [head, json_texts(c)]
    cell = pc.binary_join_element_wise(head, json_texts(c), "")
    return [pc.if_else(pa.array(c.present), cell, "")]


def _by_position(run: Sequence[tuple[Column, bool, bool]], fmt: str) -> list[Any]:
    """The parts of :func:`_cell_parts` of columns of one ``by``, as one text per row,
    made once per distinct ``by`` and taken into the rows."""
    by = run[0][0].by
    assert by is not None
    coded = pc.dictionary_encode(arrow_ints(by))
    one = np.empty(len(coded.dictionary), np.int64)
    one[coded.indices.to_numpy()] = np.arange(len(coded.indices))   # a row of each
    rows = arrow_ints(one)
    parts = [p for c, first, last in run for p in _cell_parts(_taken(c, rows), first, last, fmt)]
    return [pc.binary_join_element_wise(*parts, "").take(coded.indices)]


def _taken(c: Column, rows: pa.Array) -> Column:
    """Column ``c`` (of scalars) at ``rows``."""
    assert c.offsets is None
    return replace(c, cells=c.cells.take(rows),
                   present=None if c.present is None else c.present[rows.to_numpy()])


def _json_key(name: str) -> str:
    return json.dumps(name, ensure_ascii=False)


def _sliced(c: Column, lo: int, hi: int) -> Column:
    """Column ``c`` at the rows ``lo`` to ``hi`` (a slice: no copy)."""
    present = None if c.present is None else c.present[lo:hi]
    if c.offsets is None:
        by = None if c.by is None else c.by[lo:hi]
        return replace(c, cells=c.cells.slice(lo, hi), present=present, by=by)
    own = c.offsets[lo:hi + 1]
    return replace(c, cells=c.cells.slice(int(own[0]), int(own[-1])), offsets=own - own[0],
                   present=present)


def text_bytes(texts: pa.Array) -> bytes:
    """The strings of ``texts`` one after another."""
    return text_buffer(texts).to_pybytes()


def text_buffer(texts: pa.Array) -> pa.Buffer:
    """:func:`text_bytes` as a slice of the array's own buffer (no copy)."""
    texts = texts.cast(pa.large_string()) if texts.type == pa.string() else texts
    _, offsets, data = texts.buffers()
    if data is None:
        return pa.py_buffer(b"")
    bounds = np.frombuffer(offsets, dtype=np.int64, count=len(texts) + 1,
                           offset=texts.offset * 8)
    return data.slice(int(bounds[0]), int(bounds[-1] - bounds[0]))


def write_to(batches: Iterable[Sequence[Column]], out: BinaryIO, fmt: str) -> None:
    """Write the rows of ``batches`` (at least one; each the columns of a layout, the
    matches numbered on from the batch before) to ``out`` as ``fmt``, a batch at a
    time: the columns, the header and the Parquet schema are the first batch's."""
    if fmt != "parquet":
        for k, cols in enumerate(batches):
            plain = plain_csv(cols) if fmt == "csv" else None
            if plain is not None:
                write_csv(plain, out, k == 0)
                continue
            for chunk in lines(cols, fmt, header=k == 0):
                out.write(chunk)
        return
    import pyarrow.parquet as pq

    writer: pq.ParquetWriter | None = None
    try:
        for cols in batches:
            if writer is None:
                first = table(cols)
                writer = pq.ParquetWriter(out, first.schema)
                writer.write_table(first)
            elif len(cols[0].cells):
                writer.write_table(table(cols, first.column_names).cast(first.schema))
    finally:
        if writer is not None:
            writer.close()
