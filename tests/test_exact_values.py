"""Exact values end to end (issue 27, item 2): timestamps and constants at the edges of
float64 and int64, and aggregates that overflow, through every engine.

Each engine that claims a query must give the reference's match set, and the
reference the hand-computed one, on timestamps at 2**53 ± 1, 2**62, 2**63 − 1,
−2**63 and past int64 (Python ints: the row form only, columns refuse them); a
constant past int64, and an int64 column against a float64 one, are compared
exactly over columns; SUM and AVG are the exact value rounded once. Expected
values are computed by hand in each test's comments (files: test_exact_files.py).
"""

from __future__ import annotations

import math
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from kleene.engines.columns import _exactly
from kleene.engines.protocol import Query
from kleene.engines.registry import engine
from kleene.reference.events import Stream
from kleene.reference.match import Match
from kleene.reference.sums import exact_mean, exact_sum
from tests.helpers import claiming_engines, columnar

I64 = 2**63

#: One pattern per language that answers matches: an A then a B, within 10 time units.
PATTERNS = {
    "ses": "PATTERN <{a}, {b}> WHERE a.L = 'A' AND b.L = 'B' WITHIN 10",
    "operator": "PATTERN SEQ(A a, B b) WITHIN 10",
    "sremo": "(mark {~.L = 'A'} ; mark {~.L = 'B'})[WITHIN 10]",
}
#: The match of the A at position 0 and the B at position 1, in each language's form.
FOUND = {"ses": Match.of({"a": [0], "b": [1]}), "operator": Match.of({"a": [0], "b": [1]}),
         "sremo": Match.of({"~": [0, 1]})}


def pair(language: str, first: int | float, second: int | float) -> Stream:
    """An A at ``first`` then a B at ``second``."""
    if language == "operator":
        return Stream.from_rows([{"ts": first, "type": "A"}, {"ts": second, "type": "B"}])
    return Stream.from_rows([{"ts": first, "L": "A"}, {"ts": second, "L": "B"}])


def every_engine(language: str, s: Stream, reading: str, expected: set[Match]) -> None:
    query = Query.parse(PATTERNS[language], reading=reading)
    assert query.reference(s) == expected
    forms = [s]
    if all(-I64 <= e.ts < I64 for e in s):   # past int64 no Arrow column holds it
        forms.append(columnar(s))
    for name in claiming_engines(query):
        for form in forms:
            got = set(engine(name).compile(query).run(form))
            assert got == expected, (name, form.columns is not None)


# ---------------------------------------------------------------- timestamps at the edges

#: First timestamps: each with room for +11 in its kind (the last two past int64).
EDGES = (2**53 - 1, 2**53, 2**53 + 1, 2**62, I64 - 16, -I64, -I64 + 1, I64, 2**64, -(2**64))


@pytest.mark.parametrize("language", sorted(PATTERNS))
@pytest.mark.parametrize("first", EDGES)
def test_spans_five_ten_and_eleven_at_the_edges(language: str, first: int) -> None:
    """τ = 10: a span of 5 fits (both readings), 10 fits inclusively only, 11 never.
    The lazy NFAs over columns read 2**63 − 16 + 5 as a float (both ends 2**63): a tie
    that nonetheless lost the match, and at 2**53 + 1 two distinct timestamps rounded
    together."""
    hit = {FOUND[language]}
    every_engine(language, pair(language, first, first + 5), "inclusive", hit)
    every_engine(language, pair(language, first, first + 5), "strict", hit)
    every_engine(language, pair(language, first, first + 10), "inclusive", hit)
    every_engine(language, pair(language, first, first + 10), "strict", set())
    every_engine(language, pair(language, first, first + 11), "inclusive", set())


@pytest.mark.parametrize("language", sorted(PATTERNS))
def test_the_largest_int64_timestamp(language: str) -> None:
    """2**63 − 11 and 2**63 − 1: span 10 (int64's last value, no room to overflow)."""
    hit = {FOUND[language]}
    every_engine(language, pair(language, I64 - 11, I64 - 1), "inclusive", hit)
    every_engine(language, pair(language, I64 - 11, I64 - 1), "strict", set())
    every_engine(language, pair(language, I64 - 12, I64 - 1), "inclusive", set())


@pytest.mark.parametrize("language", sorted(PATTERNS))
def test_float_timestamps_one_ulp_apart(language: str) -> None:
    """Near 1e15 floats are 0.125 apart: 1e15 + 10 fits τ = 10, the next float
    1e15 + 10.125 does not (a span one ulp past τ)."""
    base = 1e15
    assert math.nextafter(base + 10, math.inf) == base + 10.125
    every_engine(language, pair(language, base, base + 10), "inclusive", {FOUND[language]})
    every_engine(language, pair(language, base, base + 10.125), "inclusive", set())
    every_engine(language, pair(language, base, base + 9.875), "strict", {FOUND[language]})


@st.composite
def small_streams(draw: st.DrawFn) -> list[tuple[int, str]]:
    n = draw(st.integers(1, 7))
    gaps = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    types = draw(st.lists(st.sampled_from("ABC"), min_size=n, max_size=n))
    return [(sum(gaps[:i + 1]), t) for i, t in enumerate(types)]


SHIFTED = ("PATTERN SEQ(A a, B b) WITHIN 3", "PATTERN SEQ(A a, B+ b[], C c) WITHIN 4",
           "PATTERN AND(A a, B b) WITHIN 2", "PATTERN SEQ(A a, C c) WITHIN 0")


@given(small_streams(), st.sampled_from(SHIFTED), st.sampled_from(("inclusive", "strict")))
@settings(max_examples=60, deadline=None)
def test_shifting_every_timestamp_by_2_to_the_62_moves_nothing(rows, text, reading) -> None:
    """Metamorphic: adding 2**62 to every timestamp keeps every span, so every engine's
    match set on the shifted stream (rows and columns) is the reference's on the
    original one (past 2**53 a float carries no span exactly)."""
    query = Query.parse(text, reading=reading)
    s = Stream.from_rows([{"ts": t, "type": k} for t, k in rows])
    moved = Stream.from_rows([{"ts": t + 2**62, "type": k} for t, k in rows])
    want = query.reference(s)
    assert query.reference(moved) == want
    for name in claiming_engines(query):
        for form in (moved, columnar(moved)):
            assert set(engine(name).compile(query).run(form)) == want, name


# ---------------------------------------------------------------- constants past int64

X = [{"ts": 1, "type": "A", "x": I64 - 1}, {"ts": 2, "type": "B", "x": 2**53 + 1}]


@pytest.mark.parametrize(("where", "matches"), [
    ("a.x < 99999999999999999999", True),    # 2**63 − 1 < 10**20 − 1
    (f"a.x > {2**64}", False),
    (f"{I64} > a.x", True),                  # a constant on the left, one past int64
    (f"a.x = {I64 - 1}", True),
    (f"a.x = {I64}", False),
    ("a.x >= 9223372036854775807.0", False),  # that float is 2**63
    ("b.x > 9007199254740992.0", True),      # 2**53 + 1 > 2**53: float64 says equal
    ("b.x != 9007199254740992.0", True),
    ("b.x < 9007199254740993.5", True),      # the float is 2**53 + 2
    (f"b.x <= {-(2**70)}", False),
])
def test_constants_are_compared_exactly(where: str, matches: bool) -> None:
    """Expected by hand from Python's exact int/float comparisons, row and column forms."""
    query = Query.parse(f"PATTERN SEQ(A a, B b) WHERE {where} WITHIN 10")
    s = Stream.from_rows(X)
    expected = {Match.of({"a": [0], "b": [1]})} if matches else set()
    assert query.reference(s) == expected
    for name in claiming_engines(query):
        for form in (s, columnar(s)):
            assert set(engine(name).compile(query).run(form)) == expected, name


OPS = ("=", "!=", "<", "<=", ">", ">=")
INTS = st.one_of(st.integers(-I64, I64 - 1),
                 st.sampled_from([0, 2**53 - 1, 2**53, 2**53 + 1, I64 - 1, -I64, -(2**53)]))
CONSTANTS = st.one_of(
    st.integers(-(2**70), 2**70),
    st.sampled_from([I64, I64 - 1, -I64, -I64 - 1, 2**53 + 1, 2**64, 10**400]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([2.0**53, 2.0**63, -(2.0**63), 0.5, -0.5, 1e308]))


@given(st.lists(INTS, min_size=1, max_size=5), st.sampled_from(OPS), CONSTANTS, st.booleans())
@settings(max_examples=500, deadline=None)
@example([I64 - 1], ">=", 2.0**63, False)
@example([2**53 + 1], ">", 2**53, False)
def test_a_constant_against_an_int64_column_is_python_s_comparison(xs, op, c, flip) -> None:
    """Oracle: Python's comparison of an int with an int or float (exact)."""
    got = _exactly(op, c, pa.array(xs, pa.int64())) if flip else \
        _exactly(op, pa.array(xs, pa.int64()), c)
    want = [_python(op, c, x) if flip else _python(op, x, c) for x in xs]
    assert _verdicts(got, len(xs)) == want


@given(st.lists(st.floats(allow_nan=False), min_size=1, max_size=5), st.sampled_from(OPS),
       CONSTANTS)
@settings(max_examples=500, deadline=None)
@example([2.0**53], "<", 2**53 + 1)
@example([1e308], "<", 10**400)
def test_a_constant_against_a_float_column_is_python_s_comparison(xs, op, c) -> None:
    got = _exactly(op, pa.array(xs, pa.float64()), c)
    assert _verdicts(got, len(xs)) == [_python(op, x, c) for x in xs]


def _python(op: str, a: int | float, b: int | float) -> bool:
    """The comparison as Python makes it (exact for ints and floats)."""
    return {"=": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b,
            ">=": a >= b}[op]


def _verdicts(got: Any, n: int) -> list[bool]:
    if isinstance(got, pa.Scalar):
        return [bool(got.as_py())] * n
    return [bool(v) for v in got.to_pylist()]


# ---------------------------------------------------------------- aggregates


def test_sums_and_means_by_hand() -> None:
    assert exact_mean([1.7e308, 1.7e308]) == 1.7e308           # the float sum is inf
    assert exact_sum([1.7e308, 1.7e308]) == math.inf           # beyond the largest float
    assert exact_sum([1e308, 1e308, -1e308]) == 1e308          # float adds: inf − 1e308
    assert exact_sum([I64, I64]) == 2**64 and type(exact_sum([I64, I64])) is int
    assert exact_mean([2**53 + 1, 2**53 + 2]) == 2**53 + 2     # 2**53 + 1.5, ties to even
    assert exact_sum([0.1, 0.2]) == 0.30000000000000004        # nearest to the exact sum
    assert exact_sum([1e16, 1.0, -1e16]) == 1.0                # float adds: 0.0
    assert exact_mean([10**400, 10**400]) == math.inf


@pytest.mark.parametrize(("where", "expected"), [
    # A@0 x=1.7e308, A@1 x=1.7e308: each subset's mean is 1.7e308
    ("AVG(a[i].x) = 1.7e308", [[0], [1], [0, 1]]),
    ("SUM(a[i].x) > 1e308", [[0], [1], [0, 1]]),
    ("SUM(a[i].x) < 3e308", [[0], [1]]),   # 3e308 is inf as a float: inf < inf fails
])
def test_aggregates_past_the_largest_float(where: str, expected: list[list[int]]) -> None:
    query = Query.parse(f"PATTERN SEQ(A+ a[]) WHERE {where} WITHIN 10")
    s = Stream.from_rows([{"ts": 0, "type": "A", "x": 1.7e308},
                          {"ts": 1, "type": "A", "x": 1.7e308}])
    want = {Match.of({"a": p}) for p in expected}
    assert query.reference(s) == want
    for name in claiming_engines(query):
        for form in (s, columnar(s)):
            assert set(engine(name).compile(query).run(form)) == want, name


@given(st.lists(st.tuples(INTS, st.one_of(st.floats(allow_nan=False), st.sampled_from(
    [2.0**53, 2.0**63, -(2.0**63), 2.0**53 + 2, 9.223372036854775e18]))), min_size=1,
    max_size=6), st.sampled_from(OPS), st.booleans())
@settings(max_examples=400, deadline=None)
@example([(2**53 + 1, 2.0**53)], ">", False)
@example([(I64 - 1, 2.0**63)], "<", True)
def test_an_int64_column_against_a_float64_column_is_python_s_comparison(pairs, op,
                                                                        flip) -> None:
    """``a.x op b.y`` with ``x`` int64 and ``y`` float64: Arrow would compare in float64
    (2**53 + 1 > 2**53 false); the oracle is Python's exact comparison."""
    xs = pa.array([x for x, _ in pairs], pa.int64())
    ys = pa.array([y for _, y in pairs], pa.float64())
    got = _exactly(op, ys, xs) if flip else _exactly(op, xs, ys)
    want = [_python(op, y, x) if flip else _python(op, x, y) for x, y in pairs]
    assert _verdicts(got, len(pairs)) == want


@pytest.mark.parametrize(("where", "matches"), [
    ("a.x > b.y", True),     # 2**53 + 1 > 2**53 (float64 says equal)
    ("a.x = b.y", False),
    ("b.y < a.x", True),
])
def test_an_int_attribute_against_a_float_attribute(where: str, matches: bool) -> None:
    query = Query.parse(f"PATTERN SEQ(A a, B b) WHERE {where} WITHIN 10")
    s = Stream.from_rows([{"ts": 1, "type": "A", "x": 2**53 + 1, "y": 0.5},
                          {"ts": 2, "type": "B", "x": 0, "y": 2.0**53}])
    expected = {Match.of({"a": [0], "b": [1]})} if matches else set()
    assert query.reference(s) == expected
    for name in claiming_engines(query):
        for form in (s, columnar(s)):
            assert set(engine(name).compile(query).run(form)) == expected, name


def test_match_recognize_sums_are_exact_in_every_engine() -> None:
    """MATCH_RECOGNIZE's SUM as the other languages' (issue 27 item 2): 1.7e308 +
    1.7e308 − 1.7e308 is 1.7e308 exactly (plain float addition overflows to inf on the
    second row), the mean 1.7e308 / 3; 3 × 2^62 is past int64 and kept exact (a
    DECIMAL(20, 0) column, as a HUGEINT sum reads in DuckDB). Computed by hand."""
    from kleene.engines.tables import match_recognize

    rows = pa.table({"ts": [1, 2, 3], "x": [1.7e308, 1.7e308, -1.7e308],
                     "n": pa.array([2**62] * 3, pa.int64())})
    sql = ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES SUM(a.x) AS s, "
           "AVG(a.x) AS m, SUM(a.n) AS big ONE ROW PER MATCH PATTERN (a+) DEFINE a AS TRUE)")
    for name in ("reference", None):
        out = match_recognize(rows, sql, engine=name).to_pylist()
        assert out == [{"S": 1.7e308, "M": 1.7e308 / 3, "BIG": 3 * 2**62}], name
