"""Progress bars (issue 11 item 1): shown on a terminal once a run lasts a second,
never when stderr is not a terminal."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KLEENE = Path(sys.executable).parent / "kleene"
SLOW = [str(KLEENE), "match", "--pattern", "examples/funnel/funnel.ses", "--events",
        "examples/funnel/clicks.csv", "--engine", "reference", "--time-limit", "3"]


def test_a_bar_on_a_terminal():
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    done = subprocess.Popen(SLOW, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    assert done.wait(timeout=120) == 2        # the deadline stops the reference
    assert b"reference:" in seen and b"steps" in seen
    assert b"budget seconds=3 exceeded" in seen


def test_no_bar_in_a_pipe():
    done = subprocess.run(SLOW, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1].startswith("kleene match: budget seconds=3 exceeded")
    assert "steps" not in done.stderr.replace("raise it", "")
