"""``kleene match --spark`` and the Spark API without surprises (issue 11 item 3):
nanosecond Parquet, bad DDL, output files, a user's own session, one-line failures.
Expected matches are those of tests/test_cli_data.py (computed there by hand)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kleene.cli import main
from kleene.cli.spark_failures import cause
from tests.helpers import after_spark_start

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "stocks"
FUNNEL = ("PATTERN <{v}, {b}> PARTITION BY user\n"
          "WHERE v.action = 'view' AND b.action = 'buy'\nWITHIN 5 minutes\n")
MATCHES = ['{"b": [2], "v": [0]}', '{"b": [3], "v": [1]}']
ROWS = {"ts": ["2024-03-01T09:00:00", "2024-03-01T09:01:00", "2024-03-01T09:02:00",
               "2024-03-01T09:03:00"],
        "user": ["u1", "u2", "u1", "u2"], "action": ["view", "view", "buy", "buy"],
        "price": [None, None, 10.0, 25.0]}


@pytest.fixture
def files(tmp_path: Path) -> Path:
    import pandas as pd

    (tmp_path / "q.ses").write_text(FUNNEL)
    frame = pd.DataFrame(ROWS)
    frame["ts"] = pd.to_datetime(frame["ts"])           # datetime64[ns], as pandas writes
    frame.to_parquet(tmp_path / "clicks.parquet")
    return tmp_path


def run(capsys, files: Path, *extra: str) -> tuple[int, str, str]:
    code = main(["match", "--pattern", str(files / "q.ses"), "--events",
                 str(files / "clicks.parquet"), "--time-unit", "ms", *extra])
    out, err = capsys.readouterr()
    return code, out, err


def test_nanosecond_parquet_and_wide_output(spark, capsys, files):
    code, out, err = run(capsys, files, "--spark")
    assert (code, out.splitlines()) == (0, MATCHES), err
    assert "engine windows+ses on Spark" in err and "WARN" not in err
    target = files / "m.jsonl"
    code, _, err = run(capsys, files, "--spark", "--output", str(target), "--layout", "wide",
                       "--columns", "v.user,b.price")
    assert code == 0, err
    # The input's timestamps were Parquet timestamps (naive, read as UTC): they go back as
    # ISO datetimes.
    assert [json.loads(line) for line in target.read_text().splitlines()] == [
        {"match": 0, "first_ts": "2024-03-01T09:00:00.000Z",
         "last_ts": "2024-03-01T09:02:00.000Z", "v_user": "u1", "b_price": 10.0},
        {"match": 1, "first_ts": "2024-03-01T09:01:00.000Z",
         "last_ts": "2024-03-01T09:03:00.000Z", "v_user": "u2", "b_price": 25.0}]


def test_an_unknown_columns_attribute_on_spark_is_refused_as_single_process(spark, capsys,
                                                                            files):
    target = files / "m.jsonl"
    code, _, err = run(capsys, files, "--spark", "--output", str(target), "--layout", "wide",
                       "--columns", "v.usr")
    assert (code, after_spark_start(err)) == (2, [
        "kleene match: --columns v.usr: the events have no attribute 'usr'; the nearest: "
        "user (--allow-missing writes it as an empty column)"])
    assert not target.exists()
    code, _, err = run(capsys, files, "--spark", "--output", str(target), "--layout", "wide",
                       "--columns", "v.usr,v.user", "--allow-missing")
    assert code == 0, err
    assert ("kleene match: warning: --columns v.usr: the events have no attribute 'usr', so "
            "its column is empty; the nearest: user") in err.splitlines()
    assert [(r["v_usr"], r["v_user"]) for r in map(json.loads, target.read_text().splitlines())
            ] == [(None, "u1"), (None, "u2")]


def test_count_on_spark_prints_the_number_of_matches(spark, capsys, files):
    code, out, err = run(capsys, files, "--spark", "--count")
    assert (code, out) == (0, "2\n"), err          # the two hand-computed matches


@pytest.mark.parametrize("option, said", [
    ("--sort", "--sort does not apply with --spark: Spark reads the events in the file's "
               "order; sort the file first"),
    ("--stream", "--stream does not apply with --spark"),
    ("--time-limit=5", "--time-limit does not apply with --spark")])
def test_a_single_process_option_with_spark_is_one_line(capsys, files, option, said):
    code, out, err = run(capsys, files, "--spark", option)
    assert code == 2 and out == "" and said in err and len(err.strip().splitlines()) == 1, err


def test_bad_ddl_is_one_line(spark, capsys, tmp_path):
    (tmp_path / "q.ses").write_text(FUNNEL)
    (tmp_path / "e.csv").write_text("ts,user,action\n0,u1,view\n")
    code = main(["match", "--pattern", str(tmp_path / "q.ses"), "--events",
                 str(tmp_path / "e.csv"), "--spark", "--schema", "ts BIGINT, user STRNG"])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    lines = [line for line in after_spark_start(err) if "engine" not in line]
    assert len(lines) == 1 and "Traceback" not in err
    assert lines[0].startswith("kleene match: ") and \
        "--schema 'ts BIGINT, user STRNG' is not a column list Spark reads" in lines[0]


def test_existing_output_is_refused_before_spark_starts(capsys, files):
    (files / "m.parquet").write_text("x")
    code, _, err = run(capsys, files, "--spark", "--output", str(files / "m.parquet"))
    assert code == 2
    assert err == (f"kleene match: --output {files / 'm.parquet'} exists; give --overwrite "
                   "to replace it\n")


def test_match_dataframe_in_a_users_session(spark):
    """A session started without PYSPARK_PYTHON runs ``python3`` workers, which cannot
    import kleene; match_dataframe sets the worker's Python from the driver's."""
    from kleene.engines.spark import collect_matches, match_dataframe

    sc = spark.sparkContext
    before = sc.pythonExec
    sc.pythonExec = "python3"
    try:
        df = spark.createDataFrame([(0, "u1", "view"), (1, "u1", "buy")],
                                   "ts BIGINT, user STRING, action STRING")
        found = collect_matches(match_dataframe(df, FUNNEL.replace("5 minutes", "5"),
                                                ts="ts"))
        assert [m.dumps() for m in found] == ['{"b": [1], "v": [0]}']
    finally:
        sc.pythonExec = before


@pytest.mark.parametrize(("text", "expected"), [
    ("\n[PARSE_SYNTAX_ERROR] Syntax error at or near 'STRNG'. SQLSTATE: 42601\n== SQL ==",
     "[PARSE_SYNTAX_ERROR] Syntax error at or near 'STRNG'. SQLSTATE: 42601"),
    ("An error occurred while calling o12.parquet.\n: org.apache.spark.SparkException: Job "
     "aborted\n\tat org.apache...\nCaused by: java.io.FileNotFoundException: /x (No such "
     "file or directory)\n\tat java.io...",
     "/x (No such file or directory)"),
])
def test_cause_is_one_line(text, expected):
    assert cause(RuntimeError(text)) == expected


def test_conform_on_spark_runs_every_case_in_one_job(spark, capsys):
    # the Wayeb worked examples (seed 004's benchmark syntax) of srt, as kleene conform runs
    # them single-process: the same verdicts, and one Spark job for all of them
    sc = spark.sparkContext
    sc.setJobGroup("kleene-conform", "kleene-conform")
    try:
        code = main(["conform", "--backend", "srt", "--spark", "--case", "sremo-windows", "-q"])
    finally:
        sc.setLocalProperty("spark.jobGroup.id", None)
    out, err = capsys.readouterr()
    assert code == 0, out + err
    assert len(sc.statusTracker().getJobIdsForGroup("kleene-conform")) == 1
    assert main(["conform", "--backend", "srt", "--case", "sremo-windows", "-q"]) == 0
    local, _ = capsys.readouterr()
    assert out.splitlines()[-1] == local.splitlines()[-1]      # the summary line
    assert "on spark" in out


@pytest.mark.parametrize(("argv", "message"), [
    (["conform", "--backend", "cmd:node x.js", "--spark"], "--spark runs a registered engine"),
    (["conform", "--backend", "srt", "--master", "local[1]"], "--master needs --spark"),
    (["match", "--spark", "--pattern", str(EXAMPLES / "intc.sre"), "--events",
      str(EXAMPLES / "stocks.stream"), "--policy", "literal"],
     "policy 'literal' of Wayeb .sre patterns (seed 004 benchmarks) does not run on Spark"),
])
def test_conform_spark_mistakes_are_one_line(capsys, argv, message):
    assert main(argv) == 2
    _, err = capsys.readouterr()
    lines = err.strip().splitlines()
    # the mistake is one line, the last; a .sre file's window may be said before it
    assert message in lines[-1] and all(" window " in line for line in lines[:-1])
