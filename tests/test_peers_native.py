"""The peers' native MATCH_RECOGNIZE path (conformance/adapters/native.py, mr_suite.py)
without the peers installed: the request in each dialect, the answer back as the
reference's output table, and the whole round trip through a stand-in worker that answers
with Kleene's reference (the oracle): what it gets must mean what the file's query means."""

from __future__ import annotations

import datetime
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from kleene.conformance.adapters import mr_report, mr_suite
from kleene.conformance.adapters.native import (
    INPUT,
    TIME,
    Native,
    PeerError,
    output,
    output_names,
    request,
    requote,
)
from kleene.conformance.sqllogictest.runner import run_file, run_text
from kleene.data.sql import table_of
from kleene.reference.budget import Budget
from kleene.reference.errors import BudgetExceeded, Unsupported
from kleene.reference.match_recognize.parser import parse_statement
from kleene.reference.match_recognize.semantics import recognize
from kleene.reference.match_recognize.table import Table

KLEENE_FILE = (Path(__file__).resolve().parents[1] / "conformance" / "sqllogictest" / "kleene"
               / "match_recognize.test")

V_SHAPE = """SELECT * FROM t MATCH_RECOGNIZE (
  PARTITION BY g ORDER BY ts MEASURES FIRST(ts) AS s, LAST(ts) AS e
  PATTERN (A B+) DEFINE B AS v < PREV(v))"""


def recognition(sql: str) -> Any:
    return parse_statement(sql).recognitions[0]


TABLE = pa.table({"g": ["x", "x", "x", "y", "y"], "ts": [1, 2, 3, 1, 2],
                  "v": [5.0, 4.0, 3.0, 2.0, 1.0]})


class ReferenceWorker:
    """A stand-in for a peer's worker: parses the request's query (the dialect's text) and
    answers with the reference over the rows it was sent, as a worker answers; Flink's
    computed time attribute is the column it is computed from (the same order)."""

    def __init__(self) -> None:
        self.asked: list[dict[str, Any]] = []

    def ask(self, message: dict[str, Any], timeout: float | None = None) -> dict[str, Any]:
        if message["cmd"] == "tables":
            return {"answers": [self.ask(m) for m in message["requests"]]}
        self.asked.append(message)
        names = tuple(n for n, _ in message["columns"])
        rows = tuple(tuple(_typed(v, t) for v, (_, t) in zip(r, message["columns"],
                                                             strict=True))
                     for r in message["rows"])
        if "time" in message:
            source = names.index(re.search(r"`(\w+)`", message["time"][1]).group(1))  # type: ignore[union-attr]
            names += (message["time"][0],)
            rows = tuple(r + (r[source],) for r in rows)
        clause = recognition(message["sql"].replace("`", '"')).clause
        out = recognize(clause, Table(names, rows), budget=Budget(limit=10**7))
        return {"columns": [[n, "?"] for n in out.names],
                "rows": [[_wire(v) for v in row] for row in out.rows]}


def _typed(value: object, kind: str) -> object:
    if value is None:
        return None
    if kind == "DATE":
        return datetime.date.fromisoformat(str(value))
    if kind.startswith("TIMESTAMP"):
        return datetime.datetime.fromisoformat(str(value))
    if kind.startswith("DECIMAL"):
        return Decimal(str(value))
    return value


def _wire(value: object) -> object:
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    return value


def test_pmr_request_sends_the_clause_with_upper_case_columns() -> None:
    m = request("pmr", recognition(V_SHAPE).clause, TABLE)
    assert m["columns"] == [["G", "VARCHAR"], ["TS", "BIGINT"],
                            ["V", "DOUBLE"]]
    assert m["sql"].startswith(f"SELECT * FROM {INPUT} MATCH_RECOGNIZE (")
    assert "PARTITION BY G" in m["sql"] and "ORDER BY TS" in m["sql"]
    assert "time" not in m


def test_flink_request_orders_by_a_computed_time_attribute() -> None:
    m = request("flink", recognition(V_SHAPE).clause, TABLE)
    assert m["time"] == [TIME, "TO_TIMESTAMP_LTZ(`TS`, 0)"]   # seconds, as WITHIN reads them
    assert f"ORDER BY `{TIME}`" in m["sql"] and "ORDER BY TS" not in m["sql"]
    dates = pa.table({"d": [datetime.date(2020, 1, 1)], "v": [1]})
    sql = "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY d PATTERN (A) DEFINE A AS v > 0)"
    made = request("flink", recognition(sql).clause, dates)
    assert made["time"][1] == "CAST(`D` AS TIMESTAMP(3))"


@pytest.mark.parametrize("sql", [
    "SELECT * FROM t MATCH_RECOGNIZE (PATTERN (A) DEFINE A AS v > 0)",
    "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY g PATTERN (A) DEFINE A AS v > 0)",
    "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts DESC PATTERN (A) DEFINE A AS v > 0)",
])
def test_flink_declines_an_order_that_is_no_ascending_time(sql: str) -> None:
    with pytest.raises(Unsupported, match="flink"):
        request("flink", recognition(sql).clause, TABLE)


def test_requote_keeps_strings_and_names_columns_bare() -> None:
    text = """"v" = 'a "b"' AND "odd name" > 1"""
    assert requote(text, {"V"}, "`") == """V = 'a "b"' AND `odd name` > 1"""


def test_output_names_are_the_references() -> None:
    for sql in (V_SHAPE, V_SHAPE.replace("MEASURES", "MEASURES CLASSIFIER() AS k,")
                .replace("PATTERN", "ALL ROWS PER MATCH PATTERN")):
        clause = recognition(sql).clause
        expected = recognize(clause, table_of(TABLE), budget=Budget(limit=10**6)).names
        assert output_names(clause, TABLE.column_names) == list(expected)


def test_output_finds_columns_by_name_and_types_values_back() -> None:
    clause = recognition(V_SHAPE).clause
    # the peer answers the measures in lower case and in another order; s and e by hand
    got = output(clause, TABLE, {"columns": [["e", "BIGINT"], ["S", "BIGINT"], ["g", "x"]],
                                 "rows": [[3, 1, "x"]]})
    assert got.column_names == ["g", "S", "E"] and got.to_pylist() == [
        {"g": "x", "S": 1, "E": 3}]
    dates = pa.table({"d": [datetime.date(2020, 1, 1)], "v": [1]})
    sql = "SELECT * FROM t MATCH_RECOGNIZE (PARTITION BY d ORDER BY v MEASURES A.v AS x " \
          "PATTERN (A) DEFINE A AS v > 0)"
    back = output(recognition(sql).clause, dates,
                  {"columns": [["D", "datetime64[ns]"], ["X", "int"]],
                   "rows": [["2020-01-01 00:00:00", 1.0]]})
    assert back.to_pylist() == [{"d": datetime.date(2020, 1, 1), "X": 1}]
    with pytest.raises(PeerError, match="expected g, S, E"):
        output(clause, TABLE, {"columns": [["q", "?"]], "rows": [[1]]})


class Answering:
    def __init__(self, answer: dict[str, Any] | Exception) -> None:
        self.answer = answer

    def ask(self, message: dict[str, Any], timeout: float | None = None) -> dict[str, Any]:
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


def test_a_peer_error_fails_a_declared_limit_declines_a_timeout_is_no_verdict() -> None:
    clause = recognition(V_SHAPE).clause
    limit = "TableException: Greedy quantifiers are not allowed as the last element"
    with pytest.raises(Unsupported, match="pmr declines: TableException"):
        Native(Answering({"error": limit}), "pmr").recognize_arrow(clause, TABLE)  # type: ignore[arg-type]
    with pytest.raises(PeerError, match="pmr: KeyError: 'G'"):
        Native(Answering({"error": "KeyError: 'G'"}), "pmr").recognize_arrow(clause, TABLE)  # type: ignore[arg-type]
    java = ("Py4JJavaError: An error occurred while calling o8.executeSql. : "
            "org.apache.flink.table.api.ValidationException: SQL validation failed.")
    with pytest.raises(PeerError, match=r" flink: ValidationException: SQL validation failed\.$"):
        Native(Answering({"error": java}), "flink").recognize_arrow(clause, TABLE)  # type: ignore[arg-type]
    with pytest.raises(BudgetExceeded, match="seconds=5"):
        Native(Answering(TimeoutError("late")), "pmr", 5).recognize_arrow(clause, TABLE)  # type: ignore[arg-type]


@pytest.mark.parametrize("peer", ["pmr", "flink"])
def test_a_reference_worker_passes_what_the_reference_passes(peer: str) -> None:
    text = """statement ok
CREATE TABLE t (g VARCHAR, ts INTEGER, v DOUBLE, d DECIMAL(4, 1));

statement ok
INSERT INTO t VALUES ('x', 1, 5, 1.5), ('x', 2, 4, 2.5), ('x', 3, 6, 0.5),
  ('y', 1, 2, 1.0), ('y', 2, 1, 3.0);

query TIII
SELECT * FROM t MATCH_RECOGNIZE (
  PARTITION BY g ORDER BY ts MEASURES FIRST(ts) AS s, LAST(ts) AS e, COUNT(*) AS n
  PATTERN (A B+) DEFINE B AS v < PREV(v)) ORDER BY g
----
x	1	2	2
y	1	2	2

query IR
SELECT e, total FROM t MATCH_RECOGNIZE (
  ORDER BY ts, g MEASURES LAST(ts) AS e, SUM(d) AS total
  PATTERN (A+) DEFINE A AS d > 1.0) ORDER BY e
-- in order x1 (1.5), y1 (1.0), x2 (2.5), y2 (3.0), x3 (0.5): A+ at x1, then at x2-y2
----
1	1.5
2	5.5
"""
    worker = ReferenceWorker()
    report = run_text(text, recognize=Native(worker, peer))  # type: ignore[arg-type]
    assert [o.status for o in report.outcomes] == ["passed"] * 4
    if peer == "flink":   # ordered by the computed time attribute, which the stand-in lacks
        assert all(TIME in m["sql"] for m in worker.asked)


@pytest.mark.slow
def test_kleenes_file_through_a_reference_worker_as_through_the_reference() -> None:
    expected = run_file(KLEENE_FILE)
    got = run_file(KLEENE_FILE, Native(ReferenceWorker(), "pmr"))  # type: ignore[arg-type]
    differ = [(a.where, a.status, b.status, b.reason) for a, b in
              zip(expected.outcomes, got.outcomes, strict=True) if a.status != b.status]
    assert differ == []


def test_the_section_counts_passed_failed_declined_per_construct() -> None:
    report = run_text("""statement ok
CREATE TABLE t (ts INTEGER, v INTEGER);

statement ok
INSERT INTO t VALUES (1, 1), (2, 2);

query I
SELECT n FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES COUNT(*) AS n PATTERN (A+)
  DEFINE A AS v > 0)
----
2

query I
SELECT n FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES COUNT(*) AS n PATTERN (A B)
  DEFINE A AS v > 0)
----
7
""", file="f.test")
    verdicts = mr_suite.verdicts_of([report])
    run = mr_suite.EngineRun("kleene", verdicts, 1.0)
    assert run.counts() == {"passed": 1, "failed": 1, "declined": 0}
    lines = mr_report.section([run, mr_suite.EngineRun("pmr", verdicts, 2.0)],
                              [Path("f.test")], 0, "2026-01-01", "DuckDB x rejects it")
    assert "| **all records** | 1/1/0 | 1/1/0 |" in lines
    assert "| `quantifier` | 1/0/0 | 1/0/0 |" in lines
    # the record pmr fails, Kleene fails too: classed apart from the disagreements
    assert "- Kleene fails it too: 1" in lines
    assert any(line.startswith("- `f.test:") and "7" in line for line in lines)
