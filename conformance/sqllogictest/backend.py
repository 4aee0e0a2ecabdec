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
  ``unsupported``, naming the features.

A **reading** (:data:`READINGS`) is a vendor's answer where the standard and the vendor
part, chosen per run (``--reading duckdb``): it reorders the reference's output as the
vendor does, and the ``EXPLAINED.toml`` entries of the errata it adopts no longer explain
a failure (their records must pass).
"""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa

from kleene.conformance.outcome import TableBackend
from kleene.conformance.sql_tables import SqlTable
from kleene.conformance.wire import TableRequest
from kleene.data.sql import ArrowRecognizer, Recognize, recognized
from kleene.engines.protocol import Feature
from kleene.reference.errors import KleeneError, Unsupported
from kleene.reference.languages import language_named
from kleene.reference.match_recognize.ast import MatchRecognize
from kleene.reference.match_recognize.features import clause_constructs
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
    language_named(LANGUAGE)
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
        request = request_for(clause, table)
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
