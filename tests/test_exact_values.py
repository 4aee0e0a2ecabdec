"""Exact values end to end (issue 27, item 2): timestamps and constants at the edges of
float64 and int64, aggregates that overflow, NaN and infinity where a number is read.

Each engine that claims a query must give the reference's match set, and the
reference the hand-computed one, on timestamps at 2**53 ± 1, 2**62, 2**63 − 1,
−2**63 and past int64 (Python ints: the row form only, columns refuse them); a
file must never round two timestamps into a tie (refused with one line naming the
row and the field); a constant past int64 is compared exactly over columns; SUM and
AVG are the exact value rounded once. Expected values are computed by hand in
each test's comments.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from kleene.cli import main
from kleene.engines.columns import _exactly
from kleene.engines.protocol import Query
from kleene.engines.registry import engine
from kleene.reference.errors import StreamError
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


# ---------------------------------------------------------------- timestamps read from files


def run(args: Sequence[str], capsys: Any) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def one_line(err: str, *parts: str) -> None:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    for p in parts:
        assert p in lines[0], (p, lines[0])


OPERATOR = "PATTERN SEQ(A a, B b) WITHIN 10"
NFAS = ("reference", "nfa-eager", "nfa-chain", "nfa-chain-fc", "nfa-multichain", "nfa-tree")


@pytest.mark.parametrize("name", NFAS)
def test_csv_near_2_to_the_63_matches_in_every_nfa(tmp_path: Path, capsys, name: str) -> None:
    """Issue 27's case: A at 2**63 − 10, B at 2**63 − 5, WITHIN 10: one match (span 5)."""
    events = tmp_path / "e.csv"
    events.write_text(f"ts,type\n{I64 - 10},A\n{I64 - 5},B\n")
    code, out, err = run(["match", "--pattern", OPERATOR, "--events", str(events),
                          "--engine", name], capsys)
    assert code == 0, err
    assert [json.loads(x) for x in out.splitlines()] == [{"a": [0], "b": [1]}]


@pytest.mark.parametrize(("cells", "row", "value"), [
    ((f"{2**64}", f"{2**64 + 1}"), 0, f"{2**64}"),          # both past int64
    ((f"{I64 - 1}", f"{I64}"), 1, f"{I64}"),                # the second one only
    ((f"{-I64 - 1}", "0"), 0, f"{-I64 - 1}"),
    (("0.5", f"{2**53 + 1}"), 1, f"{2**53 + 1}"),          # beside a decimal: a float
])
def test_csv_timestamps_that_would_round_are_refused(tmp_path: Path, capsys, cells, row,
                                                     value) -> None:
    """As floats, 2**64 and 2**64 + 1 are one timestamp (a tie: the A–B order and the
    span are lost); 2**53 + 1 beside 0.5 would become 2**53. One line naming both."""
    events = tmp_path / "e.csv"
    events.write_text(f"ts,type\n{cells[0]},A\n{cells[1]},B\n")
    code, _, err = run(["match", "--pattern", OPERATOR, "--events", str(events)], capsys)
    assert code == 2
    one_line(err, f"row {row}, field 'ts'", value)


def test_csv_integers_at_the_float_limit_beside_decimals_are_read(tmp_path: Path,
                                                                  capsys) -> None:
    """2**53 is a float exactly: 0.5 and 2**53 read as floats, span ≫ 10, no match."""
    events = tmp_path / "e.csv"
    events.write_text(f"ts,type\n0.5,A\n{2**53},B\n")
    code, out, err = run(["match", "--pattern", OPERATOR, "--events", str(events)], capsys)
    assert code == 0, err
    assert out == ""


def test_jsonl_past_int64_keeps_python_ints(tmp_path: Path, capsys) -> None:
    """JSON integers stay Python ints: 2**64 and 2**64 + 10 are 10 apart (a match),
    2**64 and 2**64 + 11 are not."""
    for gap, want in ((10, [{"a": [0], "b": [1]}]), (11, [])):
        events = tmp_path / f"e{gap}.jsonl"
        events.write_text(json.dumps({"ts": 2**64, "type": "A"}) + "\n"
                          + json.dumps({"ts": 2**64 + gap, "type": "B"}) + "\n")
        for name in NFAS:
            code, out, err = run(["match", "--pattern", OPERATOR, "--events", str(events),
                                  "--engine", name], capsys)
            assert code == 0, err
            assert [json.loads(x) for x in out.splitlines()] == want, name


@pytest.mark.parametrize("text", ["NaN", "nan", "inf", "-inf", "Infinity", "1e400"])
def test_a_non_finite_timestamp_string_is_refused(tmp_path: Path, capsys, text: str) -> None:
    events = tmp_path / "e.jsonl"
    events.write_text(json.dumps({"ts": 1, "type": "A"}) + "\n"
                      + json.dumps({"ts": text, "type": "B"}) + "\n")
    code, _, err = run(["match", "--pattern", OPERATOR, "--events", str(events)], capsys)
    assert code == 2
    one_line(err, "row 1, field 'ts'", "finite")
    with pytest.raises(StreamError, match="row 0, field 'ts'.*finite"):
        Stream.from_rows([{"ts": text}])


def test_an_integer_string_timestamp_is_exact() -> None:
    """'9007199254740993' is 2**53 + 1, not float's 2**53; '1.5' stays a float."""
    s = Stream.from_rows([{"ts": "9007199254740993"}, {"ts": f" {2**64} "}])
    assert [e.ts for e in s] == [2**53 + 1, 2**64]
    assert all(type(e.ts) is int for e in s)
    assert Stream.from_rows([{"ts": "1.5"}])[0].ts == 1.5


def test_parquet_uint64_past_int64_is_refused(tmp_path: Path, capsys) -> None:
    path = tmp_path / "e.parquet"
    pq.write_table(pa.table({"ts": pa.array([1, I64 + 1], pa.uint64()), "type": ["A", "B"]}),
                   path)
    code, _, err = run(["match", "--pattern", OPERATOR, "--events", str(path)], capsys)
    assert code == 2
    one_line(err, "row 1, field 'ts'", str(I64 + 1))


def test_parquet_uint64_within_int64_matches(tmp_path: Path, capsys) -> None:
    path = tmp_path / "e.parquet"
    pq.write_table(pa.table({"ts": pa.array([I64 - 10, I64 - 5], pa.uint64()),
                             "type": ["A", "B"]}), path)
    for name in NFAS:
        code, out, err = run(["match", "--pattern", OPERATOR, "--events", str(path),
                              "--engine", name], capsys)
        assert code == 0, err
        assert [json.loads(x) for x in out.splitlines()] == [{"a": [0], "b": [1]}], name


def test_parquet_with_two_columns_of_one_name_is_one_line(tmp_path: Path, capsys) -> None:
    path = tmp_path / "e.parquet"
    table = pa.Table.from_arrays([pa.array([1, 2]), pa.array(["A", "B"]), pa.array([3, 4])],
                                 names=["ts", "type", "ts"])
    pq.write_table(table, path)
    code, _, err = run(["match", "--pattern", OPERATOR, "--events", str(path)], capsys)
    assert code == 2
    one_line(err, "ts twice")


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


@pytest.mark.parametrize("name", ["reference", "match-recognize"])
def test_match_recognize_avg_past_the_largest_float(tmp_path: Path, capsys, name) -> None:
    events = tmp_path / "t.csv"
    events.write_text("ts,x\n1,1.7e308\n2,1.7e308\n")
    sql = ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES AVG(A.x) AS m "
           "ONE ROW PER MATCH PATTERN (A A) DEFINE A AS AVG(A.x) <= 1.7e308)")
    code, out, err = run(["match", "--pattern", sql, "--events", str(events),
                          "--engine", name], capsys)
    assert code == 0, err
    assert out.split() == ["M", "1.7e+308"]


@pytest.mark.parametrize(("where", "expected"), [
    # x: A 2**64 + 1, B 2**64, B 2**64 + 1 (a CSV column past int64: exact ints per cell)
    (f"a.x > {2**64}", [[0, 1], [0, 2]]),
    ("a.x = b.x", [[0, 2]]),                      # as float64 all three were equal
    (f"a.x = b.x OR b.x > {2**64 + 1}", [[0, 2]]),
    ("a.x > b.x", [[0, 1]]),
])
@pytest.mark.parametrize("name", NFAS)
def test_csv_attributes_past_int64_compare_exactly(tmp_path: Path, capsys, where, expected,
                                                   name) -> None:
    events = tmp_path / "e.csv"
    events.write_text(f"ts,type,x\n1,A,{2**64 + 1}\n2,B,{2**64}\n3,B,{2**64 + 1}\n")
    code, out, err = run(["match", "--pattern", f"PATTERN SEQ(A a, B b) WHERE {where} "
                          "WITHIN 10", "--events", str(events), "--engine", name], capsys)
    assert code == 0, err
    got = sorted([m["a"][0], m["b"][0]] for m in map(json.loads, out.splitlines()))
    assert got == expected


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
