"""The door of a query that answers a table (``MATCH_RECOGNIZE``): the backend chosen as
for every other language, the statement run over the data, the "silent zero" warnings.

A query whose language answers tables (:attr:`~kleene.reference.query.Query.answers_tables`)
is answered here, by one function, :func:`answer_table`, for every door that takes the
table path: ``kleene match`` (``cli/match_table.py``) and ``kleene.match_recognize``
(:func:`match_recognize`). As for matches (:mod:`kleene.engines.fastest`), the backend is
the engine named, else the fastest registered engine that claims the query exactly, else the
reference semantics (:func:`~kleene.reference.match_recognize.semantics.recognize`); the
statement is run by :func:`kleene.data.sql.run_over` (each recognition by the backend, the
SQL around it by DuckDB).

A file is read as DuckDB's own readers read it (``read_parquet``, ``read_csv``,
``read_json``; :data:`kleene.data.sql.READERS`; a CSV file by Arrow under DuckDB's sniffed
dialect and types where that reads the same values, :mod:`kleene.data.csvfast`), not by
Kleene's event loaders: a table's columns are
typed as the SQL around the recognition types them (dates, decimals, text), and the event
loaders' checks (a timestamp column, timestamps that never decrease) do not apply to a
table, which ``ORDER BY`` orders.

A ``DEFINE`` whose condition reads only the row it is evaluated on (and its neighbours by
``PREV``/``NEXT``) and is true for no row of the input can never map a row to its
variable: the recognition then finds no match that needs it, silently. :func:`never_true`
finds such definitions, and each door says them as a warning (``DEFINE of X is true for no
row of the input``), as ``kleene match`` refuses a pattern that could never match
(:mod:`kleene.reference.schema`, "a silent zero").
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import pyarrow as pa

from kleene.data.sql import ArrowRecognizer, Recognize, recognized, run_over, table_of
from kleene.engines.fastest import REFERENCE, choose, claiming_engine
from kleene.engines.match_recognize.conditions import row_local
from kleene.engines.match_recognize.order import Sorted, sort
from kleene.engines.protocol import Query
from kleene.reference.budget import Budget
from kleene.reference.errors import KleeneError, PatternError, Unsupported
from kleene.reference.match_recognize.ast import (
    MatchRecognize,
    Navigation,
    Recognition,
    Statement,
)
from kleene.reference.match_recognize.evaluation import Scope, holds
from kleene.reference.match_recognize.expressions import walk
from kleene.reference.match_recognize.semantics import partitions
from kleene.reference.match_recognize.semantics import recognize as reference_recognize
from kleene.reference.match_recognize.tie_choices import ERROR, INPUT_ORDER
from kleene.reference.match_recognize.ties import check_ties, refuse_ties


@runtime_checkable
class TableRecognition(Protocol):
    """What an engine compiles a table query into: its one recognition over an Arrow
    table (``engines/match_recognize/``: :class:`CompiledRecognition`), given the table
    already sorted for the clause when the door has sorted it (``ordered``)."""

    def recognize(self, table: pa.Table, *, budget: Budget | None = None,
                  ordered: Sorted | None = None) -> pa.Table: ...


@dataclass(frozen=True)
class Answered:
    """The answer of a table query: the ``table``, the ``backend`` that ran its
    recognitions (an engine name or ``reference``), why that one, the ``query`` as the
    door decided it, and the warnings (:func:`never_true`) said about its input."""

    table: pa.Table
    backend: str
    reason: str
    query: Query
    warnings: tuple[str, ...] = field(default=())


def answer_table(query: Query, data: Any, *, name: str | None = None,
                 engine_name: str | None = None, budget: Budget | None = None,
                 ties: str = INPUT_ORDER) -> Answered:
    """The table ``query`` answers over ``data`` (an Arrow table, a pandas frame or a
    Parquet, CSV or JSON Lines file, known to the SQL as ``name``; default: the one table
    the statement's recognitions read), by ``engine_name`` (``reference``: the reference
    semantics; an engine must claim the query) or the fastest engine that claims it; rows
    tied on every ``ORDER BY`` key as ``ties`` says (:mod:`kleene.reference.match_recognize
    .ties`: in input order, or refused where their order can change the answer)."""
    check_ties(ties)
    if not query.answers_tables:
        raise Unsupported(f"a {query.language} query answers matches, not a table: run it "
                          "with kleene match or find_matches")
    statement = query.pattern
    assert isinstance(statement, Statement)
    if not statement.recognitions:
        raise PatternError(f"{query.source}: the statement holds no MATCH_RECOGNIZE: Kleene "
                           "answers row pattern recognition (SELECT ... FROM t "
                           "MATCH_RECOGNIZE (...)); plain SQL belongs to a SQL engine")
    budget = budget or Budget(what="recognizing a row pattern")
    backend, reason, recognize = _backend(query, engine_name, budget)
    said: list[str] = []
    table = run_over(data, statement, name=name,
                     recognize=_Warning(recognize, said, ties == ERROR))
    return Answered(table, backend, reason, query, tuple(dict.fromkeys(said)))


def _backend(query: Query, name: str | None, budget: Budget,
             ) -> tuple[str, str, Recognize | ArrowRecognizer]:
    """The backend's name, why, and its recognizer for :func:`run_over`."""
    reason = "named"
    if name is None:
        name, reason = choose(query)
    if name == REFERENCE:
        return REFERENCE, reason, lambda clause, table: reference_recognize(clause, table,
                                                                            budget=budget)
    eng = claiming_engine(name, query, "--engine")
    compiled: list[tuple[MatchRecognize, TableRecognition]] = []
    statement = query.pattern
    assert isinstance(statement, Statement)
    try:
        for r in recognitions(statement):
            one = dataclasses.replace(query, pattern=Statement(statement.text, (r,)))
            made = eng.compile(one)
            if not isinstance(made, TableRecognition):
                raise Unsupported(f"engine {name!r} compiles no recognition over a table")
            compiled.append((r.clause, made))
    except Unsupported as err:
        if reason == "named":
            raise
        # a statement the fastest engine claims by its features but cannot compile:
        # the reference answers, and says why
        return (REFERENCE, f"engine {name}: {err}",
                lambda clause, table: reference_recognize(clause, table, budget=budget))
    return name, reason, _Compiled(tuple(compiled), budget)


def recognitions(statement: Statement) -> Iterator[Recognition]:
    """Every recognition of ``statement``, those inside its subqueries' sources too."""
    for r in statement.recognitions:
        yield r
        if isinstance(r.source, Statement):
            yield from recognitions(r.source)


@dataclass(frozen=True)
class _Compiled:
    """Each recognition of a statement compiled (by its clause), as :func:`run_over`'s
    ``recognize`` (Arrow in, Arrow out)."""

    compiled: tuple[tuple[MatchRecognize, TableRecognition], ...]
    budget: Budget

    def recognize_arrow(self, clause: MatchRecognize, table: pa.Table,
                        ordered: Sorted | None = None) -> pa.Table:
        made = next(c for k, c in self.compiled if k is clause)
        return made.recognize(table, budget=self.budget, ordered=ordered)


@dataclass(frozen=True)
class _Warning:
    """A recognizer that first refuses a tie whose order can change the answer (with
    ``refuse``: :func:`~kleene.reference.match_recognize.ties.refuse_ties`), then notes the
    definitions of its clause that are true for no row of its input (:func:`never_true`)
    in ``said``; the input sorted once for the check and the engine's run
    (:class:`~kleene.engines.match_recognize.order.Sorted`)."""

    inner: Recognize | ArrowRecognizer
    said: list[str]
    refuse: bool = False

    def recognize_arrow(self, clause: MatchRecognize, table: pa.Table) -> pa.Table:
        if self.refuse:
            refuse_ties(clause, table_of(table))
        ordered = _sorted(clause, table)
        self.said.extend(f"DEFINE of {var} is true for no row of the input"
                         for var in never_true(clause, table, ordered))
        if isinstance(self.inner, _Compiled) and ordered is not None:
            return self.inner.recognize_arrow(clause, table, ordered)
        return recognized(self.inner, clause, table)


def _sorted(clause: MatchRecognize, table: pa.Table) -> Sorted | None:
    """``table`` sorted for ``clause``, or ``None`` if a key is one the recognition refuses
    (with its own error) or the table is empty."""
    if table.num_rows == 0:
        return None
    try:
        return sort(clause, table)
    except KleeneError:
        return None


def never_true(clause: MatchRecognize, table: pa.Table,
               ordered: Sorted | None = None) -> tuple[str, ...]:
    """The variables whose ``DEFINE`` reads only its own row (and its neighbours by
    ``PREV``/``NEXT``: the engine's row-local conditions) and is true for no row of
    ``table``, a non-empty input (the module docstring). A definition that reads the
    match so far (another variable, ``FIRST``/``LAST``, an aggregate, ``CLASSIFIER``)
    depends on the match, and is not judged here; nor is one that raises a data
    exception (the recognition raises it). Each condition is judged on whole columns
    first (:func:`~kleene.engines.match_recognize.conditions.column_truth`, the engine's
    own row-local kernels), row by row by the reference's evaluator only where the
    kernels do not compute the reference's values. ``ordered``: ``table`` sorted for the
    clause (:func:`~kleene.engines.match_recognize.order.sort`), if the caller has it."""
    if table.num_rows == 0:
        return ()
    subsets = {u.name.upper(): frozenset(v.upper() for v in u.vars) for u in clause.subsets}
    local = [d for d in clause.defines if row_local(d.condition, d.var.upper(), subsets)]
    if not local:
        return ()
    ordered = ordered if ordered is not None else _sorted(clause, table)
    if ordered is None:
        return ()  # a key the recognition refuses, with its own error
    by_rows = []
    out = []
    for d in local:
        truth = ordered.truth(d.var.upper(), d.condition)
        if truth is None:
            by_rows.append(d)
        elif not truth.any():
            out.append(d.var)
    if not by_rows:
        return tuple(out)
    rows = table_of(table)
    columns = {n.upper(): i for i, n in enumerate(rows.names)}
    in_parts: list[Sequence[Sequence[object]]] | None = None
    for d in by_rows:
        if any(isinstance(x, Navigation) for x in walk(d.condition)):
            in_parts = in_parts if in_parts is not None else list(partitions(clause, rows))
            parts: list[Sequence[Sequence[object]]] = in_parts
        else:
            parts = [rows.rows]
        try:
            if not any(_somewhere(d.condition, d.var, part, columns, subsets)
                       for part in parts):
                out.append(d.var)
        except KleeneError:
            continue
    return tuple(v for v in (d.var for d in local) if v in out)


def _somewhere(condition: Any, var: str, rows: Sequence[Sequence[object]],
               columns: dict[str, int], subsets: dict[str, frozenset[str]]) -> bool:
    """Whether ``condition``, as ``var``'s, holds at some row of the partition ``rows``."""
    return any(holds(condition, Scope(rows, columns, i, (var,), 1, 0, subsets))
               for i in range(len(rows)))


def match_recognize(data: Any, sql: str, *, name: str | None = None,
                    engine: str | None = None, pandas: bool = False,
                    budget: Budget | None = None, ties: str = INPUT_ORDER) -> Any:
    """The result of ``sql``, a ``SELECT`` holding ``MATCH_RECOGNIZE``, over ``data``: an
    Arrow table, a pandas frame or the path of a Parquet, CSV or JSON Lines file, known to
    the SQL as ``name`` (default: the one table its recognitions read). Each recognition is
    run by ``engine`` (``reference``: the reference semantics; default: the fastest engine
    that claims the query, else the reference), the SQL around it by DuckDB. Returns an
    Arrow table (a pandas frame with ``pandas=True``); its columns are named as the outer
    ``SELECT`` names them (a measure's unquoted name in upper case, SQL's rule). A ``DEFINE``
    true for no row of the input is a :class:`UserWarning`. Rows tied on every ``ORDER BY``
    key keep their input order (``ties="input-order"``); ``ties="error"`` refuses, in one
    line, a tie whose order can change the answer (docs/match-recognize-spark.md, "Ties in
    ORDER BY").

    A Spark DataFrame is answered on Spark, as a Spark DataFrame (lazy: no job has run;
    :mod:`kleene.engines.spark.match_recognize`, docs/match-recognize-spark.md): each
    recognition by the same matcher per ``PARTITION BY`` key in a ``mapInArrow`` task, the
    SQL around it by Spark SQL; a clause without ``PARTITION BY`` runs in one task, said as a
    :class:`UserWarning`.

    Example (a V shape: a fall, then a rise; examples/ticks/)::

        >>> import kleene
        >>> sql = open("examples/ticks/v_shape.sql").read()
        >>> kleene.match_recognize("examples/ticks/ticks.csv", sql).to_pylist()[0]
        {'sym': 'ACME', 'START_TS': 1, 'BOTTOM_TS': 3, 'END_TS': 5}
    """
    query = Query.parse(sql, language="match_recognize", source="<sql>")
    if _is_spark(data):
        return _on_spark(data, query, name=name, engine=engine, pandas=pandas, budget=budget,
                         ties=ties)
    answered = answer_table(query, data, name=name, engine_name=engine, budget=budget,
                            ties=ties)
    for line in answered.warnings:
        warnings.warn(line, UserWarning, stacklevel=2)
    return answered.table.to_pandas() if pandas else answered.table


def _is_spark(x: object) -> bool:
    return type(x).__module__.startswith("pyspark.") and type(x).__name__ == "DataFrame"


def _on_spark(df: Any, query: Query, *, name: str | None, engine: str | None, pandas: bool,
              budget: Budget | None, ties: str) -> Any:
    """:func:`match_recognize` of a Spark DataFrame: a Spark DataFrame."""
    if pandas or budget is not None:
        raise Unsupported(f"{'pandas=True' if pandas else 'budget='} applies to one process; "
                          "a Spark DataFrame is answered by one (call .toPandas() on it)")
    # lazy: PySpark only for a Spark DataFrame
    from kleene.engines.spark.match_recognize import match_recognize as on_spark

    answered = on_spark(df, query, name=name, engine_name=engine, ties=ties)
    for line in answered.notes:
        warnings.warn(line, UserWarning, stacklevel=3)
    return answered.frame
