"""scripts/peers.sh picks a CPython 3.13 that runs for CORE's bindings (pycer).

A pyenv shim named ``python3.13`` is on PATH whenever pyenv has a 3.13 build, but it
exits 127 unless that version is selected: on this project's own machine the script
took the shim, found it broken and skipped CORE, although pyenv's 3.13 was there
(28 Nov). Fake interpreters stand in for the real ones; nothing is installed."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _script(path: Path, body: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/usr/bin/env bash\n" + body + "\n")
    path.chmod(0o755)


def _install_only(tmp_path: Path, peers: Path, pyenv: Path) -> subprocess.CompletedProcess[str]:
    """``peers.sh --install-only`` with ``tmp_path/bin`` first on PATH, pyenv at ``pyenv``,
    the other peers marked installed in ``peers`` (nothing is installed)."""
    for name, requirement in (("pmr", "pandas-match-recognize==0.2.5"),
                              ("flink", "apache-flink==2.3.0")):
        (peers / name).mkdir(parents=True)
        (peers / name / f".installed-{requirement}").touch()
    env = {**os.environ, "PATH": f"{tmp_path / 'bin'}:{os.environ['PATH']}",
           "PYENV_ROOT": str(pyenv), "KLEENE_PEERS": str(peers)}
    env.pop("PYTHON313", None)
    return subprocess.run(["bash", str(ROOT / "scripts" / "peers.sh"), "--install-only"],
                          env=env, capture_output=True, text=True, timeout=60)


def test_a_broken_shim_falls_back_to_pyenvs_build(tmp_path):
    log = tmp_path / "log"
    _script(tmp_path / "bin" / "python3.13", "exit 127")                 # the shim
    # pyenv's build: `-m venv DIR` makes DIR/bin/python, which takes any pip install
    _script(tmp_path / "pyenv" / "versions" / "3.13.0" / "bin" / "python3.13",
            f'echo "$0 $*" >> {log}\n'
            'if [ "$1" = -m ] && [ "$2" = venv ]; then mkdir -p "$3/bin"; '
            f'printf "#!/usr/bin/env bash\\necho pip \\"\\$*\\" >> {log}\\n" > "$3/bin/python"; '
            'chmod +x "$3/bin/python"; fi')
    peers = tmp_path / "peers"
    done = _install_only(tmp_path, peers, tmp_path / "pyenv")
    assert done.returncode == 0, done.stderr
    assert "CORE skipped" not in done.stderr
    assert (peers / "core" / ".installed-pycer==0.1.6").exists()
    assert "versions/3.13.0/bin/python3.13 -m venv" in log.read_text()


def test_without_any_313_core_is_skipped_in_one_line(tmp_path):
    _script(tmp_path / "bin" / "python3.13", "exit 127")
    peers = tmp_path / "peers"
    done = _install_only(tmp_path, peers, tmp_path / "no-pyenv")
    assert done.returncode == 0, done.stderr
    skipped = [line for line in done.stderr.splitlines() if "CORE skipped" in line]
    assert len(skipped) == 1
    assert not (peers / "core").exists()
