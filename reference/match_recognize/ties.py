"""Rows tied on every ``ORDER BY`` key, and whether their order can change the answer.

ISO/IEC 9075-2:2016 §7.6 orders each partition by ``ORDER BY`` and leaves the order of
rows equal on every key to the implementation (TR 19075-5 §4.5: the result is then
nondeterministic). Kleene keeps them in input order at every door
(:mod:`kleene.reference.match_recognize.semantics`, rule 2; docs/match-recognize-spark.md,
"Ties in ORDER BY"); a user may ask instead that such a tie be refused when its order can
change the answer, the choice :data:`TIES` names (``kleene match --ties``,
``kleene.match_recognize(..., ties=...)``).

**When a tie can change the answer** (the sufficient test of issue 30, item 1): the
recognition reads a row only through the columns its ``MEASURES`` and ``DEFINE`` name
(every column with ``ALL ROWS PER MATCH``, which outputs the rows), its partition keys
and its ``ORDER BY`` keys, which tied rows share. Rows of one tie that agree on every
column the recognition reads are interchangeable: any order of them gives the same output.
So a tie *can* change the answer only if two of its rows differ in a column read; the test
says such a tie may change it (swapping rows that differ in a column nothing tests in a way
that tells them apart changes nothing, and is refused all the same).

:func:`first_tie` finds the first such tie (partitions in order of their first row, ties
in ``ORDER BY`` order); :func:`tie_message` says it in one line. Both doors, single process
and Spark, call them on the same rows of a partition, so they refuse the same tie.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from kleene.reference.errors import TieError, Unsupported
from kleene.reference.match_recognize.ast import Column, Expr, MatchRecognize
from kleene.reference.match_recognize.expressions import walk
from kleene.reference.match_recognize.printer import format_expr
from kleene.reference.match_recognize.semantics import keyed_partitions
from kleene.reference.match_recognize.table import Table
from kleene.reference.match_recognize.tie_choices import ERROR, INPUT_ORDER, TIES

#: The tied rows a message lists (the rest are counted).
SHOWN = 5


@dataclass(frozen=True)
class Tie:
    """Rows of one partition tied on every ``ORDER BY`` key: the partition's key
    (each ``PARTITION BY`` column's name, as the table spells it, and value), the
    ``ORDER BY`` columns' names and shared values, the columns read in which the rows
    differ, and each row's values in those columns (in input order)."""

    partition: tuple[tuple[str, object], ...]
    order: tuple[tuple[str, object], ...]
    differ: tuple[str, ...]
    rows: tuple[tuple[object, ...], ...]


def check_ties(ties: str) -> str:
    """``ties`` if it is one of :data:`TIES`, else a one-line :class:`Unsupported`."""
    if ties not in TIES:
        raise Unsupported(f"--ties {ties}: the choices are {', '.join(TIES)}")
    return ties


def columns_read(clause: MatchRecognize, names: Sequence[str]) -> tuple[str, ...]:
    """The columns of ``names`` (a table's) the recognition's output can depend on, beyond
    its keys: those its ``MEASURES`` and ``DEFINE`` name, or all with ``ALL ROWS PER
    MATCH``; in the table's order."""
    if clause.rows_per_match != "ONE":
        return tuple(names)
    read = {x.name.upper() for e in (*(m.expr for m in clause.measures),
                                     *(d.condition for d in clause.defines))
            for x in walk(e) if isinstance(x, Column)}
    return tuple(n for n in names if n.upper() in read)


def first_tie(clause: MatchRecognize, table: Table) -> Tie | None:
    """The first tie of ``table``'s rows whose order can change the answer (module
    docstring), or ``None``."""
    return _first_tie(clause, table, list(keyed_partitions(clause, table).values()))


def _first_tie(clause: MatchRecognize, table: Table, parts: list[list[tuple[object, ...]]],
               ) -> Tie | None:
    columns = {n.upper(): i for i, n in enumerate(table.names)}
    read = [columns[n.upper()] for n in columns_read(clause, table.names)]
    order_keys = [_key(k.expr, columns) for k in clause.order_by]
    partition_keys = [_key(e, columns) for e in clause.partition_by]
    for rows in parts:
        start = 0
        for i in range(1, len(rows) + 1):
            if i < len(rows) and all(_same(rows[i][c], rows[start][c]) for c in order_keys):
                continue
            group = rows[start:i]
            differ = [c for c in read if any(not _same(r[c], group[0][c]) for r in group)]
            if len(group) > 1 and differ:
                first = group[0]
                return Tie(tuple((table.names[c], first[c]) for c in partition_keys),
                           tuple((table.names[c], first[c]) for c in order_keys),
                           tuple(table.names[c] for c in differ),
                           tuple(tuple(r[c] for c in differ) for r in group))
            start = i
    return None


def _key(e: Expr, columns: dict[str, int]) -> int:
    """The column a key names (a key of another form is refused in one line)."""
    if not isinstance(e, Column):
        raise Unsupported(f"--ties {ERROR} compares keys that are columns; the key "
                          f"{format_expr(e)} is not one")
    return columns[e.name.upper()]


def _same(x: object, y: object) -> bool:
    """Whether two values of one column are the same value (NULL is NULL, NaN is NaN)."""
    if x is None or y is None:
        return x is None and y is None
    if isinstance(x, float) and isinstance(y, float) and math.isnan(x) and math.isnan(y):
        return True
    return x == y


def tie_message(tie: Tie) -> str:
    """``tie`` in one line: the partition, the tied key value, the columns the rows
    differ in and the rows' values there."""
    where = (" in the partition " + ", ".join(f"{k} = {value_text(v)}" for k, v in tie.partition)
             if tie.partition else "")
    key = (" have " + ", ".join(f"{k} = {value_text(v)}" for k, v in tie.order) if tie.order
           else " are unordered (no ORDER BY)")
    shown = "; ".join(", ".join(value_text(v) for v in row) for row in tie.rows[:SHOWN])
    more = f"; {len(tie.rows) - SHOWN} more" if len(tie.rows) > SHOWN else ""
    return (f"ORDER BY ties{where}: {len(tie.rows)} rows{key} and differ in "
            f"{', '.join(tie.differ)} ({shown}{more}), so their order (which the standard "
            f"leaves open) can change the answer: --ties {INPUT_ORDER} keeps the input "
            "order, or add an ORDER BY key that breaks the tie")


def refuse_ties(clause: MatchRecognize, table: Table) -> None:
    """:class:`TieError` naming :func:`first_tie` if there is one."""
    tie = first_tie(clause, table)
    if tie is not None:
        raise TieError(tie_message(tie))


def value_text(value: object) -> str:
    """A value as a message shows it (a string quoted as SQL quotes it, NULL)."""
    if value is None:
        return "NULL"
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    return str(value)
