#!/usr/bin/env bash
# System prerequisites that pip cannot install: Graphviz's `dot` (pictures),
# a Java 17+ runtime (PySpark), Node.js (the JavaScript example backend of
# docs/backends.md, run by the tests) and Chromium (tests/test_browser.py loads
# the pages of `kleene trace -o run.html` in a real headless browser). Installs them from Debian's packages when
# missing and we are root; otherwise says exactly what to install.
set -u
missing=()
command -v dot >/dev/null 2>&1 || missing+=(graphviz)
command -v node >/dev/null 2>&1 || command -v nodejs >/dev/null 2>&1 || missing+=(nodejs)
command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 \
  || missing+=(chromium)
if ! command -v java >/dev/null 2>&1; then
  missing+=(openjdk-17-jre-headless)
fi
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "bootstrap: installing ${missing[*]} from Debian's packages" >&2
  export DEBIAN_FRONTEND=noninteractive
  (apt-get update -qq >/dev/null && apt-get install -y -qq "${missing[@]}" >/dev/null) || {
    echo "bootstrap: could not install ${missing[*]}; install them and re-run" >&2; exit 1; }
else
  echo "bootstrap: please install ${missing[*]} (e.g. sudo apt-get install ${missing[*]})" >&2
  exit 1
fi
