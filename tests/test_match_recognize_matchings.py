"""The matchings of a row pattern (reference/match_recognize/matchings.py): preferment
on hand-computed examples (the comment above each assertion gives the reasoning), then
properties against a second definition written the textbook way: each construct's derivations
as a recursive generator (TR 19075-5 §4.7: left alternative first, greedy more,
reluctant fewer, PERMUTE lexicographically; §7.2.8: an empty iteration at or above
the lower bound ends the quantifier). The reference searches with an explicit stack
instead, so that a long partition does not exhaust Python's recursion; both must give
the same candidates in the same order. And pruning by the conditions must only filter:
the accepted matchings are the candidates every prefix of which is accepted. Last, one
property of ``recognize`` that Trino's manual states: ``ALL ROWS PER MATCH WITH UNMATCHED
ROWS`` with ``AFTER MATCH SKIP PAST LAST ROW`` outputs each input row exactly once."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Iterator, Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kleene.reference.budget import Budget
from kleene.reference.errors import BudgetExceeded
from kleene.reference.match_recognize.ast import (
    Alt,
    Anchor,
    Binary,
    Column,
    Concat,
    Define,
    Empty,
    Exclude,
    Literal,
    MatchNumber,
    MatchRecognize,
    Measure,
    Permute,
    Quantified,
    RowPattern,
    SortKey,
    Var,
)
from kleene.reference.match_recognize.matchings import accept_all, matchings
from kleene.reference.match_recognize.semantics import recognize
from kleene.reference.match_recognize.table import Table
from tests.helpers import rep, seq

A, B, C = Var("A"), Var("B"), Var("C")


def words(pattern: RowPattern, n: int, start: int = 0, accept: Callable[
        [int, Sequence[str]], bool] = accept_all) -> list[str]:
    """Each matching as its variables' names run together (one letter each)."""
    return ["".join(m.variables) for m in matchings(pattern, n, start, accept)]


# ---------------------------------------------------------------- preferment (TR §4.7)

def test_greedy_prefers_more_iterations_and_gives_back():
    # A+ B over 4 rows, every row any variable: A takes all it can (AAA, then B), and
    # gives back one row at a time.
    assert words(seq(rep(A, 1), B), 4) == ["AAAB", "AAB", "AB"]


def test_reluctant_prefers_fewer_iterations():
    assert words(seq(rep(A, 1, lazy=True), B), 4) == ["AB", "AAB", "AAAB"]


def test_bounded_quantifiers_greedy_and_reluctant():
    # {2,3}: three before two; {2,3}?: two before three; {,2}: 2, 1, 0 iterations.
    assert words(rep(A, 2, 3), 4) == ["AAA", "AA"]
    assert words(rep(A, 2, 3, lazy=True), 4) == ["AA", "AAA"]
    assert words(rep(A, 0, 2), 4) == ["AA", "A", ""]


def test_alternation_prefers_the_left_alternative():
    # (A | B) C: every matching through A before every one through B.
    assert words(seq(Alt((A, B)), C), 2) == ["AC", "BC"]
    # (A | B)+ over 2 rows: iteration 1 = A, then (greedy) a second iteration, A before
    # B, then no second one; then the same after iteration 1 = B.
    assert words(rep(Alt((A, B)), 1), 2) == ["AA", "AB", "A", "BA", "BB", "B"]


def test_permute_orders_lexicographically_by_position_in_the_list():
    assert words(Permute((A, B, C)), 3) == ["ABC", "ACB", "BAC", "BCA", "CAB", "CBA"]


def test_anchors_match_only_at_the_partition_edges():
    # ^ only at row 0; $ only after the last row: A+ $ keeps only the run to the end.
    assert words(seq(Anchor("^"), A), 3, start=1) == []
    assert words(seq(Anchor("^"), A), 3, start=0) == ["A"]
    assert words(seq(rep(A, 1), Anchor("$")), 3) == ["AAA"]
    assert words(seq(rep(A, 1), Anchor("$")), 3, start=1) == ["AA"]


def test_exclusion_marks_its_rows_and_matches_as_a_group():
    [m] = matchings(seq(A, Exclude(B), A), 3, 0)
    assert (m.variables, m.excluded) == (("A", "B", "A"), frozenset({1}))


def test_the_empty_pattern_matches_once_with_no_row():
    [m] = matchings(Empty(), 3, 1)
    assert (m.start, m.end, m.variables) == (1, 1, ())


def test_an_empty_iteration_ends_the_quantifier_instead_of_looping():
    # (A*)* where A never holds: the inner A* maps no row; that empty iteration ends the
    # outer * (TR §7.2.8), which gives the empty matching; then the outer *'s own exit
    # gives it again. Two candidates, and the search ends.
    assert words(rep(rep(A, 0), 0), 3, accept=lambda s, v: False) == ["", ""]


def sets(*rows: str):
    """``accept`` for rows that each satisfy the variables named in a string."""
    return lambda start, variables: variables[-1] in rows[start + len(variables) - 1]


def test_empty_iterations_the_standard_way_in_a_bounded_group():
    # (A? | B){1,2} C over rows {B}, {A,C}, {C}. Iteration 1 tries A? first: A fails on
    # row 0, so A? maps nothing; count 1 reaches the lower bound, so the group ends there
    # (TR §7.2.8) and C fails on row 0. Then iteration 1 = B (row 0), iteration 2 = A
    # (row 1, A? is greedy), C on row 2: rows 0-2. Looping after the empty iteration
    # would have found B C on rows 0-1 first.
    pattern = seq(rep(Alt((rep(A, 0, 1), B)), 1, 2), C)
    first = next(matchings(pattern, 3, 0, sets("B", "AC", "C")))
    assert first.variables == ("B", "A", "C")


def test_empty_iterations_with_a_reluctant_body():
    # (B?? | B*){0,2} C over {B}, {B}, {B,C}, {C}: B?? first maps nothing, which ends the
    # group; C fails on row 0. B?? then takes row 0, iteration 2's B?? maps nothing and
    # ends the group, C fails on row 1; iteration 2's B?? takes row 1, the group is full,
    # C holds on row 2: rows 0-2.
    pattern = seq(rep(Alt((rep(B, 0, 1, lazy=True), rep(B, 0))), 0, 2), C)
    first = next(matchings(pattern, 4, 0, sets("B", "B", "BC", "C")))
    assert first.variables == ("B", "B", "C")


def test_an_exponential_pattern_stops_with_the_budget():
    # (A+)+ B over 30 rows where B never holds: 2^29 ways to cut the A's into runs.
    with pytest.raises(BudgetExceeded):
        list(matchings(seq(rep(rep(A, 1), 1), B), 30, 0, lambda s, v: v[-1] == "A",
                       Budget(limit=10_000)))


#: A derivation: the row after it, the variables of its rows, which of them are excluded.
Derivation = tuple[int, tuple[str, ...], tuple[bool, ...]]


def derivations(p: RowPattern, pos: int, n: int, excluded: bool = False) -> Iterator[Derivation]:
    """Every way ``p`` maps rows from ``pos`` on, most preferred first (module docstring)."""
    if isinstance(p, Var):
        if pos < n:
            yield pos + 1, (p.name,), (excluded,)
    elif isinstance(p, Empty):
        yield pos, (), ()
    elif isinstance(p, Anchor):
        if pos == (0 if p.kind == "^" else n):
            yield pos, (), ()
    elif isinstance(p, Exclude):
        yield from derivations(p.body, pos, n, True)
    elif isinstance(p, Alt):
        for item in p.items:
            yield from derivations(item, pos, n, excluded)
    elif isinstance(p, Permute):
        for order in itertools.permutations(p.items):
            yield from derivations(Concat(order), pos, n, excluded)
    elif isinstance(p, Concat):
        yield from _sequence(p.items, pos, n, excluded)
    elif isinstance(p, Quantified):
        yield from _iterations(p, 0, pos, n, excluded)


def _sequence(items: Sequence[RowPattern], pos: int, n: int,
              excluded: bool) -> Iterator[Derivation]:
    if not items:
        yield pos, (), ()
        return
    for end, names, marks in derivations(items[0], pos, n, excluded):
        for end2, names2, marks2 in _sequence(items[1:], end, n, excluded):
            yield end2, names + names2, marks + marks2


def _iterations(q: Quantified, done: int, pos: int, n: int,
                excluded: bool) -> Iterator[Derivation]:
    """The rest of quantifier ``q`` after ``done`` iterations, at row ``pos``."""
    def more() -> Iterator[Derivation]:
        if q.high is not None and done >= q.high:
            return
        for end, names, marks in derivations(q.body, pos, n, excluded):
            if end == pos and done + 1 >= q.low:
                yield end, names, marks  # an empty iteration ends the quantifier
                continue
            for end2, names2, marks2 in _iterations(q, done + 1, end, n, excluded):
                yield end2, names + names2, marks + marks2

    def stop() -> Iterator[Derivation]:
        if done >= q.low:
            yield pos, (), ()

    yield from itertools.chain(stop(), more()) if q.reluctant else itertools.chain(more(), stop())


def patterns() -> st.SearchStrategy[RowPattern]:
    """Small row patterns over A and B with every construct."""
    leaves = st.one_of(st.sampled_from([Var("A"), Var("B")]), st.just(Empty()),
                       st.sampled_from([Anchor("^"), Anchor("$")]))

    def extend(inner: st.SearchStrategy[RowPattern]) -> st.SearchStrategy[RowPattern]:
        several = st.lists(inner, min_size=2, max_size=3).map(tuple)
        bounds = st.tuples(st.integers(0, 2), st.one_of(st.none(), st.integers(0, 2)))
        return st.one_of(
            several.map(Concat), several.map(Alt),
            st.lists(inner, min_size=2, max_size=3).map(lambda xs: Permute(tuple(xs))),
            inner.map(Exclude),
            st.builds(lambda body, lh, lazy: Quantified(body, lh[0], None if lh[1] is None
                                                        else max(lh), lazy),
                      inner, bounds, st.booleans()))
    return st.recursive(leaves, extend, max_leaves=5)


@given(patterns(), st.integers(0, 4), st.data())
def test_the_search_gives_the_recursive_definitions_candidates_in_order(p, n, data):
    start = data.draw(st.integers(0, max(n - 1, 0)), label="start")
    expected = [(end, names, frozenset(i for i, x in enumerate(marks) if x))
                for end, names, marks in derivations(p, start, n)]
    got = [(m.end, m.variables, m.excluded) for m in matchings(p, n, start)]
    assert got == expected


def prefix_accept(allowed: frozenset[tuple[int, str]], cap: int) -> Callable[
        [int, Sequence[str]], bool]:
    """A row may take a variable if (row, variable) is allowed and the match so far has at
    most ``cap`` A's: a condition that reads the prefix, as a running aggregate does."""
    def accept(start: int, variables: Sequence[str]) -> bool:
        row = start + len(variables) - 1
        return (row, variables[-1]) in allowed and list(variables).count("A") <= cap
    return accept


@given(patterns(), st.integers(1, 4), st.data())
def test_pruning_only_filters_the_candidates(p, n, data):
    start = data.draw(st.integers(0, n - 1), label="start")
    cells = [(r, v) for r in range(n) for v in "AB"]
    allowed = frozenset(data.draw(st.lists(st.sampled_from(cells), unique=True), label="allowed"))
    accept = prefix_accept(allowed, data.draw(st.integers(0, 3), label="cap"))
    every = [m for m in matchings(p, n, start)
             if all(accept(start, m.variables[:k]) for k in range(1, len(m.variables) + 1))]
    assert list(matchings(p, n, start, accept)) == every


def test_a_long_partition_does_not_exhaust_the_recursion():
    # A+ over 20,000 rows: one candidate per length, the longest first.
    first = next(matchings(Quantified(Var("A"), 1, None), 20_000, 0))
    assert first.end == 20_000


def excludes(p: RowPattern) -> bool:
    """Whether ``p`` holds an exclusion ``{- -}`` (not allowed WITH UNMATCHED ROWS)."""
    if isinstance(p, Exclude):
        return True
    parts = getattr(p, "items", ()) or ((p.body,) if isinstance(p, Quantified) else ())
    return any(excludes(q) for q in parts)


@given(patterns().filter(lambda p: not excludes(p)),
       st.lists(st.tuples(st.sampled_from("pq"), st.integers(0, 3)), max_size=8),
       st.integers(0, 3), st.integers(0, 3))
def test_with_unmatched_rows_past_last_row_outputs_every_row_once(p, rows, a, b):
    # Trino, "Rows per match": "The combination of ALL ROWS PER MATCH WITH UNMATCHED ROWS
    # with AFTER MATCH SKIP PAST LAST ROW is the only configuration that guarantees exactly
    # one output row for each input row." Each row lies in one match, starts an empty
    # one, or is unmatched; matches do not overlap.
    table = Table(("g", "t", "x"), tuple((g, t, x) for t, (g, x) in enumerate(rows)))
    clause = MatchRecognize(
        pattern=p, partition_by=(Column("G"),), order_by=(SortKey(Column("T")),),
        defines=(Define("A", Binary(">", Column("X"), Literal(a))),
                 Define("B", Binary("<", Column("X"), Literal(b)))),
        measures=(Measure(MatchNumber(), "mno"),), rows_per_match="ALL WITH UNMATCHED")
    out = recognize(clause, table)
    assert Counter(row[1] for row in out.rows) == Counter(range(len(rows)))
