"""``kleene prove``: Z3 proofs about a pattern and its automaton
(docs/architecture.md, "Proofs (Z3)")."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from typing import TextIO, TypedDict, cast

from kleene.cli.common import Commands, _time_unit, non_negative
from kleene.cli.draw import pattern_text
from kleene.data.loaders import FORMATS, load_events
from kleene.engines.protocol import Query
from kleene.engines.registry import engine, fastest_engine
from kleene.engines.srt.compile import compile_sremo
from kleene.proofs.automata import checks
from kleene.proofs.nfa.classes import schema_of as operator_schema
from kleene.proofs.nfa.equivalence import BOUND as NFA_BOUND
from kleene.proofs.nfa.report import SECTIONS as OPERATOR_SECTIONS
from kleene.proofs.nfa.report import prove as prove_operator
from kleene.proofs.results import Check, CounterExample
from kleene.proofs.schema import (
    SORTS,
    attributes,
    in_timestamp_units,
    schema_for,
    timestamp_unit,
)
from kleene.proofs.ses.report import SECTIONS, prove
from kleene.proofs.ses.witnesses import BOUND
from kleene.proofs.srt.clocks import in_units, time_windows
from kleene.proofs.srt.report import SECTIONS as SREMO_SECTIONS
from kleene.proofs.srt.report import bound_for
from kleene.proofs.srt.report import prove as prove_sremo
from kleene.proofs.srt.satisfiability import BOUND as SREMO_BOUND
from kleene.proofs.srt.symbolic import schema_of as sremo_schema
from kleene.reference.durations import Duration
from kleene.reference.errors import PatternError
from kleene.reference.events import Stream
from kleene.reference.languages import detect_language, language_named
from kleene.reference.operators.pattern import OperatorPattern
from kleene.reference.ses.text import parse_ses
from kleene.reference.sremo.expressions import Expr
from kleene.reference.sremo.features import EXPRESSION_TYPES

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
where the body writes then reads) on strings up to the count window. For any
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

Exit codes: 0 no problem found, 1 some check found a problem, 2 a user mistake."""

#: The section of the language-neutral checks of the fastest engine's automaton.
AUTOMATON = "automaton"
#: The sections of each language's report.
LANGUAGE_SECTIONS = {"ses": SECTIONS, "operator": (*OPERATOR_SECTIONS, AUTOMATON),
                     "sremo": (*SREMO_SECTIONS, AUTOMATON)}
ALL_SECTIONS = tuple(dict.fromkeys(x for names in LANGUAGE_SECTIONS.values() for x in names))

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
    parser.add_argument("--check", action="append", choices=ALL_SECTIONS, metavar="SECTION",
                        help="run only these sections (repeatable): "
                             + "; ".join(f"{lang}: {', '.join(names)}"
                                         for lang, names in LANGUAGE_SECTIONS.items()))
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
    if lang.name in REPORTS:
        query = Query.parse(text, language=lang.name, source=source)
        report, sections = REPORTS[lang.name]
        wanted = _wanted(args, sections)
        print(f"pattern {args.pattern}; language {lang.name}")
        return _report(args, report(query, args, wanted))
    if lang.name != "ses":   # no proofs of its own: the automaton's guards
        return _report(args, _automaton_checks(args, Query.parse(
            text, language=lang.name, time_unit=args.time_unit, source=source)))
    pattern = parse_ses(text, source)
    pattern = replace(pattern, window=_unit_less(args, [pattern.window])[0])
    args.bound = BOUND if args.bound is None else args.bound
    wanted = _wanted(args, SECTIONS)
    stream = None
    if args.events:
        stream = load_events(args.events, format=args.events_format, ts=args.ts,
                             limit=SCHEMA_ROWS)
    names = attributes(pattern.conditions) | {"ts"}
    schema = schema_for(pattern.conditions, pattern.window, declared=dict(args.sort),
                        stream=stream, required=names if args.no_missing else ())
    if args.bound < 1:
        raise PatternError("--bound must be at least 1")
    print(f"pattern {args.pattern}; schema {schema}{_unit(args)}; bound {args.bound}")
    return _report(args, prove(pattern, schema=schema, bound=args.bound,
                               sections=wanted,
                               timeout_ms=1000 * args.timeout))


def _unit_less(args: argparse.Namespace, windows: Sequence[Duration]) -> list[Duration]:
    """``windows`` in timestamp units (:func:`~kleene.proofs.schema.timestamp_unit`); the
    unit chosen is kept in ``args.time_unit`` for the header. A unit taken from the
    window makes ``ts`` real unless declared (every finer unit is a fraction of it:
    integer hours would forbid three increasing timestamps in WITHIN 1 hour)."""
    if args.time_unit is None and any(w.unit for w in windows) and not any(
            a == "ts" for a, _ in args.sort):
        args.sort.append(("ts", "real"))
    args.time_unit = timestamp_unit(windows, args.time_unit)
    return [in_timestamp_units(w, args.time_unit) for w in windows]


def _unit(args: argparse.Namespace) -> str:
    """The header's note of the timestamps' unit, if any."""
    return f"; ts in {args.time_unit}" if args.time_unit else ""


class SchemaSources(TypedDict):
    """Where a schema's sorts come from (``schema_of``'s keyword arguments)."""

    declared: dict[str, str]
    stream: Stream | None
    required: tuple[str, ...]


def _schema_options(args: argparse.Namespace, names: Iterable[str]) -> SchemaSources:
    """The schema's sources the options name: --sort, --events, --no-missing."""
    stream = (load_events(args.events, format=args.events_format, ts=args.ts,
                          limit=SCHEMA_ROWS) if args.events else None)
    return {"declared": dict(args.sort), "stream": stream,
            "required": tuple(names) if args.no_missing else ()}


def _operator(query: Query, args: argparse.Namespace, wanted: Sequence[str]
              ) -> Iterator[Check]:
    pattern = query.pattern
    assert isinstance(pattern, OperatorPattern)
    if pattern.window is not None:
        pattern = replace(pattern, window=_unit_less(args, [pattern.window])[0])
        query = replace(query, pattern=pattern)
    schema = operator_schema(pattern, **_schema_options(
        args, attributes(pattern.conditions) | {"ts"}))
    bound = NFA_BOUND if args.bound is None else args.bound
    print(f"schema {schema}{_unit(args)}; bound {bound}")
    yield from prove_operator(pattern, schema=schema, bound=bound, sections=wanted,
                              timeout_ms=1000 * args.timeout)
    if AUTOMATON in wanted:
        yield from _automaton_checks(args, query)


def _sremo(query: Query, args: argparse.Namespace, wanted: Sequence[str]
           ) -> Iterator[Check]:
    assert isinstance(query.pattern, EXPRESSION_TYPES)
    e = cast(Expr, query.pattern)
    _unit_less(args, time_windows(e))
    e = in_units(e, args.time_unit)
    query = replace(query, pattern=e)
    a = compile_sremo(e)
    guards = [c for e in a.edges for c in (e.guard, *e.unless)]
    schema = sremo_schema(a, **_schema_options(args, attributes(guards) | {"ts"}))
    bound = SREMO_BOUND if args.bound is None else args.bound
    print(f"schema {schema}{_unit(args)}; bound {bound_for(e, bound)}")
    yield from prove_sremo(e, schema=schema, bound=bound, sections=wanted,
                           timeout_ms=1000 * args.timeout)
    if AUTOMATON in wanted:
        yield from _automaton_checks(args, query)


def _wanted(args: argparse.Namespace, sections: Sequence[str]) -> Sequence[str]:
    if not args.check:   # the automaton's generic checks only when asked for
        return [x for x in sections if x != AUTOMATON]
    unknown = [c for c in args.check if c not in sections]
    if unknown:
        raise PatternError(f"no section {', '.join(unknown)} for this language; choose from "
                           f"{', '.join(sections)}")
    return args.check


#: The languages with proofs of their own, each with its report and sections.
REPORTS: dict[str, tuple[Callable[[Query, argparse.Namespace, Sequence[str]],
                               Iterator[Check]], Sequence[str]]] = {
    "operator": (_operator, (*OPERATOR_SECTIONS, AUTOMATON)),
    "sremo": (_sremo, (*SREMO_SECTIONS, AUTOMATON)),
    "wayeb": (_sremo, (*SREMO_SECTIONS, AUTOMATON)),   # a Wayeb query is a SREMO
}


def _automaton_checks(args: argparse.Namespace, query: Query) -> Iterator[Check]:
    """The language-neutral checks of the automaton of the engine that runs ``query``."""
    choice = fastest_engine(query)
    if choice is None:
        raise PatternError(f"kleene prove checks an automaton, and no registered engine "
                           f"compiles {query.lang.title} yet")
    compiled = engine(choice.name).compile(query)
    guards = [t.guard for t in compiled.iter_transitions()]
    stream = (load_events(args.events, format=args.events_format, ts=args.ts,
                          limit=SCHEMA_ROWS) if args.events else None)
    schema = schema_for(guards, declared=dict(args.sort), stream=stream)
    print(f"pattern {args.pattern}; engine {choice.name}; schema {schema}")
    return checks(compiled, schema=schema, timeout_ms=1000 * args.timeout)


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
