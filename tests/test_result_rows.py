"""``kleene match --output`` built as Arrow arrays (issue 33, item 1) writes the bytes the
per-match writer wrote: the expected files below are that writer's outputs on these
inputs (commit 97b0e6f, checked by hand: CSV's quoting and its ``True``/``1e+20`` cells,
JSON's escapes, a group variable's one value written bare in the wide layout, ISO
datetimes in UTC with milliseconds), and each cell is what ``json`` and ``csv`` write of
its value (the standard library as the oracle, over drawn values)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from unittest.mock import patch

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kleene.cli import main, result_rows
from kleene.cli.result_cells import Cells, Column, value_cells
from kleene.cli.result_csv import csv_quoted, plain_csv
from kleene.cli.result_rows import write_to
from kleene.engines.match_columns import MatchColumns
from kleene.reference.match import Match

PATTERN = "PATTERN <{a}, {b+}, {c}>\nWHERE a.L = 'A' AND b.L = 'B' AND c.L = 'C'\nWITHIN 10\n"
EVENTS = ('ts,L,name,price,vol,flag\n0,A,"a ""q"", b",1.5,10,true\n1,B,ünï\\x,2.0,,false\n'
          '2,B,plain,1e20,30,true\n3,C,"x\ny",0.1,40,\n4,A,t,-0.0,5,false\n5,C,u,100,6,true\n')
DATED_PATTERN = ("PATTERN <{a}, {b}, {c}>\nWHERE a.L = 'A' AND b.L = 'B' AND c.L = 'C'\n"
                 "WITHIN 10 seconds\n")
DATED = ("ts,L,name,price\n2024-01-01T00:00:00.001Z,A,n1,1.25\n2024-01-01T00:00:01.5Z,B,n2,2\n"
         "2024-01-01T00:00:02Z,C,n3,3.5\n")

#: Each output's command line after --output.
RUNS = {
    "long": ("p", ["--columns", "name,price,vol,flag"]),
    "wideg": ("p", ["--layout", "wide", "--columns", "b.name,b.ts"]),
    "bare": ("p", ["--layout", "wide"]),
    "dlong": ("d", ["--columns", "name,price"]),
    "dwide": ("d", ["--layout", "wide", "--columns", "a.ts,c.price"]),
}

EXPECTED = {
    ('long', 'jsonl'): (
        '{"match": 0, "variable": "a", "position": 0, "ts": 0, "name": "a \\"q\\", b", '
        '"price": 1.5, "vol": 10, "flag": "true"}\n'
        '{"match": 0, "variable": "b", "position": 1, "ts": 1, "name": "ünï\\\\x", '
        '"price": 2.0, "vol": null, "flag": "false"}\n'
        '{"match": 0, "variable": "b", "position": 2, "ts": 2, "name": "plain", '
        '"price": 1e+20, "vol": 30, "flag": "true"}\n'
        '{"match": 0, "variable": "c", "position": 3, "ts": 3, "name": "x\\ny", "price": 0.1, '
        '"vol": 40, "flag": null}\n'
        '{"match": 1, "variable": "a", "position": 0, "ts": 0, "name": "a \\"q\\", b", '
        '"price": 1.5, "vol": 10, "flag": "true"}\n'
        '{"match": 1, "variable": "b", "position": 1, "ts": 1, "name": "ünï\\\\x", '
        '"price": 2.0, "vol": null, "flag": "false"}\n'
        '{"match": 1, "variable": "b", "position": 2, "ts": 2, "name": "plain", '
        '"price": 1e+20, "vol": 30, "flag": "true"}\n'
        '{"match": 1, "variable": "c", "position": 5, "ts": 5, "name": "u", "price": 100, '
        '"vol": 6, "flag": "true"}\n'
        '{"match": 2, "variable": "a", "position": 0, "ts": 0, "name": "a \\"q\\", b", '
        '"price": 1.5, "vol": 10, "flag": "true"}\n'
        '{"match": 2, "variable": "b", "position": 1, "ts": 1, "name": "ünï\\\\x", '
        '"price": 2.0, "vol": null, "flag": "false"}\n'
        '{"match": 2, "variable": "c", "position": 3, "ts": 3, "name": "x\\ny", "price": 0.1, '
        '"vol": 40, "flag": null}\n'
        '{"match": 3, "variable": "a", "position": 0, "ts": 0, "name": "a \\"q\\", b", '
        '"price": 1.5, "vol": 10, "flag": "true"}\n'
        '{"match": 3, "variable": "b", "position": 1, "ts": 1, "name": "ünï\\\\x", '
        '"price": 2.0, "vol": null, "flag": "false"}\n'
        '{"match": 3, "variable": "c", "position": 5, "ts": 5, "name": "u", "price": 100, '
        '"vol": 6, "flag": "true"}\n'
        '{"match": 4, "variable": "a", "position": 0, "ts": 0, "name": "a \\"q\\", b", '
        '"price": 1.5, "vol": 10, "flag": "true"}\n'
        '{"match": 4, "variable": "b", "position": 2, "ts": 2, "name": "plain", '
        '"price": 1e+20, "vol": 30, "flag": "true"}\n'
        '{"match": 4, "variable": "c", "position": 3, "ts": 3, "name": "x\\ny", "price": 0.1, '
        '"vol": 40, "flag": null}\n'
        '{"match": 5, "variable": "a", "position": 0, "ts": 0, "name": "a \\"q\\", b", '
        '"price": 1.5, "vol": 10, "flag": "true"}\n'
        '{"match": 5, "variable": "b", "position": 2, "ts": 2, "name": "plain", '
        '"price": 1e+20, "vol": 30, "flag": "true"}\n'
        '{"match": 5, "variable": "c", "position": 5, "ts": 5, "name": "u", "price": 100, '
        '"vol": 6, "flag": "true"}\n'
    ),
    ('long', 'csv'): (
        'match,variable,position,ts,name,price,vol,flag\r\n'
        '0,a,0,0,"a ""q"", b",1.5,10,true\r\n'
        '0,b,1,1,ünï\\x,2.0,,false\r\n'
        '0,b,2,2,plain,1e+20,30,true\r\n'
        '0,c,3,3,"x\n'
        'y",0.1,40,\r\n'
        '1,a,0,0,"a ""q"", b",1.5,10,true\r\n'
        '1,b,1,1,ünï\\x,2.0,,false\r\n'
        '1,b,2,2,plain,1e+20,30,true\r\n'
        '1,c,5,5,u,100,6,true\r\n'
        '2,a,0,0,"a ""q"", b",1.5,10,true\r\n'
        '2,b,1,1,ünï\\x,2.0,,false\r\n'
        '2,c,3,3,"x\n'
        'y",0.1,40,\r\n'
        '3,a,0,0,"a ""q"", b",1.5,10,true\r\n'
        '3,b,1,1,ünï\\x,2.0,,false\r\n'
        '3,c,5,5,u,100,6,true\r\n'
        '4,a,0,0,"a ""q"", b",1.5,10,true\r\n'
        '4,b,2,2,plain,1e+20,30,true\r\n'
        '4,c,3,3,"x\n'
        'y",0.1,40,\r\n'
        '5,a,0,0,"a ""q"", b",1.5,10,true\r\n'
        '5,b,2,2,plain,1e+20,30,true\r\n'
        '5,c,5,5,u,100,6,true\r\n'
    ),
    ('wideg', 'jsonl'): (
        '{"match": 0, "first_ts": 0, "last_ts": 3, "b_name": ["ünï\\\\x", "plain"], '
        '"b_ts": [1, 2]}\n'
        '{"match": 1, "first_ts": 0, "last_ts": 5, "b_name": ["ünï\\\\x", "plain"], '
        '"b_ts": [1, 2]}\n'
        # b is a group variable: a list in every row, one event or two (docs/outputs.md)
        '{"match": 2, "first_ts": 0, "last_ts": 3, "b_name": ["ünï\\\\x"], "b_ts": [1]}\n'
        '{"match": 3, "first_ts": 0, "last_ts": 5, "b_name": ["ünï\\\\x"], "b_ts": [1]}\n'
        '{"match": 4, "first_ts": 0, "last_ts": 3, "b_name": ["plain"], "b_ts": [2]}\n'
        '{"match": 5, "first_ts": 0, "last_ts": 5, "b_name": ["plain"], "b_ts": [2]}\n'
    ),
    ('wideg', 'csv'): (
        'match,first_ts,last_ts,b_name,b_ts\r\n'
        '0,0,3,"[""\\u00fcn\\u00ef\\\\x"", ""plain""]","[1, 2]"\r\n'
        '1,0,5,"[""\\u00fcn\\u00ef\\\\x"", ""plain""]","[1, 2]"\r\n'
        '2,0,3,"[""\\u00fcn\\u00ef\\\\x""]",[1]\r\n'
        '3,0,5,"[""\\u00fcn\\u00ef\\\\x""]",[1]\r\n'
        '4,0,3,"[""plain""]",[2]\r\n'
        '5,0,5,"[""plain""]",[2]\r\n'
    ),
    ('bare', 'jsonl'): (
        '{"match": 0, "first_ts": 0, "last_ts": 3, "a": [0], "b": [1, 2], "c": [3]}\n'
        '{"match": 1, "first_ts": 0, "last_ts": 5, "a": [0], "b": [1, 2], "c": [5]}\n'
        '{"match": 2, "first_ts": 0, "last_ts": 3, "a": [0], "b": [1], "c": [3]}\n'
        '{"match": 3, "first_ts": 0, "last_ts": 5, "a": [0], "b": [1], "c": [5]}\n'
        '{"match": 4, "first_ts": 0, "last_ts": 3, "a": [0], "b": [2], "c": [3]}\n'
        '{"match": 5, "first_ts": 0, "last_ts": 5, "a": [0], "b": [2], "c": [5]}\n'
    ),
    ('bare', 'csv'): (
        'match,first_ts,last_ts,a,b,c\r\n'
        '0,0,3,[0],"[1, 2]",[3]\r\n'
        '1,0,5,[0],"[1, 2]",[5]\r\n'
        '2,0,3,[0],[1],[3]\r\n'
        '3,0,5,[0],[1],[5]\r\n'
        '4,0,3,[0],[2],[3]\r\n'
        '5,0,5,[0],[2],[5]\r\n'
    ),
    ('dlong', 'jsonl'): (
        '{"match": 0, "variable": "a", "position": 0, "ts": "2024-01-01T00:00:00.001Z", '
        '"name": "n1", "price": 1.25}\n'
        '{"match": 0, "variable": "b", "position": 1, "ts": "2024-01-01T00:00:01.500Z", '
        '"name": "n2", "price": 2}\n'
        '{"match": 0, "variable": "c", "position": 2, "ts": "2024-01-01T00:00:02.000Z", '
        '"name": "n3", "price": 3.5}\n'
    ),
    ('dlong', 'csv'): (
        'match,variable,position,ts,name,price\r\n'
        '0,a,0,2024-01-01T00:00:00.001Z,n1,1.25\r\n'
        '0,b,1,2024-01-01T00:00:01.500Z,n2,2\r\n'
        '0,c,2,2024-01-01T00:00:02.000Z,n3,3.5\r\n'
    ),
    ('dwide', 'jsonl'): (
        '{"match": 0, "first_ts": "2024-01-01T00:00:00.001Z", '
        '"last_ts": "2024-01-01T00:00:02.000Z", "a_ts": "2024-01-01T00:00:00.001Z", '
        '"c_price": 3.5}\n'
    ),
    ('dwide', 'csv'): (
        'match,first_ts,last_ts,a_ts,c_price\r\n'
        '0,2024-01-01T00:00:00.001Z,2024-01-01T00:00:02.000Z,2024-01-01T00:00:00.001Z,3.5\r\n'
    ),
}

#: The Parquet files' columns and types (``pyarrow.Table.from_pylist`` of the rows).
SCHEMAS = {
    "long": "match: int64, variable: string, position: int64, ts: int64, name: string, "
            "price: double, vol: int64, flag: string",
    "bare": "match: int64, first_ts: int64, last_ts: int64, a: list<element: int64>, "
            "b: list<element: int64>, c: list<element: int64>",
    "dlong": "match: int64, variable: string, position: int64, ts: timestamp[us, tz=UTC], "
             "name: string, price: double",
    "dwide": "match: int64, first_ts: timestamp[us, tz=UTC], last_ts: timestamp[us, tz=UTC], "
             "a_ts: timestamp[us, tz=UTC], c_price: double",
}


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "p.ses").write_text(PATTERN)
    (tmp_path / "p.csv").write_text(EVENTS)
    (tmp_path / "d.ses").write_text(DATED_PATTERN)
    (tmp_path / "d.csv").write_text(DATED)
    return tmp_path


def _write(files: Path, name: str, fmt: str) -> Path:
    stem, extra = RUNS[name]
    out = files / f"{name}.{fmt}"
    assert main(["match", "-q", "--pattern", str(files / f"{stem}.ses"), "--events",
                 str(files / f"{stem}.csv"), "--output", str(out), *extra]) == 0
    return out


@pytest.mark.parametrize(("name", "fmt"), sorted(EXPECTED))
def test_text_outputs_are_the_per_match_writers_bytes(capsys, files, name, fmt):
    assert _write(files, name, fmt).read_bytes() == EXPECTED[name, fmt].encode()


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_parquet_outputs_have_the_per_match_writers_columns(capsys, files, name):
    got = pq.read_table(_write(files, name, "parquet"))
    assert ", ".join(f"{f.name}: {f.type}" for f in got.schema) == SCHEMAS[name]
    expected = [json.loads(line) for line in EXPECTED[name, "jsonl"].splitlines()]
    rows = got.to_pylist()
    assert [r["match"] for r in rows] == [e["match"] for e in expected]
    key = "position" if "position" in got.column_names else "match"
    assert [r[key] for r in rows] == [e[key] for e in expected]


def test_a_group_variable_is_a_list_in_every_parquet_row(capsys, files):
    """b+ binds one B or both (rows 1, 2): a list column of one type, never a value in
    some rows and a list in others (Parquet refused that mix: issue 27, nothing lost)."""
    stem, extra = RUNS["wideg"]
    assert main(["match", "-q", "--pattern", str(files / "p.ses"), "--events",
                 str(files / "p.csv"), "--output", str(files / "w.parquet"), *extra]) == 0
    got = pq.read_table(files / "w.parquet")
    assert got.schema.field("b_ts").type == pa.list_(pa.int64())
    assert got.column("b_name").to_pylist() == [["ünï\\x", "plain"]] * 2 + [["ünï\\x"]] * 2 \
        + [["plain"]] * 2


def test_no_match_writes_a_header_or_nothing(capsys, files):
    (files / "none.ses").write_text(PATTERN.replace("'C'", "'Z'"))
    for fmt, expected in (("csv", b"match,variable,position,ts\r\n"), ("jsonl", b"")):
        out = files / f"none.{fmt}"
        assert main(["match", "-q", "--pattern", str(files / "none.ses"), "--events",
                     str(files / "p.csv"), "--output", str(out), "--allow-missing"]) == 0
        assert out.read_bytes() == expected
    out = files / "none.parquet"
    assert main(["match", "-q", "--pattern", str(files / "none.ses"), "--events",
                 str(files / "p.csv"), "--output", str(out)]) == 0
    assert pq.read_table(out).schema.types == [pa.null()] * 4


VALUES = st.one_of(st.none(), st.integers(-2**63, 2**63 - 1), st.floats(allow_nan=False),
                   st.text(max_size=6), st.booleans())


def _csv_cell(value: object) -> str:
    buffer = io.StringIO()
    csv.writer(buffer).writerow(["", value])
    return buffer.getvalue()[1:-2]


@settings(max_examples=200, deadline=None)
@given(st.lists(VALUES, min_size=1, max_size=8))
def test_python_cells_are_what_json_and_csv_write(values):
    cells = value_cells(values)
    assert cells.json().to_pylist() == [json.dumps(v, ensure_ascii=False) for v in values]
    quoted = [_csv_cell(v) for v in values]
    assert csv_quoted(cells.csv()).to_pylist() == quoted


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.none(), st.floats(allow_nan=False)), min_size=1, max_size=8),
       st.lists(st.one_of(st.none(), st.text(max_size=6)), min_size=1, max_size=8))
def test_arrow_cells_are_what_json_and_csv_write(floats, texts):
    for values, kind in ((floats, pa.float64()), (texts, pa.string())):
        cells = Cells(pa.array(values, kind))
        assert cells.json().to_pylist() == [json.dumps(v, ensure_ascii=False) for v in values]
        assert cells.csv().to_pylist() == ["" if v is None else repr(v)
                                           if isinstance(v, float) else v for v in values]
        expected = pa.array(values) if any(v is not None for v in values) else \
            pa.nulls(len(values))
        assert cells.typed().equals(expected)


@given(st.lists(st.dictionaries(st.sampled_from("abc"), st.sets(st.integers(0, 30), min_size=1,
                                                                  max_size=3), min_size=1),
                max_size=10))
def test_match_columns_give_the_matches_back(mappings):
    matches = {Match.of(m) for m in mappings}
    back = {m for g in MatchColumns.of(matches) for m in g.matches()}
    assert back == matches


CSV_TEXTS = st.one_of(st.none(), st.text(alphabet='ab ,"\r\nü1-', max_size=5))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.one_of(st.none(), st.integers(-2**63, 2**63 - 1)), CSV_TEXTS,
                          CSV_TEXTS), min_size=1, max_size=6),
       st.lists(st.integers(0, 5), min_size=1, max_size=8), st.booleans())
def test_csv_and_json_batches_are_what_the_csv_and_json_modules_write(events, picks, by):
    """Integers and texts, plain or to quote, of events picked (as the long layout's rows
    are, ``by`` their position or not): Arrow's CSV writer where every cell is plain
    (:func:`plain_csv`), else the rows' own text; the bytes of Python's ``csv`` writer
    either way (as ``--output FILE.csv`` wrote them, CRLF line ends), and of ``json``
    for JSON Lines, the rows written in one slice or in slices of two."""
    at = np.array([p % len(events) for p in picks], dtype=np.int64)
    rows = [events[p] for p in at.tolist()]
    ints, texts, more = (list(c) for c in zip(*rows, strict=True))
    key = at if by else None
    cols = [Column("n", Cells(pa.array(ints, pa.int64())), by=key),
            Column("t", Cells(pa.array(texts, pa.string())), by=key),
            Column("u", value_cells(more), by=key)]
    expected = io.StringIO(newline="")
    csv.writer(expected, lineterminator="\r\n").writerows([("n", "t", "u"), *rows])
    lines = [json.dumps(dict(zip("ntu", r, strict=True)), ensure_ascii=False) + "\n"
             for r in rows]
    for batch in (1 << 16, 2):      # one slice of rows, or slices of two
        with patch.object(result_rows, "BATCH", batch):
            for fmt, text in (("csv", expected.getvalue()), ("jsonl", "".join(lines))):
                out = io.BytesIO()
                write_to([cols], out, fmt)
                assert out.getvalue() == text.encode()
    plain = not any(set(t) & set(',"\r\n') for t in texts + more if t is not None)
    assert (plain_csv(cols) is not None) == plain
