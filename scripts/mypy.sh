#!/usr/bin/env bash
# Type-check the kleene package, its tests and its benchmarks with their
# first-party imports resolved.
#
# The repository root *is* the `kleene` package (setup.py maps it), which mypy
# cannot find from the root itself; a temporary folder holding a link named
# `kleene` to the root lets it import `kleene.*` as the installed package does,
# so types are checked across modules (no blanket ignore_missing_imports).
# The root package is read from its stub, __init__.pyi (the names __init__.py
# imports when first read, typed).
# `tests/` and `bench/` are not packages of kleene: links beside it make them
# the top-level `tests` (a folder of modules) and `bench` (as `python -m bench`
# and the tests import it), checked with the same configuration.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
ln -s "$root" "$tmp/kleene"
ln -s "$root/tests" "$tmp/tests"
ln -s "$root/bench" "$tmp/bench"
ln -s "$root/scripts" "$tmp/scripts"
ln -s "$root/docs" "$tmp/docs"
cd "$tmp"
MYPYPATH="$tmp" "$root/.venv/bin/mypy" --config-file "$root/pyproject.toml" \
  --cache-dir "$root/.mypy_cache" --explicit-package-bases \
  kleene/__init__.pyi kleene/__main__.py kleene/api.py kleene/reference kleene/data kleene/engines kleene/conformance \
  kleene/proofs kleene/cli bench tests scripts/peers.py scripts/house.py docs/make_pictures.py
