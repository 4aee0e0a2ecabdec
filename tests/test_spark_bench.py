"""The Spark benchmark's input: the stock stream replicated, still sorted (bench/spark_bench.py).

Only the data preparation and the CPU counter are tested here: the benchmark itself starts its own
SparkSessions (``local[1]``, ``local[2]``), which tests never do, and its
figures are measured by ``python -m bench spark``, never asserted.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from bench.spark_bench import STOCKS, replicated
from kleene.data.loaders import parse_stock_line


def test_copies_are_shifted_past_each_other(tmp_path):
    path = replicated(2, tmp_path)
    lines = path.read_text().splitlines()
    stamps = [int(str(parse_stock_line(line)["stock_time"])) for line in lines]
    half = len(lines) // 2
    assert len(lines) == 2 * half and half > 200_000
    assert stamps == sorted(stamps)                     # the stream stays sorted
    assert stamps[half] > stamps[half - 1]              # the second copy starts later
    assert lines[half].replace(str(stamps[half]), "") == \
        lines[0].replace(str(stamps[0]), "")            # the same event, shifted
    assert STOCKS.exists() and replicated(2, tmp_path) == path   # written once


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads Linux's /proc")
def test_tree_cpu_counts_a_child_that_ended():
    import subprocess

    from bench.spark_bench import tree_cpu

    before = tree_cpu()
    subprocess.run([sys.executable, "-c",
                    "import time\nt = time.process_time()\n"
                    "while time.process_time() - t < 0.5: pass"], check=True)
    assert tree_cpu() - before >= 0.45
