"""``MATCH_RECOGNIZE`` on Spark, batch (issue 30, item 1): a Spark DataFrame in, one out.

A statement is answered as the single process answers it (:mod:`kleene.data.sql`), with
Spark in DuckDB's place: each recognition over a Spark DataFrame (:func:`recognize_frame`),
its output registered as a temporary view in place of ``<source> MATCH_RECOGNIZE (…)``, and
the statement around it run by Spark SQL (:func:`run_statement`).

One recognition, :func:`recognize_frame`:

1. before any job, the clause against the DataFrame's schema: every ``PARTITION BY``,
   ``ORDER BY`` and ``DEFINE`` column present, each ``ORDER BY`` column of a sortable type,
   and the output's Spark schema known from the query (:mod:`.mr_types`);
2. each row gets its index in the DataFrame's order (``monotonically_increasing_id``: a
   file's rows in the file's order), the input order the single process keeps for rows
   that tie on every ``ORDER BY`` key (:mod:`kleene.engines.match_recognize.order`; the
   standard leaves their order to the implementation);
3. only the columns the recognition's output can depend on are kept (its keys, its
   ``ORDER BY`` columns, those its ``MEASURES`` and ``DEFINE`` read; all with ``ALL ROWS
   PER MATCH``), and the rows are repartitioned by the ``PARTITION BY`` keys, so every row
   of one SQL partition is in one Spark task; without ``PARTITION BY`` the rows are
   matched in ranges of the ``ORDER BY`` order where the pattern is bounded
   (:mod:`.mr_ranges`, :data:`RANGES`), else all go to one task (:data:`ONE_TASK` and the
   reason, said once); the rows of one local Parquet file are read by the tasks
   themselves instead, none through the JVM (:mod:`.mr_direct`). Spark does not sort
   them: the task puts them in
   order itself (step 4), as the single process does, so a sort by Spark's rules would be
   work done twice;
4. each task (``mapInArrow``, :func:`recognize_task`) splits its rows into the SQL
   partitions, measures each (:mod:`.mr_sizes`: one too large for the task refused there),
   puts each partition's rows back in their input order and runs the matcher
   over it (the engine ``match-recognize``, or the reference where the engine refuses the
   clause, as the single process chooses): the same rows in the same order, so the same
   output rows; they are cast to the schema of step 1 and numbered
   (the partition's first row index, the row's place in the partition's output);
5. the output is gathered in one Spark partition and sorted there by that number: the
   single process's order (partitions in the order of their first rows, each partition's
   rows as the matcher emits them). One partition and no range sort: a match set is small
   (``ALL ROWS PER MATCH`` is as large as the rows it maps), and a range sort costs a
   sampling job of its own.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T
from pyspark.sql.pandas.types import to_arrow_schema

from kleene.data.sql import READERS, arrow_of, table_of, tables_read
from kleene.engines.fastest import REFERENCE, choose, claiming_engine
from kleene.engines.match_recognize.engine import NAME as ENGINE
from kleene.engines.match_recognize.order import partition_ranks
from kleene.engines.match_recognize.recognition import CompiledRecognition
from kleene.engines.spark.mr_direct import keyed_frame, ranged_frame, source_and_tasks
from kleene.engines.spark.mr_ranges import Ranged, range_frame, unsplit
from kleene.engines.spark.mr_sizes import Sizes, sizes
from kleene.engines.spark.mr_types import output_schema
from kleene.engines.spark.mr_types import typed as typed_output
from kleene.engines.spark.session import worker_python
from kleene.reference.budget import Budget
from kleene.reference.errors import KleeneError, StreamError, Unsupported
from kleene.reference.match_recognize.ast import (
    Column,
    MatchRecognize,
    Statement,
    Subquery,
    TableName,
)
from kleene.reference.match_recognize.expressions import walk
from kleene.reference.match_recognize.features import expressions_of
from kleene.reference.match_recognize.ranges import SPLIT_REFUSED, bounds
from kleene.reference.match_recognize.semantics import recognize as reference_recognize
from kleene.reference.match_recognize.tie_choices import ERROR, INPUT_ORDER
from kleene.reference.match_recognize.ties import check_ties, columns_read, refuse_ties
from kleene.reference.query import Query

#: The row index, the partition's first row index and the output row's place (internal).
ROW, PART, SEQ = "__kleene_row__", "__kleene_part__", "__kleene_seq__"
#: Said when a clause has no ``PARTITION BY``.
ONE_TASK = ("no PARTITION BY: the whole DataFrame is one partition, matched by one Spark "
            "task on one core (no parallelism; all its rows in that task's memory)")
#: Said when a clause without ``PARTITION BY`` is matched in ranges of rows (:mod:`.mr_ranges`).
RANGES = ("no PARTITION BY: the rows are matched in ranges of the ORDER BY order, one Spark "
          "task each, the matches near the ranges' edges and the choice among them in one "
          "task")
#: :data:`RANGES` where the tasks read the file themselves (:mod:`.mr_direct`): each finds
#: the matches at its own edges from the rows it read around its range.
RANGES_DIRECT = ("no PARTITION BY: the rows are matched in ranges of the ORDER BY order, one "
                 "Spark task each (each reading the rows around its range), the choice among "
                 "the matches in one task")
_UNSORTABLE = (T.MapType, T.ArrayType, T.StructType, T.VariantType)


@dataclass(frozen=True)
class SparkAnswer:
    """A statement's answer on Spark: its ``frame`` (lazy: no job has run), the
    ``backend`` of its recognitions (``match-recognize`` or ``reference``), why, and what
    to say about the run (:data:`ONE_TASK`); its recognitions' measures of their keys,
    taken by the tasks (:mod:`.mr_sizes`)."""

    frame: DataFrame
    backend: str
    reason: str
    notes: tuple[str, ...]
    sizes: tuple[Sizes, ...] = ()
    #: The Parquet files its tasks read themselves, no row in the JVM (:mod:`.mr_direct`).
    direct: tuple[str, ...] = ()

    def measured(self) -> tuple[str, ...]:
        """After a job over :attr:`frame`: what to say of the keys the tasks measured (a
        skewed key, :meth:`.mr_sizes.Sizes.skew`)."""
        return tuple(dict.fromkeys(line for s in self.sizes for line in s.skew()))


def match_recognize(df: DataFrame, query: Query, *, name: str | None = None,
                    engine_name: str | None = None, tasks: int | None = None,
                    steps: int | None = None, ties: str = INPUT_ORDER) -> SparkAnswer:
    """The table ``query`` (a ``SELECT`` holding ``MATCH_RECOGNIZE``) answers over ``df``,
    known to the SQL as ``name`` (default: the one table the recognitions read), each
    recognition by ``engine_name`` (``reference``, ``match-recognize``; default as the
    single process chooses), in ``tasks`` Spark partitions (default: the session's
    ``spark.sql.shuffle.partitions``), under a budget of ``steps`` for each ``PARTITION
    BY`` key (default: the single process's), rows tied on every ``ORDER BY`` key as
    ``ties`` says (:mod:`kleene.reference.match_recognize.ties`; a tie is refused in the
    task that holds its partition). Every other check is made before any job; the task
    holding a key measures it (:mod:`.mr_sizes`: a key too large for one task refused
    there, a skewed key said after the job by :meth:`SparkAnswer.measured`)."""
    check_ties(ties)
    statement = query.pattern
    if not query.answers_tables or not isinstance(statement, Statement):
        raise Unsupported(f"a {query.language} query answers matches, not a table")
    if name is None:
        read = tables_read(statement)
        if len(read) != 1:
            raise KleeneError("name the table the DataFrame is in SQL (the recognitions read "
                              f"{', '.join(read) or 'no table by name'})")
        name = read[0]
    backend, reason = _backend(query, engine_name)
    worker_python(df.sparkSession)
    notes: list[str] = []
    run = Run(backend == ENGINE, tasks, notes, steps, ties == ERROR)
    frame = run_statement(statement, df, name, run)
    return SparkAnswer(frame, backend, reason, tuple(dict.fromkeys(notes)), tuple(run.sizes),
                       tuple(dict.fromkeys(run.direct)))


def _backend(query: Query, name: str | None) -> tuple[str, str]:
    """The single process's choice (:func:`kleene.engines.tables.answer_table`): the
    engine named, else the fastest claiming engine; the reference where the chosen engine
    cannot compile a clause, unless it was named."""
    reason = "named"
    if name is None:
        name, reason = choose(query)
    if name == REFERENCE:
        return REFERENCE, reason
    claiming_engine(name, query, "--engine")
    if name != ENGINE:
        raise Unsupported(f"on Spark a MATCH_RECOGNIZE runs the engine {ENGINE} or the "
                          f"reference, not {name}")
    statement = query.pattern
    assert isinstance(statement, Statement)
    try:
        for clause in _clauses(statement):
            CompiledRecognition(clause)
    except Unsupported as err:
        if reason == "named":
            raise
        return REFERENCE, f"engine {name}: {err}"
    return ENGINE, reason


def _clauses(statement: Statement) -> Iterator[MatchRecognize]:
    for r in statement.recognitions:
        yield r.clause
        if isinstance(r.source, Statement):
            yield from _clauses(r.source)


@dataclass(frozen=True)
class Run:
    """How the recognitions of one statement run: by the engine or the reference, in how
    many tasks, the notes said so far, the step budget of one key (``None``: the
    default), whether a tie whose order can change the answer is refused, and the
    measures of the recognitions' keys still to take."""

    engine: bool
    tasks: int | None
    notes: list[str]
    steps: int | None = None
    refuse_ties: bool = False
    #: Each recognition's measure of its keys, taken by its tasks (:mod:`.mr_sizes`).
    sizes: list[Sizes] = field(default_factory=list)
    #: The Parquet files the tasks read themselves (:mod:`.mr_direct`).
    direct: list[str] = field(default_factory=list)


def run_statement(statement: Statement, df: DataFrame, name: str, run: Run) -> DataFrame:
    """``statement`` over ``df`` (the table ``name``): each recognition by
    :func:`recognize_frame`, the text around them by Spark SQL (:func:`spark_sql`)."""
    spark = df.sparkSession
    text = statement.text
    views = []
    for recognition in sorted(statement.recognitions, key=lambda r: r.start, reverse=True):
        source = recognition.source
        if isinstance(source, TableName):
            if source.name.upper() != name.upper():
                raise Unsupported(f"the statement reads a table {source.name}, and only "
                                  f"{name} is given (the DataFrame)")
            source_df = df
        else:
            source_df = run_statement(source, df, name, run)
        output = recognize_frame(source_df, recognition.clause, run)
        view = f"__kleene_recognition_{id(output)}_{recognition.start}"
        output.createOrReplaceTempView(view)
        views.append(view)
        text = text[:recognition.start] + view + text[recognition.end:]
    try:
        return spark_sql(spark, text)
    finally:   # the frame holds the views' plans, analysed
        for view in views:
            spark.catalog.dropTempView(view)


#: A double-quoted name in SQL (outside single-quoted strings).
_DOUBLE_QUOTED = re.compile(r"'(?:[^']|'')*'|(\")")


def spark_sql(spark: Any, text: str) -> DataFrame:
    """``text`` (the statement with each recognition replaced by a view) by Spark SQL,
    analysed as the single process's DuckDB reads names: case-insensitive, ``"x"`` a
    name (``spark.sql.ansi.doubleQuotedIdentifiers``, which needs ANSI mode); a statement
    Spark refuses is one line. The frame is analysed here, so the settings apply to it
    alone and are restored after."""
    from pyspark.errors import PySparkException  # noqa: PLC0415 (lazy: Spark 4's errors)

    ansi = spark.conf.get("spark.sql.ansi.enabled", "true").lower() == "true"
    if not ansi and any(m.group(1) for m in _DOUBLE_QUOTED.finditer(text)):
        raise Unsupported('a "quoted" name is a string in Spark SQL without ANSI mode '
                          "(spark.sql.ansi.enabled): write it `quoted`")
    saved = {k: spark.conf.get(k, None) for k in _READ_AS_DUCKDB}
    try:
        for key, value in _READ_AS_DUCKDB.items():
            spark.conf.set(key, value)
        return spark.sql(text)
    except PySparkException as err:
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise Unsupported("on Spark the SQL around MATCH_RECOGNIZE is run by Spark SQL, "
                          f"which refused it: {first}") from None
    finally:
        for key, value in saved.items():
            if value is None:
                spark.conf.unset(key)
            else:
                spark.conf.set(key, value)


_READ_AS_DUCKDB = {"spark.sql.caseSensitive": "false",
                   "spark.sql.ansi.doubleQuotedIdentifiers": "true"}


def recognize_frame(df: DataFrame, clause: MatchRecognize, run: Run) -> DataFrame:
    """The output of one recognition over ``df`` (the module docstring), lazily."""
    if any(isinstance(x, Subquery) and x.values is None
           for e in expressions_of(clause) for x in walk(e)):
        raise Unsupported("a subquery inside MATCH_RECOGNIZE runs single-process (DuckDB "
                          "evaluates it first); on Spark, compute it and write its value")
    columns = {f.name.upper(): f for f in df.schema.fields}
    _check_columns(clause, columns)
    read = _read_columns(df, clause)
    direct = source_and_tasks(df, read.schema, run.tasks)   # :mod:`.mr_direct`
    df = read
    schema = output_schema(clause, df.schema)
    names = [columns[e.name.upper()].name for e in clause.partition_by
             if isinstance(e, Column)]
    keys = [_column(n) for n in names]
    measure = sizes(df.sparkSession, names)
    run.sizes.append(measure)
    indexed = df.withColumn(ROW, F.monotonically_increasing_id())
    if keys:
        parts = (indexed.repartition(run.tasks, *keys) if run.tasks
                 else indexed.repartition(*keys))
    elif (why := unsplit(clause, df.schema, run.refuse_ties, run.engine)) is None:
        run.notes.append(RANGES if direct is None else RANGES_DIRECT)
        job = Ranged(clause, bounds(clause), run.engine, to_arrow_schema(schema, timezone="UTC"),
                     run.steps, measure)
        if direct is not None:
            run.direct.append(direct[0].path)
            return ranged_frame(df, *direct, job, schema)
        return range_frame(indexed, clause, ROW, run.tasks, job, schema)
    else:
        run.notes.extend([ONE_TASK, f"{SPLIT_REFUSED}: {why}"])
        parts = indexed.repartition(1)
    numbered = T.StructType([*schema.fields, T.StructField(PART, T.LongType()),
                             T.StructField(SEQ, T.LongType())])
    task = partial(recognize_task, clause, run.engine,
                   to_arrow_schema(schema, timezone="UTC"), run.steps, run.refuse_ties,
                   measure)
    if direct is not None:
        run.direct.append(direct[0].path)
        out = keyed_frame(df, direct[0], clause, direct[1] if keys else 1, ROW, task, numbered)
    else:
        out = parts.mapInArrow(task, numbered)
    return out.repartition(1).sortWithinPartitions(PART, SEQ).drop(PART, SEQ)


def _read_columns(df: DataFrame, clause: MatchRecognize) -> DataFrame:
    """``df``'s columns the recognition's output can depend on (its keys, its ``ORDER
    BY`` columns and :func:`~kleene.reference.match_recognize.ties.columns_read`: all of
    them with ``ALL ROWS PER MATCH``), in ``df``'s order: no other column is shuffled or
    sent to the Python workers as Arrow (Spark cannot prune a column through
    ``mapInArrow``)."""
    names = df.columns
    keys = {e.name.upper() for e in (*clause.partition_by,
                                      *(k.expr for k in clause.order_by))
            if isinstance(e, Column)}
    read = {n.upper() for n in columns_read(clause, names)} | keys
    kept = [n for n in names if n.upper() in read]
    return df if len(kept) == len(names) else df.select(*(_column(n) for n in kept))


def _column(name: str) -> Any:
    """The DataFrame's column ``name`` (quoted: a dot in it is no field access)."""
    return F.col("`" + name.replace("`", "``") + "`")


def _check_columns(clause: MatchRecognize, columns: dict[str, T.StructField]) -> None:
    """Every column the clause reads is in the DataFrame, and each ``ORDER BY`` column is
    of a type Spark and Arrow sort."""
    keys = [("PARTITION BY", e) for e in clause.partition_by]
    for where, e in keys + [("ORDER BY", k.expr) for k in clause.order_by]:
        if isinstance(e, Column) and e.name.upper() not in columns:
            raise Unsupported(f"{where} {e.name}: the DataFrame has no such column (it has "
                              f"{', '.join(f.name for f in columns.values())})")
    for e in expressions_of(clause):
        for x in walk(e):
            if isinstance(x, Column) and x.name.upper() not in columns:
                raise Unsupported(f"MATCH_RECOGNIZE reads a column {x.name} the DataFrame has "
                                  f"not (it has {', '.join(f.name for f in columns.values())})")
    for k in clause.order_by:
        if isinstance(k.expr, Column):
            kind = columns[k.expr.name.upper()].dataType
            if isinstance(kind, _UNSORTABLE):
                raise Unsupported(f"ORDER BY {k.expr.name}: {kind.simpleString()} values do "
                                  "not sort")


def recognize_task(clause: MatchRecognize, engine: bool, schema: pa.Schema,
                   steps: int | None, refuse: bool, measure: Sizes,
                   batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """The ``mapInArrow`` function: every SQL partition among the task's rows, in input
    order, by the matcher (module docstring, step 4); each partition measured first, one
    too large for the task refused (``measure``, :mod:`.mr_sizes`); with ``refuse``, a
    partition with a tie whose order can change the answer is refused first, as the
    single process refuses it (:func:`~kleene.reference.match_recognize.ties.refuse_ties`)."""
    from pyspark import TaskContext  # noqa: PLC0415 (lazy: in the Python worker)

    received = list(batches)
    table = pa.Table.from_batches(received) if received else None
    context = TaskContext.get()
    task = context.partitionId() if context is not None else 0
    if table is None or table.num_rows == 0:
        measure.report(task, 0, None)
        return
    rows = np.asarray(table.column(ROW).to_numpy(), dtype=np.int64)
    data = table.drop_columns([ROW])
    ranks = partition_ranks(clause, data)
    order = np.lexsort((rows, ranks))
    edges = [0, *(np.flatnonzero(np.diff(ranks[order])) + 1).tolist(), len(order)]
    measure.task(task, data, order, edges)
    compiled = CompiledRecognition(clause) if engine else None
    for lo, hi in zip(edges, edges[1:], strict=False):
        taken = order[lo:hi]
        part = data.take(pa.array(taken))
        if refuse:
            refuse_ties(clause, table_of(part))
        budget = Budget(what="recognizing a row pattern") if steps is None else \
            Budget(limit=steps, what="recognizing a row pattern")
        out = (compiled.recognize(part, budget=budget) if compiled is not None else
               arrow_of(reference_recognize(clause, table_of(part), budget=budget),
                        like=part.schema))
        if out.num_rows == 0:
            continue
        typed = typed_output(out, schema)
        n = typed.num_rows
        yield from typed.append_column(PART, pa.array(np.full(n, rows[taken[0]]))) \
            .append_column(SEQ, pa.array(np.arange(n, dtype=np.int64))).to_batches()


def read_table(spark: Any, path: str, schema: str | None = None) -> DataFrame:
    """The table in the file ``path`` as a Spark DataFrame, read by Spark's own reader for
    its extension (those of :data:`kleene.data.sql.READERS`, gzipped too): Parquet with its
    schema; CSV (a header line; ``.tsv`` tab-separated) and JSON Lines with the columns'
    types Spark infers, or ``schema`` (DDL, ``'ts BIGINT, sym STRING'``) declares."""
    suffixes = [s.lower() for s in Path(path).suffixes if s.lower() != ".gz"]
    reader = READERS.get(suffixes[-1] if suffixes else "")
    if reader is None:
        raise StreamError(f"a table is read from {', '.join(sorted(READERS))} files "
                          "(gzipped too)", source=path)
    if not Path(path).exists():
        raise StreamError("cannot read the table: No such file or directory", source=path)
    if reader == "read_parquet":
        if schema is not None:
            raise Unsupported("--schema declares the columns of a CSV or JSON file; a Parquet "
                              "file declares its own")
        frame: DataFrame = spark.read.parquet(path)
        return frame
    options: dict[str, Any] = {"schema": schema} if schema else {"inferSchema": True}
    if reader == "read_json":
        return spark.read.json(path, **({"schema": schema} if schema else {}))
    return spark.read.csv(path, header=True, sep="\t" if suffixes[-1] == ".tsv" else ",",
                          **options)
