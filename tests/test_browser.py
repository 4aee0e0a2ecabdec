"""The pages of ``kleene trace -o run.html`` in a real headless browser (issue 15 item 3).

Each page is one self-contained file (pictures inline SVG, no other file,
no network). Chromium (Debian's ``chromium``, installed by
scripts/bootstrap-system.sh) loads it, and the DOM it builds must hold every
picture: one ``<svg>`` for the automaton and one per pictured step, as the
page was written. A screenshot must have been painted (a PNG, not blank: its
size grows with what is drawn).

Without Chromium (a machine where the bootstrap could not install it: not
root, no apt-get) the tests skip and say so.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from kleene.cli import main

ROOT = Path(__file__).resolve().parents[1]
BROWSER = next((p for p in map(shutil.which, ("chromium", "chromium-browser")) if p), None)
needs = pytest.mark.skipif(
    BROWSER is None or shutil.which("dot") is None,
    reason="Chromium or Graphviz is not installed: scripts/bootstrap-system.sh installs "
           "them from Debian's packages when run as root (apt-get install chromium graphviz)")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

EX11_CSV = "ts,type,price\n0,A,20\n1,A,20\n2,B,25\n3,B,30\n4,C,20\n"
EX11 = "PATTERN SEQ(A a, B b, C c) WHERE a.price > 10 AND b.price > 10 WITHIN 1 hour"
TABLE1_CSV = ("ts,type,id,price,volume\n1,B,1,22,300\n2,B,1,24,225\n3,B,2,32,1210\n"
              "4,S,1,70,760\n5,S,1,68,2000\n6,B,2,33,95\n")
TABLE1 = "mark {~.type = 'B'} -> r1 ; {TRUE}* ; mark {~.type = 'S' AND ~.id = r1.id}"


def chromium(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    assert BROWSER is not None
    profile = cwd / "profile"
    return subprocess.run([BROWSER, "--headless", "--no-sandbox", "--disable-gpu",
                           "--disable-dev-shm-usage", f"--user-data-dir={profile}", *args],
                          capture_output=True, text=True, timeout=180, cwd=cwd)


def page(tmp_path: Path, pattern: str, csv: str, engine: str, *extra: str) -> Path:
    (tmp_path / "p.txt").write_text(pattern)
    (tmp_path / "e.csv").write_text(csv)
    out = tmp_path / "run.html"
    code = main(["trace", str(tmp_path / "p.txt"), "--engine", engine, "--events",
                 str(tmp_path / "e.csv"), *extra, "-o", str(out)])
    assert code == 0
    return out


@needs
@pytest.mark.parametrize("pattern, csv, engine, extra, steps", [
    (EX11, EX11_CSV, "nfa-chain", ("--time-unit", "min"), 5),
    (TABLE1, TABLE1_CSV, "srt", (), 6),
    ((ROOT / "examples" / "chemo" / "q1.ses").read_text(),
     (ROOT / "examples" / "chemo" / "chemo.csv").read_text(), "ses-automaton",
     ("--time-unit", "h"), 12),
    # MATCH_RECOGNIZE: the engine's program, then a tree per search of the reference
    ((ROOT / "examples" / "ticks" / "v_shape.sql").read_text(),
     (ROOT / "examples" / "ticks" / "ticks.csv").read_text(), "reference", (), 3),
])
def test_chromium_finds_every_picture(tmp_path, pattern, csv, engine, extra, steps):
    out = page(tmp_path, pattern, csv, engine, *extra)
    written = out.read_text(encoding="utf-8")
    assert "src=" not in written and "href=" not in written      # nothing to fetch
    done = chromium("--dump-dom", out.as_uri(), cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    dom = done.stdout
    if engine == "reference":     # MATCH_RECOGNIZE: the program, then a tree per search
        pictured = written.count("<div class='step'>")
        assert pictured >= steps
        assert dom.count("<svg") == written.count("<svg") == 1 + pictured
    else:                         # the automaton once; the steps play on it (test_player)
        assert written.count("<div class='step' data-k=") >= steps   # a step per event
        assert dom.count("<svg") == written.count("<svg") == 1
    assert re.search(r"<h1>kleene trace: p\.txt</h1>", dom)
    shot = tmp_path / "shot.png"
    done = chromium(f"--screenshot={shot}", "--window-size=1000,1400", out.as_uri(),
                    cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    data = shot.read_bytes()
    assert data.startswith(PNG_MAGIC) and len(data) > 20_000       # drawn, not a blank page
