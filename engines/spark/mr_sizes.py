"""How large the ``PARTITION BY`` keys of a ``MATCH_RECOGNIZE`` are on Spark, said before
the recognition's job (issue 30, item 1 and "Bad input"; docs/match-recognize-spark.md,
"Skew and size").

Every row of one key is matched in one Spark task (:mod:`.match_recognize`, step 3): the
task holds the key's rows whole, as Arrow, and the matcher's search over them. So before
the job, one aggregate (rows and Arrow bytes per key, then the largest key and the total:
:func:`largest_key`) finds

- **skew**: a key holding more than half of the rows, and at least :data:`SKEW_ROWS` of
  them (a setting), runs in one task while the others share the rest: said (a note, on
  stderr at ``kleene match --spark``, a ``UserWarning`` in Python) with the key and its
  row count;
- **a key too large for one task**: its Arrow bytes times :data:`GROWTH` (what the task
  and the matcher hold per byte of input, measured) above the memory of one task
  (:func:`task_memory`) is refused, one line with its size, instead of the Python worker
  running out of memory (Spark kills a worker past ``spark.executor.pyspark.memory``, or
  the machine's memory ends) and the executor failing.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.pandas.types import to_arrow_schema

from kleene.reference.errors import Unsupported
from kleene.reference.match_recognize.ties import value_text

#: The setting of the fewest rows a key must hold for its skew to be said (default
#: :data:`SKEW_ROWS`): below it, one task is quick whatever the share.
SKEW_SETTING = "spark.kleene.matchRecognize.skewRows"
SKEW_ROWS = 1_000_000
#: The setting of the bytes one task may hold (default: :func:`task_memory`).
MEMORY_SETTING = "spark.kleene.matchRecognize.taskBytes"
#: Bytes a task holds per byte of its key's rows as Arrow: the rows received, their
#: table, the partition taken from it, and the matcher's search; measured with the V
#: shape (examples/ticks/v_shape.sql) over 1 and 3 million rows of one key: the
#: matcher's peak 14.3 and 11.5 times the input's Arrow bytes, the three copies 3 more.
GROWTH = 16
_N, _B = "__kleene_rows__", "__kleene_bytes__"


@dataclass(frozen=True)
class Largest:
    """The key holding the most rows (its columns' names and values; ``()`` without
    ``PARTITION BY``), its rows and Arrow bytes, and the rows of all keys."""

    key: tuple[tuple[str, object], ...]
    rows: int
    nbytes: int
    total: int


def largest_key(df: DataFrame, keys: list[str]) -> Largest:
    """One aggregate over ``df`` grouped by the columns ``keys`` (module docstring): the
    key with the most rows (of two as large, the greater key)."""
    size = _row_bytes(df)
    if not keys:
        got = df.agg(F.count(F.lit(1)), F.sum(size)).first()
        assert got is not None
        rows = int(got[0])
        return Largest((), rows, int(got[1] or 0), rows)
    per_key = df.groupBy(*(_quoted(k) for k in keys)).agg(
        F.count(F.lit(1)).alias(_N), F.sum(size).alias(_B))
    got = per_key.agg(F.max(F.struct(F.col(_N), *(_quoted(k) for k in keys), F.col(_B))),
                      F.sum(_N)).first()
    assert got is not None
    if got[0] is None:
        return Largest((), 0, 0, 0)
    best = got[0]
    return Largest(tuple(zip(keys, best[1:-1], strict=True)), int(best[0]), int(best[-1]),
                   int(got[1]))


def _row_bytes(df: DataFrame) -> Any:
    """A row's bytes as Arrow holds them, as a Spark column: fixed-width values their
    width, a string or binary value its bytes and offset, any other its JSON's length."""
    fixed = 0
    variable: list[Any] = []
    for field in to_arrow_schema(df.schema, timezone="UTC"):
        column = _quoted(field.name)
        if pa.types.is_boolean(field.type):
            fixed += 1
        elif pa.types.is_string(field.type) or pa.types.is_large_string(field.type) \
                or pa.types.is_binary(field.type) or pa.types.is_large_binary(field.type):
            variable.append(F.coalesce(F.octet_length(column), F.lit(0)) + F.lit(4))
        elif pa.types.is_nested(field.type):
            variable.append(F.coalesce(F.octet_length(F.to_json(column)), F.lit(0)))
        else:
            fixed += max(field.type.bit_width // 8, 1)
    size = F.lit(fixed)
    for v in variable:
        size = size + v
    return size.cast("long")


def _quoted(name: str) -> Any:
    return F.col("`" + name.replace("`", "``") + "`")


def task_memory(spark: Any) -> tuple[int, str]:
    """The bytes one task may hold, and the setting they come from: :data:`MEMORY_SETTING`
    if set; else ``spark.executor.pyspark.memory`` (the Python worker's limit, where Spark
    enforces one); else, on a ``local`` master, the machine's memory shared by the
    session's task slots; else ``spark.executor.memory`` (default 1g)."""
    conf = spark.sparkContext.getConf()
    given = spark.conf.get(MEMORY_SETTING, None)
    if given:
        return _bytes(given), MEMORY_SETTING
    python = conf.get("spark.executor.pyspark.memory", None)
    if python:
        return _bytes(python), "spark.executor.pyspark.memory"
    if spark.sparkContext.master.startswith("local"):
        machine = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        slots = max(int(spark.sparkContext.defaultParallelism), 1)
        return machine // slots, f"the machine's memory over {slots} task slots"
    return _bytes(conf.get("spark.executor.memory", "1g")), "spark.executor.memory"


_UNITS = {"": 1, "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40}
_SIZE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([kmgt]?)b?\s*", re.IGNORECASE)


def _bytes(text: str) -> int:
    """Spark's size text (``512m``, ``2g``, ``1048576``; a unit of ``k``/``m``/``g``/``t``,
    with or without a trailing ``b``) in bytes."""
    found = _SIZE.fullmatch(text)
    if found is None:
        raise Unsupported(f"a size of {text!r}: write bytes, or a number with k, m, g or t")
    return int(float(found.group(1)) * _UNITS[found.group(2).lower()])


def size_notes(spark: Any, df: DataFrame, keys: list[str]) -> list[str]:
    """What to say of ``df``'s keys before the job (module docstring): a note of a skewed
    key; :class:`Unsupported` for a key too large for one task."""
    largest = largest_key(df, keys)
    key = ", ".join(f"{k} = {value_text(v)}" for k, v in largest.key)
    where = f"PARTITION BY key {key}" if keys else "the one partition (no PARTITION BY)"
    memory, source = task_memory(spark)
    if largest.nbytes * GROWTH > memory:
        raise Unsupported(
            f"{where} holds {largest.rows:,} rows, {_size(largest.nbytes)} as Arrow; one "
            f"Spark task matches them whole and needs about {GROWTH} times that "
            f"({_size(largest.nbytes * GROWTH)}), more than a task has ({_size(memory)}, "
            f"{source}): add a PARTITION BY column that splits it, or give tasks more "
            f"memory ({MEMORY_SETTING})")
    floor = int(spark.conf.get(SKEW_SETTING, None) or SKEW_ROWS)
    if keys and largest.rows >= floor and 2 * largest.rows > largest.total:
        return [f"{where} holds {largest.rows:,} of the {largest.total:,} rows "
                f"({100 * largest.rows / largest.total:.0f} %): it is matched by one Spark "
                "task while the other keys share the others"]
    return []


def _size(n: int) -> str:
    for unit, scale in (("GB", 2**30), ("MB", 2**20)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n:,} bytes"
