"""Many small (query, events) pairs as one Spark job (engines/spark/batch.py, issue 14).

Expected values are the case files' (the papers' worked examples) and the
single-process engines'; the job count is read from Spark's status tracker.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kleene.cli import demo_engines
from kleene.cli.demo_spark import SparkBackend, worked_examples
from kleene.conformance.backends import EngineBackend
from kleene.conformance.cases import Case, CaseTest, load_case_files
from kleene.conformance.runner import PASS, claimed_requests, run_test
from kleene.engines.registry import engine
from kleene.engines.spark.batch import Pair, match_many

pytestmark = pytest.mark.spark

CASES = Path(__file__).resolve().parent.parent / "conformance" / "cases"
ENGINES = ("windows+ses", "nfa-chain", "nfa-tree", "srt")


def worked() -> list[tuple[Case, CaseTest]]:
    files = [f for f in load_case_files(CASES) if not f.name.endswith("-generated.json")]
    return [(case, test) for f in files for case in f.cases for test in case.tests]


def jobs(spark, group: str, action):
    """The result of ``action()`` and the number of Spark jobs it ran."""
    sc = spark.sparkContext
    sc.setJobGroup(group, group)
    try:
        out = action()
    finally:
        sc.setLocalProperty("spark.jobGroup.id", None)
    return out, len(sc.statusTracker().getJobIdsForGroup(group))


def test_every_worked_example_of_every_family_in_one_job(spark):
    cases = worked()
    rows, count = jobs(spark, "kleene-worked", lambda: worked_examples(spark, cases, ENGINES))
    assert count == 1
    local = demo_engines.worked_examples(cases, ENGINES)
    assert [(r.engine, r.matches, r.agree, r.events) for r in rows] == \
        [(r.engine, r.matches, r.agree, r.events) for r in local]
    assert {r.engine for r in rows if r.agree} >= {"windows+ses", "srt"}


def test_the_batch_answers_as_the_single_process_engine(spark):
    # the same verdict per test, through the same runner, for one family each
    cases = worked()
    for name in ("nfa-chain", "srt"):
        on_spark, local = SparkBackend(spark, name), EngineBackend(engine(name))
        on_spark.prefetch(claimed_requests(on_spark, cases))
        verdicts = [(run_test(on_spark, c, t).status, run_test(local, c, t).status)
                    for c, t in cases if t.check == "matches"]
        assert sum(a == PASS for a, _ in verdicts) > 10
        assert all(a == b for a, b in verdicts)   # failures too: the engine's own


def test_errors_stay_with_their_pair(spark):
    events = ({"ts": 0, "type": "A"}, {"ts": 1, "type": "B"})
    pairs = [
        Pair("nfa-chain", "operator", "PATTERN SEQ(A a, B b) WITHIN 5", "any", events=events),
        # nfa-chain has no OR: found on the driver, no task runs it
        Pair("nfa-chain", "operator", "PATTERN SEQ(A a, OR(B b, C c)) WITHIN 5", "any",
             events=events),
        # a bad event: found in the task, for this pair only
        Pair("srt", "sremo", "mark {~.type = 'A'}", "literal", events=({"ts": "x"},)),
        # the literal SREMO's empty match travels too (it has no event)
        Pair("srt", "sremo", "{TRUE}*", "literal", events=events),
    ]
    answers, count = jobs(spark, "kleene-errors", lambda: match_many(spark, pairs))
    assert count == 1
    assert [str(m) for m in answers[0].matches] == ["{a/[0], b/[1]}"]
    assert answers[1].error is not None and answers[1].error[0] == "unsupported"
    assert answers[2].error is not None and "ts" in answers[2].error[1]
    assert [m.dumps() for m in answers[3].matches] == ["{}"]


def test_no_job_when_every_pair_fails_on_the_driver(spark):
    pairs = [Pair("srt", "operator", "PATTERN SEQ(A a) WITHIN 5", "any")]
    answers, count = jobs(spark, "kleene-none", lambda: match_many(spark, pairs))
    assert count == 0 and answers[0].error is not None
