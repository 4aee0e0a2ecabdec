"""``kleene demo`` (what ``make demo`` runs): the papers' worked examples, then the stock stream.

Part 1 runs every test of ``conformance/cases/*.json`` (format:
``conformance/CASES.md``) through the reference and prints, for each, the
pattern, the policy, the matches found (as the papers' event names ``e1..``
and as 0-based positions) and whether they equal the expected ones. Part 2
loads the stock stream, reports its size and load speed, and runs one small
SES pattern over a prefix of it. Exit code 0 when every test agrees, 1
otherwise.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

import kleene
from kleene.cli.common import (
    add_budget_option,
    canonical_order,
    make_budget,
    non_negative,
    paper_notation,
    plural,
)
from kleene.conformance.cases import (
    Case,
    CaseFailure,
    CaseTest,
    UnsupportedCheck,
    checker_for,
    computed_matches,
    load_case_files,
)
from kleene.reference.errors import KleeneError
from kleene.reference.events import Event, Stream
from kleene.reference.languages import LANGUAGES, Language
from kleene.reference.loaders import load_events
from kleene.reference.match import Match, matches_from_json

NAME = "demo"
HELP = "run the papers' worked examples and a pattern on the stock stream"

DESCRIPTION = """\
Part 1 runs every test of the conformance case files through the reference
and prints, for each, the pattern, the policy, the matches found (as the
papers' event names e1.. and as 0-based positions) and whether they equal the
expected ones. Part 2 loads the stock stream, reports its size and load speed,
and runs one small SES pattern over a prefix of it. Exit code 0 when every
test agrees, 1 otherwise."""

#: The stock stream, relative to the repository root (or ``$KLEENE_DATA``).
STOCK_FILE = "stocks.stream.gz"

#: The stock pattern: three stocks traded within half a second, in any order.
STOCK_PATTERN = ("PATTERN <{a, b, c}>\n"
                 "WHERE a.name = 'INTC' AND b.name = 'MSFT' AND c.name = 'CSCO'\n"
                 "WITHIN 500 ms\n")

#: How many matches of one test the demo prints before "... and N more".
SHOWN = 8

AGREE, CROSS, LISTED = "✓", "✗", "–"


@dataclass
class Tally:
    """How the tests went."""

    agree: int = 0
    disagree: int = 0
    listed: dict[str, str] = field(default_factory=dict)  # check kind -> why not run
    listed_tests: int = 0
    skipped: dict[str, int] = field(default_factory=dict)


def add_parser(commands: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Declare ``kleene demo`` and its options."""
    parser = commands.add_parser(NAME, help=HELP, description=DESCRIPTION,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", metavar="DIR", type=Path, default=None,
                        help="the folder of case files (default: the suite's "
                             "conformance/cases)")
    parser.add_argument("--data", metavar="FILE", type=Path, default=None,
                        help=f"the stock stream (default: $KLEENE_DATA, else "
                             f"../shared/data/{STOCK_FILE} beside the repository)")
    parser.add_argument("--prefix", type=non_negative, default=2000, metavar="N",
                        help="run the stock pattern over the first N events (default: 2000)")
    add_budget_option(parser)
    return parser


def default_data() -> Path:
    """``$KLEENE_DATA`` (a file, or a folder holding :data:`STOCK_FILE`), else the shared data."""
    env = os.environ.get("KLEENE_DATA")
    if env:
        path = Path(env)
        return path / STOCK_FILE if path.is_dir() else path
    return Path(kleene.__file__).resolve().parent.parent / "shared" / "data" / STOCK_FILE


def run(args: argparse.Namespace) -> int:
    """Print both parts and a summary; 0 when every test agrees."""
    out = sys.stdout
    tally = Tally()
    print("Kleene demo: the worked examples of the papers, run by the reference semantics",
          file=out)
    print("(positions are 0-based; the papers' e1 is position 0)\n", file=out)
    try:
        files = load_case_files(args.cases)
    except (KleeneError, OSError) as err:
        tally.disagree += 1
        print(f"{CROSS} cannot load the case files: {err}\n", file=out)
        files = []
    for f in files:
        print(f"━━ {f.name}: {f.description}", file=out)
        for case in f.cases:
            _print_case(case, out)
            for test in case.tests:
                _run_test(case, test, args.budget, tally, out)
            print(file=out)
    stock_section(args.data or default_data(), args.prefix, args.budget, out)
    _summary(tally, out)
    return 0 if tally.disagree == 0 else 1


def _source(case: Case) -> str:
    return f"{case.file}: {case.description}"


def _print_case(case: Case, out: TextIO) -> None:
    cites = "; ".join(f"seed {seed} {section}" for seed, section in case.specification)
    print(f"  {case.description}  [{cites}]", file=out)
    text = case.pattern
    language = LANGUAGES.get(case.language)
    if language is not None:
        with contextlib.suppress(KleeneError):  # a parse error is reported by each test
            text = language.format(language.parse(case.pattern, _source(case)))
    for line in text.strip().splitlines():
        print(f"      {line}", file=out)


def _run_test(case: Case, test: CaseTest, budget: int, tally: Tally, out: TextIO) -> None:
    head = f"{test.policy} — {test.description}"
    if test.check != "matches":
        _run_check(case, test, tally, out)
        return
    language = LANGUAGES.get(case.language)
    if language is None:
        tally.skipped[case.language] = tally.skipped.get(case.language, 0) + 1
        print(f"    {LISTED} {head} (skipped: no reference for {case.language!r} yet)",
              file=out)
        return
    try:
        order: tuple[str, ...] = ()
        implementation = None
        if language is not None:
            order = language.variables(language.parse(case.pattern, _source(case)))
            implementation = _budgeted(language, _source(case), budget)
        found = computed_matches(case, test, implementation)
    except KleeneError as err:
        tally.disagree += 1
        print(f"    {CROSS} {head}\n        error: {err}", file=out)
        return
    expected = matches_from_json(test.matches or ())
    ok = found == expected
    tally.agree += ok
    tally.disagree += not ok
    print(f"    {AGREE if ok else CROSS} {head} ({plural(len(found), 'match')} on "
          f"{plural(len(case.events_of(test)), 'event')})", file=out)
    _print_matches(found if ok else found & expected, order, out)
    if not ok:
        _print_matches(expected - found, order, out, "missing")
        _print_matches(found - expected, order, out, "extra")
    for anchor in test.errata:
        print(f"        (the paper's own list differs: {anchor})", file=out)


def _budgeted(language: Language, source: str,
              budget: int) -> Callable[[str, Stream, str], set[Match]]:
    """The language's reference as a conformance ``Reference``, with a fresh budget."""
    return lambda text, s, policy: language.run(text, source, s, policy, make_budget(budget))


def _run_check(case: Case, test: CaseTest, tally: Tally, out: TextIO) -> None:
    """A test of a pruning definition: run when its checker is wired, else listed."""
    head = f"check {test.check} — {test.description}"
    try:
        checker = checker_for(test.check)
    except UnsupportedCheck as err:
        tally.listed_tests += 1
        tally.listed[test.check] = str(err.args[0])
        print(f"    {LISTED} {head} (listed, not run)", file=out)
        return
    try:
        checker(case, test)
    except (CaseFailure, KleeneError) as err:
        tally.disagree += 1
        print(f"    {CROSS} {head}", file=out)
        for line in str(err).splitlines():
            print(f"        {line}", file=out)
        return
    tally.agree += 1
    print(f"    {AGREE} {head}", file=out)


def _print_matches(found: set[Match], order: tuple[str, ...], out: TextIO,
                   label: str = "") -> None:
    ordered = canonical_order(found)
    for m in ordered[:SHOWN]:
        prefix = f"{label}: " if label else ""
        print(f"        {prefix}{paper_notation(m, order):<36} {m.dumps()}", file=out)
    if len(ordered) > SHOWN:
        print(f"        ... and {len(ordered) - SHOWN:,} more", file=out)


def stock_section(path: Path, prefix: int, budget: int, out: TextIO) -> None:
    """Load the stock stream, report its speed, run :data:`STOCK_PATTERN` on a prefix."""
    print(f"━━ the stock stream: {path}", file=out)
    if not path.is_file():
        print("  (not found: set KLEENE_DATA to the file or its folder, or pass --data; "
              "skipping this part)\n", file=out)
        return
    start = time.perf_counter()
    try:
        s = load_events(path, format="stock")
    except KleeneError as err:
        print(f"  cannot load it: {err}\n", file=out)
        return
    seconds = time.perf_counter() - start
    head = Stream(s.events[:prefix], s.time_unit)
    if not len(head):
        print(f"  {plural(len(s), 'event')} loaded; no prefix to run a pattern on\n", file=out)
        return
    print(f"  {plural(len(s), 'event')} loaded in {seconds:.1f} s "
          f"({len(s) / max(seconds, 1e-9):,.0f} events/s); ts in ms since midnight, "
          f"{clock(s[0].ts)} to {clock(s[-1].ts)}", file=out)
    print(f"  over the first {plural(len(head), 'event')} ({clock(head[0].ts)} to "
          f"{clock(head[-1].ts)}), policy any:", file=out)
    for line in STOCK_PATTERN.strip().splitlines():
        print(f"      {line}", file=out)
    language = LANGUAGES["ses"]
    start = time.perf_counter()
    try:
        found = language.run(STOCK_PATTERN, "<stock pattern>", head, "any", make_budget(budget))
    except KleeneError as err:  # the budget, when the prefix is too long for the reference
        print(f"  stopped: {err}\n", file=out)
        return
    seconds = time.perf_counter() - start
    print(f"  {plural(len(found), 'match')} in {seconds:.1f} s", end="", file=out)
    if found:
        first = canonical_order(found)[0]
        events = ", ".join(f"{v}={_tick(head[p])}" for v in first.variables for p in first[v])
        print(f"; the first: {events}", end="", file=out)
    print("\n", file=out)


def clock(ms: int | float) -> str:
    """Milliseconds since midnight as ``HH:MM:SS.mmm``."""
    seconds, millis = divmod(int(ms), 1000)
    return f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}.{millis:03d}"


def _tick(e: Event) -> str:
    return f"{e.type} {e.value('name')}@{clock(e.ts)}"


def _summary(tally: Tally, out: TextIO) -> None:
    parts = [f"{tally.agree} agree", f"{tally.disagree} disagree"]
    if tally.listed_tests:
        parts.append(f"{tally.listed_tests} listed checks not run")
    parts += [f"{n} skipped ({lang}: no reference yet)" for lang, n in tally.skipped.items()]
    verdict = "everything agrees" if tally.disagree == 0 else "DISAGREEMENTS above"
    print(f"Summary: {', '.join(parts)}: {verdict}.", file=out)
    for why in tally.listed.values():
        print(f"  not run: {why}", file=out)
