"""Every engine family streams: continuous == batch == single process == reference
(issue 14, items 2 and 4).

An operator pattern (seed 003, ``nfa-chain``, policy ``any``) and a SREMO
expression under a time window (seed 004, ``srt``, policy ``stream``), each on
a generated stream cut into Parquet files at drawn rows and taken a drawn
number of files per micro-batch. The continuous output must hold every match
once and equal the batch runner's, the single-process engine's and the
reference's on the whole stream (the expected values never come from the
streaming code). Few examples: a streaming query costs seconds; the Spark
session is the shared one of tests/conftest.py.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from kleene.cli import main
from kleene.conformance.differential import reported_matches
from kleene.conformance.sremo_strategies import sremo_expressions
from kleene.conformance.strategies import operator_patterns, streams, typed_streams
from kleene.engines.registry import engine
from kleene.engines.spark import collect_matches, match_frame
from kleene.engines.spark.frames import from_stream
from kleene.engines.spark.stream import ContinuousMatch
from kleene.engines.spark.stream.contract import finality
from kleene.engines.spark.stream.replay import chop, write_part
from kleene.reference.budget import Budget
from kleene.reference.durations import Duration
from kleene.reference.errors import BudgetExceeded, Unsupported
from kleene.reference.events import Stream
from kleene.reference.query import Query
from kleene.reference.sremo.expressions import Window
from tests.helpers import after_spark_start

pytestmark = pytest.mark.spark

FEW = settings(max_examples=3, deadline=None,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def table_of(s: Stream, columns: tuple[str, ...]) -> pa.Table:
    return pa.table({"ts": pa.array([e.ts for e in s], pa.int64()),
                     **{c: [e.value(c) for e in s] for c in columns}})


def decidable(name: str, pattern, policy: str) -> bool:
    """The query can run continuously (the refusals are tested on their own)."""
    try:
        eng = engine(name)
        eng.compile(Query.of(pattern, policy=policy, time_unit=None))
        finality(eng, Query.of(pattern, policy=policy), watermark=None)
    except Unsupported:
        return False
    return True


def check(spark, name: str, pattern, policy: str, s: Stream, columns: tuple[str, ...],
          at: list[int], per_batch: int) -> None:
    try:
        reference = Query.of(pattern, policy=policy).reference(s, budget=Budget(limit=100_000))
    except BudgetExceeded:
        assume(False)
    single = set(reported_matches(engine(name), policy, pattern, s))
    batch = collect_matches(match_frame(from_stream(spark, s), pattern, engine=name,
                                        policy=policy, tasks=2))
    folder = Path(tempfile.mkdtemp())
    try:
        source = folder / "in"
        source.mkdir()
        for j, part in enumerate(chop(table_of(s, columns), at)):
            write_part(part, source, j, "parquet")
        run = ContinuousMatch(spark, str(source), pattern, output=str(folder / "out.parquet"),
                              checkpoint=str(folder / "ckpt"), policy=policy, engine=name,
                              max_files=per_batch)
        run.run_available()
        run.end()
        written = run.matches()
        streamed = [] if written is None else collect_matches(written)
        assert run.counts()["events"] == len(s) == run.counts()["settled"]
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    assert len(streamed) == len(set(streamed)), "a match was written twice"
    assert set(streamed) == set(batch) == single == set(reference), (pattern, s.to_json())


def cut_points(n: int):
    return st.lists(st.integers(1, max(1, n - 1)), max_size=3, unique=True).map(sorted) \
        if n > 1 else st.just([])


@FEW
@given(pattern=operator_patterns(disjunction=False, optional_window=False),
       s=typed_streams(min_size=2, max_size=14), data=st.data())
def test_an_operator_pattern_streams(spark, pattern, s, data):
    assume(decidable("nfa-chain", pattern, "any"))
    check(spark, "nfa-chain", pattern, "any", s, ("type", "V", "ID"),
          data.draw(cut_points(len(s)), label="cuts"), data.draw(st.integers(1, 2)))


@FEW
@given(e=st.builds(Window, sremo_expressions(max_depth=2), st.integers(1, 6).map(Duration)),
       s=streams(min_size=2, max_size=14), data=st.data())
def test_a_sremo_expression_with_a_time_window_streams(spark, e, s, data):
    assume(decidable("srt", e, "stream"))
    check(spark, "srt", e, "stream", s, ("L", "ID", "V"),
          data.draw(cut_points(len(s)), label="cuts"), data.draw(st.integers(1, 2)))


def test_a_partitioned_sremo_streams(spark):
    # Wayeb's {partitionBy} (PARTITION BY): each ID is a sub-stream; the time slices of
    # the body hold for every part. Hand-checked: A then B of one ID within 3 — ID 1 has
    # A@0, B@4 (too far), A@5, B@7 → {5, 7}; ID 2 has A@1, B@3 → {1, 3}.
    from kleene.reference.sremo import parse_sremo

    e = parse_sremo("(mark {~.L = 'A'} ; {TRUE}* ; mark {~.L = 'B'})[WITHIN 3] PARTITION BY ID")
    rows = [(0, "A", 1), (1, "A", 2), (2, "C", 1), (3, "B", 2), (4, "B", 1), (5, "A", 1),
            (6, "C", 2), (7, "B", 1)]
    s = Stream.from_rows([{"ts": t, "L": x, "ID": i, "V": 0} for t, x, i in rows])
    assert {m.positions for m in Query.of(e, policy="stream").reference(s)} == \
        {(5, 7), (1, 3)}
    check(spark, "srt", e, "stream", s, ("L", "ID", "V"), [3, 5], 1)


# ---------------------------------------------------------------- refusals


@pytest.mark.parametrize(("text", "name", "expected"), [
    ("(mark {~.L = 'A'} ; mark {~.L = 'B'})[1..3]", "q.sremo",
     "the pattern's window [1..3] counts positions; a continuous run needs one in time"),
    ("({~.L = 'C'} ; mark {~.L = 'A'})[WITHIN 3]", "q.sremo",   # reads before its first mark
     "policy 'stream' cannot be decided before the stream ends: the sremo pattern has no "
     "time window bounding what a match reads (slices: none"),
])
def test_a_window_or_partition_a_stream_cannot_keep_is_one_line(tmp_path, capsys, text, name,
                                                                expected):
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "part-0.csv").write_text("ts,type,L,id\n0,A,A,1\n")
    (tmp_path / name).write_text(text)
    code = main(["stream", "--pattern", str(tmp_path / name), "--source", str(tmp_path / "in"),
                 "--output", str(tmp_path / "o.parquet"), "--checkpoint", str(tmp_path / "ck"),
                 "--policy", "stream", "--once"])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err, err
    assert expected in after_spark_start(err)[0]   # a pattern error adds its line and a caret
    assert not (tmp_path / "ck" / "spark").exists()
