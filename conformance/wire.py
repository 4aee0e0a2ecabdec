"""The backend protocol's messages: requests, answers and their JSON schemas.

A backend in any language speaks JSON lines over stdin/stdout
(``docs/backends.md``; modelled on Bowtie's harness protocol for JSON Schema
and test262's hosts). Version 1 has three requests, each one line:

- ``{"cmd": "hello", "protocol": 1}`` → ``{"protocol": 1, "name", "version", "capabilities"}``;
- ``{"cmd": "run", "seq", "language", "pattern", "policy", "window", "time_unit", "events"}``
  → ``{"seq", "matches": [...]}`` or ``{"seq", "error": {"code", "message"}}``;
- ``{"cmd": "bye"}`` → no answer; the backend exits.

A backend that claims ``match_recognize`` (a language that answers tables) also gets
``{"cmd": "run", "seq", "language": "match_recognize", "sql", "tables"}`` and answers
``{"seq", "table"}`` or ``{"seq", "error"}`` (:class:`TableRequest`; the tables as
:mod:`kleene.conformance.sql_tables` writes them): still protocol 1, since no backend
that does not claim the language ever sees these messages.

Every message is validated against its schema in ``conformance/protocol/``
(JSON Schema 2020-12); :func:`problems` says exactly what is wrong with one.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match
from referencing import Registry, Resource

from kleene.conformance.sql_tables import SqlTable, decode

#: The protocol version this runner speaks.
PROTOCOL = 1

#: The message kinds, each with its schema ``conformance/protocol/<kind>.schema.json``.
KINDS: tuple[str, ...] = ("hello-request", "hello-response", "run-request", "run-response",
                          "run-table-request", "run-table-response", "bye-request")


def _schema(kind: str) -> dict[str, Any]:
    text = (files("kleene.conformance") / "protocol" / f"{kind}.schema.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


@cache
def validator(kind: str) -> Draft202012Validator:
    """The validator of message ``kind`` (one of :data:`KINDS`); a schema may refer to
    another by its file name (the table answer to the request's ``$defs/table``)."""
    if kind not in KINDS:
        raise ValueError(f"no message kind {kind!r}; kinds: {', '.join(KINDS)}")
    registry: Registry[Any] = Registry().with_resources(
        (schema["$id"], Resource.from_contents(schema)) for schema in map(_schema, KINDS))
    return Draft202012Validator(_schema(kind), registry=registry)


def _where(error: ValidationError) -> str:
    return "/" + "/".join(map(str, error.absolute_path)) if error.absolute_path else "(top)"


def _explain(error: ValidationError) -> list[str]:
    """What is wrong, as ``<JSON pointer>: <message>`` lines. For a ``oneOf`` (the
    matches or the error of a run answer) the alternative the message meant is the
    one whose required properties are present: its own errors are the explanation."""
    if not error.context:
        return [f"{_where(error)}: {error.message}"]
    branches: dict[Any, list[ValidationError]] = {}
    for sub in error.context:
        branches.setdefault(sub.relative_schema_path[0], []).append(sub)
    meant = [errs for errs in branches.values()
             if not any(e.validator == "required" and not e.absolute_path for e in errs)]
    if len(meant) == 1:
        return [line for e in meant[0] for line in _explain(e)]
    if not meant:
        return [f"{_where(error)}: fits none of the alternatives: " + " | ".join(
            best_match(errs).message for errs in branches.values())]
    return [f"{_where(error)}: fits more than one alternative: " + " | ".join(
        best_match(errs).message for errs in meant)]


def problems(kind: str, message: Any) -> list[str]:
    """Every way ``message`` breaks the schema of ``kind`` (empty: well formed), each
    as ``<JSON pointer>: <what is wrong>``."""
    errors = sorted(validator(kind).iter_errors(message), key=lambda e: list(e.absolute_path))
    return [line for e in errors for line in _explain(e)]


@dataclass(frozen=True)
class Request:
    """One query over one stream, as a backend receives it (the ``run`` message
    without its ``seq``). ``events`` are the case's rows; positions index them."""

    language: str
    pattern: str
    policy: str
    window: str = "inclusive"
    time_unit: str | None = None
    events: tuple[Mapping[str, Any], ...] = ()

    def message(self, seq: int) -> dict[str, Any]:
        """The ``run`` message of this request."""
        return {"cmd": "run", "seq": seq, "language": self.language, "pattern": self.pattern,
                "policy": self.policy, "window": self.window, "time_unit": self.time_unit,
                "events": [dict(row) for row in self.events]}

    @classmethod
    def from_message(cls, message: Mapping[str, Any]) -> Request:
        """The request of a (valid) ``run`` message."""
        return cls(message["language"], message["pattern"], message["policy"],
                   message["window"], message["time_unit"], tuple(message["events"]))

    def line(self, seq: int = 1) -> str:
        """The ``run`` message as one JSON line (what to paste into a backend's stdin)."""
        return json.dumps(self.message(seq), ensure_ascii=False)


@dataclass(frozen=True)
class TableRequest:
    """One statement over named tables, for a language that answers tables
    (``match_recognize``): the ``run`` message without its ``seq``. ``sql`` reads only
    the tables of ``tables``; the answer is one table."""

    language: str
    sql: str
    tables: Mapping[str, SqlTable]

    def message(self, seq: int) -> dict[str, Any]:
        """The ``run`` message of this request."""
        return {"cmd": "run", "seq": seq, "language": self.language, "sql": self.sql,
                "tables": {name: t.to_json() for name, t in self.tables.items()}}

    @classmethod
    def from_message(cls, message: Mapping[str, Any]) -> TableRequest:
        """The request of a (valid) table ``run`` message; :class:`TableProblem` when a
        table breaks the encoding."""
        return cls(message["language"], message["sql"],
                   {name: decode(t, f"/tables/{name}") for name, t in message["tables"].items()})

    def line(self, seq: int = 1) -> str:
        """The ``run`` message as one JSON line (what to paste into a backend's stdin)."""
        return json.dumps(self.message(seq), ensure_ascii=False)


#: A request of either kind.
AnyRequest = Request | TableRequest


def kinds_of(request: AnyRequest) -> tuple[str, str]:
    """The message kinds of ``request`` and of its answer."""
    if isinstance(request, TableRequest):
        return "run-table-request", "run-table-response"
    return "run-request", "run-response"


def is_table_message(message: Mapping[str, Any]) -> bool:
    """Whether a ``run`` message is a table request (it carries ``sql``)."""
    return "sql" in message


def hello(protocol: int = PROTOCOL) -> dict[str, Any]:
    """The ``hello`` request."""
    return {"cmd": "hello", "protocol": protocol}


def hello_answer(name: str, version: str, capabilities: Sequence[str]) -> dict[str, Any]:
    """A backend's answer to ``hello``."""
    return {"protocol": PROTOCOL, "name": name, "version": version,
            "capabilities": sorted(capabilities)}


BYE: dict[str, Any] = {"cmd": "bye"}
