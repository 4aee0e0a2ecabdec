"""Bounded memory by default (issue 33, item 3; kleene.cli.reading): ``kleene match``
reads a large file of stock lines or Parquet in batches, and the matches are those of
the whole stream.

Expected values: the reference's matches on the loaded stream (the oracle), the
matches printed when the file is loaded whole, and sizes counted by hand.
"""

from __future__ import annotations

import argparse
import gzip
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kleene.cli import main, reading
from kleene.data import filebytes
from kleene.data.batches import Batched, estimated_events
from kleene.data.loaders import load_events
from kleene.engines.fastest import choose, run_engine
from kleene.reference.query import Query

LINE = "{kind}(id={i},name={name},volume=100,price={price},stock_time={ts})\r\n"
NAMES = ["INTC", "RIMM", "QQQ"]
SEQ = ("PATTERN <{x}, {y}> WHERE x.type = 'SELL' AND y.name = 'RIMM' AND y.price > x.price "
       "WITHIN 6 ms\n")


def stock_text(n: int) -> str:
    """``n`` stock lines, two per millisecond (ties), three tickers."""
    return "".join(LINE.format(kind="BUY" if i % 3 else "SELL", i=i, name=NAMES[i % 3],
                               price=f"{10 + i % 7}.50", ts=1000 + i // 2) for i in range(n))


def cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


# ------------------------------------------------------------------ the decision rule


def test_a_stock_files_events_are_told_by_its_text_size(tmp_path):
    text = stock_text(300)
    plain, packed = tmp_path / "s.stream", tmp_path / "s.stream.gz"
    plain.write_text(text)
    packed.write_bytes(gzip.compress(text.encode()))
    assert filebytes.text_size(plain) == len(text.encode())
    # the gzip trailer records the size: these lines compress more than 4 times
    assert filebytes.text_size(packed) == len(text.encode())
    assert estimated_events(plain, "stock") == len(text.encode()) // 72
    pq.write_table(pa.table({"ts": list(range(37))}), tmp_path / "e.parquet")
    assert estimated_events(tmp_path / "e.parquet", "parquet") == 37
    assert estimated_events(tmp_path / "e.csv", "csv") is None


def _args(*more: str) -> argparse.Namespace:
    from kleene.cli import build_parser

    return build_parser().parse_args(["match", "--pattern", "q.ses", *more])


def _decided(monkeypatch, capsys, path: Path, *more: str, threshold: int = 10) -> tuple[bool, str]:
    monkeypatch.setattr(reading, "BATCHED_FROM", threshold)
    args = _args("--events", str(path), *more)
    got = reading.batched(args, Query.parse(SEQ))
    return got, capsys.readouterr().err


def test_the_rule_reads_large_stock_and_parquet_files_in_batches(tmp_path, monkeypatch,
                                                                 capsys):
    path = tmp_path / "s.stream"
    path.write_text(stock_text(60))             # 60 lines of about 65 bytes: 54 "events"
    assert _decided(monkeypatch, capsys, path, threshold=10**6) == (False, "")
    assert _decided(monkeypatch, capsys, path) == (True, "")
    assert _decided(monkeypatch, capsys, path, "--limit", "9") == (False, "")
    assert _decided(monkeypatch, capsys, path, "--sort") == (False, "")
    assert _decided(monkeypatch, capsys, path, "--stream", threshold=10**6) == (True, "")
    pq.write_table(pa.table({"ts": list(range(12))}), tmp_path / "e.parquet")
    assert _decided(monkeypatch, capsys, tmp_path / "e.parquet") == (True, "")
    assert _decided(monkeypatch, capsys, tmp_path / "e.parquet", threshold=13) == (False, "")
    csv = tmp_path / "e.csv"
    csv.write_text("ts,type\n" + "".join(f"{i},A\n" for i in range(50)))
    assert _decided(monkeypatch, capsys, csv, threshold=1) == (False, "")


@pytest.mark.parametrize(("more", "why"), [
    (("--first", "3"), "--first K matches the prefix"),
    (("--output", "x.parquet"), "--output copies the matched events' columns"),
    (("--engine", "reference"), "the reference semantics read the whole stream"),
])
def test_what_needs_the_whole_stream_loads_it_and_says_so(tmp_path, monkeypatch, capsys,
                                                          more, why):
    path = tmp_path / "s.stream"
    path.write_text(stock_text(60))
    got, err = _decided(monkeypatch, capsys, path, *more)
    size = path.stat().st_size
    assert not got
    said = (f"kleene match: loading the events whole ({size / 1e6:.1f} MB, about "
            f"{size // 72:,} events): {why}")
    assert err.startswith(said) and err.count("\n") == 1


def test_prefetch_leaves_a_large_stock_file_to_the_batches(tmp_path, monkeypatch):
    path = tmp_path / "s.stream"
    path.write_text(stock_text(60))
    monkeypatch.setattr(filebytes, "BATCHED_FROM", 10)
    assert not filebytes.prefetch(path)
    monkeypatch.setattr(filebytes, "BATCHED_FROM", 10**6)
    assert filebytes.prefetch(path)
    assert filebytes.prefetched(path) is not None


def test_kleene_match_prints_the_same_matches_read_either_way(tmp_path, monkeypatch, capsys):
    path = tmp_path / "s.stream.gz"
    path.write_bytes(gzip.compress(stock_text(400).encode()))
    (tmp_path / "q.ses").write_text(SEQ)
    argv = ["match", "--pattern", str(tmp_path / "q.ses"), "--events", str(path), "-q"]
    monkeypatch.setattr(reading, "BATCHED_FROM", 10**9)
    whole = cli(argv, capsys)
    monkeypatch.setattr(reading, "BATCHED_FROM", 10)
    streamed = cli(argv, capsys)
    assert whole[0] == streamed[0] == 0
    assert whole[1] == streamed[1] and whole[1].count("\n") > 10   # not vacuous
    assert "no events" not in streamed[2]


# ------------------------------------------------------------ matches across batch edges


def _events(draw: st.DrawFn) -> list[tuple[int, str, int, int]]:
    n = draw(st.integers(1, 40), label="events")
    gaps = draw(st.lists(st.sampled_from([0, 0, 1, 2, 5]), min_size=n, max_size=n),
                label="gaps (0: a tie)")
    rows, ts = [], 0
    for g in gaps:
        ts += g
        rows.append((ts, draw(st.sampled_from("ABC"), label="type"),
                     draw(st.integers(0, 1), label="key"), draw(st.integers(0, 3), label="v")))
    return rows


PATTERNS = {
    "SES, keyed (Def. 6)": "PATTERN <{a}, {b}> WHERE a.type = 'A' AND b.type = 'B' AND "
                           "a.k = b.k WITHIN 3",
    "SES, set": "PATTERN <{a, c}, {b}> WHERE a.type = 'A' AND c.type = 'C' AND "
                "b.type = 'B' AND b.v > a.v WITHIN 4",
    "operator": "PATTERN SEQ(A a, B b, C c) WHERE a.k = c.k WITHIN 5",
}


#: (pattern, policy): every SES policy's engine but next-literal's (the reference), the
#: operator patterns' chain, SREMO's SRT.
CASES = [*((label, policy) for label in PATTERNS for policy in ("any", "next")),
         ("SES, keyed (Def. 6)", "contiguous"), ("SES, set", "partition-contiguous"),
         ("SES, set", "earliest-maximal"), ("SREMO", "stream")]
PATTERNS["SREMO"] = ("(mark {~.type = 'A'} -> r ; {TRUE}* ; "
                     "mark {~.type = 'B' AND ~.v > r.v})[WITHIN 3]")


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
@pytest.mark.parametrize(("label", "policy"), CASES)
def test_batches_give_the_matches_of_the_whole_stream(tmp_path, label, policy, data):
    """A window spanning a batch edge, ties at the edge (gaps of 0), partitions (``k``):
    the engine over batches of 1 to 6 rows reports the reference's matches."""
    rows = data.draw(st.composite(_events)(), label="stream")
    path = tmp_path / f"e-{label[:3]}-{policy}.parquet"
    pq.write_table(pa.table({"ts": [r[0] for r in rows], "type": [r[1] for r in rows],
                             "k": [r[2] for r in rows], "v": [r[3] for r in rows]}), path)
    query = Query.parse(PATTERNS[label], policy=policy)
    name, _ = choose(query)
    assert name != "reference"
    expected = query.reference(load_events(path))
    size = data.draw(st.integers(1, 6), label="rows per batch")
    source = Batched(path, "parquet", ts="ts", type="type", time_unit=None, limit=None,
                     rows=size)
    got, _ = run_engine(name, query, source)
    assert got == expected
