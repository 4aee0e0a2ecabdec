"""The reference's search remembers the states it has searched where conditions are
row-local (reference/match_recognize/matchings.py, ``searched``; issue 26): the same
matchings in the same order as the search without it (the definition, its oracle), at every
start row of a partition sharing one memory, and polynomial on the shapes that made it
exponential (test_match_recognize_backtracking_long.test)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from kleene.conformance.recognize_strategies import row_patterns
from kleene.reference.budget import Budget
from kleene.reference.errors import BudgetExceeded
from kleene.reference.match_recognize.ast import RowPattern, Var
from kleene.reference.match_recognize.matchings import Accept, Matching, matchings
from tests.helpers import rep, seq

A, B = Var("A"), Var("B")


def row_sets(rows: Sequence[str]) -> Accept:
    """A row-local ``accept``: row ``i`` satisfies the variables named in ``rows[i]``."""
    return lambda start, variables: variables[-1] in rows[start + len(variables) - 1]


def every(pattern: RowPattern, rows: Sequence[str], start: int,
          searched: set[tuple[object, ...]] | None) -> list[Matching]:
    return list(matchings(pattern, len(rows), start, row_sets(rows), Budget(limit=20_000),
                          searched=searched))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pattern=row_patterns(variables=("A", "B", "C")),
       rows=st.lists(st.sets(st.sampled_from("ABC")).map("".join), max_size=6))
def test_the_memory_changes_no_matching_nor_its_place(pattern: RowPattern,
                                                      rows: list[str]) -> None:
    try:
        expected = [every(pattern, rows, start, None) for start in range(len(rows) + 1)]
    except BudgetExceeded:
        assume(False)
    searched: set[tuple[object, ...]] = set()
    firsts = [next(matchings(pattern, len(rows), start, row_sets(rows), Budget(limit=20_000),
                             searched=searched), None) for start in range(len(rows) + 1)]
    assert firsts == [found[0] if found else None for found in expected]
    assert [every(pattern, rows, start, set()) for start in range(len(rows) + 1)] == expected


@pytest.mark.parametrize("pattern", [
    seq(rep(rep(A, 1), 1), B),              # (A+)+ B
    seq(rep(A, 1), rep(A, 1), rep(A, 1), B),  # A+ A+ A+ B
    seq(rep(A, 0), rep(A, 0), rep(A, 0), rep(A, 0), B),  # A* A* A* A* B
])
def test_exponential_shapes_are_searched_once_per_state(pattern: RowPattern) -> None:
    # 300 rows of A and no B: no matching at any start row. Without the memory the first
    # start row alone has 2^299 ways to split the run (the budget stops it); with it the
    # whole partition stays within a budget of a few dozen steps per row and start row
    rows = ["A"] * 300
    with pytest.raises(BudgetExceeded):
        every(pattern, rows, 0, None)
    searched: set[tuple[object, ...]] = set()
    budget = Budget(limit=30 * len(rows) * len(rows))
    assert all(next(matchings(pattern, len(rows), start, row_sets(rows), budget,
                             searched=searched), None) is None for start in range(len(rows)))
    # and with the B at the end the one match is the whole run, found from the first row
    rows[-1] = "B"
    first = next(matchings(pattern, len(rows), 0, row_sets(rows), Budget(limit=30 * len(rows)),
                           searched=set()))
    assert first.variables == ("A",) * 299 + ("B",)
