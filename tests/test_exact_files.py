"""Exact values read from files (issue 27, item 2): a timestamp is never rounded into a
tie (kept exact, or one line naming the row and the field), NaN and infinity are no
timestamps, values past int64 compare exactly in every NFA, and MATCH_RECOGNIZE's AVG
does not overflow. Through ``kleene match``, each expected output written by hand.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from kleene.cli import main
from kleene.reference.errors import StreamError
from kleene.reference.events import Stream

I64 = 2**63


def run(args: Sequence[str], capsys: Any) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def one_line(err: str, *parts: str) -> None:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    for p in parts:
        assert p in lines[0], (p, lines[0])


OPERATOR = "PATTERN SEQ(A a, B b) WITHIN 10"
NFAS = ("reference", "nfa-eager", "nfa-chain", "nfa-chain-fc", "nfa-multichain", "nfa-tree")


@pytest.mark.parametrize("name", NFAS)
def test_csv_near_2_to_the_63_matches_in_every_nfa(tmp_path: Path, capsys, name: str) -> None:
    """Issue 27's case: A at 2**63 − 10, B at 2**63 − 5, WITHIN 10: one match (span 5)."""
    events = tmp_path / "e.csv"
    events.write_text(f"ts,type\n{I64 - 10},A\n{I64 - 5},B\n")
    code, out, err = run(["match", "--pattern", OPERATOR, "--events", str(events),
                          "--engine", name], capsys)
    assert code == 0, err
    assert [json.loads(x) for x in out.splitlines()] == [{"a": [0], "b": [1]}]


@pytest.mark.parametrize(("cells", "row", "value"), [
    ((f"{2**64}", f"{2**64 + 1}"), 0, f"{2**64}"),          # both past int64
    ((f"{I64 - 1}", f"{I64}"), 1, f"{I64}"),                # the second one only
    ((f"{-I64 - 1}", "0"), 0, f"{-I64 - 1}"),
    (("0.5", f"{2**53 + 1}"), 1, f"{2**53 + 1}"),          # beside a decimal: a float
])
def test_csv_timestamps_that_would_round_are_refused(tmp_path: Path, capsys, cells, row,
                                                     value) -> None:
    """As floats, 2**64 and 2**64 + 1 are one timestamp (a tie: the A–B order and the
    span are lost); 2**53 + 1 beside 0.5 would become 2**53. One line naming both."""
    events = tmp_path / "e.csv"
    events.write_text(f"ts,type\n{cells[0]},A\n{cells[1]},B\n")
    code, _, err = run(["match", "--pattern", OPERATOR, "--events", str(events)], capsys)
    assert code == 2
    one_line(err, f"row {row}, field 'ts'", value)


def test_csv_integers_at_the_float_limit_beside_decimals_are_read(tmp_path: Path,
                                                                  capsys) -> None:
    """2**53 is a float exactly: 0.5 and 2**53 read as floats, span ≫ 10, no match."""
    events = tmp_path / "e.csv"
    events.write_text(f"ts,type\n0.5,A\n{2**53},B\n")
    code, out, err = run(["match", "--pattern", OPERATOR, "--events", str(events)], capsys)
    assert code == 0, err
    assert out == ""


def test_jsonl_past_int64_keeps_python_ints(tmp_path: Path, capsys) -> None:
    """JSON integers stay Python ints: 2**64 and 2**64 + 10 are 10 apart (a match),
    2**64 and 2**64 + 11 are not."""
    for gap, want in ((10, [{"a": [0], "b": [1]}]), (11, [])):
        events = tmp_path / f"e{gap}.jsonl"
        events.write_text(json.dumps({"ts": 2**64, "type": "A"}) + "\n"
                          + json.dumps({"ts": 2**64 + gap, "type": "B"}) + "\n")
        for name in NFAS:
            code, out, err = run(["match", "--pattern", OPERATOR, "--events", str(events),
                                  "--engine", name], capsys)
            assert code == 0, err
            assert [json.loads(x) for x in out.splitlines()] == want, name


@pytest.mark.parametrize("text", ["NaN", "nan", "inf", "-inf", "Infinity", "1e400"])
def test_a_non_finite_timestamp_string_is_refused(tmp_path: Path, capsys, text: str) -> None:
    events = tmp_path / "e.jsonl"
    events.write_text(json.dumps({"ts": 1, "type": "A"}) + "\n"
                      + json.dumps({"ts": text, "type": "B"}) + "\n")
    code, _, err = run(["match", "--pattern", OPERATOR, "--events", str(events)], capsys)
    assert code == 2
    one_line(err, "row 1, field 'ts'", "finite")
    with pytest.raises(StreamError, match="row 0, field 'ts'.*finite"):
        Stream.from_rows([{"ts": text}])


def test_an_integer_string_timestamp_is_exact() -> None:
    """'9007199254740993' is 2**53 + 1, not float's 2**53; '1.5' stays a float."""
    s = Stream.from_rows([{"ts": "9007199254740993"}, {"ts": f" {2**64} "}])
    assert [e.ts for e in s] == [2**53 + 1, 2**64]
    assert all(type(e.ts) is int for e in s)
    assert Stream.from_rows([{"ts": "1.5"}])[0].ts == 1.5


def test_parquet_uint64_past_int64_is_refused(tmp_path: Path, capsys) -> None:
    path = tmp_path / "e.parquet"
    pq.write_table(pa.table({"ts": pa.array([1, I64 + 1], pa.uint64()), "type": ["A", "B"]}),
                   path)
    code, _, err = run(["match", "--pattern", OPERATOR, "--events", str(path)], capsys)
    assert code == 2
    one_line(err, "row 1, field 'ts'", str(I64 + 1))


def test_parquet_uint64_within_int64_matches(tmp_path: Path, capsys) -> None:
    path = tmp_path / "e.parquet"
    pq.write_table(pa.table({"ts": pa.array([I64 - 10, I64 - 5], pa.uint64()),
                             "type": ["A", "B"]}), path)
    for name in NFAS:
        code, out, err = run(["match", "--pattern", OPERATOR, "--events", str(path),
                              "--engine", name], capsys)
        assert code == 0, err
        assert [json.loads(x) for x in out.splitlines()] == [{"a": [0], "b": [1]}], name


def test_parquet_with_two_columns_of_one_name_is_one_line(tmp_path: Path, capsys) -> None:
    path = tmp_path / "e.parquet"
    table = pa.Table.from_arrays([pa.array([1, 2]), pa.array(["A", "B"]), pa.array([3, 4])],
                                 names=["ts", "type", "ts"])
    pq.write_table(table, path)
    code, _, err = run(["match", "--pattern", OPERATOR, "--events", str(path)], capsys)
    assert code == 2
    one_line(err, "the header names a column twice: ts")



@pytest.mark.parametrize("name", ["reference", "match-recognize"])
def test_match_recognize_avg_past_the_largest_float(tmp_path: Path, capsys, name) -> None:
    events = tmp_path / "t.csv"
    events.write_text("ts,x\n1,1.7e308\n2,1.7e308\n")
    sql = ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES AVG(A.x) AS m "
           "ONE ROW PER MATCH PATTERN (A A) DEFINE A AS AVG(A.x) <= 1.7e308)")
    code, out, err = run(["match", "--pattern", sql, "--events", str(events),
                          "--engine", name], capsys)
    assert code == 0, err
    assert out.split() == ["M", "1.7e+308"]


@pytest.mark.parametrize(("where", "expected"), [
    # x: A 2**64 + 1, B 2**64, B 2**64 + 1 (a CSV column past int64: exact ints per cell)
    (f"a.x > {2**64}", [[0, 1], [0, 2]]),
    ("a.x = b.x", [[0, 2]]),                      # as float64 all three were equal
    (f"a.x = b.x OR b.x > {2**64 + 1}", [[0, 2]]),
    ("a.x > b.x", [[0, 1]]),
])
@pytest.mark.parametrize("name", NFAS)
def test_csv_attributes_past_int64_compare_exactly(tmp_path: Path, capsys, where, expected,
                                                   name) -> None:
    events = tmp_path / "e.csv"
    events.write_text(f"ts,type,x\n1,A,{2**64 + 1}\n2,B,{2**64}\n3,B,{2**64 + 1}\n")
    code, out, err = run(["match", "--pattern", f"PATTERN SEQ(A a, B b) WHERE {where} "
                          "WITHIN 10", "--events", str(events), "--engine", name], capsys)
    assert code == 0, err
    got = sorted([m["a"][0], m["b"][0]] for m in map(json.loads, out.splitlines()))
    assert got == expected
