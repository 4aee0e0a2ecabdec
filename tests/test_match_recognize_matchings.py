"""Properties of the matchings of a row pattern (reference/match_recognize/matchings.py),
against a second definition written the textbook way: each construct's derivations
as a recursive generator (TR 19075-5 §4.7: left alternative first, greedy more,
reluctant fewer, PERMUTE lexicographically; §7.2.8: an empty iteration at or above
the lower bound ends the quantifier). The reference searches with an explicit stack
instead, so that a long partition does not exhaust Python's recursion; both must give
the same candidates in the same order. And pruning by the conditions must only filter:
the accepted matchings are the candidates every prefix of which is accepted."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence

from hypothesis import given
from hypothesis import strategies as st

from kleene.reference.match_recognize.ast import (
    Alt,
    Anchor,
    Concat,
    Empty,
    Exclude,
    Permute,
    Quantified,
    RowPattern,
    Var,
)
from kleene.reference.match_recognize.matchings import matchings

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
