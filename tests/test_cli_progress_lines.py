"""Progress when stderr is not a terminal (issue 29 item 2, :mod:`kleene.cli.progress`):
one line every few seconds while a run lasts, none for a quick run, none with ``-q``."""

from __future__ import annotations

import time
from pathlib import Path

from kleene.cli import main, progress

# <{a+},{b}> under contiguous, the reference named: it enumerates the subsets
# of the As (2^14 of them here), long enough for lines said every 10 ms
SES = "PATTERN <{a+}, {b}>\nWHERE a.type = 'A' AND b.type = 'B'\nWITHIN 100\n"
EVENTS = "ts,type\n" + "".join(f"{i},A\n" for i in range(14)) + "14,B\n"


def test_a_line_every_period_with_the_count_and_the_time(capsys):
    readings = [0.0]   # a fake clock: 0 when the run begins, 12 s at every line

    def clock() -> float:
        now = readings[-1]
        readings.append(12.0)
        return now

    said = ""
    with progress.Lines("nfa-chain", "event", 100, every=0.01, clock=clock) as shown:
        shown.update(40)
        began = time.monotonic()
        while said.count("\n") < 2 and time.monotonic() - began < 10:
            time.sleep(0.01)   # the thread says a line every 10 ms
            said += capsys.readouterr().err
    lines = said.splitlines()
    assert len(lines) >= 2
    assert all(line == "kleene: nfa-chain: 40 of 100 events, 12 s" for line in lines)


def test_a_quick_run_says_nothing(capsys):
    with progress.Lines("reference", "step", every=5.0) as shown:
        shown.update(3)
    assert capsys.readouterr().err == ""


def test_not_a_terminal_means_lines_in_kleene_match_and_quiet_means_nothing():
    # pytest's captured stderr is not a terminal; other commands (kleene demo) say nothing
    assert not progress.lines() and not progress.enabled()
    assert type(progress._bar("x", "event", None)) is progress._Off
    with progress.said(quiet=False):
        assert progress.lines() and not progress.enabled()
        assert isinstance(progress._bar("x", "event", None), progress.Lines)
        with progress.said(quiet=True):
            assert not progress.lines() and not progress.enabled()
            assert type(progress._bar("x", "event", None)) is progress._Off
        assert progress.lines()
    assert not progress.lines()


def run(capsys, tmp_path: Path, *extra: str) -> tuple[str, list[str]]:
    (tmp_path / "q.ses").write_text(SES)
    (tmp_path / "e.csv").write_text(EVENTS)
    code = main(["match", "--pattern", str(tmp_path / "q.ses"), "--events",
                 str(tmp_path / "e.csv"), "--policy", "contiguous", "--count",
                 "--engine", "reference", *extra])
    assert code == 0
    out, err = capsys.readouterr()
    return out, err.splitlines()


def test_kleene_match_says_progress_lines_and_not_with_quiet(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(progress, "EVERY", 0.01)
    out, err = run(capsys, tmp_path)
    # contiguous: the As from some a_i up to a13, then the B: 14 matches
    assert out == "14\n"
    said = [line for line in err if line.startswith("kleene: reference: ")]
    assert said and all(line.split(": ")[2].split(" ")[1] == "steps," for line in said)
    assert len(said) == len(err)   # nothing else on stderr: the reference was named
    out, err = run(capsys, tmp_path, "-q")
    assert out == "14\n" and err == []
