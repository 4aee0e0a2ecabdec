"""The backend protocol's tables (``match_recognize``): the value encoding, the schemas, the
sqllogictest runner and the generated cases against the example backend and its defects
(conformance/examples/mr_backend.py; docs/backends.md, "Tables")."""

from __future__ import annotations

import datetime as dt
import math
import shlex
import subprocess
import sys
from decimal import Decimal
from io import StringIO
from pathlib import Path

import pytest

from kleene.cli.conform_sqllogic import run_sqllogictest
from kleene.conformance import wire
from kleene.conformance.backends import find_backend
from kleene.conformance.check_protocol import check_protocol
from kleene.conformance.generated_tables import check_tables
from kleene.conformance.outcome import Outcome, table_backend
from kleene.conformance.sql_tables import SqlTable, TableProblem, decode, table_difference
from kleene.conformance.sqllogictest import DUCKDB_FILES
from kleene.conformance.sqllogictest.backend import READINGS, BackendRecognizer, isolate
from kleene.conformance.sqllogictest.reader import Query, expand, read_file
from kleene.conformance.sqllogictest.runner import (
    holds_recognition,
    reference,
    run_file,
    run_text,
)
from kleene.engines.protocol import Feature
from kleene.reference.match_recognize.features import CONSTRUCTS

EXAMPLE = f"cmd:{sys.executable} -m kleene.conformance.examples.mr_backend"
ROOT = Path(__file__).resolve().parent.parent
KLEENE = Path(sys.executable).parent / "kleene"
ORACLE = DUCKDB_FILES / "test_match_recognize_oracle.test"


def test_values_past_2_53_decimals_and_specials_survive_json_exactly():
    table = SqlTable((("i", "BIGINT"), ("d", "DECIMAL(5,2)"), ("f", "DOUBLE"),
                      ("t", "TIMESTAMP"), ("day", "DATE")),
                     ((2**53 + 1, Decimal("1.50"), math.inf,
                       dt.datetime(2024, 1, 31, 10, 0, 0, 500), dt.date(2024, 2, 29)),
                      (7, None, -0.0, None, None)))
    written = table.to_json()
    assert written["rows"][0] == ["9007199254740993", "1.50", "Infinity",
                                  "2024-01-31T10:00:00.000500", "2024-02-29"]
    assert written["rows"][1] == [7, None, -0.0, None, None]
    back = decode(written)
    assert back == table and str(back.rows[0][1]) == "1.50"


def test_a_nan_is_the_string_NaN_and_reads_back_as_nan():
    written = SqlTable((("f", "FLOAT"),), ((math.nan,),)).to_json()
    assert written["rows"] == [["NaN"]]
    value = decode(written).rows[0][0]
    assert isinstance(value, float) and math.isnan(value)


@pytest.mark.parametrize(("column", "value", "pointer"), [
    ("DECIMAL(4,1)", 1.5, "/rows/0/0"),          # a decimal is a string, never a number
    ("BIGINT", "12a", "/rows/0/0"),
    ("TIMESTAMP", "2024-01-31T10:00:00+00:00", "/rows/0/0"),   # a zone: WITH TIME ZONE
    ("DECIMAL(4,1)", "12345.0", "/columns/0"),   # does not fit the precision
])
def test_a_value_breaking_its_type_is_named_by_json_pointer(column, value, pointer):
    with pytest.raises(TableProblem, match=pointer):
        decode({"columns": [{"name": "c", "type": column}], "rows": [[value]]})


def test_the_schemas_take_the_table_messages_and_name_what_is_wrong():
    request = wire.TableRequest("match_recognize", "SELECT * FROM t MATCH_RECOGNIZE (PATTERN (A))",
                                {"t": SqlTable((("x", "INTEGER"),), ((1,),))})
    assert wire.problems("run-table-request", request.message(3)) == []
    assert wire.problems("run-table-response", {"seq": 3, "table": {
        "columns": [{"name": "N", "type": "BIGINT"}], "rows": [[1]]}}) == []
    assert wire.problems("run-table-response", {"seq": 3, "table": {
        "columns": [{"name": "N", "type": "INT64"}], "rows": []}})    # not a type name
    assert wire.problems("hello-response", {"protocol": 1, "name": "x", "version": "1",
                                            "capabilities": ["match_recognize",
                                                             "match_recognize:permute"]}) == []


def test_tables_compare_by_value_as_multisets_with_names_case_insensitive():
    got = SqlTable((("n", "BIGINT"), ("s", "DOUBLE")), ((2, 0.5), (1, 1.0)))
    assert table_difference(got, ("N", "S"), [(1, Decimal("1")), (2, Decimal("0.5"))]) is None
    assert table_difference(got, ("N", "S"), [(1, 1.0)]) == "1 rows extra"
    assert str(table_difference(got, ("S", "N"), [(1, 1.0), (2, 0.5)])).startswith("columns n, s")


def _oracle(spec: str) -> tuple[int, str]:
    out = StringIO()
    code = run_sqllogictest([str(ORACLE)], out, time_limit=60, backend=spec, quiet=True)
    return code, out.getvalue()


@pytest.mark.slow
def test_the_example_backend_passes_the_oracle_file_and_a_no_rows_one_fails_its_queries():
    records = list(expand(read_file(ORACLE)))
    # what a backend answering no rows must fail: every query holding MATCH_RECOGNIZE
    # that expects rows (the file's own expectations, counted by its reader)
    expect_rows = sum(1 for r in records if isinstance(r, Query) and holds_recognition(r.sql)
                      and r.expected)
    assert expect_rows == 57 and len(records) == 67
    code, text = _oracle(EXAMPLE)
    assert code == 0, text
    assert "67           0" in text
    code, text = _oracle(f"{EXAMPLE} --defect no-rows")
    assert code == 1
    assert f"{len(records) - expect_rows}          {expect_rows}" in text


def test_a_backend_claiming_no_match_recognize_is_refused_in_one_line():
    with pytest.raises(Exception, match="does not claim match_recognize"):
        run_sqllogictest([str(ORACLE)], StringIO(), time_limit=10, backend="ses-automaton")


def test_the_duckdb_reading_passes_the_select_star_records_the_erratum_explains():
    # docs/errata.md#mr-select-star-all-rows: EXPLAINED.toml names these seven records
    path = DUCKDB_FILES / "test_match_recognize_standard.test"
    lines = {74, 84, 94, 123, 134, 145, 156}
    plain = run_file(path, reference(60))
    read = run_file(path, READINGS["duckdb"].wrap(reference(60)))
    assert {o.record.line for o in plain.outcomes if o.status == "failed"} >= lines
    assert all(o.status == "passed" for o in read.outcomes if o.record.line in lines)


@pytest.mark.slow
def test_generated_cases_catch_greedy_quantifiers_made_reluctant():
    backend = find_backend(f"{EXAMPLE} --defect reluctant")
    try:
        result = check_tables(backend, "match_recognize", 100)
    finally:
        backend.close()
    assert result.status == "fail", result.notes
    assert "PATTERN (" in result.reproduction and "the run message" in result.reproduction


def test_generated_cases_pass_the_example_backend():
    backend = find_backend(EXAMPLE)
    try:
        result = check_tables(backend, "match_recognize", 15)
    finally:
        backend.close()
    assert result.status == "pass", result.reproduction
    assert result.notes == ["15 generated queries run"]


def _section_commands() -> list[str]:
    guide = (ROOT / "docs" / "backends.md").read_text(encoding="utf-8")
    section = guide.split("## Tables (`match_recognize`)")[1].split("\n## ")[0]
    return [line[2:] for line in section.splitlines() if line.startswith("$ kleene ")]


@pytest.mark.slow
@pytest.mark.parametrize("command", _section_commands())
def test_every_command_of_the_tables_section_works_as_written(command):
    # as docs/backends.md shows them: `kleene` and `python` of the installed package
    argv = shlex.split(command)
    argv = [str(KLEENE)] + [a.replace("cmd:python ", f"cmd:{sys.executable} ")
                            for a in argv[1:]]
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "Traceback" not in done.stderr


def test_the_tables_section_shows_the_three_doors():
    commands = _section_commands()
    assert len(commands) == 3
    assert [c.split()[2] for c in commands] == ["--check-protocol", "--sqllogictest",
                                                "--backend"]


@pytest.mark.parametrize(("sql", "source", "clause", "rest"), [
    ("FROM (VALUES (10), (20)) t(x) MATCH_RECOGNIZE (\n ORDER BY x PATTERN (A)) ORDER BY 1",
     "SELECT * FROM (VALUES (10), (20)) t(x)", "(\n ORDER BY x PATTERN (A))", " ORDER BY 1"),
    ("SELECT 1 FROM q qt MATCH_RECOGNIZE(PATTERN (A B+)) AS m", "SELECT * FROM q qt",
     "(PATTERN (A B+))", " AS m"),
    ("SELECT * FROM s.t MATCH_RECOGNIZE (PATTERN (A))", "SELECT * FROM s.t",
     "(PATTERN (A))", ""),
])
def test_a_statement_kleene_rejects_still_yields_its_recognition(sql, source, clause, rest):
    found = isolate(sql)
    assert found is not None
    assert (found.source, found.clause, sql[found.end:]) == (source, clause, rest)


@pytest.mark.parametrize("sql", [
    "SELECT * FROM a JOIN b ON a.x = b.x MATCH_RECOGNIZE (PATTERN (A))",      # a join
    "SELECT * FROM t MATCH_RECOGNIZE (PATTERN (A)), u MATCH_RECOGNIZE (PATTERN (B))",
    "SELECT * FROM t MATCH_RECOGNIZE (PATTERN (A)",                            # left open
])
def test_no_recognition_is_isolated_where_the_tokens_do_not_show_one(sql):
    assert isolate(sql) is None


class _AlwaysATable:
    """A backend that answers every table request with one empty column N."""

    name, version, origin = "always-a-table", "1", "a test stub"
    answers_tables = True
    capabilities = Feature.of("match_recognize", "match_recognize", *CONSTRUCTS)

    def run(self, request, *, timeout=None):
        return Outcome(table=SqlTable((("N", "BIGINT"),), ()))

    def close(self):
        pass


def test_a_statement_error_kleene_rejects_is_judged_by_the_backend_not_by_kleene():
    text = ("statement ok\nCREATE TABLE t AS SELECT 1 AS x\n\n"
            "statement error\nSELECT * FROM t MATCH_RECOGNIZE (ORDER BY x PATTERN (A) "
            "DEFINE Q AS x > 0)\n\n")           # Q is no pattern variable: Kleene rejects it
    by_reference = run_text(text)
    assert [o.status for o in by_reference.outcomes] == ["passed", "passed"]
    by_backend = run_text(text, recognize=BackendRecognizer(table_backend(_AlwaysATable())))
    assert [o.status for o in by_backend.outcomes] == ["passed", "failed"]
    assert by_backend.outcomes[1].reason == "succeeded where an error is expected"


BAD_DECIMAL = '''
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m["cmd"] == "hello":
        print(json.dumps({"protocol": 1, "name": "bad", "version": "1",
                          "capabilities": ["match_recognize", "match_recognize:match_recognize",
                                           "match_recognize:measures"]}), flush=True)
    elif m["cmd"] == "run":   # a DECIMAL as a JSON number: malformed
        print(json.dumps({"seq": m["seq"], "table": {
            "columns": [{"name": "S", "type": "DECIMAL(4,2)"}], "rows": [[1.5]]}}), flush=True)
    else:
        break
'''


def test_the_protocol_check_names_a_decimal_answered_as_a_number(tmp_path):
    script = tmp_path / "bad.py"
    script.write_text(BAD_DECIMAL)
    out = StringIO()
    assert check_protocol(f"cmd:{sys.executable} {script}", out, timeout=30) == 1
    text = out.getvalue()
    assert "✓ runner → backend: run-table-request #1" in text
    assert "/table/rows/0/0: 1.5 is no DECIMAL(4,2) value" in text
