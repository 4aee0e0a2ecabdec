"""``MATCH_RECOGNIZE`` on Spark equals the single process (issue 30, item 1).

The oracle is the single process: every recognition that Kleene's own file
(``conformance/sqllogictest/kleene/match_recognize.test``, hand-computed) and Oracle's
(``conformance/sqllogictest/duckdb/test_match_recognize_oracle.test``) make, run by the
sqllogictest runner with each recognition recorded (its clause as DuckDB left it, its
source, and the single process's output: the engine ``match-recognize``, or the reference
where the engine refuses the clause). Each recorded source becomes a Spark DataFrame and
goes through the Spark door's recognition (:func:`recognize_frame`); its output must have
the same column names and the same rows in the same order, every value equal once the
single process's column is cast to the Spark column's type (the type known before the
job: a cast that would lose a digit fails the test). The recognitions of a file run as one
Spark action (each output serialized as one Arrow IPC row, the rows unioned), so the
suite pays for few jobs.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from kleene.conformance.sqllogictest.runner import DEFAULT_TIME_LIMIT, run_file
from kleene.data.sql import arrow_of, table_of
from kleene.engines.match_recognize.recognition import CompiledRecognition
from kleene.reference.budget import Budget
from kleene.reference.errors import Unsupported
from kleene.reference.match_recognize.ast import MatchRecognize
from kleene.reference.match_recognize.printer import format_clause
from kleene.reference.match_recognize.semantics import recognize as reference_recognize
from tests.helpers import small_jobs

pytest.importorskip("pyspark")

ROOT = Path(__file__).resolve().parents[1] / "conformance" / "sqllogictest"
FILES = (ROOT / "kleene" / "match_recognize.test",
         ROOT / "duckdb" / "test_match_recognize_oracle.test")


@dataclass(frozen=True)
class Recorded:
    """One recognition the single process made: its clause, source and output."""

    clause: MatchRecognize
    source: pa.Table
    engine: bool
    output: pa.Table


class Recorder:
    """The single process's recognizer (engine, else reference), recording each answer."""

    def __init__(self) -> None:
        self.seen: list[Recorded] = []

    def recognize_arrow(self, clause: MatchRecognize, table: pa.Table) -> pa.Table:
        budget = Budget(seconds=DEFAULT_TIME_LIMIT)
        try:
            compiled: CompiledRecognition | None = CompiledRecognition(clause)
        except Unsupported:
            compiled = None
        out = (compiled.recognize(table, budget=budget) if compiled is not None else
               arrow_of(reference_recognize(clause, table_of(table), budget=budget),
                        like=table.schema))
        self.seen.append(Recorded(clause, table, compiled is not None, out))
        return out


def recorded(path: Path) -> list[Recorded]:
    recorder = Recorder()
    run_file(path, recorder)
    return recorder.seen


def as_ipc(case: int, schema: pa.Schema, batches: Iterator[pa.RecordBatch]
         ) -> Iterator[pa.RecordBatch]:
    """A frame's one partition as one row: its case number and its rows as Arrow IPC."""
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, schema) as writer:
        for b in batches:
            writer.write_batch(b)
    yield pa.record_batch([pa.array([case], pa.int64()),
                           pa.array([sink.getvalue().to_pybytes()], pa.binary())],
                          names=["case", "ipc"])


def on_spark(spark: Any, seen: list[Recorded], tasks: int = 2,
             read: Callable[[int, pa.Table], Any] | None = None
             ) -> tuple[dict[int, pa.Table], dict[int, str]]:
    """Every recorded recognition through the Spark door in ``tasks`` Spark partitions,
    in one action: the outputs by case number, and the cases the door refused (with its
    one line). ``read(i, source)``: case ``i``'s DataFrame (default: ``source`` as Spark's
    ``createDataFrame`` makes it)."""
    from pyspark.sql.pandas.types import to_arrow_schema

    from kleene.engines.spark.match_recognize import Run, recognize_frame

    frames = []
    out: dict[int, pa.Table] = {}
    refused: dict[int, str] = {}
    for i, r in enumerate(seen):  # one frame per recognition, then one action for all
        try:
            df = spark.createDataFrame(r.source) if read is None else read(i, r.source)
            frame = recognize_frame(df, r.clause, Run(r.engine, tasks, []))
        except Unsupported as err:
            refused[i] = str(err)
            continue
        schema = to_arrow_schema(frame.schema, timezone="UTC")
        out[i] = schema.empty_table()  # a frame with no partition left sends no row
        frames.append(frame.mapInArrow(partial(as_ipc, i, schema), "case long, ipc binary"))
    union = frames[0]
    for f in frames[1:]:
        union = union.unionAll(f)
    with small_jobs(spark):
        for row in union.collect():
            out[row["case"]] = pa.ipc.open_stream(row["ipc"]).read_all()
    return out, refused


def _same(a: object, b: object) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b and type(a) is type(b)


def difference(single: pa.Table, got: pa.Table) -> str | None:
    """How Spark's output differs from the single process's (``None``: it does not)."""
    if got.column_names != single.column_names:
        return f"columns {got.column_names} against {single.column_names}"
    if got.num_rows != single.num_rows:
        return f"{got.num_rows} rows against {single.num_rows}"
    for name, column, field in zip(got.column_names, single.columns, got.schema, strict=True):
        try:
            expected = column.cast(field.type).to_pylist()
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as err:
            return f"column {name}: the single process's {column.type} is no {field.type}: {err}"
        values = got.column(name).to_pylist()
        for row, (a, b) in enumerate(zip(values, expected, strict=True)):
            if not _same(a, b):
                return f"column {name}, row {row}: {a!r} against {b!r}"
    return None


@pytest.mark.slow
@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_recognition_of_the_file_equals_the_single_process(spark: Any, path: Path
                                                                  ) -> None:
    seen = recorded(path)
    assert len(seen) >= 50, "the file's recognitions were recorded"
    got, refused = on_spark(spark, seen)
    assert refused == {}, "\n".join(f"{format_clause(seen[i].clause)}\n  -> {why}"
                                    for i, why in refused.items())
    wrong = [(i, d) for i, r in enumerate(seen)
             if (d := difference(r.output, got[i])) is not None]
    assert not wrong, "\n".join(f"{format_clause(seen[i].clause)}\n  -> {d}"
                                for i, d in wrong[:5])


def test_difference_sees_each_way_two_outputs_can_differ():
    single = pa.table({"sym": ["A", "B"], "F": pa.array([1, 2], pa.int64()),
                       "R": pa.array([1.5, float("nan")])})
    assert difference(single, single) is None
    assert difference(single, single.select(["F", "sym", "R"])) is not None  # names
    assert difference(single, single.slice(1)) is not None                   # a row
    assert difference(single, single.take([1, 0])) is not None               # order
    narrow = pa.table({"sym": ["A", "B"], "F": pa.array([1, 2], pa.int8()),
                       "R": pa.array([1.5, float("nan")])})
    assert difference(single.set_column(1, "F", pa.array([1, 300])), narrow) is not None
    assert difference(single, single.set_column(2, "R", pa.array([1.5, 2.0]))) is not None
