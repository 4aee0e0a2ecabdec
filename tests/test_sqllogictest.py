"""The sqllogictest reader (issue 26, item 5) on every shipped DuckDB file and on hand-written
text: record counts equal to counts by a plain line search of the file, hand-picked records
as the file spells them, loops expanded as DuckDB's runner does, and every malformed input
one line naming its file and line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kleene.conformance.sqllogictest import DUCKDB_FILES
from kleene.conformance.sqllogictest.reader import (
    Halt,
    Loop,
    Mode,
    Query,
    Record,
    Require,
    SqlLogicError,
    Statement,
    expand,
    read,
    read_file,
)

SHIPPED = sorted(p for p in DUCKDB_FILES.iterdir() if p.suffix in (".test", ".test_slow"))
ORACLE = DUCKDB_FILES / "test_match_recognize_oracle.test"


def flat(records: tuple[Record, ...]) -> list[Record]:
    """Every record, loops' bodies included, each once (not expanded)."""
    out: list[Record] = []
    for r in records:
        out.append(r)
        if isinstance(r, Loop):
            out += flat(r.body)
    return out


def test_every_shipped_file_is_read() -> None:
    assert len(SHIPPED) == 38


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_record_counts_equal_the_lines_that_start_them(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    records = flat(read_file(path))

    def lines(pattern: str) -> int:
        return len(re.findall(pattern, text, re.M))

    def kind(cls: type[Record]) -> int:
        return sum(isinstance(r, cls) for r in records)

    assert kind(Statement) == lines(r"^statement (ok|error|maybe)\b")
    assert kind(Query) == lines(r"^query [TIR]+\b")
    assert kind(Require) == lines(r"^require ")
    assert kind(Loop) == lines(r"^(loop|foreach) ")
    assert len(records) == kind(Statement) + kind(Query) + kind(Require) + kind(Loop)
    starts = {r.line for r in records}
    numbered = text.split("\n")
    assert all(numbered[n - 1].split()[0] in ("statement", "query", "require", "foreach", "loop")
               for n in starts)


def test_the_oracle_files_first_query_as_written() -> None:
    records = read_file(ORACLE)
    first = next(r for r in records if isinstance(r, Query))
    assert first.line == 54 and first.file == str(ORACLE)
    assert first.types == "TIIII" and first.sort == "nosort" and first.label is None
    assert first.sql.splitlines()[0] == "SELECT sym, start_ts, bottom_ts, end_ts, len"
    assert first.sql.splitlines()[-1] == ") ORDER BY sym, start_ts"
    assert len(first.sql.splitlines()) == 8
    assert first.expected == ("AAA\t1\t3\t5\t5", "AAA\t6\t8\t9\t4", "AAA\t10\t11\t12\t3")
    setup = [r for r in records if isinstance(r, Statement)]
    assert [s.line for s in setup] == [14, 17, 20, 23, 26, 47, 50]
    assert setup[0].sql == "pragma threads=1;" and setup[0].expect == "ok"
    assert setup[1].sql == "CREATE TABLE ticks (sym VARCHAR(4), ts INTEGER, price INTEGER);"
    assert len(setup[4].sql.splitlines()) == 19       # INSERT INTO ticks VALUES and 18 rows


def test_a_query_expecting_no_rows() -> None:
    records = read_file(ORACLE)
    anchored = next(r for r in records if isinstance(r, Query) and r.line == 561)
    assert "PATTERN (^ A{2} $)" in anchored.sql and anchored.expected == ()


def test_statement_error_with_and_without_a_message() -> None:
    errors = {r.line: r for r in read_file(DUCKDB_FILES / "test_match_recognize_errors.test")}
    parsed = errors[26]
    assert isinstance(parsed, Statement) and parsed.expect == "error"
    assert parsed.sql == "SELECT 1 FROM q MATCH_RECOGNIZE(MEASURES i AS x DEFINE A as true)"
    assert parsed.message == "<REGEX>:Parser Error.*requires a PATTERN clause.*"
    old = {r.line: r for r in read_file(DUCKDB_FILES / "test_match_recognize.test")}[102]
    assert isinstance(old, Statement) and old.expect == "error" and old.message == ""
    assert old.connection is None          # `statement error # why`: a comment, no connection
    assert old.sql.startswith("SELECT COUNT(*)\nFROM test AS t MATCH_RECOGNIZE(")


def test_empty_strings_are_written_as_empty() -> None:
    review = {r.line: r for r in read_file(DUCKDB_FILES / "test_match_recognize_review_4.test")}
    query = next(r for r in review.values() if isinstance(r, Query) and r.line < 191 <
                 r.line + len(r.sql.splitlines()) + 2 + len(r.expected))
    assert "99\t(empty)" in query.expected


def test_the_parallel_files_foreach() -> None:
    records = read_file(DUCKDB_FILES / "test_match_recognize_parallel.test")
    loop = next(r for r in records if isinstance(r, Loop))
    assert (loop.line, loop.name, loop.values) == (28, "threads", ("1", "2", "4", "8"))
    assert [type(r).__name__ for r in loop.body] == ["Statement", "Query", "Query"]
    assert len([r for r in expand(records) if isinstance(r, Query)]) == 2 * 4 + 3  # 5 written
    # DuckDB replaces ${threads}; the file writes {threads}, which stays as it is
    first = loop.body[0]
    assert isinstance(first, Statement) and first.sql == "PRAGMA threads={threads}"


def test_a_require_and_its_words() -> None:
    records = read_file(DUCKDB_FILES / "test_match_recognize_stock.test")
    assert records[0] == Require(file=str(DUCKDB_FILES / "test_match_recognize_stock.test"),
                                 line=9, what=("parquet",))


HAND = """\
# a comment
skipif postgresql
onlyif duckdb
query IT rowsort mylabel
SELECT 1, 'a'
UNION ALL SELECT 2, ''
----
1\ta
2\t(empty)

mode skip

statement maybe
SELECT 1

mode unskip

loop i 0 3

foreach t integer bigint

query I
SELECT CAST(${i} AS ${t}) + 0
----
${i}

endloop

endloop

query I valuesort
SELECT 3
----
3

halt

statement ok
SELECT 4
"""


def test_hand_written_records() -> None:
    records = read(HAND, "hand.test")
    query = records[0]
    assert isinstance(query, Query)
    assert query.conditions == ((True, "postgresql"), (False, "duckdb"))
    assert (query.line, query.types, query.sort, query.label) == (4, "IT", "rowsort", "mylabel")
    assert query.sql == "SELECT 1, 'a'\nUNION ALL SELECT 2, ''"
    assert query.expected == ("1\ta", "2\t(empty)")
    assert records[1] == Mode(file="hand.test", line=11, mode="skip")
    assert isinstance(records[2], Statement) and records[2].expect == "maybe"
    outer = records[4]
    assert isinstance(outer, Loop) and outer.values == ("0", "1", "2")
    inner = outer.body[0]
    assert isinstance(inner, Loop) and inner.name == "t"
    assert inner.values == ("integer", "bigint")
    assert isinstance(records[5], Query) and records[5].sort == "valuesort"
    assert isinstance(records[6], Halt) and records[6].line == 36
    assert isinstance(records[7], Statement) and records[7].sql == "SELECT 4"


def test_loops_expand_in_order_with_each_value() -> None:
    looped = [r for r in expand(read(HAND, "hand.test")) if isinstance(r, Query)][1:-1]
    assert [(q.sql, q.expected) for q in looped] == [
        ("SELECT CAST(0 AS integer) + 0", ("0",)), ("SELECT CAST(0 AS bigint) + 0", ("0",)),
        ("SELECT CAST(1 AS integer) + 0", ("1",)), ("SELECT CAST(1 AS bigint) + 0", ("1",)),
        ("SELECT CAST(2 AS integer) + 0", ("2",)), ("SELECT CAST(2 AS bigint) + 0", ("2",))]


def test_foreach_with_two_names_splits_each_value() -> None:
    text = "foreach a,b x,1 y,2\n\nquery I\nSELECT '${a}${b}'\n----\n${b}\n\nendloop\n"
    got = [(r.sql, r.expected) for r in expand(read(text)) if isinstance(r, Query)]
    assert got == [("SELECT 'x1'", ("1",)), ("SELECT 'y2'", ("2",))]


def test_foreach_with_one_name_takes_the_whole_value() -> None:
    text = "foreach a x,1\n\nstatement error\nSELECT '${a}'\n----\n${a}\n\nendloop\n"
    got = [(r.sql, r.message) for r in expand(read(text)) if isinstance(r, Statement)]
    assert got == [("SELECT 'x,1'", "x,1")]


@pytest.mark.parametrize(("text", "line", "says"), [
    ("statement ok\nSELECT 1\n\nfrobnicate\n", 4, "unknown command 'frobnicate'"),
    ("query IX\nSELECT 1\n", 1, "one of T, I, R per column"),
    ("query\nSELECT 1\n", 1, "column types"),
    ("statement ok\nSELECT 1\n----\nboom\n", 1, "only statement error has an expected message"),
    ("statement fine\nSELECT 1\n", 1, "ok, error or maybe"),
    ("statement ok\n\n", 1, "no SQL"),
    ("# c\nendloop\n", 2, "endloop without a loop"),
    ("loop i 0 2\n\nstatement ok\nSELECT 1\n", 4, "has no endloop"),
    ("loop i zero 2\n\nendloop\n", 1, "two integers"),
    ("foreach t\n\nendloop\n", 1, "a name and its values"),
    ("halt\nstatement ok\nSELECT 1\n", 2, "stands alone"),
    ("mode\n", 1, "one word"),
    ("skipif\nstatement ok\nSELECT 1\n", 1, "names a system"),
    ("onlyif duckdb\n\nstatement ok\nSELECT 1\n", 2, "followed by no record"),
    ("hash-threshold 8\n", 1, "DuckDB's own runner"),
    ("load db.duckdb\n", 1, "DuckDB's own runner"),
    ("query I\nSELECT 1\n----\n3 values hashing to 0123456789abcdef0123456789abcdef\n", 1,
     "hash"),
    ("foreach a,b x,1 y\n\nstatement ok\nSELECT 1\n\nendloop\n", 1, "has 1 parts"),
])
def test_malformed_input_is_one_line_naming_file_and_line(text: str, line: int,
                                                          says: str) -> None:
    with pytest.raises(SqlLogicError) as caught:
        list(expand(read(text, "bad.test")))
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"bad.test:{line}: ")
    assert says in message


def test_an_unreadable_file_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(SqlLogicError, match=r"^.*missing\.test:0: cannot read it"):
        read_file(tmp_path / "missing.test")
