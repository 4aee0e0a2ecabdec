"""Exactly-once under a crash: ``kleene stream`` killed with SIGKILL mid-stream and
restarted from its checkpoint writes every match once (issue 14, item 3).

One kill point here (two JVM starts: bounded by ``RUN_TIMEOUT``);
``python -m bench stream-faults`` runs ten random ones. The expected matches are
the reference's on the whole stream, the batch runner's equality is checked in
tests/test_stream_spark.py.
"""

from __future__ import annotations

import pytest

from bench.stream_faults import kill_and_restart, latest_meta, written_matches
from bench.stream_spark import generated_case

pytestmark = pytest.mark.spark


def test_sigkill_mid_stream_then_restart_writes_every_match_once(tmp_path):
    case = generated_case(tmp_path, events=200, files=4, seed=7)
    crash = kill_and_restart(case.command("--max-files", "1"), case.checkpoint, after=1,
                             delay=0.05, log=tmp_path / "log")
    assert 1 <= crash.committed_at_kill < 4, "the kill did not fall mid-stream"
    got = written_matches(case.out)
    assert len(got) == len(set(got)), "a match was written twice"
    assert set(got) == case.expected and len(case.expected) >= 5
    # the restart read every file and then ended the stream (Spark may put the files
    # left at the kill into fewer micro-batches than one each: its offsets log decides)
    last = latest_meta(case.checkpoint)
    assert last["ended"] and last["counts"]["events"] == 200 and last["watermark"] == "inf"
