"""``kleene stream`` on ``MATCH_RECOGNIZE`` equals the batch answer, and a kill loses and
duplicates nothing (issue 30, item 2).

On Spark (the shared session): the V shape of ``examples/ticks`` over generated ticks cut
into CSV files at drawn rows, one file per micro-batch, ``ONE ROW PER MATCH`` and ``ALL
ROWS PER MATCH``, and a clause without ``PARTITION BY``; the oracle is the single
process's answer on the whole table, each key's rows in order. The command itself,
killed with SIGKILL mid-stream and restarted from its checkpoint, at one random point
(``python -m bench stream-mr`` at ten). The refusals are one line before any job.
The driver's equality with the batch on every recognition of Kleene's and Oracle's
files is ``tests/test_stream_mr_driver.py`` (no Spark).
"""

from __future__ import annotations

import random
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from bench.stream_faults import kill_and_restart, latest_meta
from bench.stream_mr import (
    STATEMENT,
    lost_and_twice,
    mr_case,
    ticks_table,
    written_rows,
)
from kleene.data.sql import table_of
from kleene.engines.spark.stream.recognition import ONE_KEY, ContinuousRecognition
from kleene.engines.spark.stream.replay import chop, cuts, write_part
from kleene.reference.errors import KleeneError, Unsupported
from kleene.reference.match_recognize.ast import MatchRecognize, Statement
from kleene.reference.match_recognize.semantics import recognize
from kleene.reference.query import Query

pytestmark = pytest.mark.spark

ALL_ROWS = STATEMENT.replace("ONE ROW PER MATCH", "ALL ROWS PER MATCH")
ONE_KEY_STATEMENT = STATEMENT.replace("PARTITION BY sym\n", "").replace(
    "PATTERN (STRT DOWN+ UP+)", "PATTERN (STRT DOWN+? UP)")


def _recognized(query: Query) -> MatchRecognize:
    statement = query.pattern
    assert isinstance(statement, Statement)
    return statement.recognitions[0].clause


def _keyed(rows: list[tuple[object, ...]], width: int) -> dict[Any, list[tuple[object, ...]]]:
    out: dict[Any, list[tuple[object, ...]]] = defaultdict(list)
    for row in rows:
        out[row[:width]].append(row)
    return dict(out)


@pytest.mark.slow
@pytest.mark.parametrize("statement,width", [(STATEMENT, 1), (ALL_ROWS, 1),
                                             (ONE_KEY_STATEMENT, 0)])
def test_stream_equals_batch(spark: Any, tmp_path: Path, statement: str, width: int) -> None:
    table = ticks_table(3, 300, symbols=4)
    source = tmp_path / "in"
    source.mkdir()
    for j, part in enumerate(chop(table, cuts(table.num_rows, 5, random.Random(width)))):
        write_part(part, source, j, "csv")
    query = Query.parse(statement)
    run = ContinuousRecognition(spark, str(source), query, output=str(tmp_path / "o.parquet"),
                                checkpoint=str(tmp_path / "ckpt"), max_files=1)
    assert run.notes == (() if width else (ONE_KEY,))
    run.run_available()
    before_end = run.counts()["matches"]
    run.end()
    clause = _recognized(query)
    expected = list(recognize(clause, table_of(table)).rows)
    got = written_rows(tmp_path / "o.parquet")
    assert _keyed(got, width) == _keyed(expected, width)
    assert len(expected) >= 10 and before_end >= len(expected) // 2   # final before the end


@pytest.mark.slow
def test_sigkill_mid_stream_then_restart_writes_every_row_once(tmp_path: Path) -> None:
    case = mr_case(tmp_path, events=200, files=4, seed=7)
    crash = kill_and_restart(case.command("--max-files", "1"), case.checkpoint, after=1,
                             delay=0.05, log=tmp_path / "log")
    assert 1 <= crash.committed_at_kill < 4, "the kill did not fall mid-stream"
    got = written_rows(case.out)
    assert lost_and_twice(case.expected, got) == (0, 0) and len(case.expected) >= 5
    last = latest_meta(case.checkpoint)
    assert last["ended"] and last["counts"]["events"] == 200


@pytest.mark.parametrize("statement,said", [
    ("SELECT sym FROM ticks MATCH_RECOGNIZE (PARTITION BY sym ORDER BY ts PATTERN (A) "
     "DEFINE A AS price > 0)", "SELECT * FROM <source> MATCH_RECOGNIZE (...) alone"),
    ("SELECT * FROM ticks MATCH_RECOGNIZE (PARTITION BY sym ORDER BY ts DESC PATTERN (A) "
     "DEFINE A AS price > 0)", "ORDER BY <event time column> (ascending) first"),
    ("SELECT * FROM ticks MATCH_RECOGNIZE (PARTITION BY sym ORDER BY ts PATTERN (A) "
     "DEFINE A AS volume > 0)", "reads a column VOLUME the DataFrame has not"),
    ("SELECT * FROM ticks MATCH_RECOGNIZE (PARTITION BY sym ORDER BY ts MEASURES "
     "LAST(price) / FIRST(price) AS r PATTERN (A+) DEFINE A AS price > 0)", "CAST it"),
])
def test_refusals_are_one_line_before_any_job(spark: Any, tmp_path: Path, statement: str,
                                              said: str) -> None:
    source = tmp_path / "in"
    source.mkdir()
    write_part(ticks_table(1, 10), source, 0, "csv")
    with pytest.raises((Unsupported, KleeneError)) as err:
        ContinuousRecognition(spark, str(source), Query.parse(statement),
                              output=str(tmp_path / "o.parquet"),
                              checkpoint=str(tmp_path / "ckpt"))
    assert said in str(err.value) and "\n" not in str(err.value)
    assert not (tmp_path / "ckpt").exists() or not any((tmp_path / "ckpt").iterdir())


def _naive(row: tuple[object, ...]) -> tuple[object, ...]:
    """``row`` with its datetimes in UTC without a zone (Spark's read back, the reference's)."""
    import datetime

    return tuple(v.astimezone(datetime.UTC).replace(tzinfo=None)
                 if isinstance(v, datetime.datetime) and v.tzinfo else v for v in row)


@pytest.mark.slow
def test_a_datetime_event_time(spark: Any, tmp_path: Path) -> None:
    import datetime

    import pyarrow as pa

    table = ticks_table(5, 120, symbols=3)
    stamps = [datetime.datetime(2024, 1, 1) + datetime.timedelta(seconds=t)
              for t in table.column("ts").to_pylist()]
    table = table.set_column(1, "ts", pa.array(stamps, pa.timestamp("us")))
    source = tmp_path / "in"
    source.mkdir()
    for j, part in enumerate(chop(table, cuts(table.num_rows, 4, random.Random(1)))):
        write_part(part, source, j, "parquet")
    statement = ALL_ROWS.replace("MATCH_NUMBER() AS n, ", "").replace(
        "FIRST(ts) AS start_ts, LAST(DOWN.ts) AS bottom_ts,\n           LAST(ts) AS end_ts",
        "COUNT(*) AS rows_so_far")
    query = Query.parse(statement)
    run = ContinuousRecognition(spark, str(source), query, output=str(tmp_path / "o.parquet"),
                                checkpoint=str(tmp_path / "ckpt"), max_files=1)
    run.run_available()
    run.end()
    clause = _recognized(query)
    expected = [_naive(r) for r in recognize(clause, table_of(table)).rows]
    got = [_naive(r) for r in written_rows(tmp_path / "o.parquet")]
    assert _keyed(got, 1) == _keyed(expected, 1) and len(expected) >= 10
