"""Seed 003 on the stock stream: the issue's three workloads, every NFA engine (issue 12).

The stock file's lines are ``BUY(id=8,name=INTC,volume=100,price=27.85,stock_time=…)``:
the event type is BUY or SELL, ``name`` the ticker (:mod:`kleene.data.loaders`).
The workloads, policy ``any`` (those OpenCEP was timed on, issues 10 and 12):

- seq3 ``SEQ(SELL x, BUY y, BUY z)`` and AND3 ``AND(SELL x, BUY y, BUY z)``, each
  ``WHERE x.name = 'INTC' AND y.name = 'RIMM' AND z.name = 'QQQ' AND z.price >
  x.price WITHIN 500 ms`` (OpenCEP 4.4 s and 4.1 s end to end);
- KC ``SEQ(SELL x, BUY{1,3} r[], BUY q) WHERE x.name = 'INTC' AND r[i].name =
  'RIMM' AND q.name = 'QQQ' AND q.price > x.price WITHIN 500 ms`` (OpenCEP
  17.3 s, which loses matches to a bug).

Per (workload, engine): the matches; whether they equal the *reference's*
matches; the run after load (CPU and wall seconds, events/s over the whole
stream; target ≥ 1 M events/s) and end to end from the text file
(``kleene match --count`` in a fresh process, CPU seconds; target ≥ 10×
OpenCEP).

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

from bench.peers import cli_seconds
from bench.report import Table
from kleene.engines.registry import engine
from kleene.reference.conditions import holds, variables
from kleene.reference.events import Event, Stream
from kleene.reference.match import Match
from kleene.reference.operators.pattern import OperatorPattern, primitives
from kleene.reference.operators.policies import matches
from kleene.reference.operators.text import parse_operator
from kleene.reference.query import Query

#: OpenCEP end to end on this machine type (issues 10 and 12), seconds.
OPENCEP_S = {"seq3": 4.4, "AND3": 4.1, "KC": 17.3}
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


def stock_table(data: Path, s: Stream, loaded: float, limit: int | None) -> Table:
    """The table (see the module docstring); ``s`` is ``data`` loaded (``limit`` events)."""
    whole = limit is None
    table = Table("seed 003 on the stock stream: the issue's workloads (policy any)",
                  ("workload", "engine", "matches", "reference", "same", "after load CPU s",
                   "wall s", "ev/s (CPU)", "e2e CPU s", "e2e wall s", "OpenCEP s",
                   "OpenCEP / e2e CPU", "OpenCEP / e2e wall"))
    table.header.append(f"{data} ({len(s):,} events), loaded in {loaded:.2f} CPU s; "
                        "targets: ≥ 1 M events/s after load, e2e ≥ 10× OpenCEP")
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in WORKLOADS.items():
            pattern = parse_operator(text)
            path = Path(tmp) / f"{name}.txt"
            path.write_text(text, encoding="utf-8")
            started = time.process_time()
            expected = reference_matches(pattern, s)
            ref_s = time.process_time() - started
            paper = OPENCEP_S[name] if whole else None
            for label in ENGINES:
                compiled = engine(label).compile(Query.of(pattern))
                cpu0, wall0 = time.process_time(), time.perf_counter()
                got = list(compiled.run(s))
                cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
                e2e_cpu, e2e_wall, counted = cli_seconds(path, data, label, limit)
                same = set(got) == expected and len(got) == len(expected) == counted
                table.add(name, label, len(got), len(expected), same, cpu, wall,
                          len(s) / max(cpu, 1e-9), e2e_cpu, e2e_wall, paper,
                          None if paper is None else paper / e2e_cpu,
                          None if paper is None else paper / e2e_wall)
            table.notes.append(f"{name}: the reference took {ref_s:.1f} CPU s in pieces")
    table.notes += [
        "reference: the operator reference's matches, run on pieces (bench/seed003_stock.py); "
        "same: equal sets, and kleene match --count agrees",
        "e2e: kleene match --count in a fresh process (interpreter, imports, load, match), "
        "the least of 3 after one that writes the bytecode caches (bench/peers.py)",
        "OpenCEP / e2e: OpenCEP's end-to-end seconds (issue 12; one Python thread, so its "
        "wall and CPU seconds are one figure) / ours, in CPU seconds (all threads) and in wall "
        "seconds (what a user waits; the kleene program reads the file on a second thread "
        "while it imports and types large columns on threads) (target ≥ 10)"]
    return table
