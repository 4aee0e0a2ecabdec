"""``kleene translate``: docs/cli.md's worked example (the dip of examples/ticks) and refusals.

docs/cli.md's commands run in tests/test_docs_commands.py; here what they print is checked:
the translation is ``examples/ticks/dip.sql`` (and docs/cli.md shows that file), and
the statement and the SES pattern give the same dips, computed by hand from the
eleven ticks (ACME 10 8 6 9 12 11 9 10 at ts 1..8, GLOB 5 4 7 at ts 1..3: a middle
tick below both neighbours, within 2).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.helpers import run_cli as run

ROOT = Path(__file__).resolve().parent.parent
TICKS = str(ROOT / "examples" / "ticks" / "ticks.csv")
DIP = str(ROOT / "examples" / "ticks" / "dip.ses")


def test_the_dip_translates_to_the_file_the_readme_shows(capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    code, out, _ = run(capsys, "translate", "--pattern", DIP, "--policy",
                       "partition-contiguous", "--table", "ticks")
    assert code == 0
    shown = (ROOT / "examples" / "ticks" / "dip.sql").read_text(encoding="utf-8")
    assert out == shown
    page = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert f"```output\n{shown}```" in page
    assert "PARTITION BY sym" in out and "PATTERN (a b c)" in out


def test_the_statement_and_the_pattern_give_the_same_dips(capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    sql = str(ROOT / "examples" / "ticks" / "dip.sql")
    code, out, _ = run(capsys, "match", "--pattern", sql, "--events", TICKS)
    assert code == 0
    assert out.splitlines() == ["sym,A,B,C", "ACME,2,3,4", "ACME,6,7,8", "GLOB,1,2,3"]
    page = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert "```output\n" + out + "```" in page
    code, out, _ = run(capsys, "match", "--pattern", DIP, "--events", TICKS, "--sort",
                       "--policy", "partition-contiguous")
    assert code == 0
    # sorted by ts (stably): positions 0..10 are ACME1 GLOB1 ACME2 GLOB2 ACME3 GLOB3
    # ACME4..ACME8; GLOB's ts 1, 2, 3 are positions 1, 3, 5, ACME's ts 2, 3, 4 are
    # 2, 4, 6 and ts 6, 7, 8 are 8, 9, 10.
    assert out.splitlines() == ['{"a": [1], "b": [3], "c": [5]}',
                                '{"a": [2], "b": [4], "c": [6]}',
                                '{"a": [8], "b": [9], "c": [10]}']
    assert "```output\n" + out + "```" in page


@pytest.mark.parametrize(("pattern", "policy", "why"), [
    ("PATTERN <{a, b}> WITHIN 3", "contiguous", "PERMUTE"),
    ("PATTERN <{a}, {b+}> WITHIN 3", "contiguous", "one (greedy) match per start row"),
    ("PATTERN SEQ(A a, OR(B b, C c))", "partition-contiguous", "OR: alternation"),
])
def test_no_exact_translation_is_one_line(capsys: pytest.CaptureFixture[str], pattern: str,
                                          policy: str, why: str) -> None:
    code, out, err = run(capsys, "translate", "--pattern", pattern, "--policy", policy)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and why in err and "Traceback" not in err


def test_a_position_column_orders_ties_and_is_what_the_measures_give(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "translate", "--pattern", "PATTERN SEQ(A a, B b)", "--policy",
                       "contiguous", "--position", "pos")
    assert code == 0
    assert "ORDER BY ts, pos" in out and re.search(r"a\.pos AS a,\s+b\.pos AS b", out)
