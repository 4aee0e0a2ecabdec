"""``kleene conform --sqllogictest``: the per-file table, every failure with its file:line,
query and rows, exit code 1 on a failure and 2 (one line) on a file it cannot read."""

from __future__ import annotations

from pathlib import Path

import pytest

from kleene.cli import main
from kleene.conformance.sqllogictest import DUCKDB_FILES

MR = ("SELECT g, n FROM t MATCH_RECOGNIZE (PARTITION BY g ORDER BY v MEASURES COUNT(*) AS n "
      "PATTERN (A+) DEFINE A AS v > 0) ORDER BY g")
FILE = f"""\
statement ok
CREATE TABLE t (g INTEGER, v INTEGER)

statement ok
INSERT INTO t VALUES (1, 10), (1, 20), (2, 30)

query II
{MR}
----
1\t2
2\t1

query II
{MR}
----
1\t2
2\t7

query I
SELECT 1 FROM t MATCH_RECOGNIZE (ORDER BY v PATTERN (A) DEFINE AUTO)
----
1
"""


def test_a_failure_is_printed_with_its_place_query_and_rows(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "mine.test").write_text(FILE)
    assert main(["conform", "--sqllogictest", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    table = out[out.index("\nfile ") + 1:]
    assert "mine.test" in table.splitlines()[1]
    assert table.splitlines()[1].split()[1:] == ["3", "1", "0", "1", "0"]
    assert f"{tmp_path / 'mine.test'}:13: row 2, column 2: got 1, expected 7" in out
    assert "    " + MR in out
    assert "  expected:\n    1\t2\n    2\t7\n  got:\n    1\t2\n    2\t1\n" in out
    assert f"{tmp_path / 'mine.test'}:19: unsupported: " in out and "DEFINE AUTO" in out


def test_case_selects_records_and_the_oracle_file_passes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "mine.test").write_text(FILE)
    assert main(["conform", "--sqllogictest", str(tmp_path / "mine.test"),
                 "--case", "mine.test:7", "-q"]) == 0
    out = capsys.readouterr().out
    assert "total (1 files)" in out and "failures" not in out
    oracle = DUCKDB_FILES / "test_match_recognize_oracle.test"
    assert main(["conform", "--sqllogictest", str(oracle), "-q"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines()
                if x.startswith("test_match_recognize_oracle.test"))
    assert line.split()[1:] == ["67", "0", "0", "0", "0"]


@pytest.mark.parametrize(("content", "says"), [
    (None, "no such file or folder"),
    ("query I\nSELECT 1\n----\n1\n\nendloop\n", "bad.test:6: endloop without a loop"),
])
def test_what_cannot_be_read_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                         content: str | None, says: str) -> None:
    path = tmp_path / "bad.test"
    if content is not None:
        path.write_text(content)
    assert main(["conform", "--sqllogictest", str(path)]) == 2
    err = capsys.readouterr().err
    assert says in err and len(err.strip().splitlines()) == 1


def test_an_expected_error_with_other_wording_is_said_not_failed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "w.test").write_text("statement error\nSELECT nosuch\n----\nsome wording\n")
    assert main(["conform", "--sqllogictest", str(tmp_path / "w.test")]) == 0
    out = capsys.readouterr().out
    assert "━━ expected errors with another message (1)" in out
    assert "w.test:1: the file expects the message 'some wording'; Kleene said: sql: " in out
    assert main(["conform", "--sqllogictest", str(tmp_path / "w.test"), "-q"]) == 0
    out = capsys.readouterr().out
    assert "1 expected errors came with another message (listed without -q)" in out
    assert "Kleene said" not in out
