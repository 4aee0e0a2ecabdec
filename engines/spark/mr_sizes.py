"""How large the ``PARTITION BY`` keys of a ``MATCH_RECOGNIZE`` are on Spark, measured in
the task that matches them (issue 30, item 1 and "Bad input"; docs/match-recognize-spark.md,
"Skew and size").

Every row of one key is matched in one Spark task (:mod:`.match_recognize`, step 3): the
task holds the key's rows whole, as Arrow, and the matcher's search over them. The task
measures each key it holds (its rows, and its Arrow bytes: :func:`key_sizes`) before the
matcher runs, in the recognition's own job (no job of its own, no second read):

- **a key too large for one task**: its Arrow bytes times :data:`GROWTH` (what the task
  and the matcher hold per byte of input, measured) above the memory of one task
  (:func:`task_memory`, read on the driver) is refused there, one line with its size
  (:meth:`Sizes.check`), instead of the matcher's search running the Python worker out of
  memory (Spark kills a worker past ``spark.executor.pyspark.memory``, or the machine's
  memory ends) and the executor failing. The task holds the rows it received (one copy);
  the check spares the matcher's peak, many times that;
- **skew**: each task reports its rows and its largest key through an accumulator
  (:class:`Measured`: by task, so a task run twice counts once); after the job, a key
  holding more than half of the rows, and at least :data:`SKEW_ROWS` of them (a
  setting), is said (:meth:`Sizes.skew`: on stderr at ``kleene match --spark``) with its
  row count: it ran in one task while the others shared the rest.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from pyspark.accumulators import AccumulatorParam

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

#: A task's report: its rows, then its largest key as (rows, the key's order, its
#: values, its Arrow bytes); ``None`` for a task without rows.
Report = tuple[int, tuple[int, tuple[tuple[bool, Any], ...], tuple[Any, ...], int] | None]


def row_bytes(table: pa.Table) -> np.ndarray:
    """Each row's bytes as Arrow holds them: a fixed-width value its width (a boolean one
    byte), a string or binary value its bytes and a 4-byte offset, a nested value its
    share of the column's buffers."""
    out = np.zeros(table.num_rows, dtype=np.int64)
    for column, field in zip(table.columns, table.schema, strict=True):
        kind = field.type
        if pa.types.is_boolean(kind):
            out += 1
        elif pa.types.is_string(kind) or pa.types.is_large_string(kind) \
                or pa.types.is_binary(kind) or pa.types.is_large_binary(kind):
            lengths = pc.fill_null(pc.binary_length(column), 0)
            out += np.asarray(lengths.to_numpy(), dtype=np.int64) + 4
        elif pa.types.is_nested(kind):
            out += -(-column.nbytes // max(table.num_rows, 1))
        else:
            out += max(kind.bit_width // 8, 1)
    return out


@dataclass(frozen=True)
class Sizes:
    """The measure of one recognition's keys: the ``PARTITION BY`` columns' names, the
    bytes one task may hold and where that figure comes from (:func:`task_memory`), the
    skew floor, and the accumulator the tasks report to (``None``: no report)."""

    keys: tuple[str, ...]
    memory: int
    source: str
    floor: int
    measured: Any = None

    def where(self, values: tuple[Any, ...]) -> str:
        if not self.keys:
            return "the one partition (no PARTITION BY)"
        key = ", ".join(f"{k} = {value_text(v)}" for k, v in zip(self.keys, values,
                                                                  strict=True))
        return f"PARTITION BY key {key}"

    def check(self, values: tuple[Any, ...], rows: int, nbytes: int,
              where: str | None = None) -> None:
        """Refuse a key (or ``where``: the rows a task holds) whose matching would need
        more than a task has (module docstring), in the task, before its matcher runs."""
        if nbytes * GROWTH > self.memory:
            raise Unsupported(
                f"{where or self.where(values)} holds {rows:,} rows, {_size(nbytes)} as Arrow; one "
                f"Spark task matches them whole and needs about {GROWTH} times that "
                f"({_size(nbytes * GROWTH)}), more than a task has ({_size(self.memory)}, "
                f"{self.source}): add a PARTITION BY column that splits it, or give tasks "
                f"more memory ({MEMORY_SETTING})")

    def report(self, task: int, rows: int, largest: tuple[int, tuple[Any, ...], int] | None
               ) -> None:
        """A task's rows and its largest key (rows, values, bytes) to the accumulator."""
        if self.measured is None:
            return
        best = None if largest is None else (
            largest[0], _order(largest[1]), largest[1], largest[2])
        self.measured.add({task: (rows, best)})

    def task(self, task: int, data: pa.Table, order: np.ndarray, edges: list[int]) -> None:
        """In a task: each partition of ``data`` (rows ``order[lo:hi]`` for consecutive
        ``edges``) measured and checked (:meth:`check`) before any is matched; the task's
        rows and largest key reported (:meth:`report`)."""
        nbytes = np.add.reduceat(row_bytes(data)[order], edges[:-1])
        largest: tuple[int, tuple[Any, ...], int] | None = None
        for i, (lo, hi) in enumerate(zip(edges, edges[1:], strict=False)):
            values = tuple(data.column(k)[int(order[lo])].as_py() for k in self.keys)
            self.check(values, hi - lo, int(nbytes[i]))
            if largest is None or (hi - lo, _order(values)) > (largest[0], _order(largest[1])):
                largest = (hi - lo, values, int(nbytes[i]))
        self.report(task, data.num_rows, largest)

    def skew(self) -> list[str]:
        """After the job: the note of a key holding most rows (module docstring)."""
        reports: dict[int, Report] = {} if self.measured is None else self.measured.value
        total = sum(rows for rows, _ in reports.values())
        bests = [best for _, best in reports.values() if best is not None]
        if not self.keys or not bests:
            return []
        rows, _, values, _ = max(bests, key=lambda b: (b[0], b[1]))
        if rows >= self.floor and 2 * rows > total:
            return [f"{self.where(values)} holds {rows:,} of the {total:,} rows "
                    f"({100 * rows / total:.0f} %): it is matched by one Spark task while "
                    "the other keys share the others"]
        return []


def _order(values: tuple[Any, ...]) -> tuple[tuple[bool, Any], ...]:
    """A key's values as Spark orders them in a ``max`` (NULL below every value)."""
    return tuple((v is not None, v) for v in values)


class Measured(AccumulatorParam):  # type: ignore[type-arg]
    """The accumulator's rule: a dict from a task's partition to its :data:`Report`; a
    task run again replaces its report."""

    def zero(self, value: dict[int, Report]) -> dict[int, Report]:
        return {}

    def addInPlace(self, a: dict[int, Report], b: dict[int, Report]  # noqa: N802 (PySpark's)
                   ) -> dict[int, Report]:
        a.update(b)
        return a


def sizes(spark: Any, keys: list[str]) -> Sizes:
    """The measure of a recognition whose ``PARTITION BY`` columns are ``keys``, on
    ``spark`` (its settings read now, on the driver; a fresh accumulator)."""
    memory, source = task_memory(spark)
    floor = int(spark.conf.get(SKEW_SETTING, None) or SKEW_ROWS)
    return Sizes(tuple(keys), memory, source, floor,
                 spark.sparkContext.accumulator({}, Measured()))


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


def _size(n: int) -> str:
    for unit, scale in (("GB", 2**30), ("MB", 2**20)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n:,} bytes"
