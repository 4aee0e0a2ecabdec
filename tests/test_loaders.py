"""Event loaders (kleene.data.loaders): every format on tiny files written
here, gzip by magic bytes, malformed rows as StreamError(row, field); hostile
input is tests/test_loaders_hostile.py.

Expected values are read off the file contents written in each test.
"""

from __future__ import annotations

import gzip
import json

import pytest

from kleene.data.bundled import bundled
from kleene.data.loaders import (
    detect_format,
    load_events,
    parse_stock_line,
    read_csv,
    read_jsonl,
    read_parquet,
    read_stock,
    text_value,
)
from kleene.reference.errors import StreamError
from tests.helpers import rows, write

STOCKS = bundled("stocks.stream.gz")

CSV = "ts,type,name,price,volume,note\n0,BUY,INTC,27.85,100,\n5,SELL,MSFT,30,-7,x y\n"


# ---------------------------------------------------------------- CSV

# The two rows of CSV, typed: whole-number cells are ints, 27.85 a float,
# an empty cell is missing (None), anything else a string.
CSV_ROWS = [
    (0, 0, "BUY", {"name": "INTC", "price": 27.85, "volume": 100, "note": None}),
    (1, 5, "SELL", {"name": "MSFT", "price": 30, "volume": -7, "note": "x y"}),
]


def test_csv_values_are_typed(tmp_path):
    s = read_csv(write(tmp_path / "e.csv", CSV))
    assert rows(s) == CSV_ROWS
    assert isinstance(s[1].attrs["price"], int)  # "30" is a whole number
    assert s.time_unit is None


@pytest.mark.parametrize("name", ["e.csv.gz", "e.csv"])
def test_gzip_is_read_by_magic_bytes_whatever_the_name(tmp_path, name):
    # e.csv holds gzip bytes under a plain name: the magic bytes decide.
    assert rows(load_events(write(tmp_path / name, CSV, gz=True))) == CSV_ROWS


def test_csv_short_row_names_the_row_and_the_missing_field(tmp_path):
    path = write(tmp_path / "e.csv", "ts,L,V\n0,A,1\n1,B\n")
    with pytest.raises(StreamError) as err:
        read_csv(path)
    assert (err.value.row, err.value.field) == (1, "V")


def test_csv_long_row_is_an_error(tmp_path):
    with pytest.raises(StreamError) as err:
        read_csv(write(tmp_path / "e.csv", "ts,L\n0,A\n1,B,extra\n"))
    assert err.value.row == 1


def test_csv_blank_lines_are_not_rows(tmp_path):
    # The blank line between the rows does not shift the row numbers:
    # the unsorted ts is on data row 2 (the third data row).
    path = write(tmp_path / "e.csv", "ts,L\n0,A\n\n4,B\n3,C\n")
    with pytest.raises(StreamError) as err:
        read_csv(path)
    assert (err.value.row, err.value.field) == (2, "ts")


def test_csv_missing_timestamp(tmp_path):
    with pytest.raises(StreamError) as err:
        read_csv(write(tmp_path / "e.csv", "ts,L\n0,A\n,B\n"))
    assert (err.value.row, err.value.field) == (1, "ts")


def test_csv_iso_datetimes_become_epoch_milliseconds(tmp_path):
    # 1970-01-01T00:00:01 (UTC) is 1 s = 1000 ms after the epoch;
    # 2024-01-01T00:00:00Z is 19723 days * 86400 s = 1704067200 s after it.
    path = write(tmp_path / "e.csv", "when,L\n1970-01-01T00:00:01,A\n2024-01-01T00:00:00Z,B\n")
    s = read_csv(path, ts="when")
    assert [e.ts for e in s] == [1000, 1_704_067_200_000]
    assert s.time_unit == "ms"


def test_csv_duplicate_header_is_an_error(tmp_path):
    with pytest.raises(StreamError, match="twice"):
        read_csv(write(tmp_path / "e.csv", "ts,L,L\n0,A,B\n"))


def test_limit_stops_reading(tmp_path):
    # Row 2 is malformed; with limit=2 it is never read.
    path = write(tmp_path / "e.csv", "ts,L\n0,A\n1,B\nnot-a-row-with,too,many\n")
    assert [e.attrs["L"] for e in read_csv(path, limit=2)] == ["A", "B"]
    with pytest.raises(StreamError):
        read_csv(path)


@pytest.mark.parametrize("text, value", [
    ("12", 12), ("-12", -12), (" 12 ", 12), ("+3", 3), ("27.8500", 27.85), ("1e3", 1000.0),
    (".5", 0.5), ("nan", "nan"), ("inf", "inf"), ("1_000", "1_000"), ("12a", "12a"),
    ("INTC", "INTC"),
])
def test_text_values(text, value):
    got = text_value(text)
    assert got == value and type(got) is type(value)


# ---------------------------------------------------------------- JSON Lines

def test_jsonl_with_custom_ts_and_type_fields(tmp_path):
    lines = ['{"T": 1, "kind": "A", "V": 1.5, "ok": true}', "", '{"T": 2, "kind": "B", "V": null}']
    s = read_jsonl(write(tmp_path / "e.jsonl", "\n".join(lines) + "\n"), ts="T", type="kind",
                   time_unit="s")
    assert rows(s) == [(0, 1, "A", {"V": 1.5, "ok": True}), (1, 2, "B", {"V": None})]
    assert s.time_unit == "s"


def test_jsonl_gzip(tmp_path):
    s = load_events(write(tmp_path / "e.ndjson.gz", '{"ts": 3, "L": "A"}\n', gz=True))
    assert rows(s) == [(0, 3, None, {"L": "A"})]


@pytest.mark.parametrize("bad", ['[1, 2]', '"text"', '{"ts": 1,'])
def test_jsonl_line_that_is_not_an_object(tmp_path, bad):
    path = write(tmp_path / "e.jsonl", '{"ts": 0}\n' + bad + "\n")
    with pytest.raises(StreamError) as err:
        read_jsonl(path)
    assert err.value.row == 1


def test_jsonl_nested_value_names_the_field(tmp_path):
    path = write(tmp_path / "e.jsonl", '{"ts": 0, "tags": ["a"]}\n')
    with pytest.raises(StreamError) as err:
        read_jsonl(path)
    assert (err.value.row, err.value.field) == (0, "tags")


def test_jsonl_non_numeric_timestamp(tmp_path):
    path = write(tmp_path / "e.jsonl", '{"ts": 0}\n{"ts": "soon"}\n')
    with pytest.raises(StreamError) as err:
        read_jsonl(path)
    assert (err.value.row, err.value.field) == (1, "ts")


# ---------------------------------------------------------------- Parquet

def test_parquet_with_datetimes(tmp_path):
    import datetime as dt

    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table({
        "ts": [dt.datetime(1970, 1, 1, 0, 0, 2, tzinfo=dt.UTC),
               dt.datetime(1970, 1, 1, 0, 1, tzinfo=dt.UTC)],
        "type": ["A", "B"], "V": [1, 2],
    })
    pq.write_table(table, tmp_path / "e.parquet")
    s = read_parquet(tmp_path / "e.parquet")
    # 2 s and 1 min after the epoch, in ms.
    assert rows(s) == [(0, 2000, "A", {"V": 1}), (1, 60_000, "B", {"V": 2})]
    assert s.time_unit == "ms"
    assert len(read_parquet(tmp_path / "e.parquet", limit=1)) == 1


def test_parquet_unsorted(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"ts": [5, 4]}), tmp_path / "e.pq")
    with pytest.raises(StreamError) as err:
        load_events(tmp_path / "e.pq")
    assert (err.value.row, err.value.field) == (1, "ts")


def test_bad_parquet_file(tmp_path):
    with pytest.raises(StreamError, match="Parquet"):
        read_parquet(write(tmp_path / "e.parquet", "ts,L\n0,A\n"))


# ---------------------------------------------------------------- stock lines

REAL_LINES = [  # the first and the last lines of the stock stream (CRLF endings)
    "BUY(id=8,name=INTC,volume=100,price=27.8500,stock_time=25263126)\r\n",
    "SELL(id=1259232,name=IPIX,volume=200,price=12.7000,stock_time=71996994)\r\n",
]


def test_stock_line_parser_on_real_lines():
    assert parse_stock_line(REAL_LINES[0]) == {
        "type": "BUY", "id": 8, "name": "INTC", "volume": 100, "price": 27.85,
        "stock_time": 25263126}
    assert parse_stock_line(REAL_LINES[1]) == {
        "type": "SELL", "id": 1259232, "name": "IPIX", "volume": 200, "price": 12.7,
        "stock_time": 71996994}


@pytest.mark.parametrize("line", [
    "BUY(id=8,name=INTC,volume=100,price=27,stock_time=1)",        # price without a dot
    "BUY(name=INTC,id=8,volume=100,price=27.85,stock_time=1)",     # another field order
    "BUY(id=8, name=INTC, volume=100, price=27.85, stock_time=1)",  # spaces
    "BUY(id=8,name=BRK.A,volume=100,price=27.85,stock_time=1)",
])
def test_stock_lines_of_other_layouts_are_typed_the_same_way(line):
    fields = line[line.index("(") + 1:-1].split(",")
    expected = {"type": "BUY"} | {k.strip(): text_value(v) for k, v in
                                  (f.split("=") for f in fields)}
    assert parse_stock_line(line) == expected


# Lines of one layout (read by column) whose values need every branch of the text rule:
# non-ASCII text, signs, exponents, a leading dot, hexadecimal (a string), a ")" inside.
COLUMN_LINES = [
    "BUY(id=1,name=Zürich,volume=-5,price=1e3,stock_time=1)",
    "SELL(id=2,name=café),volume=+7,price=.5,stock_time=2)",
    "BUY(id=3,name=0x1F,volume=007,price=27.8500,stock_time=3)",
    "BUY(id=4,name=ü,volume=1,price=2.,stock_time=4)",
]


def test_stock_lines_read_by_column_are_typed_as_the_line_rule_types_them(tmp_path):
    from kleene.data.stock import stock_table

    text = "\n".join(COLUMN_LINES) + "\n"
    table, sparse = stock_table(text.encode(), "s.stream", None)
    assert table.column_names == ["type", "id", "name", "volume", "price", "stock_time"]
    assert sparse == frozenset()
    s = read_stock(write(tmp_path / "s.stream", text))
    for e, line in zip(s, COLUMN_LINES, strict=True):
        row = parse_stock_line(line)
        assert (e.type, e.ts) == (row.pop("type"), row.pop("stock_time"))
        assert e.attrs == row
        assert [type(v) for v in e.attrs.values()] == [type(v) for v in row.values()]


@pytest.mark.parametrize("bad, field", [
    ("BUY id=8", None), ("BUY(id=8,name)", "name"), ("BUY(id=8,id=9,stock_time=1)", "id")])
def test_malformed_stock_line(tmp_path, bad, field):
    path = write(tmp_path / "s.stream", REAL_LINES[0] + bad + "\n")
    with pytest.raises(StreamError) as err:
        read_stock(path)
    assert (err.value.row, err.value.field) == (1, field)


def test_stock_file_gzip(tmp_path):
    s = load_events(write(tmp_path / "s.stream.gz", "".join(REAL_LINES), gz=True))
    assert [(e.ts, e.type, e.attrs["name"]) for e in s] == [
        (25263126, "BUY", "INTC"), (71996994, "SELL", "IPIX")]
    assert s.time_unit == "ms" and "stock_time" not in s[0].attrs


def test_real_stock_file_prefix():
    s = read_stock(STOCKS, limit=1000)
    assert len(s) == 1000
    assert (s[0].type, s[0].ts, s[0].attrs["price"]) == ("BUY", 25263126, 27.85)
    assert {e.type for e in s} == {"BUY", "SELL"}


def test_stock_lines_of_mixed_layouts_keep_absent_keys_absent(tmp_path):
    path = write(tmp_path / "s.stream", "BUY(a=1,stock_time=5)\nSELL(stock_time=6,b=x)\n")
    s = read_stock(path)
    assert rows(s) == [(0, 5, "BUY", {"a": 1}), (1, 6, "SELL", {"b": "x"})]

# ---------------------------------------------------------------- formats and files

@pytest.mark.parametrize("name, fmt", [
    ("a.csv", "csv"), ("a.CSV.GZ", "csv"), ("a.jsonl", "jsonl"), ("a.ndjson.gz", "jsonl"),
    ("a.parquet", "parquet"), ("a.pq", "parquet"), ("stocks.stream.gz", "stock")])
def test_detect_format(name, fmt):
    assert detect_format(name) == fmt


def test_unknown_extension_asks_for_the_format(tmp_path):
    path = write(tmp_path / "e.txt", '{"ts": 0}\n')
    with pytest.raises(StreamError, match="give it explicitly"):
        load_events(path)
    assert len(load_events(path, format="jsonl")) == 1


def test_missing_file(tmp_path):
    with pytest.raises(StreamError, match="cannot read") as err:
        load_events(tmp_path / "nope.csv")
    assert "nope.csv" in str(err.value)


def test_corrupt_gzip(tmp_path):
    good = gzip.compress(json.dumps({"ts": 0}).encode() * 100)
    (tmp_path / "e.jsonl.gz").write_bytes(good[:len(good) // 2])
    with pytest.raises(StreamError, match="gzip"):
        load_events(tmp_path / "e.jsonl.gz")


def test_not_utf8(tmp_path):
    (tmp_path / "e.csv").write_bytes(b"ts,L\n0,\xff\n")
    with pytest.raises(StreamError, match="UTF-8"):
        read_csv(tmp_path / "e.csv")


@pytest.mark.parametrize("gz", [False, True])
def test_byte_order_mark_is_dropped(tmp_path, gz):
    s = read_csv(write(tmp_path / "e.csv", "\ufeffts,L\n0,A\n", gz=gz))
    assert rows(s) == [(0, 0, None, {"L": "A"})]
    s = read_jsonl(write(tmp_path / "e.jsonl", '\ufeff{"ts": 1, "L": "A"}\n', gz=gz))
    assert rows(s) == [(0, 1, None, {"L": "A"})]
    s = read_stock(write(tmp_path / "s.stream", "\ufeff" + REAL_LINES[0], gz=gz))
    assert s[0].type == "BUY" and s[0].ts == 25263126


@pytest.mark.parametrize("fmt, text", [
    ("csv", "ts,L\n0,A\n"), ("jsonl", '{"ts": 0, "L": "A"}\n'),
    ("stock", REAL_LINES[0])])
def test_type_field_that_no_row_has_names_the_columns(tmp_path, fmt, text):
    path = write(tmp_path / f"e.{fmt}", text)
    with pytest.raises(StreamError, match="no row has the type field 'kind'") as err:
        load_events(path, format=fmt, type="kind")
    assert err.value.field == "kind"
    assert "L" in err.value.message or "name" in err.value.message

# ---------------------------------------------------------------- kleene convert

def test_convert_round_trip_keeps_every_event(tmp_path):
    from kleene.cli import main

    path = write(tmp_path / "e.csv", "ts,type,V,W\n0,A,1,\n1,B,2.5,x\n1,A,x,3\n")
    assert main(["convert", str(path), "-o", str(tmp_path / "e.parquet")]) == 0
    assert rows(read_parquet(tmp_path / "e.parquet")) == rows(read_csv(path))
    stock = write(tmp_path / "s.stream", "".join(REAL_LINES))
    assert main(["convert", str(stock), "-o", str(tmp_path / "s.parquet")]) == 0
    back = read_parquet(tmp_path / "s.parquet")
    assert rows(back) == rows(read_stock(stock)) and back.time_unit == "ms"


@pytest.mark.parametrize("output, extra, message", [
    ("e.csv", [], "--output {d}/e.csv: kleene convert writes Parquet; name the file "
                  "FILE.parquet"),
    ("old.parquet", [], "--output {d}/old.parquet exists; give --overwrite to replace it"),
    ("in.parquet", ["--overwrite"], "--output {d}/in.parquet is the input file; choose "
                                    "another path"),
])
def test_convert_never_replaces_data_by_mistake(tmp_path, capsys, output, extra, message):
    from kleene.cli import main

    csv_path = write(tmp_path / "e.csv", "ts,type\n0,A\n")
    (tmp_path / "old.parquet").write_bytes(b"keep")
    assert main(["convert", str(csv_path), "-o", str(tmp_path / "in.parquet")]) == 0
    source = tmp_path / ("in.parquet" if output == "in.parquet" else "e.csv")
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    capsys.readouterr()
    assert main(["convert", str(source), "-o", str(tmp_path / output), *extra]) == 2
    assert capsys.readouterr().err == f"kleene convert: {message.format(d=tmp_path)}\n"
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before
    assert main(["convert", str(csv_path), "-o", str(tmp_path / "old.parquet"),
                 "--overwrite"]) == 0
    assert rows(read_parquet(tmp_path / "old.parquet")) == [(0, 0, "A", {})]
