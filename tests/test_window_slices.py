"""The Spark time slices hold every event a match of theirs reads, at adversarial edges
(issue 25 part 2; engines/spark/layout.py ``thresholds``).

A slice ``j`` owns the matches whose first timestamp lies in ``[b_j, b_{j+1})``
and holds the events in :func:`~kleene.engines.spark.layout.extent`. With a reach
``(L, A)`` every event that fits (:func:`~kleene.reference.durations.fits`) in a
chain of ``A`` windows after an owned first event, or ``L`` before it, must be
held: a slice may hold more, never fewer. Then an example through Spark whose
slice boundary sits where ``b + τ`` rounds below an event that fits.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kleene.engines.spark.layout import extent
from kleene.reference.durations import fits
from kleene.reference.events import Stream
from kleene.reference.match import Match
from kleene.reference.query import Query
from tests.helpers import ulps

STOCK = 25_263_126
REACHES = ((0, 1), (1, 1), (0, 2), (2, 1))




@st.composite
def edges(draw: st.DrawFn) -> tuple[float, list[float], int | float]:
    """A boundary ``b``, timestamps a few ulps around ``b`` and ``b ± k·τ``, and τ."""
    b = draw(st.sampled_from((0.1, 0.3, 1.1, float(STOCK), STOCK + 0.1, 1e15 + 0.1,
                              -2.7)), label="b")
    tau = draw(st.sampled_from((1, 0.1, 0.3, 1.0, 500, 499.99999999999994, 0.1 + 0.2)),
               label="tau")
    around = [ulps(b + k * float(tau), d) for k in (-2, -1, 0, 1, 2) for d in range(-3, 4)]
    return b, sorted(set(around)), tau


@given(edges(), st.sampled_from(REACHES))
@settings(max_examples=300, deadline=None)
def test_a_slice_holds_every_event_that_fits_with_a_first_event_it_owns(case, reach) -> None:
    b, values, tau = case
    back, ahead = reach
    bounds = (b,)
    # slice 0 owns first events below b, slice 1 those from b on
    for j, owned in ((0, [v for v in values if v < b]), (1, [v for v in values if v >= b])):
        low, high = extent(bounds, reach, tau, j)
        for f in owned:
            for x in values:
                if x >= f and ahead >= 1 and fits(x - f, tau):
                    assert x <= high, (f, x, tau, reach)
                if x <= f and back >= 1 and fits(f - x, tau):
                    assert x >= low, (f, x, tau, reach)


def test_the_back_reach_holds_an_event_one_window_before_by_hand() -> None:
    """b = 1.1, τ = 1, reach (1, 1): 1.1 − 0.1 = 1.0 fits, so the slice from 1.1 holds
    0.1 (``fl(1.1 − 1)`` widened by one ulp, 0.10000000000000007, did not)."""
    low, _ = extent((1.1,), (1, 1), 1, 1)
    assert low <= 0.1


@pytest.mark.spark
@pytest.mark.parametrize(("reading", "expected"), [("inclusive", [[2]]),
                                                   ("strict", [[1], [2]])])
def test_spark_slices_at_a_decimal_edge_lose_no_match(spark, reading: str,
                                                      expected: list[list[int]]) -> None:
    """SEQ(NOT(B b), A a) WITHIN 1 on B@0.1, A@1.1, A@2.5, cut at 1.1 and 2.0: B@0.1
    fits with A@1.1 (1.1 − 0.1 = 1.0 ≤ 1) and forbids it, inclusively; strictly it
    does not. The slice from 1.1 must hold B@0.1; Spark equals the reference."""
    from kleene.engines.spark import collect_matches, match_dataframe

    rows = [(0.1, "B"), (1.1, "A"), (2.5, "A")]
    text = "PATTERN SEQ(NOT(B b), A a) WITHIN 1"
    want = {Match.of({"a": a}) for a in expected}
    s = Stream.from_rows([{"ts": t, "type": k} for t, k in rows])
    query = Query.parse(text, policy="any", reading=reading)
    assert query.reference(s) == want
    df = spark.createDataFrame(rows, "ts DOUBLE, type STRING")
    for name in ("nfa-chain", "nfa-eager"):
        found = collect_matches(match_dataframe(df, text, engine=name, policy="any",
                                                slices=[1.1, 2.0], reading=reading))
        assert sorted(found) == sorted(want), name
