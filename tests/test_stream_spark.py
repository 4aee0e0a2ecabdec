"""Continuous matching equals batch, single-process and reference (issue 14, items 2–4).

A generated stream is chopped into files at random rows and replayed into a
directory (:mod:`kleene.engines.spark.stream.replay`); the streaming query
takes a random number of files per micro-batch. Its output must hold every
match once and equal the batch runner's on the whole stream, the
single-process engine's and the reference's (the expected values never come
from the streaming code). Bad input is one line before any query starts.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pyarrow as pa
import pytest

from bench.stream_spark import generated_table
from kleene.cli import main
from kleene.conformance.differential import reference_matches, reported_matches
from kleene.data.bundled import bundled
from kleene.engines.registry import engine
from kleene.engines.spark import collect_matches, match_frame
from kleene.engines.spark.frames import from_stream
from kleene.engines.spark.stream import ContinuousMatch, StreamSetupError
from kleene.engines.spark.stream.replay import arrive, chop, cuts, write_part
from kleene.reference.errors import PatternError, StreamError, Unsupported
from kleene.reference.events import Stream
from kleene.reference.languages import detect_language
from tests.helpers import after_spark_start

pytestmark = pytest.mark.spark

PATTERN = ("PATTERN <{a, b+}, {c}> WHERE a.type = 'A' AND b.type = 'B' AND c.type = 'C' "
           "AND a.id = c.id WITHIN 6")


def as_stream(table: pa.Table) -> Stream:
    from kleene.data.columnar import validated

    columns, _ = validated(table, ts="ts", type="type", source="<test>")
    return Stream.from_columns(columns, None)


def replayed(table: pa.Table, folder: Path, at: list[int], fmt: str) -> Path:
    source = folder / "in"
    source.mkdir()
    for j, part in enumerate(chop(table, at)):
        write_part(part, source, j, fmt)
    return source


@pytest.mark.parametrize(("eng", "policy", "fmt", "seed"), [
    ("windows+ses", "any", "csv", 1),
    ("ses-automaton", "next", "parquet", 2),
])
def test_continuous_equals_batch_single_process_and_reference(spark, tmp_path, eng, policy,
                                                              fmt, seed):
    rng = random.Random(seed)
    table = generated_table(seed, 160)
    source = replayed(table, tmp_path, cuts(table.num_rows, 4, rng), fmt)
    pattern = detect_language(PATTERN).parse(PATTERN, "<test>")
    run = ContinuousMatch(spark, str(source), pattern, output=str(tmp_path / "out.parquet"),
                          checkpoint=str(tmp_path / "ckpt"), policy=policy, engine=eng,
                          max_files=rng.randint(1, 2))
    run.run_available()
    run.end()
    streamed = collect_matches(run.matches())
    stream = as_stream(table)
    single = reported_matches(engine(eng), policy, pattern, stream)
    reference = reference_matches(pattern, stream, policy)
    batch = collect_matches(match_frame(from_stream(spark, stream), pattern, engine=eng,
                                        policy=policy))
    assert len(streamed) == len(set(streamed)), "a match was written twice"
    assert set(streamed) == set(single) == reference == set(batch)
    assert len(reference) >= 4                     # the stream is not trivially empty
    assert run.counts()["events"] == table.num_rows == run.counts()["settled"]
    with pytest.raises(StreamSetupError, match="this stream was ended"):
        ContinuousMatch(spark, str(source), pattern, output=str(tmp_path / "out.parquet"),
                        checkpoint=str(tmp_path / "ckpt"), policy=policy, engine=eng)


def test_late_and_malformed_rows_are_counted_and_written(spark, tmp_path):
    source = tmp_path / "in"
    source.mkdir()
    files = ["ts,type,id\n0,A,1\n1,B,1\n2,C,1\n20,A,2\n",
             "ts,type,id\n30,B,2\n31,C,2\n",
             "ts,type,id\n5,C,1\nxx,A,1\n33,A,3\n"]    # ts 5 < watermark 31 − 6; xx: no number
    for j, text in enumerate(files):
        path = source / f"part-{j}.csv"
        path.write_text(text)
        arrive(path, j)
    run = ContinuousMatch(spark, str(source), PATTERN, output=str(tmp_path / "out.jsonl"),
                          checkpoint=str(tmp_path / "ckpt"), max_files=1,
                          schema="ts BIGINT, type STRING, id BIGINT")
    run.run_available()
    run.end()
    counts = run.counts()
    assert (counts["events"], counts["late"], counts["rejected"]) == (9, 1, 1)
    aside = [json.loads(line) for p in sorted((tmp_path / "out.jsonl" / "_late").rglob("*.json"))
             for line in p.read_text().splitlines()]
    reasons = sorted(r["reason"].split(":")[0] for r in aside)
    assert reasons == ["late", "missing timestamp"] or reasons == ["late", "malformed row"]
    # Without the two rows set aside, the stream is 0..33 in order; by hand: a0 b1 c2 is
    # the only match (a20's c31 is beyond 6; a33 has no b and c after it).
    assert collect_matches(run.matches()) == [_m(a=[0], b=[1], c=[2])]


def _m(**bindings):
    from kleene.reference.match import Match

    return Match.of(bindings)


# ---------------------------------------------------------------- bad input


@pytest.fixture
def source(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "part-0.csv").write_text("ts,type,id\n0,A,1\n")
    return folder


def _cli(tmp_path, capsys, source, *extra, pattern=PATTERN):
    (tmp_path / "p.ses").write_text(pattern)
    code = main(["stream", "--pattern", str(tmp_path / "p.ses"), "--source", str(source),
                 "--output", str(tmp_path / "o.parquet"), "--checkpoint",
                 str(tmp_path / "ck"), "--once", *extra])
    err = capsys.readouterr().err
    return code, err


@pytest.mark.parametrize(("extra", "pattern", "expected"), [
    (["--schema", "time BIGINT, type STRING, id BIGINT"], PATTERN,
     "no timestamp column 'ts'; columns: time, type, id"),
    (["--schema", "ts BOOLEAN, type STRING, id BIGINT"], PATTERN,
     "field 'ts': the timestamp column has type boolean"),
    (["--watermark", "3"], PATTERN,
     "the watermark (3) is shorter than the pattern's window (6"),
    ([], "mark {~.type = 'A'} ; {TRUE}* ; mark {~.type = 'C'}",
     "policy 'stream' cannot be decided before the stream ends: the sremo pattern has no "
     "time window"),
    (["--schema", "ts BIGINT, type STRING"], PATTERN, "the pattern reads id"),
])
def test_bad_input_is_one_line_before_the_query(spark, tmp_path, capsys, source, extra,
                                                 pattern, expected):
    policy = ["--policy", "stream"] if pattern.startswith("mark") else []
    code, err = _cli(tmp_path, capsys, source, *extra, *policy, pattern=pattern)
    assert code == 2 and len(after_spark_start(err)) == 1, err
    assert expected in err
    assert not (tmp_path / "ck" / "spark").exists()      # no query was started


def test_the_cli_prints_what_the_stream_does_not_the_batch_plan(spark, tmp_path, capsys,
                                                                source):
    # PATTERN joins a and c on id: the batch plan partitions by id and cuts time slices;
    # a continuous run does neither (one group on the driver), so neither is printed.
    code, err = _cli(tmp_path, capsys, source)
    first = after_spark_start(err)[0]
    assert code == 0, err
    assert "partitions" not in err and "slices" not in err, first
    assert first.endswith(
        ", policy any; filter (Thm 1): applied, 'any' is filter-invariant; final: a match "
        "once the watermark (largest ts − 6) passes its first event's ts + 1τ (τ = 6); "
        "state: the events with ts ≥ the watermark, and those the filter keeps with "
        "ts ≥ the watermark − 1τ"), first


def test_api_errors_are_typed(spark, tmp_path, source):
    with pytest.raises(StreamError):
        ContinuousMatch(spark, str(source), PATTERN, output=str(tmp_path / "o"),
                        checkpoint=str(tmp_path / "c"), ts="time")
    with pytest.raises(Unsupported):
        ContinuousMatch(spark, str(source), "mark {~.type = 'A'}", policy="stream",
                        output=str(tmp_path / "o"), checkpoint=str(tmp_path / "c"))
    with pytest.raises((PatternError, StreamError)):
        ContinuousMatch(spark, str(source), PATTERN.replace("a.id", "a.idx"),
                        output=str(tmp_path / "o"), checkpoint=str(tmp_path / "c"))


def test_the_demo_matches_the_batch_runner_across_a_restart(spark):
    import io

    from kleene.cli.demo_stream import run_stream_demo

    data = bundled("stocks.stream.gz")
    out = io.StringIO()
    assert run_stream_demo(spark, data, out, events=8_000, files=4), out.getvalue()
    text = out.getvalue()
    assert "restarts from the checkpoint" in text and "✓" in text
    assert text.count(" final (watermark ") == 5            # 4 files, then the end
