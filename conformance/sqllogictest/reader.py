"""A reader of sqllogictest files as DuckDB's runner reads them.

The format is SQLite's sqllogictest (https://www.sqlite.org/sqllogictest/doc/trunk/about.wiki)
with DuckDB's additions; the rules below are those of DuckDB's reader
(``test/sqlite/sqllogic_parser.cpp`` and ``ExecuteFile`` in ``sqllogic_test_runner.cpp`` of
github:duckdb/duckdb):

- a line that is empty or starts with ``#`` separates records; records start at their
  command line, whose words are split on white space;
- ``statement ok|error|maybe [connection]``: the SQL is the following lines up to an empty
  line, a comment line or ``----``; a ``statement error`` may follow its SQL with ``----``
  and the expected message (lines up to an empty line: a substring of the error, or
  ``<REGEX>:re`` / ``<!REGEX>:re``); extra words (``statement error # why``) are kept but
  mean nothing here;
- ``query <types> [nosort|rowsort|sort|valuesort] [label]``: ``types`` has one letter per
  column (``T`` text, ``I`` integer, ``R`` real), the SQL as above, then ``----`` and the
  expected result up to an empty line: a row a line, values tab-separated (``NULL``;
  ``(empty)`` for the empty string), or a value a line; a sort word that is none of the
  four names a connection in DuckDB and is kept as ``connection``;
- ``skipif <system>`` / ``onlyif <system>`` lines prefix a record;
- ``require <what>``, ``mode <name>``, ``halt``, ``loop <name> <start> <end>`` (``start``
  to ``end - 1``), ``foreach <name> <value>...`` and ``endloop``: one line each, followed
  by an empty or comment line; inside a loop ``${name}`` is replaced by each value in turn
  (:func:`expand`).

``PRAGMA`` is SQL (``statement ok`` / ``pragma threads=1``), not a command of the format.
DuckDB's commands for its own runner (``load``, ``restart``, ``reconnect``, ``set``,
``sleep``, ``hash-threshold``, ``require-env``, the concurrent loops) are refused, naming
the line, and so is a result given as ``N values hashing to H``: no shipped file uses them.
Every malformed line is one :class:`SqlLogicError` naming ``file:line``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, NamedTuple

from kleene.reference.errors import KleeneError

SortMode = Literal["nosort", "rowsort", "valuesort"]
Expect = Literal["ok", "error", "maybe"]

#: DuckDB's commands that Kleene's runner does not run (a file using one is refused).
NOT_RUN = frozenset({"hash-threshold", "set", "require-env", "load", "restart", "reconnect",
                     "sleep", "concurrentloop", "concurrentforeach"})
#: The commands that stand on one line, followed by an empty or comment line.
ONE_LINE = frozenset({"halt", "mode", "loop", "foreach", "endloop", "require"})
EXPECTS: dict[str, Expect] = {"ok": "ok", "error": "error", "maybe": "maybe"}
SORTS: dict[str, SortMode] = {"nosort": "nosort", "rowsort": "rowsort", "sort": "rowsort",
                              "valuesort": "valuesort"}


class SqlLogicError(KleeneError):
    """A malformed sqllogictest file: the file, the line (1-based) and what is wrong."""

    code = "sqllogictest"

    def __init__(self, message: str, *, file: str, line: int) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.message}"


@dataclass(frozen=True, kw_only=True)
class Record:
    """A record of a file: where its command line is, and the ``skipif``/``onlyif``
    conditions before it (``(True, system)``: skip on ``system``; ``(False, system)``:
    only on ``system``)."""

    file: str
    line: int
    conditions: tuple[tuple[bool, str], ...] = ()


@dataclass(frozen=True, kw_only=True)
class Statement(Record):
    """``statement ok|error|maybe``: SQL that must succeed, fail (with ``message`` in the
    error, if given) or may do either."""

    sql: str
    expect: Expect
    message: str | None = None
    connection: str | None = None


@dataclass(frozen=True, kw_only=True)
class Query(Record):
    """``query <types>``: SQL whose result must be ``expected`` (the lines after ``----``)."""

    sql: str
    types: str
    expected: tuple[str, ...]
    sort: SortMode = "nosort"
    label: str | None = None
    connection: str | None = None


@dataclass(frozen=True, kw_only=True)
class Require(Record):
    """``require <what> [argument]``: an extension or a property the file needs."""

    what: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class Mode(Record):
    """``mode <name>`` (``skip``/``unskip`` bracket records not to run)."""

    mode: str


@dataclass(frozen=True, kw_only=True)
class Halt(Record):
    """``halt``: the records after it are not run."""


@dataclass(frozen=True, kw_only=True)
class Loop(Record):
    """``loop`` or ``foreach`` up to its ``endloop``: ``body`` once per value of ``name``
    (``a,b``: several names, each value split on commas alike)."""

    name: str
    values: tuple[str, ...]
    body: tuple[Record, ...]


def read_file(path: str | Path) -> tuple[Record, ...]:
    """The records of the sqllogictest file at ``path`` (named by ``path`` as given)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise SqlLogicError(f"cannot read it: {err}", file=str(path), line=0) from None
    return read(text, str(path))


def read(text: str, file: str = "<sqllogictest>") -> tuple[Record, ...]:
    """The records of sqllogictest ``text``, each with ``file`` and its line."""
    return _Reader(text, file).records()


def expand(records: tuple[Record, ...]) -> Iterator[Record]:
    """The records in the order they run: each :class:`Loop`'s body once per value, its
    ``${name}`` replaced in the SQL, expected values and messages (DuckDB's
    ``LoopReplacement``); :class:`Halt` and the records after it are kept."""
    for record in records:
        if isinstance(record, Loop):
            for value in record.values:
                yield from expand(tuple(substitute(r, record, value) for r in record.body))
        else:
            yield record


def substitute(record: Record, loop: Loop, value: str) -> Record:
    """``record`` with ``${name}`` of ``loop`` replaced by ``value`` (nested loops too)."""
    names, values = loop.name.split(","), value.split(",")
    if len(names) == 1:
        values = [value]        # one name takes the whole value, commas and all
    if len(names) != len(values):
        raise SqlLogicError(f"foreach {loop.name}: the value {value!r} has {len(values)} "
                            f"parts, the names {len(names)}", file=loop.file, line=loop.line)

    def text(s: str) -> str:
        for name, part in zip(names, values, strict=True):
            s = s.replace("${" + name + "}", part)
        return s

    if isinstance(record, Statement):
        message = None if record.message is None else text(record.message)
        return dataclasses.replace(record, sql=text(record.sql), message=message)
    if isinstance(record, Query):
        return dataclasses.replace(record, sql=text(record.sql),
                                   expected=tuple(text(v) for v in record.expected))
    if isinstance(record, Loop):
        return dataclasses.replace(record, body=tuple(substitute(r, loop, value)
                                                      for r in record.body))
    return record


class _Where(NamedTuple):
    file: str
    line: int
    conditions: tuple[tuple[bool, str], ...]

    def fields(self) -> dict[str, Any]:
        return self._asdict()


class _LoopHead(NamedTuple):
    """A ``loop``/``foreach`` line waiting for its ``endloop``."""

    line: int
    conditions: tuple[tuple[bool, str], ...]
    name: str
    values: tuple[str, ...]


def _separator(line: str) -> bool:
    return not line or line.startswith("#")


class _Reader:
    """One pass over the lines; ``at`` is the 0-based index of the current line."""

    def __init__(self, text: str, file: str) -> None:
        self.lines = [line.replace("\r", "") for line in text.split("\n")]
        if self.lines and self.lines[-1] == "":
            self.lines.pop()
        self.file = file
        self.at = 0

    def fail(self, message: str, at: int | None = None) -> SqlLogicError:
        return SqlLogicError(message, file=self.file, line=(self.at if at is None else at) + 1)

    def records(self) -> tuple[Record, ...]:
        stack: list[tuple[_LoopHead, list[Record]]] = []
        out: list[Record] = []
        while self._next_command():
            record = self._record()
            if isinstance(record, int):        # endloop, on this line (0-based)
                if not stack:
                    raise self.fail("endloop without a loop", record)
                head, outer = stack.pop()
                outer.append(Loop(file=self.file, line=head.line, conditions=head.conditions,
                                  name=head.name, values=head.values, body=tuple(out)))
                out = outer
            elif isinstance(record, _LoopHead):
                stack.append((record, out))
                out = []
            else:
                out.append(record)
        if stack:
            raise SqlLogicError(f"the loop on line {stack[-1][0].line} has no endloop",
                                file=self.file, line=len(self.lines))
        return tuple(out)

    def _next_command(self) -> bool:
        while self.at < len(self.lines) and _separator(self.lines[self.at]):
            self.at += 1
        return self.at < len(self.lines)

    def _record(self) -> Record | _LoopHead | int:
        """The record at the current line; a loop's head; an ``endloop``'s line."""
        conditions: list[tuple[bool, str]] = []
        words = self.lines[self.at].split()
        while words[0] in ("skipif", "onlyif"):
            if len(words) < 2:
                raise self.fail(f"{words[0]} names a system (e.g. {words[0]} duckdb)")
            conditions.append((words[0] == "skipif", words[1].lower()))
            self.at += 1
            if self.at >= len(self.lines) or _separator(self.lines[self.at]):
                raise self.fail(f"{words[0]} is followed by no record")
            words = self.lines[self.at].split()
        command, args, line = words[0], words[1:], self.at
        where = _Where(self.file, line + 1, tuple(conditions))
        if command in NOT_RUN:
            raise self.fail(f"{command!r} is a command of DuckDB's own runner that Kleene's "
                            "does not run")
        if command in ONE_LINE:
            self.at += 1
            if self.at < len(self.lines) and not _separator(self.lines[self.at]):
                raise self.fail(f"{command} stands alone: an empty or comment line must "
                                "follow it")
        if command == "statement":
            return self._statement(args, where)
        if command == "query":
            return self._query(args, where)
        if command == "require":
            if not args:
                raise self.fail("require names what the file needs", line)
            return Require(what=tuple(args), **where.fields())
        if command == "mode":
            if len(args) != 1:
                raise self.fail("mode takes one word", line)
            return Mode(mode=args[0], **where.fields())
        if command == "halt":
            return Halt(**where.fields())
        if command == "endloop":
            return line
        if command in ("loop", "foreach"):
            return _LoopHead(line + 1, where.conditions, args[0] if args else "",
                             self._values(command, args, line))
        raise self.fail(f"unknown command {command!r} (statement, query, require, mode, halt, "
                        "loop, foreach, endloop, skipif, onlyif)")

    def _values(self, command: str, args: list[str], line: int) -> tuple[str, ...]:
        if command == "foreach":
            if len(args) < 2:
                raise self.fail("foreach takes a name and its values", line)
            return tuple(args[1:])
        try:
            start, end = int(args[1]), int(args[2])
        except (IndexError, ValueError):
            raise self.fail("loop takes a name and two integers (loop i 0 10)", line) from None
        if len(args) != 3:
            raise self.fail("loop takes a name and two integers (loop i 0 10)", line)
        return tuple(str(i) for i in range(start, end))

    def _sql(self, line: int) -> str:
        """The SQL lines after the command line, up to a separator or ``----``."""
        self.at = line + 1
        lines = []
        while (self.at < len(self.lines) and not _separator(self.lines[self.at])
               and self.lines[self.at] != "----"):
            lines.append(self.lines[self.at])
            self.at += 1
        if not lines:
            raise self.fail("the record has no SQL", line)
        return "\n".join(lines)

    def _block(self) -> tuple[str, ...] | None:
        """The lines after ``----`` up to an empty line; ``None`` when there is no ``----``."""
        if self.at >= len(self.lines) or self.lines[self.at] != "----":
            return None
        self.at += 1
        lines = []
        while self.at < len(self.lines) and self.lines[self.at]:
            lines.append(self.lines[self.at])
            self.at += 1
        return tuple(lines)

    def _statement(self, args: list[str], where: _Where) -> Statement:
        line = self.at
        if not args or args[0] not in EXPECTS:
            raise self.fail("statement takes ok, error or maybe")
        expect = EXPECTS[args[0]]
        sql = self._sql(line)
        block = self._block()
        if block is not None and expect == "ok":
            raise self.fail("only statement error has an expected message after ----", line)
        connection = args[1] if len(args) > 1 and not args[1].startswith("#") else None
        return Statement(sql=sql, expect=expect, connection=connection,
                         message=None if block is None else "\n".join(block),
                         **where.fields())

    def _query(self, args: list[str], where: _Where) -> Query:
        line = self.at
        if not args or not args[0] or set(args[0]) - set("TIR"):
            raise self.fail("query takes its column types, one of T, I, R per column "
                            "(query III)")
        sql = self._sql(line)
        expected = self._block() or ()
        if len(expected) == 1 and " values hashing to " in expected[0]:
            raise self.fail("results given as a hash are not compared by Kleene's runner", line)
        sort: SortMode = "nosort"
        connection = None
        if len(args) > 1:
            if args[1] in SORTS:
                sort = SORTS[args[1]]
            else:
                connection = args[1]
        return Query(sql=sql, types=args[0], expected=expected, sort=sort,
                     label=args[2] if len(args) > 2 else None, connection=connection,
                     **where.fields())
