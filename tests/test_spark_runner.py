"""The Spark runner gives the single-process results (issue 5; docs/architecture.md, "Spark").

Expected values come from the single-process engines and the reference, never
from the runner. Many generated cases run in one Spark job: each case is a
stream of one DataFrame (column ``case``, positions given), so one job per
(pattern, engine, policy) checks them all. The reference itself, wrapped as an
engine that claims every policy, runs on Spark too, so the cuts of every policy
are exercised on Spark, not only those of the policies the engines implement.
"""

from __future__ import annotations

import sys
from collections.abc import Hashable, Iterable, Iterator
from dataclasses import dataclass, replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pyspark import cloudpickle

from kleene.conformance.differential import assert_same_matches, reference_matches, reported_matches
from kleene.conformance.strategies import ses_patterns, streams
from kleene.data.bundled import bundled
from kleene.data.loaders import load_events
from kleene.engines.protocol import (
    Counters,
    Engine,
    Feature,
    Transition,
    WindowReading,
    all_features,
    claims_policy,
)
from kleene.engines.registry import engine, engine_names
from kleene.engines.spark import collect_matches, match_dataframe, write_matches
from kleene.engines.spark.frames import EventFrame, read_events
from kleene.engines.spark.layout import murmur3_int, surrogates
from kleene.engines.spark.runner import match_frame
from kleene.engines.spark.worker import FAIL_ONCE, match_id
from kleene.reference.budget import Budget
from kleene.reference.errors import BudgetExceeded, Unsupported
from kleene.reference.events import Event, Stream
from kleene.reference.match import Match
from kleene.reference.query import Query
from kleene.reference.ses.pattern import SESPattern
from kleene.reference.ses.policies import POLICIES, matches
from kleene.reference.ses.text import parse_ses
from tests.helpers import frame_of, small_jobs

pytestmark = pytest.mark.spark

# The reference engine below is defined here, so tasks receive it by value.
cloudpickle.register_pickle_by_value(sys.modules[__name__])

STOCKS = str(bundled("stocks.stream.gz"))
STOCK_EVENTS = 20_000
EVERY_ENGINE_EVENTS = 4_000
KEYED = ("PATTERN <{b, s}> WHERE b.type = 'BUY' AND s.type = 'SELL' AND b.name = s.name "
         "WITHIN 500 ms")
UNKEYED = ("PATTERN <{b, s}> WHERE b.type = 'BUY' AND s.type = 'SELL' AND b.price > s.price "
           "WITHIN 500 ms")


@dataclass
class ReferenceRun:
    """The reference semantics behind the :class:`~kleene.engines.protocol.Compiled` API."""

    pattern: SESPattern
    policy: str
    time_unit: str | None
    initial: frozenset[Hashable] = frozenset()
    accepting: frozenset[Hashable] = frozenset()
    reading: WindowReading = "inclusive"

    def iter_transitions(self) -> Iterator[Transition]:
        return iter(())

    def run(self, events: Iterable[Event], *, counters: Counters | None = None,
            budget: Budget | None = None) -> Iterator[Match]:
        s = Stream(tuple(events), self.time_unit)
        yield from sorted(matches(self.pattern, s, self.policy, budget=Budget(limit=10**6),
                                  reading=self.reading))


@dataclass(frozen=True)
class ReferenceEngine:
    """The reference as an engine that claims every policy."""

    name: str = "reference"
    capabilities: frozenset[Feature] = all_features()

    def compile(self, query: Query) -> ReferenceRun:
        assert isinstance(query.pattern, SESPattern)
        return ReferenceRun(query.pattern, query.policy, query.time_unit, reading=query.reading)


def _claimed() -> list[tuple[str, str]]:
    return [(n, p) for n in engine_names() for p in POLICIES
            if Feature("ses") in engine(n).capabilities and claims_policy(engine(n), "ses", p)]


def _unclaimed() -> list[tuple[str, str]]:
    return [(n, "next") for n in engine_names()
            if Feature("ses") in engine(n).capabilities
            and not any(claims_policy(engine(n), "ses", p) for p in POLICIES)]


#: (engine, policy) runs: every SES engine under each policy it claims, the
#: engines that claim none under ``next`` (they run whole), the reference under all.
RUNS: list[tuple[str | Engine, str]] = [*_claimed(), *_unclaimed(),
                                        *[(ReferenceEngine(), p) for p in POLICIES]]


def expected_matches(eng: str | Engine, policy: str, pattern, s: Stream) -> set[Match]:
    """What a single process computes: the engine's run, or the reference."""
    if isinstance(eng, str):
        return set(reported_matches(engine(eng), policy, pattern, s))
    return reference_matches(pattern, s, policy, budget=Budget(limit=200_000))


#: Two patterns per example, each on up to six streams; the minimal example
#: (single-variable patterns, which Hypothesis tries first) is not worth a job each.
BATCH = st.lists(st.tuples(ses_patterns(max_sets=3, max_vars=3),
                           st.lists(streams(min_size=1, max_size=9), min_size=1, max_size=6),
                           st.lists(st.integers(0, 16), max_size=2, unique=True)),
                 min_size=2, max_size=2).filter(
    lambda batch: all(len(p.names) >= 2 for p, _, _ in batch))


@settings(max_examples=2, deadline=None)
@given(batch=BATCH)
def test_generated_cases_equal_the_single_process_results(spark, batch):
    with small_jobs(spark):
        check_batch(spark, batch)


def check_batch(spark, batch) -> None:
    """Every run of :data:`RUNS` on every case of ``batch`` equals its single-process result."""
    for pattern, cases, cuts in batch:
        df = frame_of(spark, cases, ("L", "ID", "V")).coalesce(1).cache()
        for eng, policy in RUNS:
            try:
                want = [expected_matches(eng, policy, pattern, s) for s in cases]
            except (Unsupported, BudgetExceeded):
                continue
            got = collect_matches(match_dataframe(
                df, pattern, engine=eng, policy=policy, position="pos", streams=("case",),
                slices=cuts, tasks=1), ("case",))
            named = engine(eng) if isinstance(eng, str) else eng
            for c, (s, w) in enumerate(zip(cases, want, strict=True)):
                assert_same_matches(named, pattern=pattern, stream=s, got=got.get((c,), []),
                                    expected=w, policy=policy)
        df.unpersist()


def test_each_slice_is_its_own_spark_partition(spark):
    from pyspark.sql import functions as F

    n = 7
    df = spark.range(n * 3).select((F.col("id") % n).cast("int").alias("slice"))
    part = F.element_at(F.array(*[F.lit(x) for x in surrogates(n)]), F.col("slice") + 1)
    placed = (df.withColumn("part", part).repartition(n, "part")
              .select("slice", F.spark_partition_id().alias("pid")).distinct().collect())
    assert sorted((r["slice"], r["pid"]) for r in placed) == [(j, j) for j in range(n)]
    assert [r[0] for r in spark.range(3).select(F.hash(F.col("id").cast("int"))).collect()] \
        == [murmur3_int(i) for i in range(3)]


# ---------------------------------------------------------------- the stock stream


#: the stock events as Spark reads them and as the loader does
Stocks = tuple[EventFrame, Stream]


@pytest.fixture(scope="module")
def stocks(spark):
    """The first events of the stock stream: read by Spark (SQL reader) and by the loader."""
    frame = read_events(spark, STOCKS, limit=STOCK_EVENTS)
    frame.df.cache()
    yield frame, load_events(STOCKS, limit=STOCK_EVENTS)
    frame.df.unpersist()


def first(frame: EventFrame, s: Stream, n: int) -> tuple[EventFrame, Stream]:
    """The first ``n`` events of both."""
    return (replace(frame, df=frame.df.filter(frame.df[frame.position] < n), count=n),
            Stream(s.events[:n], s.time_unit))


def test_stock_slice_equals_every_engine_under_each_claimed_policy(spark, stocks: Stocks):
    frame, s = first(*stocks, EVERY_ENGINE_EVENTS)
    pattern = parse_ses(KEYED)
    for eng, policy in _claimed():
        with small_jobs(spark):
            got = collect_matches(match_frame(frame, pattern, engine=eng, policy=policy,
                                              tasks=3))
        want = set(reported_matches(engine(eng), policy, pattern, s))
        assert want, (eng, policy)
        assert_same_matches(engine(eng), pattern=pattern, stream=s, got=got, expected=want,
                            policy=policy)


@pytest.mark.parametrize("text", [KEYED, UNKEYED], ids=["keyed", "time-sliced"])
def test_stock_stream_next(stocks, text):
    frame, s = stocks
    pattern = parse_ses(text)
    got = collect_matches(match_frame(frame, pattern, policy="next"))
    want = set(reported_matches(engine("ses-automaton"), "next", pattern, s))
    assert len(want) > 1000
    assert_same_matches(engine("ses-automaton"), pattern=pattern, stream=s, got=got,
                        expected=want, policy="next")


def test_positions_are_the_loaders_row_numbers(stocks):
    frame, s = stocks
    rows = frame.df.select(frame.position, "id", "stock_time").collect()
    assert sorted((r[0], r[1], r[2]) for r in rows) == \
        [(e.position, e.attrs["id"], e.ts) for e in s]


def test_match_ids_are_canonical_and_columns_are_copied(stocks):
    frame, s = stocks
    pattern = parse_ses(KEYED)
    out = match_frame(frame, pattern, policy="next", columns=["name", "price"]).collect()
    assert out
    by_id: dict[str, dict[str, list[int]]] = {}
    for r in out:
        e = s[r["position"]]
        assert (r["name"], r["price"]) == (e.attrs["name"], e.attrs["price"])
        by_id.setdefault(r["match_id"], {}).setdefault(r["variable"], []).append(r["position"])
    assert all(ident == match_id(Match.of(m)) for ident, m in by_id.items())


def test_a_failed_task_is_retried_without_duplicates(spark, stocks: Stocks, tmp_path, monkeypatch):
    frame, s = first(*stocks, EVERY_ENGINE_EVENTS)
    pattern = parse_ses(KEYED)
    clean = collect_matches(match_frame(frame, pattern, policy="any"))
    # partition 0: adaptive execution may coalesce this small keyed layout into one
    monkeypatch.setenv(FAIL_ONCE, "0")
    spark.sparkContext.setJobGroup("kleene-fault", "a task fails once")
    try:
        write_matches(match_frame(frame, pattern, policy="any"), str(tmp_path / "m.parquet"))
    finally:
        spark.sparkContext.setLocalProperty("spark.jobGroup.id", None)
    tracker = spark.sparkContext.statusTracker()
    failed = sum(tracker.getStageInfo(stage).numFailedTasks
                 for job in tracker.getJobIdsForGroup("kleene-fault")
                 for stage in tracker.getJobInfo(job).stageIds
                 if tracker.getStageInfo(stage) is not None)
    assert failed >= 1   # the injected failure happened, and the job still succeeded
    written = collect_matches(spark.read.parquet(str(tmp_path / "m.parquet")))
    assert sorted(written) == sorted(clean)       # nothing lost, nothing twice
    assert len(set(written)) == len(written)
    assert set(written) == set(reported_matches(engine("ses-automaton"), "any", pattern, s))
