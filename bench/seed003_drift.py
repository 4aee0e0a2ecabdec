"""Seed 003 Fig. 18 (Sec. 8.3): the Tree NFA against every Chain NFA on drifting rates.

Sec. 8.3: "an artificial stream was produced in which the rarest event was
switched after each 100,000 incoming events. Then, all NFAs were tested
against this input stream using a simple sequence pattern of three event
types. The number of computations was measured after each 10,000 events."
The paper finds "the Tree NFA shows consistent improvement over all Chain
NFAs regardless of the input arrival rates" (Fig. 18, log scale).

Here: types A, B, C; segment k (``segment`` events) draws types with weights
:data:`RATES` rotated by k, so each type is the rarest in turn; ts = position.
Pattern ``SEQ(A a, B b, C c) WITHIN w``. Every fixed chain (the 6 orders σ)
and ``nfa-tree`` run over the same stream event by event; computations are
the predicate evaluations (:class:`~kleene.engines.protocol.Counters`),
read every ``segment / 10`` events. Per segment: the best chain's
computations and the tree's, and their ratio (target: ≤ 1.5 on every
segment); over the whole stream, the tree against every chain (target: the
tree ahead of each). Every engine's matches are compared.

:func:`columns_table` runs the same engines over the loaded stream's columns
(:mod:`kleene.engines.nfa.join`; the tree re-plans σ block by block,
:mod:`kleene.engines.nfa.replan`), where CPU time is comparable: per segment
(each segment's rows as a stream) and over the whole stream, the least CPU
seconds of ``repeat`` runs, and the computations.
"""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Iterator

from bench.report import Table
from kleene.data.columnar import columns_of
from kleene.engines.nfa.engine import NFAEngine
from kleene.engines.protocol import Compiled, Counters
from kleene.reference.events import Event, Stream
from kleene.reference.match import Match
from kleene.reference.operators.text import parse_operator
from kleene.reference.query import Query

SEED = 2015
#: Relative rates of the three types in a segment (rotated each segment).
RATES = (1, 10, 30)
PATTERN = "PATTERN SEQ(A a, B b, C c) WITHIN {w}"
#: The paper's finding (Fig. 18): the tree at or below every chain everywhere.
PAPER = "≤ 1 (Tree below every chain)"


def drifting_stream(segments: int, segment: int, seed: int = SEED) -> Stream:
    """``segments`` segments of ``segment`` events; in segment k type ``"ABC"[k % 3]``
    is the rarest (weights :data:`RATES` rotated)."""
    rnd = random.Random(seed)
    types: list[str] = []
    for k in range(segments):
        weights = tuple(RATES[(i - k) % 3] for i in range(3))
        types += rnd.choices("ABC", weights=weights, k=segment)
    return Stream([Event(i, i, t, {}) for i, t in enumerate(types)])


def _sampled(events: Stream, counters: Counters, every: int,
             out: list[tuple[int, float]]) -> Iterator[Event]:
    """``events``, recording the predicate evaluations and CPU seconds so far every
    ``every`` events."""
    for e in events:
        if e.position % every == 0:
            out.append((counters.predicate_evaluations, time.process_time()))
        yield e
    out.append((counters.predicate_evaluations, time.process_time()))


def _run(compiled: Compiled, s: Stream, every: int, counters: Counters | None = None,
         ) -> tuple[list[Match], list[int], list[float], float]:
    """Matches, computations and CPU seconds per ``every`` events, CPU seconds (the run
    counted into ``counters``)."""
    c = Counters() if counters is None else counters
    marks: list[tuple[int, float]] = []
    started = time.process_time()
    got = list(compiled.run(_sampled(s, c, every, marks), counters=c))
    pairs = list(itertools.pairwise(marks))
    return (got, [b[0] - a[0] for a, b in pairs], [b[1] - a[1] for a, b in pairs],
            time.process_time() - started)


def whole_stream_notes(table: Table, totals: dict[str, tuple[int, float]], *, by: str) -> None:
    """One note per NFA over the whole stream (``totals``: name → computations, CPU
    seconds): its computations, their ratio to the tree's, its CPU seconds; in order of
    ``by`` (``"computations"`` or ``"cpu"``)."""
    tree = totals.get("tree", (0, 0.0))[0]
    field = ("computations", "cpu").index(by)
    for name, (count, cpu) in sorted(totals.items(), key=lambda kv: kv[1][field]):
        table.notes.append(f"whole stream, {name}: {count:,} computations "
                           f"({count / max(tree, 1):.2f}× the tree's), {cpu:.2f} CPU s")


def drift_table(segments: int = 3, segment: int = 100_000, window: int = 20) -> Table:
    """The table (see the module docstring)."""
    s = drifting_stream(segments, segment)
    pattern = parse_operator(PATTERN.format(w=window))
    every = segment // 10
    chains: dict[tuple[int, ...], list[int]] = {}
    chain_cpu: dict[tuple[int, ...], list[float]] = {}
    totals: dict[str, tuple[int, float]] = {}
    base: list[Match] | None = None
    same = True
    for sigma in itertools.permutations(range(3)):
        freqs = {"ABC"[i]: float(rank) for rank, i in enumerate(sigma)}
        e = NFAEngine("nfa-chain", "chain", frequencies=freqs)
        got, per, cpus, cpu = _run(e.compile(Query.of(pattern)), s, every)
        chains[sigma] = per
        chain_cpu[sigma] = cpus
        totals["chain " + "".join("abc"[i] for i in sigma)] = (sum(per), cpu)
        base = got if base is None else base
        same &= sorted(got) == sorted(base)
    tree = NFAEngine("nfa-tree", "tree", multichain=True).compile(Query.of(pattern))
    by_tree = Counters()
    got, tree_per, tree_cpu, cpu = _run(tree, s, every, by_tree)
    same &= sorted(got) == sorted(base or [])
    totals["tree"] = (sum(tree_per), cpu)
    table = Table("seed 003 Fig. 18: Tree NFA vs every Chain NFA, rarest type switched "
                  f"every {segment:,} events",
                  ("segment", "rarest", "best chain", "best chain computations",
                   "tree computations", "tree / best chain", "paper", "worst chain / tree",
                   "best chain CPU s", "tree CPU s", "tree / best chain CPU"))
    table.header.append(f"{PATTERN.format(w=window)}; {len(s):,} events, rates {RATES} "
                        f"rotated; {len(base or []):,} matches, the same for every NFA: "
                        f"{'yes' if same else 'NO'}; tree switches: {by_tree.switches}")
    for k in range(segments):
        part = slice(k * 10, (k + 1) * 10)
        sums = {sigma: sum(per[part]) for sigma, per in chains.items()}
        best = min(sums, key=lambda sigma: sums[sigma])
        mine = sum(tree_per[part])
        best_cpu = sum(chain_cpu[best][part])
        mine_cpu = sum(tree_cpu[part])
        table.add(k + 1, "ABC"[k % 3], "".join("abc"[i] for i in best), sums[best], mine,
                  mine / max(sums[best], 1), PAPER, max(sums.values()) / max(mine, 1),
                  best_cpu, mine_cpu, mine_cpu / max(best_cpu, 1e-9))
    whole_stream_notes(table, totals, by="computations")
    table.notes.append("targets: tree / best chain ≤ 1.5 on every segment; the tree ahead of "
                       "every fixed chain over the whole stream")
    table.notes.append(f"the tree reads its first {tree.sample:,} events ahead (its first "
                       "rates) before it evaluates: its computations are counted up to that "
                       "many events late (a stream shorter than that shows none per segment)")
    return table


def _engines() -> list[tuple[str, NFAEngine]]:
    """The six fixed chains (frequencies given: σ) and the tree."""
    out = [("chain " + "".join("abc"[i] for i in sigma),
            NFAEngine("nfa-chain", "chain",
                      frequencies={"ABC"[i]: float(r) for r, i in enumerate(sigma)}))
           for sigma in itertools.permutations(range(3))]
    return [*out, ("tree", NFAEngine("nfa-tree", "tree", multichain=True))]


def _timed(e: NFAEngine, text: str, s: Stream, repeat: int) -> tuple[list[Match], int, int,
                                                                          float]:
    """Matches, computations, switches, least CPU seconds of ``repeat`` runs."""
    best = float("inf")
    got: list[Match] = []
    compiled = e.compile(Query.of(parse_operator(text)))
    for _ in range(max(repeat, 1)):
        c = Counters()
        started = time.process_time()
        got = list(compiled.run(s, counters=c))
        best = min(best, time.process_time() - started)
    return sorted(got), c.predicate_evaluations, c.switches, best


def columns_table(segments: int = 3, segment: int = 100_000, window: int = 20,
                  repeat: int = 3) -> Table:
    """Fig. 18 over columns (see the module docstring): CPU and computations."""
    columns = columns_of(drifting_stream(segments, segment).events)
    text = PATTERN.format(w=window)
    table = Table("seed 003 Fig. 18 over columns: Tree NFA (re-planned chain) vs every "
                  "Chain NFA, CPU seconds",
                  ("segment", "rarest", "fastest chain", "its CPU s", "tree CPU s",
                   "tree / fastest chain CPU", "tree / best chain computations",
                   "tree re-plans", "slowest chain / tree CPU"))
    same = True
    parts = [(str(k + 1), "ABC"[k % 3], columns.slice(k * segment, (k + 1) * segment))
             for k in range(segments)]
    whole: dict[str, tuple[int, float]] = {}
    for label, rare, part in [*parts, ("whole", "–", columns)]:
        s = Stream.from_columns(part)
        runs = {name: _timed(e, text, s, repeat) for name, e in _engines()}
        base = runs["chain abc"][0]
        same &= all(got == base for got, _, _, _ in runs.values())
        chains = {n: r for n, r in runs.items() if n != "tree"}
        fastest = min(chains, key=lambda n: chains[n][3])
        fewest = min(c for _, c, _, _ in chains.values())
        _, count, switches, cpu = runs["tree"]
        table.add(label, rare, fastest[6:], chains[fastest][3], cpu,
                  cpu / max(chains[fastest][3], 1e-9), count / max(fewest, 1), switches,
                  max(r[3] for r in chains.values()) / max(cpu, 1e-9))
        if label == "whole":
            whole = {n: (r[1], r[3]) for n, r in runs.items()}
    table.header.append(f"{text}; {len(columns):,} events over columns; the same matches "
                        f"for every NFA: {'yes' if same else 'NO'}; CPU: least of {repeat} "
                        "runs")
    whole_stream_notes(table, whole, by="cpu")
    table.notes.append("a segment's rows run as a stream of their own; the tree chooses σ "
                       "per block of candidate rows (engines/nfa/replan.py)")
    return table
