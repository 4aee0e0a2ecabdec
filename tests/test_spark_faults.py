"""Batch under faults: a task that fails on its first attempt, and skewed keys, give
the matches of the single-process engine (issue 14, item 3).

The session of tests/conftest.py is ``local[2,2]`` (Spark's ``local[N,F]``: a
failed task is tried again, up to F attempts). :data:`FAIL_ONCE` makes the
first attempt of one partition fail after it has emitted match rows, so a
retried task whose first output leaked would show as a duplicate. The stream
is skewed: one key (``name = 'HOT'``) holds about nine events in ten, so
partitioning by Def. 6 keys alone (``slices=1``) puts nearly everything in
one task; the default layout cuts that key by time slices too. Executor loss
(``local-cluster``) is measured by ``python -m bench stream-faults``, which
starts its own cluster (a minute or more here).
"""

from __future__ import annotations

import random

import pytest
from pyspark.sql import functions as F

from kleene.conformance.differential import reported_matches
from kleene.engines.registry import engine
from kleene.engines.spark import collect_matches, match_frame
from kleene.engines.spark.frames import from_stream
from kleene.engines.spark.worker import FAIL_ONCE
from kleene.reference.events import Stream
from kleene.reference.languages import detect_language
from kleene.reference.query import Query

pytestmark = pytest.mark.spark

EVENTS = 2_000
#: One pattern per family that partitions by keys (Def. 6) or cuts time slices.
FAMILIES = [
    ("windows+ses", "any", "PATTERN <{b, s}> WHERE b.type = 'BUY' AND s.type = 'SELL' "
                           "AND b.name = s.name AND b.price > s.price WITHIN 6 ms"),
    ("nfa-chain", "any", "PATTERN SEQ(BUY b, SELL s) WHERE b.name = s.name "
                         "AND b.price > s.price WITHIN 6 ms"),
    ("srt", "stream", "(mark {~.type = 'BUY' AND ~.name = 'HOT'} -> r ; {TRUE}* ; "
                      "mark {~.type = 'SELL' AND ~.price < r.price})[WITHIN 6 ms]"),
]


def skewed(seed: int = 3) -> Stream:
    """``EVENTS`` events, ties in ``ts``; ``name`` is ``HOT`` nine times in ten."""
    rng = random.Random(seed)
    rows, ts = [], 0
    for _ in range(EVENTS):
        ts += rng.choice((0, 1, 1, 2))
        rows.append({"ts": ts, "type": rng.choice(("BUY", "SELL")),
                     "name": "HOT" if rng.random() < 0.9 else rng.choice(("A", "B", "C")),
                     "price": rng.randint(1, 9)})
    return Stream.from_rows(rows, time_unit="ms")


@pytest.fixture(scope="module")
def stream_and_frame(spark):
    s = skewed()
    frame = from_stream(spark, s)
    frame.df.cache()
    yield s, frame
    frame.df.unpersist()


def failed_tasks(spark, group: str) -> int:
    tracker = spark.sparkContext.statusTracker()
    return sum(tracker.getStageInfo(stage).numFailedTasks
               for job in tracker.getJobIdsForGroup(group)
               for stage in tracker.getJobInfo(job).stageIds
               if tracker.getStageInfo(stage) is not None)


@pytest.mark.parametrize(("name", "policy", "text"), FAMILIES)
def test_skewed_keys_and_a_failed_task_give_the_single_process_matches(
        spark, stream_and_frame, monkeypatch, name, policy, text):
    s, frame = stream_and_frame
    pattern = detect_language(text).parse(text, "<test>")
    expected = set(reported_matches(engine(name), policy, pattern, s))
    assert len(expected) >= 20                    # the stream is not trivially empty
    layouts = {"default": None, "keys only": 1}
    for label, slices in layouts.items():
        got = collect_matches(match_frame(frame, pattern, engine=name, policy=policy, tasks=4,
                                          slices=slices))
        assert len(got) == len(set(got)), label
        assert set(got) == expected, label
    # The partition with the most match rows fails once, after emitting some of them.
    rows = match_frame(frame, pattern, engine=name, policy=policy, tasks=4) \
        .groupBy(F.spark_partition_id().alias("p")).count().orderBy(F.desc("count")).first()
    monkeypatch.setenv(FAIL_ONCE, str(rows["p"]))
    group = f"kleene-fault-{name}"
    spark.sparkContext.setJobGroup(group, "a task fails once")
    try:
        got = collect_matches(match_frame(frame, pattern, engine=name, policy=policy, tasks=4))
    finally:
        spark.sparkContext.setLocalProperty("spark.jobGroup.id", None)
    assert failed_tasks(spark, group) >= 1        # the injected failure happened
    assert len(got) == len(set(got)), "a retried task's output reached the result twice"
    assert set(got) == expected


def test_keys_only_puts_the_hot_key_in_one_task(spark, stream_and_frame):
    """The skew is real: with ``slices=1`` one partition holds the hot key's events."""
    from kleene.engines.spark.runner import prepare

    s, frame = stream_and_frame
    run = prepare(frame, Query.ask(FAMILIES[0][2], policy="any"), engine="windows+ses",
                  tasks=4, slices=1)
    sizes = [r["count"] for r in run.events.groupBy(F.spark_partition_id()).count().collect()]
    hot = sum(1 for e in s if e.value("name") == "HOT")
    assert max(sizes) >= hot * 0.8 and "by name" in run.explain()
