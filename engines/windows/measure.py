"""Throughput of the match-window engines on the stock stream (a measurement, not a test).

``python -m kleene.engines.windows.measure [--limit N] [--engines A,B] [--patterns P3,P4]
[--policy next] [--profile]`` loads ``stocks.stream.gz`` (not timed), then runs
each engine on each pattern and prints events per second after loading, the
number of matches and the counters that explain the figure (calls to A,
events passed to A). ``--profile`` prints the top of a cProfile of the first
engine on the first pattern. The numbers are measured, never asserted.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time
from collections.abc import Sequence

from kleene.data.bundled import bundled
from kleene.data.loaders import load_events
from kleene.engines.protocol import Counters
from kleene.engines.registry import engine
from kleene.reference.events import Event
from kleene.reference.query import Query
from kleene.reference.ses.text import parse_ses

STOCKS = str(bundled("stocks.stream.gz"))

_NAMES = ("INTC", "MSFT", "CSCO", "ORCL", "DELL")


def _pattern(variables: Sequence[str]) -> str:
    sets = ", ".join(variables)
    where = " AND ".join(f"{v.rstrip('+')}.name = '{n}'" for v, n in zip(variables, _NAMES,
                                                                        strict=False))
    return f"PATTERN <{{{sets}}}> WHERE {where} WITHIN 500 ms"


#: Set patterns of 3, 4 and 5 variables (one group variable in P3 and P4g), τ = 500 ms.
PATTERNS = {
    "P3": _pattern(["a", "b+", "c"]),
    "P4": _pattern(["a", "b", "c", "d"]),
    "P4g": _pattern(["a", "b+", "c", "d"]),
    "P5": _pattern(["a", "b", "c", "d", "f"]),
}


def measure(name: str, text: str, policy: str, events: Sequence[Event]) -> dict[str, object]:
    """Run engine ``name`` once; its throughput, matches and counters."""
    compiled = engine(name).compile(Query.of(parse_ses(text), policy=policy, time_unit="ms"))
    counters = Counters()
    start = time.perf_counter()
    found = sum(1 for _ in compiled.run(events, counters=counters))
    seconds = time.perf_counter() - start
    return {"engine": name, "events/s": len(events) / seconds, "seconds": seconds,
            "matches": found, **counters.as_dict()}


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", default=STOCKS)
    parser.add_argument("--limit", type=int)
    parser.add_argument("--engines", default="windows+ses,ses-automaton")
    parser.add_argument("--patterns", default="P3,P4")
    parser.add_argument("--policy", default="next")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args(argv)
    events = load_events(args.events, limit=args.limit).events
    names, keys = args.engines.split(","), args.patterns.split(",")
    if args.profile:
        profile = cProfile.Profile()
        profile.runcall(measure, names[0], PATTERNS[keys[0]], args.policy, events)
        pstats.Stats(profile).sort_stats("tottime").print_stats(20)
        return
    for key in keys:
        for name in names:
            r = measure(name, PATTERNS[key], args.policy, events)
            print(f"{key:4} {name:20} {r['events/s']:>10,.0f} ev/s {r['seconds']:7.2f} s "
                  f"matches {r['matches']:>7} calls_to_a {r['calls_to_a']:>6} "
                  f"events_to_a {r['events_to_a']:>7}", flush=True)


if __name__ == "__main__":
    main()
