"""Stock lines on Spark in one pass (engines/spark/stock_arrow.py, issue 14): the same
events, types and positions as the loader and as the Spark SQL reader, one job to
read, and the Spark SQL reader's words for every bad line."""

from __future__ import annotations

import itertools
from contextlib import contextmanager
from pathlib import Path

import pytest

from kleene.data.loaders import load_events
from kleene.engines.spark import stock_arrow, stock_parse
from kleene.engines.spark.frames import read_events
from kleene.engines.spark.text_splits import Splits, read_split
from kleene.reference.errors import StreamError
from tests.helpers import small_splits

pytestmark = pytest.mark.spark

STOCKS = Path(__file__).parent.parent / "examples" / "stocks" / "stocks.stream"


_GROUPS = itertools.count()


@contextmanager
def jobs(spark):
    """The names of the first stage of each Spark job started inside the block
    (appended at its end)."""
    found: list[str] = []
    group = f"kleene-stock-test-{next(_GROUPS)}"
    sc = spark.sparkContext
    sc.setJobGroup(group, "counted")
    try:
        yield found
    finally:
        tracker = sc.statusTracker()
        for job in sorted(tracker.getJobIdsForGroup(group)):
            stages = sorted(tracker.getJobInfo(job).stageIds)
            found.append(tracker.getStageInfo(stages[0]).name)
        sc.setLocalProperty("spark.jobGroup.id", None)


def ordered(frame):
    return [r.asDict() for r in frame.df.orderBy(frame.position).collect()]


@pytest.mark.parametrize("reader", ["splits", "spark text"])
def test_one_pass_equals_the_loader_and_the_sql_reader_across_splits(spark, monkeypatch,
                                                                      reader):
    if reader == "spark text":          # what a remote path gets: spark.read.text's lines
        monkeypatch.setattr(stock_arrow, "local_splits", lambda spark, path: None)
    s = load_events(STOCKS)
    with small_splits(spark):
        with jobs(spark) as started:
            fast = read_events(spark, str(STOCKS))
        sql = read_events(spark, str(STOCKS), stock="sql")
        assert fast.df.rdd.getNumPartitions() > 5          # the file is really split
        fast_rows, sql_rows = ordered(fast), ordered(sql)
    assert len(started) == 1, started                       # one job over the text
    assert fast.df.schema.simpleString() == sql.df.schema.simpleString()
    assert fast_rows == sql_rows
    assert fast.count == sql.count == len(s)
    # timestamps sampled in stream order, every SAMPLE_EVERY rows of each split
    assert fast.samples[0] == s.events[0].ts and list(fast.samples) == sorted(fast.samples)
    assert set(fast.samples) <= {e.ts for e in s} and len(fast.samples) >= len(s) // 512
    assert [r[fast.position] for r in fast_rows] == [e.position for e in s]
    assert [(r["type"], r["stock_time"], r["price"], r["name"]) for r in fast_rows] == \
        [(e.type, e.ts, e.attrs["price"], e.attrs["name"]) for e in s]


def test_columns_are_typed_over_every_split(spark, tmp_path):
    lines = [f"BUY(id={i},name={'A' if i < 300 else 7},price={i if i < 400 else i / 4},"
             f"big={2**53 + 1 if i < 300 else 0.5},stock_time={i})" for i in range(600)]
    path = tmp_path / "mixed.stream"
    path.write_text("\n".join(lines) + "\n")
    with small_splits(spark, 4096):
        fast = read_events(spark, str(path))
        sql = read_events(spark, str(path), stock="sql")
        assert fast.df.rdd.getNumPartitions() > 3
        fast_rows, sql_rows = ordered(fast), ordered(sql)
    types = {f.name: f.dataType.simpleString() for f in fast.df.schema.fields}
    assert (types["id"], types["name"], types["price"]) == ("bigint", "string", "double")
    assert fast_rows == sql_rows
    assert fast_rows[410]["price"] == 102.5 and fast_rows[10]["price"] == 10.0
    assert types["big"] == "double" and fast_rows[0]["big"] == float(2**53)   # rounded


#: Lines whose fields change kind from block to block: ``id`` integers throughout,
#: ``price`` integers then decimals, ``name`` numbers then words, ``note`` words then
#: numbers.
MIXED = [f"BUY(id={i},name={7 if i < 150 else 'A'},price={i if i < 100 else i / 4},"
         f"note={'x' if i < 40 else i},stock_time={i})" for i in range(400)]


def test_a_split_parsed_in_blocks_is_typed_as_the_cells_say():
    # each block typed on its own (the reading job's cost, issue 33 item 2), then one type
    # per field over the split: against the line rule and the cell rule, line by line
    import pyarrow as pa

    from kleene.data.stock import parse_stock_line, split_stock_line
    from kleene.data.textvalues import text_value

    keys = ["id", "name", "price", "note", "stock_time"]
    data = pa.py_buffer(("\n".join(MIXED) + "\n").encode())
    blocks = list(stock_parse.blocks(data, keys, 1024))
    assert len(blocks) > 10
    assert [r for b in blocks for r in b.to_pylist()] == [split_stock_line(line)
                                                         for line in MIXED]
    flags = [[stock_parse.flags(b.column(k)) for k in keys] for b in blocks]
    nonint = [any(f[i][0] for f in flags) for i in range(len(keys))]
    nonnum = [any(f[i][1] for f in flags) for i in range(len(keys))]
    assert (nonint, nonnum) == ([False, True, True, True, False],
                                [False, True, False, True, False])
    cells = [pa.table([b.column("type"), *[b.column(k) if f[i][2] is None else f[i][2]
                                           for i, k in enumerate(keys)]],
                      names=["type", *keys]) for b, f in zip(blocks, flags, strict=True)]
    # name is numbers in the first blocks and words later: not agreed, parsed again
    assert stock_parse.agreed(keys, cells, nonint, nonnum) is None
    without = [c.drop_columns(["name", "note"]) for c in cells]
    agreed = stock_parse.agreed(["id", "price", "stock_time"], without,
                                 [nonint[0], nonint[2], nonint[4]],
                                 [nonnum[0], nonnum[2], nonnum[4]])
    assert agreed is not None
    table = pa.concat_tables(agreed)
    assert [str(t) for t in table.schema.types] == ["string", "int64", "double", "int64"]
    expected = [parse_stock_line(line) for line in MIXED]
    assert table.column("price").to_pylist() == [float(str(e["price"])) for e in expected]
    assert table.column("id").to_pylist() == [text_value(str(e["id"])) for e in expected]


def test_splits_parsed_in_small_blocks_read_as_the_sql_reader(spark, tmp_path):
    from kleene.data.stock import stock_layout
    from kleene.engines.spark import split_cache
    from kleene.engines.spark.frames import POSITION

    path = tmp_path / "mixed.stream"
    path.write_text("\n".join(MIXED) + "\n")
    keys = stock_layout(MIXED[0])
    assert keys is not None
    with small_splits(spark, 4096):
        scanned = stock_arrow.scan(spark, str(path), keys, "stock_time", block=1024)
        assert scanned is not None and scanned.cache is not None and len(scanned.spans) > 3
        fast = stock_arrow.events(spark, str(path), scanned, POSITION)
        got = [r.asDict() for r in fast.orderBy(POSITION).collect()]
        sql = read_events(spark, str(path), stock="sql")
        expected = ordered(sql)
    assert fast.schema.simpleString() == sql.df.schema.simpleString()
    assert got == expected and len(got) == len(MIXED)
    assert scanned.types == {"id": "bigint", "name": "string", "price": "double",
                             "note": "string", "stock_time": "bigint"}
    cache = scanned.cache
    first, last = (split_cache.read(cache, s.part) for s in (scanned.spans[0],
                                                             scanned.spans[-1]))
    # the first split's notes are words in its first block and numbers in a later one:
    # it is not kept (the engine stage parses it again); the last split's fields keep
    # one kind throughout, so it is kept, typed by its own cells
    assert first is None and last is not None
    assert {k: str(t) for k, t in zip(last.column_names, last.schema.types, strict=True)} == \
        {"type": "string", "id": "int64", "name": "string", "price": "double",
         "note": "int64", "stock_time": "int64"}


def test_a_limit_keeps_the_first_events(spark):
    with small_splits(spark):
        frame = read_events(spark, str(STOCKS), limit=300)
        got = ordered(frame)
    assert frame.count == len(got) == 300
    assert [r["id"] for r in got] == [e.attrs["id"] for e in load_events(STOCKS, limit=300)]


@pytest.mark.parametrize("bad, message, field", [
    ("SELL(id=3,name=A,price=1.5,stock_time=12", "not a stock line", None),
    ("SELL(name=A,id=3,price=1.5,stock_time=12)", "are not those of the first line", None),
    ("SELL(id=3,name=A,price=1.5,stock_time=5)", "earlier than the previous row's",
     "stock_time"),
])
def test_a_bad_line_in_a_later_split_has_the_sql_readers_words(spark, tmp_path, bad, message,
                                                                field):
    lines = [f"BUY(id={i},name=A,price=1.5,stock_time={10 + i})" for i in range(400)]
    lines[333] = bad
    path = tmp_path / "bad.stream"
    path.write_text("\n".join(lines) + "\n")
    with small_splits(spark, 4096), pytest.raises(StreamError, match=message) as err:
        read_events(spark, str(path))
    assert (err.value.row, err.value.field) == (333, field)


def test_a_converted_parquet_file_needs_no_numbering_pass(spark, tmp_path):
    import pyarrow.parquet as pq

    from kleene.cli import main

    whole = tmp_path / "stocks.parquet"
    assert main(["convert", str(STOCKS), "-o", str(whole)]) == 0
    path = tmp_path / "groups.parquet"       # row groups of 100 rows: Spark splits the file
    pq.write_table(pq.read_table(whole), path, row_group_size=100)
    s = load_events(path)
    with small_splits(spark, 4096):
        with jobs(spark) as started:
            frame = read_events(spark, str(path))
        assert frame.df.rdd.getNumPartitions() > 3
        got = ordered(frame)
        limited = ordered(read_events(spark, str(path), limit=250))
    # Spark reads the file's footer for its schema in a job; no job reads the rows
    assert all(name.startswith("parquet at") for name in started), started
    assert frame.count == len(s) and frame.time_unit == "ms"
    assert [(r[frame.position], r["id"], r[frame.ts]) for r in got] == \
        [(e.position, e.attrs["id"], e.ts) for e in s]
    assert [r["id"] for r in limited] == [e.attrs["id"] for e in s.events[:250]]


def test_an_unsorted_parquet_file_is_numbered_and_named(spark, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "unsorted.parquet"
    pq.write_table(pa.table({"ts": [1, 2, 3, 2, 5], "L": list("abcde")}), path)
    with pytest.raises(StreamError, match="earlier than the previous row's") as err:
        read_events(spark, str(path))
    assert (err.value.row, err.value.field) == (3, "ts")


@pytest.mark.parametrize("size", [1, 7, 64, 1000])
def test_every_line_is_read_by_exactly_one_split(tmp_path, size):
    text = "\ufeffA(x=1)\r\nB(x=22)\n\nC(x=333)\nD(x=4444)"      # a BOM, CRLF, a blank line
    path = tmp_path / "lines.stream"
    path.write_bytes(text.encode())
    n = len(text.encode())
    splits = Splits(str(path), tuple((s, min(s + size, n)) for s in range(0, n, size)), False)
    read = b"".join(read_split(splits, j).to_pybytes() for j in range(len(splits.ranges)))
    assert read == text.encode()[3:]


_CELLS = ["12", "-3", " 7 ", "2.5", "1e3", ".5", "INTC", "nan", "", "١٢", "99999999999999999999"]


@pytest.mark.parametrize("cells", [list(c) for n in (1, 2, 3)
                                   for c in itertools.combinations(_CELLS, n)])
def test_flags_say_what_the_cell_rule_says(cells):
    # the reading job's per-field flags against the rule applied cell by cell (the
    # stock reader's cells are never null: a missing value is the empty string)
    import pyarrow as pa

    from kleene.data.textvalues import text_value

    typed = [text_value(c) for c in cells]
    no_int, no_num, numbers = stock_parse.flags(pa.array(cells, pa.string()))
    assert no_int == (not all(type(v) is int and -2**63 <= v < 2**63 for v in typed))
    assert no_num == (not all(isinstance(v, int | float) for v in typed))
    assert (numbers is None) == no_num
    if numbers is not None:
        assert numbers.to_pylist() == [*map(float if no_int else int, typed)]


def test_a_split_is_blank_only_when_every_byte_is_whitespace():
    import pyarrow as pa

    assert stock_parse.blank(pa.py_buffer(b""))
    assert stock_parse.blank(pa.py_buffer(b" \n" * 5000))
    assert not stock_parse.blank(pa.py_buffer(b" \n" * 5000 + b"A(x=1)\n"))   # past 4096
    assert not stock_parse.blank(pa.py_buffer(b"A(x=1)"))


def test_an_empty_file_and_a_gzip_file_read_whole(tmp_path):
    import gzip

    empty = tmp_path / "empty.stream"
    empty.write_bytes(b"")
    assert read_split(Splits(str(empty), ((0, 0),), False), 0).to_pybytes() == b""
    packed = tmp_path / "lines.stream.gz"
    packed.write_bytes(gzip.compress("\ufeffA(x=1)\nB(x=2)\n".encode()))
    whole = Splits(str(packed), ((0, packed.stat().st_size),), True)
    assert read_split(whole, 0).to_pybytes() == b"A(x=1)\nB(x=2)\n"


def test_a_relative_path_reaches_the_tasks_absolute(spark, tmp_path, monkeypatch):
    # an executor of local-cluster[N,C,M] runs in a working directory of its own, so
    # the splits must name the file absolutely (a relative path failed there with
    # FileNotFoundError: the bench's ×100 file, 28 Nov)
    from kleene.engines.spark.text_splits import local_path, local_splits

    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "x.stream").write_text("A(x=1)\n")
    monkeypatch.chdir(tmp_path)
    splits = local_splits(spark, "d/x.stream")
    assert splits is not None and splits.path == str(tmp_path / "d" / "x.stream")
    monkeypatch.chdir(tmp_path / "d")
    assert read_split(splits, 0).to_pybytes() == b"A(x=1)\n"
    assert local_path(f"file://{tmp_path}/d/x.stream") == str(tmp_path / "d" / "x.stream")
    assert local_path("s3a://bucket/x.stream") is None
