"""The seed 003 part of ``kleene demo``: the NFA engines beside the operator reference on
the stock stream, with issue 12's Kleene pattern (a SELL of INTC, one to three BUYs of
RIMM, a BUY of QQQ dearer than the SELL, within 500 ms; seed 003 Sec. 4.5's ``{l,m}``).

:func:`nfa_part` runs the reference on the stock events up to the end of the first match
(it enumerates runs; the engines read everything), every NFA engine claiming the pattern
on the same excerpt, then each on the whole stream against ``nfa-chain`` (which agreed on
the excerpt). The worked examples of seed 003 run in the engines part already.
"""

from __future__ import annotations

import time
from typing import TextIO

from kleene.cli.demo_engines import Row
from kleene.engines.fastest import run_engine
from kleene.engines.protocol import Query
from kleene.reference.budget import Budget
from kleene.reference.errors import KleeneError
from kleene.reference.events import Stream
from kleene.reference.match import Match
from kleene.reference.operators.text import parse_operator

#: Issue 12's Kleene pattern (OpenCEP loses some of its matches: docs/benchmarks.md,
#: "OpenCEP, run in the same bench run").
KC_PATTERN = ("PATTERN SEQ(SELL x, BUY{1,3} r[], BUY q)\n"
              "WHERE x.name = 'INTC' AND r[i].name = 'RIMM' AND q.name = 'QQQ' "
              "AND q.price > x.price\nWITHIN 500 ms\n")
ENGINES = ("nfa-chain", "nfa-chain-fc", "nfa-multichain", "nfa-tree", "nfa-eager")
BASELINE = "nfa-chain"
POLICY = "any"
#: At most this many events for the reference when the stream has no early match.
EXCERPT = 2_000


def _run(name: str, query: Query, s: Stream) -> tuple[set[Match] | None, float, int | None, str]:
    """The engine's matches on ``s`` (``None``: it does not run the pattern, and why)."""
    start = time.perf_counter()
    try:
        found, counters = run_engine(name, query, s)
    except KleeneError as err:
        return None, 0.0, None, str(err)
    seconds = time.perf_counter() - start
    if len(set(found)) != len(found):
        return set(found), seconds, counters.peak_instances, \
            f"{len(found) - len(set(found))} duplicates"
    return set(found), seconds, counters.peak_instances, ""


def _row(name: str, workload: str, n: int, found: set[Match], expected: set[Match] | None,
         seconds: float, peak: int | None, why: str) -> Row:
    agree = None if expected is None else (found == expected and not why)
    if expected is not None and found != expected:
        why = f"{len(expected - found)} missing, {len(found - expected)} extra"
    return Row(name, "local", workload, POLICY, len(found), agree, n, seconds, peak, why)


def nfa_part(s: Stream | None, out: TextIO) -> list[Row]:
    """The rows of the agreement table for the NFA engines on the stock stream."""
    if s is None:
        return []
    print("━━ seed 003: the NFA engines beside the operator reference on the stock stream",
          file=out)
    pattern = parse_operator(KC_PATTERN, "<demo>")
    for line in KC_PATTERN.strip().splitlines():
        print(f"  {line}", file=out)
    query = Query.of(pattern, policy=POLICY, time_unit=s.time_unit)
    whole, seconds, peak, why = _run(BASELINE, query, s)
    if whole is None:
        print(f"  {BASELINE} does not run it: {why}", file=out)
        return []
    end = min((max(p for _, ps in m.bindings for p in ps) + 1 for m in whole),
              default=EXCERPT)
    head = Stream(s.events[:min(end, EXCERPT)], s.time_unit)
    start = time.perf_counter()
    expected = Query.of(pattern, policy=POLICY).reference(head, budget=Budget(limit=2_000_000))
    label = f"stock KC, first {len(head):,}"
    rows = [Row("reference", "local", label, POLICY, len(expected), None, len(head),
                time.perf_counter() - start, note="the oracle (operator reference)")]
    print(f"  on the {len(head):,} events up to the first match: reference "
          f"{len(expected)} matches", file=out)
    for name in ENGINES:
        found, sec, pk, note = _run(name, query, head)
        if found is None:
            print(f"    {name:<15} does not run it: {note}", file=out)
            continue
        row = _row(name, label, len(head), found, expected, sec, pk, note)
        rows.append(row)
        print(f"    {name:<15} {len(found)} matches  {'✓' if row.agree else '✗ ' + row.note}",
              file=out)
    label = f"stock KC, all {len(s):,}"
    rows.append(Row(BASELINE, "local", label, POLICY, len(whole), None, len(s), seconds, peak,
                    "baseline (agreed with the reference on the excerpt)"))
    print(f"  on all {len(s):,} events: {BASELINE} {len(whole):,} matches "
          f"({len(s) / max(seconds, 1e-9) / 1e3:,.0f} k events/s)", file=out)
    for name in ENGINES[1:]:
        found, sec, pk, note = _run(name, query, s)
        if found is None:
            continue
        row = _row(name, label, len(s), found, whole, sec, pk, note)
        rows.append(row)
        print(f"    {name:<15} {len(found):,} matches  "
              f"{'✓ as ' + BASELINE if row.agree else '✗ ' + row.note}  "
              f"({len(s) / max(sec, 1e-9) / 1e3:,.0f} k events/s)", file=out)
    print(file=out)
    return rows
