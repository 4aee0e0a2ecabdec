"""The common measures of ``ONE ROW PER MATCH`` read straight off a match's variables.

Under ``ONE ROW PER MATCH`` the measures are evaluated at the match's last row, where
running and final semantics agree (TR 19075-5 §4.13;
:mod:`kleene.reference.match_recognize.evaluation`). For the measures most queries
write, the value is one column of one row of the match, found from the match's
variables alone, as the reference's evaluator finds it:

- ``v.x`` / ``x``: column ``x`` of the last row mapped to ``v`` (a primary or union
  variable; unqualified: the match's last row), TR §4.8;
- ``FIRST(v.x, k)`` / ``LAST(v.x, k)``: the ``k``-th row from the first / last mapped to
  ``v``, TR §4.10; none: NULL;
- ``COUNT(*)`` / ``COUNT(v.*)`` with no filter: how many rows are mapped to ``v`` (TR §4.9);
- ``CLASSIFIER()`` / ``CLASSIFIER(v)``, ``MATCH_NUMBER()`` (TR §4.12).

:func:`reader` gives a function for such a measure, ``None`` for any other (the
reference's evaluator then computes it): the engine's profile of the V shape had 80 %
of its time in the evaluator's general machinery for these three kinds of measure.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from kleene.reference.match_recognize.ast import (
    Aggregate,
    Classifier,
    Column,
    Expr,
    MatchNumber,
    Navigation,
)

#: ``read(value, start, variables, upper, number)``: the measure of the match at partition
#: row ``start`` whose rows are mapped to ``variables`` (``upper``: the same in upper case),
#: its match number ``number``; ``value(i, j)`` is column ``j`` of partition row ``i``.
Value = Callable[[int, int], object]
Reader = Callable[[Value, int, Sequence[str], Sequence[str], int], object]


def reader(e: Expr, columns: Mapping[str, int],
           subsets: Mapping[str, frozenset[str]]) -> Reader | None:
    """The measure ``e`` as a :data:`Reader` (module docstring), or ``None``."""
    def members(var: str | None) -> frozenset[str] | None:
        return None if var is None else subsets.get(var.upper(), frozenset({var.upper()}))

    def mapped(var: str | None) -> Callable[[Sequence[str]], list[int]]:
        wanted = members(var)
        if wanted is None:
            return lambda upper: list(range(len(upper)))
        return lambda upper: [i for i, v in enumerate(upper) if v in wanted]

    if isinstance(e, MatchNumber):
        return lambda value, start, variables, upper, number: number
    if isinstance(e, Classifier):
        of = mapped(e.var)

        def classifier(value: Value, start: int, variables: Sequence[str],
                       upper: Sequence[str], number: int) -> object:
            found = of(upper)
            return variables[found[-1]] if found else None
        return classifier
    if isinstance(e, Aggregate) and e.name == "COUNT" and e.operand is None \
            and not e.distinct and e.filter is None:
        count = mapped(e.var)
        return lambda value, start, variables, upper, number: len(count(upper))
    column, pick = _picked(e)
    if column is None or column.name.upper() not in columns:
        return None
    j = columns[column.name.upper()]
    of = mapped(column.var)

    def read(value: Value, start: int, variables: Sequence[str], upper: Sequence[str],
             number: int) -> object:
        index = pick(of(upper))
        return value(start + index, j) if index is not None else None
    return read


def _picked(e: Expr) -> tuple[Column | None, Callable[[list[int]], int | None]]:
    """The column a measure reads and which of its variable's rows (as offsets in the
    match) it reads it at."""
    def last(found: list[int]) -> int | None:
        return found[-1] if found else None

    if isinstance(e, Column):
        return e, last
    if isinstance(e, Navigation) and e.kind in ("FIRST", "LAST") \
            and isinstance(e.operand, Column):
        k, first = e.offset, e.kind == "FIRST"

        def nth(found: list[int]) -> int | None:
            index = k if first else len(found) - 1 - k
            return found[index] if 0 <= index < len(found) else None
        return e.operand, nth
    return None, last


@dataclass(frozen=True)
class Picked:
    """Column ``j`` of the sorted input at sorted ``rows``; NULL where ``found`` is false
    (``None``: found at every row). A measure's values, read when the output is built
    (:mod:`.output`: one Arrow ``take`` per output column over every partition)."""

    j: int
    rows: np.ndarray
    found: np.ndarray | None = None


#: An output column of a partition's matches: read from the input, or Python values.
Cell = Picked | list[object]


@dataclass(frozen=True)
class Matches:
    """A partition's non-empty matches, flat (the compiled loop's output): ``upper[i]`` and
    ``written[i]`` the variable of the ``i``-th mapped row (upper case, as written),
    ``first[m]`` where match ``m``'s rows begin in the flat arrays, ``start[m]`` its first
    partition row; ``lo`` the partition's first row among the sorted input's; ``number``
    the matches before the first (``MATCH_NUMBER`` counts on from it)."""

    upper: np.ndarray
    written: np.ndarray
    first: np.ndarray
    start: np.ndarray
    lo: int = 0
    number: int = 0

    def ranks(self, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For each flat row, its rank (from 1) among its match's rows in ``mask``; and
        each match's count of them."""
        counts = np.add.reduceat(mask.astype(np.int64), self.first)
        running = np.cumsum(mask)
        before = running[self.first] - mask[self.first]
        segment = np.repeat(np.arange(len(self.first)), np.diff(
            np.append(self.first, len(mask))))
        return running - before[segment], counts

    def pick(self, mask: np.ndarray, rank: np.ndarray) -> np.ndarray:
        """Each match's flat row whose rank among ``mask`` is ``rank[m]`` (-1: none)."""
        ranks, _ = self.ranks(mask)
        segment_rank = np.repeat(rank, np.diff(np.append(self.first, len(mask))))
        hit = mask & (ranks == segment_rank)
        return np.maximum.reduceat(np.where(hit, np.arange(len(mask)), -1), self.first)


def column_reader(e: Expr, columns: Mapping[str, int], subsets: Mapping[str, frozenset[str]],
                  ) -> Callable[[Matches], Cell] | None:
    """The measure ``e`` (one :func:`reader` reads) for every match of a partition at once,
    with numpy over the flat matches: a column of the input as the rows it is read at
    (:class:`Picked`), or Python values; ``None`` where :func:`reader` gives none."""
    if reader(e, columns, subsets) is None:
        return None

    def members(var: str | None, m: Matches) -> np.ndarray:
        if var is None:
            return np.ones(len(m.upper), dtype=bool)
        wanted = subsets.get(var.upper(), frozenset({var.upper()}))
        return np.isin(m.upper, list(wanted))

    def count(var: str | None) -> Callable[[Matches], Cell]:
        return lambda m: m.ranks(members(var, m))[1].tolist()

    if isinstance(e, MatchNumber):
        return lambda m: list(range(m.number + 1, m.number + len(m.first) + 1))
    if isinstance(e, Aggregate):
        return count(e.var)
    if isinstance(e, Classifier):
        var = e.var

        def classifier(m: Matches) -> Cell:
            mask = members(var, m)
            row = m.pick(mask, m.ranks(mask)[1])
            return [m.written[r] if r >= 0 else None for r in row.tolist()]
        return classifier
    column, _ = _picked(e)
    assert column is not None
    j = columns[column.name.upper()]
    nav = e if isinstance(e, Navigation) else None

    def values(m: Matches) -> Cell:
        mask = members(column.var, m)
        total = m.ranks(mask)[1]
        if nav is None:
            rank = total
        else:
            rank = np.full(len(total), nav.offset + 1) if nav.kind == "FIRST" \
                else total - nav.offset
        row = m.pick(mask, rank)
        found = row >= 0
        return Picked(j, m.lo + m.start + np.where(found, row - m.first, 0), found)
    return values
