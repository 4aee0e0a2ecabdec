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
- ``COUNT(*)`` / ``COUNT(v.*)``: how many rows are mapped to ``v`` (TR §4.9);
- ``CLASSIFIER()`` / ``CLASSIFIER(v)``, ``MATCH_NUMBER()`` (TR §4.12).

:func:`reader` gives a function for such a measure, ``None`` for any other (the
reference's evaluator then computes it): the engine's profile of the V shape had 80 %
of its time in the evaluator's general machinery for these three kinds of measure.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from kleene.reference.match_recognize.ast import (
    Aggregate,
    Classifier,
    Column,
    Expr,
    MatchNumber,
    Navigation,
)

#: ``read(rows, start, variables, number)``: the measure of the match at partition row
#: ``start`` whose rows are mapped to ``variables``, its match number ``number``.
Reader = Callable[[Sequence[Sequence[object]], int, Sequence[str], int], object]


def reader(e: Expr, columns: Mapping[str, int],
           subsets: Mapping[str, frozenset[str]]) -> Reader | None:
    """The measure ``e`` as a :data:`Reader` (module docstring), or ``None``."""
    def members(var: str | None) -> frozenset[str] | None:
        return None if var is None else subsets.get(var.upper(), frozenset({var.upper()}))

    def mapped(var: str | None) -> Callable[[Sequence[str]], list[int]]:
        wanted = members(var)
        if wanted is None:
            return lambda variables: list(range(len(variables)))
        return lambda variables: [i for i, v in enumerate(variables) if v.upper() in wanted]

    if isinstance(e, MatchNumber):
        return lambda rows, start, variables, number: number
    if isinstance(e, Classifier):
        of = mapped(e.var)

        def classifier(rows: Sequence[Sequence[object]], start: int, variables: Sequence[str],
                       number: int) -> object:
            found = of(variables)
            return variables[found[-1]] if found else None
        return classifier
    if isinstance(e, Aggregate) and e.name == "COUNT" and e.operand is None \
            and not e.distinct:
        count = mapped(e.var)
        return lambda rows, start, variables, number: len(count(variables))
    column, pick = _picked(e)
    if column is None or column.name.upper() not in columns:
        return None
    j = columns[column.name.upper()]
    of = mapped(column.var)

    def value(rows: Sequence[Sequence[object]], start: int, variables: Sequence[str],
              number: int) -> object:
        index = pick(of(variables))
        return rows[start + index][j] if index is not None else None
    return value


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
