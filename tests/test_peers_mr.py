"""``make peers --parts mr`` without the peers installed: recognitions sent to a worker all
at once and answered from what it sent back (conformance/adapters/native.py), Flink's rows
in time order, the drawn recognitions judged and shrunk against the reference
(mr_generated.py), Flink's worker splitting a failing job down to the failing statement
(flink_worker.py, with a stand-in table environment), the failures' classes
(mr_classes.py) and the compliance table (mr_report.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from kleene.conformance.adapters import (
    flink_worker,
    mr_duckdb,
    mr_generated,
    mr_report,
    mr_shrink,
)
from kleene.conformance.adapters.mr_classes import classify
from kleene.conformance.adapters.mr_suite import EngineRun, Verdict, run_engine
from kleene.conformance.adapters.native import Native, PeerError, error_line
from kleene.conformance.generated_tables import NO_COLUMN
from kleene.data.sql import table_of
from kleene.reference.errors import Unsupported
from kleene.reference.match_recognize.ast import MatchRecognize
from kleene.reference.match_recognize.semantics import recognize
from tests.test_peers_native import Answering, ReferenceWorker, recognition

FILE = """statement ok
CREATE TABLE t (g VARCHAR, ts INTEGER, v DOUBLE);

statement ok
INSERT INTO t VALUES ('x', 3, 6), ('x', 1, 5), ('x', 2, 4), ('y', 1, 2), ('y', 2, 1);

query TII
SELECT * FROM t MATCH_RECOGNIZE (
  PARTITION BY g ORDER BY ts MEASURES FIRST(ts) AS s, LAST(ts) AS e
  PATTERN (A B+) DEFINE B AS v < PREV(v)) ORDER BY g
----
x	1	2
y	1	2

query I
SELECT n FROM t MATCH_RECOGNIZE (
  ORDER BY ts, g MEASURES COUNT(*) AS n PATTERN (A+) DEFINE A AS v > 4)
-- in order x1 (5), y1 (2), x2 (4), y2 (1), x3 (6): A+ at x1, then at x3
----
1
1
"""


class CountingWorker(ReferenceWorker):
    """The reference as a worker, counting the ``tables`` requests it gets."""

    def __init__(self) -> None:
        super().__init__()
        self.batches: list[int] = []

    def ask(self, message: dict[str, Any], timeout: float | None = None) -> dict[str, Any]:
        if message["cmd"] == "tables":
            self.batches.append(len(message["requests"]))
        return super().ask(message, timeout)


@pytest.mark.parametrize("peer", ["pmr", "flink"])
def test_a_files_recognitions_go_to_the_worker_at_once_and_pass(peer: str,
                                                                 tmp_path: Path) -> None:
    path = tmp_path / "f.test"
    path.write_text(FILE, encoding="utf-8")
    worker = CountingWorker()
    run = run_engine(peer, Native(worker, peer), [path])  # type: ignore[arg-type]
    assert worker.batches == [2]      # both recognitions in one request, none asked again
    assert run.counts() == {"passed": 2, "failed": 0, "declined": 0}
    assert [v.where for v in run.verdicts] == [f"{path}:7", f"{path}:15"]


def clause(sql: str) -> MatchRecognize:
    return recognition(sql).clause


def test_flink_gets_its_rows_in_time_order_and_declines_a_null_time() -> None:
    c = clause("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES COUNT(*) AS n "
               "PATTERN (A) DEFINE A AS v > 0)")
    table = pa.table({"ts": [3, 1, 2, 1], "v": [30, 10, 20, 11]})
    native = Native(ReferenceWorker(), "flink")  # type: ignore[arg-type]
    assert native.message(c, table)["rows"] == [[1, 10], [1, 11], [2, 20], [3, 30]]
    counted = clause("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES COUNT(A.*) AS n "
                     "PATTERN (A) DEFINE A AS v > 0)")
    assert "COUNT(A.`kleene_rt`) AS N" in native.message(counted, table)["sql"]
    # the standard's default skip, which the printer leaves out, is said to every peer
    for peer in ("flink", "pmr"):
        sent = Native(ReferenceWorker(), peer).message(c, table)["sql"]  # type: ignore[arg-type]
        assert "AFTER MATCH SKIP PAST LAST ROW\nPATTERN (A)" in sent
    assert Native(ReferenceWorker(), "pmr").message(c, table)["rows"][0] == [3, 30]  # type: ignore[arg-type]
    with pytest.raises(Unsupported, match="NULL in the first ORDER BY column"):
        native.message(c, pa.table({"ts": [1, None], "v": [1, 2]}))


def test_an_error_is_one_line_without_pyflinks_wrapping_or_the_java_stack() -> None:
    said = ("Py4JJavaError: An error occurred while calling o17.sqlQuery.\n: "
            "org.apache.flink.table.api.ValidationException: SQL validation failed. No match "
            "found for MATCH_NUMBER().\n\tat org.apache.flink.table.planner.X(X.scala:205)\n")
    assert error_line(said) == ("ValidationException: SQL validation failed. No match found "
                                "for MATCH_NUMBER().")


class FakeColumn:
    """A column of a planned statement, as PyFlink's resolved schema gives it."""

    def get_name(self) -> str:
        return "n"

    def __str__(self) -> str:
        return "`n` BIGINT NOT NULL"


class FakeTable:
    """A planned statement of the stand-in environment: its rows, or a failing job."""

    def __init__(self, rows: list[tuple[int, str]], fails: bool) -> None:
        self.rows, self.fails = rows, fails

    def get_resolved_schema(self) -> Any:
        return self

    def get_columns(self) -> list[FakeColumn]:
        return [FakeColumn()]

    def union_all(self, other: FakeTable) -> FakeTable:
        return FakeTable(self.rows + other.rows, self.fails or other.fails)

    def execute(self) -> Any:
        if self.fails:
            raise RuntimeError("JobExecutionException: the job failed")
        return self

    def collect(self) -> Any:
        return self

    def __enter__(self) -> list[tuple[int, str]]:
        return self.rows

    def __exit__(self, *args: object) -> None:
        return None


class FakeEnv:
    """A table environment: ``BAD`` fails at planning, ``CRASH`` when its job runs, any
    other statement ``SELECT <n>`` answers one row, ``n``; ``jobs`` counts the jobs."""

    def __init__(self) -> None:
        self.jobs = 0

    def execute_sql(self, sql: str) -> None:
        return None

    def sql_query(self, sql: str) -> FakeTable:
        if "BAD" in sql:
            raise ValueError("ValidationException: BAD")
        if not sql.startswith("SELECT ") or " AS q, " not in sql:
            return FakeTable([], False)
        k = int(sql.split()[1])
        inner = sql.split("FROM (", 1)[1]
        return FakeTable([(k, json.dumps([inner.split()[1]]))], "CRASH" in inner)


def test_flinks_worker_splits_a_failing_job_down_to_the_failing_statement() -> None:
    sqls = ["SELECT 7 FROM `t`", "SELECT BAD FROM `t`", "SELECT 8 FROM `t`",
            "SELECT CRASH FROM `t`", "SELECT 9 FROM `t`"]
    requests = [{"name": "t", "columns": [["x", "BIGINT"]], "rows": [[1]], "sql": s}
                for s in sqls]
    answers = flink_worker.tables(FakeEnv(), {"requests": requests})["answers"]
    assert [a.get("rows") for a in answers] == [[[7]], None, [[8]], None, [[9]]]  # type: ignore[attr-defined]
    assert "BAD" in answers[1]["error"] and "job failed" in answers[3]["error"]  # type: ignore[index]
    assert answers[0]["columns"] == [["n", "BIGINT NOT NULL"]]  # type: ignore[index]


def test_flinks_values_come_back_as_their_types() -> None:
    assert [flink_worker._value(v, t) for v, t in
            [("3", "BIGINT NOT NULL"), ("2.5", "DOUBLE"), ("TRUE", "BOOLEAN"),
             ("1.50", "DECIMAL(4, 2)"), (None, "INT")]] == [3, 2.5, True, "1.50", None]


class Stand:
    """A recognizer answering the reference's table, one with row ``wrong`` dropped from
    the input when that row is there (a wrong answer), an error, or a decline."""

    def __init__(self, mode: str) -> None:
        self.mode = mode

    def recognize_arrow(self, c: MatchRecognize, table: pa.Table) -> pa.Table:
        if self.mode == "declines":
            raise Unsupported("no")
        if self.mode == "errs":
            raise PeerError("boom")
        values = table.column("v").to_pylist()
        if self.mode == "wrong" and 13 in values:
            table = table.filter(pa.array([v != 13 for v in values]))
        out = recognize(c, table_of(table))
        return pa.table({n: [r[i] for r in out.rows] for i, n in enumerate(out.names)})


COUNT = clause("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES COUNT(*) AS n "
               "ONE ROW PER MATCH PATTERN (A+) DEFINE A AS v > 10)")


def drawn(values: list[int]) -> mr_generated.Drawn:
    table = pa.table({"ts": list(range(len(values))), "v": values})
    expected = mr_generated.expected_of(COUNT, table)
    assert expected is not None
    return mr_generated.Drawn(COUNT, table, expected, ("quantifier",))


def test_a_drawn_recognition_is_judged_against_the_reference() -> None:
    one = drawn([11, 12, 13, 5])
    assert mr_generated.judge(Stand("right"), one).status == "passed"
    wrong = mr_generated.judge(Stand("wrong"), one)
    assert (wrong.status, wrong.reason) == ("failed", "1 rows missing, 1 rows extra")
    assert mr_generated.judge(Stand("declines"), one).status == "declined"
    errs = mr_generated.judge(Stand("errs"), one)
    assert errs.status == "failed" and "boom" in errs.reason


def test_shrinking_keeps_the_row_the_disagreement_needs() -> None:
    # counted by hand: A+ over 11, 12, 13 is one match of 3 rows; without 13 there, the
    # stand-in answers 2. The smallest table that still disagrees is the row 13 alone
    # (expected n = 1, got no row).
    one = drawn([5, 11, 12, 13, 4])
    first = mr_generated.judge(Stand("wrong"), one)
    [small] = mr_shrink.shrink(Stand("wrong"), [first])
    assert small.status == "failed"
    assert small.drawn.table.column("v").to_pylist() == [13]
    assert small.reason.startswith("1 rows missing")


def test_drawing_is_deterministic_and_covers_the_constructs() -> None:
    a = mr_generated.drawn(30)
    b = mr_generated.drawn(30)
    assert [x.sql() for x in a] == [x.sql() for x in b] and len(a) == 30
    assert {"quantifier", "measures"} <= {f for x in a for f in x.features}


def test_failures_are_classified_by_engine_construct_and_message() -> None:
    mn = Verdict("f:1", "failed", "peer: flink: ValidationException: No match found for "
                 "function signature MATCH_NUMBER()", ("match-number",))
    assert classify("flink batch", mn)[0] == "documented limitation"
    assert classify("pmr", mn)[0] == "unclassified"
    rows = Verdict("f:2", "failed", "3 rows where 1 are expected", ("all-rows",))
    assert classify("flink streaming", rows) == classify("flink batch", rows)
    assert "ALL ROWS PER MATCH" in classify("flink batch", rows)[1]
    assert classify("pmr", rows) == ("unclassified", "")
    mine = Verdict("conformance/sqllogictest/kleene/match_recognize.test:99", "failed",
                   "0 rows where 4 are expected", ("reluctant",))
    assert classify("pmr", mine)[0] == "engine bug" and "by hand" in classify("pmr", mine)[1]
    drawn_one = Verdict("generated #3", "failed", "1 rows missing", ("subset",))
    assert classify("pmr", drawn_one)[0] == "disagrees with the reference"
    assert classify("flink batch", drawn_one)[0] == "documented limitation"  # SUBSET
    odd = Verdict("conformance/sqllogictest/kleene/match_recognize.test:5", "failed",
                  "peer: flink: NullPointerException", ())
    assert classify("flink batch", odd) == ("unclassified", "")


def test_the_compliance_table_counts_each_source_and_construct() -> None:
    verdicts = (Verdict("conformance/sqllogictest/kleene/m.test:3", "passed", "", ("subset",)),
                Verdict("conformance/sqllogictest/duckdb/d.test:9", "failed", "x",
                        ("subset", "permute")),
                Verdict("generated #0", "declined", "no", ("permute",)))
    run = EngineRun("pmr", verdicts, 1.0, "python scripts/peers.py --parts mr")
    assert EngineRun.of_json(json.loads(json.dumps(run.to_json()))) == run
    table = mr_report.compliance([run])
    assert table[2:] == ["| **all records** | 1/1/1 |", "| *Kleene's file* | 1/0/0 |",
                         "| *DuckDB's files* | 0/1/0 |", "| *drawn (Hypothesis)* | 0/0/1 |",
                         "| *drawn in Flink's dialect* | – |",
                         "| `permute` | 0/1/1 |", "| `subset` | 1/1/0 |"]


def test_the_duckdb_probe_says_what_the_installed_duckdb_does() -> None:
    said = mr_duckdb.probe()
    assert said.startswith("DuckDB ") and (" accepts " in said) == mr_duckdb.accepts()
    if not mr_duckdb.accepts():
        assert "rejects MATCH_RECOGNIZE" in said and said.endswith(": not run")


class DroppingWorker(ReferenceWorker):
    """The reference as a worker that loses every row whose last value is 6."""

    def ask(self, message: dict[str, Any], timeout: float | None = None) -> dict[str, Any]:
        if message["cmd"] == "table":
            message = {**message, "rows": [r for r in message["rows"] if r[-1] != 6]}
        return super().ask(message, timeout)


def test_a_failed_record_carries_its_recognition_shrunk(tmp_path: Path) -> None:
    path = tmp_path / "f.test"
    path.write_text(FILE, encoding="utf-8")
    run = run_engine("pmr", Native(DroppingWorker(), "pmr"), [path], shrink=5)  # type: ignore[arg-type]
    first, second = run.verdicts
    assert (first.status, first.reproduction) == ("passed", "")
    # A+ over v > 4 matches x1 (5) and x3 (6); without the 6 only x1: the smallest table
    # still disagreeing is the row x3 alone (expected one match, n = 1; got none)
    assert second.status == "failed"
    lines = second.reproduction.splitlines()
    assert "1 rows:" in lines[-4] and lines[-3] == '--   ["x", 3, 6.0]'
    assert lines[-2] == "-- expected (N): (1,)"


def test_a_request_the_worker_stopped_is_no_answer_in_time() -> None:
    c = clause("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES COUNT(*) AS n "
               "PATTERN (A) DEFINE A AS v > 0)")
    one = mr_generated.Drawn(c, pa.table({"ts": [1], "v": [1]}), "x", ())
    timed = Answering({"answers": [{"error": "PeerTimeout: no answer in time"}]})
    judged = mr_generated.judge(Native(timed, "pmr", 7), one)  # type: ignore[arg-type]
    assert judged.status == "failed" and judged.reason.startswith("no answer in time")
    assert classify("pmr", Verdict("generated #1", "failed", judged.reason))[0] == \
        "no answer in time"


def test_a_drawn_output_of_no_column_is_left_out_of_the_counts() -> None:
    run = EngineRun("pmr", (Verdict("generated #0", "failed", f"answered a table where the "
                                    f"reference raises: {NO_COLUMN}"),
                            Verdict("generated #1", "passed")), 1.0)
    lines = mr_report.section([run], [Path("a"), Path("b")], 2, "2026-01-01", "DuckDB x")
    assert "| **all records** | 1/0/0 |" in lines
    assert any("Left out" in line and "pmr 1." in line for line in lines)


def test_rows_tying_on_the_order_are_no_verdict() -> None:
    c = clause("SELECT * FROM t MATCH_RECOGNIZE (PARTITION BY g ORDER BY ts MEASURES "
               "COUNT(*) AS n PATTERN (A) DEFINE A AS v > 0)")
    names = ["g", "ts", "v"]
    assert not mr_generated.order_ties(c, names, [["x", 1, 5], ["y", 1, 5], ["x", 2, 5]])
    assert mr_generated.order_ties(c, names, [["x", 1, 5], ["x", 1, 6]])
    assert all(not mr_generated.order_ties(d.clause, d.table.column_names,
                                           [list(r.values()) for r in d.table.to_pylist()])
               for d in mr_generated.drawn(20))
    text = ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY T MEASURES COUNT(*) AS N PATTERN (A) "
            "DEFINE A AS A.X > 0)\n-- table t (X, T), 2 rows:\n--   [1, 4]\n--   [2, 4]\n"
            "-- expected (N): (1,); (1,)\n-- got: 1 rows missing")
    v = Verdict("generated #2", "failed", "1 rows missing", (), text)
    assert classify("pmr", v)[0] == "order among ties"
    untied = Verdict("generated #2", "failed", "1 rows missing", (), text.replace("[2, 4]",
                                                                                  "[2, 5]"))
    assert classify("pmr", untied)[0] == "disagrees with the reference"


@pytest.mark.parametrize(("where", "said", "cls"), [
    ("errors.test:321", "ValidationException: Columns ambiguously defined: {}",
     "engine limitation"),
    ("navigation.test:404", "java.lang.IllegalArgumentException: Cannot downcast long value "
     "9223372036854775806 to integer.", "engine limitation"),
    ("navigation.test:508", "ValidationException: SQL validation failed. From line 3, column "
     "50 to line 3, column 89: Multiple pattern variables in 'FIRST(CASE WHEN `A`.`V` IS "
     "NULL THEN 99 ELSE NULL END, 0)'", "engine limitation"),
    ("aggregate_idioms.test:64", "ValidationException: SQL validation failed. No match found "
     "for function signature LENGTH(<CHARACTER>)", "adapter limit"),
    ("navigation.test:493", "ValidationException: SQL validation failed. Cannot apply '||' "
     "to arguments of type '<BIGINT> || <CHAR(1)>'.", "adapter limit"),
])
def test_flinks_failures_on_duckdbs_files_read_by_hand_have_their_class(
        where: str, said: str, cls: str) -> None:
    # Flink 2.3.0's messages on these records of DuckDB's files (make peers, 28 Nov 2026),
    # each record read by hand: the class says why Flink fails it.
    name = f"conformance/sqllogictest/duckdb/test_match_recognize_{where}"
    v = Verdict(name, "failed", f"peer: flink: {said}", ())
    assert classify("flink batch", v)[0] == cls
    assert classify("pmr", v)[0] == "unclassified"
