"""Run a sqllogictest file: every ``MATCH_RECOGNIZE`` by Kleene, everything else by DuckDB.

Each file gets a fresh in-memory DuckDB connection and runs record by record, as DuckDB's
runner does (``test/sqlite/sqllogic_test_runner.cpp`` of github:duckdb/duckdb): loops
expanded, ``skipif``/``onlyif`` against the system ``duckdb`` (Kleene answers for DuckDB
here), ``mode skip``/``unskip``, ``halt``, ``require`` as DuckDB's ``LOAD`` (a file whose
requirement is missing is skipped whole, with the reason). A ``statement`` or ``query``
whose SQL holds ``MATCH_RECOGNIZE`` (:func:`holds_recognition`) is parsed by
:func:`~kleene.reference.match_recognize.parser.parse_statement` and evaluated by
:func:`~kleene.data.sql.run_statement` (each recognition by ``recognize``: the reference by
default, under a time limit); any other SQL goes to DuckDB as written.

Each record has one :class:`Outcome`:

- ``passed``: a statement that succeeded (``ok``) or failed (``error``: any Kleene or
  DuckDB error counts but a spent budget, which is no verdict; an expected message that
  differs is kept as a ``note``, not a failure) or either (``maybe``); a query whose
  rendered result is the expected one in the record's sort mode (:mod:`.values`);
- ``failed``: anything else, with the reason, and for a query the rows got (a crash,
  an exception that is no Kleene error, too: ``crashed: …`` and where);
- ``unsupported``: Kleene raised :class:`~kleene.reference.errors.Unsupported` naming a
  construct it does not run (DuckDB-only SQL inside ``MATCH_RECOGNIZE``), with the reason:
  never counted as passed, also under ``statement error`` (Kleene did not judge the SQL);
- ``skipped``: not run (``skipif``, ``onlyif``, ``mode skip``), with the reason;
- ``explained``: failed or unsupported, and the folder's ``EXPLAINED.toml`` says why
  (:mod:`.explained`, applied after the run): never counted as passed either.
"""

from __future__ import annotations

import re
import traceback
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import duckdb

from kleene.conformance.sqllogictest.backend import BackendFailed, BackendRecognizer
from kleene.conformance.sqllogictest.reader import (
    Halt,
    Mode,
    Query,
    Record,
    Require,
    Statement,
    expand,
    read,
    read_file,
)
from kleene.conformance.sqllogictest.values import Rendered, mismatch, regex_verdict, render
from kleene.data.sql import ArrowRecognizer, Recognize, execute, run_statement
from kleene.engines.match_recognize.engine import MatchRecognizeEngine
from kleene.engines.registry import engine, engine_names_for
from kleene.reference.budget import Budget
from kleene.reference.errors import BudgetExceeded, KleeneError, Unsupported
from kleene.reference.languages import language_of
from kleene.reference.match_recognize import ast
from kleene.reference.match_recognize.parser import parse_statement
from kleene.reference.match_recognize.semantics import recognize as reference_recognize
from kleene.reference.match_recognize.table import Table

Status = Literal["passed", "failed", "explained", "unsupported", "skipped"]
STATUSES: tuple[Status, ...] = ("passed", "failed", "explained", "unsupported", "skipped")

#: The system a ``skipif``/``onlyif`` names when it means this runner.
SYSTEMS = frozenset({"duckdb", "kleene"})

#: Seconds one recognition may take by default (the reference under a deadline).
DEFAULT_TIME_LIMIT = 10.0

#: Settings of DuckDB's test harness and engine that Kleene's runner does not run: query
#: verification (DuckDB checking its own optimizer; under it, DuckDB 1.5.6's Python client
#: fails every result it hands over), its debug switches, and the statement time limit of
#: DuckDB's development line (1.5.6 has none; the recognitions have ``--time-limit``).
HARNESS = re.compile(r"\s*(PRAGMA\s+(enable|disable)_verification|(SET|RESET)\s+"
                     r"(debug_\w+|max_execution_time)\b)", re.IGNORECASE)

#: Strings, quoted identifiers and comments (skipped) or the keyword and its parenthesis.
_SCAN = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|--[^\n]*|/\*.*?\*/"
                   r"|(?P<mr>\bMATCH_RECOGNIZE\s*\()", re.IGNORECASE | re.DOTALL)


@dataclass(frozen=True)
class Outcome:
    """What became of one ``statement`` or ``query`` record (module docstring)."""

    record: Statement | Query
    status: Status
    reason: str = ""
    note: str = ""
    #: a query's rows as rendered (``None``: no result: an error, or not a query)
    got: tuple[str, ...] | None = None
    recognizes: bool = False
    features: tuple[str, ...] = ()
    #: why a failed or unsupported record is expected to be so (:mod:`.explained`)
    explanation: str = ""

    @property
    def where(self) -> str:
        return f"{self.record.file}:{self.record.line}"


@dataclass(frozen=True)
class FileReport:
    """The outcomes of one file's records, in order; ``skipped``: why the file was not run
    (or not to its end)."""

    file: str
    outcomes: tuple[Outcome, ...]
    skipped: str | None = None

    def count(self, status: Status, *, recognizing: bool | None = None) -> int:
        """How many outcomes have ``status`` (only those holding ``MATCH_RECOGNIZE`` or only
        the others, when ``recognizing`` says)."""
        return sum(1 for o in self.outcomes if o.status == status
                   and (recognizing is None or o.recognizes == recognizing))


def reference(time_limit: float | None = DEFAULT_TIME_LIMIT) -> Recognize:
    """The reference semantics as a ``recognize``, each call under its own deadline."""
    def recognize(clause: ast.MatchRecognize, table: Table) -> Table:
        return reference_recognize(clause, table, budget=Budget(seconds=time_limit))
    return recognize


def engine_recognizer(name: str, time_limit: float | None = DEFAULT_TIME_LIMIT,
                      ) -> ArrowRecognizer:
    """The engine registered as ``name`` as a ``recognize``, each recognition under its own
    deadline; :class:`Unsupported` when it is no ``MATCH_RECOGNIZE`` engine."""
    found = engine(name)
    if not isinstance(found, MatchRecognizeEngine):
        raise Unsupported(f"engine {name!r} does not run MATCH_RECOGNIZE; the engines that do: "
                          f"{', '.join(engine_names_for('match_recognize'))}")
    return found.recognizer(time_limit)


def constructs(statement: ast.Statement) -> tuple[str, ...]:
    """The constructs ``statement`` uses, as its language's registry entry names them (none
    while no registered language has such statements)."""
    try:
        language = language_of(statement)
    except Unsupported:
        return ()
    return tuple(sorted(language.constructs_of(statement)))


def holds_recognition(sql: str) -> bool:
    """Whether ``sql`` uses ``MATCH_RECOGNIZE (`` outside strings, quoted names, comments."""
    return any(m.group("mr") for m in _SCAN.finditer(sql))


def run_file(path: str | Path, recognize: Recognize | ArrowRecognizer | None = None) -> FileReport:
    """Run the sqllogictest file at ``path`` (module docstring)."""
    return run_records(read_file(path), str(path), recognize)


def run_text(text: str, file: str = "<sqllogictest>",
             recognize: Recognize | ArrowRecognizer | None = None) -> FileReport:
    """Run sqllogictest ``text`` as if it were the file ``file``."""
    return run_records(read(text, file), file, recognize)


def run_records(records: Iterable[Record], file: str,
                recognize: Recognize | ArrowRecognizer | None = None) -> FileReport:
    """Run ``records`` in a fresh DuckDB connection (module docstring)."""
    recognize = recognize or reference()
    outcomes: list[Outcome] = []
    skip_level = 0
    connection = duckdb.connect()
    try:
        for record in expand(tuple(records)):
            if isinstance(record, Mode):
                skip_level += {"skip": 1, "unskip": -1}.get(record.mode, 0)
                continue
            why = _skip(record, skip_level)
            if why is None and isinstance(record, Halt):
                return FileReport(file, tuple(outcomes), f"halt on line {record.line}")
            if why is None and isinstance(record, Require):
                missing = _missing(record, connection)
                if missing:
                    return FileReport(file, tuple(outcomes), missing)
            if isinstance(record, Statement | Query):
                outcomes.append(Outcome(record, "skipped", why) if why else
                                run_record(record, connection, recognize))
    finally:
        connection.close()
    return FileReport(file, tuple(outcomes))


def _skip(record: Record, skip_level: int) -> str | None:
    if skip_level > 0:
        return "mode skip"
    if isinstance(record, Statement) and HARNESS.match(record.sql):
        return ("a setting of DuckDB's test harness or engine (enable_verification, debug_*, "
                "max_execution_time), not run by Kleene's runner")
    for skip, system in record.conditions:
        if (system in SYSTEMS) == skip:
            return f"{'skipif' if skip else 'onlyif'} {system}"
    return None


def _missing(record: Require, connection: duckdb.DuckDBPyConnection) -> str | None:
    """Why the requirement is not met (``None``: it is): DuckDB loads the extension."""
    what = record.what[0].lower()
    if not re.fullmatch(r"[a-z0-9_]+", what):
        return f"require {what}: not an extension name"
    try:
        connection.execute(f"LOAD {what}")
    except duckdb.Error as err:
        return f"require {what}: {' '.join(str(err).split())}"
    return None


def run_record(record: Statement | Query, connection: duckdb.DuckDBPyConnection,
               recognize: Recognize | ArrowRecognizer) -> Outcome:
    """Run one record (module docstring); a crash (an exception that is no Kleene error) is
    the record's failure, with where it happened, and the file goes on."""
    try:
        return _run_record(record, connection, recognize)
    except BackendFailed as err:    # a backend's verdict (crashed, timeout, malformed, ...)
        return Outcome(record, "failed", f"backend {err}", recognizes=True)
    except Exception as err:     # a crash fails this record, not the whole run
        frame = traceback.extract_tb(err.__traceback__)[-1]
        return Outcome(record, "failed", f"crashed: {type(err).__name__}: {err} "
                       f"({Path(frame.filename).name}:{frame.lineno})",
                       recognizes=holds_recognition(record.sql))


def _run_record(record: Statement | Query, connection: duckdb.DuckDBPyConnection,
                recognize: Recognize | ArrowRecognizer) -> Outcome:
    recognizes = holds_recognition(record.sql)
    features: tuple[str, ...] = ()
    error: KleeneError | None = None
    try:
        if recognizes:
            try:
                statement = parse_statement(record.sql, source=f"{record.file}:{record.line}")
            except KleeneError as err:
                if not isinstance(recognize, BackendRecognizer):
                    raise
                result = recognize.unparsed(record.sql, connection, err)  # the backend's
            else:
                features = constructs(statement)
                result = run_statement(statement, connection, recognize)
        else:
            result = execute(connection, record.sql)
    except Unsupported as err:
        return Outcome(record, "unsupported", _line(err), recognizes=recognizes)
    except KleeneError as err:
        error = err

    def outcome(status: Status, reason: str = "", note: str = "",
                got: tuple[str, ...] | None = None) -> Outcome:
        return Outcome(record, status, reason, note, got, recognizes, features)

    if isinstance(record, Statement):
        if record.expect == "maybe":
            return outcome("passed")
        if record.expect == "ok":
            return outcome("passed") if error is None else outcome("failed", _line(error))
        if error is None:
            return outcome("failed", "succeeded where an error is expected")
        if isinstance(error, BudgetExceeded):    # Kleene gave up: no verdict on the SQL
            return outcome("failed", f"no verdict: {_line(error)}")
        said = _message_differs(record.message, error)
        return outcome("passed", note=said)
    if error is not None:
        return outcome("failed", _line(error))
    rendered: Rendered = render(result, connection)
    wrong = mismatch(record, rendered, connection)
    return outcome("passed") if wrong is None else outcome("failed", wrong, got=rendered.lines())


def _line(error: KleeneError) -> str:
    return " ".join(str(error).split())


def _message_differs(expected: str | None, error: KleeneError) -> str:
    """A note when ``error`` does not say what the file expects (DuckDB's substring or
    ``<REGEX>:`` rule); empty when it does, or nothing is expected."""
    if not expected:
        return ""
    said = _line(error)
    verdict = regex_verdict(said, expected)
    if verdict or (verdict is None and expected in said):
        return ""
    return f"the file expects the message {expected!r}; Kleene said: {said}"


def feature_table(reports: Iterable[FileReport]) -> dict[str, dict[Status, int]]:
    """Per construct, how many ``MATCH_RECOGNIZE`` records using it had each status."""
    table: dict[str, dict[Status, int]] = {}
    for report in reports:
        for o in report.outcomes:
            for feature in o.features:
                row = table.setdefault(feature, dict.fromkeys(STATUSES, 0))
                row[o.status] += 1
    return dict(sorted(table.items()))


def files_in(paths: Iterable[str | Path]) -> list[Path]:
    """The files named: a folder's ``*.test`` and ``*.test_slow`` files, sorted; a file as
    it is. A path that does not exist is a :class:`KleeneError`."""
    found: list[Path] = []
    for path in map(Path, paths):
        if path.is_dir():
            found += sorted(p for p in path.iterdir() if p.suffix in (".test", ".test_slow"))
        elif path.is_file():
            found.append(path)
        else:
            raise KleeneError(f"{path}: no such file or folder")
    return found
