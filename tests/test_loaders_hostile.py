"""Event loaders (kleene.data.loaders) on hostile input: non-finite and mixed
timestamps, duplicate keys, unterminated quotes, unsorted rows, empty, huge and
non-ASCII files, Parquet's nanoseconds and nested values. Each is one StreamError
naming the file, the row (from 0) and the field, or a documented rule of
kleene.data.loaders (docs/cli.md, "kleene match": bad input).

Expected values are read off the file contents written in each test.
"""

from __future__ import annotations

import json

import pytest

from kleene.data.loaders import load_events, read_csv, read_jsonl, read_parquet, text_value
from kleene.reference.errors import StreamError
from tests.helpers import rows, write


@pytest.mark.parametrize("stamp", ["nan", "NaN", "inf", "-inf", "Infinity", "1e999"])
def test_csv_non_finite_timestamp(tmp_path, stamp):
    path = write(tmp_path / "e.csv", f"ts,L\n0,A\n{stamp},B\n")
    with pytest.raises(StreamError) as err:
        read_csv(path)
    assert (err.value.row, err.value.field) == (1, "ts")
    assert "finite" in err.value.message and str(path) in str(err.value)


@pytest.mark.parametrize("stamp", ["NaN", "Infinity", "-Infinity"])
def test_jsonl_non_finite_timestamp(tmp_path, stamp):
    path = write(tmp_path / "e.jsonl", '{"ts": 0}\n{"ts": ' + stamp + '}\n')
    with pytest.raises(StreamError, match="finite") as err:
        read_jsonl(path)
    assert (err.value.row, err.value.field) == (1, "ts")


def test_jsonl_duplicate_key_names_row_and_key(tmp_path):
    path = write(tmp_path / "e.jsonl", '{"ts": 0, "V": 1}\n{"ts": 1, "V": 1, "V": 2}\n')
    with pytest.raises(StreamError, match="twice") as err:
        read_jsonl(path)
    assert (err.value.row, err.value.field) == (1, "V")


@pytest.mark.parametrize("fmt, text", [
    ("csv", "ts,L\n0,A\n2024-01-01T00:00:00Z,B\n"),
    ("csv", "ts,L\n2024-01-01T00:00:00Z,A\n5,B\n"),
    ("jsonl", '{"ts": 0}\n{"ts": "2024-01-01T00:00:00Z"}\n'),
    ("jsonl", '{"ts": "2024-01-01T00:00:00Z"}\n{"ts": 5}\n')])
def test_numbers_and_iso_dates_mixed_in_the_timestamp_column(tmp_path, fmt, text):
    with pytest.raises(StreamError, match="mixes") as err:
        load_events(write(tmp_path / f"e.{fmt}", text))
    assert (err.value.row, err.value.field) == (1, "ts")


def test_csv_unterminated_quote_is_an_error_not_a_swallowed_tail(tmp_path):
    # The quote opened on row 1 is never closed: without the check, rows 2 and 3
    # would become part of row 1's cell.
    path = write(tmp_path / "e.csv", 'ts,L\n0,A\n1,"B\n2,C\n3,D\n')
    with pytest.raises(StreamError, match="quote") as err:
        read_csv(path)
    assert err.value.row == 1


def test_csv_quoted_cells_with_commas_newlines_and_quotes(tmp_path):
    s = read_csv(write(tmp_path / "e.csv", 'ts,L\n0,"a,b"\n1,"two\nlines"\n2,"say ""hi"""\n'))
    assert [e.attrs["L"] for e in s] == ["a,b", "two\nlines", 'say "hi"']


def test_the_default_type_field_may_be_absent(tmp_path):
    assert read_csv(write(tmp_path / "e.csv", "ts,L\n0,A\n"))[0].type is None


def test_csv_columns_differing_only_in_case_are_two_attributes(tmp_path):
    s = read_csv(write(tmp_path / "e.csv", "ts,ID,id,Id\n0,1,x,2.5\n"))
    assert s[0].attrs == {"ID": 1, "id": "x", "Id": 2.5}


SORT_ROWS = [(0, 3, None, {"L": "B"}), (1, 3, None, {"L": "D"}), (2, 5, None, {"L": "A"}),
             (3, 5, None, {"L": "C"})]


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "parquet"])
def test_sort_is_stable_by_timestamp(tmp_path, fmt):
    data = [(5, "A"), (3, "B"), (5, "C"), (3, "D")]
    if fmt == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq
        path = tmp_path / "e.parquet"
        pq.write_table(pa.table({"ts": [t for t, _ in data], "L": [v for _, v in data]}), path)
    elif fmt == "csv":
        path = write(tmp_path / "e.csv", "ts,L\n" + "".join(f"{t},{v}\n" for t, v in data))
    else:
        path = write(tmp_path / "e.jsonl",
                     "".join(json.dumps({"ts": t, "L": v}) + "\n" for t, v in data))
    with pytest.raises(StreamError, match="--sort") as err:
        load_events(path)
    assert (err.value.row, err.value.field) == (1, "ts")
    assert rows(load_events(path, sort=True)) == SORT_ROWS


@pytest.mark.parametrize("name, text", [
    ("e.csv", ""), ("e.csv", "ts,L\n"), ("e.csv", "ts,L\r\n"), ("e.jsonl", ""),
    ("e.jsonl", "\n\n"), ("s.stream", ""), ("s.stream", "\n")])
def test_empty_and_header_only_files_are_empty_streams(tmp_path, name, text):
    assert len(load_events(write(tmp_path / name, text))) == 0
    assert len(load_events(write(tmp_path / (name + ".gz"), text, gz=True))) == 0


def test_huge_field(tmp_path):
    big = "x" * 9_000_000          # larger than the reader's block
    s = read_csv(write(tmp_path / "e.csv", f"ts,L,V\n0,{big},1\n1,y,2\n"))
    assert s[0].attrs["L"] == big and s[1].attrs == {"L": "y", "V": 2}


def test_unicode_attribute_names_and_values(tmp_path):
    s = read_csv(write(tmp_path / "e.csv", "ts,prix€,名前\n0,1.5,東京\n"))
    assert s[0].attrs == {"prix€": 1.5, "名前": "東京"}


def test_unicode_digits_stay_strings(tmp_path):
    # Digits are ASCII (kleene.data.textvalues): Arabic-Indic ١٢ is text.
    s = read_csv(write(tmp_path / "e.csv", "ts,V\n0,١٢\n"))
    assert s[0].attrs["V"] == "١٢"
    assert text_value("١٢") == "١٢"


def test_parquet_nanosecond_timestamps_become_epoch_milliseconds(tmp_path):
    import pandas as pd

    # pandas writes datetime64[ns]; 1.5 ms and 2.5 ms round half to even: 2 and 2;
    # 1 s + 1 ns is 1000 ms.
    frame = pd.DataFrame({"ts": pd.to_datetime([1_500_000, 2_500_000, 1_000_000_001],
                                               unit="ns"), "L": ["A", "B", "C"]})
    frame.to_parquet(tmp_path / "e.parquet")
    s = read_parquet(tmp_path / "e.parquet")
    assert [e.ts for e in s] == [2, 2, 1000] and s.time_unit == "ms"


def test_parquet_nan_attribute_is_missing_and_nested_is_an_error(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"ts": [0, 1], "V": [float("nan"), 1.5]}), tmp_path / "a.parquet")
    assert [e.attrs["V"] for e in read_parquet(tmp_path / "a.parquet")] == [None, 1.5]
    pq.write_table(pa.table({"ts": [0, 1], "V": [None, [1]]}), tmp_path / "b.parquet")
    with pytest.raises(StreamError, match="got list") as err:
        read_parquet(tmp_path / "b.parquet")
    assert (err.value.row, err.value.field) == (1, "V")


def test_boolean_and_whitespace_rows(tmp_path):
    with pytest.raises(StreamError, match="boolean") as err:
        read_jsonl(write(tmp_path / "e.jsonl", '{"ts": 0}\n{"ts": true}\n'))
    assert (err.value.row, err.value.field) == (1, "ts")
    with pytest.raises(StreamError) as err:      # a row of spaces is a row of one cell
        read_csv(write(tmp_path / "e.csv", "ts,L\n0,A\n   \n"))
    assert (err.value.row, err.value.field) == (1, "L")


@pytest.mark.parametrize("text", ["ts,L", "ts,L\n", "ts,L\r\n", "\ufeffts,L", "ts,L\r"])
def test_csv_header_alone_is_an_empty_stream(tmp_path, text):
    # with or without its newline (Arrow found no row to count the columns of the
    # header alone without one: "malformed CSV: Empty CSV file or block", 28 Nov)
    path = tmp_path / "e.csv"
    path.write_bytes(text.encode())
    assert len(read_csv(path)) == 0
