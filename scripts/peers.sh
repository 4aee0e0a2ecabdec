#!/usr/bin/env bash
# `make peers`: install the real CEP engines Kleene is checked against, each in a
# virtual environment of its own under .peers/ (git-ignored), then run
# scripts/peers.py (kleene conform + the MATCH_RECOGNIZE probe) and write docs/peers.md;
# `--install-only` stops after the installs (for `python -m bench match-recognize --peers`).
#   .peers/flink  apache-flink (PyFlink; needs Java 17, installed by bootstrap-system.sh)
#   .peers/pmr    pandas-match-recognize
#   .peers/core   pycer (CORE's bindings; CPython 3.13, pyenv's or python3.13 on PATH)
# OpenCEP (the benches' peer, bench/opencep.py) is not installed here: it is on no package
# registry and has no licence file; a user provides a checkout in .peers/opencep/ or names
# one with KLEENE_OPENCEP (docs/benchmarks.md, "OpenCEP, run in the same bench run").
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
PEERS="${KLEENE_PEERS:-.peers}"
FLINK_VERSION="${FLINK_VERSION:-2.3.0}"
PMR_VERSION="${PMR_VERSION:-0.2.5}"

install_peer() {  # name, pip requirement
    local dir="$PEERS/$1"
    if [ ! -f "$dir/.installed-$2" ]; then
        echo "peers: installing $2 into $dir"
        [ -x "$dir/bin/python" ] || "$PYTHON" -m venv "$dir"
        "$dir/bin/python" -m pip install -q --disable-pip-version-check "$2"
        touch "$dir/.installed-$2"
    fi
}

if ! java -version 2>&1 | grep -q 'version "17'; then
    if [ -d /usr/lib/jvm/java-17-openjdk-amd64 ]; then
        export JAVA_HOME=/usr/lib/jvm/java-17-openjdk-amd64
        export PATH="$JAVA_HOME/bin:$PATH"
    else
        echo "peers: Flink needs Java 17 (run scripts/bootstrap-system.sh)" >&2
    fi
fi
# CORE's bindings (pycer) are a CPython 3.13 wheel: a python3.13 on PATH, or pyenv's.
PYCER_VERSION="${PYCER_VERSION:-0.1.6}"
# The first candidate that runs: PYTHON313, python3.13 on PATH (a pyenv shim whose
# version is not selected is on PATH but does not run), pyenv's own 3.13 builds.
PY313=""
for candidate in "${PYTHON313:-}" "$(command -v python3.13 || true)" \
        $(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.13*/bin/python3.13 2>/dev/null | sort -rV); do
    if [ -n "$candidate" ] && [ -x "$candidate" ] && "$candidate" -c "" 2>/dev/null; then
        PY313="$candidate"
        break
    fi
done
if [ -n "$PY313" ]; then
    PYTHON="$PY313" install_peer core "pycer==$PYCER_VERSION"
else
    echo "peers: CORE skipped: pycer needs CPython 3.13 and no working python3.13 on PATH (a pyenv shim without 3.13 is none) nor" \
         "pyenv's 3.13 exists (pyenv install 3.13, or apt-get install python3.13-venv;" \
         "PYTHON313=/path/to/python3.13 names one)" >&2
fi
install_peer pmr "pandas-match-recognize==$PMR_VERSION"
install_peer flink "apache-flink==$FLINK_VERSION"
[ "${1:-}" = "--install-only" ] && exit 0
exec .venv/bin/python scripts/peers.py "$@"
