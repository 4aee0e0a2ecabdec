"""What an engine may read of its input (data/source.py): each kind of source offers the
parts it declares, and a plain list of events none beyond its events.

Expected values are by hand: a CSV of 5 rows cut into batches of 2 has offsets
0, 2, 4 and sizes 2, 2, 1; a file's name is what it was opened as.
"""

from __future__ import annotations

from pathlib import Path

from kleene.cli.progress import Reading
from kleene.data.batches import Batched
from kleene.data.loaders import load_events
from kleene.data.source import (
    UNNAMED,
    BatchSource,
    ColumnSource,
    NamedSource,
    TimedSource,
    column_batches,
    columns_of_source,
    reads_in_batches,
    source_name,
    time_unit_of,
)
from kleene.reference.events import Event, Stream

CSV = "ts,type,x\n0,A,1\n1,B,2\n2,A,3\n5,B,4\n9,A,5\n"
STOCK = "".join(f"BUY(id={i},name=INTC,volume=100,price=27.5,stock_time={1000 + 3 * i})\n"
                for i in range(5))


def loaded(tmp_path: Path) -> Stream:
    (tmp_path / "e.csv").write_text(CSV)
    return load_events(tmp_path / "e.csv", time_unit="s")


def stock(tmp_path: Path) -> Batched:
    path = tmp_path / "s.stream"
    path.write_text(STOCK)
    return Batched(path, "stock", ts="stock_time", type="type", time_unit="ms", limit=None,
                   rows=2, block=64)


def test_a_list_of_events_offers_its_events_only() -> None:
    events = [Event(0, 0, "A", {}), Event(1, 3, "B", {})]
    assert not isinstance(events, TimedSource)
    assert (time_unit_of(events), source_name(events), columns_of_source(events)) == (
        None, UNNAMED, None)
    assert column_batches(events, 2) is None and not reads_in_batches(events)


def test_a_stream_of_events_has_a_unit_and_no_columns() -> None:
    s = Stream([Event(0, 0, "A", {}), Event(1, 3, "B", {})], time_unit="min")
    assert isinstance(s, ColumnSource) and not isinstance(s, BatchSource)
    assert (time_unit_of(s), columns_of_source(s), column_batches(s, 2)) == ("min", None, None)


def test_a_loaded_stream_offers_all_its_columns_and_cuts_them(tmp_path: Path) -> None:
    s = loaded(tmp_path)
    assert isinstance(s, ColumnSource) and not reads_in_batches(s)
    columns = columns_of_source(s)
    assert columns is not None and columns.ts.to_pylist() == [0, 1, 2, 5, 9]
    batches = column_batches(s, 2)
    assert batches is not None
    assert [(offset, part.ts.to_pylist()) for offset, part in batches] == [
        (0, [0, 1]), (2, [2, 5]), (4, [9])]
    assert time_unit_of(s) == "s" and source_name(s) == UNNAMED


def test_a_file_read_in_batches_names_itself_and_yields_its_batches(tmp_path: Path) -> None:
    b = stock(tmp_path)
    assert isinstance(b, BatchSource) and isinstance(b, NamedSource)
    assert not isinstance(b, ColumnSource)
    assert reads_in_batches(b) and columns_of_source(b) is None
    assert (time_unit_of(b), source_name(b)) == ("ms", str(tmp_path / "s.stream"))
    batches = column_batches(b, 1 << 20)       # its own batch size, not the one asked for
    assert batches is not None
    got = [(offset, part.ts.to_pylist()) for offset, part in batches]
    assert [t for _, ts in got for t in ts] == [1000, 1003, 1006, 1009, 1012]
    assert [offset for offset, _ in got] == [0, *[sum(len(ts) for _, ts in got[:i])
                                                  for i in range(1, len(got))]]


def test_the_progress_reading_passes_on_what_its_stream_offers(tmp_path: Path) -> None:
    r = Reading(stock(tmp_path), "reading")
    assert isinstance(r, BatchSource)
    assert (time_unit_of(r), source_name(r)) == ("ms", str(tmp_path / "s.stream"))
    plain = Reading([Event(0, 0, "A", {})], "reading")
    assert (time_unit_of(plain), source_name(plain), column_batches(plain, 2)) == (
        None, UNNAMED, None)
