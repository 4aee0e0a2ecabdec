"""Kleene in Python: the few names a user needs, each accepting what a user has.

``import kleene`` gives (docs/python.md; the notebook ``examples/notebook/kleene.ipynb``):

- :func:`parse` — a pattern's text as the one :class:`~kleene.reference.query.Query` every
  door decides (its language guessed from the text unless named, the language's default
  policy and window reading unless given: docs/architecture.md, "One query, decided at the
  door");
- :func:`load_events` — events from a file path, an Arrow table, a pandas DataFrame or a
  list of mappings, validated as ``kleene match`` validates them (one line naming the row
  and field for a bad value);
- :func:`find_matches` — the canonical matches (each variable's 0-based positions), by the
  fastest engine that claims the query exactly, as ``kleene match`` computes them;
- :func:`count_matches` — their number, without listing them where the count's dynamic
  programme claims the query (``kleene match --count``; docs/counting.md);
- :func:`first_matches` — the first K of them in the order of their last event, matching
  only the prefix of the events that holds them (``kleene match --first K``);
- :func:`match` — the same matches as a table, one row per match, variable and event with
  every attribute of the event (the ``--layout long`` rows of ``kleene match --output``),
  as an Arrow table, or a pandas DataFrame when the events were one; a Spark DataFrame is
  matched on Spark (:func:`kleene.engines.spark.runner.match_dataframe`) and a
  ``MATCH_RECOGNIZE`` statement answers its own table
  (:func:`kleene.engines.tables.answer_table`);
- :func:`draw` — the automaton an engine compiles, as a picture a notebook shows (SVG);
- :func:`trace` — a run of that automaton over events, step by step (a notebook shows its
  HTML page).

Nothing here decides differently from the command line: the query is decided by
:meth:`Query.ask`, the engine by :func:`~kleene.engines.fastest.choose`, the rows by the
loaders of :mod:`kleene.data.loaders` and :mod:`kleene.data.columnar`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from kleene.data.columnar import validated
from kleene.data.loaders import load_events as _load_file
from kleene.engines.count.counting import Counted
from kleene.engines.count.counting import count_matches as _count
from kleene.engines.count.first import First
from kleene.engines.count.first import first_matches as _first
from kleene.engines.drawers import draw as _draw
from kleene.engines.fastest import Found
from kleene.engines.fastest import find_matches as _find
from kleene.engines.protocol import Compiled, claims
from kleene.engines.registry import engine as _engine
from kleene.engines.registry import pictured_engine
from kleene.engines.trace import Traced, tracer_of
from kleene.engines.trace import trace as _trace
from kleene.reference.budget import Budget
from kleene.reference.errors import Unsupported
from kleene.reference.events import Stream, canonical_unit
from kleene.reference.match import MARKED, MARKED_NAME, Match, readable_name
from kleene.reference.pattern import Pattern
from kleene.reference.query import Query

__all__ = ["Picture", "count_matches", "draw", "find_matches", "first_matches", "load_events",
           "match", "parse", "trace"]

#: What :func:`load_events` reads: a path (``str`` or ``os.PathLike``), an Arrow table, a
#: pandas DataFrame, a sequence of mappings, a :class:`Stream` already loaded (pandas and
#: PySpark are not imported here: their frames are recognised by their type's module).
Events = Any


def parse(text: str, *, language: str | None = None, policy: str | None = None,
          reading: str | None = None, time_unit: str | None = None) -> Query:
    """The query of a pattern's ``text`` (SES, operator, SREMO, Wayeb ``.sre`` or a SQL
    statement holding ``MATCH_RECOGNIZE``): :meth:`Query.parse`. A syntax error is a
    :class:`~kleene.reference.errors.PatternError` naming line and column."""
    return Query.parse(text, language=language, policy=policy, reading=reading,
                       time_unit=time_unit)


def load_events(source: Events, *, ts: str | None = None, type: str | None = "type",
                time_unit: str | None = None, format: str | None = None,
                sort: bool = False) -> Stream:
    """``source`` as a validated :class:`Stream`: a file (CSV, JSON Lines, Parquet, stock
    lines; :func:`kleene.data.loaders.load_events`), an Arrow table or a pandas DataFrame
    (typed and checked column by column as a Parquet file's columns are), or mappings
    (:meth:`Stream.from_rows`). ``ts`` names the timestamp column (default ``ts``), ``type``
    the type column (``None``: none), ``time_unit`` the timestamps' unit; ``sort`` sorts by
    ``ts`` (stably) instead of refusing rows out of order."""
    if isinstance(source, Stream):
        return source
    if isinstance(source, str | os.PathLike):
        return _load_file(source, format=format, ts=ts, type=type, time_unit=time_unit,
                          sort=sort)
    table = _arrow_of(source)
    if table is None:
        if isinstance(source, Iterable) and not isinstance(source, str | bytes | Mapping):
            return Stream.from_rows(source, ts=ts or "ts", type=type, time_unit=time_unit,
                                    sort=sort)
        raise Unsupported(f"load_events reads a path, an Arrow table, a pandas DataFrame or "
                          f"a list of mappings, not {type_name(source)}")
    columns, converted = validated(table, ts=ts or "ts", type=type, source="<table>",
                                   sort=sort)
    unit = canonical_unit(time_unit) if time_unit else None
    return Stream.from_columns(columns, "ms" if converted else unit)


def find_matches(pattern: str | Pattern | Query, events: Events, *,
                 policy: str | None = None, reading: str | None = None,
                 engine: str | None = None, budget: Budget | None = None,
                 ts: str | None = None, type: str | None = "type",
                 time_unit: str | None = None) -> Found:
    """The matches of ``pattern`` on ``events`` (anything :func:`load_events` reads), as
    ``kleene match`` computes them: ``.matches`` (canonical matches), ``.backend`` (the
    engine, or ``reference``), ``.reason``, ``.query``
    (:func:`kleene.engines.fastest.find_matches`)."""
    stream = load_events(events, ts=ts, type=type, time_unit=time_unit)
    return _find(pattern, stream, policy=policy, reading=reading, engine_name=engine,
                 budget=budget)


def count_matches(pattern: str | Pattern | Query, events: Events, *,
                  policy: str | None = None, reading: str | None = None,
                  engine: str | None = None, budget: Budget | None = None,
                  ts: str | None = None, type: str | None = "type",
                  time_unit: str | None = None) -> Counted:
    """The number of matches of ``pattern`` on ``events``, as ``kleene match --count``
    computes it: ``.count`` (a Python int, exact at any size), ``.backend`` (``dynamic
    programming``, or the engine that listed them), ``.why`` (why they were listed)
    (:func:`kleene.engines.count.counting.count_matches`)."""
    stream = load_events(events, ts=ts, type=type, time_unit=time_unit)
    return _count(pattern, stream, policy=policy, reading=reading, engine_name=engine,
                  budget=budget)


def first_matches(pattern: str | Pattern | Query, events: Events, k: int, *,
                  policy: str | None = None, engine: str | None = None,
                  budget: Budget | None = None, ts: str | None = None,
                  type: str | None = "type", time_unit: str | None = None) -> First:
    """The first ``k`` matches in the order of their last event (then their canonical
    text), as ``kleene match --first K``: ``.matches`` in that order, ``.events`` (the
    prefix matched), ``.why`` (why every event was matched)
    (:func:`kleene.engines.count.first.first_matches`)."""
    stream = load_events(events, ts=ts, type=type, time_unit=time_unit)
    return _first(pattern, stream, k, policy=policy, engine_name=engine, budget=budget)


def match(pattern: str | Pattern | Query, events: Events, *, policy: str | None = None,
          reading: str | None = None, engine: str | None = None,
          budget: Budget | None = None, ts: str | None = None, type: str | None = "type",
          time_unit: str | None = None) -> Any:
    """The matches of ``pattern`` on ``events`` as a table: one row per match, variable and
    event, ``match`` (numbered in the order of each match's first position), ``variable``,
    ``position``, then the event's ``ts``, ``type`` and every attribute. An Arrow table, or
    a pandas DataFrame when ``events`` was one.

    A Spark DataFrame is matched on Spark and gives a Spark DataFrame
    (:func:`~kleene.engines.spark.runner.match_dataframe`: ``match_id``, ``first``,
    ``variable`` — SREMO's marked positions as ``marked`` here too —, ``position``, and
    the ``columns`` it is given). A
    ``MATCH_RECOGNIZE`` statement answers the table the statement defines over ``events``
    (its ``FROM`` names them): on Spark a Spark DataFrame
    (:func:`kleene.engines.tables.match_recognize`)."""
    query = Query.decide(pattern, policy=policy, reading=reading, time_unit=time_unit)
    if _is_spark(events) and query.answers_tables:
        from kleene.engines.tables import match_recognize as _recognize

        return _recognize(events, query.text, engine=engine, budget=budget)
    if _is_spark(events):
        # lazy: PySpark only for a Spark DataFrame
        from pyspark.sql import functions as F

        from kleene.engines.spark.runner import match_dataframe

        found = match_dataframe(events, query, engine=engine, ts=ts or "ts", type=type)
        # SREMO's `~` as `marked`, as every other door prints it (readable_name)
        return found.withColumn("variable", F.when(F.col("variable") == MARKED,
                                                   MARKED_NAME).otherwise(F.col("variable")))
    if query.answers_tables:
        # lazy: DuckDB and the SQL modules only for a MATCH_RECOGNIZE statement
        from kleene.engines.tables import answer_table

        data = events if not isinstance(events, str | os.PathLike) else os.fspath(events)
        out = answer_table(query, data, engine_name=engine, budget=budget).table
        return out.to_pandas() if _is_pandas(events) else out
    stream = load_events(events, ts=ts, type=type, time_unit=time_unit)
    found = _find(query, stream, engine_name=engine, budget=budget)
    given = _arrow_of(events)
    out = rows_table(found.matches, given if given is not None else _events_table(stream),
                     query.lang.variables(query.pattern))
    return out.to_pandas() if _is_pandas(events) else out


def rows_table(found: Iterable[Match], rows: pa.Table, variables: Iterable[str] = ()
               ) -> pa.Table:
    """The long rows of :func:`match`: matches in order of first position (ties by their
    canonical text), the variables in the pattern's order (``variables``; any other by
    name), each variable's events in position order, with every column of the
    event's row in ``rows`` (the user's own table, its types kept, when the events were
    one; else the loaded stream's columns)."""
    ordered = sorted(found, key=lambda m: (m.first, m.dumps()))
    ids: list[int] = []
    names: list[str] = []
    positions: list[int] = []
    order = list(variables)
    for k, m in enumerate(ordered):
        for v in [v for v in order if v in m.variables] + sorted(set(m.variables) - set(order)):
            for p in m[v]:
                ids.append(k)
                names.append(readable_name(v))   # SREMO's `~` as `marked`
                positions.append(p)
    head = pa.table({"match": pa.array(ids, pa.int64()),
                     "variable": pa.array(names, pa.string()),
                     "position": pa.array(positions, pa.int64())})
    events = rows.take(pa.array(positions, pa.int64()))
    for name in events.column_names:
        if name in head.column_names:
            raise Unsupported(f"the events have a column {name!r}, a name the match rows "
                              "use (match, variable, position): rename it")
        head = head.append_column(name, events.column(name))
    return head


def _events_table(stream: Stream) -> pa.Table:
    """``stream``'s rows as an Arrow table: ``ts``, ``type`` (when typed), the attributes."""
    if stream.columns is not None:
        return stream.columns.table()
    rows = [e.to_json() for e in stream]
    names = dict.fromkeys(k for r in rows for k in r)
    return pa.table({n: [r.get(n) for r in rows] for n in names}) if rows else \
        pa.table({"ts": pa.array([], pa.int64())})


@dataclass(frozen=True)
class Picture:
    """An automaton's picture: ``svg`` text, shown inline by a notebook; :meth:`save`
    writes it (through the writers' guard: never over an input)."""

    svg: str = field(repr=False)
    engine: str

    def _repr_svg_(self) -> str:
        return self.svg

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the SVG text to ``path`` (replaced atomically)."""
        # lazy: the writers' guard only when a picture is saved
        from pathlib import Path

        from kleene.data.outputs import replacing

        with replacing(os.fspath(path), option="path") as temporary:
            Path(temporary).write_text(self.svg, encoding="utf-8")


def compiled(pattern: str | Pattern | Query, *, engine: str | None = None,
             policy: str | None = None) -> tuple[Compiled, str]:
    """The automaton of ``pattern`` compiled by ``engine`` (default: the engine pictures show,
    :func:`~kleene.engines.registry.pictured_engine`) and the engine's name; one line when
    the engine does not claim the query."""
    query = Query.ask(pattern, policy=policy, door="kleene.draw and kleene.trace")
    name = engine or pictured_engine(query)
    eng = _engine(name)
    if not claims(eng, query):
        raise Unsupported(f"engine {name} does not claim this {query.lang.title} query "
                          f"(policy {query.policy})")
    return eng.compile(query), name


def draw(pattern: str | Pattern | Query, *, engine: str | None = None,
         policy: str | None = None, guards: str = "auto", states: str = "auto",
         title: str | None = None) -> Picture:
    """The picture of the automaton ``engine`` compiles for ``pattern`` (``kleene draw``)."""
    automaton, name = compiled(pattern, engine=engine, policy=policy)
    data = _draw(automaton, "svg", title=title, guards=guards, states=states)
    return Picture(data.decode("utf-8"), name)


def trace(pattern: str | Pattern | Query, events: Events, *, engine: str | None = None,
          policy: str | None = None, ts: str | None = None, type: str | None = "type",
          time_unit: str | None = None) -> Traced:
    """A run of the automaton over ``events``, every step recorded (``kleene trace``): its
    ``.matches``, ``.text()``, and an HTML page a notebook shows."""
    stream = load_events(events, ts=ts, type=type, time_unit=time_unit)
    query = Query.ask(pattern, policy=policy, door="kleene.trace") \
        .with_time_unit(stream.time_unit)
    automaton, name = compiled(query, engine=engine)
    if tracer_of(automaton) is None:
        raise Unsupported(f"engine {name} runs no automaton a trace follows: choose an SES "
                          "automaton (ses-automaton*), an NFA (nfa-*) or an SRT (srt*)")
    return _trace(automaton, stream)


def _arrow_of(source: Any) -> pa.Table | None:
    """``source`` as an Arrow table when it is one or a pandas DataFrame, else ``None``."""
    if isinstance(source, pa.Table):
        return source
    if isinstance(source, pa.RecordBatch):
        return pa.Table.from_batches([source])
    if _is_pandas(source):
        return pa.Table.from_pandas(source, preserve_index=False)
    return None


def _is_pandas(x: object) -> bool:
    return type(x).__module__.startswith("pandas.") and type(x).__name__ == "DataFrame"


def _is_spark(x: object) -> bool:
    return type(x).__module__.startswith("pyspark.") and type(x).__name__ == "DataFrame"


def type_name(x: object) -> str:
    return type(x).__name__
