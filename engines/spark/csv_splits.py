"""A local CSV file's splits parsed by the single process's Arrow reader, and their types
agreed exactly as one reader of the whole file would type each column (issue 33).

The Spark SQL path (:func:`.frames._csv`) reads a CSV file as strings in the JVM, types
every column in an aggregation of regular expressions (:func:`.text_columns.infer_types`)
and numbers the rows in a third pass. Here each Spark task reads its byte range of a
local file (:mod:`.text_splits`: the lines that start in it; the header is the file's
first line, dropped by split 0) with the options of the single-process loader
(:func:`kleene.data.loaders._csv_table`: ``pyarrow.csv``, every cell a string, an empty
cell missing) and returns its :class:`SplitStats`; the driver agrees the types with
:func:`agree`. Nothing here runs Spark, so the rule is tested on its own
(``tests/test_spark_csv_splits.py``: every byte boundary of drawn files).

The rule, per column, over every present cell of every split (the rule of
:func:`.text_columns.infer_types`, each cell typed as :func:`kleene.data.textvalues.text_value`
types it): ``bigint`` when every cell is an integer literal that fits 64 bits, else
``double`` when every cell is a number literal, else ``string``; a column with no cell is
``bigint``, as the Spark SQL path types it. So an integer column with one decimal cell in
another split is a ``double`` column, and a number column with one word anywhere is a
``string`` column. The timestamp column is numbers (typed by the same rule) or ISO
datetimes (epoch milliseconds, no zone meaning UTC: :mod:`kleene.data.timestamps`).

A split *declines* (``ok`` false; the caller then reads the file with Spark SQL, which
names the row and the field of a problem) where the readers could differ or a row is
bad: a ``"`` anywhere (a quoted field may hold a delimiter or a newline), anything Arrow
refuses (a row of another width, a line longer than Arrow's block, bytes that are not
UTF-8), a missing, non-finite or unsorted timestamp, timestamps that mix numbers with
datetimes, a datetime finer than a millisecond (rounded by one reader, truncated by the
other), and an integer timestamp a double would round (past 2**53 beside decimal ones).
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from kleene.data import textvalues as tv

#: Arrow's type of each Spark type a column can get.
ARROW_TYPE = {"bigint": pa.int64(), "double": pa.float64(), "string": pa.string()}

#: The kinds of a split's timestamp cells: numbers, or ISO datetimes (epoch ms).
NUMBERS, DATETIMES = "numbers", "datetimes"

#: The bytes looked at at once when finding the end of the header line.
_CHUNK = 1 << 16


@dataclass
class SplitStats:
    """What one split's task learnt: whether it reads (``ok``), its rows, per column
    whether some cell is no integer literal of 64 bits (``nonint``) or no number literal
    (``nonnum``), the kind of its timestamps, whether an integer timestamp would be
    rounded as a double (``wide``), its first and last timestamp and the timestamps
    sampled every ``every`` rows."""

    ok: bool = True
    count: int = 0
    nonint: list[bool] = field(default_factory=list)
    nonnum: list[bool] = field(default_factory=list)
    stamps: str | None = None
    wide: bool = False
    first: int | float | None = None
    last: int | float | None = None
    samples: list[int | float] = field(default_factory=list)


@dataclass(frozen=True)
class Agreed:
    """The Spark type of each column (``ts`` included: ``bigint`` for datetimes) and
    whether the timestamps are datetimes (then in ms)."""

    types: dict[str, str]
    datetimes: bool


def header(data: bytes) -> list[str] | None:
    """The column names of a CSV file from its first bytes (a byte-order mark dropped),
    read as the loader reads them; ``None`` when the first line is blank, holds a quote,
    or is not UTF-8 (the Spark SQL path reads such a file)."""
    line = data.removeprefix(b"\xef\xbb\xbf").split(b"\n", 1)[0].rstrip(b"\r")
    if b'"' in line or not line.strip():
        return None
    try:
        return next(csv.reader([line.decode("utf-8")]))
    except UnicodeDecodeError:
        return None


def _after_header(data: Any) -> int:
    """The offset just past the first newline of ``data`` (its length when none)."""
    view = memoryview(data)
    for at in range(0, len(view), _CHUNK):
        found = bytes(view[at:at + _CHUNK]).find(b"\n")
        if found >= 0:
            return at + found + 1
    return len(view)


def parse(data: Any, names: Sequence[str], first: bool) -> pa.Table | None:
    """The rows of one split (``data``, the lines that start in it; ``first``: split 0,
    whose first line is the header) as string columns ``names``, an empty cell missing;
    ``None`` where the split declines (a ``"`` in it, or a row Arrow refuses)."""
    octets = np.frombuffer(data, np.uint8)
    if (octets == ord('"')).any():
        return None
    skip = _after_header(data) if first else 0
    body = pa.py_buffer(data)[skip:]
    if not body.size:
        return pa.table({n: pa.array([], pa.string()) for n in names})
    try:
        return pacsv.read_csv(
            pa.BufferReader(body),
            read_options=pacsv.ReadOptions(column_names=list(names)),
            parse_options=pacsv.ParseOptions(quote_char=False, double_quote=False,
                                             newlines_in_values=False,
                                             ignore_empty_lines=True),
            convert_options=pacsv.ConvertOptions(
                column_types={n: pa.string() for n in names}, null_values=[""],
                strings_can_be_null=True, check_utf8=True))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None


def _flags(column: Any) -> tuple[bool, bool, Any]:
    """Whether some present cell is no 64-bit integer literal, whether some is no number
    literal, and the cells as numbers when they all are numbers (else ``None``)."""
    present = len(column) - column.null_count
    if not present:
        return False, False, None
    arr, kind = tv.typed_column(column)
    if kind == tv.INT_KIND:
        return False, False, arr
    if kind == tv.FLOAT_KIND:
        return True, False, arr
    if kind == tv.STR_KIND:
        return True, True, None
    nums = pc.sum(pc.match_substring_regex(column, tv.NUM_RE)).as_py() or 0
    if nums < present:
        return True, True, None
    missing = np.asarray(pc.is_null(column).to_numpy(zero_copy_only=False), dtype=bool)
    return True, False, pa.array(tv.text_kinds(column)[1], pa.float64(), mask=missing)


def _datetimes(column: Any) -> Any | None:
    """ISO datetime cells as epoch ms (``int64``), as :mod:`kleene.data.timestamps`
    converts them; ``None`` when a cell is no such datetime or is finer than 1 ms."""
    if tv.may_hold_numbers(column):
        return None
    trimmed = pc.utf8_trim_whitespace(column)
    for zone in ("UTC", None):
        try:
            moments = pc.cast(trimmed, pa.timestamp("us", tz=zone))
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            continue
        micros = moments.cast(pa.int64()).to_numpy(zero_copy_only=False)
        if (micros % 1000).any():
            return None
        return pa.array(micros // 1000, pa.int64())
    return None


def _wide(column: Any, numbers: Any) -> bool:
    """Whether an integer cell of a timestamp column is past 2**53 (a double rounds it)."""
    if pa.types.is_integer(numbers.type):
        return bool(pc.max(pc.abs(numbers)).as_py() > 2**53)
    is_int = pc.fill_null(pc.match_substring_regex(column, tv.INT_RE), False)
    big = pc.greater_equal(pc.abs(numbers), 2.0**53)
    return bool(pc.any(pc.and_(is_int, big)).as_py())


def split_stats(table: pa.Table | None, names: Sequence[str], ts: str, every: int
                ) -> tuple[SplitStats, pa.Table | None]:
    """The statistics of a parsed split (``None``: it declined), its timestamps sampled
    every ``every`` rows from its first, and the split as kept for the engine stage: each
    column as numbers where its cells all are, else as text, the timestamps as numbers
    (``None`` when it declines)."""
    if table is None:
        return SplitStats(ok=False), None
    stats = SplitStats(count=table.num_rows, nonint=[False] * len(names),
                       nonnum=[False] * len(names))
    if not table.num_rows:
        return stats, table
    kept = []
    for i, name in enumerate(names):
        column = table.column(name).combine_chunks()
        no_int, no_num, numbers = _flags(column)
        stats.nonint[i], stats.nonnum[i] = no_int, no_num
        if name == ts:
            if column.null_count or not pc.all(pc.not_equal(pc.utf8_trim_whitespace(column),
                                                            "")).as_py():
                return SplitStats(ok=False), None
            if numbers is None:
                numbers = _datetimes(column)
                stats.stamps = DATETIMES
                stats.nonint[i] = stats.nonnum[i] = False
            else:
                stats.stamps = NUMBERS
                stats.wide = _wide(column, numbers)
            if numbers is None:
                return SplitStats(ok=False), None
            values = numbers.to_numpy(zero_copy_only=False)
            if values.dtype.kind == "f" and not np.isfinite(values).all():
                return SplitStats(ok=False), None
            if (values[1:] < values[:-1]).any():
                return SplitStats(ok=False), None
            stats.first, stats.last = values[0].item(), values[-1].item()
            stats.samples = [v.item() for v in values[::every]]
        kept.append(column if numbers is None else numbers)
    return stats, pa.table(kept, names=list(names))


def agree(stats: Sequence[SplitStats], names: Sequence[str], ts: str) -> Agreed | None:
    """The types of the whole file from its splits' statistics (in file order), or
    ``None`` when a split declined or the splits' timestamps disagree: out of order
    across two splits, numbers in one and datetimes in another, or integers a double
    column would round."""
    if not all(s.ok for s in stats):
        return None
    kinds = {s.stamps for s in stats if s.count}
    if len(kinds) > 1:
        return None
    previous = None
    for s in stats:
        if s.count:
            assert s.first is not None and s.last is not None
            if previous is not None and s.first < previous:
                return None
            previous = s.last
    types = {name: "bigint" if not any(s.nonint[i] for s in stats if s.count)
             else "double" if not any(s.nonnum[i] for s in stats if s.count) else "string"
             for i, name in enumerate(names)}
    datetimes = kinds == {DATETIMES}
    if datetimes:
        types[ts] = "bigint"
    elif types[ts] == "double" and any(s.wide for s in stats):
        return None
    return Agreed(types, datetimes)


def typed(table: pa.Table, agreed: Agreed) -> pa.Table | None:
    """A kept split (:func:`split_stats`) with each column of its agreed type; ``None``
    when a column kept as numbers is text in the whole file (the caller parses the split
    again and types the text, :func:`typed_text`)."""
    columns = []
    for name in table.column_names:
        kind, cells = agreed.types[name], table.column(name)
        if kind == "string":
            if not pa.types.is_string(cells.type):
                return None
            columns.append(cells)
        else:   # numbers, or text with no cell; past 2**53 an integer rounds, as in Spark
            columns.append(pc.cast(cells, ARROW_TYPE[kind], safe=False))
    return pa.table(columns, names=table.column_names)


def typed_text(table: pa.Table, agreed: Agreed, ts: str) -> pa.Table:
    """A parsed split (string columns) typed as :func:`typed` types a kept one."""
    columns = []
    for name in table.column_names:
        column = table.column(name).combine_chunks()
        if name == ts and agreed.datetimes:
            stamps = _datetimes(column)
            assert stamps is not None, "a datetime no longer parses"
            columns.append(stamps)
            continue
        numbers = _flags(column)[2] if agreed.types[name] != "string" else None
        columns.append(column if numbers is None else numbers)
    out = typed(pa.table(columns, names=table.column_names), agreed)
    assert out is not None
    return out
