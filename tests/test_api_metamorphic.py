"""The Python door under the metamorphic relations and edge values of the standards
(STYLE: "shift every timestamp by a large constant, scale timestamps and windows, split
and join streams"; values at the edges: spans equal to the window, integers past 2^53 and
near 2^63, NaN, empty inputs) — for a pandas DataFrame and an Arrow table handed to
``kleene.match``, not only for files (the loaders' own tests cover files).

Expected values are hand-computed: the stream A A B B C of tests/test_api.py one unit
apart has four matches of ``SEQ(A a, B b, C c) WITHIN 5`` ((a, b, c) ∈ {0, 1} × {2, 3} ×
{4}); every relation below says how it moves them.
"""

from __future__ import annotations

import math

import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kleene
from kleene.reference.errors import KleeneError

TYPES = ["A", "A", "B", "B", "C"]
HAND = [(0, 2, 4), (0, 3, 4), (1, 2, 4), (1, 3, 4)]


def seq(window: int) -> str:
    return f"PATTERN SEQ(A a, B b, C c) WITHIN {window}"


def frame(ts: list[int], types: list[str] = TYPES) -> pd.DataFrame:
    return pd.DataFrame({"ts": ts, "type": types, "k": list(range(len(ts)))})


def triples(rows: pd.DataFrame | pa.Table) -> list[tuple[int, ...]]:
    d = rows.to_pydict() if isinstance(rows, pa.Table) else rows.to_dict("list")
    out: dict[int, list[int]] = {}
    for k, p in zip(d["match"], d["position"], strict=True):
        out.setdefault(k, []).append(p)
    return sorted(tuple(v) for v in out.values())


@settings(max_examples=40, deadline=None)
@given(shift=st.integers(min_value=-(2**62), max_value=2**62))
def test_shifting_every_timestamp_keeps_the_matches(shift):
    """Windows compare differences only (seed 001 Def. 1): a shift moves nothing."""
    assert triples(kleene.match(seq(5), frame([shift + t for t in range(5)]))) == HAND


@settings(max_examples=30, deadline=None)
@given(k=st.integers(min_value=1, max_value=10**9))
def test_scaling_timestamps_and_window_together_keeps_the_matches(k):
    """ts × k with WITHIN 4k: the span of every match (≤ 4 units) scales with the
    window, so the four matches stay; WITHIN 4k − 1 loses the two spanning 0 → 4."""
    events = frame([k * t for t in range(5)])
    assert triples(kleene.match(seq(4 * k), events)) == HAND
    assert triples(kleene.match(seq(4 * k - 1), events)) == [(1, 2, 4), (1, 3, 4)]


def test_a_span_equal_to_the_window_is_inside_it():
    """Spans 0 → 4 equal WITHIN 4 (inclusive, docs/semantics.md): all four; spans
    1 → 4 equal WITHIN 3: the two with a = 1; WITHIN 2 holds no span of the stream."""
    assert triples(kleene.match(seq(4), frame([0, 1, 2, 3, 4]))) == HAND
    assert triples(kleene.match(seq(3), frame([0, 1, 2, 3, 4]))) == [(1, 2, 4), (1, 3, 4)]
    assert triples(kleene.match(seq(2), frame([0, 1, 2, 3, 4]))) == []


@pytest.mark.parametrize("base", [2**53, 2**53 + 1, 2**63 - 10])
def test_integers_past_2_53_and_near_2_63_stay_exact(base):
    """Timestamps one apart past 2^53 (float64 would tie them) and up to 2^63 − 6 in an
    int64 Arrow column: compared exactly, the four matches; WITHIN 3 keeps only the
    matches spanning ≤ 3 (a ∈ {1}), as with small integers."""
    table = pa.table({"ts": pa.array([base + t for t in range(5)], pa.int64()),
                      "type": TYPES})
    assert triples(kleene.match(seq(4), table)) == HAND
    assert triples(kleene.match(seq(3), table)) == [(1, 2, 4), (1, 3, 4)]


def test_the_users_columns_come_back_exact_past_2_53():
    table = pa.table({"ts": pa.array([2**63 - 5 + t for t in range(5)], pa.int64()),
                      "type": TYPES, "big": pa.array([2**62 + t for t in range(5)], pa.int64())})
    rows = kleene.match(seq(4), table)
    assert rows.column("big").type == pa.int64()
    assert rows.column("ts").to_pylist()[:3] == [2**63 - 5, 2**63 - 3, 2**63 - 1]
    assert rows.column("big").to_pylist()[:3] == [2**62, 2**62 + 2, 2**62 + 4]


def test_splitting_by_partition_and_joining_the_answers_is_the_answer():
    """PARTITION BY u: the matches of the whole equal the union of each user's matches
    (positions mapped back through the user's rows)."""
    ts = list(range(10))
    types = TYPES + TYPES
    users = ["x", "y"] * 5
    whole = pd.DataFrame({"ts": ts, "type": types, "u": users})
    q = "PATTERN SEQ(A a, B b, C c) PARTITION BY u WITHIN 9"
    joined: list[tuple[int, ...]] = []
    for u in ("x", "y"):
        part = whole[whole["u"] == u].reset_index()
        for m in triples(kleene.match(q, part.drop(columns="index"))):
            joined.append(tuple(int(part["index"][p]) for p in m))
    assert triples(kleene.match(q, whole)) == sorted(joined)
    # by hand: x holds rows 0, 2, 4, 6, 8 (A B C A B): only (0, 2, 4), no C after 8;
    # y holds 1, 3, 5, 7, 9 (A B A B C): a ∈ {1, 5}, b ∈ {3, 7}, a < b, c = 9.
    assert sorted(joined) == [(0, 2, 4), (1, 3, 9), (1, 7, 9), (5, 7, 9)]


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_a_nan_or_infinite_timestamp_in_a_frame_is_one_error(bad):
    events = pd.DataFrame({"ts": [0.0, bad, 2.0], "type": ["A", "B", "C"]})
    with pytest.raises(KleeneError) as info:
        kleene.match(seq(5), events)
    assert "\n" not in str(info.value) and "ts" in str(info.value)


def test_a_nan_attribute_is_unknown_not_a_match():
    """NaN compares unknown (three-valued, docs/semantics.md): the a with price NaN
    matches no ``a.price > 10``; the other A still gives its two matches."""
    events = frame([0, 1, 2, 3, 4]).assign(price=[math.nan, 20.0, 1.0, 1.0, 1.0])
    q = "PATTERN SEQ(A a, B b, C c) WHERE a.price > 10 WITHIN 5"
    assert triples(kleene.match(q, events)) == [(1, 2, 4), (1, 3, 4)]


def test_an_empty_frame_gives_no_rows_and_says_nothing_wrong():
    empty = pd.DataFrame({"ts": pd.Series([], dtype="int64"),
                          "type": pd.Series([], dtype="str")})
    rows = kleene.match(seq(5), empty)
    assert len(rows) == 0 and list(rows.columns)[:3] == ["match", "variable", "position"]
