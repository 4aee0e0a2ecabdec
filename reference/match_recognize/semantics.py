"""Row pattern recognition: the output table of one ``MATCH_RECOGNIZE`` over its input.

ISO/IEC 9075-2:2016 §7.6 and ISO/IEC TR 19075-5:2016 §4–5, as Oracle's "SQL for
Pattern Matching" and Trino's ``MATCH_RECOGNIZE`` page restate them:

1. **Partitions** (``PARTITION BY``): the rows with equal keys (NULLs equal, as
   in ``GROUP BY``), each recognized on its own; partitions in the order of their
   first row in the input.
2. **Order** (``ORDER BY``) within a partition. Where ``NULLS FIRST/LAST`` is not
   written the standard leaves it to the implementation (§10.10); Kleene takes
   Oracle's: NULL sorts above every value, so last ascending, first descending
   (DuckDB and Trino put NULLs last either way: a vendor difference). Rows equal
   on every key keep their input order (the standard leaves their order
   implementation-dependent: Kleene's is stable, and says so).
3. **Matches**, from the partition's first row: the match at a row is the most
   preferred matching (:mod:`.matchings`) whose every row satisfies its
   variable's ``DEFINE`` condition, running (:mod:`.evaluation`). No match:
   try the next row. After a match of at least one row, ``AFTER MATCH SKIP``
   (TR §4.5) resumes at the row after its last (``PAST LAST ROW``, the default),
   after its first (``TO NEXT ROW``), or at the first / last row mapped to a
   variable (``TO FIRST v``, ``TO LAST v``; ``TO v`` is ``TO LAST v``); a skip to
   the match's own first row would loop, and a skip to a variable that maps no
   row has nowhere to go: both are data exceptions (Trino: "it is forbidden to
   skip to the first row of the current match ... skipping to a pattern variable
   which is not present in the match causes failure"; Oracle: ORA-62514), codes
   ``skip-to-first-row`` and ``skip-to-unmapped-variable``. After an empty match
   (no row), matching resumes at the next row whatever the skip (Trino: "skipping
   to the next row is the default behavior after detecting an empty match").
   ``MATCH_NUMBER`` counts a partition's matches from 1, empty ones included
   (Trino: "empty matches are assigned sequential numbers as well").
4. **Output** (TR §4.4). ``ONE ROW PER MATCH``: the ``PARTITION BY`` columns, then
   the measures evaluated at the match's last row (final). ``ALL ROWS PER MATCH``:
   the ``PARTITION BY`` columns, the ``ORDER BY`` columns, the measures (running
   at each row, ``FINAL`` for the whole match), then the input's other columns,
   one row per row of the match not inside ``{- … -}``. An empty match outputs one
   row built on its starting row, its measures over no row, under ``ONE ROW PER
   MATCH`` and ``ALL ROWS PER MATCH [SHOW EMPTY MATCHES]``, none under ``OMIT
   EMPTY MATCHES``; ``WITH UNMATCHED ROWS`` adds, for each row that is neither
   in a match nor the starting row of an empty match, that row with every
   measure NULL (Trino, "Rows per match", "Evaluating expressions in empty
   matches and unmatched rows").

**WITHIN** (Flink's extension, not the standard's; Flink's "Pattern Recognition",
"Time constraint"): ``WITHIN INTERVAL 'n' unit`` keeps a matching only if each of
its rows lies within ``n unit`` of its first row on the first ``ORDER BY`` key
(in a sorted partition the last row is the farthest). The key is read as time:
a ``datetime``/``date`` key by the interval itself, a number as seconds
(``INTERVAL '2' MINUTE`` is 120); a NULL key is never within.
"""

from __future__ import annotations

import datetime
import functools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import NamedTuple

from kleene.reference.budget import Budget
from kleene.reference.errors import Unsupported
from kleene.reference.match_recognize.ast import (
    AfterMatchSkip,
    Column,
    Expr,
    MatchRecognize,
    SortKey,
    Within,
)
from kleene.reference.match_recognize.evaluation import Scope, evaluate, holds, row_local
from kleene.reference.match_recognize.matchings import Matching, Observer, matchings
from kleene.reference.match_recognize.scalars import DataError, arithmetic, cast_number, compare
from kleene.reference.match_recognize.table import Table

Row = tuple[object, ...]

#: Seconds per ``WITHIN`` unit.
UNITS = {"MILLISECOND": Decimal("0.001"), "SECOND": Decimal(1), "MINUTE": Decimal(60),
         "HOUR": Decimal(3600), "DAY": Decimal(86400)}


def _column_index(e: Expr, table: Table, clause: str) -> int:
    """The input column a ``PARTITION BY`` or ``ORDER BY`` item names."""
    if not isinstance(e, Column) or e.var is not None:
        raise Unsupported(f"{clause} of an expression that is not a column")
    return table.index(e.name)


def _row_value(e: Expr, row: Row, columns: dict[str, int]) -> object:
    """``e`` over one input row (``PARTITION BY`` and ``ORDER BY`` keys)."""
    return evaluate(e, Scope((row,), columns, 0, (), 0, 0, {}, pinned=0))


def _sort_compare(keys: Sequence[SortKey], a: Sequence[object], b: Sequence[object]) -> int:
    """-1, 0 or 1: ``a`` before, tied with or after ``b`` (module docstring, 2)."""
    for key, x, y in zip(keys, a, b, strict=True):
        if x is None or y is None:
            if x is None and y is None:
                continue
            nulls_first = key.descending if key.nulls_first is None else key.nulls_first
            return (-1 if x is None else 1) * (1 if nulls_first else -1)
        if compare("=", x, y):
            continue
        before = bool(compare("<", x, y)) != key.descending
        return -1 if before else 1
    return 0


def partitions(clause: MatchRecognize, table: Table) -> list[list[Row]]:
    """The input's rows by partition (in order of first appearance), each ordered."""
    return list(keyed_partitions(clause, table).values())


def keyed_partitions(clause: MatchRecognize,
                     table: Table) -> dict[tuple[object, ...], list[Row]]:
    """The input's rows by partition key (the ``PARTITION BY`` values; keys in order of
    first appearance), each partition ordered (module docstring, 1 and 2)."""
    columns = {name.upper(): i for i, name in enumerate(table.names)}
    groups: dict[tuple[object, ...], list[Row]] = {}
    for row in table.rows:
        key = tuple(_row_value(e, row, columns) for e in clause.partition_by)
        groups.setdefault(key, []).append(row)

    def order(a: tuple[list[object], Row], b: tuple[list[object], Row]) -> int:
        return _sort_compare(clause.order_by, a[0], b[0])

    def ordered(rows: list[Row]) -> list[Row]:
        keyed = [([_row_value(k.expr, row, columns) for k in clause.order_by], row)
                 for row in rows]
        return [row for _, row in sorted(keyed, key=functools.cmp_to_key(order))]

    return {key: ordered(rows) for key, rows in groups.items()}


def within_bound(within: Within, first: object, row: object) -> bool:
    """``row``'s key lies within the interval of the match's first row's key (Flink's
    ``WITHIN``, the bound from a match's first row to its last: docs/errata.md, mr-within-place;
    the engine asks the same question)."""
    unit = within.unit.upper().removesuffix("S")
    if unit not in UNITS:
        raise Unsupported(f"WITHIN unit {within.unit} (supported: {', '.join(UNITS)})")
    if first is None or row is None:
        return False
    if isinstance(first, datetime.date) and isinstance(row, datetime.date):
        gap: object = Decimal(repr(abs((_instant(row) - _instant(first)).total_seconds())))
    else:
        gap = arithmetic("-", row, first)
        gap = abs(cast_number(gap)) if gap is not None else None
    return compare("<=", gap, within.amount * UNITS[unit]) is True


def _instant(d: datetime.date) -> datetime.datetime:
    """A date as the timestamp of its midnight (a timestamp as itself)."""
    return d if isinstance(d, datetime.datetime) else datetime.datetime(d.year, d.month, d.day)


def resume_at(skip: AfterMatchSkip, start: int, end: int, mapped: Sequence[int]) -> int:
    """Where matching resumes after a non-empty match of rows ``start … end − 1`` whose
    rows mapped to the skip's variable are ``mapped`` (module docstring, 3): ``AFTER MATCH
    SKIP``'s row, or its data exception."""
    if skip.kind == "PAST LAST ROW":
        return end
    if skip.kind == "TO NEXT ROW":
        return start + 1
    if not mapped:
        raise DataError("skip-to-unmapped-variable", f"AFTER MATCH SKIP {skip.kind} "
                        f"{skip.var}: the match maps no row to {skip.var}")
    target = mapped[0] if skip.kind == "TO FIRST" else mapped[-1]
    if target == start:
        raise DataError("skip-to-first-row", f"AFTER MATCH SKIP {skip.kind} {skip.var} "
                        "resumes at the match's first row, which would find it again")
    return target


class Cursor(NamedTuple):
    """Where the recognition of a partition stands (module docstring, 3): the row the
    next search starts at, the matches found so far (``MATCH_NUMBER``), and the row after
    the last row of any match so far (``WITH UNMATCHED ROWS`` outputs only rows past it)."""

    pos: int = 0
    number: int = 0
    covered: int = 0


@dataclass(frozen=True)
class Step:
    """One search of a partition's recognition: from row ``start``, the ``match`` found
    (``None``: none), the output ``rows`` it adds and the ``cursor`` after it."""

    start: int
    match: Matching | None
    rows: tuple[Row, ...]
    cursor: Cursor


class Recognizer:
    """One recognition's fixed parts: the clause, the input's columns, the budget, and
    what observes its searches (``observe``: none; a trace sets one,
    :class:`~kleene.reference.match_recognize.matchings.Observer`)."""

    observe: Observer | None = None

    def __init__(self, clause: MatchRecognize, table: Table, budget: Budget) -> None:
        self.clause = clause
        self.table = table
        self.budget = budget
        self.columns = {name.upper(): i for i, name in enumerate(table.names)}
        self.defines = {d.var.upper(): d.condition for d in clause.defines}
        self.subsets = {u.name.upper(): frozenset(v.upper() for v in u.vars)
                        for u in clause.subsets}
        self.by = [_column_index(e, table, "PARTITION BY") for e in clause.partition_by]
        ordered = [k.expr for k in clause.order_by if isinstance(k.expr, Column)]
        order = [table.index(e.name) for e in ordered]
        self.order = [i for i in dict.fromkeys(order) if i not in self.by]
        shown = set(self.by) | set(self.order)
        self.rest = [i for i in range(len(table.names)) if i not in shown]
        self.all_rows = clause.rows_per_match != "ONE"
        self.local = clause.within is None and all(
            row_local(c, v, self.subsets) for v, c in self.defines.items())
        self.searched: set[tuple[object, ...]] | None = None
        if clause.within is not None and not clause.order_by:
            raise Unsupported("WITHIN without ORDER BY: the interval bounds the first ORDER BY key")

    def names(self) -> tuple[str, ...]:
        """The output's columns (module docstring, 4)."""
        measures = [m.name for m in self.clause.measures]
        if not self.all_rows:
            return tuple([self.table.names[i] for i in self.by] + measures)
        head = [self.table.names[i] for i in self.by + self.order]
        return tuple(head + measures + [self.table.names[i] for i in self.rest])

    def first_match(self, rows: Sequence[Row], start: int, number: int) -> Matching | None:
        """The match at row ``start``: the most preferred matching all of whose rows
        satisfy their conditions (running), or ``None``. Where every condition is
        row-local the partition's start rows share one memory of the states searched
        without a matching (``searched``,
        :func:`~kleene.reference.match_recognize.matchings.matchings`)."""
        within = self.clause.within
        first_key = _row_value(self.clause.order_by[0].expr, rows[start], self.columns) \
            if within is not None and self.clause.order_by else None

        def accept(start: int, variables: Sequence[str]) -> bool:
            row = start + len(variables) - 1
            if within is not None and not within_bound(
                    within, first_key, _row_value(self.clause.order_by[0].expr, rows[row],
                                                  self.columns)):
                return False
            scope = Scope(rows, self.columns, start, variables, len(variables), number,
                          self.subsets)
            return holds(self.defines.get(variables[-1].upper()), scope)

        return next(matchings(self.clause.pattern, len(rows), start, accept, self.budget,
                              self.observe, searched=self.searched), None)

    def resume(self, m: Matching, scope: Scope) -> int:
        """Where matching resumes after the non-empty match ``m`` (AFTER MATCH SKIP)."""
        skip = self.clause.after_match
        mapped = scope.mapped(skip.var, final=True) if skip.var is not None else []
        return resume_at(skip, m.start, m.end, mapped)

    def output(self, row: Row, scope: Scope | None) -> Row:
        """The output row built on input ``row``, the measures over ``scope`` (``None``:
        an unmatched row, every measure NULL)."""
        measures = [evaluate(m.expr, scope) if scope is not None else None
                    for m in self.clause.measures]
        if not self.all_rows:
            return tuple([row[i] for i in self.by] + measures)
        return tuple([row[i] for i in self.by + self.order] + measures
                     + [row[i] for i in self.rest])

    def emitted(self, rows: Sequence[Row], m: Matching, final: Scope) -> list[Row]:
        """The output rows of the non-empty match ``m`` (module docstring, 4), ``final``
        its scope over all its rows."""
        if not self.all_rows:
            return [self.output(rows[m.end - 1], final)]
        return [self.output(rows[m.start + i], Scope(
            rows, self.columns, m.start, m.variables, i + 1, final.match_number, self.subsets))
            for i in range(len(m.variables)) if i not in m.excluded]

    def steps(self, rows: Sequence[Row], cursor: Cursor | None = None) -> Iterator[Step]:
        """The recognition of one ordered partition from ``cursor`` on (default: its first
        row), one search at a time (module docstring, 3 and 4): each :class:`Step` holds
        the output rows the search from ``cursor.pos`` adds and where the next starts."""
        mode = self.clause.rows_per_match
        pos, number, covered = cursor or Cursor()
        self.searched = set() if self.local else None
        while pos < len(rows):
            start = pos
            out: list[Row] = []
            m = self.first_match(rows, pos, number + 1)
            if m is None:
                if mode == "ALL WITH UNMATCHED" and pos >= covered:
                    out.append(self.output(rows[pos], None))
                pos += 1
                yield Step(start, m, tuple(out), Cursor(pos, number, covered))
                continue
            number += 1
            final = Scope(rows, self.columns, m.start, m.variables, len(m.variables), number,
                          self.subsets)
            if not m.variables:
                if mode != "ALL OMIT":
                    out.append(self.output(rows[m.start], final))
                pos += 1
                yield Step(start, m, tuple(out), Cursor(pos, number, covered))
                continue
            out.extend(self.emitted(rows, m, final))
            covered = max(covered, m.end)
            pos = self.resume(m, final)
            yield Step(start, m, tuple(out), Cursor(pos, number, covered))

    def partition(self, rows: Sequence[Row]) -> list[Row]:
        """The output rows of one ordered partition."""
        return [row for step in self.steps(rows) for row in step.rows]


def recognize(clause: MatchRecognize, table: Table, *, budget: Budget | None = None) -> Table:
    """The row pattern output table of ``clause`` over ``table`` (module docstring)."""
    budget = budget or Budget(what="recognizing a row pattern")
    r = Recognizer(clause, table, budget)
    out: list[Row] = []
    for rows in partitions(clause, table):
        out.extend(r.partition(rows))
    return Table(r.names(), tuple(out))
