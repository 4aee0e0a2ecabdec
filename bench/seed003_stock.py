"""Seed 003 on the stock stream: the issue's three workloads, every NFA engine (issue 12).

The stock file's lines are ``BUY(id=8,name=INTC,volume=100,price=27.85,stock_time=…)``:
the event type is BUY or SELL, ``name`` the ticker (:mod:`kleene.data.loaders`).
The workloads, policy ``any`` (those OpenCEP is timed on, issues 10, 12 and 33):

- seq3 ``SEQ(SELL x, BUY y, BUY z)`` and AND3 ``AND(SELL x, BUY y, BUY z)``, each
  ``WHERE x.name = 'INTC' AND y.name = 'RIMM' AND z.name = 'QQQ' AND z.price >
  x.price WITHIN 500 ms``;
- KC ``SEQ(SELL x, BUY{1,3} r[], BUY q) WHERE x.name = 'INTC' AND r[i].name =
  'RIMM' AND q.name = 'QQQ' AND q.price > x.price WITHIN 500 ms`` (OpenCEP loses
  matches to a bug: docs/benchmarks.md, "OpenCEP, run in the same bench run").

Per (workload, engine): the matches; whether they equal the *reference's*
matches; the run after load (CPU and wall seconds, events/s over the whole
stream; target ≥ 1 M events/s) and end to end from the text file
(``kleene match --count`` in a fresh process, CPU seconds; target ≥ 10×
OpenCEP). OpenCEP runs in the same bench run on the same events
(:mod:`bench.opencep`), or its cells say "not run".

The reference (:func:`kleene.reference.operators.policies.matches`) cannot
run on 224,473 events at once; :func:`reference_matches` runs it on pieces
and is exact for patterns without negation: an event that no primitive of
the pattern accepts with its unary conditions is in no derivation, so only
the others are kept (their positions remembered); a match spans at most τ,
so no match has events on both sides of a gap longer than τ between two
kept events, and the kept events are cut there. Each piece is matched by the
reference and its matches mapped back to stream positions.
"""

from __future__ import annotations

import tempfile
import time
from dataclasses import replace
from pathlib import Path

from bench.opencep import NOT_RUN, OpenCEP, matches_cell
from bench.peers import cli_seconds
from bench.report import Cell, Table, load_average, ratio
from kleene.engines.registry import engine
from kleene.reference.conditions import holds, variables
from kleene.reference.events import Event, Stream
from kleene.reference.match import Match
from kleene.reference.operators.pattern import OperatorPattern, primitives
from kleene.reference.operators.policies import matches
from kleene.reference.operators.text import parse_operator
from kleene.reference.query import Query

_ISSUE = ("x.name = 'INTC' AND {y}.name = 'RIMM' AND {z}.name = 'QQQ' AND {z}.price > x.price")
WORKLOADS = {
    "seq3": "PATTERN SEQ(SELL x, BUY y, BUY z)\nWHERE " + _ISSUE.format(y="y", z="z")
            + "\nWITHIN 500 ms\n",
    "AND3": "PATTERN AND(SELL x, BUY y, BUY z)\nWHERE " + _ISSUE.format(y="y", z="z")
            + "\nWITHIN 500 ms\n",
    "KC": "PATTERN SEQ(SELL x, BUY{1,3} r[], BUY q)\nWHERE " + _ISSUE.format(y="r[i]", z="q")
          + "\nWITHIN 500 ms\n",
}
ENGINES = ("nfa-chain", "nfa-multichain", "nfa-tree", "nfa-eager")
TARGET_EVENTS_PER_S = 1e6


def reference_matches(pattern: OperatorPattern, s: Stream) -> set[Match]:
    """The reference's matches of ``pattern`` (no negation, a window) on ``s``, piece by
    piece (see the module docstring)."""
    assert pattern.window is not None
    prims = list(primitives(pattern.expr, negated=False))
    unary = {x.var: [c for c in pattern.conditions if variables(c) == {x.var}] for x in prims}
    kept = [e for e in s.events
            if any(x.accepts(e) and all(holds(c, {x.var: (e,)}) for c in unary[x.var])
                   for x in prims)]
    tau = pattern.window.in_units_of(s.time_unit)
    pieces: list[list[Event]] = []
    for e in kept:
        if not pieces or e.ts - pieces[-1][-1].ts > tau:
            pieces.append([])
        pieces[-1].append(e)
    out: set[Match] = set()
    for piece in pieces:
        sub = Stream([replace(e, position=i) for i, e in enumerate(piece)], s.time_unit)
        for m in matches(pattern, sub, "any"):
            out.add(Match(tuple((v, tuple(piece[i].position for i in ps))
                                for v, ps in m.bindings)))
    return out


def stock_table(data: Path, s: Stream, loaded: float, limit: int | None,
                repeats: int = 3) -> Table:
    """The table (see the module docstring); ``s`` is ``data`` loaded (``limit`` events);
    end to end, Kleene's and OpenCEP's, the least of ``repeats`` fresh processes."""
    table = Table("seed 003 on the stock stream: the issue's workloads (policy any)",
                  ("workload", "engine", "matches", "reference", "same", "after load CPU s",
                   "wall s", "ev/s (CPU)", "e2e CPU s", "e2e wall s", "OpenCEP matches",
                   "OpenCEP CPU s", "OpenCEP wall s", "OpenCEP / e2e CPU",
                   "OpenCEP / e2e wall"))
    table.header.append(f"{data.name} ({len(s):,} events), loaded in {loaded:.2f} CPU s; "
                        "targets: ≥ 1 M events/s after load, e2e ≥ 10× OpenCEP; load average "
                        f"at start: {load_average()}")
    with tempfile.TemporaryDirectory() as tmp:
        opencep = OpenCEP(Path(tmp), data, limit, repeats)
        table.header.append(opencep.header())
        for name, text in WORKLOADS.items():
            pattern = parse_operator(text)
            path = Path(tmp) / f"{name}.txt"
            path.write_text(text, encoding="utf-8")
            started = time.process_time()
            expected = reference_matches(pattern, s)
            ref_s = time.process_time() - started
            oc = opencep.run(name, 500)
            for label in ENGINES:
                compiled = engine(label).compile(Query.of(pattern))
                cpu0, wall0 = time.process_time(), time.perf_counter()
                got = list(compiled.run(s))
                cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
                e2e_cpu, e2e_wall, counted = cli_seconds(path, data, label, limit, repeats)
                same = set(got) == expected and len(got) == len(expected) == counted
                peer: tuple[Cell, ...] = (NOT_RUN,) * 4 if oc is None else (
                    oc.cpu, oc.wall, ratio(oc.cpu, e2e_cpu), ratio(oc.wall, e2e_wall))
                table.add(name, label, len(got), len(expected), same, cpu, wall,
                          len(s) / max(cpu, 1e-9), e2e_cpu, e2e_wall,
                          matches_cell(oc, len(expected)), *peer)
            table.notes.append(f"{name}: the reference took {ref_s:.1f} CPU s in pieces")
    table.notes += [
        "reference: the operator reference's matches, run on pieces (bench/seed003_stock.py); "
        "same: equal sets, and kleene match --count agrees",
        "e2e: kleene match --count in a fresh process (interpreter, imports, load, match), "
        "the least of 3 after one that writes the bytecode caches (bench/peers.py)",
        "OpenCEP: end to end in a fresh process on the same events, the least of the same "
        "number of runs (bench/opencep.py); OpenCEP matches: its count, '≠ ours' where it "
        "differs from the reference's; OpenCEP / e2e: its seconds / ours, in CPU seconds "
        "(all threads) and in wall seconds (what a user waits; the kleene program reads the "
        "file on a second thread while it imports and types large columns on threads) "
        "(target ≥ 10)", f"load average at the end: {load_average()}"]
    return table
