"""Match rows of the direct slices written by the engine tasks themselves: as Parquet
(:func:`write`), or as Arrow files that the driver reads (:func:`collected`).

Issue 14 (``local[2]`` / ``local[1]`` ≥ 1.6×). On the direct slices
(:mod:`.direct`) the JVM's only part in the engine stage is to take the match
rows from the Python workers, turn them from Arrow into its own rows and write
them as Parquet. For ``nfa-chain`` on the stock stream ×10 (187,900 rows) that
took 0.2-0.3 s of the JVM's CPU per query, beside its compiler: free on
``local[1]``, where the JVM has the second core to itself, but taken from the
Python workers on ``local[2]``.

So where :func:`runner.write_matches <kleene.engines.spark.runner.write_matches>`
is given exactly the DataFrame a direct plan returned (:func:`mark`; any other
DataFrame, a filtered one say, goes through Spark's writer), as Parquet, to a local
path, on a local master, each engine task writes its rows with pyarrow to a staging
folder beside the output and returns only the file's name. The commit is the
driver's: a job's collected results hold one attempt per partition, the one that
succeeded, so the driver removes every other file (whatever a failed or retried
attempt left there), adds Spark's ``_SUCCESS``, and renames the staging folder into
the place of the output (:func:`kleene.data.outputs.replacing_folder`: a failure
leaves the previous output as it was). Nothing else differs from Spark's writer:
the same rows, one file per partition that has some (one empty file with the
schema when none has), readable by ``spark.read.parquet``.
"""

from __future__ import annotations

import os
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial
from typing import Any

from kleene.data.outputs import replacing_folder
from kleene.engines.spark.direct import Slices, run_slices
from kleene.engines.spark.text_splits import local_path
from kleene.engines.spark.worker import Task

#: The attribute of a match DataFrame that :func:`mark` sets.
_MARK = "_kleene_direct_run"

#: Write modes that this writer takes (others go through Spark's writer).
MODES = ("overwrite", "errorifexists", "error")

_RESULT = "file string"


@dataclass(frozen=True)
class DirectRun:
    """What the engine stage of a direct plan needs: the DataFrame of slice numbers,
    the slices and the task."""

    events: Any
    slices: Slices
    task: Task


def mark(matches: Any, run: DirectRun) -> Any:
    """``matches`` (the match DataFrame of ``run``), marked for :func:`writable`."""
    setattr(matches, _MARK, run)
    return matches


def writable(matches: Any, path: str, fmt: str, mode: str) -> DirectRun | None:
    """The direct run behind ``matches`` when this writer can write it to ``path``:
    Parquet, a local path on a local master, and a mode it takes (``errorifexists``
    only where nothing is at ``path``); else ``None`` (Spark's writer writes it). A
    folder holding the events is refused before this is asked (:func:`read_by`)."""
    run = getattr(matches, _MARK, None)
    target = local_path(path)
    if not isinstance(run, DirectRun) or fmt != "parquet" or target is None:
        return None
    if not matches.sparkSession.sparkContext.master.startswith("local"):
        return None
    if mode not in MODES or (mode != "overwrite" and os.path.exists(target)):
        return None
    return run


def read_by(matches: Any) -> list[str]:
    """The local file that the tasks of the direct run behind ``matches`` read
    themselves (none for another DataFrame): Spark does not know they read it, so
    its ``inputFiles`` does not name it."""
    run = getattr(matches, _MARK, None)
    splits = run.slices.source.scanned.splits if isinstance(run, DirectRun) else None
    return [splits.path] if splits else []


def _write_task(slices: Slices, task: Task, staging: str, fmt: str, batches: Iterator[Any]
                ) -> Iterator[Any]:
    """The ``mapInArrow`` function: the engine over the slices of this partition, its
    rows written to a file of its own in ``staging`` (``fmt``: ``parquet``, or
    ``arrow`` for Arrow IPC); one row back: the file, or ``None`` when there were no
    rows."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    from pyspark import TaskContext

    context = TaskContext.get()
    part, attempt = (context.partitionId(), context.attemptNumber()) if context else (0, 0)
    name = f"part-{part:05d}-{attempt}-{uuid.uuid4().hex}.{fmt}"
    rows, writer = 0, None
    try:
        for batch in run_slices(slices, task, batches):
            if writer is None:
                path = os.path.join(staging, name)
                writer = pq.ParquetWriter(path, task.schema) if fmt == "parquet" \
                    else pa.ipc.new_file(path, task.schema)
            writer.write_batch(batch)
            rows += batch.num_rows
    finally:
        if writer is not None:
            writer.close()
    yield pa.RecordBatch.from_pylist([{"file": name if rows else None}],
                                     schema=pa.schema([("file", pa.string())]))


def _files(run: DirectRun, staging: str, fmt: str) -> list[str]:
    """Run the engine stage of ``run``, each task writing its rows to ``staging`` as
    ``fmt``; the files of the attempts that succeeded (one per partition with rows,
    in partition order)."""
    function = partial(_write_task, run.slices, run.task, staging, fmt)
    results = run.events.mapInArrow(function, _RESULT).collect()
    return sorted(r["file"] for r in results if r["file"])


def collected(matches: Any) -> Any | None:
    """The match rows of ``matches`` as one Arrow table, handed over by the engine tasks
    in Arrow IPC files in a temporary folder of the driver, when ``matches`` is the
    DataFrame of a direct run on a local master (the tasks see the driver's folders);
    else ``None`` (Spark's ``collect`` takes them). Issue 33 item 2: through Spark, the
    81,900 matches of Wayeb's reg1 on the stock stream ×100 (245,700 rows) cost 4 CPU s
    beside the engine stage (the JVM's rows, their pickles, the driver's ``Row``
    objects; docs/benchmarks.md, "Where the CPU of kleene match --spark goes")."""
    import pyarrow as pa

    run = getattr(matches, _MARK, None)
    if not isinstance(run, DirectRun) or \
            not matches.sparkSession.sparkContext.master.startswith("local"):
        return None
    with tempfile.TemporaryDirectory(prefix="kleene-matches-") as staging:
        tables = []
        for name in _files(run, staging, "arrow"):
            with pa.OSFile(os.path.join(staging, name)) as source:
                tables.append(pa.ipc.open_file(source).read_all())
    return pa.concat_tables(tables) if tables else run.task.schema.empty_table()


def write(run: DirectRun, path: str, mode: str) -> None:
    """Run the engine stage of ``run`` and commit its files to the folder ``path``
    (see the module docstring); ``mode`` as :func:`writable` allowed it."""
    import pyarrow.parquet as pq

    target = str(local_path(path))
    with replacing_folder(target, option="the output") as staging:
        files = set(_files(run, staging, "parquet"))
        for name in os.listdir(staging):
            if name not in files:      # what a failed or retried attempt left
                os.remove(os.path.join(staging, name))
        if not files:
            pq.write_table(run.task.schema.empty_table(),
                           os.path.join(staging, "part-00000.parquet"))
        with open(os.path.join(staging, "_SUCCESS"), "w", encoding="utf-8"):
            pass
