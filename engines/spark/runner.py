"""Any engine over a Spark DataFrame of events: the Python API (issue 5).

docs/architecture.md, "Spark": ``DataFrame → filter pushdown (Thm 1 as a Column) →
partition (Def. 6 keys, or time slices with τ overlap) → engine per partition
(mapInArrow) → match DataFrame``. Results equal the single-process engine's.

Example::

    matches = match_dataframe(df, "PATTERN <{b, s}> WHERE ... WITHIN 500 ms",
                              policy="next", ts="ts")   # engine: the fastest that claims it
    write_matches(matches, "out/matches.parquet")      # or collect_matches(matches)

The steps: the engine compiles the pattern on the driver first (an
:class:`~kleene.reference.errors.Unsupported` pattern or policy fails before
any job); :func:`~kleene.engines.spark.plan.plan_for` decides which cuts are
sound; the Thm 1 condition becomes a Column (:mod:`.pushdown`), so irrelevant
events never leave the JVM; only the columns the pattern reads travel to
Python; :func:`.layout.arrange` partitions and sorts; :func:`.worker.run_partition`
runs the engine. The match DataFrame has one row per bound event: the stream
columns (if any), ``match_id``, ``first``, ``variable``, ``position`` and the
event columns asked for. :func:`collect_matches` and :func:`write_matches` turn
a user mistake found inside a task (an unsorted row of a DataFrame with given
positions) into one line, :class:`SparkJobFailed`.
"""

from __future__ import annotations

import os
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from functools import partial
from typing import Any
from urllib.parse import unquote, urlparse

from kleene.data.outputs import OutputError, refuse_inputs, replacing_folder
from kleene.engines.protocol import Engine, Query
from kleene.engines.registry import engine as engine_named
from kleene.engines.registry import fastest_engine
from kleene.engines.spark import direct_write
from kleene.engines.spark.direct import Slices, for_tasks, run_slices, usable
from kleene.engines.spark.direct import layout as slice_layout
from kleene.engines.spark.direct_keys import MOST_OVERLAP, overlap
from kleene.engines.spark.direct_write import DirectRun
from kleene.engines.spark.frames import EventFrame, from_dataframe, read_events, shown
from kleene.engines.spark.index import SAMPLE_EVERY
from kleene.engines.spark.layout import SLICE, Layout, arrange, boundaries
from kleene.engines.spark.plan import Plan, attributes_read, check_supported, plan_for
from kleene.engines.spark.pushdown import to_column
from kleene.engines.spark.session import worker_python
from kleene.engines.spark.text_splits import local_path, read_by_tasks
from kleene.engines.spark.worker import FAIL_ONCE, MATCH_COLUMNS, Task, run_partition
from kleene.reference.errors import KleeneError, PatternError, Unsupported
from kleene.reference.match import Match
from kleene.reference.pattern import Pattern

#: Default Spark partitions per core for the engine stage. Each task costs ~0.05 s
#: beside its work (the worker's start and its Parquet file) and a slice's reach is read
#: twice, so more tasks only pay when the slices' work is uneven. Measured on the stock
#: stream ×10 (2 cores, least of 4 after warm-up): 2 per core rather than 4 took
#: ``nfa-chain`` from 1.43 to 1.13 s on ``local[2]`` (1.94 to 1.79 s on ``local[1]``),
#: SREMO's time window from 1.29 to 1.19 s, and the SES set patterns the same within
#: the noise of single runs.
TASKS_PER_CORE = 2


class SparkJobFailed(KleeneError):
    """A Spark job stopped on a user mistake found inside a task (a bad row, say)."""

    code = "spark"

    def __str__(self) -> str:
        return str(self.args[0])


@contextmanager
def job_errors() -> Iterator[None]:
    """Turn a Kleene error raised in a Spark task into one line on the driver."""
    try:
        yield
    except KleeneError:
        raise
    except Exception as err:
        text = str(err)
        found = re.findall(r"kleene\.reference\.errors\.\w+: (.+)", text)
        if found:
            raise SparkJobFailed(found[-1].strip()) from None
        raise


def engine_for(engine: str | Engine | None, query: Query) -> Engine:
    """The engine named, or (``None``) the fastest registered engine that claims the
    query (:func:`~kleene.engines.registry.fastest_engine`)."""
    if engine is None:
        choice = fastest_engine(query)
        if choice is None:
            raise Unsupported(f"no registered engine claims this {query.language} pattern "
                              f"under policy {query.policy}; Spark runs engines only (drop "
                              "--spark to use the reference semantics)")
        engine = choice.name
    return engine_named(engine) if isinstance(engine, str) else engine


def _tau(query: Query) -> int | float | None:
    window = query.lang.window(query.pattern)
    return None if window is None else window.in_units_of(query.time_unit)


def _bounds(frame: EventFrame, plan: Plan, slices: int | Sequence[float] | None,
            tasks: int) -> tuple[int | float, ...]:
    """The slice boundaries: given, or cut from the sampled timestamps."""
    if plan.reach is None or plan.tau is None:
        return ()
    if slices is not None and not isinstance(slices, int):
        return tuple(sorted(set(slices)))
    count = tasks if slices is None else slices
    if count <= 1:
        return ()
    gap = 4 * sum(plan.reach) * plan.tau
    if plan.by_position:
        n = frame.count if frame.count is not None else frame.df.count()
        return boundaries(range(n), count, min_gap=gap)
    samples = frame.samples
    if not samples:
        probs = [j / (count * 4) for j in range(count * 4 + 1)]
        samples = tuple(frame.df.approxQuantile(frame.ts, probs, 0.001))
    return boundaries(samples, count, min_gap=gap)


def _output_schema(df: Any, streams: Sequence[str], columns: Sequence[str]) -> Any:
    from pyspark.sql.types import LongType, StringType, StructField, StructType

    fields = [df.schema[s] for s in streams]
    fields += [StructField("match_id", StringType(), False), StructField("first", LongType()),
               StructField("variable", StringType()), StructField("position", LongType())]
    fields += [StructField(c, df.schema[c].dataType) for c in columns]
    return StructType(fields)


Explain = Callable[[str], None] | None


@dataclass(frozen=True)
class Prepared:
    """A run laid out, not started: the arranged events the engine stage reads,
    the :class:`~kleene.engines.spark.plan.Plan`, the layout and the task."""

    events: Any
    plan: Plan
    layout: Layout
    task: Task
    schema: Any
    direct: Slices | None = None

    def explain(self) -> str:
        """The plan and the layout in words."""
        layout = self.layout
        cut = (f", {len(layout.bounds) + 1} slices cut at {list(layout.bounds)}"
               if layout.sliced else "")
        read = ", each read straight from the parsed splits" if self.direct else ""
        if self.direct and self.direct.keys:
            read = (f", each task the rows of its keys {', '.join(self.plan.keys)} read "
                    "straight from the parsed splits (no shuffle; time slices would overlap "
                    "too much)")
        elif self.direct and self.plan.keys:
            read += f" (the keys {', '.join(self.plan.keys)} not used: no shuffle)"
        return (f"{self.plan.explain()}\nlayout: {layout.partitions} Spark partitions, "
                f"groups by {', '.join(layout.groups) or '(none)'}{cut}{read}")

    def matches(self) -> Any:
        """The match DataFrame (lazy): the engine over every group (``mapInArrow``)."""
        if self.direct is not None:
            df = self.events.mapInArrow(partial(run_slices, self.direct, self.task),
                                        self.schema)
            return direct_write.mark(df, DirectRun(self.events, self.direct, self.task))
        return self.events.mapInArrow(partial(run_partition, self.task), self.schema)


def checked_engine(engine: str | Engine | None, query: Query) -> Engine:
    """The engine of a run, compiled once on the driver so that an unsupported
    pattern, policy or window reading is one line before any job. The events'
    time unit may be known only once they are read (stock lines and datetimes
    are in ms): until then ``ms`` stands in, and :func:`prepare` compiles again
    with the frame's unit."""
    check_supported(query)
    eng = engine_for(engine, query)
    eng.compile(query.with_time_unit("ms"))
    return eng


def prepare(frame: EventFrame, query: Query, *, engine: str | Engine | None = None,
            columns: Sequence[str] = (), tasks: int | None = None,
            slices: int | Sequence[float] | None = None, budget: int | None = None) -> Prepared:
    """Compile, plan and lay out a run (see :func:`match_frame`); nothing runs yet
    but the sampling of timestamps when they are unknown."""
    from pyspark.sql.pandas.types import to_arrow_schema

    query = query.with_time_unit(frame.time_unit)
    pattern = query.pattern
    eng = checked_engine(engine, query)
    worker_python(frame.df.sparkSession)
    plan = plan_for(eng, query, tau=_tau(query))
    read = sorted(attributes_read(pattern))
    missing = sorted({frame.column_of(a) for a in read} - set(frame.df.columns))
    if missing:
        raise PatternError(f"the pattern reads {', '.join(missing)}, which the events do not "
                           f"have; columns: {shown(frame.df.columns)}")
    unknown = sorted(set(columns) - set(frame.df.columns))
    if unknown:
        raise PatternError(f"no column {', '.join(unknown)} to copy to the matches; columns: "
                           f"{shown(frame.df.columns)}")
    attributes = tuple(dict.fromkeys(frame.column_of(a) for a in read
                                     if frame.column_of(a) not in (frame.ts, frame.type)))
    keys = [frame.column_of(a) for a in plan.keys]
    needed = dict.fromkeys([*frame.streams, frame.position, frame.ts,
                            *([frame.type] if frame.type else []), *attributes, *keys, *columns])
    spark = frame.df.sparkSession
    tasks = tasks or spark.sparkContext.defaultParallelism * TASKS_PER_CORE
    bounds = _bounds(frame, plan, slices, tasks)
    direct = None
    sliced = usable(frame.splits, frame.df, plan, frame.streams, bounds)
    if sliced or (keys and usable(frame.splits, frame.df, replace(plan, reach=(0, 0), tau=0),
                                  frame.streams, (0,))):
        assert frame.splits is not None
        reach, tau = plan.reach or (0, 0), plan.tau or 0
        axis = range(0, frame.count or 0, SAMPLE_EVERY) if plan.by_position else frame.samples
        by_key = tuple(keys) if not sliced or overlap(axis, bounds, reach, tau) > MOST_OVERLAP \
            else ()
        direct = Slices(for_tasks(frame.splits), tuple(bounds) if sliced else (), reach, tau,
                        plan.by_position, plan.filter, frame.ts, tuple(needed), by_key,
                        tasks if by_key else 0)
        df, layout = slice_layout(spark, direct)
    else:
        df = frame.df
        if plan.filter is not None:
            schema = {f.name: f.dataType.simpleString() for f in df.schema.fields}
            df = df.filter(to_column(plan.filter, schema, ts=frame.ts,
                                     type_=frame.type or "type"))
        df, layout = arrange(df.select(*needed), plan, ts=frame.ts, position=frame.position,
                             keys=keys, streams=frame.streams, bounds=bounds, tasks=tasks)
    schema = _output_schema(frame.df, frame.streams, columns)
    fail = os.environ.get(FAIL_ONCE)
    task = Task(engine=eng, query=query, ts=frame.ts, type=frame.type, position=frame.position,
                attributes=attributes, groups=layout.groups, streams=frame.streams,
                columns=tuple(columns), slice_column=SLICE if layout.sliced else None,
                bounds=layout.bounds,
                schema=to_arrow_schema(schema), fail_once=int(fail) if fail else None,
                by_position=plan.by_position, budget=budget)
    return Prepared(df, plan, layout, task, schema, direct)


def match_frame(frame: EventFrame, pattern: str | Pattern | Query, *,
                engine: str | Engine | None = None, policy: str | None = None,
                reading: str | None = None, columns: Sequence[str] = (),
                tasks: int | None = None, slices: int | Sequence[float] | None = None,
                explain: Explain = None, budget: int | None = None) -> Any:
    """The match DataFrame of ``pattern`` (its text, an AST or a :class:`Query`, decided
    here once as in :func:`match_dataframe`) on ``frame`` (see the module docstring).

    ``tasks`` is the number of Spark partitions (default: 2 per core); ``slices``
    the number of time slices (default ``tasks``; 1: none) or their boundaries;
    ``explain`` receives the query's window and reading, the plan and the layout in
    words; ``budget`` is each partition's step budget (``kleene match --budget``; None:
    the defaults of :func:`~kleene.reference.budget.step_budget`).
    """
    query = Query.ask(pattern, policy=policy, reading=reading,
                      door="match_frame on Spark")
    run = prepare(frame, query, engine=engine, columns=columns, tasks=tasks, slices=slices,
                  budget=budget)
    if explain is not None:
        explain(f"query: {run.task.query.said()}\n{run.explain()}")
    return run.matches()


def match_dataframe(df: Any, pattern: str | Pattern | Query, *,
                    engine: str | Engine | None = None, policy: str | None = None,
                    reading: str | None = None, ts: str = "ts", type: str | None = "type",
                    time_unit: str | None = None, position: str | None = None,
                    streams: Sequence[str] = (), columns: Sequence[str] = (),
                    tasks: int | None = None, slices: int | Sequence[float] | None = None,
                    explain: Explain = None) -> Any:
    """The matches of ``pattern`` (its text, an AST or a :class:`Query`) on the events of
    ``df``: the query is decided here, once (:meth:`Query.ask`: the language's default
    policy and window reading unless ``policy`` or ``reading`` is given).

    ``ts`` names the timestamp column, ``type`` the type column, ``time_unit``
    the timestamps' unit (``ms s min h d``; datetimes are ms). Without
    ``position`` the rows are numbered in ``df``'s order (one checking pass
    runs now); ``position`` names an integer column that already numbers them,
    per stream of ``streams`` (columns naming independent streams, copied to
    the output). ``columns`` are event columns copied to each match row.
    """
    query = Query.ask(pattern, policy=policy, reading=reading, time_unit=time_unit,
                      door="match_dataframe on Spark")
    eng = checked_engine(engine, query)   # before any job
    worker_python(df.sparkSession)   # before the numbering pass, which runs Python workers
    frame = from_dataframe(df, ts=ts, type=type, time_unit=query.time_unit, position=position,
                           streams=streams, require=attributes_read(query.pattern))
    return match_frame(frame, query, engine=eng, columns=columns, tasks=tasks, slices=slices,
                       explain=explain)


def match_file(spark: Any, path: str, pattern: str | Pattern | Query, *,
               engine: str | Engine | None = None, policy: str | None = None,
               reading: str | None = None, format: str | None = None, ts: str | None = None,
               type: str | None = "type", time_unit: str | None = None,
               columns: Sequence[str] = (), tasks: int | None = None,
               slices: int | Sequence[float] | None = None, stock: str = "arrow",
               limit: int | None = None, schema: str | None = None,
               explain: Explain = None) -> Any:
    """The matches of ``pattern`` (as :func:`match_dataframe`) on the events of a CSV,
    JSON Lines, Parquet or stock file (options as
    :func:`kleene.data.loaders.load_events`; ``schema`` a DDL string declaring the
    columns of a CSV or JSON Lines file)."""
    query = Query.ask(pattern, policy=policy, reading=reading, time_unit=time_unit,
                      door="match_file on Spark")
    eng = checked_engine(engine, query)   # before any job
    worker_python(spark)
    with job_errors():
        frame = read_events(spark, path, format=format, ts=ts, type=type,
                            time_unit=query.time_unit, require=attributes_read(query.pattern),
                            stock=stock, limit=limit, schema=schema)
    return match_frame(frame, query, engine=eng, columns=columns, tasks=tasks, slices=slices,
                       explain=explain)


# ---------------------------------------------------------------- results


def regroup(rows: Iterable[Any], streams: Sequence[str]) -> dict[tuple[Any, ...], list[Match]]:
    """Match rows back into canonical matches, per stream; a match whose rows
    appear k times was reported k times (a defect the caller can see)."""
    return _regrouped((tuple(r[s] for s in streams), r["match_id"], r["variable"],
                       r["position"]) for r in rows)


def _regrouped(rows: Iterable[tuple[tuple[Any, ...], str, str, int]]
               ) -> dict[tuple[Any, ...], list[Match]]:
    """:func:`regroup` of rows given as (stream key, match id, variable, position)."""
    parts: dict[tuple[Any, ...], dict[str, Counter[tuple[str, int]]]] = defaultdict(
        lambda: defaultdict(Counter))
    for key, match, variable, position in rows:
        parts[key][match][(variable, position)] += 1
    out: dict[tuple[Any, ...], list[Match]] = {}
    for key, by_id in parts.items():
        found = []
        for counts in by_id.values():
            mapping: dict[str, list[int]] = defaultdict(list)
            for var, pos in counts:
                mapping[var].append(pos)
            found += [Match.of(mapping)] * max(counts.values())
        out[key] = found
    return out


def collect_matches(matches: Any, streams: Sequence[str] = ()) -> Any:
    """The canonical matches of a match DataFrame: a list (duplicates kept, so
    they can be seen), or a dict of lists per stream key when ``streams`` is given.
    The match DataFrame of a direct plan on a local master is handed over by its
    engine tasks in Arrow files (:func:`.direct_write.collected`: no match row in the
    JVM, none pickled); any other goes through Spark's ``collect``."""
    with job_errors():
        table = None if streams else direct_write.collected(matches)
        if table is None:
            grouped = regroup(matches.select(*streams, *MATCH_COLUMNS).collect(), streams)
        else:
            ids, variables, positions = (table.column(c).to_pylist()
                                         for c in ("match_id", "variable", "position"))
            grouped = _regrouped(zip([()] * len(ids), ids, variables, positions, strict=True))
    return grouped if streams else grouped.get((), [])


def write_matches(matches: Any, path: str, *, format: str | None = None,
                  mode: str = "errorifexists") -> None:
    """Write a match DataFrame as Parquet or JSON Lines (from the extension, or ``format``);
    the DataFrame of a direct plan, as Parquet on a local master, is written by the engine
    tasks themselves (:mod:`.direct_write`: the same files, no match row in the JVM).

    A local ``path`` that holds, is, or lies in a file or folder the DataFrame reads is
    refused before any job (:func:`kleene.data.outputs.refuse_inputs`), and is written
    to a temporary folder beside it that replaces it only once complete
    (``overwrite``; ``errorifexists`` and ``error`` where nothing is there; ``ignore``
    writes nothing where something is; ``append`` adds to it in place)."""
    fmt = format or ("jsonl" if str(path).rstrip("/").endswith((".jsonl", ".json", ".ndjson"))
                     else "parquet")
    if fmt not in ("parquet", "jsonl"):
        raise PatternError(f"unknown output format {fmt!r}; use parquet or jsonl")
    local = local_path(path)
    if local is not None:
        inputs = [p for p in map(_local_file, matches.inputFiles()) if p is not None]
        refuse_inputs(local, [*inputs, *direct_write.read_by(matches), *read_by_tasks()],
                      option="the output", folder=True)
        if os.path.lexists(local) and mode in ("error", "errorifexists"):
            raise OutputError(f"the output {path} already exists; remove it, or write with "
                              "mode='overwrite'")
        if os.path.lexists(local) and mode == "ignore":
            return
    direct = direct_write.writable(matches, path, fmt, mode)
    if direct is not None:       # the engine tasks write the Parquet files themselves
        with job_errors():
            direct_write.write(direct, path, mode)
        return
    if local is None or mode == "append":
        _spark_write(matches, path, fmt, mode)
        return
    with replacing_folder(local, option="the output") as temporary:
        _spark_write(matches, temporary, fmt, "overwrite")


def _local_file(uri: str) -> str | None:
    """The local path of a Spark input URI (``file:/tmp/e.csv``), else ``None``."""
    parsed = urlparse(uri)
    if parsed.scheme in ("", "file"):
        return unquote(parsed.path)
    return None


def _spark_write(matches: Any, path: str, fmt: str, mode: str) -> None:
    """Spark's writer: ``matches`` to ``path`` as ``fmt`` in ``mode``."""
    writer = matches.write.mode(mode)
    with job_errors():
        if fmt == "parquet":
            writer.parquet(path)
        else:
            writer.json(path)


__all__ = ["Prepared", "SparkJobFailed", "checked_engine", "collect_matches", "match_dataframe",
           "match_file", "match_frame", "prepare", "write_matches", "engine_for"]
