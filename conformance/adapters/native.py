"""A peer's own ``MATCH_RECOGNIZE``: one recognition, as written, run by the real engine.

:class:`Native` is an :class:`~kleene.data.sql.ArrowRecognizer`, so the sqllogictest runner
(``kleene conform --sqllogictest``'s, :mod:`kleene.conformance.sqllogictest.runner`) and
:func:`kleene.data.sql.run_statement` run a statement with the peer in Kleene's place: DuckDB
evaluates the recognition's source and the SQL around it, the peer the recognition itself,
over the source table sent to its worker (``flink_worker.py``, ``pmr_worker.py``: the
``table`` request). What the peer gets is the clause as Kleene parsed it, printed back
(:func:`~kleene.reference.match_recognize.printer.format_clause`) in the peer's dialect
(:func:`request`):

- pandas-match-recognize: the clause as printed, over the DataFrame of the table;
- Flink SQL (batch or streaming mode): identifiers quoted with backticks; the first
  ``ORDER BY`` key becomes a computed time attribute (Flink orders a recognition by a time
  attribute first): an integer column as epoch seconds (``TO_TIMESTAMP_LTZ(c, 0)``: a
  ``WITHIN`` interval over it counts its units as seconds, as the reference does), a
  date or timestamp cast to ``TIMESTAMP(3)``; any other first key is declined, and so is
  a NULL in it; ``COUNT(v.*)`` becomes ``COUNT(v.kleene_rt)`` (:data:`COUNT_ROWS`), a
  quantifier ``{,n}`` ``{0,n}`` (:func:`flink_bounds`).

The answer comes back as the reference's output would (:func:`output_names`: the partition
columns and the measures for ``ONE ROW PER MATCH``; with the order columns and the other
input columns for ``ALL ROWS``), each column found by name case-insensitively (else by
position), its values typed back (dates, timestamps, decimals) and converted by
:func:`~kleene.data.sql.arrow_of` like the input. The peer's error is the recognition's
error (:class:`PeerError`), except where the peer says it does not support what it was
asked (:data:`DECLINES`: the message of a documented limitation): that is
:class:`~kleene.reference.errors.Unsupported`, a *declined* record.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import re
from decimal import Decimal
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from kleene.conformance.adapters.base import MRBackend
from kleene.data.sql import arrow_of
from kleene.reference.errors import BudgetExceeded, KleeneError, Unsupported
from kleene.reference.match_recognize.ast import Column, MatchRecognize, SortKey
from kleene.reference.match_recognize.printer import format_clause
from kleene.reference.match_recognize.table import Table

#: The name of the input table in the peer's query.
INPUT = "kleene_input"
#: Flink's computed time attribute (the first ORDER BY key).
TIME = "kleene_rt"
#: ``COUNT(v.*)``, which Flink's validator rejects (``Unknown field '*'``); the adapter
#: sends ``COUNT(v.kleene_rt)``, the same count: the time attribute is never NULL.
COUNT_ROWS = re.compile(r"COUNT\(\s*(\w+|`(?:[^`]|``)+`)\.\*\s*\)")
#: An engine's message that it does not support what it was asked (a documented limit).
DECLINES = re.compile(r"not (yet )?supported|unsupported|not allowed|does not support|"
                      r"currently only supports|only support", re.IGNORECASE)

#: Requests of one :meth:`Native.prefetch` message (Flink's worker runs ten to a job) and
#: the seconds each may take there: 200 at 4 s each timed out on two cores at a load of 20
#: (Flink took 16 minutes for 200; the chunk was then asked one recognition at a time).
CHUNK, PER_REQUEST = 40, 20.0
#: What PyFlink wraps a Java exception's message in (left out of the error said).
JAVA_NOISE = re.compile(r"Py4JJavaError: An error occurred while calling o\d+\.\w+\.\s*:\s*"
                        r"|org\.apache\.flink\.table\.api\.(?=\w+(Exception|Error))")


class PeerError(KleeneError):
    """The peer failed on a recognition (its message, one line)."""

    code = "peer"


def sql_type(kind: pa.DataType) -> str | None:
    """The SQL type of an Arrow column (``None``: none the workers take)."""
    if pa.types.is_integer(kind):
        return "BIGINT"
    if pa.types.is_floating(kind):
        return "DOUBLE"
    if pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_null(kind):
        return "VARCHAR"
    if pa.types.is_boolean(kind):
        return "BOOLEAN"
    if pa.types.is_date(kind):
        return "DATE"
    if pa.types.is_timestamp(kind):
        return "TIMESTAMP(3)"
    if pa.types.is_decimal(kind):
        return f"DECIMAL({kind.precision}, {kind.scale})"
    return None


def _wire(value: object) -> object:
    if isinstance(value, datetime.datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return float(value)
    return value


def requote(text: str, columns: set[str], quote: str) -> str:
    """``text`` with each double-quoted identifier that names one of ``columns`` (upper
    case) in upper case and bare, every other quoted with ``quote`` (single-quoted strings
    kept as they are)."""
    def swap(m: re.Match[str]) -> str:
        quoted = m.group(0)
        if quoted.startswith("'"):
            return quoted
        inner = quoted[1:-1].replace('""', '"')
        if inner.upper() in columns:
            return inner.upper()
        return quote + inner.replace(quote, quote + quote) + quote
    return re.sub(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"", swap, text)


def flink_time(clause: MatchRecognize, columns: dict[str, str]
               ) -> tuple[MatchRecognize, list[str]]:
    """The clause ordered by Flink's computed time attribute, and its ``[name, expression]``
    (:class:`Unsupported` when the first key is no integer, date or timestamp column)."""
    if not clause.order_by:
        raise Unsupported("flink: MATCH_RECOGNIZE without ORDER BY (Flink orders by a time "
                          "attribute)")
    first = clause.order_by[0]
    if not isinstance(first.expr, Column) or first.expr.var is not None or first.descending:
        raise Unsupported("flink: the first ORDER BY key is no ascending column (Flink orders "
                          "by an ascending time attribute)")
    kind = next((t for n, t in columns.items() if n.upper() == first.expr.name.upper()), None)
    name = first.expr.name.upper()
    if kind == "BIGINT":
        expression = f"TO_TIMESTAMP_LTZ(`{name}`, 0)"
    elif kind in ("DATE", "TIMESTAMP(3)"):
        expression = f"CAST(`{name}` AS TIMESTAMP(3))"
    else:
        raise Unsupported(f"flink: the first ORDER BY key is a {kind} column, not a time "
                          "(Flink orders by a time attribute)")
    key = SortKey(Column(TIME), nulls_first=first.nulls_first)
    return dataclasses.replace(clause, order_by=(key, *clause.order_by[1:])), [TIME, expression]


def said(clause: MatchRecognize) -> str:
    """The clause as printed, with ``AFTER MATCH SKIP PAST LAST ROW`` written out where
    the printer leaves it out as the standard's default (a peer's own default may differ)."""
    text = format_clause(clause)
    if clause.after_match.kind != "PAST LAST ROW":
        return text
    skip = "AFTER MATCH SKIP PAST LAST ROW\n"
    at = text.find("PATTERN (")
    return text[:at] + skip + text[at:] if at >= 0 else skip + text


#: A quantifier with its lower bound left out (``{,n}``, the standard's ``{0,n}``).
NO_LOWER = re.compile(r"\{,(?=\d+\}\??)")


def flink_bounds(text: str) -> str:
    """``text`` (a clause as printed) with each ``{,n}`` of its ``PATTERN`` line written
    ``{0,n}``: Flink's parser (Calcite) reads the missing bound as -1 and its CEP library
    then fails at run time (``IllegalArgumentException: The from should be a positive
    number greater than 0``; 37 of 300 drawn recognitions, 2026-11-28), where ``{0,n}``
    runs (Flink's grammar lists both, *Queries* overview, ``patternQuantifier``)."""
    return "\n".join(NO_LOWER.sub("{0,", line) if line.lstrip().startswith("PATTERN (")
                     else line for line in text.splitlines())


def request(peer: str, clause: MatchRecognize, table: pa.Table) -> dict[str, Any]:
    """The worker's ``table`` request for the recognition of ``clause`` over ``table``
    (without rows), in the peer's dialect (the module docstring). The columns are sent
    under their names in upper case, as the parser reads an unquoted name (both peers
    look names up case-sensitively)."""
    columns = {}
    for field in table.schema:
        kind = sql_type(field.type)
        if kind is None:
            raise Unsupported(f"{peer}: column {field.name} of type {field.type} is not sent")
        columns[field.name.upper()] = kind
    if len(columns) != table.num_columns:
        raise Unsupported(f"{peer}: two columns differ only in case")
    message: dict[str, Any] = {"cmd": "table", "name": INPUT,
                               "columns": [[n, t] for n, t in columns.items()]}
    if peer == "flink":
        clause, message["time"] = flink_time(clause, columns)
        body = COUNT_ROWS.sub(rf"COUNT(\1.`{TIME}`)",
                              requote(flink_bounds(said(clause)), set(columns), "`"))
        message["sql"] = f"SELECT * FROM `{INPUT}` MATCH_RECOGNIZE (\n{body}\n)"
    else:
        body = requote(said(clause), set(columns), '"')
        message["sql"] = f"SELECT * FROM {INPUT} MATCH_RECOGNIZE (\n{body}\n)"
    return message


def output_names(clause: MatchRecognize, names: list[str]) -> list[str]:
    """The output columns of ``clause`` over a table with columns ``names``, as the
    reference names them (ISO/IEC 9075-2 §7.6: the partition columns and the measures;
    ``ALL ROWS PER MATCH`` also the order columns and the rest of the input)."""
    def index(expr: object) -> int | None:
        if not isinstance(expr, Column):
            return None
        return next((i for i, n in enumerate(names) if n.upper() == expr.name.upper()), None)
    by = [i for i in map(index, clause.partition_by) if i is not None]
    measures = [m.name for m in clause.measures]
    if clause.rows_per_match == "ONE":
        return [names[i] for i in by] + measures
    order = [i for i in dict.fromkeys(index(k.expr) for k in clause.order_by)
             if i is not None and i not in by]
    rest = [i for i in range(len(names)) if i not in by and i not in order]
    return [names[i] for i in by + order] + measures + [names[i] for i in rest]


def _typed(value: object, kind: str, like: pa.DataType | None) -> object:
    """A worker's value as the Python value of its type (the peer's ``kind``, or the input
    column's type ``like`` when the output column is one)."""
    if value is None:
        return None
    upper = kind.upper()
    if like is not None and pa.types.is_date(like) and isinstance(value, str):
        return datetime.date.fromisoformat(value[:10])
    if isinstance(value, str) and ("TIMESTAMP" in upper or "DATETIME" in upper):
        return datetime.datetime.fromisoformat(value)
    if isinstance(value, str) and upper.startswith("DATE"):
        return datetime.date.fromisoformat(value)
    if "DECIMAL" in upper or (like is not None and pa.types.is_decimal(like)):
        return Decimal(str(value))
    if isinstance(value, float) and value.is_integer() and like is not None \
            and pa.types.is_integer(like):
        return int(value)
    return value


def output(clause: MatchRecognize, source: pa.Table, answer: dict[str, Any]) -> pa.Table:
    """The peer's answer as the reference's output table (the module docstring)."""
    names = output_names(clause, source.column_names)
    got = [str(c[0]) for c in answer["columns"]]
    rows = answer["rows"]
    where = []
    for n in names:
        found = [i for i, g in enumerate(got) if g.upper() == n.upper()]
        where.append(found[0] if len(found) == 1 else None)
    if None in where:
        if len(got) != len(names) or not rows and not got:
            if not rows:
                return arrow_of(Table(tuple(names), ()), like=source.schema)
            raise PeerError(f"the peer answered columns {', '.join(got)}; expected "
                            f"{', '.join(names)}")
        where = list(range(len(names)))
    types = {f.name.upper(): f.type for f in source.schema}
    values = tuple(tuple(_typed(row[i], str(answer["columns"][i][1]), types.get(n.upper()))
                         for n, i in zip(names, where, strict=True) if i is not None)
                   for row in rows)
    return arrow_of(Table(tuple(names), values), like=source.schema)


class Native:
    """A peer's worker as an :class:`~kleene.data.sql.ArrowRecognizer` (module docstring),
    each recognition under ``timeout`` seconds, in the peer's ``mode`` (Flink's ``batch``
    or ``streaming``; pmr has one).

    The worker is sent ``tables`` requests: many recognitions at once where the caller
    knows them in advance (:meth:`recording`, then :meth:`prefetch`: Flink runs many in one
    job), each answer kept under its request (:func:`key`); a recognition not prefetched is
    a request of its own."""

    def __init__(self, backend: MRBackend, peer: str, timeout: float = 60.0,
                 mode: str = "batch") -> None:
        self.backend = backend
        self.peer = peer
        self.timeout = timeout
        self.mode = mode
        self.known: dict[str, dict[str, Any]] = {}
        #: the messages of the recognitions asked while recording (``None``: not recording)
        self.recorded: list[dict[str, Any]] | None = None
        #: every recognition recorded, as asked (the clause and its source)
        self.calls: list[tuple[MatchRecognize, pa.Table]] = []

    def message(self, clause: MatchRecognize, table: pa.Table) -> dict[str, Any]:
        """The worker's request for ``clause`` over ``table``, rows included (Flink's in
        the order of its time attribute: its streaming mode drops a row later than the
        watermark; :class:`Unsupported` for a NULL there, which a time attribute cannot
        hold)."""
        message = request(self.peer, clause, table)
        if self.peer == "flink" and clause.order_by:
            first = clause.order_by[0].expr
            name = next((n for n in table.column_names
                         if isinstance(first, Column) and n.upper() == first.name.upper()),
                        None)
            if name is not None:
                if table.column(name).null_count:
                    raise Unsupported("flink: a NULL in the first ORDER BY column (Flink's "
                                      "time attribute holds none)")
                table = table.take(pc.sort_indices(table, [(name, "ascending")]))
        message["rows"] = [[_wire(v) for v in row.values()] for row in table.to_pylist()]
        return message

    def recording(self) -> None:
        """From now on, record each recognition's request and decline it (the first pass
        over a corpus; :meth:`prefetch` then runs what was recorded)."""
        self.recorded = []

    def prefetch(self, messages: list[dict[str, Any]], chunk: int = CHUNK) -> None:
        """Ask the worker for the answers to ``messages``, ``chunk`` at a time, each chunk
        given :data:`PER_REQUEST` seconds a request (a chunk that times out is left to be
        asked again one by one); recording stops."""
        self.recorded = None
        todo = [m for m in {key(m): m for m in messages}.values() if key(m) not in self.known]
        for at in range(0, len(todo), chunk):
            part = todo[at:at + chunk]
            try:
                got = self.backend.ask({"cmd": "tables", "mode": self.mode, "requests": part,
                                        "limit": self.timeout},
                                       timeout=self.timeout + PER_REQUEST * len(part))
            except (TimeoutError, RuntimeError, OSError, ValueError):
                continue
            for m, answer in zip(part, got.get("answers", ()), strict=False):
                self.known[key(m)] = answer

    def recognize_arrow(self, clause: MatchRecognize, table: pa.Table) -> pa.Table:
        message = self.message(clause, table)
        if self.recorded is not None:
            self.recorded.append(message)
            self.calls.append((clause, table))
            raise Unsupported("recorded for a later run (the first pass)")
        answer = self.known.get(key(message))
        if answer is None:
            try:
                got = self.backend.ask({"cmd": "tables", "mode": self.mode,
                                        "requests": [message], "limit": self.timeout},
                                       timeout=self.timeout + 5.0)
                answer = got["answers"][0] if "answers" in got else got
            except TimeoutError as err:
                raise BudgetExceeded("seconds", self.timeout, f"{self.peer} ran a "
                                     f"recognition ({err})", " s") from None
            except (RuntimeError, OSError, ValueError, KeyError, IndexError) as err:
                raise PeerError(f"{self.peer}: {err}") from None
        if "error" in answer:
            said = error_line(str(answer["error"]))
            if said.startswith("PeerTimeout"):
                raise BudgetExceeded("seconds", self.timeout, f"{self.peer} ran a "
                                     "recognition (its worker stopped it)", " s")
            if DECLINES.search(said):
                raise Unsupported(f"{self.peer} declines: {said}")
            raise PeerError(f"{self.peer}: {said}")
        return output(clause, table, answer)


def key(message: dict[str, Any]) -> str:
    """A request as the key of its answer."""
    return json.dumps(message, sort_keys=True, default=str)


def error_line(error: str) -> str:
    """A worker's error as one line: PyFlink's wrapping and the Java stack left out."""
    head = re.split(r"\n\s*at |\s+at org\.apache\.", error, maxsplit=1)[0]
    return " ".join(JAVA_NOISE.sub("", head).split())[:600]
