"""``MATCH_RECOGNIZE`` on the compliance report site (issue 28 item 4): Kleene's own
hand-computed sqllogictest file run through every backend (conformance/site_records.py).

A small file written here, with one expectation wrong on purpose, is run through the
built-in engine, the example ``MATCH_RECOGNIZE`` backend and an SES engine: the verdicts,
skips and reproductions are the ones read off the file by hand. The real command, opened
in headless Chromium, shows the ``MATCH_RECOGNIZE`` backends with the counts that
``kleene conform --sqllogictest`` prints for each of them, not 0/0.
"""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path

import pytest

from kleene.conformance import site_records
from kleene.conformance.backends import find_backend
from kleene.conformance.runner import FAIL, PASS, SKIP
from kleene.conformance.site_records import record_id, record_needs, run_records
from kleene.conformance.sqllogictest import KLEENE_FILES
from kleene.conformance.sqllogictest.reader import Query, Statement, read_file
from kleene.conformance.sqllogictest.runner import holds_recognition
from tests.helpers import run_cli
from tests.test_conform_site import Page, dump_dom, needs_browser

ROOT = Path(__file__).resolve().parents[1]
MR_EXAMPLE = "cmd:" + shlex.join([sys.executable,
                                  str(ROOT / "conformance" / "examples" / "mr_backend.py")])

SMALL = """statement ok
CREATE TABLE t (ts INTEGER, v INTEGER);

statement ok
INSERT INTO t VALUES (1, 1), (2, 5), (3, 2);

# A B with B above the row before: 1 then 5
query II
SELECT f, l FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES FIRST(ts) AS f, LAST(ts) AS l
  PATTERN (A B) DEFINE B AS v > PREV(v))
----
1	2

# wrong on purpose: the same query expected at 2-3 (5 then 2 is a fall)
query II
SELECT f, l FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES FIRST(ts) AS f, LAST(ts) AS l
  PATTERN (A B) DEFINE B AS v > PREV(v))
----
2	3

# ARRAY_AGG, a list, which the protocol's tables do not carry
query T
SELECT a FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES ARRAY_AGG(v) AS a PATTERN (A+)
  DEFINE A AS TRUE)
----
[1, 5, 2]

# no recognition: not one of the site's tests
query I
SELECT COUNT(*) FROM t
----
3
"""
#: The lines of the three queries holding MATCH_RECOGNIZE, counted by hand.
LINES = (8, 15, 22)


@pytest.fixture
def small(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "kleene"
    folder.mkdir()
    path = folder / "small.test"
    path.write_text(SMALL, encoding="utf-8")
    monkeypatch.setattr(site_records, "record_files", lambda: [path])
    return path


def test_each_record_needs_its_language_policy_and_constructs(small: Path) -> None:
    ids = [f"sqllogictest/kleene/small.test:{line}" for line in LINES]
    base = {"match_recognize", "match_recognize:match_recognize", "match_recognize:measures"}
    assert record_needs() == {
        ids[0]: frozenset(base | {"match_recognize:navigation"}),
        ids[1]: frozenset(base | {"match_recognize:navigation"}),
        ids[2]: frozenset(base | {"match_recognize:aggregate", "match_recognize:quantifier",
                                  "match_recognize:array-aggregate"})}
    assert list(record_needs(":15")) == [ids[1]]


@pytest.mark.parametrize("spec, verdicts", [
    ("match-recognize", [PASS, FAIL, PASS]),     # in process: ARRAY_AGG's list is no problem
    (MR_EXAMPLE, [PASS, FAIL, SKIP]),            # over the protocol: a list is unsupported
    ("ses-automaton", [SKIP, SKIP, SKIP]),       # claims no match_recognize
])
def test_the_records_through_a_backend(small: Path, spec: str, verdicts: list[str]) -> None:
    needs = record_needs()
    backend = find_backend(spec, timeout=60)
    try:
        results, seconds = run_records(backend, spec, needs, timeout=60)
    finally:
        backend.close()
    assert [r.id for r in results] == list(needs) and seconds > 0
    assert [r.status for r in results] == verdicts
    assert all(r.language == "match_recognize" and set(r.features) == needs[r.id]
               for r in results)
    if spec == "ses-automaton":
        assert all("does not claim match_recognize" in r.reason for r in results)
        return
    if spec == MR_EXAMPLE:
        assert "list" in results[2].reason
    wrong = results[1]
    assert wrong.reason == "row 1, column 1: got 1, expected 2"
    assert wrong.reproduction.startswith(f"FAIL {wrong.id}\n")
    for part in ("PATTERN (A B) DEFINE B AS v > PREV(v))", "  expected:\n    2\t3",
                 "  got:\n    1\t2", f"  rerun: {wrong.rerun}"):
        assert part in wrong.reproduction, part
    who = "--engine" if spec == "match-recognize" else "--backend"
    assert wrong.rerun == (f"kleene conform {who} {shlex.quote(spec)} --sqllogictest "
                           f"{shlex.quote(str(small))} --case small.test:15")
    assert results[0].reproduction == ""


def test_a_failures_rerun_line_runs_that_record(small: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    backend = find_backend("match-recognize")
    results, _ = run_records(backend, "match-recognize", record_needs(), timeout=60)
    argv = shlex.split(results[1].rerun)
    code, out, _ = run_cli(capsys, *argv[1:])
    assert code == 1
    assert re.search(r"^total \(1 files\)\s+0\s+1\s+0\s+0\s+0$", out, re.M), out
    assert f"{small}:15:" in out


def _records_at(select: str) -> list[int]:
    """The lines of Kleene's file's records holding MATCH_RECOGNIZE whose id holds
    ``select``."""
    path = KLEENE_FILES / "match_recognize.test"
    return [r.line for r in read_file(path) if isinstance(r, Statement | Query)
            and holds_recognition(r.sql) and select in record_id(path, r.line)]


def _sqllogictest_counts(capsys: pytest.CaptureFixture[str], who: str, spec: str,
                         select: str) -> tuple[int, int, int]:
    """(passed, failed, skipped + unsupported) that ``kleene conform --sqllogictest`` prints
    for Kleene's file through ``spec``."""
    _, out, _ = run_cli(capsys, "conform", "--sqllogictest",
                        str(KLEENE_FILES / "match_recognize.test"), who, spec,
                        "--case", select, "-q")
    found = re.search(r"^total \(1 files\)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)$", out, re.M)
    assert found, out
    passed, failed, explained, unsupported, skipped = map(int, found.groups())
    return passed, failed + explained, unsupported + skipped


@needs_browser
@pytest.mark.slow
def test_the_site_shows_the_match_recognize_backends_in_chromium(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    select = "match_recognize.test:29"
    lines = _records_at(select)
    assert len(lines) >= 5
    backends = ["match-recognize", "mr-example", "ses-automaton"]
    site = tmp_path / "site"
    argv = ["conform", "--report-site", str(site), "--case", select]
    for b in backends:
        argv += ["--site-backend", b]
    code, out, err = run_cli(capsys, *argv)
    assert code == 0, err
    dom = Page(dump_dom(site / "index.html", tmp_path))
    totals = dict(zip(backends, dom.counts("(all tests)"), strict=True))
    assert totals["match-recognize"] == _sqllogictest_counts(
        capsys, "--engine", "match-recognize", select)
    assert totals["mr-example"] == _sqllogictest_counts(capsys, "--backend", MR_EXAMPLE, select)
    assert totals["ses-automaton"] == (0, 0, len(lines))
    for b in ("match-recognize", "mr-example"):        # an MR backend's row is not 0/0
        assert totals[b][0] > 0 and sum(totals[b]) == len(lines), b
    assert dom.counts("match_recognize") == list(totals.values())
    assert dom.row("compliance", "ses") == [None] * len(backends)
    assert "MATCH_RECOGNIZE: " in "".join(dom.texts)
    page = site / "backends" / "mr-example.html"
    sub = Page(dump_dom(page, tmp_path))
    passed, failed, skipped = totals["mr-example"]
    assert f"{passed} passed, {failed} failed, {skipped} skipped" in "".join(sub.texts)
