"""``kleene prove``: Z3 proofs about a pattern and its automaton
(docs/architecture.md, "Proofs (Z3)")."""

from __future__ import annotations

import argparse
import ctypes
import functools
import json
import sys
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import TextIO, cast

import z3

from kleene.cli.common import Commands, _time_unit, non_negative, pattern_text, positive_number
from kleene.cli.watchdog import PERIOD, limits
from kleene.data.loaders import FORMATS, load_events
from kleene.proofs.nfa.equivalence import BOUND as NFA_BOUND
from kleene.proofs.reports import AUTOMATON_ONLY, ProofOptions, ProofReport
from kleene.proofs.results import Check, CounterExample
from kleene.proofs.schema import SORTS
from kleene.proofs.ses.witnesses import BOUND
from kleene.proofs.srt.satisfiability import BOUND as SREMO_BOUND
from kleene.reference.languages import LANGUAGES, Language, detect_language, hook, language_named
from kleene.reference.query import Query

#: The whole run's time limit in seconds (``--time-limit``).
DEFAULT_TIME_LIMIT = 300.0

NAME = "prove"
HELP = "prove properties of a pattern and its automaton with Z3"
DESCRIPTION = f"""\
Check, with Z3, the pattern in PATTERN and its automaton. For an SES pattern and
its SES automaton (seed 000 Sec. 4):
dead variables, satisfiability on streams of at most --bound events, pairwise
mutual exclusivity (seed 000 Def. 6) and whether the automaton ever branches
(Lemma 1), a witness stream for every transition (or a proof that it is dead),
soundness of the necessary match conditions (seed 001 Thm 2) and bounded
equivalence of the automaton and the reference under `next`. Each line gives a
status (ok, problem, info, unknown), the claim and its verdict; a
counterexample or witness follows as JSON rows, one event per line.

For an operator pattern (seed 003): dead variables and dead OR branches, bounded
equivalence of every NFA engine that claims it (eager, chains, Multi-Chain, Tree)
with the reference on every stream of at most --bound events (at least 5), and
witness streams driving each engine's transitions (coverage: the eager NFA's
along matches, the lazy ones' from their run traces); aggregates are encoded
over at most 5 events. For a SREMO (seed 004): an empty language, dead choice
branches, register reads no path has written, dead transitions of its SRT, the
clocks of a time window against its definition, the DSRT's minterms (disjoint
and exhaustive), srt = dsrt and the complement (Alg. 8, with register copies
where the body writes then reads) on strings up to the count window; for a time
window or a register read after its write, the DSRT with marks the dsrt engine
runs (srt = dsrt with the same marks, and its complement) on strings of at most
--bound elements with symbolic timestamps. For any
other language, the automaton of the fastest engine that claims it is checked
through its transitions: guards no event can satisfy (dead
transitions) and pairs of transitions one event enables together. Transitions
are named as `kleene draw` labels them.

Results hold for streams of the printed schema. Attribute sorts ({', '.join(SORTS)})
come from --sort, else from --events (the first {10_000:,} rows), else from the
constants the pattern compares with; attributes may be missing unless the events
show them everywhere or --no-missing is given. Timestamps are numbers in --time-unit,
else in the unit of the pattern's window (the finest, if several) as real numbers
(so every finer unit is covered): WITHIN 1 hour is τ = 1 of real hours, or τ = 3600
of integer seconds with --time-unit s.

The whole run stops after --time-limit seconds (default {DEFAULT_TIME_LIMIT:g}; --timeout
bounds each Z3 query): the checks decided so far are printed, then one line.

Exit codes: 0 no problem found, 1 some check found a problem, 2 a user mistake or
the time limit."""

#: Every language's report: its sections, and the automaton's generic checks.
def _reports() -> dict[str, ProofReport]:
    return {name: _report_of(LANGUAGES[name]) for name in LANGUAGES}


def _report_of(lang: Language) -> ProofReport:
    found = hook(lang, "prove")
    return cast(ProofReport, found) if found is not None else AUTOMATON_ONLY


#: How many rows of --events are read to infer the schema.
SCHEMA_ROWS = 10_000


def add_parser(commands: Commands) -> argparse.ArgumentParser:
    """Declare ``kleene prove`` and its options."""
    parser = commands.add_parser(NAME, help=HELP, description=DESCRIPTION,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pattern", metavar="PATTERN",
                        help="a pattern file, or the pattern text itself")
    parser.add_argument("--language", metavar="NAME",
                        help="the pattern language (default: recognised from the text)")
    parser.add_argument("--events", metavar="FILE", help="events whose attributes give the sorts")
    parser.add_argument("--events-format", choices=FORMATS, metavar="FORMAT",
                        help=f"one of {', '.join(FORMATS)} (default: from the extension)")
    parser.add_argument("--ts", metavar="FIELD", help="the timestamp field of --events")
    parser.add_argument("--sort", action="append", default=[], metavar="ATTR=SORT",
                        type=_sort, help="declare an attribute's sort (repeatable)")
    parser.add_argument("--time-unit", metavar="UNIT", type=_time_unit,
                        help="the unit of the timestamps: ms, s, min, h or d (default: the "
                             "unit of the pattern's window)")
    parser.add_argument("--no-missing", action="store_true",
                        help="symbolic events have every attribute (none is missing)")
    parser.add_argument("--bound", type=non_negative, default=None, metavar="K",
                        help=f"the most events a symbolic stream has (default {BOUND} for "
                             f"SES, {NFA_BOUND} for operator patterns, the count window or "
                             f"{SREMO_BOUND} for SREMO; equivalence uses at least 5)")
    parser.add_argument("--timeout", type=non_negative, default=10, metavar="SECONDS",
                        help="Z3's time limit per query (default 10)")
    parser.add_argument("--time-limit", type=positive_number, default=DEFAULT_TIME_LIMIT,
                        metavar="SECONDS",
                        help=f"the whole run's time limit (default {DEFAULT_TIME_LIMIT:g}): "
                             "past it, one line and exit 2")
    reports = _reports()
    every = tuple(dict.fromkeys(x for r in reports.values() for x in r.sections))
    parser.add_argument("--check", action="append", choices=every, metavar="SECTION",
                        help="run only these sections (repeatable): "
                             + "; ".join(f"{lang}: {', '.join(r.sections)}"
                                         for lang, r in reports.items()))
    return parser


def _sort(text: str) -> tuple[str, str]:
    attr, eq, sort = text.partition("=")
    if not eq or not attr or sort not in SORTS:
        raise argparse.ArgumentTypeError(f"expected ATTR=SORT with SORT one of "
                                         f"{', '.join(SORTS)}, got {text!r}")
    return attr, sort


def run(args: argparse.Namespace) -> int:
    """Parse, build the schema, run the checks, print each as it is decided."""
    text, source = pattern_text(args.pattern)
    lang = language_named(args.language) if args.language else detect_language(text, source)
    report = _report_of(lang)
    query = Query.parse(text, language=lang.name, source=source,
                        time_unit=args.time_unit if report is AUTOMATON_ONLY else None)
    wanted = report.wanted(args.check)
    print(f"pattern {args.pattern}; language {lang.name}")
    events = None
    if args.events:
        events = functools.partial(load_events, args.events, format=args.events_format,
                                   ts=args.ts, limit=SCHEMA_ROWS)
    options = ProofOptions(sorts=list(args.sort), events=events, time_unit=args.time_unit,
                           no_missing=args.no_missing, bound=args.bound,
                           timeout=args.timeout)
    with limits(args.time_limit, None, f"proving {args.pattern}"), \
            _z3_interrupted(args.time_limit):
        try:
            return _report(args, report.run(query, options, wanted))
        except ctypes.ArgumentError as err:
            # the watchdog's interruption, raised while ctypes converted an argument of a
            # Z3 call, comes wrapped: unwrap it for ``limits``
            if "KeyboardInterrupt" in str(err):
                raise KeyboardInterrupt from err
            raise


@contextmanager
def _z3_interrupted(seconds: float | None) -> Iterator[None]:
    """Past ``seconds``, interrupt Z3's query in progress (and any later one) every
    :data:`~kleene.cli.watchdog.PERIOD`: Python's interruption (``limits``) waits for
    the query to return, which takes up to ``--timeout``."""
    if seconds is None:
        yield
        return
    done = threading.Event()

    def watch() -> None:
        if done.wait(seconds):
            return
        while not done.wait(PERIOD):
            z3.main_ctx().interrupt()

    threading.Thread(target=watch, name="kleene-z3-limit", daemon=True).start()
    try:
        z3.main_ctx()   # made here, not first in the watcher's thread
        yield
    finally:
        done.set()


def _report(args: argparse.Namespace, found: Iterable[Check]) -> int:
    """Print each check as it is decided, then the counts; 1 if any is a problem."""
    out = sys.stdout
    counts: dict[str, int] = {}
    section = None
    for check in found:
        if check.section != section:
            section = check.section
            print(f"\n{section}", file=out)
        _print(check, out)
        out.flush()
        counts[check.status] = counts.get(check.status, 0) + 1
    print("\n" + ", ".join(f"{counts.get(s, 0)} {s}" for s in ("ok", "problem", "info",
                                                                 "unknown")), file=out)
    return 1 if counts.get("problem") else 0


def _print(check: Check, out: TextIO) -> None:
    """One verdict in plain words; an example of one event on the same line."""
    r = check.result
    sentence = check.sentence
    if isinstance(r, CounterExample) and r.match is None and len(r.rows()) <= 1:
        sentence = sentence.removesuffix(", for example:") + (
            f", for example {json.dumps(r.rows()[0])}" if r.rows() else "")
    print(f"  {check.status:<8} {sentence}", file=out)
    if isinstance(r, CounterExample) and sentence.endswith(":"):
        if r.match is not None:
            print(f"           match {r.match.dumps()}", file=out)
        for row in r.rows():
            print("           " + json.dumps(row, sort_keys=False), file=out)
