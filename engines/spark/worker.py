"""The engine inside a Spark task: Arrow batches in, match rows out (``mapInArrow``).

DESIGN.md, "Spark": "the automaton runs per partition through ``mapInArrow``
(measured fastest: about 4× plain-Python cost per row, against 10× for
``applyInPandas``, 20× for RDDs)". A partition arrives sorted by its group
columns (stream, slice, Def. 6 key) and position (:mod:`.layout`); the worker
cuts it into groups and, for each group, renumbers its events 0..n−1 (what an
engine downstream of the pruning sees, like ``reference.ses.windows.as_stream``),
runs the compiled engine incrementally over them, maps each match back to the
stream's positions and keeps it only if the group's slice owns it (its first
event's timestamp lies in the slice, :func:`.layout.owner`).

A match leaves the worker as one row per bound event: ``match_id`` (a digest of
the canonical match, so reruns and retried tasks give the same ids), ``first``
(its first position), ``variable``, ``position`` and the event columns asked
for. Nothing here depends on the task attempt, so a retried task emits exactly
what the failed attempt would have; :data:`FAIL_ONCE` injects such a failure
for the fault tests.
"""

from __future__ import annotations

import hashlib
import itertools
import math
from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from kleene.engines.protocol import Engine
from kleene.engines.spark.layout import owner
from kleene.reference.errors import StreamError
from kleene.reference.events import Event
from kleene.reference.match import Match

#: Environment variable: a partition number whose first task attempt fails after
#: emitting its first batch (the fault-injection hook of the retry tests).
FAIL_ONCE = "KLEENE_SPARK_FAIL_ONCE"

#: The fixed columns of a match row.
MATCH_COLUMNS = ("match_id", "first", "variable", "position")

#: Rows per output batch.
BATCH_ROWS = 8192


def match_id(m: Match) -> str:
    """A deterministic id of a match: 128 bits of BLAKE2b over its canonical JSON."""
    return hashlib.blake2b(m.dumps().encode(), digest_size=16).hexdigest()


@dataclass(frozen=True)
class Task:
    """What every task of one run needs; pickled once with the function.

    ``attributes`` are the columns read into each event's attributes (the ones
    the pattern reads); ``groups`` the group columns in sort order; ``bounds``
    the slice boundaries when the layout is sliced (the slice column is
    ``slice_column``); ``columns`` the event columns copied to the output;
    ``streams`` the stream columns copied to the output.
    """

    engine: Engine
    pattern: Any
    policy: str
    time_unit: str | None
    ts: str
    type: str | None
    position: str
    attributes: tuple[str, ...]
    groups: tuple[str, ...]
    streams: tuple[str, ...]
    columns: tuple[str, ...]
    slice_column: str | None
    bounds: tuple[int | float, ...]
    schema: Any                      # the pyarrow schema of the output
    fail_once: int | None = None


def _values(batch: Any, name: str) -> list[Any]:
    """Column ``name`` as Python values; NaN becomes missing, as in the loaders."""
    import pyarrow as pa
    import pyarrow.compute as pc

    col = batch.column(name)
    if pa.types.is_floating(col.type):
        col = pc.if_else(pc.is_nan(col), pa.scalar(None, col.type), col)
    return col.to_pylist()


def _rows(task: Task, batches: Iterator[Any]) -> Iterator[tuple[Any, ...]]:
    """``(group key, position, ts, type, attrs, outputs)`` per row, in partition order."""
    names = task.attributes
    for batch in batches:
        n = batch.num_rows
        if not n:
            continue
        keys = [_values(batch, g) for g in task.groups]
        group = zip(*keys, strict=True) if keys else itertools.repeat((), n)
        kinds = (_values(batch, task.type) if task.type else itertools.repeat(None, n))
        attrs = zip(*[_values(batch, a) for a in names], strict=True) if names \
            else itertools.repeat((), n)
        outs = zip(*[batch.column(c).to_pylist() for c in task.columns], strict=True) \
            if task.columns else itertools.repeat((), n)
        yield from zip(group, batch.column(task.position).to_pylist(),   # repeats are endless
                       _values(batch, task.ts), kinds, attrs, outs, strict=False)


class _Output:
    """Match rows gathered into Arrow record batches of the task's schema."""

    def __init__(self, task: Task) -> None:
        self.task = task
        self.width = len(task.streams) + len(MATCH_COLUMNS) + len(task.columns)
        self.data: list[list[Any]] = [[] for _ in range(self.width)]

    def add(self, stream: Sequence[Any], m: Match, local: Match,
            extra: Sequence[tuple[Any, ...]]) -> None:
        ident, first = match_id(m), m.first
        for (var, ps), (_, local_ps) in zip(m.bindings, local.bindings, strict=True):
            for p, q in zip(ps, local_ps, strict=True):
                row = (*stream, ident, first, var, p, *(extra[q] if extra else ()))
                for column, value in zip(self.data, row, strict=True):
                    column.append(value)

    def full(self) -> bool:
        return len(self.data[0]) >= BATCH_ROWS

    def flush(self) -> Any:
        import pyarrow as pa

        batch = pa.RecordBatch.from_arrays(
            [pa.array(col, type=f.type) for col, f in zip(self.data, self.task.schema,
                                                           strict=True)],
            schema=self.task.schema)
        self.data = [[] for _ in range(self.width)]
        return batch


def _events(task: Task, rows: Iterator[tuple[Any, ...]], origin: array,
            stamps: list[int | float], extra: list[tuple[Any, ...]]) -> Iterator[Event]:
    """The group's events renumbered 0..n−1; ``origin``, ``stamps`` and ``extra``
    record each one's stream position, timestamp and output columns."""
    names = task.attributes
    previous: int | float | None = None
    last = -1
    for i, (_, position, ts, kind, attrs, outs) in enumerate(rows):
        if ts is None or (isinstance(ts, float) and not math.isfinite(ts)):
            raise StreamError(f"timestamp must be a finite number, got {ts}", row=position,
                              field=task.ts)
        if position <= last or (previous is not None and ts < previous):
            raise StreamError(f"timestamp {ts} is earlier than the previous event's "
                              f"{previous}; sort the events by {task.ts}", row=position,
                              field=task.ts)
        previous, last = ts, position
        origin.append(position)
        stamps.append(ts)
        if task.columns:
            extra.append(outs)
        kind = kind if kind is None or isinstance(kind, str) else str(kind)
        yield Event(i, ts, kind, dict(zip(names, attrs, strict=True)))


def run_partition(task: Task, batches: Iterator[Any]) -> Iterator[Any]:
    """The ``mapInArrow`` function: every owned match of every group of the partition."""
    compiled = task.engine.compile(task.pattern, policy=task.policy, time_unit=task.time_unit)
    out = _Output(task)
    emitted = False
    n_streams = len(task.streams)
    slice_at = task.groups.index(task.slice_column) if task.slice_column else None
    for key, rows in itertools.groupby(_rows(task, batches), key=lambda r: r[0]):
        origin: array = array("q")
        stamps: list[int | float] = []
        extra: list[tuple[Any, ...]] = []
        for local in compiled.run(_events(task, rows, origin, stamps, extra)):
            if slice_at is not None and owner(task.bounds, stamps[local.first]) != key[slice_at]:
                continue
            m = Match(tuple((v, tuple(origin[p] for p in ps)) for v, ps in local.bindings))
            out.add(key[:n_streams], m, local, extra)
            if out.full():
                yield out.flush()
                emitted = True
                _maybe_fail(task)
    if out.data[0]:
        yield out.flush()
        emitted = True
    if emitted:
        _maybe_fail(task)


def _maybe_fail(task: Task) -> None:
    """The fault hook: fail the first attempt of partition ``task.fail_once``
    once it has emitted output (that output must not reach the result)."""
    if task.fail_once is None:
        return
    from pyspark import TaskContext

    context = TaskContext.get()
    if context is not None and context.partitionId() == task.fail_once \
            and context.attemptNumber() == 0:
        raise RuntimeError(f"injected failure ({FAIL_ONCE}) in partition {task.fail_once}")
