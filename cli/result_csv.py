"""``--output FILE.csv``: which cells CSV quotes, and the rows Arrow's own CSV writer
writes as Python's ``csv`` writer does (issue 33, item 1: a writer at the engine's
speed). The other rows are joined by :func:`kleene.cli.result_rows.lines`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import BinaryIO

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from kleene.cli.result_cells import Column

#: Rows Arrow's CSV writer formats at once.
CSV_BATCH = 1 << 16


#: The bytes that make CSV quote a cell: ``,``, ``"``, CR and LF.
_QUOTED = np.frombuffer(b',"\r\n', dtype=np.uint8)


def needs_quotes(texts: pa.Array) -> bool:
    """Whether some cell of ``texts`` holds a byte CSV quotes (:data:`_QUOTED`): one pass
    of NumPy over the cells' bytes (a regular expression per cell costs 10× more)."""
    texts = texts.cast(pa.large_string()) if texts.type == pa.string() else texts
    _, offsets, data = texts.buffers()
    if data is None:
        return False
    bounds = np.frombuffer(offsets, dtype=np.int64, count=len(texts) + 1,
                           offset=texts.offset * 8)
    raw = np.frombuffer(data, dtype=np.uint8)[bounds[0]:bounds[-1]]
    return bool(np.isin(raw, _QUOTED).any())


def csv_quoted(texts: pa.Array) -> pa.Array:
    """CSV's minimal quoting: a cell holding ``,``, ``"``, CR or LF in quotes, its
    quotes doubled."""
    if not needs_quotes(texts):
        return texts
    special = pc.match_substring_regex(texts, '[,"\r\n]')
    doubled = pc.replace_substring(texts, '"', '""')
    return pc.if_else(special, pc.binary_join_element_wise('"', doubled, '"', ""), texts)


def plain_csv(cols: Sequence[Column]) -> pa.Table | None:
    """The rows as a table that Arrow's CSV writer (:func:`write_csv`) writes as
    :func:`lines` does, byte for byte, when every cell is plain: an integer (its digits,
    as ``str``), or text with nothing to quote (no ``,``, ``"``, CR or LF: Arrow's
    ``none`` quoting refuses them); ``None`` when some cell is not (a list, text to
    quote): :func:`lines` writes those rows. A cell of a row that lacks the column, or
    a null, is empty in both."""
    if not cols or not len(cols[0].cells):
        return None
    arrays = {}
    for c in cols:
        arr = c.cells.array
        if c.offsets is not None:
            return None
        if arr is not None and pa.types.is_integer(arr.type) and not c.cells.datetimes:
            cell = arr
        else:
            cell = c.cells.csv()
            if needs_quotes(cell):
                return None
        if c.present is not None and not c.present.all():
            cell = pc.if_else(pa.array(c.present), cell, pa.nulls(len(cell), cell.type))
        arrays[c.name] = cell
    return pa.table(arrays)


def write_csv(plain: pa.Table, out: BinaryIO, header: bool) -> None:
    """Write :func:`plain_csv`'s table to ``out`` by Arrow's CSV writer: nothing quoted
    (the header's names neither: :func:`~kleene.cli.results.column_name` makes them
    plain), CRLF line ends as Python's ``csv`` writes them, a null as an empty cell."""
    import pyarrow.csv as pcsv

    pcsv.write_csv(plain, out, pcsv.WriteOptions(
        include_header=header, batch_size=CSV_BATCH, quoting_style="none",
        quoting_header="none", eol="\r\n"))
