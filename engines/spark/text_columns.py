"""Text values typed like :func:`kleene.data.loaders.text_value`, in Spark SQL,
and stock lines parsed in Spark SQL.

The loaders type a CSV cell or a stock-line value on its own: an integer
literal is an ``int``, a decimal literal a ``float``, anything else the text.
A Spark column has one type, so :func:`infer_types` looks at every value of a
column in one aggregation (in the JVM): ``bigint`` when every value is an
integer literal, ``double`` when every value is a number literal, ``string``
otherwise (an integer literal beyond 64 bits makes the column ``double``).
The regular expressions are the loaders' (``_NUMBER``).

:func:`stock_columns` reads ``BUY(id=8,name=INTC,...,stock_time=25263126)``
lines (:func:`kleene.data.loaders.parse_stock_line`) with a regular
expression, ``split`` and ``map_from_arrays``: the word before the parenthesis
is the ``type`` column, each ``key=value`` a column named by the keys of the
first lines. Lines that do not parse become per-row problems (:mod:`.index`),
reported with their row number.
"""

from __future__ import annotations

import csv
import itertools
import re
from collections.abc import Sequence
from typing import Any

from kleene.data.loaders import check_header, open_text, parse_stock_line
from kleene.engines.spark.index import problem
from kleene.engines.spark.text_splits import local_path

#: An integer literal, and any number literal (``kleene.data.loaders._NUMBER``).
INTEGER = r"^\s*[+-]?\d+\s*$"
NUMBER = r"^\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*$"

#: A stock line: ``TYPE(body)``.
STOCK_LINE = r"^\s*([A-Za-z_][A-Za-z0-9_]*)\((.*)\)\s*$"

#: The helper column that holds a stock line's problem (dropped once read).
STOCK_PROBLEM = "_kleene_stock_problem"

#: Lines read to learn the fields of a stock file.
FIRST_LINES = 32


def infer_types(df: Any, names: Sequence[str]) -> dict[str, str]:
    """The Spark type of each string column ``names``: ``bigint``, ``double`` or ``string``."""
    from pyspark.sql import functions as F

    if not names:
        return {}
    aggs = []
    for i, name in enumerate(names):
        col = F.col(name)
        too_big = F.trim(col).try_cast("bigint").isNull()
        aggs.append(F.count_if(col.isNotNull() & (~col.rlike(INTEGER) | too_big)).alias(f"i{i}"))
        aggs.append(F.count_if(col.isNotNull() & ~col.rlike(NUMBER)).alias(f"n{i}"))
    row = df.select(*names).agg(*aggs).first()
    return {name: "bigint" if row[f"i{i}"] == 0 else "double" if row[f"n{i}"] == 0
            else "string" for i, name in enumerate(names)}


def typed(df: Any, types: dict[str, str]) -> Any:
    """``df`` with the string columns of ``types`` cast (surrounding spaces ignored)."""
    from pyspark.sql import functions as F

    out = []
    for name in df.columns:
        kind = types.get(name, "string")
        col = F.col(name)
        if kind in ("bigint", "double"):
            col = F.trim(col).try_cast(kind)
        out.append(col.alias(name))
    return df.select(*out)


def first_lines(spark: Any, path: str) -> list[str]:
    """The first :data:`FIRST_LINES` non-blank lines of a text file."""
    local = local_path(path)
    if local is not None:
        with open_text(local) as f:
            return list(itertools.islice((line for line in f if line.strip()), FIRST_LINES))
    from pyspark.sql import functions as F

    rows = spark.read.text(path).filter(F.trim("value") != "").limit(FIRST_LINES).collect()
    return [r["value"] for r in rows]


def stock_fields(spark: Any, path: str) -> list[str]:
    """The fields of the first stock line, in order (``type`` excluded)."""
    lines = first_lines(spark, path)
    if not lines:
        return []
    return [key for key in parse_stock_line(lines[0], row=0, source=path) if key != "type"]


def stock_columns(spark: Any, path: str) -> tuple[Any, list[Any], list[str]]:
    """The stock lines of ``path`` as string columns ``type`` and one per field,
    the per-row problems, and the field names (to type with :func:`infer_types`).

    Every line must have the first line's fields in the same order (what stock
    files do); ``split`` and ``substr`` then read them, which Spark compiles to
    Java. A line laid out otherwise is a problem that names the Python reader,
    which reads any layout.
    """
    from pyspark.sql import functions as F

    fields = stock_fields(spark, path)
    lines = spark.read.text(path).filter(F.trim("value") != "")
    value = F.col("value")
    kind = F.regexp_extract(value, STOCK_LINE, 1)     # "" when the line does not parse
    parsed = kind != ""
    parts = F.split(F.regexp_extract(value, STOCK_LINE, 2), ",")
    laid_out = F.size(parts) == len(fields)
    for i, name in enumerate(fields):
        laid_out = laid_out & parts[i].startswith(name + "=")
    layout = ", ".join(fields)
    df = lines.select(
        F.when(parsed, kind).alias("type"),
        *[F.when(laid_out, parts[i].substr(len(name) + 2, 1 << 30)).alias(name)
          for i, name in enumerate(fields)],
        F.when(~parsed, problem("", F.concat(
            F.lit("not a stock line TYPE(key=value,...): '"),
            F.substring(F.trim(value), 1, 60), F.lit("'"))))
        .when(~laid_out, problem("", f"the fields are not those of the first line ({layout}) "
                                     "in that order; read the file with the stock reader "
                                     "'python'"))
        .alias(STOCK_PROBLEM))
    return df, [F.col(STOCK_PROBLEM)], fields


def csv_header(spark: Any, path: str) -> list[str]:
    """The column names of a CSV file's header as written, read as the single process
    reads them (:func:`kleene.data.loaders.check_header`): case-sensitive, a name twice
    one line. Spark's own header reading renames a name it has seen (``ID`` and ``id``
    became ``ID2`` and ``id3``: case-insensitively), and the pattern's columns were lost."""
    first = spark.read.text(path).limit(1).collect()
    if not first:
        return []
    line = first[0][0].removeprefix("\ufeff")
    header = next(csv.reader([line]), [])
    check_header(header, path)
    return header


def text_timestamps(df: Any, ts: str) -> tuple[Any, str | None, Any]:
    """A string ``ts`` column as the single process reads it (data/timestamps.py): the
    numbers (a double) or ISO datetimes (epoch ms, unit ``ms``) the first cell says,
    and the problem of each cell (null, or a :func:`~.index.problem`): a cell of the
    other kind mixes the two, one of neither kind is neither. The first cell is read
    (one small job); the column is string only when some cell is not a number."""
    from pyspark.sql import functions as F

    col = F.col(ts)
    head = df.select(ts).where(col.isNotNull()).limit(1).collect()
    numbers = bool(head) and re.fullmatch(NUMBER, head[0][0], re.ASCII) is not None
    parsed = col.try_cast("timestamp")
    is_number = col.rlike(NUMBER)
    if numbers:
        bad = ~is_number
        why = F.when(parsed.isNotNull(), F.lit("' mixes ISO datetimes with numbers in one "
                                               "column"))
    else:
        bad = is_number | parsed.isNull()
        why = F.when(is_number, F.lit("' mixes numbers with ISO datetimes in one column"))
    why = why.otherwise(F.lit("' is neither a number nor an ISO datetime"))
    found = F.when(col.isNotNull() & bad, problem(ts, F.concat(F.lit("timestamp '"),
                                                               F.trim(col), why)))
    if numbers:
        return F.trim(col).try_cast("double"), None, found
    return F.unix_millis(parsed), "ms", found


def rounded_integers(df: Any, ts: str) -> Any:
    """The problem of each integer cell of a string ``ts`` column read as doubles that a
    double would round, as the single process refuses it (data/timestamps.py): past
    int64 when every cell is an integer, else past 2**53."""
    from pyspark.sql import functions as F

    col = F.col(ts)
    integer = col.rlike(INTEGER)
    whole = df.select(F.count_if(col.isNotNull() & ~integer)).first()[0] == 0
    wide = F.trim(col).try_cast("bigint").isNull()   # past int64
    if not whole:
        value = F.trim(col).try_cast("bigint")
        wide = wide | (value > F.lit(2**53)) | (value < F.lit(-(2**53)))
    said = "a 64-bit integer" if whole else "a float beside decimal timestamps (2**53)"
    return F.when(col.isNotNull() & integer & wide, problem(ts, F.concat(
        F.lit("timestamp "), F.trim(col), F.lit(f" does not fit {said}; it would be rounded"))))
