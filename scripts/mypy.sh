#!/usr/bin/env bash
# Type-check the kleene package with its first-party imports resolved.
#
# The repository root *is* the `kleene` package (setup.py maps it), which mypy
# cannot find from the root itself; a temporary folder holding a link named
# `kleene` to the root lets it import `kleene.*` as the installed package does,
# so types are checked across modules (no blanket ignore_missing_imports).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
ln -s "$root" "$tmp/kleene"
cd "$tmp"
MYPYPATH="$tmp" "$root/.venv/bin/mypy" --config-file "$root/pyproject.toml" \
  --cache-dir "$root/.mypy_cache" \
  -p kleene.reference -p kleene.data -p kleene.engines -p kleene.conformance -p kleene.proofs -p kleene.cli
