"""Seed 003 Sec. 8, Figs. 10–17: lazy vs eager NFAs on generated data.

Figs. 10–16 plot, against the window size, the throughput, the peak number of
instances and the computations (predicate evaluations) and memory operations
per event and per match of each pattern family, eager NFA against lazy
NFA; Fig. 17 the lazy/eager ratio against the rarest-to-most-frequent ratio
of the event types. The paper's claim (Sec. 8.1): 5–100× fewer peak instances
and 10–200× fewer predicate evaluations.

The stream of a pattern: its ``k`` event types only (A, B, …), the i-th with
weight ``R^(−i/(k−1))`` (the first type the most frequent, the last the
rarest, rarest-to-most-frequent ``1:R``, R = 50 for Figs. 10–16), one event
per time unit, a value ``v`` in 0..9. The patterns (conditions ``x.v <= y.v``
between consecutive positive variables keep the match counts readable):

- SEQ3–SEQ5 ``SEQ(A a, B b, C c[, D d[, E e]])``; AND2, AND3 ``AND(...)``;
- AND2EQ, AND3EQ: the conjunctions with the paper's kind of condition, one on
  *every pair* of variables and selective (``x.v = y.v``, 1 in 10; Sec. 8:
  "high correlation between each pair of primitive events");
- NSEQ3 ``SEQ(A a, NOT(B n), C c)``, NAND3 ``AND(A a, NOT(B n), C c)``,
  NSEQ5 ``SEQ(A a, B b, NOT(C n), D d, E e)``, each lazy twice: negation by
  post-processing (``nfa-chain``, Sec. 4.4.1) and first-chance
  (``nfa-chain-fc``, Sec. 4.4.2);
- ITER3 ``SEQ(A a, B+ b[], C c)`` (window halved, as in Sec. 8);
- OR2SEQ2 ``OR(SEQ(A a, B b), SEQ(C c, D d))``, OR4SEQ2 (four SEQ2 over A–H),
  OR2SEQ4 ``OR(SEQ(A, B, C, D), SEQ(E, F, G, H))``: the eager NFA per DNF
  conjunct against the Lazy Multi-Chain NFA (Sec. 5).

The lazy chains get the true frequencies (counted on the stream). Measured
per run: CPU seconds (``time.process_time``; throughput = events / CPU s),
``peak_instances`` (a lazy peak of 0, every match assembled from the buffers
when its rarest event arrives, counts as 1 in the ratios),
``predicate_evaluations`` and memory operations = ``buffer_operations`` +
``instances_created`` (every instance stored is a write), per event and per
match. The match sets of every engine are compared.
"""

from __future__ import annotations

import random
import re
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from bench.report import Table, ratio
from kleene.engines.nfa.engine import NFAEngine
from kleene.engines.protocol import Counters
from kleene.reference.events import Stream
from kleene.reference.match import Match
from kleene.reference.operators.text import parse_operator
from kleene.reference.query import Query

SEED = 2015
PAPER = "5–100× fewer peak instances, 10–200× fewer predicate evaluations"

#: family → pattern name → (text, its types); ``{w}`` the window.
FAMILIES: dict[str, dict[str, str]] = {
    "SEQ (Figs. 10–11)": {
        "SEQ3": "SEQ(A a, B b, C c) WHERE a.v <= b.v AND b.v <= c.v WITHIN {w}",
        "SEQ4": "SEQ(A a, B b, C c, D d) WHERE a.v <= b.v AND b.v <= c.v AND c.v <= d.v "
                "WITHIN {w}",
        "SEQ5": "SEQ(A a, B b, C c, D d, E e) WHERE a.v <= b.v AND b.v <= c.v AND "
                "c.v <= d.v AND d.v <= e.v WITHIN {w}",
    },
    "AND (Fig. 12)": {
        "AND2": "AND(A a, B b) WHERE a.v <= b.v WITHIN {w}",
        "AND3": "AND(A a, B b, C c) WHERE a.v <= b.v AND b.v <= c.v WITHIN {w}",
    },
    "ANDEQ (Fig. 12, every pair)": {
        "AND2EQ": "AND(A a, B b) WHERE a.v = b.v WITHIN {w}",
        "AND3EQ": "AND(A a, B b, C c) WHERE a.v = b.v AND b.v = c.v AND c.v = a.v "
                  "WITHIN {w}",
    },
    "NOT (Figs. 13–14)": {
        "NSEQ3": "SEQ(A a, NOT(B n), C c) WHERE a.v <= c.v WITHIN {w}",
        "NAND3": "AND(A a, NOT(B n), C c) WHERE a.v <= c.v WITHIN {w}",
        "NSEQ5": "SEQ(A a, B b, NOT(C n), D d, E e) WHERE a.v <= b.v AND b.v <= d.v AND "
                 "d.v <= e.v WITHIN {w}",
    },
    "ITER (Fig. 15)": {
        "ITER3": "SEQ(A a, B+ b[], C c) WHERE a.v <= c.v WITHIN {half}",
    },
    "OR (Fig. 16)": {
        "OR2SEQ2": "OR(SEQ(A a, B b), SEQ(C c, D d)) WHERE a.v <= b.v AND c.v <= d.v "
                   "WITHIN {w}",
        "OR4SEQ2": "OR(SEQ(A a, B b), SEQ(C c, D d), SEQ(E e, F f), SEQ(G g, H h)) WHERE "
                   "a.v <= b.v AND c.v <= d.v AND e.v <= f.v AND g.v <= h.v WITHIN {w}",
        "OR2SEQ4": "OR(SEQ(A a, B b, C c, D d), SEQ(E e, F f, G g, H h)) WHERE "
                   "a.v <= b.v AND b.v <= c.v AND c.v <= d.v AND e.v <= f.v AND "
                   "f.v <= g.v AND g.v <= h.v WITHIN {w}",
    },
}


@dataclass(frozen=True)
class Settings:
    """Sizes of one run."""

    events: int                 # per stream
    windows: tuple[int, ...]    # Figs. 10–16: w (time units = events)
    skew: int                   # R of 1:R for Figs. 10–16
    ratios: tuple[int, ...]     # Fig. 17: R
    fig17_window: int


FULL = Settings(events=4_000, windows=(10, 20, 40), skew=50, ratios=(1, 3, 10, 30, 100, 300),
                fig17_window=20)
QUICK = Settings(events=600, windows=(10,), skew=50, ratios=(1, 30), fig17_window=10)


def types_of(text: str) -> list[str]:
    """The event types of ``text`` (A, B, … in the order written)."""
    head = text.split("WHERE")[0]
    return list(dict.fromkeys(re.findall(r"\b([A-H])(?=[ +{])", head)))


def stream_for(types: Sequence[str], n: int, skew: int, seed: int = SEED) -> Stream:
    """``n`` events of ``types``, the i-th with weight ``skew^(−i/(k−1))``, ts = position."""
    rnd = random.Random(seed + skew + len(types))
    k = len(types)
    weights = [skew ** (-i / max(k - 1, 1)) for i in range(k)]
    drawn = rnd.choices(list(types), weights=weights, k=n)
    return Stream.from_rows({"ts": i, "type": t, "v": rnd.randrange(10)}
                            for i, t in enumerate(drawn))


@dataclass
class Run:
    """One engine's run: matches, counters, CPU seconds."""

    matches: list[Match]
    counters: Counters
    cpu: float

    def per(self, n: int, what: str) -> float:
        c = self.counters
        value = (c.buffer_operations + c.instances_created if what == "mem"
                 else c.predicate_evaluations)
        return value / max(n, 1)


def _run(e: NFAEngine, text: str, s: Stream) -> Run:
    compiled = e.compile(Query.of(parse_operator("PATTERN " + text)))
    counters = Counters()
    started = time.process_time()
    got = sorted(compiled.run(s, counters=counters))
    return Run(got, counters, time.process_time() - started)


def engines(name: str, s: Stream) -> list[tuple[str, NFAEngine]]:
    """The eager baseline and the lazy engines compared on pattern ``name``."""
    freqs = {k: float(v) for k, v in Counter(e.type for e in s if e.type).items()}
    if name.startswith("OR"):
        return [("eager", NFAEngine("nfa-eager", "eager", multichain=True)),
                ("multichain", NFAEngine("nfa-multichain", "chain", multichain=True,
                                         frequencies=freqs))]
    lazy = [("chain", NFAEngine("nfa-chain", "chain", frequencies=freqs))]
    if name.startswith("N"):
        lazy.append(("chain-fc", NFAEngine("nfa-chain-fc", "chain", first_chance=True,
                                           frequencies=freqs)))
    return [("eager", NFAEngine("nfa-eager", "eager")), *lazy]


COLUMNS = ("pattern", "w", "lazy", "matches", "ev/s eager", "ev/s lazy", "throughput ×",
           "peak eager", "peak lazy", "peak ×", "eval/ev e | l", "eval/match e | l", "eval ×",
           "mem/ev e | l", "mem/match e | l", "mem ×", "same")


def family(title: str, patterns: dict[str, str], settings: Settings,
           summary: dict[str, list[tuple[float, float]]]) -> Table:
    """One table of Figs. 10–16: every pattern of the family at every window."""
    table = Table(f"seed 003 Sec. 8, {title}: eager vs lazy against the window",
                  COLUMNS)
    table.header.append(f"{settings.events} events per stream, rarest-to-most-frequent "
                        f"1:{settings.skew}; paper: {PAPER}")
    for name, text in patterns.items():
        s = stream_for(types_of(text), settings.events, settings.skew)
        n = len(s)
        for w in settings.windows:
            body = text.format(w=w, half=max(w // 2, 1))
            runs = [(label, _run(e, body, s)) for label, e in engines(name, s)]
            (_, eager), lazies = runs[0], runs[1:]
            for label, lazy in lazies:
                m = len(eager.matches)
                peak_x = ratio(eager.counters.peak_instances,
                               max(lazy.counters.peak_instances, 1))
                eval_x = ratio(eager.counters.predicate_evaluations,
                               max(lazy.counters.predicate_evaluations, 1))
                summary.setdefault(title, []).append((peak_x, eval_x))
                table.add(name, w, label, m, n / max(eager.cpu, 1e-9), n / max(lazy.cpu, 1e-9),
                          ratio(eager.cpu, max(lazy.cpu, 1e-9)),
                          eager.counters.peak_instances, lazy.counters.peak_instances, peak_x,
                          _pair(eager.per(n, "eval"), lazy.per(n, "eval")),
                          _pair(eager.per(m, "eval"), lazy.per(m, "eval")), eval_x,
                          _pair(eager.per(n, "mem"), lazy.per(n, "mem")),
                          _pair(eager.per(m, "mem"), lazy.per(m, "mem")),
                          ratio(eager.per(1, "mem"), max(lazy.per(1, "mem"), 1e-9)),
                          "yes" if lazy.matches == eager.matches else "NO")
    table.notes.append("×: eager / lazy (throughput: lazy / eager); a lazy peak of 0 counts "
                       "as 1; mem = buffer operations + instances created; per match: over "
                       "the matches of the run (– without a match)")
    return table


def _pair(a: float, b: float) -> str:
    from bench.report import fmt

    return f"{fmt(a)} | {fmt(b)}"


def fig17(settings: Settings) -> Table:
    """Fig. 17: lazy/eager against the rarest-to-most-frequent ratio (SEQ3, AND3)."""
    table = Table("seed 003 Sec. 8, Fig. 17: lazy / eager against the rarest-to-most-frequent "
                  "ratio", ("pattern", "1:R", "matches", "throughput ×", "peak ×", "eval ×",
                            "mem ×", "same"))
    table.header.append(f"{settings.events} events per stream, w = {settings.fig17_window}; "
                        f"paper: the gain grows with the skew")
    chosen = {"SEQ3": FAMILIES["SEQ (Figs. 10–11)"]["SEQ3"],
              "AND3": FAMILIES["AND (Fig. 12)"]["AND3"]}
    for name, text in chosen.items():
        body = text.format(w=settings.fig17_window)
        for r in settings.ratios:
            s = stream_for(types_of(text), settings.events, r)
            (_, eager), (_, lazy) = [(label, _run(e, body, s)) for label, e in engines(name, s)]
            table.add(name, r, len(eager.matches), ratio(eager.cpu, max(lazy.cpu, 1e-9)),
                      ratio(eager.counters.peak_instances, max(lazy.counters.peak_instances, 1)),
                      ratio(eager.counters.predicate_evaluations,
                            max(lazy.counters.predicate_evaluations, 1)),
                      ratio(eager.per(1, "mem"), max(lazy.per(1, "mem"), 1e-9)),
                      "yes" if lazy.matches == eager.matches else "NO")
    table.notes.append("throughput ×: lazy / eager events per CPU second; the others eager / "
                       "lazy (a lazy peak of 0 counts as 1)")
    return table


#: Why a family's evaluation ratio stays below the paper's 10–200× (docs/benchmarks.md, Seed 003).
BELOW = {
    "AND (Fig. 12)": "AND2: both NFAs evaluate the condition once per (a, b) pair in the "
                     "window (n + 2P eager, n_B + 2P lazy, whatever the selectivity); AND3: "
                     "b.v <= c.v keeps 55 % of the lazy (c, b) instances, each tried on "
                     "every a in the window (the paper's selective conditions on every "
                     "pair: AND3EQ)",
    "ANDEQ (Fig. 12, every pair)": "AND2EQ as AND2 (the pair bound); AND3EQ reaches the "
                                   "paper's range",
    "NOT (Figs. 13–14)": "NSEQ3, NAND3: two positive slots, the pair bound of AND2 (the "
                         "negation is checked on the same candidates either way)",
    "ITER (Fig. 15)": "near the paper's lower end: the iterated slot is evaluated last "
                      "whatever its rate (Sec. 4.5)",
    "OR (Fig. 16)": "each conjunct a SEQ of 2: the pair bound of AND2 (n + 2P vs n_rare + 2P)",
}


def summary_table(summary: dict[str, list[tuple[float, float]]]) -> Table:
    """Per family, the range of our ratios beside the paper's claim, and why below it."""
    table = Table("seed 003 Sec. 8, Figs. 10–16 in short: eager / lazy",
                  ("family", "fewer peak instances", "paper", "fewer predicate evaluations",
                   "paper", "below the paper: why"))
    for title, pairs in summary.items():
        peaks = [p for p, _ in pairs]
        evals = [e for _, e in pairs]
        table.add(title, _span(peaks), "5–100×", _span(evals), "10–200×",
                  BELOW.get(title, "–") if min(evals) < 10 else "–")
    return table


def _span(values: list[float]) -> str:
    from bench.report import fmt

    return f"{fmt(min(values))}–{fmt(max(values))}×" if values else "–"


def tables(quick: bool) -> list[tuple[Table, str]]:
    """Every table of Figs. 10–17, with its CSV name."""
    settings = QUICK if quick else FULL
    summary: dict[str, list[tuple[float, float]]] = {}
    out = [(family(title, patterns, settings, summary), "seed003-fig" + title.split()[0].lower())
           for title, patterns in FAMILIES.items()]
    out.append((fig17(settings), "seed003-fig17"))
    out.append((summary_table(summary), "seed003-figs"))
    return out
