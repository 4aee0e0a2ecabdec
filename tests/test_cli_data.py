"""The data engineer's path (issue 11): schema checks before matching, result
files in two layouts, budgets by time, one-line command-line mistakes.
Expected values are computed by hand in the comments."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from kleene.cli import main

# A click log: u1 views, u2 views, u1 buys, u2 buys (ISO timestamps, one minute apart).
EVENTS = ("ts,user,action,price\n"
          "2024-03-01T09:00:00Z,u1,view,\n"
          "2024-03-01T09:01:00Z,u2,view,\n"
          "2024-03-01T09:02:00Z,u1,buy,10\n"
          "2024-03-01T09:03:00Z,u2,buy,25\n")
FUNNEL = ("PATTERN <{v}, {b}> PARTITION BY user\n"
          "WHERE v.action = 'view' AND b.action = 'buy'\nWITHIN 5 minutes\n")
# PARTITION BY user adds v.user = b.user: (v/e1, b/e3) for u1 and (v/e2, b/e4) for u2.
MATCHES = ['{"b": [2], "v": [0]}', '{"b": [3], "v": [1]}']


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "q.ses").write_text(FUNNEL)
    (tmp_path / "clicks.csv").write_text(EVENTS)
    return tmp_path


def run(capsys, files: Path, *extra: str, pattern: str = "q.ses") -> tuple[int, str, str]:
    code = main(["match", "--pattern", str(files / pattern), "--events",
                 str(files / "clicks.csv"), *extra])
    out, err = capsys.readouterr()
    return code, out, err


def one_error(err: str) -> str:
    """The message of a one-error stderr (the engine line, if any, comes first)."""
    lines = [line for line in err.splitlines() if not line.startswith("kleene match: engine")]
    assert lines and lines[0].startswith("kleene match: ") and "Traceback" not in err
    return lines[0]


def test_partition_by_funnel(capsys, files):
    code, out, _ = run(capsys, files)
    assert (code, out.splitlines()) == (0, MATCHES)


def test_misspelt_attribute_names_it_and_the_columns(capsys, files):
    (files / "bad.ses").write_text(FUNNEL.replace("b.action", "b.actoin"))
    code, out, err = run(capsys, files, pattern="bad.ses")
    assert (code, out) == (2, "")
    assert one_error(err) == (
        f"kleene match: {files / 'bad.ses'}:2:29: the events of {files / 'clicks.csv'} have "
        "no attribute 'actoin' (b.actoin); the columns present: action, price, ts, user "
        "(--allow-missing reads it as missing)")


def test_allow_missing_reads_it_as_missing(capsys, files):
    # b.actoin is missing in every event, so b.actoin = 'buy' is unknown: no match.
    (files / "bad.ses").write_text(FUNNEL.replace("b.action", "b.actoin"))
    code, out, _ = run(capsys, files, "--allow-missing", pattern="bad.ses")
    assert (code, out) == (0, "")


def test_text_compared_with_a_number_is_an_error_with_its_position(capsys, files):
    (files / "bad.ses").write_text(FUNNEL.replace("b.action = 'buy'", "b.action > 3"))
    code, _, err = run(capsys, files, pattern="bad.ses")
    assert code == 2
    assert one_error(err) == (f"kleene match: {files / 'bad.ses'}:2:29: b.action > 3 compares "
                              "text with numbers: it is unknown for every event, so the "
                              "pattern can never match")


def test_sum_over_text_is_an_error(capsys, files):
    (files / "sum.op").write_text("PATTERN SEQ(ANY v, ANY+ b[]) WHERE SUM(b.user) > 3 "
                                  "WITHIN 5 minutes\n")
    code, _, err = run(capsys, files, pattern="sum.op")
    assert code == 2
    assert one_error(err).endswith("1:40: SUM over 'user', which holds text, not numbers")


@pytest.mark.parametrize(("text", "column"), [
    ("PATTERN <{v}, {b+}> WHERE prev(v.price) < b.price WITHIN 5 minutes\n", 32),
    ("PATTERN SEQ(ANY v, ANY+ b[]) WHERE v[i-1].price < b[i].price WITHIN 5 minutes\n", 36),
])
def test_prev_of_a_single_event_is_an_error(capsys, files, text, column):
    (files / "prev.txt").write_text(text)
    code, _, err = run(capsys, files, pattern="prev.txt")
    assert code == 2
    assert one_error(err).startswith(f"kleene match: {files / 'prev.txt'}:1:{column}: "
                                     "prev(v...) reads the event before v's")


def test_output_long_jsonl_with_iso_timestamps(capsys, files):
    out_file = files / "m.jsonl"
    code, out, err = run(capsys, files, "--output", str(out_file), "--columns", "user,price")
    assert (code, out) == (0, "")
    assert "wrote 2 matches" in err
    rows = [json.loads(line) for line in out_file.read_text().splitlines()]
    assert rows == [
        {"match": 0, "variable": "v", "position": 0, "ts": "2024-03-01T09:00:00.000Z",
         "user": "u1", "price": None},
        {"match": 0, "variable": "b", "position": 2, "ts": "2024-03-01T09:02:00.000Z",
         "user": "u1", "price": 10},
        {"match": 1, "variable": "v", "position": 1, "ts": "2024-03-01T09:01:00.000Z",
         "user": "u2", "price": None},
        {"match": 1, "variable": "b", "position": 3, "ts": "2024-03-01T09:03:00.000Z",
         "user": "u2", "price": 25}]


def test_output_wide_csv_one_row_per_match(capsys, files):
    out_file = files / "m.csv"
    code, _, _ = run(capsys, files, "--output", str(out_file), "--layout", "wide",
                     "--columns", "v.user,b.price")
    assert code == 0
    with out_file.open() as f:
        assert list(csv.reader(f)) == [
            ["match", "first_ts", "last_ts", "v_user", "b_price"],
            ["0", "2024-03-01T09:00:00.000Z", "2024-03-01T09:02:00.000Z", "u1", "10"],
            ["1", "2024-03-01T09:01:00.000Z", "2024-03-01T09:03:00.000Z", "u2", "25"]]


def test_output_wide_parquet_has_a_timestamp_column(capsys, files):
    import datetime as dt

    import pyarrow as pa
    import pyarrow.parquet as pq

    out_file = files / "m.parquet"
    assert run(capsys, files, "--output", str(out_file), "--layout", "wide")[0] == 0
    table = pq.read_table(out_file)
    assert pa.types.is_timestamp(table.schema.field("first_ts").type)
    at = [dt.datetime(2024, 3, 1, 9, minute, tzinfo=dt.UTC) for minute in range(4)]
    assert table.to_pylist() == [
        {"match": 0, "first_ts": at[0], "last_ts": at[2], "v": [0], "b": [2]},
        {"match": 1, "first_ts": at[1], "last_ts": at[3], "v": [1], "b": [3]}]


def test_existing_output_needs_overwrite(capsys, files):
    out_file = files / "m.jsonl"
    out_file.write_text("old\n")
    code, _, err = run(capsys, files, "--output", str(out_file))
    assert code == 2
    assert one_error(err) == f"kleene match: --output {out_file} exists; give --overwrite " \
                             "to replace it"
    assert run(capsys, files, "--output", str(out_file), "--overwrite")[0] == 0
    assert len(out_file.read_text().splitlines()) == 4


@pytest.mark.parametrize(("extra", "message"), [
    (["--output", "m.txt"], "unknown extension '.txt'; use .jsonl, .csv or .parquet"),
    (["--output", "m.csv", "--layout", "wide", "--columns", "user"],
     "the wide layout needs var.attr"),
    (["--output", "m.csv", "--columns", "x.user"], "no variable 'x' in the pattern"),
    (["--columns", "user"], "--columns needs --output"),
    (["--output", "no/such/dir/m.csv"], "the folder no/such/dir does not exist"),
])
def test_output_mistakes_are_one_line(capsys, files, monkeypatch, extra, message):
    monkeypatch.chdir(files)
    code, out, err = run(capsys, files, *extra)
    assert (code, out) == (2, "")
    assert message in one_error(err) and err.count("\n") == 1


@pytest.mark.parametrize(("argv", "message"), [
    (["match", "--pattern", "q.ses"], "kleene match: the following arguments are required: "
                                      "--events (see kleene match --help)"),
    (["match", "--pattern", "q.ses", "--events", "e.csv", "--policy"],
     "kleene match: argument --policy: expected one argument (see kleene match --help)"),
    (["match", "--pattern", "q.ses", "--events", "e.csv", "--time-limit", "-1"],
     "kleene match: argument --time-limit: expected a positive number, got '-1' "
     "(see kleene match --help)"),
    (["mtach"], "kleene: argument COMMAND: invalid choice: 'mtach'"),
])
def test_command_line_mistakes_are_one_line(capsys, argv, message):
    code = main(argv)
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err.startswith(message) and err.count("\n") == 1


def test_time_limit_stops_the_reference(capsys, files, monkeypatch):
    # A budget whose deadline has passed stops at its first check (every window).
    import kleene.reference.budget as budget

    monkeypatch.setattr(budget.time, "monotonic", iter([0.0] + [1e9] * 100).__next__)
    code, out, err = run(capsys, files, "--engine", "reference", "--time-limit", "5")
    assert (code, out) == (2, "")
    assert one_error(err) == ("kleene match: budget seconds=5 exceeded while enumerating "
                              "matches; raise it (--time-limit SECONDS) or shrink the stream "
                              "or window")


def test_memory_limit_stops_the_reference(capsys, files):
    # Any Python process holds more than 1 MB.
    code, _, err = run(capsys, files, "--engine", "reference", "--memory-limit", "1")
    assert code == 2
    assert one_error(err).startswith("kleene match: budget memory=1MB exceeded")


@pytest.mark.parametrize(("setup", "message"), [
    (lambda d: None, "no such folder"),
    (lambda d: (d.mkdir(), (d / "x.json").write_text('{"language": "ses"}')),
     "x.json is not a valid case file"),
    (lambda d: (d.mkdir(), (d / "x.json").write_text('{"language": "ses"')),
     "x.json: not JSON: Expecting ',' delimiter: line 1 column 19 (char 18)"),
])
def test_demo_with_a_bad_cases_folder_stops_at_once(capsys, tmp_path, setup, message):
    folder = tmp_path / "cases"
    setup(folder)
    code = main(["demo", "--cases", str(folder), "--no-spark", "--out", str(tmp_path)])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err.startswith("kleene demo: ") and message in err and err.count("\n") == 1


def test_time_limit_stops_an_engine_on_an_exponential_match_set(capsys, tmp_path):
    # One A, then 40 B's within the window: under `any`, b+ binds any of the 2^40 - 1
    # non-empty subsets; the engine cannot finish, and the deadline stops it. (-q: no
    # count before the listing, which would stop it at once on the step budget,
    # tests/test_cli_listing_cliff.py)
    (tmp_path / "q.ses").write_text("PATTERN <{a}, {b+}> WHERE a.L = 'A' AND b.L = 'B' "
                                    "WITHIN 100\n")
    (tmp_path / "e.csv").write_text("ts,L\n0,A\n" + "".join(f"{i},B\n" for i in range(1, 41)))
    code = main(["match", "--pattern", str(tmp_path / "q.ses"), "--events",
                 str(tmp_path / "e.csv"), "--time-limit", "1", "-q"])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert one_error(err) == ("kleene match: budget seconds=1 exceeded while running engine "
                              "windows+ses; raise it (--time-limit SECONDS) or shrink the "
                              "stream or window")


def test_an_empty_event_file_says_so(capsys, files):
    (files / "clicks.csv").write_text("ts,user,action,price\n")
    code, out, err = run(capsys, files, "--time-unit", "ms")
    assert (code, out) == (0, "")
    assert err.splitlines()[0] == f"kleene match: {files / 'clicks.csv'} holds no events"


def test_a_misspelt_partition_attribute_is_an_error_not_a_silent_change(capsys, files):
    # SREMO's PARTITION BY (Wayeb's {partitionBy}) is no comparison: without the check,
    # 'usr' would be missing in every event, each event a part of its own, no match.
    (files / "q.sremo").write_text("mark {~.action = 'view'} ; mark {~.action = 'buy'}"
                                   " PARTITION BY usr\n")
    code, out, err = run(capsys, files, pattern="q.sremo")
    assert (code, out) == (2, "")
    assert one_error(err) == (
        f"kleene match: {files / 'q.sremo'}:1:65: the events of {files / 'clicks.csv'} have "
        "no attribute 'usr' (PARTITION BY usr); the columns present: action, price, ts, "
        "user (--allow-missing reads it as missing: every event a part of its own)")
    # spelt right: u1's view then buy, u2's view then buy (adjacent within each user)
    (files / "q.sremo").write_text("mark {~.action = 'view'} ; mark {~.action = 'buy'}"
                                   " PARTITION BY user\n")
    code, out, _ = run(capsys, files, pattern="q.sremo")
    assert code == 0 and len(out.splitlines()) == 2


def test_a_pattern_file_with_a_byte_order_mark_reads_as_without(capsys, files):
    (files / "q.ses").write_bytes(b"\xef\xbb\xbf" + FUNNEL.encode())
    code, out, _ = run(capsys, files)
    assert (code, out.splitlines()) == (0, MATCHES)


def test_a_non_ascii_name_says_what_names_may_hold(capsys, files):
    (files / "bad.ses").write_text(FUNNEL.replace("<{v}, {b}>", "<{vü}, {b}>"))
    code, _, err = run(capsys, files, pattern="bad.ses")
    assert code == 2
    assert one_error(err) == (
        f"kleene match: {files / 'bad.ses'}:1:12: unexpected character 'ü' (names are ASCII "
        "letters, digits and _; text in quotes may be any)")


def test_an_infinite_window_is_a_typo_not_a_window(capsys, files):
    (files / "bad.ses").write_text(FUNNEL.replace("WITHIN 5 minutes", "WITHIN 1e400 minutes"))
    code, _, err = run(capsys, files, pattern="bad.ses")
    assert code == 2
    assert one_error(err) == (f"kleene match: {files / 'bad.ses'}:3:8: expected a finite "
                              "duration, found '1e400'")
