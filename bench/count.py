"""Counting without listing the matches, and the first K (issue 31 items 2–3): on the stock
stream, seq3 at 10 s and 60 s (``python -m bench count``; docs/counting.md).

seq3 here is ``<{x}, {y}, {z}>``: a SELL of INTC, then a BUY of RIMM, then a BUY of QQQ
(:mod:`bench.peers` adds ``z.price > x.price``, an order between two variables that the
count does not claim; on this stream it holds in every match of these windows, so the
counts are the same). Each figure is one ``kleene match`` in a fresh process, end to end
(interpreter, imports, load, work, print), measured through an intermediate process:
CPU seconds (user + system), wall seconds, peak resident memory.

- *count (DP)*: ``kleene match --count``: the dynamic programme of
  :mod:`kleene.engines.count.ses`;
- *count (listing)*: ``kleene match --count --engine windows+ses`` (the fastest engine,
  listing every match), with a budget above the match count and ``--time-limit``: a run
  stopped by a limit says so in its row;
- *first 1000*: ``kleene match --first 1000`` (the matches printed, to a pipe);
- at 10 s, the same three events as a CEQL query (:data:`CEQL`: CEL's ``ALL``, its
  sequence by position, so ties count where seq3's strict timestamps do not):
  *ceql count (DP)* by :mod:`kleene.engines.count.sremo`, *ceql count (listing, srt)*
  by the SRT engine listing every match, *ceql first 1000* listed from the shared
  structure of :mod:`kleene.engines.count.tecs`.

A second table (:func:`structure`) measures the shared structure in this process after
the load: ``--first 1000`` of the CEQL query at 10 s from the structure against the
prefixes ``--engine srt`` lists, every match listed from the structure against ``srt``'s
listing, and every match listed (each made and dropped) on longer and longer prefixes,
with the most nodes the structure held and the peak of Python's traced memory: flat while
the matches grow.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from bench.peers import fresh_env
from bench.report import Table, emit, ratio
from kleene.data.bundled import bundled
from kleene.data.loaders import load_events
from kleene.engines import fastest
from kleene.engines.count import first, tecs
from kleene.reference.events import Stream
from kleene.reference.query import Query

PATTERN = ("PATTERN <{x}, {y}, {z}>\nWHERE x.type = 'SELL' AND x.name = 'INTC' AND "
           "y.type = 'BUY' AND y.name = 'RIMM' AND z.type = 'BUY' AND z.name = 'QQQ'\n"
           "WITHIN {ms} ms\n")
CEQL = ("SELECT * FROM S WHERE (SELL as x; BUY as y; BUY as z)\n"
        "FILTER x[name = 'INTC'] AND y[name = 'RIMM'] AND z[name = 'QQQ']\n"
        "WITHIN {ms} [stock_time]\n")
#: The window of the CEQL rows (seconds).
CEQL_S = 10
#: The windows (seconds), the listing's --budget and --time-limit.
WINDOWS_S = (10, 60)
LIST_BUDGET = 100_000_000
LIST_SECONDS = 1800


def measured(argv: list[str]) -> tuple[int, float, float, float, str]:
    """Exit code, CPU s, wall s, peak MB and stdout (or stderr's last line, on failure)
    of ``kleene ARGV`` in a process of its own."""
    script = ("import resource, subprocess, sys, time; t = time.perf_counter(); "
              "d = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
              "w = time.perf_counter() - t; u = resource.getrusage(resource.RUSAGE_CHILDREN); "
              "o = d.stdout.strip().splitlines() if d.returncode == 0 else "
              "[repr(d.stderr.strip().splitlines()[-1:])]; "
              "print(d.returncode, u.ru_utime + u.ru_stime, w, u.ru_maxrss, "
              "len(o) if len(o) != 1 else o[0])")
    cmd = [sys.executable, "-c", script, sys.executable, "-m", "kleene", *argv]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True,
                         env=fresh_env()).stdout.split(" ", 4)
    return int(out[0]), float(out[1]), float(out[2]), int(out[3]) / 1024, out[4].strip()


def stopped(said: str) -> str:
    """A run's failure in a few words, the budget it exceeded (its message goes to the
    notes; :class:`~kleene.reference.errors.BudgetExceeded`)."""
    found = re.search(r"budget (\w+)=", said)
    return f"stopped: {found.group(1)}" if found else "failed"


def run(quick: bool = False) -> None:
    """Print the table; write it to ``out/bench/count.csv``."""
    data = bundled("stocks.stream.gz")
    limit = ["--limit", "20000"] if quick else []
    windows = WINDOWS_S[:1] if quick else WINDOWS_S
    table = Table(title="Counting without listing the matches: seq3 on the stock stream",
                  columns=("window s", "run", "matches", "CPU s", "wall s", "peak MB",
                           "listing / DP CPU"),
                  header=[f"{data}{' (first 20,000 events)' if quick else ''}; each run a "
                          "fresh kleene match, end to end"])
    with tempfile.TemporaryDirectory() as tmp:
        for seconds in windows:
            path = Path(tmp) / f"seq3_{seconds}s.ses"
            path.write_text(PATTERN.replace("{ms}", str(seconds * 1000)), encoding="utf-8")
            base = ["match", "--pattern", str(path), "--events", str(data), "-q", *limit]
            listing = ["--budget", str(LIST_BUDGET), "--time-limit", str(LIST_SECONDS)]
            runs = {
                "count (DP)": [*base, "--count"],
                "count (listing, windows+ses)": [*base, "--count", "--engine", "windows+ses",
                                                 *listing],
                "first 1000": [*base, "--first", "1000"],
            }
            if seconds == CEQL_S:
                ceql = Path(tmp) / f"seq3_{seconds}s.ceql"
                ceql.write_text(CEQL.replace("{ms}", str(seconds * 1000)), encoding="utf-8")
                on = ["match", "--pattern", str(ceql), "--events", str(data), "-q", *limit]
                runs["ceql count (DP)"] = [*on, "--count"]
                runs["ceql count (listing, srt)"] = [*on, "--count", "--engine", "srt", *listing]
                runs["ceql first 1000"] = [*on, "--first", "1000"]
            dp_cpu: dict[str, float] = {}
            for label, argv in runs.items():
                code, cpu, wall, mb, said = measured(argv)
                kind, _, how = label.partition("count (")
                if how == "DP)":
                    dp_cpu[kind] = cpu
                matches: str | int = int(said) if code == 0 else stopped(said)
                if code != 0:
                    table.notes.append(f"{seconds} s, {label}: {said}")
                table.add(seconds, label, matches, cpu, wall, mb,
                          ratio(cpu, dp_cpu.get(kind, float("nan")))
                          if how.startswith("listing") and code == 0 else None)
    table.notes += [
        "count (DP): engines/count/ses.py, time linear in the events, memory bounded by the "
        "window (the matrices of its tie groups)",
        "ceql count (DP): engines/count/sremo.py, the SRT determinized over (minterm, mark), "
        "linear in the events; it keeps each event's minterm (two passes)",
        f"listing: --budget {LIST_BUDGET:,} --time-limit {LIST_SECONDS} and the default "
        "--memory-limit; a stopped run shows its message instead of a count",
        "first 1000: the count's pass stops where 1,000 matches have ended, then the prefix "
        "read so far is listed (engines/count/first.py); ceql first 1000: listed from the "
        "shared structure as the events are read (engines/count/tecs.py)"]
    emit(table, "count")
    structure(quick)


#: The prefixes (events) whose every match :func:`structure` lists, by window (s).
PREFIXES = {10: (28_000, 56_000, 112_000, 224_473), 60: (7_000, 28_000)}


def _listed(query: Query, stream: Stream) -> tuple[int, int]:
    """Every match of ``query`` on ``stream`` listed from the structure (each made and
    dropped), and the most nodes it held."""
    s = tecs.structure(query)
    n = peak = 0
    for p, ts, m, key, run in s.minterms(stream):
        n += sum(1 for _ in s.feed(p, ts, m, key, run))
        held = sum(len(made) for part in s.parts.values() for _, made in part.held)
        peak = max(peak, held)
    return n, peak


def structure(quick: bool = False) -> None:
    """The second table (the module docstring)."""
    data = bundled("stocks.stream.gz")
    stream = load_events(data, limit=20_000 if quick else None)
    table = Table(title="Listing from the shared structure (tecs): CEQL seq3 on the stock "
                        "stream, in one process after the load",
                  columns=("window s", "run", "events read", "matches", "CPU s", "wall s",
                           "nodes held (peak)", "traced MB (peak)", "srt / tecs CPU"),
                  header=[f"{data}, {len(stream):,} events loaded"])
    query = Query.parse(CEQL.replace("{ms}", "10000"), language="ceql")
    query = query.with_time_unit(stream.time_unit)
    cpu: dict[str, float] = {}
    for label, engine in (("first 1000 (tecs)", None), ("first 1000 (--engine srt)", "srt")):
        c, w = time.process_time(), time.perf_counter()
        got = first.first_matches(query, stream, 1000, engine_name=engine)
        cpu[label] = time.process_time() - c
        table.add(10, label, got.events, len(got.matches), cpu[label],
                  time.perf_counter() - w, None, None,
                  None if engine is None else ratio(cpu[label], cpu["first 1000 (tecs)"]))
    for label, engine in (("every match (tecs)", None), ("every match (--engine srt)", "srt")):
        c, w = time.process_time(), time.perf_counter()
        if engine is None:
            n = sum(1 for _ in tecs.matches(query, stream))
        else:
            n = len(fastest.find_matches(query, stream, engine_name=engine).matches)
        cpu[label] = time.process_time() - c
        table.add(10, label, len(stream), n, cpu[label], time.perf_counter() - w, None, None,
                  None if engine is None else ratio(cpu[label], cpu["every match (tecs)"]))
    for seconds, sizes in PREFIXES.items():
        query = Query.parse(CEQL.replace("{ms}", str(seconds * 1000)), language="ceql")
        query = query.with_time_unit(stream.time_unit)
        for size in sizes[:1] if quick else sizes:
            part = first.prefix(stream, size)
            tracemalloc.start()
            c, w = time.process_time(), time.perf_counter()
            n, peak = _listed(query, part)
            c, w = time.process_time() - c, time.perf_counter() - w
            traced = tracemalloc.get_traced_memory()[1] / 2**20
            tracemalloc.stop()
            table.add(seconds, "every match (tecs, traced)", len(part), n, c, w, peak, traced,
                      None)
    table.notes += [
        "first 1000 (tecs): reading stops after the event where 1,000 matches have ended; "
        "--engine srt: prefixes doubling from 4,096 events, each listed whole",
        "every match (tecs) and (--engine srt): the whole stream, untraced, the matches "
        "counted as listed (srt's gathered in a set, as kleene match does); every match "
        "(tecs, traced): CPU under tracemalloc (several times the untraced time); the traced peak "
        "includes the columns' candidate arrays of a batch (up to 65,536 rows), the nodes "
        "held are the structure's memory: both flat while the matches grow"]
    emit(table, "count-structure")
