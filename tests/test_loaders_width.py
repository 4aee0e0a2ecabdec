"""An event file has at most 10,000 columns (docs/cli.md, "kleene match"; data/loaders.py,
``MAX_COLUMNS``): a CSV header's names, a Parquet file's columns, a JSON object's keys.
A wider file is refused with one line, in time linear in its width (a header of 10^6
columns hung in a quadratic duplicate check), by the loaders and ``kleene convert``."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from kleene.cli import main
from kleene.data.loaders import load_events
from kleene.reference.errors import StreamError


def _csv(path: Path, width: int) -> Path:
    names = ["ts", "type"] + [f"c{i}" for i in range(width - 2)]
    path.write_text(",".join(names) + "\n" + ",".join(["0", "A"] + ["1"] * (width - 2)) + "\n")
    return path


def test_ten_thousand_columns_load(tmp_path: Path) -> None:
    stream = load_events(_csv(tmp_path / "w.csv", 10_000))
    assert len(stream) == 1 and stream[0].attrs["c9997"] == 1


def test_one_column_more_is_refused(tmp_path: Path) -> None:
    with pytest.raises(StreamError) as err:
        load_events(_csv(tmp_path / "w.csv", 10_001))
    assert str(err.value) == (f"{tmp_path / 'w.csv'}: 10,001 columns, more than the 10,000 "
                              "an event file may have")


def test_a_header_of_a_million_columns_is_refused_at_once(tmp_path: Path) -> None:
    path = tmp_path / "wide.csv"
    path.write_text(",".join(["ts", "type"] + [f"c{i}" for i in range(10**6)]) + "\n")
    began = time.monotonic()
    with pytest.raises(StreamError, match="1,000,002 columns, more than the 10,000"):
        load_events(path)
    assert time.monotonic() - began < 10


def test_convert_refuses_a_wide_header_in_one_line(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    source = _csv(tmp_path / "w.csv", 20_000)
    target = tmp_path / "w.parquet"
    assert main(["convert", str(source), "-o", str(target)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [f"kleene convert: {source}: 20,000 columns, more than the 10,000 an event "
                   "file may have"]
    assert not target.exists()


def test_a_wide_parquet_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "w.parquet"
    pq.write_table(pa.table({f"c{i}": [1] for i in range(10_001)}), path)
    with pytest.raises(StreamError, match="10,001 columns, more than the 10,000"):
        load_events(path)


def test_a_parquet_file_naming_a_column_twice_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "d.parquet"
    pq.write_table(pa.Table.from_arrays([pa.array([1]), pa.array([2])], names=["ts", "ts"]),
                   path)
    with pytest.raises(StreamError, match="the header names a column twice: ts"):
        load_events(path)


def test_a_json_object_of_too_many_keys_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "w.jsonl"
    rows = [{"ts": 0, "type": "A"}, {"ts": 1, "type": "A", **{f"c{i}": 1 for i in range(10_000)}}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(StreamError) as err:
        load_events(path)
    assert str(err.value) == (f"{path}: row 1: 10,002 columns, more than the 10,000 an event "
                              "file may have")
