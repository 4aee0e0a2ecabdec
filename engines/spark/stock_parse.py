"""Stock lines parsed and typed inside a Spark task (:mod:`.stock_arrow`'s reading job).

The lines of a task come from a local split (:mod:`.text_splits`), parsed
:data:`BLOCK` bytes at a time as the single process's batched reader parses them
(:mod:`kleene.data.batches`: Arrow's streaming CSV reader and
:func:`kleene.data.stock.split_fields`), or from the batches of ``spark.read.text``.
Each block's fields are typed by the cell rule of :mod:`kleene.data.textvalues`
(:func:`flags`: whether some cell is no integer literal, no number literal), and a
split's blocks are then given one type per field (:func:`agreed`), the type the
field's cells of the whole split say; issue 33 item 2 (docs/benchmarks.md, "Where the
CPU of ``kleene match --spark`` goes") measured the blocks against the split parsed
whole.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from kleene.data import textvalues as tv
from kleene.data.stock import read_options, split_fields
from kleene.engines.spark.text_splits import Splits, read_split

#: Bytes of a split parsed at a time: the block of the single process's batched reader
#: (:mod:`kleene.data.batches`), whose columns stay in the CPU's caches while their
#: kernels run (a 125 MB split of the stock stream ×100 parsed whole went through every
#: kernel from memory; docs/benchmarks.md, "Where the CPU of ``kleene match --spark``
#: goes").
BLOCK = 1 << 22


def lines_of(batch: Any) -> Any:
    """The non-blank lines of a batch of ``spark.read.text`` (what the loaders skip)."""
    import pyarrow.compute as pc

    value = batch.column(0)
    return value.filter(pc.not_equal(pc.utf8_trim_whitespace(value), ""))


def fields(lines: Any, keys: Sequence[str]) -> Any:
    """The lines cut into ``type`` and one text column per key, by the loader's reader;
    ``None`` when a line is laid out otherwise."""
    import pyarrow as pa
    import pyarrow.compute as pc

    joined = pc.binary_join(pa.ListArray.from_arrays(pa.array([0, len(lines)], pa.int32()),
                                                     lines), "\n")[0]
    table = parse(joined.as_buffer(), keys)
    return table if table is None or table.num_rows == len(lines) else None


def blocks(data: Any, keys: Sequence[str], block: int = BLOCK) -> Iterator[Any]:
    """The lines of ``data`` (an Arrow buffer of whole lines, not blank) parsed
    ``block`` bytes at a time as the single process's batched reader parses them
    (Arrow's streaming CSV reader, :func:`kleene.data.stock.split_fields`): the text
    columns ``type`` and one per key of each block; ``None`` for a block where a line
    is laid out otherwise (and nothing after it)."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    try:
        for batch in pacsv.open_csv(pa.BufferReader(data), **read_options(list(keys), block)):
            table = split_fields(pa.Table.from_batches([batch]), list(keys))
            yield table
            if table is None:
                return
    except pa.ArrowInvalid:     # a line with another number of fields
        yield None


def parse(data: Any, keys: Sequence[str]) -> Any:
    """Lines of text (an Arrow buffer, not blank) as one table of text columns
    (:func:`blocks`), ``None`` when a line is laid out otherwise."""
    import pyarrow as pa

    tables = list(blocks(data, keys))
    return None if not tables or any(t is None for t in tables) else pa.concat_tables(tables)


def blank(data: Any) -> bool:
    """Whether ``data`` (a split, :func:`.text_splits.read_split`) holds no line: its
    first bytes say so unless they are all whitespace (a split is up to 128 MB)."""
    head = data[:4096].to_pybytes()
    return not head or (head.isspace() and data.to_pybytes().isspace())


def tables(keys: Sequence[str], splits: Splits | None, batches: Iterator[Any],
           block: int = BLOCK) -> Iterator[Any]:
    """The lines of this task parsed, a table at a time (``None``: a line laid out
    otherwise): from the batches of ``spark.read.text``, or read from the split a
    block at a time (:func:`blocks`)."""
    if splits is None:
        for batch in batches:
            lines = lines_of(batch)
            if len(lines):
                yield fields(lines, keys)
        return
    for batch in batches:
        for part in batch.column(0).to_pylist():
            data = read_split(splits, part)
            if not blank(data):
                yield from blocks(data, keys, block)


def flags(column: Any) -> tuple[bool, bool, Any]:
    """Whether some cell is no integer literal (or one beyond 64 bits), whether some
    is no number literal, and the cells as numbers when they all are (else ``None``)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    arr, kind = tv.typed_column(column)
    if kind == tv.INT_KIND:
        return False, False, arr
    if kind == tv.FLOAT_KIND:
        return True, False, arr
    if kind == tv.STR_KIND and column.null_count < len(column):
        return True, True, None     # a cell and no number among them: no regex pass
    nums = pc.sum(pc.match_substring_regex(column, tv.NUM_RE)).as_py() or 0
    if nums < len(column) - column.null_count:
        return True, True, None
    return True, False, pa.array(tv.text_kinds(column)[1], pa.float64())


def agreed(keys: Sequence[str], parsed: list[Any], nonint: Sequence[bool],
           nonnum: Sequence[bool]) -> list[Any] | None:
    """The parsed blocks of a split (``type`` and each field as numbers where the block's
    cells all are, else as text) with one type per field across them: numbers where every
    cell of the split is one (``float64`` where some is no integer literal, the others
    cast as :func:`flags` reads the column whole), else text; ``None`` when a field is
    numbers in one block and text in another (the first block's text is gone: the engine
    stage parses the split again, :func:`.stock_arrow.split_events`)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    out = []
    for table in parsed:
        cells = [table.column("type")]
        for i, key in enumerate(keys):
            column = table.column(key)
            if nonnum[i] != pa.types.is_string(column.type):
                return None
            if nonint[i] and not nonnum[i]:
                column = pc.cast(column, pa.float64(), safe=False)   # beyond 2**53 rounds
            cells.append(column)
        out.append(pa.table(cells, names=["type", *keys]))
    return out
