"""Events read in batches (kleene.data.batches): the same events as the whole
file, errors naming the row of the file, and engines reporting the reference's
matches while reading in bounded memory.

Expected values are read off the lines written in each test, or are the
reference's matches on the same events.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from kleene.data.batches import Batched, open_events
from kleene.data.loaders import load_events
from kleene.engines.registry import engine
from kleene.reference.errors import StreamError
from kleene.reference.query import Query
from kleene.reference.ses.policies import matches
from kleene.reference.ses.text import parse_ses

LINE = "{kind}(id={i},name={name},volume=100,price={price},stock_time={ts})\r\n"
NAMES = ["INTC", "RIMM", "QQQ", "MSFT"]


def stock_file(path: Path, n: int, *, gz: bool = True, swap: int | None = None) -> Path:
    """``n`` stock lines, 3 ms apart; with ``swap`` the timestamps of lines ``swap``
    and ``swap + 1`` are exchanged (out of order at line ``swap + 1``)."""
    stamps = [1000 + 3 * i for i in range(n)]
    if swap is not None:
        stamps[swap], stamps[swap + 1] = stamps[swap + 1], stamps[swap]
    text = "".join(LINE.format(kind="BUY" if i % 3 else "SELL", i=i, name=NAMES[i % 4],
                               price=f"{10 + i % 7}.50", ts=stamps[i]) for i in range(n))
    path.write_bytes(gzip.compress(text.encode()) if gz else text.encode())
    return path


def batched(path: Path, fmt: str = "stock", **options) -> Batched:
    defaults = {"ts": "stock_time" if fmt == "stock" else "ts", "type": "type",
                "time_unit": "ms", "limit": None, "rows": 7, "block": 256}
    return Batched(path, fmt, **{**defaults, **options})


def test_batches_are_the_events_of_the_whole_file(tmp_path):
    path = stock_file(tmp_path / "s.stream.gz", 50)
    source = batched(path)
    whole = load_events(path)
    assert list(source) == list(whole) and len(source) == 50
    offsets = [offset for offset, _ in source.batches()]
    assert len(offsets) > 2 and offsets[0] == 0      # 256-byte blocks: several batches
    assert list(batched(path, limit=11)) == list(whole)[:11]


def test_parquet_batches(tmp_path):
    pq.write_table(pa.table({"ts": list(range(20)), "type": ["A", "B"] * 10,
                             "V": [1.5] * 20}), tmp_path / "e.parquet")
    source = batched(tmp_path / "e.parquet", "parquet", rows=6, time_unit=None)
    assert [o for o, _ in source.batches()] == [0, 6, 12, 18]
    assert list(source) == list(load_events(tmp_path / "e.parquet"))


def test_unsorted_across_a_batch_boundary_names_the_row(tmp_path):
    pq.write_table(pa.table({"ts": [0, 1, 2, 3, 2, 5]}), tmp_path / "e.parquet")
    with pytest.raises(StreamError) as err:
        list(batched(tmp_path / "e.parquet", "parquet", rows=4, time_unit=None))
    assert (err.value.row, err.value.field) == (4, "ts")
    path = stock_file(tmp_path / "s.stream.gz", 40, swap=30)
    with pytest.raises(StreamError) as err:
        list(batched(path))
    assert (err.value.row, err.value.field) == (31, "stock_time")


def test_a_line_of_another_layout_in_a_later_batch(tmp_path):
    path = stock_file(tmp_path / "s.stream", 40, gz=False)
    lines = path.read_text().splitlines(keepends=True)
    lines[33] = "BUY(name=QQQ,id=1,volume=1,price=1.0,stock_time=1099)\r\n"
    path.write_text("".join(lines))
    with pytest.raises(StreamError, match="without --stream"):
        list(batched(path))
    assert len(load_events(path)) == 40      # read whole, the general rule reads it


def test_open_events_batches_only_what_it_can(tmp_path):
    assert isinstance(open_events(stock_file(tmp_path / "s.stream.gz", 5)), Batched)
    csv = tmp_path / "e.csv"
    csv.write_text("ts,L\n0,A\n")
    assert not isinstance(open_events(csv), Batched)
    assert not isinstance(open_events(stock_file(tmp_path / "t.stream", 5), sort=True),
                          Batched)


@pytest.mark.parametrize("name", ["windows+ses", "ses-automaton"])
@pytest.mark.parametrize("shape", ["<{x}, {y}, {z}>", "<{x, y, z}>"])
def test_engines_on_batches_report_the_references_matches(tmp_path, name, shape):
    path = stock_file(tmp_path / "s.stream.gz", 120)
    p = parse_ses(f"PATTERN {shape} WHERE x.type = 'SELL' AND y.name = 'RIMM' "
                  "AND z.name = 'QQQ' AND z.price > x.price WITHIN 10 ms")
    expected = matches(p, load_events(path), "any")
    assert expected                                  # the test is not vacuous
    got = list(engine(name).compile(Query.of(p, policy="any", time_unit="ms")).run(batched(path)))
    assert set(got) == expected and len(got) == len(expected)


def test_a_misspelt_attribute_is_found_when_streaming(tmp_path, capsys):
    """``--stream`` reads the first batch for the schema check: a typo is one line, not
    a silent zero (a batched source's ``len`` is 0 before it is read)."""
    from kleene.cli import main

    path = stock_file(tmp_path / "s.stream.gz", 30)
    (tmp_path / "q.ses").write_text("PATTERN <{a}, {b}> WHERE a.nmae = 'INTC' WITHIN 10\n")
    code = main(["match", "--pattern", str(tmp_path / "q.ses"), "--events", str(path),
                 "--stream", "--count"])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert "have no attribute 'nmae' (a.nmae)" in err.splitlines()[0]
