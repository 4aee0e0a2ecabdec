"""Every engine family on Spark: Spark == single-process engine == reference (issue 14).

Operator patterns (seed 003) with ``nfa-chain`` and ``nfa-tree``, SREMO (seed
004) with ``srt``, on generated streams, every cut the pruning permits
(filter, Def. 6 keys, slices by time or, for a count window, by position) at
drawn boundaries; then one pattern per family on the stock stream. Several
streams share one DataFrame (column ``case``), so one job checks them all; the
Hypothesis budgets are small because a Spark job costs ~0.3 s.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kleene.conformance.differential import assert_same_matches, reported_matches
from kleene.conformance.sremo_strategies import gapped_sremo_expressions, windowed_sremo_expressions
from kleene.conformance.strategies import (
    keyed_operator_patterns,
    operator_patterns,
    streams,
    typed_streams,
)
from kleene.data.bundled import bundled
from kleene.data.loaders import load_events
from kleene.engines.registry import engine
from kleene.engines.spark import collect_matches, match_dataframe
from kleene.engines.spark.frames import read_events
from kleene.engines.spark.runner import match_frame
from kleene.reference.budget import Budget
from kleene.reference.errors import BudgetExceeded, Unsupported
from kleene.reference.events import Stream
from kleene.reference.languages import detect_language
from kleene.reference.query import Query
from tests.helpers import frame_of, small_jobs

pytestmark = pytest.mark.spark

STOCKS = str(bundled("stocks.stream.gz"))
STOCK_EVENTS = 5_000
CUTS = st.lists(st.integers(0, 12), max_size=2, unique=True)


def check(spark, name: str, pattern, policy: str, cases: list[Stream], cuts: list[int],
          columns: tuple[str, ...]) -> None:
    """Spark's matches of every case equal the engine's single-process run and the
    reference's (an engine that rejects the pattern is checked elsewhere)."""
    eng = engine(name)
    try:
        local = [set(reported_matches(eng, policy, pattern, s)) for s in cases]
        oracle = [Query.of(pattern, policy=policy).reference(s, budget=Budget(limit=100_000))
                  for s in cases]
    except (Unsupported, BudgetExceeded):
        return
    with small_jobs(spark):
        got = collect_matches(match_dataframe(
            frame_of(spark, cases, columns), pattern, engine=name, policy=policy,
            position="pos", streams=("case",), slices=sorted(cuts), tasks=2), ("case",))
    for c, s in enumerate(cases):
        assert_same_matches(eng, pattern=pattern, stream=s, got=got.get((c,), []),
                            expected=local[c], policy=policy)
        assert local[c] == oracle[c], (name, pattern, s.to_json())


OPERATOR = st.one_of(operator_patterns(max_depth=2, disjunction=False), keyed_operator_patterns())


@pytest.mark.parametrize("name", ["nfa-chain", "nfa-tree"])
@settings(max_examples=3, deadline=None)
@given(pattern=OPERATOR, cases=st.lists(typed_streams(min_size=1, max_size=8), min_size=1,
                                        max_size=4), cuts=CUTS)
def test_operator_engines_on_spark(spark, name, pattern, cases, cuts):
    check(spark, name, pattern, "any", cases, cuts, ("type", "V", "ID"))


@settings(max_examples=6, deadline=None)
@given(e=st.one_of(windowed_sremo_expressions(), gapped_sremo_expressions()),
       cases=st.lists(streams(min_size=1, max_size=8), min_size=1, max_size=4), cuts=CUTS)
def test_srt_on_spark(spark, e, cases, cuts):
    check(spark, "srt", e, "stream", cases, cuts, ("L", "ID", "V"))


# ---------------------------------------------------------------- the stock stream

OPERATOR_STOCK = ("PATTERN SEQ(BUY b, SELL s) WHERE b.name = s.name AND b.price > s.price "
                  "WITHIN 100 ms")
SREMO_STOCK = ("(mark {~.type = 'BUY' AND ~.name = 'INTC'} -> r ; {TRUE}* ; "
               "mark {~.type = 'SELL' AND ~.name = 'INTC' AND ~.price < r.price})"
               "[WITHIN 300 ms]")
WAYEB_STOCK = str(Path(__file__).resolve().parents[1] / "examples" / "stocks" / "intc.sre")


@pytest.fixture(scope="module")
def stocks(spark):
    frame = read_events(spark, STOCKS, limit=STOCK_EVENTS)
    frame.df.cache()
    yield frame, load_events(STOCKS, limit=STOCK_EVENTS)
    frame.df.unpersist()


@pytest.mark.parametrize(("name", "text", "policy", "window", "cut"), [
    ("nfa-chain", OPERATOR_STOCK, "any", "inclusive", "partitions (Def. 6): by name"),
    ("srt", SREMO_STOCK, "stream", "inclusive", "time slices"),
    ("srt", WAYEB_STOCK, "stream", "strict", "slices by position"),
])
def test_one_pattern_per_family_on_the_stock_stream(stocks, name, text, policy, window, cut):
    frame, s = stocks
    if text.endswith(".sre"):
        with open(text, encoding="utf-8") as f:
            text = f.read()
    pattern = detect_language(text).parse(text, "<stock>")
    said: list[str] = []
    query = Query.of(pattern, policy=policy, reading=window)
    got = collect_matches(match_frame(frame, query, engine=name, explain=said.append))
    compiled = engine(name).compile(query.with_time_unit(s.time_unit))
    expected = set(compiled.run(s))
    assert len(expected) > 20
    assert sorted(got) == sorted(expected)
    assert cut in said[0], said


def test_an_unsupported_policy_is_one_line_before_any_job(spark):
    p = detect_language(SREMO_STOCK).parse(SREMO_STOCK, "<stock>")
    df = spark.createDataFrame([(0, "BUY")], "ts bigint, type string")
    sc = spark.sparkContext
    sc.setJobGroup("kleene-unsupported", "kleene-unsupported")
    try:
        # nfa-chain has no OR (nfa-multichain has): unsupported on the driver too
        with_or = "PATTERN SEQ(BUY b, OR(SELL s, BUY t)) WITHIN 100 ms"
        for name, policy, text in [("srt", "literal", "Def. 18 read literally"),
                                   ("nfa-chain", "any", "operator:disjunction")]:
            pattern = p if name == "srt" else detect_language(with_or).parse(with_or, "<stock>")
            with pytest.raises(Unsupported) as err:
                match_dataframe(df, pattern, engine=name, policy=policy)
            assert text in str(err.value) and "\n" not in str(err.value)
    finally:
        sc.setLocalProperty("spark.jobGroup.id", None)
    assert sc.statusTracker().getJobIdsForGroup("kleene-unsupported") == []
