"""The sqllogictest runner (issue 26, item 5): values rendered and compared by DuckDB's rules
(expected strings worked out by hand from those rules), a hand-written file with a query
that passes, one that fails on purpose, expected errors and the sort modes (a stub
``recognize`` returns hand-written rows, and the reference must agree with them), and THE
target: every query of ``test_match_recognize_oracle.test`` (Oracle Database's own
answers) passes through Kleene's reference."""

from __future__ import annotations

import datetime
import re
from decimal import Decimal

import duckdb
import pyarrow as pa
import pytest

from kleene.conformance.sqllogictest import DUCKDB_FILES
from kleene.conformance.sqllogictest.reader import Query, Statement, expand, read, read_file
from kleene.conformance.sqllogictest.runner import (
    FileReport,
    Outcome,
    Status,
    feature_table,
    holds_recognition,
    reference,
    run_file,
    run_text,
)
from kleene.conformance.sqllogictest.values import Rendered, mismatch, render, same
from kleene.data.sql import Recognize
from kleene.reference.errors import BudgetExceeded
from kleene.reference.match_recognize.ast import MatchRecognize
from kleene.reference.match_recognize.table import Table

ORACLE = DUCKDB_FILES / "test_match_recognize_oracle.test"


@pytest.fixture(scope="module")
def con() -> duckdb.DuckDBPyConnection:
    return duckdb.connect()


def test_values_render_as_duckdbs_runner_prints_them(con: duckdb.DuckDBPyConnection) -> None:
    table = pa.table({
        "i": pa.array([42, None], pa.int32()),
        "d": pa.array([Decimal("1.5"), Decimal("-0.25")], pa.decimal128(4, 2)),
        "f": pa.array([0.5, 1e20], pa.float64()),
        "b": pa.array([True, False]),
        "s": pa.array(["x", ""]),
        "day": pa.array([datetime.date(2024, 1, 31), None]),
    })
    got = render(table, con)
    assert got.types == ("INTEGER", "DECIMAL(4,2)", "DOUBLE", "BOOLEAN", "VARCHAR", "DATE")
    assert got.rows == (("42", "1.50", "0.5", "1", "x", "2024-01-31"),
                        ("NULL", "-0.25", "1e+20", "0", "(empty)", "NULL"))
    assert got.lines()[0] == "42\t1.50\t0.5\t1\tx\t2024-01-31"
    assert render(pa.table({}), con) == Rendered((), ())


@pytest.mark.parametrize(("got", "expected", "sql_type", "equal"), [
    ("1", "1", "INTEGER", True),
    ("1", "1.0", "BIGINT", True),            # both cast to BIGINT
    ("1", "2", "BIGINT", False),
    ("1.50", "1.5", "DECIMAL(4,2)", True),
    ("0.3333333333333333", "0.333", "DOUBLE", True),   # within 1 %
    ("0.5", "0.6", "DOUBLE", False),
    ("NULL", "0", "INTEGER", False),
    ("0", "NULL", "INTEGER", False),
    ("1", "true", "BOOLEAN", True),
    ("0", "false", "BOOLEAN", True),
    ("0", "true", "BOOLEAN", False),
    ("a", "A", "VARCHAR", False),
    ("abc", "<REGEX>:a.c", "VARCHAR", True),
    ("abc", "<!REGEX>:a.c", "VARCHAR", False),
    ("abc", "<!REGEX>:x", "VARCHAR", True),
    ("x", "one", "INTEGER", False),
])
def test_values_compare_by_their_column_type(con: duckdb.DuckDBPyConnection, got: str,
                                             expected: str, sql_type: str, equal: bool) -> None:
    assert same(got, expected, sql_type, con) is equal


def query(expected: tuple[str, ...], types: str, sort: str) -> Query:
    record = read(f"query {types} {sort}\nSELECT 1\n----\n" + "\n".join(expected) + "\n")[0]
    assert isinstance(record, Query)
    return record


GOT = Rendered(("INTEGER", "VARCHAR"), (("2", "b"), ("1", "a")))


@pytest.mark.parametrize(("expected", "sort", "why"), [
    (("2\tb", "1\ta"), "nosort", None),
    (("2", "b", "1", "a"), "nosort", None),                 # one value a line
    (("1\ta", "2\tb"), "nosort", "row 1, column 1: got 2, expected 1"),
    (("1\ta", "2\tb"), "rowsort", None),
    (("2\tb", "1\ta"), "rowsort", "row 1, column 1: got 1, expected 2"),  # not sorted
    (("1", "2", "a", "b"), "valuesort", None),
    (("2\tb",), "nosort", "2 rows where 1 are expected"),
    (("2\tb\tx", "1\ta\tx"), "nosort", "expected row 1 has 3 values, not 2"),
    (("2", "b", "1"), "nosort", "3 expected values do not fill rows of 2"),
])
def test_expected_rows_in_each_layout_and_sort_mode(con: duckdb.DuckDBPyConnection,
                                                    expected: tuple[str, ...], sort: str,
                                                    why: str | None) -> None:
    assert mismatch(query(expected, "IT", sort), GOT, con) == why


def test_a_column_count_other_than_the_query_lines(con: duckdb.DuckDBPyConnection) -> None:
    assert mismatch(query(("2\tb", "1\ta"), "III", "nosort"), GOT, con) == \
        "2 columns where the query line says 3"


@pytest.mark.parametrize(("sql", "holds"), [
    ("SELECT * FROM t MATCH_RECOGNIZE (PATTERN (A))", True),
    ("from t match_recognize(pattern (a))", True),
    ('SELECT "match_recognize"(x) OVER () FROM range(3) t(x)', False),
    ("SELECT 'MATCH_RECOGNIZE (' AS s", False),
    ("SELECT 1 -- MATCH_RECOGNIZE (\n", False),
    ("SELECT 1 /* MATCH_RECOGNIZE ( */", False),
    ("SELECT match_recognize_count FROM t", False),
])
def test_which_sql_holds_a_recognition(sql: str, holds: bool) -> None:
    assert holds_recognition(sql) is holds


MR = ("SELECT g, n FROM t MATCH_RECOGNIZE (PARTITION BY g ORDER BY v MEASURES COUNT(*) AS n "
      "PATTERN (A+) DEFINE A AS v > 0)")
HAND = f"""\
statement ok
CREATE TABLE t (g INTEGER, v INTEGER)

statement ok
INSERT INTO t VALUES (1, 10), (1, 20), (2, 30)

# one match per partition: g = 1 has two rows, g = 2 one
query II
{MR} ORDER BY g
----
1\t2
2\t1

# wrong on purpose
query II
{MR} ORDER BY g
----
1\t3
2\t1

query II rowsort
{MR} ORDER BY g DESC
----
1\t2
2\t1

query II nosort
{MR} ORDER BY g DESC
----
1\t2
2\t1

query II valuesort
{MR}
----
1
1
2
2

statement error
SELECT * FROM t MATCH_RECOGNIZE (ORDER BY v MEASURES COUNT(*) AS n PATTERN (A) DEFINE B AS true)
----
define-not-in-pattern

statement error
SELECT nosuch FROM t
----
a wording DuckDB does not use

statement ok
SELECT nosuch FROM t

statement error
SELECT 1

query I
SELECT 1 FROM t MATCH_RECOGNIZE (ORDER BY v PATTERN (A) DEFINE AUTO)
----
1

skipif duckdb
query I
SELECT 2
----
3
"""
#: (line, status) of each record of HAND, worked out by hand
HAND_OUTCOMES = [(1, "passed"), (4, "passed"), (8, "passed"), (15, "failed"), (21, "passed"),
                 (27, "failed"), (33, "passed"), (41, "passed"), (46, "passed"), (51, "failed"),
                 (54, "failed"), (57, "unsupported"), (63, "skipped")]


def stub(clause: MatchRecognize, table: Table) -> Table:
    """The hand-computed output of MR over t: (g, n) per partition."""
    assert table == Table(("g", "v"), ((1, 10), (1, 20), (2, 30)))
    assert [d.var for d in clause.defines] == ["A"]
    return Table(("G", "N"), ((2, 1), (1, 2)))


@pytest.mark.parametrize("recognize", [stub, reference()], ids=["stub", "reference"])
def test_a_hand_written_file(recognize: Recognize) -> None:
    report = run_text(HAND, "hand.test", recognize)
    assert [(o.record.line, o.status) for o in report.outcomes] == HAND_OUTCOMES
    by_line = {o.record.line: o for o in report.outcomes}
    assert by_line[15].reason == "row 1, column 2: got 2, expected 3"
    assert by_line[15].got == ("1\t2", "2\t1") and by_line[15].recognizes
    assert by_line[27].got == ("2\t1", "1\t2")
    assert by_line[41].note == ""        # Kleene says define-not-in-pattern, as expected
    assert by_line[46].note.startswith("the file expects the message 'a wording DuckDB")
    assert "nosuch" in by_line[51].reason
    assert by_line[54].reason == "succeeded where an error is expected"
    assert "DEFINE AUTO" in by_line[57].reason
    assert by_line[63].reason == "skipif duckdb"
    assert (report.count("passed"), report.count("failed", recognizing=True)) == (7, 2)


def test_a_spent_budget_is_no_verdict_on_an_expected_error() -> None:
    """A ``statement error`` whose recognition runs out of time fails: Kleene did not find
    the SQL wrong, it gave up (DuckDB's memory-limit records would pass by timing)."""
    def slow(clause: MatchRecognize, table: Table) -> Table:
        raise BudgetExceeded("seconds", 1, "enumerating matches")
    text = ("statement ok\nCREATE TABLE t (v INTEGER)\n\nstatement error\n"
            "SELECT 1 FROM t MATCH_RECOGNIZE (ORDER BY v PATTERN (A) DEFINE A AS v > 0)\n")
    report = run_text(text, "slow.test", slow)
    assert [o.status for o in report.outcomes] == ["passed", "failed"]
    assert report.outcomes[1].reason.startswith("no verdict: budget seconds=1 exceeded")


def test_a_crash_fails_its_record_and_the_file_goes_on() -> None:
    def crashing(clause: MatchRecognize, table: Table) -> Table:
        return Table(("x",), ((1 // 0,),))
    text = HAND.split("# wrong on purpose")[0] + "statement ok\nSELECT 1\n"
    report = run_text(text, "crash.test", crashing)
    assert [o.status for o in report.outcomes] == ["passed", "passed", "failed", "passed"]
    reason = report.outcomes[2].reason
    assert reason.startswith("crashed: ZeroDivisionError: integer division or modulo by zero (")
    assert re.search(r"\(test_sqllogictest_runner\.py:\d+\)$", reason)   # where: crashing()


def test_a_missing_requirement_skips_the_rest_of_the_file() -> None:
    text = "statement ok\nSELECT 1\n\nrequire nosuchextension\n\nstatement ok\nSELECT 2\n"
    report = run_text(text, "req.test")
    assert [o.status for o in report.outcomes] == ["passed"]
    assert report.skipped is not None and report.skipped.startswith("require nosuchextension")


def test_halt_and_mode_skip() -> None:
    text = ("mode skip\n\nstatement ok\nSELECT 1\n\nmode unskip\n\nstatement ok\nSELECT 2\n\n"
            "halt\n\nstatement ok\nSELECT 3\n")
    report = run_text(text, "halt.test")
    assert [(o.record.line, o.status, o.reason) for o in report.outcomes] == [
        (3, "skipped", "mode skip"), (8, "passed", "")]
    assert report.skipped == "halt on line 11"


def test_the_feature_table_counts_recognizing_records_by_construct() -> None:
    def outcome(status: Status, features: tuple[str, ...]) -> Outcome:
        record = Statement(file="f", line=1, sql="SELECT 1", expect="ok")
        return Outcome(record, status, features=features)
    reports = [FileReport("f", (outcome("passed", ("permute", "skip")),
                                outcome("failed", ("skip",)))),
               FileReport("g", (outcome("unsupported", ()), outcome("passed", ("skip",))))]
    assert feature_table(reports) == {
        "permute": {"passed": 1, "failed": 0, "explained": 0, "unsupported": 0, "skipped": 0},
        "skip": {"passed": 2, "failed": 1, "explained": 0, "unsupported": 0, "skipped": 0}}


def test_every_query_of_the_oracle_file_passes_through_the_reference() -> None:
    report = run_file(ORACLE)
    assert report.skipped is None
    queries = [o for o in report.outcomes if isinstance(o.record, Query)]
    assert len(queries) == 60 and all(o.recognizes for o in queries)
    assert [(o.where, o.reason) for o in report.outcomes if o.status != "passed"] == []
    assert len(report.outcomes) == 67
    # per construct (the registry's constructs_of), against a plain search of the queries
    features = feature_table([report])
    for construct, written in (("permute", "PERMUTE("), ("subset", "SUBSET "),
                               ("exclusion", "{-")):
        assert features[construct]["passed"] == sum(written in o.record.sql for o in queries)


def test_the_oracle_file_catches_a_recognizer_that_drops_a_row() -> None:
    exact = reference()

    def lossy(clause: MatchRecognize, table: Table) -> Table:
        out = exact(clause, table)
        return Table(out.names, out.rows[:-1])
    report = run_file(ORACLE, lossy)
    failed = [o for o in report.outcomes if o.status == "failed"]
    # every query whose recognition outputs at least one row loses it ("nothing matches"
    # and the like output none)
    assert len(failed) >= 50
    for o in failed:
        assert isinstance(o.record, Query) and o.recognizes and o.got is not None
        assert o.reason == f"{len(o.got)} rows where {len(o.got) + 1} are expected"


#: The shipped files whose every record passes through the reference (besides the Oracle
#: file): expected results are DuckDB's (and, for the two .test_slow files, Oracle's or a
#: second implementation's), never Kleene's.
PASSING = ["test_match_recognize_oracle.test_slow", "test_match_recognize_crosscheck.test_slow",
           "test_match_recognize_aggregate_idioms.test", "test_match_recognize_anchors.test",
           "test_match_recognize_nulls.test"]


@pytest.mark.parametrize("name", PASSING)
def test_files_that_pass_whole(name: str) -> None:
    report = run_file(DUCKDB_FILES / name)
    assert report.skipped is None
    assert [(o.where, o.status, o.reason) for o in report.outcomes
            if o.status != "passed"] == []


@pytest.mark.slow
def test_every_shipped_file_runs_to_its_end() -> None:
    """No record of any file ends the run: each has an outcome (a file stops early only by
    a ``require`` or ``halt``, which none of them has unmet)."""
    recognize = reference(time_limit=1.0)
    for path in sorted(DUCKDB_FILES.glob("*.test*")):
        records = [r for r in expand(read_file(path)) if isinstance(r, Statement | Query)]
        report = run_file(path, recognize)
        assert report.skipped is None, path.name
        assert [o.record for o in report.outcomes] == records
