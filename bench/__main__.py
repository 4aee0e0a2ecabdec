"""``python -m bench [NAME ...] [--quick] [--peers] [--format F ...] [--queries DIR]
[--first K]``: run benchmarks by name (default: all; ``core`` reads CORE's queries from
``--queries``).

The dispatcher is a name → function table (:data:`BENCHMARKS`); each function
takes ``quick`` (small sizes, for development and tests) and prints its tables.
``--peers`` also runs, after a benchmark of :data:`WITH_PEERS`, its comparison with the real
engines installed under ``.peers/`` (``bash scripts/peers.sh --install-only``), over the file
formats ``--format`` names (default: every one, :data:`bench.match_recognize_peers.FORMATS`).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence

from bench import (
    core,
    count,
    funnel,
    match_recognize,
    match_recognize_peers,
    memory,
    mr,
    peers,
    policies,
    seed000,
    seed001,
    seed003,
    seed003_subpatterns,
    seed004,
    ses_policies,
    spark_bench,
    spark_cpu,
    spark_mr_profile,
    spark_tasks,
    stream,
    stream_faults,
    stream_mr,
    stream_spark,
    writers,
)

BENCHMARKS: dict[str, Callable[[bool], object]] = {
    "seed000": seed000.run,
    "seed001": seed001.run,
    "seed003": seed003.run,
    "seed003-stock": seed003.stock_run,
    "seed003-subpatterns": seed003_subpatterns.run,
    "seed004": seed004.run,
    "ses-policies": ses_policies.run,
    "policies": policies.run,
    "spark": spark_bench.run,
    "spark-tasks": spark_tasks.run,
    "spark-cpu": spark_cpu.run,
    "peers": peers.run,
    "peers-spark": peers.spark_run,
    "stream": stream.run,
    "stream-spark": stream_spark.run,
    "stream-faults": stream_faults.run,
    "stream-mr": stream_mr.run,
    "match-recognize": match_recognize.run,
    "mr": mr.run,
    "spark-mr-profile": spark_mr_profile.run,
    "count": count.run,
    "core": core.run,
    "writers": writers.run,
    "funnel": funnel.run,
    "memory": memory.run,
}

#: The benchmarks with a comparison to the peers (``--peers``): name → function.
WITH_PEERS: dict[str, Callable[[bool, Sequence[str]], object]] = {
    "match-recognize": match_recognize_peers.run,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help=f"benchmarks to run: {', '.join(BENCHMARKS)} or all (default)")
    parser.add_argument("--quick", action="store_true", help="small sizes (seconds, not minutes)")
    parser.add_argument("--peers", action="store_true",
                        help=f"also the comparison with the real engines ({', '.join(WITH_PEERS)})")
    parser.add_argument("--format", action="append", choices=list(match_recognize_peers.FORMATS),
                        dest="formats", help="a file format the comparison with the real "
                        "engines reads (repeat for more; default: all)")
    parser.add_argument("--queries", metavar="DIR", help="core: a CORE checkout's "
                        "src/targets/experiments/stocks/queries (without it, not run)")
    parser.add_argument("--first", type=int, default=1000, metavar="K",
                        help="core: the first K matches measured (default 1000)")
    parser.add_argument("--time-limit", type=float, metavar="S",
                        help="core: seconds each run may take (default 240; 120 with --quick)")
    parser.add_argument("--no-listing", action="store_false", dest="listing",
                        help="core: no full listing where the count did not list")
    args = parser.parse_args(argv)
    names = [n for n in args.names if n != "all"] or list(BENCHMARKS)
    unknown = [n for n in names if n not in BENCHMARKS]
    if unknown:
        parser.error(f"unknown benchmark(s) {', '.join(unknown)}; choose from "
                     f"{', '.join(BENCHMARKS)} or all")
    for name in names:
        started = time.perf_counter()
        print(f"# bench {name}{' (quick)' if args.quick else ''}\n", flush=True)
        if name == "core":
            core.run(args.quick, args.queries, args.first, args.time_limit, args.listing)
        else:
            BENCHMARKS[name](args.quick)
        if args.peers and name in WITH_PEERS:
            WITH_PEERS[name](args.quick, args.formats or tuple(match_recognize_peers.FORMATS))
        print(f"# bench {name}: {time.perf_counter() - started:.0f} s wall\n", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
