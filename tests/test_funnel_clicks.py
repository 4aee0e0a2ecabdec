"""The funnel's click log generator (examples/funnel/make_clicks.py) and its bench
(``python -m bench funnel``, bench/funnel.py; no speed is asserted: measured, not tested)."""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import subprocess
import sys
from pathlib import Path

import pytest

from bench import funnel
from bench.__main__ import BENCHMARKS

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "examples" / "funnel" / "make_clicks.py"
COMMITTED = ROOT / "examples" / "funnel" / "clicks.csv"
#: The committed clicks.csv (10,000 rows, 60 users), as the README's examples read it.
SHA256 = "3cc25b88a21c7f600d9970da69cd812b38e76dd490e0dc8302750f0bbc0b486d"


def generate(tmp_path: Path, *args: str) -> Path:
    out = tmp_path / f"clicks{len(list(tmp_path.iterdir()))}.csv"
    subprocess.run([sys.executable, str(SCRIPT), *args, "--output", str(out)], check=True)
    return out


def test_the_default_writes_the_committed_file_byte_for_byte(tmp_path: Path) -> None:
    assert hashlib.sha256(COMMITTED.read_bytes()).hexdigest() == SHA256
    assert hashlib.sha256(generate(tmp_path).read_bytes()).hexdigest() == SHA256


def test_more_users_click_at_the_same_rate_each(tmp_path: Path) -> None:
    """50,000 users: ``u`` and five digits, millisecond timestamps, never decreasing; the
    log spans rows × 3.5 s × 60 / 50,000 on average (each user's rate of the default);
    a shorter log is the start of a longer one (same users and seed)."""
    long = generate(tmp_path, "--rows", "4000", "--users", "50000")
    short = generate(tmp_path, "--rows", "1000", "--users", "50000")
    lines = long.read_text().splitlines()
    assert short.read_text().splitlines() == lines[:1001]
    rows = list(csv.DictReader(lines))
    assert len(rows) == 4000 and {len(r["user"]) for r in rows} == {6}
    stamps = [dt.datetime.fromisoformat(r["ts"].replace("Z", "+00:00")) for r in rows]
    assert all(len(r["ts"]) == len("2024-03-01T09:00:00.000Z") for r in rows)
    assert stamps == sorted(stamps)
    span = (stamps[-1] - dt.datetime(2024, 3, 1, 9, tzinfo=dt.UTC)).total_seconds()
    assert 0.8 < span / (4000 * 3.5 * 60 / 50_000) < 1.2
    assert {r["action"] for r in rows} == {"view", "cart", "purchase"}


def test_a_bad_size_is_one_line(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--users", "0", "--output",
                           str(tmp_path / "x.csv")], capture_output=True, text=True)
    assert done.returncode == 2 and done.stderr.splitlines()[-1].endswith(
        "--rows must be >= 0 and --users >= 1")


@pytest.mark.slow
def test_bench_funnel_is_registered_and_compares_both_forms(tmp_path: Path) -> None:
    """On 3,000 rows both forms run every policy; where both answer, the same sets."""
    assert BENCHMARKS["funnel"] is funnel.run
    table = funnel.run(rows=3000, out_dir=tmp_path)
    assert [row[0] for row in table.rows] == list(funnel.POLICIES)
    for row in table.rows:
        assert len(row) == len(table.columns)
        assert row[7] in ("yes", "-")
        assert isinstance(row[6], int)   # the operator form answers every policy
    # Spark's table only on the full 1,000,000 rows (or asked for): its start-up alone
    # is tens of seconds
    assert (tmp_path / "funnel.csv").exists() and not (tmp_path / "funnel_spark.csv").exists()


def test_the_spark_table_reads_the_start_up_and_samples_a_process_tree() -> None:
    """``Spark ready in S s`` as cli/spark.py says it; a child's CPU, read from /proc
    while it runs, by command name (a Spark run's JVM is not reaped by the bench)."""
    assert funnel.startup("kleene match: starting Spark (local[2])\n"
                          "kleene match: Spark ready in 24.3 s\n") == 24.3
    assert funnel.startup("kleene match: engine windows+ses (...)\n") is None
    done, wall, cpu = funnel.sampled([sys.executable, "-c",
                                      "import time\nt = time.process_time()\n"
                                      "while time.process_time() - t < 1.5: pass\n"
                                      "print('done')"], every=0.1)
    assert done.returncode == 0 and done.stdout == "done\n" and wall >= 1.5
    assert len(cpu) == 1 and 1.0 <= sum(cpu.values()) <= wall + 0.5
