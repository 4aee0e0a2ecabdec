"""The window decided exactly, once (docs/semantics.md, "Windows"; issue 25 part 2).

:func:`kleene.reference.durations.fits` is THE predicate (``span ≤ τ``, or
``< τ`` strictly). Every bound derived from it, scalar or over columns, must
agree with it on adversarial values: spans equal to τ, τ ± 1 ulp, decimal
timestamps (0.1 + 1.0), integers past 2**53 and 2**63. Then the two
hand-computed examples of issue 25 through every engine that claims them, and
through ``kleene match``.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from kleene.cli import main
from kleene.engines.protocol import Query
from kleene.engines.registry import engine
from kleene.engines.spans import Window, within_bound
from kleene.reference.durations import (
    earliest_fitting,
    fits,
    inclusive_bound,
    latest_fitting,
    span_bound,
)
from kleene.reference.events import Stream
from kleene.reference.match import Match
from tests.helpers import claiming_engines, columnar, ulps

READINGS = ("inclusive", "strict")
STOCK = 25_263_126  # the first timestamp of the stock stream


def plain(span: int | float, tau: int | float, reading: str) -> bool:
    """The definition, written out again (not read from the code under test)."""
    return span <= tau if reading == "inclusive" else span < tau




# ---------------------------------------------------------------- strategies

DECIMALS = (0.0, 0.1, 0.2, 0.3, 1.0, 1.1, 2.0, 0.1 + 1.0, 0.1 + 0.2, 499.99999999999994,
            500.0, float(STOCK), STOCK + 0.1, 1e15 + 0.1, 2.0**53, 2.0**60)
BIG = (0, 1, 499, 500, 501, STOCK, 2**53 - 1, 2**53, 2**53 + 1, 2**63 - 1, 2**63, 2**63 + 1,
       2**64 + 3)


@st.composite
def taus(draw: st.DrawFn) -> int | float:
    """τ: small and large ints, decimal floats, and each nudged by an ulp or one."""
    tau = draw(st.one_of(
        st.sampled_from((0, 1, 500, 2**53, 2**53 + 1, 2**60 + 1, 2**63 + 1)),
        st.sampled_from((0.1, 0.3, 1.0, 500.0, 1e-300, 2.0**53, 2.0**60)),
        st.integers(0, 2**70), st.floats(0, 1e20, allow_nan=False)), label="tau")
    nudge = draw(st.sampled_from((0, 0, -1, 1)), label="nudge")
    if isinstance(tau, float):
        return max(0.0, ulps(tau, nudge))
    return max(0, tau + nudge)


@st.composite
def float_pairs(draw: st.DrawFn) -> tuple[float, float, int | float]:
    """``(first, x, τ)``: floats with ``x`` a few ulps around ``fl(first + τ)``."""
    tau = draw(taus())
    first = draw(st.one_of(st.sampled_from(DECIMALS),
                           st.floats(-1e18, 1e18, allow_nan=False)), label="first")
    around = first + float(tau)
    if math.isinf(around):
        around = first
    x = ulps(around, draw(st.integers(-4, 4), label="ulps"))
    x = draw(st.sampled_from((x, first + draw(st.sampled_from(DECIMALS)))), label="x")
    return first, x, tau


@st.composite
def int_pairs(draw: st.DrawFn) -> tuple[int, int, int | float]:
    """``(first, x, τ)``: Python ints (past 2**53 and 2**63) with ``x − first`` near τ."""
    tau = draw(taus())
    first = draw(st.one_of(st.sampled_from(BIG), st.integers(-(2**70), 2**70)), label="first")
    whole = math.floor(tau) if isinstance(tau, float) else tau
    x = first + whole + draw(st.integers(-3, 3), label="offset")
    return first, x, tau


# ---------------------------------------------------------------- the scalars


@given(st.one_of(float_pairs(), int_pairs()), st.sampled_from(READINGS))
@settings(max_examples=400, deadline=None)
@example((0.1, 1.1, 1), "inclusive")                       # 1.1 − 0.1 = 1.0 fits τ = 1
@example((float(STOCK), STOCK + 500.0, 500), "strict")      # a span equal to τ
@example((STOCK, STOCK + 500, 500), "strict")
@example((2**63, 2**63 + 2**53 + 1, 2**53 + 1), "strict")
def test_every_scalar_bound_agrees_with_the_plain_predicate(case, reading) -> None:
    first, x, tau = case
    span = x - first
    assert fits(span, tau, reading) == plain(span, tau, reading)
    assert (span <= inclusive_bound(tau, reading)) == plain(span, tau, reading)
    assert (span <= span_bound(tau, reading, type(span))) == plain(span, tau, reading)
    if x >= first:
        assert (x <= latest_fitting(first, tau, reading)) == plain(x - first, tau, reading)
    last, y = max(first, x), min(first, x)
    assert (y >= earliest_fitting(last, tau, reading)) == plain(last - y, tau, reading)


def test_the_two_readings_on_hand_computed_spans() -> None:
    assert fits(1.1 - 0.1, 1) and not fits(1.1 - 0.1, 1, "strict")
    assert not fits(0.1 + 0.2, 0.3) and fits(0.3, 0.3)   # 0.1 + 0.2 is 0.30000000000000004
    assert fits(499, 500, "strict") and not fits(500, 500, "strict")
    assert fits(2**63 - 1, 2**63, "strict") and not fits(2**63, 2**63, "strict")
    assert not fits(0, 0, "strict") and fits(0, 0)
    # the strict bound of τ = 2**60 + 1 admits 2**60 (an int), which nextafter alone lost
    assert 2**60 <= inclusive_bound(2**60 + 1, "strict")
    assert latest_fitting(float(STOCK), 500, "strict") < STOCK + 500.0
    assert latest_fitting(0.1, 1, "inclusive") >= 1.1


# ---------------------------------------------------------------- the columns


@st.composite
def columns(draw: st.DrawFn) -> tuple[np.ndarray, int | float]:
    """A sorted column (int64 up to 2**63 − 1, or float64 of decimals near τ apart)."""
    tau = draw(taus())
    n = draw(st.integers(1, 12), label="n")
    if draw(st.booleans(), label="integers"):
        start = draw(st.sampled_from((0, STOCK, 2**53 - 3, 2**62, 2**63 - 2**40)), label="start")
        whole = min(math.floor(tau), 2**40)
        steps = draw(st.lists(st.sampled_from((0, 1, whole, whole + 1, max(whole - 1, 0))),
                              min_size=n, max_size=n), label="steps")
        values = np.cumsum(np.array(steps, dtype=object)) + start
        return np.array(sorted(v for v in values if v < 2**63), dtype=np.int64), tau
    first = draw(st.sampled_from((0.1, float(STOCK), 1e15 + 0.1, -3.3)), label="start")
    gaps = draw(st.lists(st.sampled_from((0.0, 0.1, 1.0, float(tau), ulps(float(tau), 1),
                                          ulps(float(tau), -1))), min_size=n, max_size=n),
                label="gaps")
    floats: list[float] = [first]
    for g in gaps:
        floats.append(floats[-1] + g)
    return np.array(floats, dtype=np.float64), tau


def clip(x: int | float, ts: np.ndarray) -> int | float:
    """``x`` saturated to int64 for an integer column (every int64 lies within)."""
    return min(max(x, -(2**63)), 2**63 - 1) if ts.dtype.kind == "i" else x


@given(columns(), st.sampled_from(READINGS))
@settings(max_examples=400, deadline=None)
def test_every_column_bound_agrees_with_the_plain_predicate(column, reading) -> None:
    ts, tau = column
    w = Window(tau, reading)
    py = ts.tolist()   # the Python numbers: ints stay exact
    spans = np.array([x - py[0] for x in py], dtype=ts.dtype)
    want = [plain(x - py[0], tau, reading) for x in py]
    assert w.fits_array(spans).tolist() == want
    assert within_bound(spans, inclusive_bound(tau, reading)).tolist() == want
    ends, starts = w.ends(ts, ts), w.starts(ts, ts)
    latests, earliests = w.latests(ts).tolist(), w.earliests(ts).tolist()
    for i, first in enumerate(py):
        assert ends[i] == sum(1 for x in py if x < first or plain(x - first, tau, reading))
        assert starts[i] == sum(1 for x in py if x <= first and not plain(first - x, tau, reading))
        assert latests[i] == clip(latest_fitting(first, tau, reading), ts)
        assert earliests[i] == clip(earliest_fitting(first, tau, reading), ts)


# ---------------------------------------------------------------- the examples




def every_engine(text: str, rows: list[dict[str, Any]], reading: str, expected: set[Match]) -> None:
    query = Query.parse(text, reading=reading)
    s = Stream.from_rows(rows)
    assert query.reference(s) == expected
    for name in claiming_engines(query):
        for form in (s, columnar(s)):
            got = set(engine(name).compile(query).run(form))
            assert got == expected, (name, type(form.columns).__name__)


def m(a: int, c: int) -> Match:
    return Match.of({"a": [a], "c": [c]})


EXAMPLE_1 = [{"ts": 0.1, "type": "A"}, {"ts": 1.1, "type": "C"}, {"ts": 2.0, "type": "A"}]


def test_a_decimal_span_equal_to_tau_is_a_match_in_every_engine() -> None:
    """Issue 25: 1.1 − 0.1 = 1.0 ≤ 1, so (A@0.1, C@1.1) matches; nfa-chain,
    -chain-fc, -multichain and -tree searched back from 1.1 by ``1.1 − 1 =
    0.10000000000000009`` and missed it. Strictly, 1.0 < 1 fails: no match."""
    every_engine("PATTERN SEQ(A a, C c) WITHIN 1", EXAMPLE_1, "inclusive", {m(0, 1)})
    every_engine("PATTERN SEQ(A a, C c) WITHIN 1", EXAMPLE_1, "strict", set())


@pytest.mark.parametrize("first", [STOCK, 2**53 + 1, 2**62])
def test_the_strict_reading_never_admits_a_span_equal_to_tau(first: int) -> None:
    """A@first, C@first+499, C@first+500 under ``WITHIN 500``: strictly only the
    span 499 fits (nfa-tree admitted 500 on the stock stream's timestamps, and the
    columnar chain read 2**62 as a float); inclusively both."""
    rows = [{"ts": first, "type": "A"}, {"ts": first + 499, "type": "C"},
            {"ts": first + 500, "type": "C"}, {"ts": first + 501, "type": "C"}]
    every_engine("PATTERN SEQ(A a, C c) WITHIN 500", rows, "strict", {m(0, 1)})
    every_engine("PATTERN SEQ(A a, C c) WITHIN 500", rows, "inclusive", {m(0, 1), m(0, 2)})


STOCK_ROWS = [{"ts": STOCK + d, "type": t} for d, t in ((0, "A"), (499, "C"), (500, "C"))]


@pytest.mark.parametrize(("text", "rows", "reading", "expected"), [
    ("PATTERN SEQ(A a, C c) WITHIN 1", EXAMPLE_1, "inclusive", [{"a": [0], "c": [1]}]),
    ("PATTERN SEQ(A a, C c) WITHIN 1", EXAMPLE_1, "strict", []),
    ("PATTERN SEQ(A a, C c) WITHIN 500", STOCK_ROWS, "strict", [{"a": [0], "c": [1]}]),
    ("PATTERN SEQ(A a, C c) WITHIN 500", STOCK_ROWS, "inclusive",
     [{"a": [0], "c": [1]}, {"a": [0], "c": [2]}]),
])
def test_kleene_match_gives_the_reference_answer(tmp_path: Path, capsys, text: str,
                                                 rows: list[dict[str, Any]], reading: str,
                                                 expected: list[dict[str, list[int]]]) -> None:
    pattern, events = tmp_path / "q.txt", tmp_path / "e.jsonl"
    pattern.write_text(text + "\n")
    events.write_text("".join(json.dumps(r) + "\n" for r in rows))
    code = main(["match", "--pattern", str(pattern), "--events", str(events),
                 "--window-reading", reading])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert [json.loads(line) for line in out.splitlines()] == expected
