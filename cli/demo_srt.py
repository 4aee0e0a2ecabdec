"""The seed 004 part of ``kleene demo``: the engines ``srt`` (report Alg. 1) and ``dsrt``
(report Thm 41 / Alg. 7) beside the SREMO reference, on the paper's Table 1 ticks
(Example 3.7) and on the stock stream with Wayeb's ``stock_reg1.sre`` (seq3).

:func:`srt_part` prints one line per run (the matches, or why an engine does not
run the pattern) and returns how many runs disagree with the reference, so the
caller can report a verdict. It takes a few seconds: the reference runs on a
prefix of the stock stream, the engines on all of it.
"""

from __future__ import annotations

import dataclasses
import time
from typing import TextIO

from kleene.data.bundled import bundled
from kleene.engines.registry import engine
from kleene.engines.srt.dsrt import compile_dsrt
from kleene.reference.errors import KleeneError
from kleene.reference.events import Stream
from kleene.reference.match import Match
from kleene.reference.query import Query
from kleene.reference.sremo import matches, parse_sremo
from kleene.reference.sremo.expressions import Expr
from kleene.reference.sremo.strategies import strict_contiguity
from kleene.reference.sremo.wayeb import read_sre

#: Table 1 of seed 004 (paper index i is position i − 1).
TABLE_1 = [{"ts": t, "type": k, "id": i, "price": p} for t, k, i, p in
           [(1, "B", 1, 22), (2, "B", 1, 24), (3, "B", 2, 32), (4, "S", 1, 70),
            (5, "S", 1, 68), (6, "B", 2, 33)]]
#: SREMO (1) of Example 3.7, and a fully marked windowed variant the DSRT reports.
EXAMPLES = ("mark {~.type = 'B'} -> r1 ; {TRUE}* ; mark {~.type = 'S' AND ~.id = r1.id}",
            "(mark {~.type = 'B'} -> r1 ; (mark {~.type = 'B'})* ; "
            "mark {~.type = 'S' AND ~.id = r1.id})[1..4]")
#: Wayeb's seq3 (shipped in ``data/datasets/wayeb-queries/``) and the paper's stock
#: window (Sec. 5.3), in Wayeb's strict reading.
QUERY_FILE = bundled("wayeb-queries") / "stock_reg1.sre"
WINDOW_MS = 500
#: Stock events the reference reads (it enumerates runs; the engines read them all).
PREFIX = 60


def excerpt(s: Stream, found: set[Match]) -> Stream:
    """The :data:`PREFIX` events of ``s`` that end with the first match in ``found``
    (the first events if there is none), positions renumbered from 0."""
    end = min((max(m["~"]) for m in found), default=min(PREFIX, len(s)) - 1) + 1
    start = max(0, end - PREFIX)
    return Stream([dataclasses.replace(s[i], position=i - start) for i in range(start, end)],
                  s.time_unit)


def _shown(found: set[Match], limit: int = 4) -> str:
    listed = sorted(found, key=lambda m: (m.first, m.dumps()))
    text = ", ".join("{" + ",".join(map(str, m["~"])) + "}" for m in listed[:limit])
    return f"{len(found)} match{'es' if len(found) != 1 else ''}" + \
        (f": {text}{', ...' if len(found) > limit else ''}" if found else "")


def _engine(name: str, e: Expr, s: Stream, reading: str = "inclusive"
            ) -> tuple[set[Match] | None, str, float]:
    """The matches of engine ``name`` (``None`` and the reason when it does not run)."""
    try:
        compiled = engine(name).compile(Query.of(e, reading=reading, time_unit=s.time_unit))
    except KleeneError as err:
        return None, str(err).removeprefix("unsupported: "), 0.0
    started = time.process_time()
    found = set(compiled.run(s))
    return found, "", time.process_time() - started


def _compare(e: Expr, s: Stream, expected: set[Match], out: TextIO, reading: str) -> int:
    differ = 0
    for name in ("srt", "dsrt"):
        found, why, seconds = _engine(name, e, s, reading)
        if found is None:
            print(f"    {name:<9} does not run it: {why}", file=out)
            continue
        same = found == expected
        differ += not same
        print(f"    {name:<9} {_shown(found)}  {'✓' if same else '✗ differs'}", file=out)
    return differ


def srt_part(stock: Stream | None, out: TextIO) -> int:
    """Print the seed 004 engine runs; the number of runs that differ from the reference.
    The stock run needs ``stock`` and :data:`QUERY_FILE`."""
    query_file = QUERY_FILE
    print("━━ seed 004: srt (report Alg. 1) and dsrt (Alg. 7) beside the SREMO reference",
          file=out)
    differ = 0
    table = Stream.from_rows(TABLE_1)
    for text in EXAMPLES:
        e = parse_sremo(text)
        expected = matches(e, table)
        print(f"  {text}\n    on Table 1 (Example 3.7), policy stream\n"
              f"    reference {_shown(expected)}", file=out)
        differ += _compare(e, table, expected, out, "inclusive")
    if stock is None or not query_file.exists():
        print("  (the stock stream or stock_reg1.sre is not available)", file=out)
        return differ
    query, = read_sre(str(query_file))
    e = query.to_expression(time_window=WINDOW_MS)
    print(f"  {query_file.name} (seq3) at {WINDOW_MS} ms, Wayeb's strict reading", file=out)
    found, _, seconds = _engine("srt", e, stock, query.reading)
    assert found is not None
    head = excerpt(stock, found)
    expected = matches(e, head, reading=query.reading)
    print(f"    on the {len(head)} stock events up to srt's first match (positions "
          f"renumbered; the reference enumerates runs, so it reads an excerpt)\n"
          f"    reference {_shown(expected)}", file=out)
    differ += _compare(e, head, expected, out, query.reading)
    print(f"    on all {len(stock):,} events: srt {len(found):,} matches "
          f"({100 * len(found) / len(stock):.2f} % of input; the paper: 0.36 %), "
          f"{len(stock) / seconds / 1e3:,.0f} k events/s", file=out)
    counted = strict_contiguity(query.to_expression(count_window=3))
    d = compile_dsrt(counted)
    print(f"    its strict-contiguity variant at [1..3] (no strategy: every element marked):"
          f" the DSRT has {d.dsrt.size} states and {d.minterms} minterms", file=out)
    srt_found, _, seconds = _engine("srt", counted, stock)
    assert srt_found is not None
    print(f"    srt       {_shown(srt_found)}  ({len(stock) / seconds / 1e3:,.0f} k events/s)",
          file=out)
    found, why, seconds = _engine("dsrt", counted, stock)
    if found is None:
        print(f"    dsrt      does not run it: {why}", file=out)
        return differ + 1
    same = found == srt_found
    print(f"    dsrt      {_shown(found)}  {'✓ as srt' if same else '✗ differs from srt'}  "
          f"({len(stock) / seconds / 1e3:,.0f} k events/s)", file=out)
    return differ + (not same)
