"""The fast CSV path of the table doors (kleene.data.csvfast): Arrow's reading of a file
under DuckDB's sniffed dialect and types is DuckDB's own ``read_csv``, value for value,
or the fast path declines.

The oracle is DuckDB's reader itself (the values the doors read before the fast path):
on drawn files (numbers spelt many ways, text with quotes, commas and spaces, empty and
quoted-empty cells, ``NULL`` spelt out, dates, mixed line endings) the fast table equals
DuckDB's (types, names, each value; NaN and -0.0 as themselves), or the fast path
returned ``None``; where DuckDB refuses the file, the fast path declines too. A second
property forces the column types (as DuckDB's sniffer does from a sample, past which
the file may hold any spelling) and compares with DuckDB's ``read_csv`` under the same
types and dialect. The hand-written cases check the fast path is taken where it should be
(a test that always declined would pass the properties).
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pyarrow as pa
import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from kleene.data.csvfast import TYPES, fast_csv, read_under
from kleene.data.sql import run_over
from kleene.reference.match_recognize.parser import parse_statement

INTS = st.one_of(
    st.integers(-(2 ** 63), 2 ** 63 - 1).map(str),
    st.integers(-(2 ** 70), 2 ** 70).map(str),
    st.integers(0, 999).map(lambda i: f"00{i}"),
    st.sampled_from(["+5", " 7", "8 ", "0x1F", "0X1f", "0xFFFFFFFFFFFFFFFF", "1_000",
                     "1e3", "1.5", "2.5", "-0", "١٢", "--1", "+-1", "0b101", "0x8000000000000000",
                     "-0x1"]),
)
FLOATS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.floats(width=32).map(str),
    st.sampled_from(["nan", "NaN", "-nan", "inf", "-inf", "Infinity", "-Infinity", "INF",
                     "1e5", "1E5", ".5", "5.", "-0", "-0.0", "+1.5", " 1.5", "1.5 ",
                     "1_000.5", "0x1p3", "1.5f", "1e400", "-1e-400", "1,5", "1e", "e5"]),
)
TEXT = st.text(alphabet=st.sampled_from(list("ab Z;|é€#'\\")), max_size=8)
#: Text with a quote, a comma, a tab or a line ending in it.
HOSTILE = st.text(alphabet=st.sampled_from(list('ab ,"\t\n\r')), min_size=1, max_size=6)
OTHER = st.one_of(HOSTILE, st.sampled_from([
    "", '""', "NULL", "null", "N/A", "2020-01-02", "2020-13-45", "2020-01-02 10:00:00",
    "10:30", "true", "FALSE", " ", "-"]))
#: The cells each column type is sniffed from (and more spellings of them).
SPELT = {"BIGINT": "int", "DOUBLE": "float", "VARCHAR": "text"}
CELLS = {"int": INTS, "float": FLOATS, "text": TEXT, "any": st.one_of(INTS, FLOATS, TEXT,
                                                                      OTHER)}


@st.composite
def csv_files(draw: st.DrawFn) -> bytes:
    """A CSV file's bytes: a header of 2-4 names, 0-12 rows of cells of a drawn kind per
    column; in some files some odd cells, some cells quoted, some lines ended otherwise;
    perhaps a BOM, a blank line, no final line ending."""
    width = draw(st.integers(2, 4))
    kinds = [draw(st.sampled_from(list(CELLS))) for _ in range(width)]
    names = [draw(st.sampled_from(["a", "b", "price", "x y", "a"])) + str(i)
             for i in range(width)]
    if draw(st.integers(0, 9)) == 0:
        names[-1] = draw(st.sampled_from([" c", "", names[0], '"q"', "d,e"]))
    odd, quoting, mixed = (draw(st.integers(0, 3)) == 0 for _ in range(3))
    rows = []
    for _ in range(draw(st.integers(0, 12))):
        row = [draw(OTHER) if odd and draw(st.integers(0, 5)) == 0 else draw(CELLS[k])
               for k in kinds]
        rows.append([quoted(c) if quoting and draw(st.booleans()) else c for c in row])
    ending = draw(st.sampled_from(["\n", "\n", "\r\n", "\r"]))
    lines = [",".join(names)] + [",".join(r) for r in rows]
    if draw(st.booleans()) and rows:
        lines.insert(draw(st.integers(1, len(lines))), "")
    out = ""
    for line in lines:
        out += line + (draw(st.sampled_from(["\n", "\r\n"])) if mixed and draw(
            st.booleans()) else ending)
    if draw(st.booleans()):
        out = out.removesuffix(ending)
    return (b"\xef\xbb\xbf" if draw(st.integers(0, 9)) == 0 else b"") + out.encode()


def quoted(cell: str) -> str:
    return '"' + cell.replace('"', '""') + '"'


def plain(table: pa.Table) -> tuple[object, ...]:
    """A table as comparable values: its schema, then each row with every float as its
    ``repr`` (NaN equals NaN, -0.0 is not 0.0)."""
    rows = [tuple(repr(v) if isinstance(v, float) else v for v in row.values())
            for row in table.to_pylist()]
    return (tuple((f.name, str(f.type)) for f in table.schema), *rows)


def duckdb_table(path: Path, options: str = "") -> pa.Table | None:
    """DuckDB's ``read_csv`` of ``path`` (with ``options``, SQL), or ``None`` if it
    refuses."""
    connection = duckdb.connect()
    try:
        return connection.execute(f"SELECT * FROM read_csv(?{options})",
                                  [str(path)]).to_arrow_table()
    except duckdb.Error:
        return None
    finally:
        connection.close()


@pytest.mark.slow
@given(csv_files())
def test_fast_path_is_duckdbs_reading_or_declines(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("csv") / "t.csv"
    path.write_bytes(data)
    connection = duckdb.connect()
    try:
        fast = fast_csv(path, connection)
    finally:
        connection.close()
    event("declined" if fast is None else "read by Arrow")
    if fast is None:
        return
    duck = duckdb_table(path)
    assert duck is not None, "DuckDB refuses the file the fast path read"
    assert plain(fast) == plain(duck)


@pytest.mark.slow
@given(st.data())
def test_values_past_the_sample_parse_as_duckdb_casts_them(tmp_path_factory, data):
    """Under the types DuckDB sniffed from a sample, a later cell spelt otherwise: Arrow
    parses it to DuckDB's value, or the fast path declines."""
    kinds = data.draw(st.lists(st.sampled_from(sorted(TYPES)), min_size=2, max_size=3))
    odd = data.draw(st.sampled_from(kinds))   # one column's cells of any spelling
    rows = data.draw(st.lists(st.tuples(*[CELLS["any" if k == odd else SPELT[k]]
                                          for k in kinds]), max_size=8))
    names = [f"c{i}" for i in range(len(kinds))]
    text = "\n".join([",".join(names)] + [",".join(r) for r in rows]) + "\n"
    path = tmp_path_factory.mktemp("csv") / "t.csv"
    path.write_bytes(text.encode())
    fast = read_under(text.encode(), names, [TYPES[k] for k in kinds], ",", b"\n")
    event("declined" if fast is None else "read by Arrow")
    if fast is None:
        return
    # the dialect and types as sniff_csv says them to read_csv (its Prompt column)
    columns = ", ".join(f"'{n}': '{k}'" for n, k in zip(names, kinds, strict=True))
    duck = duckdb_table(path, ", auto_detect=false, delim=',', quote='', escape='', "
                        "new_line='\\n', skip=0, comment='', header=true, "
                        f"columns={{{columns}}}")
    assert duck is not None, "DuckDB refuses what Arrow read"
    assert plain(fast) == plain(duck)


def fast(tmp_path: Path, text: str | bytes) -> pa.Table | None:
    path = tmp_path / "t.csv"
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    connection = duckdb.connect()
    try:
        return fast_csv(path, connection)
    finally:
        connection.close()


def test_plain_files_take_the_fast_path(tmp_path):
    # by hand: the sniffer types id BIGINT, price DOUBLE, the rest VARCHAR; an empty cell
    # is NULL and a NULL spelt out is text
    table = fast(tmp_path, "id,name,price,note\n1,INTC,27.85,NULL\n2,RIMM,-0,\n"
                           "3, QQQ ,1e3,a b\n")
    assert table is not None
    assert table.schema == pa.schema([("id", pa.int64()), ("name", pa.string()),
                                      ("price", pa.float64()), ("note", pa.string())])
    assert table.to_pylist() == [
        {"id": 1, "name": "INTC", "price": 27.85, "note": "NULL"},
        {"id": 2, "name": "RIMM", "price": -0.0, "note": None},
        {"id": 3, "name": " QQQ ", "price": 1000.0, "note": "a b"}]
    crlf = fast(tmp_path, b"\xef\xbb\xbfa\tb\r\n1\tx\r\n\r\n2\ty\r\n")
    assert crlf is not None and crlf.to_pylist() == [{"a": 1, "b": "x"}, {"a": 2, "b": "y"}]


@pytest.mark.parametrize("text", [
    'a,b\n1,"x,y"\n',                 # quoted: DuckDB drops spaces around quotes
    "a,b\n1,2020-01-02\n",            # a date: DuckDB's own parse
    "a,b\n1,true\n",                  # a boolean
    "a\n1\n\n2\n",                    # one column: the empty line is a NULL row
    "a,b\n1,x\r\n2,y\n",              # mixed line endings: DuckDB refuses
    "a,a\n1,2\n",                     # DuckDB renames the second a
    " a,b\n1,2\n",                    # DuckDB trims the name
    "#c\na,b\n1,2\n",                 # a comment line
    "a,b\n" + "".join(f"{i},{i}\n" for i in range(25_000)) + "1,1.5\n",  # 1.5 read as 2
])
def test_declines_where_the_readers_differ(tmp_path, text):
    assert fast(tmp_path, text) is None


def test_declines_gzip(tmp_path):
    path = tmp_path / "t.csv.gz"
    path.write_bytes(b"\x1f\x8b")
    assert fast_csv(path, duckdb.connect()) is None


def test_run_over_a_csv_file_is_run_over_duckdbs_table(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("ts,sym,price\n1,A,5\n2,A,4\n3,A,6\n4,B,3\n5,B,2\n6,B,4\n")
    statement = parse_statement(
        "SELECT * FROM t MATCH_RECOGNIZE (PARTITION BY sym ORDER BY ts MEASURES "
        "FIRST(D.ts) AS bottom PATTERN (S D+ U+) DEFINE D AS price < PREV(price), "
        "U AS price > PREV(price))")
    expected = {("A", 2), ("B", 5)}   # by hand: each symbol falls once, then rises
    got = run_over(path, statement)
    assert {tuple(r.values()) for r in got.to_pylist()} == expected
    assert run_over(duckdb_table(path), statement, name="t").equals(got)
