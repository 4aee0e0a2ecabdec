"""The CPU counter of ``python -m bench spark-cpu`` (bench/spark_cpu.py): each process
of a tree counted under its kind. The benchmark itself starts its own SparkSession and
runs the stock stream ×100, which tests never do; its figures are printed, never
asserted."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bench.spark_cpu import cpu_by_kind

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="Linux /proc")

#: Burns about ``SECONDS`` of CPU, then (optionally) runs a child that does the same, then
#: sleeps until killed.
_BURN = ("import subprocess, sys, time\n"
         "end = time.process_time() + float(sys.argv[1])\n"
         "while time.process_time() < end: pass\n"
         "if len(sys.argv) > 2: subprocess.Popen([sys.argv[2], '-c', sys.argv[3], sys.argv[1]])\n"
         "time.sleep(60)\n")


def test_the_jvm_and_the_processes_under_it_are_counted_apart(tmp_path):
    java = tmp_path / "java"           # a process whose command is "java", as the JVM's is
    java.symlink_to(sys.executable)
    before = cpu_by_kind()
    jvm = subprocess.Popen([str(java), "-c", _BURN, "0.4", sys.executable, _BURN],
                           start_new_session=True)
    helper = subprocess.Popen([sys.executable, "-c", _BURN, "0.4"])
    try:
        deadline = time.monotonic() + 120
        while True:
            got = {k: v - before[k] for k, v in cpu_by_kind().items()}
            if (got["jvm"] >= 0.35 and got["workers"] >= 0.35) or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert got["jvm"] >= 0.35 and got["jvm"] < 1.5          # the "java" process alone
        assert got["workers"] >= 0.35 and got["workers"] < 1.5  # its child
        # another child of this process is the driver's (the JVM's launcher, say)
        while cpu_by_kind()["driver"] - before["driver"] < 0.35 \
                and time.monotonic() < deadline:
            time.sleep(0.2)
        assert cpu_by_kind()["driver"] - before["driver"] >= 0.35
    finally:
        os.killpg(jvm.pid, signal.SIGKILL)      # the "java" process and its child
        helper.kill()
        jvm.wait()
        helper.wait()


def test_the_executors_of_a_master_are_its_processes():
    from bench.spark_cpu import CLUSTERS, executors

    assert [executors(m) for m in CLUSTERS] == [2, 4]
    assert executors("local-cluster[3, 2, 512]") == 3
    assert executors("local[2]") == executors("local[*]") == 1    # the driver's JVM
