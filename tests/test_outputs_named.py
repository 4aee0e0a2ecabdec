"""What the ``kleene`` command's outputs are called (issue 29 items 7 and 4): SREMO's
marked positions printed as ``marked``, result columns SQL engines read unquoted
(``v.user`` is ``v_user``), one timestamp unit per output, ``kleene draw`` and ``kleene
trace`` saying where they wrote, Spark's start-up said and timed, a small input said.
Expected values are worked out by hand in the comments (docs/outputs.md)."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from kleene.cli import results
from kleene.cli import spark as cli_spark
from kleene.data.outputs import OutputError
from tests.helpers import run_cli

# A, then B one second later, then C (ts in ms, ISO in the CSV).
EVENTS = ("ts,type,id\n"
          "2024-03-01T09:00:00Z,A,1\n"
          "2024-03-01T09:00:01Z,B,2\n"
          "2024-03-01T09:00:02Z,C,3\n")
# Wayeb: an A then a B, both marked, within 5 elements: the one match {e1, e2}.
SRE = ";(IsEventTypePredicate(A),IsEventTypePredicate(B)){window:5}{windowType:count}\n"
SES = "PATTERN <{first}, {b}> WHERE first.type = 'A' AND b.type = 'B' WITHIN 5 seconds\n"


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "e.csv").write_text(EVENTS)
    (tmp_path / "q.sre").write_text(SRE)
    (tmp_path / "q.ses").write_text(SES)
    return tmp_path


def match(capsys, files: Path, pattern: str, *extra: str) -> tuple[int, str, str]:
    return run_cli(capsys, "match", "--pattern", str(files / pattern), "--events",
                  str(files / "e.csv"), *extra)


def test_sre_matches_are_printed_as_marked(capsys, files):
    code, out, err = match(capsys, files, "q.sre")
    assert (code, out) == (0, '{"marked": [0, 1]}\n'), err
    code, out, _ = match(capsys, files, "q.sre", "--format", "table")
    assert out.splitlines()[:2] == ["#  marked", "1  0,1"]


def test_sre_result_files_name_the_variable_marked(capsys, files):
    long_ = files / "long.csv"
    code, _, err = match(capsys, files, "q.sre", "--output", str(long_), "--columns", "id")
    assert code == 0, err
    assert list(csv.reader(long_.open())) == [
        ["match", "variable", "position", "ts", "id"],
        ["0", "marked", "0", "2024-03-01T09:00:00.000Z", "1"],
        ["0", "marked", "1", "2024-03-01T09:00:01.000Z", "2"]]
    wide = files / "wide.jsonl"
    code, _, err = match(capsys, files, "q.sre", "--output", str(wide), "--layout", "wide",
                         "--columns", "marked.id")
    assert code == 0, err
    assert json.loads(wide.read_text()) == {
        "match": 0, "first_ts": "2024-03-01T09:00:00.000Z",
        "last_ts": "2024-03-01T09:00:01.000Z", "marked_id": [1, 2]}


@pytest.mark.parametrize(("parts", "name"), [
    (("v", "user"), "v_user"), (("v", "page name"), "v_page_name"), (("p", "prix-€"), "p_prix__"),
    (("1st",), "_1st"), (("marked",), "marked")])
def test_column_names_need_no_quoting(parts, name):
    assert results.column_name(*parts) == name


def test_wide_columns_are_read_by_duckdb_unquoted(capsys, files):
    duckdb = pytest.importorskip("duckdb")   # a dev dependency: installed by make test
    target = files / "m.csv"
    code, _, err = match(capsys, files, "q.ses", "--output", str(target), "--layout", "wide",
                         "--columns", "first.id,b.id")
    assert code == 0, err
    rows = duckdb.sql(f"SELECT match, first_id, b_id FROM '{target}'").fetchall()
    assert rows == [(0, 1, 2)]


@pytest.mark.parametrize(("extra", "said"), [
    # first.ts would be first_ts, the wide layout's first timestamp
    (["--layout", "wide", "--columns", "first.ts"],
     "--columns first.ts would be the column first_ts, which is the wide layout's own "
     "column; leave one out"),
    # long: an attribute is its own column; ts is the layout's
    (["--columns", "ts"],
     "--columns ts would be the column ts, which is the long layout's own column; leave "
     "one out"),
    # b.i-d and b.i_d both become b_i_d
    (["--layout", "wide", "--columns", "b.i_d,b.i-d"],
     "--columns b.i-d would be the column b_i_d, which is --columns b.i_d's; leave one "
     "out")])
def test_a_column_name_collision_is_one_line_before_any_work(capsys, files, extra, said):
    target = files / "m.csv"
    code, out, err = match(capsys, files, "q.ses", "--output", str(target), *extra)
    assert (code, out, err) == (2, "", f"kleene match: {said}\n")
    assert not target.exists()
    with pytest.raises(OutputError):
        results.parse_columns(extra[-1], "wide" if "wide" in extra else "long", ["first", "b"])


def test_a_timestamp_column_takes_the_unit_of_the_output(capsys, files):
    # ISO input: first_ts, last_ts and the copied b.ts are all datetimes.
    target = files / "m.parquet"
    code, _, err = match(capsys, files, "q.ses", "--output", str(target), "--layout", "wide",
                         "--columns", "b.ts")
    assert code == 0, err
    table = pq.read_table(target)
    assert {str(table.schema.field(n).type) for n in ("first_ts", "last_ts", "b_ts")} == \
        {"timestamp[us, tz=UTC]"}
    assert table.column("b_ts").to_pylist() == table.column("last_ts").to_pylist()
    target = files / "m.jsonl"
    match(capsys, files, "q.ses", "--output", str(target), "--layout", "wide",
          "--columns", "b.ts")
    row = json.loads(target.read_text())
    assert row["b_ts"] == row["last_ts"] == "2024-03-01T09:00:01.000Z"
    # Numbers in, numbers out: 0 and 1000 (ms), the copied b.ts too.
    (files / "n.csv").write_text("ts,type\n0,A\n1000,B\n")
    code, _, err = run_cli(capsys, "match", "--pattern", str(files / "q.ses"), "--events",
                          str(files / "n.csv"), "--time-unit", "ms", "--output",
                          str(files / "n.jsonl"), "--layout", "wide", "--columns", "b.ts")
    assert code == 0, err
    assert json.loads((files / "n.jsonl").read_text()) == {
        "match": 0, "first_ts": 0, "last_ts": 1000, "b_ts": 1000}


def test_draw_says_where_it_wrote(capsys, files):
    target = files / "q.svg"
    code, out, err = run_cli(capsys, "draw", str(files / "q.ses"), "-o", str(target))
    assert (code, out) == (0, "")
    assert err == f"kleene draw: wrote {target} (svg, {target.stat().st_size:,} bytes)\n"


def test_trace_says_where_it_wrote(capsys, files):
    target = files / "run.html"
    code, out, err = run_cli(capsys, "trace", str(files / "q.ses"), "--events",
                            str(files / "e.csv"), "-o", str(target))
    assert (code, out) == (0, "")
    assert err.splitlines()[-1] == (f"kleene trace: wrote {target} "
                                    f"({target.stat().st_size:,} bytes)")
    code, out, err = run_cli(capsys, "trace", str(files / "q.ses"), "--events",
                            str(files / "e.csv"))
    assert code == 0 and "wrote" not in err and out    # on standard output: nothing said


def test_a_small_input_on_spark_is_said(capsys, files, monkeypatch):
    cli_spark.say_if_small(str(files / "e.csv"))          # 86 bytes, far below the bound
    size = (files / "e.csv").stat().st_size
    assert size == len(EVENTS)
    assert capsys.readouterr().err == (
        f"kleene match: {files / 'e.csv'} is {size / 1e6:.2g} MB; below 40 MB one process "
        "matches faster than Spark (start-up included; docs/outputs.md, \"Spark\"): drop "
        "--spark\n")
    monkeypatch.setattr(cli_spark, "SMALL_INPUT_BYTES", size)   # not below: nothing said
    cli_spark.say_if_small(str(files / "e.csv"))
    cli_spark.say_if_small(str(files))                          # a folder: nothing said
    assert capsys.readouterr().err == ""


@pytest.mark.spark
def test_spark_start_up_is_said_and_timed(spark, capsys, files):
    code, out, err = match(capsys, files, "q.ses", "--spark", "--master", "local[2,2]")
    assert (code, out) == (0, '{"b": [1], "first": [0]}\n'), err
    lines = err.splitlines()
    start = lines.index("kleene match: starting Spark (local[2,2])")
    assert re.fullmatch(r"kleene match: Spark ready in \d+\.\d s", lines[start + 1])
    assert any(line.startswith(f"kleene match: {files / 'e.csv'} is ") for line in lines)


def test_the_doc_command_prints_the_match_it_quotes(capsys, monkeypatch):
    # intc.sre: an INTC buy, then a dearer INTC buy within 20 elements. Lines 67 (27.92)
    # and 72 (28.01) of the stock stream are the first such pair (line 1, 27.85, is 66
    # elements before the next INTC line); positions are 0-based.
    root = Path(__file__).resolve().parents[1]
    doc = (root / "docs" / "outputs.md").read_text(encoding="utf-8")
    [command] = re.findall(r"```sh\n(.*?)\n```", doc, re.S)
    assert command.startswith(".venv/bin/kleene match ")
    monkeypatch.chdir(root)
    code, out, err = run_cli(capsys, *command.split()[1:])
    assert code == 0, err
    assert out.splitlines()[0] == '{"marked": [66, 71]}'
    assert '`{"marked": [66, 71]}`' in doc


@pytest.mark.spark
def test_spark_verbose_times_each_step(spark, capsys, files):
    # issue 33: the cold start timed apart from the steps after it, with -v
    code, out, err = match(capsys, files, "q.ses", "--spark", "--master", "local[2,2]", "-v")
    assert (code, out) == (0, '{"b": [1], "first": [0]}\n'), err
    timed = [line for line in err.splitlines() if re.fullmatch(r"kleene match: .* in \d+\.\d s",
                                                               line)]
    assert [re.sub(r" in \d+\.\d s$", "", line) for line in timed] == [
        "kleene match: Spark ready", "kleene match: read the events", "kleene match: planned",
        "kleene match: engine stage and collect", "kleene match: printed the matches"]


def test_verbose_needs_spark(capsys, files):
    code, out, err = match(capsys, files, "q.ses", "-v")
    assert code != 0 and out == ""
    assert err.strip().endswith("--verbose needs --spark")
