"""``kleene match`` on Wayeb ``.sre`` patterns (seed 004): ``--window N --window-type
count|time`` replace the file's own window, stderr says which window and reading are
used, bad values are one-line errors, ``--engine srt|dsrt`` run the engines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kleene.cli import main

SRE = ("#(;(^(IsEventTypePredicate(SELL),EQStr(name,INTC))[\"x\"],"
       "^(IsEventTypePredicate(BUY),EQStr(name,QQQ),GTAttr(price,\"x\"))))"
       "{window:TIMESTAMP}{windowType:time}\n")
ROWS = [  # SELL INTC at 0; BUY QQQ above its price at 2, 5 and 9
    {"ts": 0, "type": "SELL", "name": "INTC", "price": 20.0},
    {"ts": 2, "type": "BUY", "name": "QQQ", "price": 30.0},
    {"ts": 5, "type": "BUY", "name": "QQQ", "price": 31.0},
    {"ts": 9, "type": "BUY", "name": "QQQ", "price": 32.0},
]


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str]:
    pattern, events = tmp_path / "q.sre", tmp_path / "e.jsonl"
    pattern.write_text(SRE)
    events.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    return str(pattern), str(events)


def _run(capsys, files, *options: str) -> tuple[int, list[str], str]:
    pattern, events = files
    code = main(["match", "--pattern", pattern, "--events", events, *options])
    out, err = capsys.readouterr()
    return code, out.splitlines(), err


def test_a_time_window_given_on_the_command_line_is_read_as_wayeb_reads_it(capsys, files):
    code, out, err = _run(capsys, files, "--window", "5", "--engine", "srt")
    assert code == 0
    # strict: 5 − 0 is not < 5, so only the QQQ at ts 2 pairs with the SELL
    assert out == ['{"marked": [0, 1]}']
    assert "time window 5 (given), read strict (max ts - min ts < τ)" in err


def test_the_inclusive_reading_overrides_wayebs(capsys, files):
    code, out, err = _run(capsys, files, "--window", "5", "--window-reading", "inclusive")
    assert code == 0 and out == ['{"marked": [0, 1]}', '{"marked": [0, 2]}']
    assert "read inclusive" in err


def test_a_count_window_replaces_the_files_time_window(capsys, files):
    code, out, err = _run(capsys, files, "--window", "3", "--window-type", "count")
    # [1..3]: the marked positions span at most 3 elements: (0, 1) and (0, 2)
    assert code == 0 and out == ['{"marked": [0, 1]}', '{"marked": [0, 2]}']
    assert "count window [1..3] (given)" in err and "read strict" not in err


def test_the_files_placeholder_needs_a_window(capsys, files):
    code, _, err = _run(capsys, files)
    assert code != 0 and "placeholder" in err and "--window N" in err


@pytest.mark.parametrize("options, message", [
    (["--window", "0"], "expected a positive number, got '0'"),
    (["--window", "ten"], "expected a positive number, got 'ten'"),
    (["--window", "2.5", "--window-type", "count"], "a count window is a whole number"),
    (["--window", "3", "--window-type", "days"], "invalid choice: 'days'"),
])
def test_bad_window_values_are_one_line_errors(capsys, files, options, message):
    code, _, err = _run(capsys, files, *options)
    assert code != 0 and message in err
    assert len([line for line in err.splitlines() if line.startswith("kleene")]) == 1


def test_window_options_apply_to_sre_patterns_only(capsys, tmp_path, files):
    pattern = tmp_path / "p.sremo"
    pattern.write_text("mark {~.type = 'SELL'}\n")
    code = main(["match", "--pattern", str(pattern), "--events", files[1], "--window", "3"])
    assert code != 0 and "applies to Wayeb .sre patterns" in capsys.readouterr().err


def test_dsrt_runs_a_fully_marked_sre_query_and_a_strategy(capsys, tmp_path, files):
    pattern = tmp_path / "strict.sre"
    pattern.write_text(";(IsEventTypePredicate(SELL), IsEventTypePredicate(BUY)){window:2}\n")
    code = main(["match", "--pattern", str(pattern), "--events", files[1], "--engine", "dsrt"])
    out, err = capsys.readouterr()
    assert code == 0 and out.splitlines() == ['{"marked": [0, 1]}']
    assert "count window [1..2] (the file's)" in err
    code, out, err = _run(capsys, files, "--window", "3", "--window-type", "count",
                          "--engine", "dsrt")
    # as srt (test_a_count_window_replaces_the_files_time_window): the DSRT with marks
    assert code == 0 and out == ['{"marked": [0, 1]}', '{"marked": [0, 2]}']
    code, out, err = _run(capsys, files, "--window", "5", "--engine", "dsrt")
    assert code == 0 and out == ['{"marked": [0, 1]}']     # strict: as srt, above
