"""CORE's 37 stock queries on the stock stream, Kleene against CORE (issue 31 item 5):
``python -m bench core --queries DIR [--first K] [--quick]`` (docs/benchmarks.md, "CORE").

DIR is a CORE checkout's ``src/targets/experiments/stocks/queries`` (GPL: read from the
user's checkout, never copied here); without it the benchmark says how to get one and is
not run. Each query runs on the bundled stock stream (``stocks.stream.gz``, ts =
``stock_time`` in ms), every run in a process of its own under a time limit:

- *count*: :func:`kleene.engines.count.counting.count_matches` (its backend named: the
  dynamic programme, or the engine or reference that enumerates);
- *first K*: :func:`kleene.engines.count.first.first_matches`;
- *listing*: :func:`kleene.engines.fastest.find_matches`, the whole match set, run only
  where the count did not list the matches itself (then it is the count's run);
- *CORE*: the query through pycer's offline server in ``.peers/core``
  (:func:`kleene.conformance.adapters.core.ask_core`, ``count_only``), with ``[stock_time]``
  written ``[ts]`` (the adapter sends the timestamps as ``ts``).

Kleene reads each query with the strict window reading, as CORE keeps a time window
(docs/ceql.md, "CORE as a peer"), so the counts compare. *engine CPU s* is the CPU time
of the run after the events are loaded (Kleene: the call; CORE: sending the events and
reading the output; CPU, as the machine may be shared), *end-to-end s* the wall time of
the whole process (interpreter, imports, load, run); *peak MB* the process's peak
resident memory. ``--quick``: four queries on the first 2,000 events.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench.peers import fresh_env
from bench.report import Table, emit, fmt, ratio
from kleene.conformance.adapters.core import PYTHON, ask_core
from kleene.conformance.adapters.core_worker import peak_mb
from kleene.data.bundled import bundled
from kleene.data.loaders import load_events
from kleene.reference.events import Stream

#: How to get the queries, in one line.
HOW = ("not run: give --queries DIR, a CORE checkout's query folder: git clone --depth 1 "
       "https://github.com/CORE-cer/CORE /tmp/CORE && python -m bench core --queries "
       "/tmp/CORE/src/targets/experiments/stocks/queries")
QUICK = ("q1_none", "q1_any", "q12_none", "other-q6_partition")
QUICK_EVENTS = 2000
#: Seconds each run may take (quick, whole stream).
LIMITS = {True: 120.0, False: 240.0}
ROOT = Path(__file__).resolve().parents[1]


def worker() -> None:
    """One Kleene run, in this process: a JSON request on stdin, a JSON answer on stdout."""
    # lazy: the engines only in the worker process, not in the dispatcher
    from kleene.engines.count.counting import count_matches
    from kleene.engines.count.first import first_matches
    from kleene.engines.fastest import find_matches
    from kleene.reference.query import Query

    msg = json.loads(sys.stdin.read())
    started = time.process_time()
    stream = load_events(bundled("stocks.stream.gz"), limit=msg["events"])
    query = Query.parse(msg["query"], language="ceql", reading="strict")
    loaded = time.process_time()
    answer: dict[str, Any]
    if msg["mode"] == "count":
        counted = count_matches(query, stream)
        answer = {"count": counted.count, "backend": counted.backend}
    elif msg["mode"] == "first":
        first = first_matches(query, stream, msg["k"])
        answer = {"count": len(first.matches), "backend": first.backend}
    else:
        found = find_matches(query, stream)
        answer = {"count": len(found.matches), "backend": found.backend}
    answer |= {"engine_s": time.process_time() - loaded, "load_s": loaded - started,
               "peak_mb": peak_mb()}
    print(json.dumps(answer), flush=True)


def kleene(mode: str, text: str, events: int | None, limit: float,
           k: int = 1000) -> dict[str, Any]:
    """A Kleene run (:func:`worker`) in a fresh process: its answer with ``wall_s``, or
    ``{"stopped": why}``."""
    cmd = [sys.executable, "-c", "from bench.core import worker; worker()"]
    started = time.perf_counter()
    try:
        done = subprocess.run(cmd, input=json.dumps({"mode": mode, "query": text,
                                                     "events": events, "k": k}),
                              capture_output=True, text=True, timeout=limit, cwd=ROOT,
                              env=fresh_env())
    except subprocess.TimeoutExpired:
        return {"stopped": f"did not finish in {limit:g} s"}
    if done.returncode != 0:
        return {"stopped": (done.stderr.strip().splitlines() or ["failed"])[-1][:120]}
    return json.loads(done.stdout) | {"wall_s": time.perf_counter() - started}


@functools.cache
def stocks(events: int | None) -> Stream:
    """The first ``events`` ticks of the bundled stock stream (all: ``None``), loaded once."""
    return load_events(bundled("stocks.stream.gz"), limit=events)


def core(text: str, events: int | None, limit: float) -> dict[str, Any]:
    """CORE's count of ``text`` (:func:`ask_core`) with ``wall_s``, or ``{"stopped": why}``."""
    stream = stocks(events)
    started = time.perf_counter()
    try:
        answer = ask_core(text.replace("[stock_time]", "[ts]"), stream, timeout=limit,
                          count_only=True)
    except subprocess.TimeoutExpired:
        return {"stopped": f"did not finish in {limit:g} s"}
    except RuntimeError as err:
        return {"stopped": str(err)[:120]}
    return answer | {"wall_s": time.perf_counter() - started - answer["waited_s"]}


def _count(r: dict[str, Any]) -> int | str:
    """A run's count, or why it stopped."""
    found: int | str = r["count"] if "count" in r else r["stopped"]
    return found


def run(quick: bool = False, queries: str | None = None, first: int = 1000,
        time_limit: float | None = None, listing: bool = True) -> Table | None:
    """Print the table (one row per query, printed as it is measured); write it to
    ``out/bench/core.csv``. Each run stops after ``time_limit`` seconds (default
    :data:`LIMITS`), said "did not finish"; ``listing=False`` lists no match set the
    count did not list itself ("not run"). Without ``queries``, say how to get them and
    return."""
    if queries is None:
        print(HOW)
        return None
    if not PYTHON.exists():
        print(f"not run: {PYTHON} is missing (`make peers` installs pycer)")
        return None
    files = sorted(Path(queries).glob("*.txt"))
    if quick:
        files = [f for f in files if f.stem in QUICK]
    events = QUICK_EVENTS if quick else None
    limit = LIMITS[quick] if time_limit is None else time_limit
    n = len(stocks(events))
    table = Table(
        title="CORE's stock queries: Kleene against CORE (pycer)",
        columns=("query", "Kleene count", "backend", "engine CPU s", "end-to-end s", "peak MB",
                 f"first {first} CPU s", "listing CPU s", "CORE count", "CORE engine CPU s",
                 "CORE end-to-end s", "CORE peak MB", "same", "Kleene/CORE engine"),
        header=[f"{len(files)} queries of {queries} on {n:,} events of stocks.stream.gz; "
                f"each run a fresh process, at most {limit:.0f} s; load average "
                f"{os.getloadavg()[0]:.1f}"])
    for f in files:
        text = f.read_text(encoding="utf-8")
        counted = kleene("count", text, events, limit)
        head = kleene("first", text, events, limit, first)
        by_dp = counted.get("backend") == "dynamic programming"
        listed = kleene("list", text, events, limit) if by_dp and listing \
            else counted if not by_dp else {"stopped": "not run"}
        theirs = core(text, events, limit)
        same = ("yes" if counted.get("count") == theirs.get("count") else "NO") \
            if "count" in counted and "count" in theirs else None
        table.add(f.stem, _count(counted), counted.get("backend"),
                  counted.get("engine_s"), counted.get("wall_s"), counted.get("peak_mb"),
                  head.get("engine_s", head.get("stopped")),
                  listed.get("engine_s", listed.get("stopped")),
                  _count(theirs), theirs.get("engine_s"), theirs.get("wall_s"),
                  theirs.get("peak_mb"), same,
                  ratio(counted.get("engine_s", float("nan")),
                        theirs.get("engine_s", float("nan"))))
        print("  " + " | ".join(fmt(v) for v in table.rows[-1]), flush=True)
    table.notes += [
        "Kleene reads each query with the strict window reading (CORE's); SELECT LAST is "
        "CEL's LAST in Kleene and ALL on CORE (docs/ceql.md)",
        "listing: the count's own run where the count enumerated (its backend is not the "
        "dynamic programme)",
        f"CORE: {PYTHON.parent.parent}, [stock_time] written [ts]; a stopped run shows why"]
    emit(table, "core")
    return table
