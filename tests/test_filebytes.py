"""data/filebytes.py: whole-file bytes, gunzip of every member, reading ahead on a thread.

Expected values are the bytes written by the tests themselves (hand-made gzip members).
"""

from __future__ import annotations

import gzip
import os
import zlib

import pytest

from kleene.data import filebytes
from kleene.data.filebytes import file_bytes, format_of, gunzip, prefetch, prefetched
from kleene.data.loaders import load_events, read_bytes
from kleene.reference.errors import StreamError

STOCK = (b"BUY(id=1,name=INTC,price=27.5,stock_time=10)\n"
         b"SELL(id=2,name=RIMM,price=3,stock_time=12)\n")


def test_gunzip_reads_every_member_and_skips_zero_padding():
    data = gzip.compress(b"ab") + gzip.compress(b"") + gzip.compress(b"cd") + b"\0\0\0"
    assert gunzip(data) == b"abcd"
    assert gzip.decompress(data) == b"abcd"          # what the gzip module reads, too


@pytest.mark.parametrize(("data", "error"), [
    (gzip.compress(b"abcdef")[:-5], EOFError),                  # cut inside the trailer
    (gzip.compress(b"ab") + b"junk", zlib.error),               # not a member after one
])
def test_gunzip_refuses_a_cut_or_trailing_garbage(data, error):
    with pytest.raises(error):
        gunzip(data)


def test_format_of_reads_the_extension_under_gz():
    assert format_of("a/b.STREAM.gz") == "stock"
    assert format_of("x.csv") == "csv"
    assert format_of("x.txt") is None


def test_prefetched_bytes_are_the_files(tmp_path):
    path = tmp_path / "s.stream.gz"
    path.write_bytes(gzip.compress(STOCK))
    assert prefetch(path)
    assert prefetched(path) == (STOCK, None)        # not asked to read further
    assert prefetched(path) is None                 # taken once; then read as usual
    assert read_bytes(path) == STOCK


def test_the_loader_takes_the_prefetched_bytes(tmp_path, monkeypatch):
    path = tmp_path / "s.stream"
    path.write_bytes(STOCK)
    assert prefetch(path)
    monkeypatch.setattr(filebytes, "file_bytes", lambda p: pytest.fail("read twice"))
    monkeypatch.setattr("kleene.data.loaders.file_bytes",
                        lambda p: pytest.fail("read twice"))
    s = load_events(path)
    assert [e.value("price") for e in s.events] == [27.5, 3]


def test_a_file_changed_after_the_prefetch_is_read_again(tmp_path):
    path = tmp_path / "s.stream"
    path.write_bytes(STOCK)
    assert prefetch(path)
    filebytes._AHEAD[os.path.realpath(path)].thread.join()
    path.write_bytes(STOCK[:46])                    # the first line only: another size
    assert read_bytes(path) == STOCK[:46]


def test_only_formats_read_whole_and_regular_files_are_prefetched(tmp_path):
    (tmp_path / "e.jsonl").write_text('{"ts": 0}\n')
    (tmp_path / "e.parquet").write_bytes(b"PAR1")
    assert not prefetch(tmp_path / "e.jsonl")                       # read line by line
    assert not prefetch(tmp_path / "e.parquet")
    assert prefetch(tmp_path / "e.jsonl", "csv") is True            # a format given wins
    assert prefetched(tmp_path / "e.jsonl") == (b'{"ts": 0}\n', None)
    assert not prefetch(tmp_path / "missing.csv")
    assert not prefetch(tmp_path)                                   # a directory


def test_a_failed_read_ahead_leaves_the_error_to_the_loader(tmp_path):
    path = tmp_path / "bad.stream.gz"
    path.write_bytes(gzip.compress(STOCK)[:-6])
    assert prefetch(path)
    with pytest.raises(StreamError, match="corrupt gzip data"):
        load_events(path)


@pytest.mark.parametrize("spelling", ["--events {}", "--events={}"])
def test_the_kleene_program_reads_its_events_ahead(tmp_path, monkeypatch, capsys, spelling):
    from kleene.cli import main

    (tmp_path / "q.op").write_text("PATTERN SEQ(BUY b, SELL s) WITHIN 5\n")
    path = tmp_path / "s.stream.gz"
    path.write_bytes(gzip.compress(STOCK))
    monkeypatch.setattr("kleene.data.loaders.file_bytes",
                        lambda p: pytest.fail("not read ahead"))
    monkeypatch.setattr("sys.argv", ["kleene", "match", "--pattern", str(tmp_path / "q.op"),
                                     *spelling.format(path).split(), "--count"])
    ended: list[int] = []
    monkeypatch.setattr("kleene.cli._exit_now", ended.append)   # not this test process
    assert main() == 0
    assert ended == [0]
    assert capsys.readouterr().out == "1\n"       # BUY at 10, SELL at 12: within 5
    assert file_bytes(path) == STOCK


def test_stock_lines_are_read_further_on_the_thread(tmp_path, monkeypatch):
    from kleene.data import stock

    path = tmp_path / "s.stream.gz"
    path.write_bytes(gzip.compress(b"\xef\xbb\xbf" + STOCK))     # a BOM, as the loader takes it
    assert prefetch(path, further=True)
    filebytes._AHEAD[os.path.realpath(path)].thread.join()
    monkeypatch.setattr(stock, "_regular", lambda data, limit: pytest.fail("cut twice"))
    s = load_events(path, limit=1)                  # the thread cut every line; one is kept
    assert [(e.type, e.value("name"), e.value("price")) for e in s.events] == \
        [("BUY", "INTC", 27.5)]


def test_a_format_without_a_further_reader_just_gives_its_bytes(tmp_path):
    path = tmp_path / "e.csv"
    path.write_text("ts,type\n0,A\n")
    assert prefetch(path, further=True)            # the thread waits for a reader; none comes
    assert prefetched(path) == (b"ts,type\n0,A\n", None)


def test_irregular_stock_lines_read_further_are_read_line_by_line(tmp_path):
    path = tmp_path / "s.stream"
    path.write_bytes(STOCK + b"SELL(name=QQQ,id=3,price=1,stock_time=13)\n")   # other order
    assert prefetch(path, further=True)
    s = load_events(path)
    assert [e.value("id") for e in s.events] == [1, 2, 3]
