"""A trace of row pattern recognition: every search, in preferment order, and why it ended.

``kleene trace q.sql --events t.csv`` (issue 26, item 3) shows, for each partition and each
row a search starts at, the ways the row pattern was tried, most preferred first (ISO/IEC
TR 19075-5:2016 §4.7): each row tried for a variable and whether its ``DEFINE`` held, with
the values it read (running semantics, TR §4.13); each choice (a quantifier's iterate or
leave, an alternation's parts, ``PERMUTE``'s orders) and the ways it left for later; each
step back to the most recent choice left, with the rows given back; the match, the first
matching in that order whose every row satisfied its condition; and where ``AFTER MATCH
SKIP`` starts the next search (TR §4.5).

**Recorded from the reference's own search.** The trace observes
:func:`~kleene.reference.match_recognize.matchings.matchings` through its
:class:`~kleene.reference.match_recognize.matchings.Observer` hook, and the recognition
through :class:`~kleene.reference.match_recognize.semantics.Recognizer` (a subclass that
notes each search, its match and the skip, and calls the reference's own methods for
each). The reference and not the engine's VM (:mod:`.vm`), because the trace explains the
definition: the reference's search is the definition's depth-first order with nothing cut
(the VM remembers failed states and reads precomputed columns of booleans, so a row it
skips as known to fail would be missing from the trace, and it would show no values), it
evaluates each ``DEFINE`` at the moment it decides a row (so the values shown are the ones
used), and it answers every statement, the ones no engine claims too. The engine's
matching loop (and its compiled kernel) stay untouched: the hook costs the engine nothing,
the reference one test per step. An observer only listens: a traced recognition answers
the table the untraced one answers (tests/test_match_recognize_trace.py, on drawn clauses
and tables).

Rows are numbered from 1 within their partition, in its order (``ORDER BY``), as the
tutorial numbers them (docs/tutorial-match-recognize.md).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import pyarrow as pa

from kleene.data.sql import run_over
from kleene.reference.budget import Budget
from kleene.reference.errors import KleeneError
from kleene.reference.match_recognize.ast import (
    Aggregate,
    Alt,
    Anchor,
    Classifier,
    Column,
    Expr,
    MatchNumber,
    MatchRecognize,
    Navigation,
    Permute,
    Quantified,
    RowPattern,
    Statement,
)
from kleene.reference.match_recognize.evaluation import Scope, children, evaluate
from kleene.reference.match_recognize.matchings import Matching
from kleene.reference.match_recognize.printer import format_expr, format_pattern
from kleene.reference.match_recognize.scalars import truth
from kleene.reference.match_recognize.semantics import Recognizer, Row, partitions
from kleene.reference.match_recognize.table import Table


@dataclass(frozen=True)
class Step:
    """One step of a search. ``kind``: ``test`` (row ``row`` tried for ``var``; ``ok``
    whether it was mapped), ``choose`` (a choice at ``row``: the most preferred way
    followed, the others left), ``back`` (back to the most recent choice left, at
    ``row``; ``given`` the variables of the rows given back, from ``row`` on), ``end``
    (``var`` needs a row past the partition's last) or ``dead`` (no way on at ``row``: an
    anchor). ``text`` says it in words (rows from 1)."""

    kind: str
    row: int
    text: str
    var: str | None = None
    ok: bool | None = None
    given: tuple[str, ...] = ()


@dataclass
class Search:
    """The search for a match from row ``start`` of partition ``partition`` (both from 0),
    the match number it would give, its ``steps``, the ``match`` it found (``None``:
    none) and the row the next search starts at (``next_start``; the partition's length
    when none is left; -1 when the skip failed)."""

    partition: int
    start: int
    number: int
    steps: list[Step] = field(default_factory=list)
    match: Matching | None = None
    next_start: int = -1


@dataclass
class RecognitionTrace:
    """One recognition traced: its clause, its partitions (each a label and its ordered
    rows), every search in order, and the output table (the reference's)."""

    clause: MatchRecognize
    columns: tuple[str, ...]
    partitions: list[tuple[str, Sequence[Row]]] = field(default_factory=list)
    searches: list[Search] = field(default_factory=list)
    output: Table | None = None


def value_text(value: object) -> str:
    """A value as SQL writes it (``NULL``, ``'text'``, ``TRUE``), a number as it is."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    if isinstance(value, Decimal):
        return format(value, "f")
    return str(value)


def reads(e: Expr) -> list[Expr]:
    """The values condition ``e`` reads, outermost first, each once: its column
    references, navigations, aggregates, ``CLASSIFIER`` and ``MATCH_NUMBER``."""
    if isinstance(e, Column | Navigation | Aggregate | Classifier | MatchNumber):
        return [e]
    found: list[Expr] = []
    for child in children(e):
        found += [x for x in reads(child) if x not in found]
    return found


def _alternatives(node: RowPattern, done: int | None, count: int) -> list[str]:
    """The ways a choice of ``count`` leaves, most preferred first, in words."""
    if isinstance(node, Quantified) and done is not None and count == 2:
        text = format_pattern(node)
        iterate = f"{text} takes iteration {done + 1}"
        leave = f"{text} stops after {_times(done)}"
        return [leave, iterate] if node.reluctant else [iterate, leave]
    if isinstance(node, Alt):
        return [f"alternative {format_pattern(item)}" for item in node.items]
    if isinstance(node, Permute):
        return ["order " + " ".join(format_pattern(node.items[i]) for i in order)
                for order in itertools.permutations(range(len(node.items)))]
    return [f"way {i + 1} of {format_pattern(node)}" for i in range(count)]


def _times(n: int) -> str:
    return f"{n} iteration" + ("" if n == 1 else "s")


def _why(node: RowPattern, done: int | None) -> str:
    if isinstance(node, Quantified) and done is not None:
        return ("reluctant: fewer iterations first" if node.reluctant
                else "greedy: more iterations first")
    if isinstance(node, Alt):
        return "the left alternative first"
    if isinstance(node, Permute):
        return "the orders of the items' positions, lexicographically"
    return "in order"


class TracingRecognizer(Recognizer):
    """The reference's :class:`Recognizer`, observed (module docstring): each method
    notes what it does and then does what the reference's does."""

    def __init__(self, clause: MatchRecognize, table: Table, budget: Budget) -> None:
        super().__init__(clause, table, budget)
        self.trace = RecognitionTrace(clause, table.names)
        self.observe = self
        self.keys = [k.expr for k in clause.order_by]
        self._rows: Sequence[Row] = ()
        self._search: Search | None = None
        self._path: list[str] = []
        # the ways the search's stack holds, as it holds them: each with whether it is
        # followed at once when taken (the most preferred of a choice) or backtracked to
        self._left: list[tuple[str, bool]] = []

    # --- the recognition ---------------------------------------------------------------

    def partition(self, rows: Sequence[Row]) -> list[Row]:
        key = ", ".join(f"{format_expr(e)} = {value_text(evaluate(e, self._scope(rows, 0)))}"
                        for e in self.clause.partition_by)
        self.trace.partitions.append((key, rows))
        return super().partition(rows)

    def first_match(self, rows: Sequence[Row], start: int, number: int) -> Matching | None:
        self._rows = rows
        search = Search(len(self.trace.partitions) - 1, start, number)
        self.trace.searches.append(search)
        self._search, self._path, self._left = search, [], [("the start row", True)]
        m = super().first_match(rows, start, number)
        search.match = m
        if m is None or not m.variables:   # else the skip decides (resume)
            search.next_start = start + 1
        return m

    def resume(self, m: Matching, scope: Scope) -> int:
        target = super().resume(m, scope)
        assert self._search is not None
        self._search.next_start = target
        return target

    # --- the search (matchings' Observer) ----------------------------------------------

    def _step(self, step: Step) -> None:
        assert self._search is not None
        self._search.steps.append(step)

    def row_name(self, row: int) -> str:
        """``row 2 (ts 2)``: the row from 1, with its ``ORDER BY`` values."""
        if not 0 <= row < len(self._rows):
            return f"row {row + 1}"
        scope = self._scope(self._rows, row)
        keys = ", ".join(f"{format_expr(e)} {value_text(evaluate(e, scope))}"
                         for e in self.keys)
        return f"row {row + 1}" + (f" ({keys})" if keys else "")

    def _scope(self, rows: Sequence[Row], row: int) -> Scope:
        return Scope(rows, self.columns, row, (), 0, 0, {}, pinned=row)

    def take(self, pos: int) -> None:
        label, followed = self._left.pop()
        if followed:  # the start row's way, or the most preferred way of a choice just told
            return
        assert self._search is not None
        given = tuple(self._path[pos - self._search.start:])
        del self._path[pos - self._search.start:]
        back = (f"give back {self._rows_text(pos, given)}; " if given else "")
        self._step(Step("back", pos, f"back to the choice at row {pos + 1}: {back}try {label}",
                        given=given))

    def _rows_text(self, pos: int, given: Sequence[str]) -> str:
        rows = f"row {pos + 1}" if len(given) == 1 else f"rows {pos + 1}–{pos + len(given)}"
        return f"{rows} ({' '.join(given)})"

    def choose(self, pos: int, node: RowPattern, done: int | None, count: int) -> None:
        if count == 0:
            what = ("^ holds only at the partition's first row" if isinstance(node, Anchor)
                    and node.kind == "^" else "$ holds only after the partition's last row"
                    if isinstance(node, Anchor) else f"{format_pattern(node)} has no way on")
            self._step(Step("dead", pos, f"at row {pos + 1}: {what}: this way fails"))
            return
        ways = _alternatives(node, done, count)
        self._left += reversed([(way, i == 0) for i, way in enumerate(ways)])
        later = "; ".join(ways[1:])
        self._step(Step("choose", pos, f"choice at row {pos + 1} ({_why(node, done)}): "
                                       f"{ways[0]}; left for later: {later}"))

    def test(self, start: int, variables: Sequence[str], ok: bool) -> None:
        row = start + len(variables) - 1
        var = variables[-1]
        self._path = list(variables) if ok else list(variables[:-1])
        condition = self.defines.get(var.upper())
        head = f"{self.row_name(row)} as {var}: "
        if condition is None:
            text = head + "no DEFINE, true"
        else:
            assert self._search is not None
            scope = Scope(self._rows, self.columns, start, variables, len(variables),
                          self._search.number, self.subsets)
            values = ", ".join(f"{format_expr(x)} is {value_text(evaluate(x, scope))}"
                               for x in reads(condition))
            verdict = {True: "true", False: "false", None: "unknown (NULL), not true"}[
                truth(evaluate(condition, scope))]
            text = head + format_expr(condition) + (f" ({values})" if values else "") + \
                f": {verdict}"
            if not ok and verdict == "true":
                text += f", but the row is not within {self._within_text()} of the first"
        self._step(Step("test", row, text + (" ✓" if ok else " ✗"), var, ok))

    def _within_text(self) -> str:
        w = self.clause.within
        return "" if w is None else f"INTERVAL '{value_text(w.amount)}' {w.unit}"

    def no_row(self, pos: int, var: str) -> None:
        self._step(Step("end", pos, f"{var} needs row {pos + 1}, past the partition's "
                                    "last: this way fails", var, False))


def traced_recognize(clause: MatchRecognize, table: Table, *,
                     budget: Budget | None = None) -> RecognitionTrace:
    """The recognition of ``clause`` over ``table`` by the reference, traced; its output
    is the trace's ``output`` (the table
    :func:`~kleene.reference.match_recognize.semantics.recognize` answers)."""
    r = TracingRecognizer(clause, table, budget or Budget(what="recognizing a row pattern"))
    _run(r, table)
    return r.trace


def _run(r: TracingRecognizer, table: Table) -> Table:
    """The output of ``r``'s recognition, as :func:`~kleene.reference.match_recognize.
    semantics.recognize` makes it, kept in its trace."""
    out = [row for rows in partitions(r.clause, table) for row in r.partition(rows)]
    r.trace.output = Table(r.names(), tuple(out))
    return r.trace.output


@dataclass
class StatementTrace:
    """A statement traced: each recognition's trace, in the order run, and the
    statement's answer (the SQL around the recognitions by DuckDB)."""

    recognitions: list[RecognitionTrace]
    answer: pa.Table | None = None
    error: KleeneError | None = None


def trace_statement(statement: Statement, data: Any, *, name: str | None = None,
                    budget: Budget | None = None) -> StatementTrace:
    """Run ``statement`` over ``data`` (as :func:`kleene.data.sql.run_over` reads it) with
    every recognition traced (:func:`traced_recognize`). A recognition that fails (a data
    exception, the budget spent) leaves its trace up to the failure and the ``error``."""
    done = StatementTrace([])
    spend = budget or Budget(what="recognizing a row pattern")

    def recognize(clause: MatchRecognize, table: Table) -> Table:
        r = TracingRecognizer(clause, table, spend)
        done.recognitions.append(r.trace)
        return _run(r, table)

    try:
        done.answer = run_over(data, statement, name=name, recognize=recognize)
    except KleeneError as err:
        done.error = err
    return done


# ---------------------------------------------------------------- text


def search_text(t: RecognitionTrace, s: Search) -> list[str]:
    """One search: its start, its steps (indented), its outcome and the skip."""
    rows = t.partitions[s.partition][1]
    lines = [f"search from row {s.start + 1}, for match {s.number}"]
    lines += [f"  {step.text}" for step in s.steps]
    given_up = sum(step.kind == "back" for step in s.steps)
    tried = f"{given_up + 1} way{'s' if given_up else ''} tried"
    m = s.match
    if m is None:
        lines.append(f"  no match from row {s.start + 1}: every way failed ({tried})")
        lines.append(f"  the next search starts at {_next(s.next_start, rows)}")
    elif not m.variables:
        lines.append(f"  empty match {s.number} at row {s.start + 1}: the first way in "
                     f"preferment order maps no row ({tried})")
        lines.append(f"  after an empty match the next search starts at the next row, "
                     f"{_next(s.next_start, rows)}")
    else:
        mapped = " ".join(f"{{- {v} -}}" if i in m.excluded else v
                          for i, v in enumerate(m.variables))
        span = (f"row {m.start + 1}" if m.end - m.start == 1
                else f"rows {m.start + 1}–{m.end}")
        lines.append(f"  match {s.number}: {span} as {mapped}, the first way in preferment "
                     f"order whose every row satisfies its DEFINE ({tried})")
        skip = t.clause.after_match
        said = f"AFTER MATCH SKIP {skip.kind}" + (f" {skip.var}" if skip.var else "")
        if s.next_start < 0:
            lines.append(f"  {said}: no row to start the next search at (the error below)")
        else:
            lines.append(f"  {said}: the next search starts at {_next(s.next_start, rows)}")
    return lines


def _next(row: int, rows: Sequence[Row]) -> str:
    return f"row {row + 1}" if row < len(rows) else \
        f"row {row + 1}, past the partition's last: the partition is done"


def clause_text(clause: MatchRecognize) -> str:
    """``PATTERN (…), AFTER MATCH SKIP …``: what decides the searches of ``clause``."""
    skip = clause.after_match
    return (f"PATTERN ({format_pattern(clause.pattern)}), AFTER MATCH SKIP {skip.kind}"
            + (f" {skip.var}" if skip.var else ""))


def recognition_text(t: RecognitionTrace, first: int | None = None) -> list[str]:
    """The trace of one recognition: the clause's pattern and skip, then each partition
    and its searches (only the one from row ``first``, from 0, with ``first``)."""
    lines = [clause_text(t.clause)]
    for k, (key, rows) in enumerate(t.partitions):
        count = f"{len(rows)} row{'s' if len(rows) != 1 else ''}"
        lines.append(f"partition {k + 1} of {len(t.partitions)}"
                     + (f" ({key})" if key else "") + f": {count}")
        lines += [line for s in t.searches if s.partition == k
                  and (first is None or s.start == first) for line in search_text(t, s)]
    return lines
