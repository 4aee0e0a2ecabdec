"""The ``kleene`` command line: ``main([...])`` with capsys, and once through the
installed console script. Expected outputs are computed by hand in comments."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kleene.reference.languages import LANGUAGES, detect_language
from tests.helpers import run_cli

PATTERN = "PATTERN <{a}, {b}> WHERE a.L = 'A' AND b.L = 'B' WITHIN 10\n"
EVENTS = "ts,L\n0,A\n1,B\n2,A\n3,B\n"

# Under `any`, a/A must be strictly earlier than b/B and within 10:
# (a0, b1), (a0, b3), (a2, b3); a2 cannot pair with b1 (b1 is earlier).
ANY_LINES = ['{"a": [0], "b": [1]}', '{"a": [0], "b": [3]}', '{"a": [2], "b": [3]}']
# Under `next`, the run started at e0 takes b1 (the first B it can take) and is
# complete; (a0, b3) skipped b1, which that run could take, so it is dropped.
# The run started at e2 takes b3.
NEXT_LINES = ['{"a": [0], "b": [1]}', '{"a": [2], "b": [3]}']


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "q.ses").write_text(PATTERN)
    (tmp_path / "e.csv").write_text(EVENTS)
    return tmp_path


def match(files: Path, *extra: str) -> list[str]:
    return ["match", "--pattern", str(files / "q.ses"), "--events", str(files / "e.csv"), *extra]


def chosen(policy: str) -> str:
    """What ``kleene match`` says on stderr when it picks windows+ses for ``policy``."""
    return (f"kleene match: engine windows+ses (the fastest engine that claims ses, "
            f"ses:{policy})\n")


def test_jsonl_lines_are_the_canonical_matches(capsys, files):
    code, out, err = run_cli(capsys, *match(files))
    assert (code, out.splitlines(), err) == (0, ANY_LINES, chosen("any"))
    code, out, err = run_cli(capsys, *match(files, "--engine", "reference"))
    assert (code, out.splitlines(), err) == (0, ANY_LINES, "")


def test_policy_next(capsys, files):
    code, out, _ = run_cli(capsys, *match(files, "--policy", "next"))
    assert (code, out.splitlines()) == (0, NEXT_LINES)


def test_table_has_one_column_per_variable(capsys, files):
    code, out, _ = run_cli(capsys, *match(files, "--format", "table"))
    assert code == 0
    assert [line.split() for line in out.splitlines()[:4]] == [
        ["#", "a", "b"], ["1", "0", "1"], ["2", "0", "3"], ["3", "2", "3"]]
    assert "3 matches on 4 events" in out


def test_event_options(capsys, tmp_path):
    # A JSON Lines file with the timestamp in "T" (hours) and a window of 2 hours:
    # A at 0 h and B at 3 h are too far apart; B at 2 h is exactly 2 h away.
    (tmp_path / "q.ses").write_text("PATTERN <{a}, {b}> WHERE a.kind = 'A' AND b.kind = 'B' "
                                    "WITHIN 2 hours\n")
    rows = [{"T": 0, "kind": "A"}, {"T": 2, "kind": "B"}, {"T": 3, "kind": "B"}]
    (tmp_path / "e.log").write_text("".join(json.dumps(r) + "\n" for r in rows))
    code, out, err = run_cli(capsys, "match", "--pattern", str(tmp_path / "q.ses"),
                         "--events", str(tmp_path / "e.log"), "--events-format", "jsonl",
                         "--ts", "T", "--type-field", "", "--time-unit", "h")
    assert (code, out.splitlines(), err) == (0, ['{"a": [0], "b": [1]}'], chosen("any"))


def test_syntax_error_exits_2_with_line_and_column(capsys, files):
    # Line 2, "WHERE a.L = = 'A'": the second '=' is column 13 where a term is expected.
    (files / "q.ses").write_text("PATTERN <{a}, {b}>\nWHERE a.L = = 'A'\nWITHIN 10\n")
    code, out, err = run_cli(capsys, *match(files))
    assert code == 2 and out == ""
    assert f"{files / 'q.ses'}:2:13:" in err
    assert err.splitlines()[-1] == " " * 14 + "^"  # two spaces of indent, then column 13
    assert "Traceback" not in err


def test_budget_error_names_the_budget(capsys, files):
    code, out, err = run_cli(capsys, *match(files, "--budget", "1", "--engine", "reference"))
    assert code == 2 and out == ""
    assert "budget steps=1 exceeded" in err and "Traceback" not in err


def test_budget_can_be_named(capsys, files):
    assert run_cli(capsys, *match(files, "--budget", "steps=1000", "--engine", "reference"))[0] == 0
    code, _, err = run_cli(capsys, *match(files, "--budget", "time=5"))
    assert code == 2 and "unknown budget 'time'" in err


@pytest.mark.parametrize("extra, needle", [
    (["--policy", "sometimes"], "unknown policy 'sometimes'"),
    (["--time-unit", "fortnight"], "unknown time unit"),
])
def test_bad_options(capsys, files, extra, needle):
    code, _, err = run_cli(capsys, *match(files, *extra))
    assert code == 2 and needle in err and "Traceback" not in err


def test_missing_files(capsys, files):
    code, _, err = run_cli(capsys, "match", "--pattern", str(files / "nope.ses"),
                       "--events", str(files / "e.csv"))
    assert code == 2 and "nope.ses" in err
    code, _, err = run_cli(capsys, "match", "--pattern", str(files / "q.ses"),
                       "--events", str(files / "nope.csv"))
    assert code == 2 and "nope.csv" in err and "Traceback" not in err


def test_stream_error_names_row_and_field(capsys, files):
    (files / "e.csv").write_text("ts,L\n0,A\n2,B\n1,B\n")
    code, _, err = run_cli(capsys, *match(files))
    assert code == 2 and "row 2, field 'ts'" in err


def test_window_with_a_unit_needs_a_time_unit(capsys, files):
    (files / "q.ses").write_text("PATTERN <{a}> WHERE a.L = 'A' WITHIN 10 hours\n")
    code, _, err = run_cli(capsys, *match(files))
    assert code == 2 and "--time-unit" in err


def test_language_detection():
    assert detect_language("-- a comment\n  pattern ⟨{a}⟩ WITHIN 1").name == "ses"


def test_unknown_language_asks_for_one(capsys, files):
    """A text no language begins like (a SELECT is CEQL's since CEQL is a language, or
    MATCH_RECOGNIZE's when it holds one), in a file whose name names no language."""
    (files / "q.txt").write_text("FIND a THEN b\n")
    code, _, err = run_cli(capsys, "match", "--pattern", str(files / "q.txt"),
                           "--events", str(files / "e.csv"))
    assert code == 2 and "cannot tell the pattern language" in err


def test_a_file_suffix_names_the_language_its_text_does_not_tell(capsys, files):
    """Text no language begins like, in ``q.ses``: read as SES, refused where SES's
    grammar refuses it (not "cannot tell the pattern language")."""
    (files / "q.ses").write_text("FIND a THEN b\n")
    code, _, err = run_cli(capsys, *match(files))
    assert code == 2
    assert err.splitlines()[0].endswith("q.ses:1:1: expected 'PATTERN', found 'FIND'")


def test_the_text_decides_before_the_suffix(capsys, files):
    """An operator pattern in ``q.ses`` is read as what its text is."""
    (files / "q.ses").write_text("PATTERN SEQ(A a, B b) WITHIN 10\n")
    code, out, _ = run_cli(capsys, *match(files, "--type-field", "L"))
    assert (code, out.splitlines()) == (0, ANY_LINES)


def test_a_sql_file_without_match_recognize_says_so(capsys, files):
    """Plain SQL in ``q.sql`` reads as CEQL by its first word, whose refusal says the
    name says MATCH_RECOGNIZE; named so, it is one line: no recognition in it."""
    (files / "q.sql").write_text("SELECT * FROM events\n")
    args = ("match", "--pattern", str(files / "q.sql"), "--events", str(files / "e.csv"))
    code, out, err = run_cli(capsys, *args)
    assert (code, out) == (2, "")
    assert err.splitlines()[0].endswith(
        "q.sql:1:15: expected a stream name, found 'events' (read as ceql by its text; its "
        ".sql name says match_recognize: name it with --language match_recognize)")
    code, out, err = run_cli(capsys, *args, "--language", "match_recognize")
    assert (code, out) == (2, "")
    assert len(err.strip().splitlines()) == 1 and "holds no MATCH_RECOGNIZE" in err


def test_a_suffix_names_one_language():
    with pytest.raises(ValueError, match=r"suffix\(es\) \.ses already name a language"):
        LANGUAGES.add("ses-again", LANGUAGES["ses"], lambda text: False, (".ses",))
    assert "ses-again" not in LANGUAGES
    assert [LANGUAGES.named_by_suffix(f"dir.v1/q{s}") for s in (".SQL", ".sre", ".txt", "")] \
        == ["match_recognize", "wayeb", None, None]


def test_help(capsys):
    code, out, _ = run_cli(capsys, "--help")
    assert code == 0 and "match" in out and "demo" in out
    code, out, _ = run_cli(capsys, "match", "--help")
    assert code == 0 and "--policy" in out and "next-literal" in out


def test_no_command_is_a_usage_error(capsys):
    code, _, err = run_cli(capsys)
    assert code == 2 and "COMMAND" in err


def test_console_script(files):
    script = Path(sys.executable).parent / "kleene"
    done = subprocess.run([str(script), *match(files, "--policy", "next")],
                          capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout.splitlines(), done.stderr) == \
        (0, NEXT_LINES, chosen("next"))


# ---------------------------------------------------------------- demo

def case_file(expected: list[dict[str, list[int]]]) -> dict[str, object]:
    """A one-test case file: PATTERN on EVENTS under `any` with ``expected``."""
    return {
        "language": "ses", "description": "a tiny case",
        "cases": [{
            "description": "A then B", "specification": [{"seed": "000", "section": "Def. 2"}],
            "pattern": PATTERN.strip(),
            "events": [{"ts": 0, "L": "A"}, {"ts": 1, "L": "B"}, {"ts": 2, "L": "A"},
                       {"ts": 3, "L": "B"}],
            "tests": [{"description": "three matches", "policy": "any",
                       "matches": expected}]}]}


@pytest.mark.parametrize("correct", [True, False])
def test_demo_reports_agreement(capsys, tmp_path, correct):
    expected = [json.loads(line) for line in ANY_LINES]
    if not correct:
        expected = expected[:2]  # (a2, b3) is left out: the reference finds it as extra
    (tmp_path / "ses-tiny.json").write_text(json.dumps(case_file(expected)))
    (tmp_path / "s.stream").write_text("\n".join(STOCK_LINES) + "\n")
    code, out, _ = run_cli(capsys, "demo", "--cases", str(tmp_path), "--no-spark",
                       "--out", str(tmp_path / "out"), "--data", str(tmp_path / "s.stream"))
    assert code == (0 if correct else 1)
    assert ("✓ any" if correct else "✗ any") in out
    # e1 is position 0: the match (a0, b1) is {a/e1, b/e2} in the paper's notation.
    assert "{a/e1, b/e2}" in out
    assert ("extra: {a/e3, b/e4}" in out) is not correct


STOCK_LINES = ["BUY(id=1,name=INTC,volume=1,price=1.0,stock_time=1000)",
               "SELL(id=2,name=IBM,volume=1,price=1.0,stock_time=1100)",
               "SELL(id=3,name=MSFT,volume=1,price=1.0,stock_time=1200)",
               "BUY(id=4,name=CSCO,volume=1,price=1.0,stock_time=1400)"]


def _table_rows(out: str, workload: str) -> list[str]:
    return [line for line in out.splitlines() if workload in line]


def test_demo_stock_section(capsys, tmp_path):
    # INTC, MSFT and CSCO within 400 ms: the demo's 3-variable set pattern
    # (500 ms window) matches them once; the IBM tick is bound to no variable.
    (tmp_path / "s.stream").write_text("\n".join(STOCK_LINES) + "\n")
    code, out, _ = run_cli(capsys, "demo", "--cases", str(tmp_path), "--data",
                       str(tmp_path / "s.stream"), "--no-spark", "--out", str(tmp_path / "out"))
    assert code == 0 and "4 events loaded" in out
    prefix = _table_rows(out, "stock, first 4")
    # the reference finds the one match under next and under any; every engine agrees
    assert [r.split()[0] for r in prefix if "the oracle" in r] == ["reference", "reference"]
    assert all("✓ agrees" in r for r in prefix if "the oracle" not in r)
    assert len(_table_rows(out, "stock, all 4")) >= 2
    report = (tmp_path / "out" / "report.md").read_text()
    assert "| ses-automaton | local | stock, all 4 | next | 1 |" in report
    assert (tmp_path / "out" / "q1-ses-automaton.svg").read_text().lstrip().startswith("<")


@pytest.mark.spark
def test_demo_runs_the_engines_on_spark(capsys, tmp_path, spark):
    (tmp_path / "s.stream").write_text("\n".join(STOCK_LINES) + "\n")
    code, out, _ = run_cli(capsys, "demo", "--cases", str(tmp_path), "--data",
                       str(tmp_path / "s.stream"), "--out", str(tmp_path / "out"),
                       "--no-stream")   # the continuous run: tests/test_stream_spark.py
    rows = [r for r in _table_rows(out, "stock, all 4") if " spark " in r]
    assert code == 0 and len(rows) == 2 and all("✓ agrees" in r for r in rows)


@pytest.mark.parametrize(("text", "expected"), [
    # seed 003 Example 1.1 shape on A A B B C (ts = position): 2 a's x 2 b's x 1 c
    ("PATTERN SEQ(A a, B b, C c) WITHIN 10",
     ['{"a": [0], "b": [2], "c": [4]}', '{"a": [0], "b": [3], "c": [4]}',
      '{"a": [1], "b": [2], "c": [4]}', '{"a": [1], "b": [3], "c": [4]}']),
    # SREMO, streaming detection (its default policy): a marked A, anything, a marked C,
    # printed under the name `marked` (docs/outputs.md, "Names")
    ("mark {~.type = 'A'} ; {TRUE}* ; mark {~.type = 'C'}",
     ['{"marked": [0, 4]}', '{"marked": [1, 4]}']),
])
def test_other_languages_are_recognised_from_the_text(capsys, tmp_path, text, expected):
    (tmp_path / "p.txt").write_text(text + "\n")
    (tmp_path / "e.jsonl").write_text("".join(
        f'{{"ts": {i}, "type": "{t}"}}\n' for i, t in enumerate("AABBC")))
    code, out, err = run_cli(capsys, "match", "--pattern", str(tmp_path / "p.txt"),
                         "--events", str(tmp_path / "e.jsonl"), "--engine", "reference")
    assert (code, out.splitlines(), err) == (0, expected, "")
