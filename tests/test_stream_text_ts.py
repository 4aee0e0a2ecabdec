"""``kleene stream`` on a source where one CSV file has a text ``ts`` cell (issue 27):
docs/spark.md promises that rows that do not parse are written with the reason to
``OUTPUT/_late/`` while the others are matched, not that the whole source is
refused. Expected matches by hand: A at ts 1, B at ts 2 and 5 (the row ``abc,A``
is malformed); ``SEQ(A a, B b) WITHIN 10`` under ``any`` pairs the A with each B."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from kleene.cli import main
from tests.helpers import after_spark_start

PATTERN = "PATTERN SEQ(A a, B b) WITHIN 10\n"


def source(tmp_path: Path, *files: str, suffix: str = "csv") -> Path:
    src = tmp_path / "src"
    src.mkdir()
    for i, text in enumerate(files):
        path = src / f"{i}.{suffix}"
        path.write_text(text)
        os.utime(path, (1_000_000 + i, 1_000_000 + i))    # arrival order: the files' order
    (tmp_path / "q.op").write_text(PATTERN)
    return src


def stream(tmp_path: Path, src: Path) -> int:
    return main(["stream", "--pattern", str(tmp_path / "q.op"), "--source", str(src),
                 "--output", str(tmp_path / "out.jsonl"), "--checkpoint",
                 str(tmp_path / "ck"), "--once"])


def rows(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for path in sorted(folder.rglob("*.json"))
            for line in path.read_text().splitlines()]


#: The A at ts 1 with each B (ts 2 and 5), as (variable, ts) pairs.
HAND = [(("a", 1), ("b", 2)), (("a", 1), ("b", 5))]


def matches(folder: Path) -> list[tuple[tuple[str, int], ...]]:
    """The matches written in ``folder`` as sorted (variable, ts) pairs."""
    found: dict[str, dict[str, int]] = {}
    for r in rows(folder):
        if "match_id" in r:
            found.setdefault(str(r["match_id"]), {})[str(r["variable"])] = int(r["ts"])
    return sorted(tuple(sorted(m.items())) for m in found.values())


@pytest.mark.slow
def test_a_text_ts_cell_goes_to_late_and_the_rest_is_matched(spark, capsys, tmp_path):
    src = source(tmp_path, "ts,type\n1,A\n2,B\n", "ts,type\nabc,A\n5,B\n")
    assert stream(tmp_path, src) == 0
    out, err = capsys.readouterr()
    assert "2 matches written" in out and "1 late or malformed" in out, (out, err)
    out_dir = tmp_path / "out.jsonl"
    late = rows(out_dir / "_late")
    assert [(r["type"], r["reason"]) for r in late] == [("A", "malformed row: abc,A")]
    assert matches(out_dir) == HAND


@pytest.mark.slow
def test_a_text_ts_in_json_lines_goes_to_late_too(spark, capsys, tmp_path):
    """The same rows as JSON Lines: ``"ts": "abc"`` is the malformed one (its record is
    the reason), the others are matched: the same two matches."""
    src = source(tmp_path, '{"ts": 1, "type": "A"}\n{"ts": 2, "type": "B"}\n',
                 '{"ts": "abc", "type": "A"}\n{"ts": 5, "type": "B"}\n', suffix="jsonl")
    assert stream(tmp_path, src) == 0
    out, err = capsys.readouterr()
    assert "2 matches written" in out and "1 late or malformed" in out, (out, err)
    late = rows(tmp_path / "out.jsonl" / "_late")
    assert len(late) == 1 and late[0]["reason"].startswith("malformed row: "), late
    assert '"abc"' in late[0]["reason"]
    assert matches(tmp_path / "out.jsonl") == HAND


@pytest.mark.slow
def test_a_ts_column_of_text_only_is_refused_in_one_line(spark, capsys, tmp_path):
    src = source(tmp_path, "ts,type\nabc,A\ndef,B\n")
    assert stream(tmp_path, src) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(after_spark_start(err)) == 1, err
    assert "the timestamp column has type string" in err
