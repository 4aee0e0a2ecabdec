"""Seed 003 Sec. 8: lazy (Chain, Tree) vs eager NFA, on skewed patterns and on the stock stream.

Part 1, skewed patterns (Sec. 8.3, Figs. 12–13): a generated stream of three
types A, B, C whose rates fall from A to C, the rarest-to-most-frequent ratio
``1:r`` (the paper's 1:3 to 1:700), one event per time unit, a value ``v`` in
0..9. Patterns (the second event negated for NEG3, iterated for ITER3, whose
window is half the others', as in Sec. 8):

- SEQ3 ``SEQ(A a, B b, C c) WHERE a.v <= b.v AND b.v <= c.v WITHIN w``
- AND3 ``AND(A a, B b, C c) WHERE a.v <= b.v AND b.v <= c.v WITHIN w``
- NEG3 ``SEQ(A a, NOT(B n), C c) WHERE a.v <= c.v WITHIN w``
- ITER3 ``SEQ(A a, B+ b[], C c) WHERE a.v <= c.v WITHIN w/2``

For each, ``nfa-eager`` and ``nfa-chain`` (frequencies given: the true rates)
run over the same stream; the table gives peak instances and predicate
evaluations per event, the ratios eager/lazy (a lazy peak of 0, every match
found from the buffers, counts as 1), and checks the match sets are equal.
The paper reports 5–100× fewer peak instances and 10–200× fewer predicate
evaluations per event (Sec. 8.1, Figs. 12, 13).

Part 1b, the group-by-attribute optimisation (Sec. 4.5.3):
``SEQ(A a, B+ b[], C c) WHERE prev(b.v) = b.v WITHIN w/2`` on the same
streams, ``nfa-chain`` with and without hashing the iterated slot's buffer by
``v``: subsets built by the iterate edge, predicate evaluations, instances,
wall time, and the match sets compared.

Part 2, the stock stream: the issue's three workloads (seq3, AND3 and the
Kleene pattern KC over SELL/BUY events of three tickers, 500 ms) by every
NFA engine, against the reference's matches, after load and end to end
(:mod:`bench.seed003_stock`).

Part 2b, the sub-patterns (a Kleene operator over a ``SEQ``, a negated ``SEQ``) on a
prefix of the stock stream, the lazy NFAs against the reference
(:mod:`bench.seed003_subpatterns`).

Part 1c, Figs. 10–17: every pattern family against the window size, and
lazy/eager against the rarest-to-most-frequent ratio (:mod:`bench.seed003_figs`).

Part 3, Fig. 18: a generated stream whose rarest type changes every 100,000
events, the Tree NFA against every fixed Chain NFA (:mod:`bench.seed003_drift`).
"""

from __future__ import annotations

import random
import time
from collections import Counter
from dataclasses import dataclass

from bench.report import Table, emit, ratio
from bench.seed003_drift import columns_table, drift_table
from bench.seed003_figs import tables as figure_tables
from bench.seed003_stock import stock_table
from bench.seed003_subpatterns import FULL as FULL_SUB
from bench.seed003_subpatterns import QUICK as QUICK_SUB
from bench.seed003_subpatterns import subpattern_table
from kleene.data.bundled import bundled
from kleene.data.loaders import read_stock
from kleene.engines.nfa.engine import NFAEngine
from kleene.engines.protocol import Counters, Engine
from kleene.engines.registry import engine
from kleene.reference.events import Stream
from kleene.reference.match import Match
from kleene.reference.operators.text import parse_operator
from kleene.reference.query import Query

SEED = 2015
PAPER_INSTANCES = "5–100×"
PAPER_EVALUATIONS = "10–200×"

SKEWED = {
    "SEQ3": "PATTERN SEQ(A a, B b, C c) WHERE a.v <= b.v AND b.v <= c.v WITHIN {w}",
    "AND3": "PATTERN AND(A a, B b, C c) WHERE a.v <= b.v AND b.v <= c.v WITHIN {w}",
    "NEG3": "PATTERN SEQ(A a, NOT(B n), C c) WHERE a.v <= c.v WITHIN {w}",
    "ITER3": "PATTERN SEQ(A a, B+ b[], C c) WHERE a.v <= c.v WITHIN {half}",
}

GROUPED = "PATTERN SEQ(A a, B+ b[], C c) WHERE prev(b.v) = b.v WITHIN {half}"

@dataclass(frozen=True)
class Settings:
    """Sizes of one run."""

    events: int                 # length of each skewed stream
    ratios: tuple[int, ...]     # r of 1:r
    window: int                 # w (time units = events)
    stock_limit: int | None     # events of the stock stream (None: all)
    drift_segment: int = 100_000  # Fig. 18: events between two switches of the rarest type


FULL = Settings(events=10_000, ratios=(3, 30, 300, 700), window=20, stock_limit=None)
QUICK = Settings(events=3_000, ratios=(3, 30), window=20, stock_limit=20_000,
                 drift_segment=5_000)


def skewed_stream(n: int, r: int, seed: int = SEED) -> Stream:
    """A, B, C with weights r, √r, 1 (rarest-to-most-frequent 1:r), ts = position."""
    rnd = random.Random(seed + r)
    types = rnd.choices("ABC", weights=(r, r ** 0.5, 1), k=n)
    return Stream.from_rows({"ts": i, "type": t, "v": rnd.randrange(10)}
                            for i, t in enumerate(types))


def _run(e: Engine, text: str, s: Stream) -> tuple[list[Match], Counters, float]:
    compiled = e.compile(Query.of(parse_operator(text)))
    counters = Counters()
    started = time.perf_counter()
    got = list(compiled.run(s, counters=counters))
    return got, counters, time.perf_counter() - started


def skewed(settings: Settings) -> Table:
    """Part 1 (see the module docstring)."""
    table = Table("seed 003 Sec. 8.3: lazy chain vs eager NFA on skewed patterns",
                  ("pattern", "1:r", "matches", "eager peak", "chain peak", "peak ×",
                   "eager eval/ev", "chain eval/ev", "eval ×", "same"))
    table.header.append(f"{settings.events} events per stream, w = {settings.window}, "
                        f"paper: {PAPER_INSTANCES} fewer peak instances, "
                        f"{PAPER_EVALUATIONS} fewer predicate evaluations per event")
    w = settings.window
    for r in settings.ratios:
        s = skewed_stream(settings.events, r)
        freqs = {k: float(v) for k, v in Counter(e.type for e in s).items() if k is not None}
        for name, text in SKEWED.items():
            text = text.format(w=w, half=w // 2)
            eager, ce, _ = _run(engine("nfa-eager"), text, s)
            lazy, cl, _ = _run(NFAEngine("nfa-chain", "chain", frequencies=freqs), text, s)
            n = len(s)
            table.add(name, r, len(eager), ce.peak_instances, cl.peak_instances,
                      ratio(ce.peak_instances, max(cl.peak_instances, 1)),
                      ce.predicate_evaluations / n, cl.predicate_evaluations / n,
                      ratio(ce.predicate_evaluations, max(cl.predicate_evaluations, 1)),
                      "yes" if sorted(eager) == sorted(lazy) else "NO")
    table.notes.append("peak ×, eval ×: eager / lazy (a lazy count of 0 counts as 1)")
    return table


def grouped(settings: Settings) -> Table:
    """Part 1b (see the module docstring)."""
    table = Table("seed 003 Sec. 4.5.3: group-by-attribute on an iteration",
                  ("1:r", "matches", "subsets off", "subsets on", "subsets ×",
                   "eval off", "eval on", "instances ×", "s off", "s on", "same"))
    table.header.append(f"{GROUPED.format(half=settings.window // 2)}, nfa-chain, "
                        f"{settings.events} events per stream")
    text = GROUPED.format(half=settings.window // 2)
    for r in settings.ratios:
        s = skewed_stream(settings.events, r)
        freqs = {k: float(v) for k, v in Counter(e.type for e in s).items() if k is not None}
        runs = [_run(NFAEngine("nfa-chain", "chain", frequencies=freqs, group_by=g), text, s)
                for g in (False, True)]
        (off, c0, t0), (on, c1, t1) = runs
        table.add(r, len(on), c0.subsets, c1.subsets, ratio(c0.subsets, max(c1.subsets, 1)),
                  c0.predicate_evaluations, c1.predicate_evaluations,
                  ratio(c0.instances_created, max(c1.instances_created, 1)), t0, t1,
                  "yes" if sorted(off) == sorted(on) else "NO")
    table.notes.append("off: every subset of the buffered B's, prev checked on the match; "
                       "on: subsets within one value of v (the buffer hashed by v)")
    return table


def stock(settings: Settings) -> Table:
    """Part 2 (:mod:`bench.seed003_stock`)."""
    data = bundled("stocks.stream.gz")
    started = time.process_time()
    s = read_stock(data, limit=settings.stock_limit)
    return stock_table(data, s, time.process_time() - started, settings.stock_limit)


def stock_run(quick: bool) -> None:
    """``python -m bench seed003-stock``: Part 2 alone (the stock table, with OpenCEP)."""
    emit(stock(QUICK if quick else FULL), "seed003-stock")


def run(quick: bool) -> None:
    settings = QUICK if quick else FULL
    emit(skewed(settings), "seed003-skewed")
    for table, name in figure_tables(quick):
        emit(table, name)
    emit(grouped(settings), "seed003-group-by")
    emit(stock(settings), "seed003-stock")
    emit(subpattern_table(QUICK_SUB if quick else FULL_SUB), "seed003-subpatterns")
    emit(drift_table(segment=settings.drift_segment), "seed003-fig18")
    emit(columns_table(segment=settings.drift_segment), "seed003-fig18-columns")
