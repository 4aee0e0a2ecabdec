"""A ``MATCH_RECOGNIZE`` without ``PARTITION BY`` on Spark in ranges of rows (issue 30: seq3
of ``python -m bench mr`` in several tasks), exactly as the single process answers it.

The rule and its proof are the reference's (:mod:`kleene.reference.match_recognize.ranges`):
for a clause with :func:`~kleene.reference.match_recognize.ranges.bounds` (a match spans
at most ``span`` rows, its expressions read at most ``back`` rows before and ``ahead``
after), the search at a start row depends only on the rows ``before`` (``back``) before
it and ``after`` (``span − 1 + ahead``) after it, and one pass in row order over the
matches found at every start row keeps exactly the single process's. On Spark:

1. each row gets its index in the DataFrame's order (ties in ``ORDER BY`` keep it, as the
   single process keeps input order), and the rows are range-partitioned by the ``ORDER
   BY`` keys then that index (``repartitionByRange``: Spark samples the keys, a small job
   of its own), NULLs placed as Kleene places them; so each Spark partition holds a run
   of consecutive rows of the one SQL partition (only where Spark orders the keys' type as
   Kleene does: :data:`ORDERED`);
2. each task (:func:`range_task`) orders its rows as the single process does
   (:func:`kleene.engines.match_recognize.order.ordered`) and finds the match at each start
   row whose rows and reads lie inside its range: the matcher under ``AFTER MATCH SKIP TO
   NEXT ROW`` (every start row searched) with three measures added (the match's first and
   last row, the skip's target row: :func:`search_clause`), or the reference's
   :func:`~kleene.reference.match_recognize.ranges.candidates` where the matcher raises a
   data exception (the reference raises it only if the single process makes that search).
   It sends those candidates, its row count, and its first and last ``before + after``
   rows (all of them, if that is most);
3. one task (:func:`final_task`) numbers the rows across the ranges (the counts, in range
   order), finds the candidates at the start rows near the ranges' edges over the rows
   sent from both sides, and keeps, in one pass, the single process's matches
   (:func:`~kleene.reference.match_recognize.ranges.kept`), their rows in its order.

A clause without bounds, ``ALL ROWS PER MATCH`` with ``{- … -}`` (a match all of whose
rows are excluded outputs no row to find it by), ``--ties error`` and an ``ORDER BY`` key
of another type run in one task as before, the reason said (:func:`unsplit`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from functools import partial

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T

from kleene.data.sql import arrow_of, table_of
from kleene.engines.match_recognize.order import ordered
from kleene.engines.match_recognize.recognition import CompiledRecognition
from kleene.engines.spark.mr_sizes import Sizes, row_bytes
from kleene.engines.spark.mr_types import typed
from kleene.reference.budget import Budget
from kleene.reference.errors import Unsupported
from kleene.reference.match_recognize.ast import (
    AfterMatchSkip,
    Column,
    Exclude,
    MatchRecognize,
    Measure,
    Navigation,
)
from kleene.reference.match_recognize.checks import pattern_parts
from kleene.reference.match_recognize.ranges import (
    SPLIT_REFUSED,
    Bounds,
    Candidate,
    bounds,
    candidates,
    kept,
)
from kleene.reference.match_recognize.scalars import DataError
from kleene.reference.match_recognize.semantics import Recognizer, resume_at
from kleene.reference.match_recognize.table import Table

#: Internal columns: a row's place in its range (or across ranges), the added measures.
POS, START, LAST, TARGET = ("__kleene_pos__", "__kleene_start__", "__kleene_last__",
                            "__kleene_target__")
RESUME, ERROR = "__kleene_resume__", "__kleene_error__"
#: The ``ORDER BY`` key types Spark's range partitioning orders as Kleene orders them
#: (numbers, text by its bytes, dates and times; NULLs placed per key as Kleene does).
ORDERED = (T.NumericType, T.StringType, T.DateType, T.TimestampType, T.TimestampNTZType,
           T.BooleanType)
#: What one range task sends (one row).
SENT = "part long, n long, cands binary, head binary, tail binary"


def unsplit(clause: MatchRecognize, schema: T.StructType, refuse_ties: bool,
            engine: bool = True) -> str | None:
    """Why ``clause`` without ``PARTITION BY`` runs in one task (``None``: it is split);
    ``engine``: its matches are the matcher's (it must search every start row)."""
    try:
        bounds(clause)
    except Unsupported as err:
        return str(err).removeprefix(f"unsupported: {SPLIT_REFUSED}: ")
    if refuse_ties:
        return "--ties error looks for ties in the whole partition"
    if clause.rows_per_match != "ONE" and any(isinstance(p, Exclude)
                                              for p in pattern_parts(clause.pattern)):
        return "ALL ROWS PER MATCH with {- -}: a match may output no row to find it by"
    fields = {f.name.upper(): f.dataType for f in schema.fields}
    for k in clause.order_by:
        if not isinstance(k.expr, Column) or not isinstance(
                fields.get(k.expr.name.upper()), ORDERED):
            return f"Spark does not order ORDER BY {k.expr} as Kleene does"
    if engine:
        try:
            CompiledRecognition(search_clause(clause))
        except Unsupported as err:
            return f"the matcher does not search it at every row: {err}"
    return None


def range_frame(df: DataFrame, clause: MatchRecognize, row: str, tasks: int | None,
                job: Ranged, out: T.StructType) -> DataFrame:
    """Steps 1-3 of the module docstring over ``df``, ``row`` its rows' index column."""
    keys = []
    names = {n.upper(): n for n in df.columns}   # as the DataFrame spells them
    for k in clause.order_by:
        assert isinstance(k.expr, Column)
        c = F.col("`" + names[k.expr.name.upper()].replace("`", "``") + "`")
        first = k.descending if k.nulls_first is None else k.nulls_first
        keys.append((c.desc_nulls_first() if first else c.desc_nulls_last()) if k.descending
                    else (c.asc_nulls_first() if first else c.asc_nulls_last()))
    parts = (df.repartitionByRange(tasks, *keys, F.col(row).asc()) if tasks
             else df.repartitionByRange(*keys, F.col(row).asc()))
    return (parts.mapInArrow(partial(range_task, job, row), SENT).repartition(1)
            .mapInArrow(partial(final_task, job), out))


@dataclass(frozen=True)
class Ranged:
    """What the tasks need: the clause, its bounds, matcher or reference, the output's
    Arrow schema, the step budget of one search run (``None``: the default), and the
    memory a task has (:mod:`.mr_sizes`: a range too large for it is refused)."""

    clause: MatchRecognize
    bounds: Bounds
    engine: bool
    schema: pa.Schema
    steps: int | None = None
    sizes: Sizes | None = None

    def budget(self) -> Budget:
        what = "recognizing a row pattern"
        return Budget(what=what) if self.steps is None else Budget(limit=self.steps, what=what)


def search_clause(clause: MatchRecognize) -> MatchRecognize:
    """``clause`` searching every start row (``TO NEXT ROW``), with the measures that place
    each match: its first and last row's :data:`POS`, and the skip's target row's."""
    pos = Column(POS)
    measures = [*clause.measures, Measure(Navigation("FIRST", pos, 0, "FINAL"), START),
                Measure(Navigation("LAST", pos, 0, "FINAL"), LAST)]
    skip = clause.after_match
    if skip.var is not None:
        measures.append(Measure(Navigation("FIRST" if skip.kind == "TO FIRST" else "LAST",
                                           Column(POS, skip.var), 0, "FINAL"), TARGET))
    return replace(clause, measures=tuple(measures), after_match=AfterMatchSkip("TO NEXT ROW"))


def found(job: Ranged, data: pa.Table, base: int, owned: np.ndarray) -> pa.Table:
    """The candidates at the start rows ``owned`` (a mask over ``data``'s rows) of the
    ordered rows ``data``, whose first is row ``base``: :data:`START`, :data:`RESUME`,
    :data:`ERROR` (``code: message`` of a data exception) and the output's columns."""
    table = data.append_column(POS, pa.array(np.arange(base, base + data.num_rows)))
    try:
        return _by_matcher(job, table, owned) if job.engine else _by_reference(job, data,
                                                                              base, owned)
    except DataError:
        return _by_reference(job, data, base, owned)


def _by_matcher(job: Ranged, table: pa.Table, owned: np.ndarray) -> pa.Table:
    out = CompiledRecognition(search_clause(job.clause)).recognize(table, budget=job.budget())
    names = [n.upper() for n in out.column_names]
    starts = out.column(names.index(START.upper())).to_pylist()
    lasts = out.column(names.index(LAST.upper())).to_pylist()
    targets = (out.column(names.index(TARGET.upper())).to_pylist()
               if TARGET.upper() in names else [None] * out.num_rows)
    base = table.column(POS)[0].as_py() if table.num_rows else 0
    keep: list[int] = []
    resumes: list[int | None] = []
    errors: list[str | None] = []
    skip = job.clause.after_match
    for i, (s, last, target) in enumerate(zip(starts, lasts, targets, strict=True)):
        if not owned[s - base]:
            continue
        keep.append(i)
        try:
            resumes.append(resume_at(skip, s, last + 1, [] if target is None else [target]))
            errors.append(None)
        except DataError as err:
            resumes.append(None)
            errors.append(f"{err.code}: {err.args[0]}")
    hidden = {POS.upper(), START.upper(), LAST.upper(), TARGET.upper()}
    rows = out.take(pa.array(keep, pa.int64())).select(
        [i for i, n in enumerate(names) if n not in hidden])
    return _candidates([starts[i] for i in keep], resumes, errors, typed(rows, job.schema))


def _by_reference(job: Ranged, data: pa.Table, base: int, owned: np.ndarray) -> pa.Table:
    """:func:`found` by the reference (a search it does not make raises nothing)."""
    rows = table_of(data).rows
    r = Recognizer(job.clause, Table(tuple(data.column_names), ()), job.budget())
    got = [c for lo in np.flatnonzero(owned).tolist()
           for c in candidates(r, rows, lo, lo + 1, job.bounds)]
    names = r.names()
    out: list[tuple[object, ...]] = []
    starts: list[int] = []
    resumes: list[int | None] = []
    errors: list[str | None] = []
    for c in got:   # a data exception's candidate: one row of NULLs stands for it
        for row in c.rows or [(None,) * len(names)]:
            out.append(row)
            starts.append(c.start + base)
            resumes.append(None if c.error else c.resume + base)
            errors.append(None if c.error is None else f"{c.error.code}: {c.error.args[0]}")
    output = arrow_of(Table(names, tuple(out)), like=data.schema)
    return _candidates(starts, resumes, errors, typed(output, job.schema))


def _candidates(starts: list[int], resumes: list[int | None], errors: list[str | None],
                rows: pa.Table) -> pa.Table:
    return pa.Table.from_arrays(
        [pa.array(starts, pa.int64()), pa.array(resumes, pa.int64()),
         pa.array(errors, pa.string()), *rows.columns],
        names=[START, RESUME, ERROR, *rows.column_names])


def to_ipc(table: pa.Table | None) -> bytes | None:
    """``table`` as one Arrow IPC stream (``None`` stays ``None``)."""
    if table is None:
        return None
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return bytes(sink.getvalue().to_pybytes())


def from_ipc(blob: bytes) -> pa.Table:
    """The table of an Arrow IPC stream (:func:`to_ipc`)."""
    return pa.ipc.open_stream(blob).read_all()


def range_task(job: Ranged, row: str, batches: Iterator[pa.RecordBatch]
               ) -> Iterator[pa.RecordBatch]:
    """Step 2 of the module docstring: one range's candidates, count and edges."""
    from pyspark import TaskContext  # noqa: PLC0415 (lazy: in the Python worker)

    received = list(batches)
    if not received:
        return
    table = pa.Table.from_batches(received)
    index = np.asarray(table.column(row).to_numpy(), dtype=np.int64)
    data = table.drop_columns([row]).take(pa.array(np.argsort(index, kind="stable")))
    data = data.take(pa.array(ordered(job.clause, data)[0]))
    n, b = data.num_rows, job.bounds
    if job.sizes is not None:
        job.sizes.check((), n, int(row_bytes(data).sum()), where=(
            "a range of the rows in ORDER BY order (no PARTITION BY)"))
    owned = np.zeros(n, dtype=bool)
    owned[b.before:max(n - b.after, b.before)] = True
    cands = found(job, data, 0, owned) if owned.any() else None
    edge = b.before + b.after
    head, tail = (data, None) if n <= 2 * edge else (data.slice(0, edge),
                                                      data.slice(n - edge))
    context = TaskContext.get()
    part = context.partitionId() if context is not None else 0
    yield pa.record_batch([pa.array([part], pa.int64()), pa.array([n], pa.int64()),
                           pa.array([to_ipc(cands)], pa.binary()),
                           pa.array([to_ipc(head)], pa.binary()),
                           pa.array([to_ipc(tail)], pa.binary())],
                          names=["part", "n", "cands", "head", "tail"])


def final_task(job: Ranged, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """Step 3 of the module docstring: the rows across the ranges numbered, the
    candidates near the edges found, the single process's matches kept, in its order."""
    received = list(batches)
    if not received:
        return
    sent = sorted(pa.Table.from_batches(received).to_pylist(), key=lambda r: r["part"])
    tables: list[pa.Table] = []
    interior: list[tuple[int, int]] = []   # the start rows a range task owned, numbered
    segment: list[pa.Table] = []           # consecutive rows sent, from segment_start
    segment_start = offset = 0

    def close() -> None:
        if segment:
            data = pa.concat_tables(segment)
            owned = ~_inside(np.arange(segment_start, segment_start + data.num_rows),
                             interior)
            if owned.any():
                tables.append(found(job, data, segment_start, owned))

    for r in sent:
        n = r["n"]
        if r["cands"] is not None:
            tables.append(_shifted(from_ipc(r["cands"]), offset))
            interior.append((offset + job.bounds.before, offset + n - job.bounds.after))
        if not segment:
            segment_start = offset
        segment.append(from_ipc(r["head"]))
        if r["tail"] is not None:   # the range's middle rows were not sent
            close()
            segment = [from_ipc(r["tail"])]
            segment_start = offset + n - segment[0].num_rows
        offset += n
    close()
    yield from chosen(tables, job.schema)


def chosen(tables: list[pa.Table], schema: pa.Schema) -> Iterator[pa.RecordBatch]:
    """The single process's matches among the candidates ``tables`` (:func:`found`'s,
    numbered across the ranges; each start row's from one table), in its order."""
    every = pa.concat_tables(tables) if tables else None
    if every is not None and every.num_rows:
        order = np.argsort(every.column(START).to_numpy(), kind="stable")
        yield from _kept(every.take(pa.array(order)), schema)


def _inside(pos: np.ndarray, spans: list[tuple[int, int]]) -> np.ndarray:
    mask = np.zeros(len(pos), dtype=bool)
    for lo, hi in spans:
        mask |= (pos >= lo) & (pos < hi)
    return mask


def _shifted(cands: pa.Table, offset: int) -> pa.Table:
    """A range's candidates with its rows numbered across the ranges."""
    return cands.set_column(0, START, pc.add(cands.column(START), offset)).set_column(
        1, RESUME, pc.add(cands.column(RESUME), offset))


def _kept(every: pa.Table, schema: pa.Schema) -> Iterator[pa.RecordBatch]:
    """The candidates (rows grouped by start, in order) the single process keeps."""
    starts = every.column(START).to_numpy()
    resumes = every.column(RESUME).to_pylist()
    errors = every.column(ERROR).to_pylist()
    edges = [0, *(np.flatnonzero(np.diff(starts)) + 1).tolist(), len(starts)]
    groups = [Candidate(int(starts[lo]), (), resumes[lo] or 0,
                        None if errors[lo] is None else DataError(*errors[lo].split(": ", 1)))
              for lo in edges[:-1]]
    chosen = {c.start for c in kept(groups)}
    take = [i for lo, hi in zip(edges, edges[1:], strict=False) if int(starts[lo]) in chosen
            for i in range(lo, hi)]
    rows = every.take(pa.array(take, pa.int64())).drop_columns([START, RESUME, ERROR])
    yield from pa.Table.from_arrays(rows.columns, schema=schema).to_batches()

