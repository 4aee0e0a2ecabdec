"""``MATCH_RECOGNIZE`` on the compliance report site: Kleene's own hand-computed
sqllogictest file (``conformance/sqllogictest/kleene/``) run through each backend.

``MATCH_RECOGNIZE`` answers tables, and its tests are the records of sqllogictest files,
not JSON cases, so ``kleene conform --report-site`` runs them beside the case files: a
backend that claims ``match_recognize`` and takes table requests gets every recognition
of the file, as ``kleene conform --sqllogictest FILE --backend SPEC`` sends it
(:class:`~kleene.conformance.sqllogictest.backend.BackendRecognizer`: the tables and the
SQL around each recognition by DuckDB); a built-in ``MATCH_RECOGNIZE`` engine runs them in
process, as ``kleene conform --sqllogictest FILE --engine NAME`` does (Arrow in and out:
no protocol, whose tables carry no lists, between the engine and its ``ARRAY_AGG``); any
other backend has each record skipped, as a case whose features it does not claim.

Each record holding ``MATCH_RECOGNIZE`` becomes one
:class:`~kleene.conformance.runner.Result` (id ``sqllogictest/kleene/FILE:LINE``) needing
the language, its policy and the constructs of its statement (:func:`record_needs`), so
the site's table counts it per feature like any test; a failure carries its SQL, the
expected and the rows got, and the rerun line.
"""

from __future__ import annotations

import shlex
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from kleene.conformance.outcome import Backend, BackendError, table_backend
from kleene.conformance.runner import FAIL, PASS, SKIP, Result
from kleene.conformance.sqllogictest import KLEENE_FILES
from kleene.conformance.sqllogictest.backend import LANGUAGE, BackendRecognizer
from kleene.conformance.sqllogictest.reader import Query, Statement, expand, read_file
from kleene.conformance.sqllogictest.runner import (
    Outcome,
    constructs,
    engine_recognizer,
    files_in,
    holds_recognition,
)
from kleene.conformance.sqllogictest.runner import run_records as run_sqllogictest
from kleene.data.sql import ArrowRecognizer
from kleene.engines.protocol import Feature
from kleene.engines.registry import engine_names_for
from kleene.reference.errors import KleeneError
from kleene.reference.match_recognize.parser import parse_statement
from kleene.reference.match_recognize.registration import POLICY

#: The site's status of each runner status (an explained record is none of Kleene's files').
STATUS = {"passed": PASS, "failed": FAIL, "explained": FAIL, "unsupported": SKIP,
          "skipped": SKIP}


def record_files() -> list[Path]:
    """The sqllogictest files the site runs: Kleene's own."""
    return files_in([KLEENE_FILES])


def record_id(path: Path, line: int) -> str:
    """A record's test id on the site: its file under ``conformance/`` and its line."""
    return f"sqllogictest/{path.parent.name}/{path.name}:{line}"


def _records(path: Path) -> Iterator[Statement | Query]:
    for record in expand(read_file(path)):
        if isinstance(record, Statement | Query) and holds_recognition(record.sql):
            yield record


def record_needs(select: str | None = None) -> dict[str, frozenset[str]]:
    """Test id → the features of each ``MATCH_RECOGNIZE`` record of :func:`record_files`
    whose id holds ``select`` (all without one): the language, its policy and the
    constructs of the statement (a statement Kleene's parser rejects: the first two)."""
    out: dict[str, frozenset[str]] = {}
    for path in record_files():
        for record in _records(path):
            ident = record_id(path, record.line)
            if select and select not in ident:
                continue
            try:
                used = constructs(parse_statement(record.sql, source=ident))
            except KleeneError:
                used = ()
            out[ident] = frozenset(map(str, Feature.of(LANGUAGE, POLICY, *used)))
    return out


def rerun_line(spec: str, path: Path, line: int) -> str:
    """The command that reruns one record through the backend ``spec`` (``--engine`` for a
    built-in ``MATCH_RECOGNIZE`` engine)."""
    who = "--engine" if spec in engine_names_for(LANGUAGE) else "--backend"
    return (f"kleene conform {who} {shlex.quote(spec)} --sqllogictest "
            f"{shlex.quote(str(path))} --case {shlex.quote(f'{path.name}:{line}')}")


def _recognizer(backend: Backend, spec: str, timeout: float | None,
                ) -> tuple[BackendRecognizer | ArrowRecognizer | None, str]:
    """Who recognizes for ``backend`` (module docstring), or why no one does."""
    if spec in engine_names_for(LANGUAGE):
        return engine_recognizer(spec, timeout), ""
    try:
        return BackendRecognizer(table_backend(backend), timeout), ""
    except BackendError as err:
        return None, str(err)


def run_records(backend: Backend, spec: str, needs: dict[str, frozenset[str]], *,
                timeout: float | None) -> tuple[list[Result], float]:
    """Each record of ``needs`` through ``backend`` (named ``spec``), as results, and the
    seconds it took; every record skipped when the backend takes no table requests."""
    start = time.perf_counter()
    recognizer, why = _recognizer(backend, spec, timeout)
    results = []
    for path in record_files():
        wanted = {record_id(path, r.line) for r in _records(path)} & set(needs)
        if not wanted:
            continue
        if recognizer is None:
            results += [Result(i, path.name, LANGUAGE, SKIP, why, features=tuple(needs[i]))
                        for i in sorted(wanted, key=_line)]
            continue
        kept = [r for r in read_file(path) if not isinstance(r, Statement | Query)
                or not holds_recognition(r.sql) or record_id(path, r.line) in wanted]
        for o in run_sqllogictest(kept, str(path), recognizer).outcomes:
            ident = record_id(path, o.record.line)
            if ident in wanted:
                results.append(_result(o, ident, path, spec, needs[ident]))
    return results, time.perf_counter() - start


def _line(ident: str) -> int:
    return int(ident.rsplit(":", 1)[1])


def _result(o: Outcome, ident: str, path: Path, spec: str, needs: frozenset[str]) -> Result:
    status = STATUS[o.status]
    rerun = rerun_line(spec, path, o.record.line)
    reproduction = "" if status != FAIL else "\n".join(
        [f"FAIL {ident}", f"  {o.reason}", "  sql:", *_indent(o.record.sql.splitlines()),
         *(_rows(o) if isinstance(o.record, Query) else []), f"  rerun: {rerun}"])
    return Result(ident, path.name, LANGUAGE, status, o.reason or o.explanation,
                  reproduction, features=tuple(sorted(needs)), rerun=rerun)


def _rows(o: Outcome) -> list[str]:
    assert isinstance(o.record, Query)
    got = ["  got:", *(_indent(o.got) or ["    (no rows)"])] if o.got is not None else []
    return ["  expected:", *(_indent(o.record.expected) or ["    (no rows)"]), *got]


def _indent(lines: Sequence[str]) -> list[str]:
    return ["    " + line for line in lines]
