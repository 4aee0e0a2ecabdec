"""What a backend is to the conformance runner: :class:`Backend` answers each request
with an :class:`Outcome`; :class:`BackendError` says a backend cannot be used at all.

:mod:`kleene.conformance.backends` finds the backend a specification names (engines
in process, entry points, factories); :mod:`kleene.conformance.command` speaks to an
external one over the JSON-lines protocol of :mod:`kleene.conformance.wire`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, cast, runtime_checkable

from kleene.conformance.sql_tables import SqlTable
from kleene.conformance.wire import AnyRequest, Request
from kleene.engines.protocol import Feature
from kleene.reference.errors import KleeneError
from kleene.reference.match import Match


class BackendError(KleeneError):
    """A backend that cannot be used at all (its handshake failed, its factory broke)."""

    code = "backend"


class UnknownBackend(BackendError):
    """No backend answers to the specification; the message lists the choices."""


@dataclass(frozen=True)
class Outcome:
    """What a backend made of one request.

    Exactly one of: ``matches`` (every match reported, duplicates kept), ``table`` (the
    answer to a :class:`~kleene.conformance.wire.TableRequest`),
    ``error`` (``(code, message)``: the backend rejected the query with a
    stable code), ``broken`` (the backend itself failed: ``verdict`` is
    ``crashed``, ``timeout``, ``non-json`` or ``malformed`` and ``broken``
    says what happened) or ``declined`` (a run-time skip, with its reason).
    """

    matches: tuple[Match, ...] | None = None
    table: SqlTable | None = None
    error: tuple[str, str] | None = None
    broken: str | None = None
    verdict: str = ""
    declined: str | None = None
    seconds: float = 0.0
    peak: int | None = None


@runtime_checkable
class Backend(Protocol):
    """A backend: a name, a version, the features it claims, ``run`` and ``close``."""

    name: str
    version: str
    origin: str

    @property
    def capabilities(self) -> frozenset[Feature]: ...

    def run(self, request: Request, *, timeout: float | None = None) -> Outcome: ...

    def close(self) -> None: ...


@runtime_checkable
class TableBackend(Backend, Protocol):
    """A backend that also answers :class:`~kleene.conformance.wire.TableRequest` s (an
    external command, the reference, a ``MATCH_RECOGNIZE`` engine)."""

    def run(self, request: AnyRequest, *, timeout: float | None = None) -> Outcome: ...


#: The language whose requests carry tables.
TABLES = "match_recognize"


def table_backend(backend: Backend) -> TableBackend:
    """``backend`` as one that answers table requests; :class:`BackendError` when it
    does not claim ``match_recognize`` or cannot take a table request."""
    if Feature(TABLES) not in backend.capabilities:
        raise BackendError(f"backend {backend.name} does not claim {TABLES}: it gets no "
                           "table requests (docs/backends.md, Tables)")
    if not getattr(backend, "answers_tables", False):
        raise BackendError(f"backend {backend.name} claims {TABLES} but takes no table "
                           "requests (an external command, the reference or a "
                           "MATCH_RECOGNIZE engine does)")
    return cast(TableBackend, backend)

