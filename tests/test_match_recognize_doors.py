"""MATCH_RECOGNIZE at Kleene's doors (issue 26, item 4): ``kleene match`` and
``kleene.match_recognize`` take the table path, decided once (``Query.answers_tables``);
the doors that answer matches only refuse in one line naming the ones that can; bad input
is one line (or, for a ``DEFINE`` true for no row, a warning).

Expected rows are computed by hand. examples/ticks/ticks.csv, per symbol by ts:
ACME 10 8 6 9 12 11 9 10, GLOB 5 4 7. The V shape ``STRT DOWN+ UP+`` (DOWN: lower than
the previous price, UP: higher), skipping past the last row: ACME 10 | 8 6 | 9 12 (ts 1-5;
11 < 12 ends UP+), then from ts 6: 11 | 9 | 10 (ts 6-8); GLOB 5 | 4 | 7 (ts 1-3).
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kleene
from kleene.cli import main
from kleene.conformance.recognize_strategies import (
    input_tables,
    match_recognize_clauses,
    plain_clauses,
)
from kleene.data.loaders import load_events
from kleene.engines.fastest import find_matches
from kleene.engines.tables import answer_table, match_recognize, never_true
from kleene.reference.errors import KleeneError, Unsupported
from kleene.reference.match_recognize.evaluation import Scope, holds, row_local
from kleene.reference.match_recognize.parser import parse_statement
from kleene.reference.match_recognize.semantics import partitions
from kleene.reference.match_recognize.table import Table
from kleene.reference.query import Query

ROOT = Path(__file__).resolve().parents[1]
TICKS = ROOT / "examples" / "ticks" / "ticks.csv"
V_SHAPE = ROOT / "examples" / "ticks" / "v_shape.sql"

#: the V shapes, by hand (module docstring)
V_LINES = ["sym,START_TS,BOTTOM_TS,END_TS", "ACME,1,3,5", "ACME,6,7,8", "GLOB,1,2,3"]
V_ROWS = [{"sym": "ACME", "START_TS": 1, "BOTTOM_TS": 3, "END_TS": 5},
          {"sym": "ACME", "START_TS": 6, "BOTTOM_TS": 7, "END_TS": 8},
          {"sym": "GLOB", "START_TS": 1, "BOTTOM_TS": 2, "END_TS": 3}]


def _match(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str], str]:
    code = main(["match", *argv])
    out, err = capsys.readouterr()
    return code, out.splitlines(), err


# ---------------------------------------------------------------- the table path


def test_the_query_answers_tables_by_its_language():
    assert Query.parse(V_SHAPE.read_text()).answers_tables
    assert not Query.parse("PATTERN SEQ(A a, C c) WITHIN 9").answers_tables


@pytest.mark.parametrize("engine", [None, "reference", "match-recognize"])
def test_kleene_match_prints_the_rows_as_csv(capsys, engine):
    extra = ["--engine", engine] if engine else []
    code, lines, err = _match(capsys, "--pattern", str(V_SHAPE), "--events", str(TICKS),
                              *extra)
    assert code == 0, err
    assert lines == V_LINES
    said = err.splitlines()[0]
    if engine == "reference":
        assert said == "kleene match: the reference semantics (named)"
    else:
        assert said.startswith("kleene match: engine match-recognize (")


def test_the_sql_text_in_place_of_a_file(capsys):
    code, lines, err = _match(capsys, "--pattern", V_SHAPE.read_text(), "--events", str(TICKS))
    assert (code, lines) == (0, V_LINES), err


@pytest.mark.parametrize("suffix", ["parquet", "jsonl", "csv"])
def test_every_input_format_is_the_table_the_from_names(capsys, tmp_path, suffix):
    table = pa_csv.read_csv(TICKS)
    path = tmp_path / f"quotes.{suffix}"
    if suffix == "parquet":
        pq.write_table(table, path)
    elif suffix == "jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in table.to_pylist()))
    else:
        pa_csv.write_csv(table, path)
    code, lines, err = _match(capsys, "--pattern", str(V_SHAPE), "--events", str(path))
    assert (code, lines) == (0, V_LINES), err


@pytest.mark.parametrize("suffix", ["csv", "jsonl", "parquet"])
def test_output_files(capsys, tmp_path, suffix):
    out = tmp_path / f"v.{suffix}"
    code, lines, err = _match(capsys, "--pattern", str(V_SHAPE), "--events", str(TICKS),
                              "--output", str(out))
    assert (code, lines) == (0, []), err
    assert f"kleene match: wrote 3 rows to {out}" in err.splitlines()
    if suffix == "csv":
        assert out.read_text().splitlines() == V_LINES
    elif suffix == "jsonl":
        assert [json.loads(line) for line in out.read_text().splitlines()] == V_ROWS
    else:
        assert pq.read_table(out).to_pylist() == V_ROWS
    code, _, err = _match(capsys, "--pattern", str(V_SHAPE), "--events", str(TICKS),
                          "--output", str(out))
    assert code == 2 and err == f"kleene match: --output {out} exists; give --overwrite to " \
                                "replace it\n"
    code, _, err = _match(capsys, "--pattern", str(V_SHAPE), "--events", str(TICKS),
                          "--output", str(out), "--overwrite")
    assert code == 0, err


def test_output_never_replaces_the_input(capsys, tmp_path):
    events = tmp_path / "ticks.csv"
    events.write_text(TICKS.read_text())
    code, _, err = _match(capsys, "--pattern", str(V_SHAPE), "--events", str(events),
                          "--output", str(events), "--overwrite")
    assert code == 2 and "is the input file" in err and err.count("\n") == 1
    assert events.read_text() == TICKS.read_text()


def test_count_prints_the_number_of_rows(capsys):
    code, lines, err = _match(capsys, "--pattern", str(V_SHAPE), "--events", str(TICKS),
                              "--count")
    assert (code, lines) == (0, ["3"]), err


@pytest.mark.parametrize("option", [["--format", "table"], ["--layout", "wide"],
                                    ["--columns", "a.x"], ["--ts", "ts"], ["--sort"],
                                    ["--limit", "3"], ["--counters"]])
def test_options_of_matches_are_refused_in_one_line(capsys, option):
    code, _, err = _match(capsys, "--pattern", str(V_SHAPE), "--events", str(TICKS), *option)
    assert code == 2 and err.count("\n") == 1
    assert f"{option[0]}" in err and "answers a table" in err


# ---------------------------------------------------------------- Python


def test_python_door_returns_arrow_or_pandas():
    sql = V_SHAPE.read_text()
    assert kleene.match_recognize is match_recognize
    got = match_recognize(str(TICKS), sql)
    assert isinstance(got, pa.Table) and got.to_pylist() == V_ROWS
    frame = match_recognize(TICKS, sql, engine="reference", pandas=True)
    assert isinstance(frame, pd.DataFrame) and frame.to_dict("records") == V_ROWS


def test_python_door_binds_the_name_when_the_data_is_no_file():
    table = pa_csv.read_csv(TICKS)
    sql = V_SHAPE.read_text().replace("FROM ticks", "FROM (SELECT * FROM quotes)")
    with pytest.raises(KleeneError, match="name=") as err:
        match_recognize(table, sql)
    assert "\n" not in str(err.value)
    assert match_recognize(table, sql, name="quotes").to_pylist() == V_ROWS


# ---------------------------------------------------------------- doors that answer matches


def test_doors_that_answer_matches_name_the_doors_that_answer_tables(capsys, tmp_path):
    sql = V_SHAPE.read_text()
    with pytest.raises(Unsupported) as err:
        find_matches(sql, load_events(str(ROOT / "examples" / "chemo" / "chemo.csv")))
    assert str(err.value).startswith("unsupported: find_matches answers matches, and a "
                                     "match_recognize query answers a table: run it with "
                                     "kleene match")
    assert "kleene.match(sql, data)" in str(err.value) and "\n" not in str(err.value)
    argv = ["stream", "--pattern", str(V_SHAPE), "--source", str(tmp_path),
            "--output", str(tmp_path / "o"), "--checkpoint", str(tmp_path / "c")]
    assert main(argv) == 2
    _, err_text = capsys.readouterr()
    # kleene stream takes a recognition alone (docs/match-recognize-spark.md, "Continuous"),
    # and says so before Spark starts
    assert err_text.startswith("kleene stream: unsupported: kleene stream runs SELECT * FROM "
                               "<source> MATCH_RECOGNIZE (...) alone")
    assert err_text.count("\n") == 1


def test_match_dataframe_refuses_before_touching_spark():
    from kleene.engines.spark.runner import match_dataframe

    with pytest.raises(Unsupported, match="match_dataframe on Spark answers matches"):
        match_dataframe(None, V_SHAPE.read_text())


# ---------------------------------------------------------------- bad input


def _sql(body: str) -> str:
    return f"SELECT * FROM ticks MATCH_RECOGNIZE (PARTITION BY sym ORDER BY ts {body})"


def test_sql_kleene_does_not_support_is_one_line_with_its_position(capsys):
    text = _sql("MEASURES LAST(price) AS p PATTERN (A) DEFINE A AS price IS DISTINCT FROM 3")
    code, _, err = _match(capsys, "--pattern", text, "--events", str(TICKS))
    column = text.index("DISTINCT") + 1   # the parser points at the word it refuses
    assert code == 2
    assert err == (f"kleene match: unsupported: <pattern>:1:{column}: IS [NOT] DISTINCT is not "
                   "supported by Kleene's MATCH_RECOGNIZE\n")


@pytest.mark.parametrize("engine", ["reference", "match-recognize"])
def test_a_column_the_table_lacks_is_one_line_naming_the_columns(capsys, engine):
    text = _sql("MEASURES LAST(price) AS p PATTERN (A) DEFINE A AS prise > 3")
    code, _, err = _match(capsys, "--pattern", text, "--events", str(TICKS),
                          "--engine", engine)
    assert code == 2 and err.count("\n") == 1
    assert "no column named 'PRISE'" in err
    assert all(c in err.upper() for c in ("SYM", "TS", "PRICE"))


def test_a_define_true_for_no_row_is_a_warning(capsys):
    # no price exceeds 100; DOWN holds at ACME's ts 2, so only UP is said
    text = _sql("MEASURES LAST(price) AS p PATTERN (DOWN UP) "
                "DEFINE DOWN AS price < PREV(price), UP AS price > 100")
    code, lines, err = _match(capsys, "--pattern", text, "--events", str(TICKS))
    assert (code, lines) == (0, ["sym,P"])
    assert "kleene match: warning: DEFINE of UP is true for no row of the input" in \
        err.splitlines()
    assert "DOWN" not in err
    with pytest.warns(UserWarning, match="DEFINE of UP is true for no row of the input"):
        match_recognize(TICKS, text)


def test_never_true_reads_prev_within_partitions_and_leaves_the_match_dependent_alone():
    # by ts: ACME 10 8 6 9 ..., GLOB 5 4 7. GLOB's first row has no PREV (NULL, not true);
    # ACME's 10 read after GLOB's 7 would be a rise if partitions were ignored
    table = pa.table({"sym": ["ACME", "ACME", "GLOB", "GLOB"], "ts": [1, 2, 1, 2],
                      "price": [10, 8, 7, 5]})
    clause = parse_statement(_sql(
        "PATTERN (A B C) DEFINE A AS price > PREV(price), B AS price > 9, "
        "C AS price > A.price")).recognitions[0].clause
    # A: 8 < 10, 5 < 7, never a rise; B: 10 > 9 holds; C reads A's row: not judged
    assert never_true(clause, table) == ("A",)
    assert never_true(clause, table.slice(0, 0)) == ()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(clause=st.one_of(match_recognize_clauses(), plain_clauses()), table=input_tables())
def test_never_true_on_columns_is_the_references_verdict_row_by_row(clause, table):
    """The warning judges row-local definitions on whole columns (the engine's kernels);
    the oracle asks the reference's evaluator at every row of every partition: a variable
    is said exactly when its row-local DEFINE holds at no row (one that raises a data
    exception somewhere is left to the recognition, as is one that is not row-local)."""
    rows = Table(tuple(table.column_names), tuple(zip(*[c.to_pylist() for c in table.columns],
                                                        strict=True)))
    columns = {n.upper(): i for i, n in enumerate(rows.names)}
    subsets = {u.name.upper(): frozenset(v.upper() for v in u.vars) for u in clause.subsets}
    try:
        parts = list(partitions(clause, rows))
    except KleeneError:
        parts = None
    expected = []
    for d in clause.defines:
        if rows.rows == () or parts is None or not row_local(d.condition, d.var.upper(),
                                                               subsets):
            continue
        try:
            verdicts = [holds(d.condition, Scope(part, columns, i, (d.var,), 1, 0, subsets))
                        for part in parts for i in range(len(part))]
        except KleeneError:
            continue
        if not any(verdicts):
            expected.append(d.var)
    assert never_true(clause, table) == tuple(expected)


def test_an_exponential_search_stops_at_the_budget(capsys, tmp_path):
    events = tmp_path / "rows.csv"
    events.write_text("ts,price\n" + "".join(f"{i},{i % 7}\n" for i in range(40)))
    # (A | A)* B where B reads the sum over A: 2^n ways, none a match, not row-local
    text = ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES COUNT(*) AS n "
            "PATTERN ((A | A)* B) DEFINE B AS SUM(A.price) < 0)")
    code, _, err = _match(capsys, "--pattern", text, "--events", str(events),
                          "--engine", "reference", "--budget", "10000")
    assert code == 2
    assert err == ("kleene match: budget steps=10000 exceeded while recognizing a row "
                   "pattern; raise it (--budget N) or shrink the stream or window\n")
    code, _, err = _match(capsys, "--pattern", text, "--events", str(events),
                          "--time-limit", "1")
    assert code == 2
    assert err.startswith("kleene match: budget seconds=1 exceeded while recognizing a row "
                          "pattern; raise it (--time-limit SECONDS)")


def test_a_file_that_does_not_exist_is_one_line(capsys, tmp_path):
    code, _, err = _match(capsys, "--pattern", str(V_SHAPE), "--events",
                          str(tmp_path / "nope.csv"))
    assert (code, err) == (2, f"kleene match: {tmp_path / 'nope.csv'}: cannot read the table: "
                              "No such file or directory\n")


def test_a_table_no_file_provides_is_one_line_naming_it(capsys):
    text = _sql("MEASURES LAST(price) AS p PATTERN (A) DEFINE A AS price > 3") + \
        " JOIN other USING (sym)"
    code, _, err = _match(capsys, "--pattern", text, "--events", str(TICKS))
    assert code == 2
    assert err == ("kleene match: sql: the statement reads a table other, and only ticks is "
                   "given (the data, or the --events file)\n")


def test_warnings_are_not_raised_for_a_good_query():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert match_recognize(TICKS, V_SHAPE.read_text()).num_rows == 3


# ---------------------------------------------------------------- statements of several


_INNER = ("SELECT sym, start_ts FROM ticks MATCH_RECOGNIZE (PARTITION BY sym ORDER BY ts "
          "MEASURES FIRST(ts) AS start_ts PATTERN (STRT DOWN+ UP+) "
          "DEFINE DOWN AS price < PREV(price), UP AS price > PREV(price))")


@pytest.mark.parametrize("engine", [None, "reference", "match-recognize"])
def test_each_recognition_of_a_statement_is_its_own(engine):
    # the V shapes start at ACME 1 and 6, GLOB 1 (module docstring): the outer recognition
    # counts them per symbol; the union puts each V's start beside the count
    nested = (f"SELECT * FROM ({_INNER}) MATCH_RECOGNIZE (PARTITION BY sym ORDER BY "
              "start_ts MEASURES COUNT(*) AS n PATTERN (A+) DEFINE A AS start_ts > 0) "
              "ORDER BY sym")
    assert match_recognize(TICKS, nested, engine=engine).to_pylist() == [
        {"sym": "ACME", "N": 2}, {"sym": "GLOB", "N": 1}]
    # each recognition compiled by the engine (the inner one too), not the reference
    answered = answer_table(Query.parse(nested), TICKS, engine_name=engine)
    assert answered.backend == (engine or "match-recognize")
    union = (f"SELECT sym, start_ts AS x FROM ({_INNER}) UNION ALL SELECT sym, n FROM ticks "
             "MATCH_RECOGNIZE (PARTITION BY sym ORDER BY ts MEASURES COUNT(*) AS n "
             "PATTERN (A+) DEFINE A AS price > 0) ORDER BY sym, x")
    assert match_recognize(TICKS, union, engine=engine).to_pylist() == [
        {"sym": "ACME", "x": 1}, {"sym": "ACME", "x": 6}, {"sym": "ACME", "x": 8},
        {"sym": "GLOB", "x": 1}, {"sym": "GLOB", "x": 3}]


def test_the_docstring_example_runs(monkeypatch):
    import doctest

    monkeypatch.chdir(ROOT)
    tests = doctest.DocTestFinder().find(match_recognize, "match_recognize")
    assert tests and tests[0].examples
    runner = doctest.DocTestRunner()
    for test in tests:
        runner.run(test)
    assert runner.summarize(verbose=False).failed == 0
