"""A CSV file read by ``pyarrow.csv`` under DuckDB's own reading of it, or not at all.

The table doors (``kleene match`` on ``MATCH_RECOGNIZE``, ``kleene.match_recognize``) read
a CSV file as DuckDB's ``read_csv`` reads it (:func:`kleene.data.sql.run_over`): its
sniffer decides the dialect, whether the first line is a header, and each column's type,
and the SQL around the recognition sees those values. DuckDB's parse is most of the door's
time from a CSV file (docs/benchmarks.md, "Where the time went"); ``pyarrow.csv`` parses
the same file in a fraction of it. :func:`fast_csv` asks DuckDB for its sniffer's answer
only (``sniff_csv``: a sample of the file, not the parse), reads the file with
``pyarrow.csv`` under exactly that dialect and those column types, and returns the table,
or ``None`` (*declines*: the door then reads the file with DuckDB, as before) whenever the
two readers could differ. The rule, every part of which is a case where they do or could:

- the file is plain (not gzipped), UTF-8, of two or more columns (in a one-column file an
  empty line is a NULL row to DuckDB), its first line the header, exactly the column
  names DuckDB gives (DuckDB trims, renames ``a,a`` to ``a, a_1`` and an empty name to
  ``column1``), no line skipped, no comment character;
- the sniffed dialect quotes nothing (``Quote`` empty): a quoted field is read by DuckDB
  with the spaces around its quotes dropped, by Arrow with them kept, so a file whose
  sample holds a quote is left to DuckDB; a quote further on is then a plain character to
  both readers;
- one line ending throughout, ``\\n`` or ``\\r\\n`` as sniffed (DuckDB refuses a file that
  mixes them; Arrow reads any);
- every column is ``BIGINT``, ``DOUBLE`` or ``VARCHAR`` (a date, time, timestamp or
  boolean is parsed by rules of DuckDB's own);
- every value parses under its column's type by Arrow: DuckDB's sniffer types a column
  from a sample, and reads a later ``1.5`` in a ``BIGINT`` column as 2, where Arrow
  stops; an empty cell is NULL to both, and a ``NULL`` spelled out is text to both
  (``VARCHAR``; DuckDB's only null string is the empty one);
- no ``0x`` or ``0X`` anywhere in a file with a ``BIGINT`` column (Arrow reads
  ``0xFFFFFFFFFFFFFFFF`` as -1, DuckDB refuses it);
- no text value is longer than :data:`LONGEST` bytes (DuckDB refuses a line longer than
  its ``max_line_size``, 2 MB).

``tests/test_csvfast.py`` checks the rule: on drawn files (numbers spelt several ways,
text with quotes, commas and spaces, empty cells, ``NULL``, dates) the table equals
DuckDB's value for value, or the reader declined.
"""

from __future__ import annotations

import mmap
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

#: Arrow's type of each column type the fast path reads (DuckDB's Arrow output's types).
TYPES = {"BIGINT": pa.int64(), "DOUBLE": pa.float64(), "VARCHAR": pa.string()}
#: The line endings read, as ``sniff_csv`` spells them.
NEWLINES = {"\\n": b"\n", "\\r\\n": b"\r\n"}
#: The longest text value read (bytes): DuckDB's ``max_line_size`` is 2,097,152.
LONGEST = 1 << 20
#: How ``sniff_csv`` says "none".
NONE = "(empty)"
BOM = b"\xef\xbb\xbf"


def fast_csv(path: Path, connection: duckdb.DuckDBPyConnection) -> pa.Table | None:
    """The CSV file ``path`` as DuckDB's ``read_csv`` reads it, read by ``pyarrow.csv``
    under DuckDB's sniffed dialect and types; ``None`` where the two readers could differ
    (the module docstring's rule): the caller then reads it with DuckDB."""
    if path.name.lower().endswith(".gz"):
        return None
    try:
        sniffed = connection.execute(
            "SELECT Delimiter, Quote, Comment, SkipRows, HasHeader, NewLineDelimiter, "
            "Columns FROM sniff_csv(?)", [str(path)]).fetchone()
    except duckdb.Error:
        return None
    if sniffed is None:
        return None
    delimiter, quote, comment, skip, header, newline, columns = sniffed
    names = [c["name"] for c in columns]
    types = [TYPES.get(c["type"]) for c in columns]
    if (quote != NONE or comment != NONE or skip != 0 or not header
            or newline not in NEWLINES or len(names) < 2 or None in types
            or len(delimiter) != 1 or not delimiter.isascii() or delimiter in '\r\n"'):
        return None
    with path.open("rb") as f:
        try:
            data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        except ValueError:   # an empty file
            return None
    # not closed here: Arrow may still hold a view of it; unmapped when the last goes
    return read_under(data, names, types, delimiter, NEWLINES[newline])


def read_under(data: bytes | mmap.mmap, names: list[str], types: list[pa.DataType | None],
               delimiter: str, newline: bytes) -> pa.Table | None:
    """A CSV file's bytes ``data`` read by Arrow under ``names``, ``types`` (each in
    :data:`TYPES`), ``delimiter`` and ``newline`` (as DuckDB sniffed them), no quoting; or
    ``None`` where DuckDB's reader under the same could read otherwise (the module
    docstring's rule: the header line, one line ending, every value parsed, none too
    long)."""
    start = len(BOM) if data[:len(BOM)] == BOM else 0
    if not _one_ending(data, newline) or (pa.int64() in types and _hexadecimal(data)):
        return None
    end = data.find(b"\n", start)
    first = data[start:end if end >= 0 else len(data)].removesuffix(b"\r")
    try:
        if first.decode("utf-8").split(delimiter) != names:
            return None
    except UnicodeDecodeError:
        return None
    try:
        table = pacsv.read_csv(
            pa.BufferReader(pa.py_buffer(data)[start:]),
            read_options=pacsv.ReadOptions(column_names=names, skip_rows=1),
            parse_options=pacsv.ParseOptions(delimiter=delimiter, quote_char=False,
                                             double_quote=False, escape_char=False,
                                             newlines_in_values=False,
                                             ignore_empty_lines=True),
            convert_options=pacsv.ConvertOptions(
                column_types=dict(zip(names, types, strict=True)), null_values=[""],
                strings_can_be_null=True, check_utf8=True))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    if any(t == pa.string() and _longest(table.column(i)) > LONGEST
           for i, t in enumerate(types)):
        return None
    return table


def _one_ending(data: bytes | mmap.mmap, newline: bytes) -> bool:
    """Whether every line of ``data`` ends with ``newline`` (``\\n`` or ``\\r\\n``), and
    no ``\\r`` stands elsewhere."""
    if newline == b"\n":
        return data.find(b"\r") < 0
    octets = np.frombuffer(data, np.uint8)
    ends = np.flatnonzero(octets == ord("\n"))
    return (int(np.count_nonzero(octets == ord("\r"))) == len(ends)
            and bool((ends > 0).all()) and bool((octets[ends - 1] == ord("\r")).all()))


def _hexadecimal(data: bytes | mmap.mmap) -> bool:
    """Whether ``0x`` or ``0X`` stands anywhere in ``data`` (a hexadecimal integer,
    perhaps: Arrow reads ``0xFFFFFFFFFFFFFFFF`` as -1 where DuckDB refuses it). Each
    ``x`` or ``X`` is found by numpy and the byte before it read: searching for ``0X``
    itself walks the file a byte at a time when ``X`` is in its text (the stock
    stream's ``IPIX``: 0.08 CPU s of the ×10 file's 84 MB, against 0.02)."""
    if data.find(b"x") < 0 and data.find(b"X") < 0:  # one byte's search is memchr
        return False
    octets = np.frombuffer(data, np.uint8)
    for lo in range(1, len(octets), _CHUNK):
        part = octets[lo:lo + _CHUNK]
        at = np.flatnonzero((part | 0x20) == ord("x"))  # x or X: no other byte is
        if (octets[lo - 1 + at] == ord("0")).any():
            return True
    return False


#: Bytes of a file looked at at once by :func:`_hexadecimal` (bounded memory).
_CHUNK = 1 << 23


def _longest(column: pa.ChunkedArray) -> int:
    lengths = pc.max(pc.binary_length(column)).as_py()
    return 0 if lengths is None else int(lengths)
