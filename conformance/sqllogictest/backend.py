"""A backend as the recognizer of sqllogictest records, and the vendors' readings.

``kleene conform --sqllogictest FILES --backend SPEC`` runs each file as
:mod:`.runner` does (every table the file's statements create, and all SQL around a
recognition, by DuckDB), but each recognition by the backend: it receives one
:class:`~kleene.conformance.wire.TableRequest`, the recognition alone over its source,

    SELECT * FROM t MATCH_RECOGNIZE (<the clause as Kleene prints it>)

with ``t`` the source's rows as DuckDB computed them (a named table, or a parenthesised
query, its own recognitions by the backend too), and answers the recognition's output
table, which DuckDB then reads in place of the recognition. An engine author thus writes
``MATCH_RECOGNIZE`` over one table, not a SQL engine, and the record is judged as Kleene's
reference would be: the same rendering, the same sort mode.

- a broken answer (crashed, timeout, non-JSON, malformed) fails the record with its
  verdict (:class:`BackendFailed`);
- an error answer is the record's error (a ``statement error`` passes on any error, as
  for Kleene), but ``unsupported``, which makes the record ``unsupported``;
- a recognition needing a feature the backend does not claim is not sent: the record is
  ``unsupported``, naming the features;
- a statement Kleene's parser rejects (a ``statement error`` record, mostly) is not
  judged by that rejection: its one recognition is found by its tokens
  (:func:`isolate`) and sent to the backend as written; where it cannot be, the record is
  ``unsupported``.

A **reading** (:data:`READINGS`) is a vendor's answer where the standard and the vendor
part, chosen per run (``--reading duckdb``): it reorders the reference's output as the
vendor does, and the ``EXPLAINED.toml`` entries of the errata it adopts no longer explain
a failure (their records must pass).
"""

from __future__ import annotations

from dataclasses import dataclass

import duckdb
import pyarrow as pa

from kleene.conformance.outcome import TableBackend
from kleene.conformance.sql_tables import SqlTable
from kleene.conformance.wire import TableRequest
from kleene.data.sql import ArrowRecognizer, Recognize, execute, fresh_name, recognized
from kleene.engines.protocol import Feature
from kleene.reference.errors import KleeneError, Unsupported
from kleene.reference.match_recognize.ast import MatchRecognize
from kleene.reference.match_recognize.features import clause_constructs
from kleene.reference.match_recognize.lexer import Token, tokenize
from kleene.reference.match_recognize.printer import format_clause
from kleene.reference.match_recognize.registration import POLICY

LANGUAGE = "match_recognize"
#: The name the request gives the recognition's source.
SOURCE = "t"


class BackendFailed(Exception):
    """The backend failed on a request (not a Kleene error: no ``statement error`` passes on
    it): ``verdict`` (crashed, timeout, non-json, malformed) and what happened."""

    def __init__(self, verdict: str, message: str) -> None:
        super().__init__(f"{verdict}: {message}")
        self.verdict = verdict


class BackendRejected(KleeneError):
    """The backend answered an error: its code and message."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"the backend answered error {code!r}: {message}")
        self.code = code


def request_for(clause: MatchRecognize, source: pa.Table) -> TableRequest:
    """The table request of one recognition over its source."""
    body = "\n  ".join(format_clause(clause).splitlines())
    return TableRequest(LANGUAGE, f"SELECT * FROM {SOURCE} MATCH_RECOGNIZE (\n  {body}\n)",
                        {SOURCE: SqlTable.of_arrow(source)})


def needs(clause: MatchRecognize) -> frozenset[Feature]:
    """What a backend must claim to be sent ``clause``."""
    return Feature.of(LANGUAGE, POLICY, *clause_constructs(clause))


@dataclass
class BackendRecognizer:
    """Each recognition by ``backend`` (an :class:`~kleene.data.sql.ArrowRecognizer`), each
    request within ``timeout`` seconds; ``sent`` counts the requests."""

    backend: TableBackend
    timeout: float | None = None
    sent: int = 0

    def recognize_arrow(self, clause: MatchRecognize, table: pa.Table) -> pa.Table:
        absent = sorted(map(str, needs(clause) - self.backend.capabilities))
        if absent:
            raise Unsupported(f"not sent: the backend does not claim {', '.join(absent)}")
        return self.answer(request_for(clause, table))

    def unparsed(self, sql: str, connection: duckdb.DuckDBPyConnection,
                 error: KleeneError) -> pa.Table:
        """The result of ``sql``, which Kleene's parser rejects with ``error``, its one
        recognition sent to the backend as written (:func:`isolate`): the backend, not
        Kleene, is judged on it. :class:`Unsupported` when the recognition cannot be
        isolated (so no ``statement error`` passes on Kleene's own rejection)."""
        found = isolate(sql)
        if found is None:
            raise Unsupported("not sent: Kleene's parser rejects the statement and cannot "
                              f"isolate its recognition for the backend ({_line(error)})")
        source = execute(connection, found.source)
        output = self.answer(TableRequest(
            LANGUAGE, f"SELECT * FROM {SOURCE} MATCH_RECOGNIZE {found.clause}",
            {SOURCE: SqlTable.of_arrow(source)}))
        name = fresh_name(connection, "recognition")
        connection.register(name, output)
        return execute(connection, sql[:found.start] + name + sql[found.end:])

    def answer(self, request: TableRequest) -> pa.Table:
        """The backend's output table for ``request`` (its error raised as
        :class:`BackendRejected` or :class:`Unsupported`, its failure as
        :class:`BackendFailed`)."""
        self.sent += 1
        outcome = self.backend.run(request, timeout=self.timeout)
        if outcome.broken is not None:
            raise BackendFailed(outcome.verdict, outcome.broken)
        if outcome.error is not None:
            code, message = outcome.error
            if code == "unsupported":
                raise Unsupported(f"the backend answered unsupported: {message}")
            raise BackendRejected(code, message)
        if outcome.table is None:
            raise BackendFailed("malformed", "the answer to a table request holds no table")
        try:
            return outcome.table.arrow()
        except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError, TypeError) as err:
            raise BackendFailed("malformed", f"the answer's table does not fit its "
                                f"declared types: {err}") from None


@dataclass(frozen=True)
class Isolated:
    """A statement's one recognition found by its tokens alone: the SQL of its ``source``
    (``SELECT * FROM name`` or a parenthesised query), the ``clause`` as written from its
    ``(`` to its ``)``, and ``start``/``end`` of ``<source> MATCH_RECOGNIZE (…)``."""

    source: str
    clause: str
    start: int
    end: int


#: Words that end a ``FROM`` item read backwards (it is then no lone ``FROM`` item).
_CLAUSES = frozenset({"SELECT", "WHERE", "JOIN", "ON", "USING", "LATERAL", "UNION", "EXCEPT",
                      "INTERSECT", "GROUP", "HAVING", "WITH", "ORDER", "LIMIT"})


def isolate(sql: str) -> Isolated | None:
    """The one recognition of ``sql`` by its tokens (for a statement Kleene's parser
    rejects): ``FROM <item> MATCH_RECOGNIZE (…)``, the item a name, a parenthesised
    query or ``VALUES``, with or without an alias, and no other ``MATCH_RECOGNIZE`` in
    ``sql``; ``None`` for anything else. The source is ``SELECT * FROM <item>``."""
    try:
        tokens = tokenize(sql)
    except KleeneError:
        return None
    at = [i for i, t in enumerate(tokens) if t.word() == "MATCH_RECOGNIZE"]
    if len(at) != 1 or at[0] == 0 or at[0] + 1 >= len(tokens):
        return None
    k = at[0]
    close = _matching(tokens, k + 1, 1)
    j = k - 1
    while j >= 0 and tokens[j].word() != "FROM":    # back over the FROM item
        t = tokens[j]
        if t.kind == "op" and t.text == ")":
            opening = _matching(tokens, j, -1)
            if opening is None:
                return None
            j = opening - 1
        elif t.text == "." or (t.kind in ("ident", "qident") and t.word() not in _CLAUSES):
            j -= 1
        else:
            return None
    if close is None or j < 0 or j + 1 >= k:
        return None
    start = tokens[j + 1].at
    return Isolated(f"SELECT * FROM {sql[start:tokens[k - 1].end]}",
                    sql[tokens[k + 1].at:tokens[close].end], start, tokens[close].end)


def _matching(tokens: list[Token], i: int, step: int) -> int | None:
    """The index of the parenthesis matching the one at ``i`` (``step`` 1: an opening one,
    searched forward; -1: a closing one, backward)."""
    opening, closing = ("(", ")") if step == 1 else (")", "(")
    if tokens[i].kind != "op" or tokens[i].text != opening:
        return None
    depth = 0
    while 0 <= i < len(tokens):
        if tokens[i].kind == "op":
            depth += {opening: 1, closing: -1}.get(tokens[i].text, 0)
            if depth == 0:
                return i
        i += step
    return None


def _line(error: KleeneError) -> str:
    return " ".join(str(error).split())


@dataclass(frozen=True)
class Reading:
    """A vendor's reading: its ``name``, the errata anchors (docs/errata.md) where it
    follows the vendor, and what it changes, in words."""

    name: str
    adopts: frozenset[str]
    says: str

    def wrap(self, recognize: Recognize | ArrowRecognizer) -> ArrowRecognizer:
        """``recognize`` with its output in the vendor's order."""
        return _Reordered(recognize)


@dataclass(frozen=True)
class _Reordered:
    """DuckDB's ``ALL ROWS PER MATCH`` output: the input's columns in the input's order,
    then the measures (docs/errata.md#mr-select-star-all-rows)."""

    inner: Recognize | ArrowRecognizer

    def recognize_arrow(self, clause: MatchRecognize, table: pa.Table) -> pa.Table:
        out = recognized(self.inner, clause, table)
        if clause.rows_per_match == "ONE":
            return out
        place = {n.upper(): i for i, n in enumerate(table.column_names)}
        first = sorted((n for n in out.column_names if n.upper() in place),
                       key=lambda n: place[n.upper()])
        rest = [n for n in out.column_names if n.upper() not in place]
        return out.select(first + rest)


#: The readings a run may choose (``--reading``).
READINGS: dict[str, Reading] = {
    "duckdb": Reading("duckdb", frozenset({"mr-select-star-all-rows"}),
                      "ALL ROWS PER MATCH lists the input's columns in the input's order, "
                      "then the measures (DuckDB's SELECT *)"),
}
