"""``--budget`` under Spark (issue 27 item 3): each Spark task's engine run draws on
the step budget, so an exploding pattern stops with the budget's one line, as in one
process. The pattern makes one match per non-empty subset of the B events under
``any`` (2^n - 1; counted by hand)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kleene.cli import main
from tests.helpers import after_spark_start

PATTERN = "PATTERN SEQ(A a, B+ b[]) WITHIN 1000\n"


def files(tmp_path: Path, bs: int) -> tuple[Path, Path]:
    (tmp_path / "q.op").write_text(PATTERN)
    rows = ["ts,type", "0,A", *(f"{i},B" for i in range(1, bs + 1))]
    (tmp_path / "e.csv").write_text("\n".join(rows) + "\n")
    return tmp_path / "q.op", tmp_path / "e.csv"


def kleene(tmp_path: Path, bs: int, *extra: str) -> list[str]:
    pattern, events = files(tmp_path, bs)
    return ["match", "--pattern", str(pattern), "--events", str(events), "--policy", "any",
            "--engine", "nfa-chain", "--spark", "--tasks", "1", *extra]


@pytest.mark.slow
def test_an_exploding_pattern_stops_with_the_budget_line(spark, capsys, tmp_path):
    code = main(kleene(tmp_path, 20, "--budget", "1000"))
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    said = after_spark_start(err)
    assert len(said) == 1, err
    assert said[0].startswith("kleene match: budget steps=1000 exceeded while running engine "
                          "nfa-chain on Spark"), err


@pytest.mark.slow
def test_within_the_budget_every_match(spark, capsys, tmp_path):
    """Four B events: 15 matches, under the default budget and under 1000 steps; 14 steps
    are fewer than the matches."""
    for budget in ((), ("--budget", "1000")):
        code = main(kleene(tmp_path, 4, *budget, "--count"))
        out, err = capsys.readouterr()
        assert (code, out) == (0, "15\n"), err
    code = main(kleene(tmp_path, 4, "--budget", "14", "--count"))
    out, err = capsys.readouterr()
    assert code == 2 and "budget steps=14 exceeded" in err, err


@pytest.mark.slow
def test_a_stream_micro_batch_stops_with_the_budget_line(spark, capsys, tmp_path):
    """``kleene stream --budget``: the C at ts 3000 moves the watermark past the window
    of the A, so the exploding matches are made final inside the micro-batch (Spark's
    foreachBatch, whose failure Spark wraps in its own)."""
    src = tmp_path / "src"
    src.mkdir()
    rows = ["ts,type", "0,A", *(f"{i},B" for i in range(1, 21)), "3000,C"]
    (src / "e.csv").write_text("\n".join(rows) + "\n")
    (tmp_path / "q.op").write_text(PATTERN)
    code = main(["stream", "--pattern", str(tmp_path / "q.op"), "--source", str(src),
                 "--output", str(tmp_path / "out.jsonl"), "--checkpoint", str(tmp_path / "ck"),
                 "--engine", "nfa-chain", "--policy", "any", "--once", "--budget", "1000"])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    said = [line for line in after_spark_start(err)
            if not line.startswith("kleene stream: engine ")]
    assert len(said) == 1, err
    assert said[0].startswith("kleene stream: budget steps=1000 exceeded while running "
                              "engine nfa-chain on Spark"), err
