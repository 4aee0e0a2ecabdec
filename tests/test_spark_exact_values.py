"""``kleene match --spark`` reads a file as the single process does (issue 27): column
names case-sensitive, a column named twice one line, a bad timestamp named at its own
row with the single process's words, timestamps near 2**63 exact. Each case runs both
ways; the expected output is written by hand.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from kleene.cli import main

OPERATOR = "PATTERN SEQ(A a, B b) WITHIN 10"


def both(capsys, pattern: str, events: Path) -> list[tuple[int, str, str]]:
    """``kleene match`` single-process, then with ``--spark``: (exit, stdout, last line
    of stderr) each."""
    out = []
    for extra in ([], ["--spark"]):
        code = main(["match", "--pattern", pattern, "--events", str(events), *extra])
        o, e = capsys.readouterr()
        assert "Traceback" not in e, e
        out.append((code, o, e.strip().splitlines()[-1] if e.strip() else ""))
    return out


def test_csv_columns_differing_in_case_are_two_attributes(spark, capsys, tmp_path) -> None:
    """``ID`` (3) and ``id`` (8) are two columns; Spark renamed them ``ID2`` and ``id3``
    and refused the pattern."""
    events = tmp_path / "e.csv"
    events.write_text("ts,type,ID,id\n1,A,3,8\n2,B,3,9\n")
    pattern = "PATTERN SEQ(A a, B b) WHERE a.ID = b.ID AND a.id = 8 AND b.id = 9 WITHIN 10"
    for code, out, err in both(capsys, pattern, events):
        assert code == 0, err
        assert [json.loads(x) for x in out.splitlines()] == [{"a": [0], "b": [1]}]


def test_a_csv_column_named_twice_is_one_line(spark, capsys, tmp_path) -> None:
    events = tmp_path / "e.csv"
    events.write_text("ts,type,x,x\n1,A,1,2\n2,B,3,4\n")
    for code, out, err in both(capsys, OPERATOR, events):
        assert (code, out) == (2, "")
        assert err.endswith("e.csv: the header names a column twice: x"), err


def test_a_parquet_column_named_twice_is_one_line(spark, capsys, tmp_path) -> None:
    events = tmp_path / "e.parquet"
    pq.write_table(pa.Table.from_arrays([pa.array([1, 2]), pa.array(["A", "B"]),
                                         pa.array([3, 4])], names=["ts", "type", "ts"]),
                   events)
    for code, out, err in both(capsys, OPERATOR, events):
        assert (code, out) == (2, "")
        assert err.endswith("e.parquet: the header names a column twice: ts"), err


@pytest.mark.parametrize(("cells", "said"), [
    (("1", "xx"), "row 1, field 'ts': timestamp 'xx' is neither a number nor an ISO datetime"),
    (("1", "2021-01-01"),
     "row 1, field 'ts': timestamp '2021-01-01' mixes ISO datetimes with numbers in one column"),
    (("2021-01-01", "1"),
     "row 1, field 'ts': timestamp '1' mixes numbers with ISO datetimes in one column"),
    (("2021-01-01", "zz"),
     "row 1, field 'ts': timestamp 'zz' is neither a number nor an ISO datetime"),
])
def test_a_bad_timestamp_is_named_at_its_row(spark, capsys, tmp_path, cells, said) -> None:
    """The bad cell is in row 1; Spark named row 0 ("missing timestamp": the cell that
    did not convert was read after the column was replaced)."""
    events = tmp_path / "e.csv"
    events.write_text(f"ts,type\n{cells[0]},A\n{cells[1]},B\n")
    for code, out, err in both(capsys, OPERATOR, events):
        assert (code, out) == (2, "")
        assert err.endswith(said), err


def test_timestamps_near_2_to_the_63_match_on_spark(spark, capsys, tmp_path) -> None:
    """A at 2**63 − 10, B at 2**63 − 5: span 5 ≤ 10, one match."""
    events = tmp_path / "e.csv"
    events.write_text(f"ts,type\n{2**63 - 10},A\n{2**63 - 5},B\n")
    for code, out, err in both(capsys, OPERATOR, events):
        assert code == 0, err
        assert [json.loads(x) for x in out.splitlines()] == [{"a": [0], "b": [1]}]


@pytest.mark.parametrize(("cells", "said"), [
    ((f"{2**64}", f"{2**64 + 1}"),
     f"row 0, field 'ts': timestamp {2**64} does not fit a 64-bit integer; it would be rounded"),
    (("0.5", f"{2**53 + 1}"),
     f"row 1, field 'ts': timestamp {2**53 + 1} does not fit a float beside decimal "
     "timestamps (2**53); it would be rounded"),
])
def test_csv_timestamps_that_would_round_are_refused(spark, capsys, tmp_path, cells,
                                                     said) -> None:
    """As doubles 2**64 and 2**64 + 1 are one timestamp (a tie); 2**53 + 1 beside 0.5
    becomes 2**53."""
    events = tmp_path / "e.csv"
    events.write_text(f"ts,type\n{cells[0]},A\n{cells[1]},B\n")
    for code, out, err in both(capsys, OPERATOR, events):
        assert (code, out) == (2, "")
        assert err.endswith(said), err


def test_parquet_uint64_timestamps(spark, capsys, tmp_path) -> None:
    """uint64 within int64 (2**63 − 10, 2**63 − 5: one match); past it, one line (Spark
    read them as decimal(20,0) and rounded them to one double: no match, no word)."""
    inside, past = tmp_path / "in.parquet", tmp_path / "past.parquet"
    pq.write_table(pa.table({"ts": pa.array([2**63 - 10, 2**63 - 5], pa.uint64()),
                             "type": ["A", "B"]}), inside)
    pq.write_table(pa.table({"ts": pa.array([1, 2**63 + 1], pa.uint64()),
                             "type": ["A", "B"]}), past)
    for code, out, err in both(capsys, OPERATOR, inside):
        assert code == 0, err
        assert [json.loads(x) for x in out.splitlines()] == [{"a": [0], "b": [1]}]
    for code, out, err in both(capsys, OPERATOR, past):
        assert (code, out) == (2, "")
        assert f"row 1, field 'ts': timestamp {2**63 + 1} does not fit a 64-bit" in err, err
