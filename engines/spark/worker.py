"""The engine inside a Spark task: Arrow batches in, match rows out (``mapInArrow``).

docs/architecture.md, "Spark": "the automaton runs per partition through ``mapInArrow``
(measured fastest: about 4× plain-Python cost per row, against 10× for
``applyInPandas``, 20× for RDDs)". A partition arrives sorted by its group
columns (stream, slice, Def. 6 key) and position (:mod:`.layout`); the worker
cuts it into groups and, for each group, renumbers its events 0..n−1 (what an
engine downstream of the pruning sees, like ``reference.ses.windows.as_stream``),
runs the compiled engine incrementally over them, maps each match back to the
stream's positions and keeps it only if the group's slice owns it (its first
event's timestamp, or position for a count window, lies in the slice,
:func:`.layout.owner`).

The engine's matches reach the worker as columns (:mod:`kleene.engines.match_columns`:
the lazy chain finds them so, other engines' are gathered), and ownership, the
stream's positions, the ids and the rows are array operations: 94 k matches
of the stock stream ×10 took 0.9 s of Python one by one, 0.2 s so. A match
leaves the worker as one row per bound event: ``match_id`` (a digest of the
canonical match, so reruns and retried tasks give the same ids), ``first``
(its first position), ``variable``, ``position`` and the event columns asked
for. Nothing here depends on the task attempt, so a retried task emits exactly
what the failed attempt would have; :data:`FAIL_ONCE` injects such a failure
for the fault tests.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from kleene.data.columnar import validated
from kleene.engines.match_columns import MatchColumns, digest, match_batches
from kleene.engines.protocol import Engine, Query
from kleene.engines.spark.layout import owners
from kleene.reference.budget import step_budget
from kleene.reference.errors import StreamError
from kleene.reference.events import Stream
from kleene.reference.match import Match

#: Environment variable: a partition number whose first task attempt fails after
#: emitting its first batch (the fault-injection hook of the retry tests).
FAIL_ONCE = "KLEENE_SPARK_FAIL_ONCE"

#: The fixed columns of a match row.
MATCH_COLUMNS = ("match_id", "first", "variable", "position")

#: Rows per output batch.
BATCH_ROWS = 8192


def match_id(m: Match) -> str:
    """A deterministic id of a match: 128 bits of BLAKE2b over its canonical JSON
    (:func:`~kleene.engines.match_columns.digest`; :meth:`.MatchColumns.ids` for many)."""
    return digest(m.dumps())


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
    query: Query
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
    by_position: bool = False        # slices own matches by first position, not timestamp
    budget: int | None = None        # each partition's step budget (None: the defaults)


def _groups(task: Task, batches: Iterator[Any]) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """The partition's rows cut into its groups (runs of equal group columns), each
    ``(key, table)``; no row becomes a Python object."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    tables = [pa.Table.from_batches([b]) for b in batches if b.num_rows]
    if not tables:
        return
    table = pa.concat_tables(tables).combine_chunks()
    n = table.num_rows
    change = np.zeros(n, dtype=bool)
    change[0] = True
    for g in task.groups:
        col = table.column(g)
        differs = pc.fill_null(pc.not_equal(col.slice(1), col.slice(0, n - 1)), True)
        change[1:] |= np.asarray(differs.to_numpy(zero_copy_only=False), dtype=bool)
        change[1:] |= np.asarray(pc.is_null(col.slice(1)).to_numpy(zero_copy_only=False)) \
            != np.asarray(pc.is_null(col.slice(0, n - 1)).to_numpy(zero_copy_only=False))
    starts = np.flatnonzero(change).tolist() + [n]
    keys = zip(*[table.column(g).take(pa.array(starts[:-1])).to_pylist()
                 for g in task.groups], strict=True) if task.groups \
        else iter([()] * (len(starts) - 1))
    for key, a, b in zip(keys, starts, starts[1:], strict=False):
        yield tuple(key), table.slice(a, b - a)


def group_stream(task: Task, group: Any) -> tuple[Stream, Any]:
    """A group's events as a stream over its columns (renumbered 0..n−1), and the
    stream positions of its rows."""
    positions = group.column(task.position).to_numpy()
    names = [task.ts, *([task.type] if task.type else []), *task.attributes]
    try:
        columns, _ = validated(group.select(names), ts=task.ts, type=task.type,
                               source="<spark partition>")
    except StreamError as err:
        row = None if err.row is None else int(positions[err.row])
        raise StreamError(err.message, row=row, field=err.field, source=err.source) from None
    if len(positions) > 1 and (positions[1:] <= positions[:-1]).any():
        raise StreamError("positions out of order in a group", field=task.position)
    return Stream.from_columns(columns, task.query.time_unit), positions


def _rows(task: Task, stream: Sequence[Any], found: MatchColumns, local: MatchColumns,
          group: Any) -> Any:
    """The match rows of ``found`` (its positions the stream's; ``local`` the same
    matches in the group's positions, for the event columns copied) as an Arrow
    table of the task's schema: per variable, a row per bound position."""
    import numpy as np
    import pyarrow as pa

    ids = pa.array(found.ids(), pa.string())
    first = found.first()
    parts = []
    for v, var in enumerate(found.variables):
        lengths = found.lengths(v)
        at = np.repeat(np.arange(len(found)), lengths)
        n = len(at)
        columns = [pa.repeat(pa.scalar(value, task.schema.field(i).type), n)
                   for i, value in enumerate(stream)]
        columns += [ids.take(at), pa.array(first[at]), pa.repeat(pa.scalar(var), n),
                    pa.array(found.positions[v])]
        columns += [group.column(c).take(pa.array(local.positions[v])) for c in task.columns]
        parts.append(pa.Table.from_arrays(columns, schema=task.schema))
    return pa.concat_tables(parts)


def task_threads() -> None:
    """Arrow's thread pool as large as the running Spark task's share of cores
    (``spark.task.cpus``, 1 by default): Spark runs one task per core, so a task whose
    Arrow kernels (the CSV reader of the stock lines, say) spread over every core of
    the machine takes the cores of the others — and ``local[1]`` would use them all."""
    import pyarrow as pa
    from pyspark import TaskContext

    context = TaskContext.get()
    if context is not None and pa.cpu_count() != max(1, context.cpus()):
        pa.set_cpu_count(max(1, context.cpus()))


def run_partition(task: Task, batches: Iterator[Any]) -> Iterator[Any]:
    """The ``mapInArrow`` function: every owned match of every group of the partition.

    Each group's Arrow columns go to the engine as a stream
    (:meth:`~kleene.reference.events.Stream.from_columns`, :func:`group_stream`): the
    engine filters on them and builds events only for the rows it keeps."""
    task_threads()
    yield from run_groups(task, ((key, group, *group_stream(task, group))
                                 for key, group in _groups(task, batches)))


#: A group as the engine takes it: its key (the group columns' values), its rows (the
#: event columns copied to the output), its stream (:func:`group_stream`) and the stream
#: positions of its rows.
Group = tuple[tuple[Any, ...], Any, Stream, Any]


def run_groups(task: Task, groups: Iterable[Group]) -> Iterator[Any]:
    """Every owned match of ``groups`` (each a :data:`Group`, validated once by whoever
    made it: :func:`run_partition`, or a slice task of :mod:`.direct` that filtered the
    stream it validated) as Arrow batches of the task's schema. The groups draw on one
    step budget (``task.budget``; one step a match, and what the engine holds at once),
    as one run of the single process does: past it the task fails with
    :class:`~kleene.reference.errors.BudgetExceeded`, one line on the driver."""
    compiled = task.engine.compile(task.query)
    budget = step_budget(task.budget, what=f"running engine {task.engine.name} on Spark")
    slice_at = task.groups.index(task.slice_column) if task.slice_column else None
    for key, group, stream, origin in groups:
        assert stream.columns is not None
        stamps = stream.columns.ts.to_numpy()
        for local in match_batches(compiled, stream, budget=budget):
            budget.spend(len(local))
            if slice_at is not None:
                first = local.first()
                at = origin[first] if task.by_position else stamps[first]
                local = local.take(owners(task.bounds, at) == key[slice_at])
            if not len(local):
                continue
            rows = _rows(task, key[:len(task.streams)], local.mapped(origin), local, group)
            for batch in rows.to_batches(BATCH_ROWS):
                yield batch
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
