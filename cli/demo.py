"""``kleene demo`` (what ``make demo`` runs): the main job, for a newcomer.

Part 1 runs every test of ``conformance/cases/*.json`` (format:
``conformance/CASES.md``) through the reference and prints, for each, the
pattern, the policy, the matches found (as the papers' event names ``e1..``
and as 0-based positions) and whether they equal the expected ones
(:mod:`kleene.cli.demo_cases`). Part 2
runs every engine beside the reference (:mod:`kleene.cli.demo_engines`) on the
worked examples, on a prefix of the stock stream (against the reference) and
on the whole stream, single-process and on Spark (:mod:`kleene.cli.demo_spark`),
and prints the agreement table (engine, matches, agreement, events/s, peak
instances); ``out/report.md`` gets the table and the automaton pictures. A part that
cannot run (no Java for Spark, a ``--data`` file that is not a stock stream,
``--no-spark``) is named, with why and how to run it, in the last line and at the top of
the report; the verdict is then "everything that ran agrees", never "everything
agrees". Exit code 0 when everything that ran agrees, 1 otherwise.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TextIO

from kleene.cli import demo_engines, demo_nfa, demo_spark, demo_srt, demo_stream
from kleene.cli.common import Commands, add_budget_option, make_budget, non_negative, plural
from kleene.cli.demo_cases import CROSS, Tally, summary, worked_examples
from kleene.cli.demo_engines import Row, claiming_engines
from kleene.cli.demo_report import Skipped, print_table, verdict, write_report
from kleene.cli.progress import Reading
from kleene.conformance.cases import Case, CaseTest, load_case_files, optional_directory
from kleene.data.bundled import bundled
from kleene.data.loaders import load_events
from kleene.engines.registry import engine
from kleene.reference.errors import KleeneError
from kleene.reference.events import Event, Stream
from kleene.reference.match import Match
from kleene.reference.query import Query
from kleene.reference.ses.text import parse_ses

NAME = "demo"
HELP = "the main job: worked examples, every engine and Spark, agreement table and report"

DESCRIPTION = """\
Part 1 runs every test of the conformance case files through the reference
and prints, for each, the pattern, the policy, the matches found (as the
papers' event names e1.. and as 0-based positions) and whether they equal the
expected ones. Part 2 runs every engine beside the reference on the worked
examples and on the stock stream, single-process and on Spark, and prints the
agreement table (engine, matches, agreement, events/s, peak instances);
OUT/report.md gets the table and pictures of the compiled automata. A part that
cannot run (no Java for Spark, --no-spark, ...) is named in the last line and
in the report, with why and how to run it. Exit code 0 when everything that ran
agrees, 1 otherwise."""

#: The stock stream shipped in the package (data/datasets/SOURCE.md).
STOCK_FILE = "stocks.stream.gz"

#: The stock pattern: three stocks traded within half a second, in any order.
STOCK_PATTERN = ("PATTERN <{a, b, c}>\n"
                 "WHERE a.name = 'INTC' AND b.name = 'MSFT' AND c.name = 'CSCO'\n"
                 "WITHIN 500 ms\n")

#: Q1 of seed 000 (Example 2), drawn as Fig. 5.
Q1_PATTERN = ("PATTERN <{c, p+, d}, {b}>\n"
              "WHERE c.L = 'C' AND d.L = 'D' AND p.L = 'P' AND b.L = 'B'\n"
              "  AND c.ID = p.ID AND c.ID = d.ID AND d.ID = b.ID\n"
              "WITHIN 264 hours\n")

#: Engines run over the whole stock stream (the others run on its prefix only).
FULL_STREAM_ENGINES = ("ses-automaton", "windows+ses", "windows-f+ses", "windows-fc+ses")

#: Engines run on Spark (one per family beside the SES ones: seed 003, seed 004).
SPARK_ENGINES = ("ses-automaton", "windows+ses", "nfa-chain", "srt")

#: What the demo skips without Spark, and what Spark needs.
SPARK_PART = ("the Spark part (the worked examples and the stock stream on Spark, the "
              "continuous run)")
SPARK_NEEDS = ("a Java 17+ runtime (`make demo` installs it as root through "
               "scripts/bootstrap-system.sh; else install openjdk-17-jre-headless), or "
               "--master naming a Spark master that answers")


class DemoInputError(KleeneError):
    """A ``--cases`` folder that is missing or holds a malformed case file, or a ``--data``
    file that is not there."""

    code = "demo-input"

    def __str__(self) -> str:
        return str(self.args[0])


def add_parser(commands: Commands) -> argparse.ArgumentParser:
    """Declare ``kleene demo`` and its options."""
    parser = commands.add_parser(NAME, help=HELP, description=DESCRIPTION,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", metavar="DIR", type=Path, default=None,
                        help="the folder of case files (default: the suite's "
                             "conformance/cases)")
    parser.add_argument("--data", metavar="FILE", type=Path, default=None,
                        help=f"the stock stream (default: the one shipped with Kleene, "
                             f"data/datasets/{STOCK_FILE})")
    parser.add_argument("--prefix", type=non_negative, default=2000, metavar="N",
                        help="compare engines with the reference over the first N stock "
                             "events (default: 2000)")
    parser.add_argument("--no-spark", action="store_true",
                        help="skip the Spark part (it starts a local Spark session)")
    parser.add_argument("--no-stream", action="store_true",
                        help="skip the continuous run on Spark Structured Streaming (about a "
                             "minute: the stock stream replayed as arriving files, a restart "
                             "from the checkpoint)")
    parser.add_argument("--master", default=None, metavar="URL",
                        help="the Spark master (default: local[*])")
    parser.add_argument("--out", type=Path, default=Path("out"), metavar="DIR",
                        help="where report.md and the pictures go (default: out)")
    add_budget_option(parser)
    return parser


def run(args: argparse.Namespace) -> int:
    """The worked examples, the engines and Spark, the report; 0 when everything that ran
    agrees (the parts skipped are named)."""
    out = sys.stdout
    tally = Tally()
    if args.cases is not None:   # the user's folder: a mistake there stops at once, on one line
        if not args.cases.is_dir():
            raise DemoInputError(f"--cases {args.cases}: no such folder")
        try:
            load_case_files(args.cases)   # an empty folder is fine: no worked examples
        except (KleeneError, OSError) as err:
            raise DemoInputError("; ".join(line.strip() for line in str(err).splitlines())) \
                from None
    if args.data is not None and not args.data.is_file():   # the user's file: at once too
        raise DemoInputError(f"--data {args.data}: no such file (leave --data out for the "
                             f"stock stream shipped with Kleene)")
    print("Kleene demo: the worked examples of the papers, run by the reference semantics",
          file=out)
    print("(positions are 0-based; the papers' e1 is position 0)\n", file=out)
    try:
        files = load_case_files(args.cases)
        optional = args.cases / "optional" if args.cases else optional_directory()
        files += load_case_files(optional) if optional.is_dir() else []
        # the papers' worked examples; the generated corpus (*-generated.json, thousands
        # of tests) is run by `make test` and `kleene conform`, not printed here
        files = [f for f in files if not f.name.endswith("-generated.json")]
    except (KleeneError, OSError) as err:
        tally.disagree += 1
        print(f"{CROSS} cannot load the case files: {err}\n", file=out)
        files = []
    worked_examples(files, make_budget(args.budget).limit, tally, out)
    examples = summary(tally, out)
    cases = [(case, test) for f in files for case in f.cases for test in case.tests]
    rows, notes, skipped = engines_part(cases, args, out, tally)
    print("\n━━ the agreement table", file=out)
    print_table(rows, out)
    pictures = draw_pictures(args.out, out, skipped)
    report = write_report(args.out / "report.md", rows, examples=examples, pictures=pictures,
                          notes=notes, skipped=skipped)
    differ = sum(r.agree is False for r in rows)
    print(f"\nreport: {report}", file=out)
    print(verdict(len(rows), differ, tally.disagree, skipped), file=out)
    return 0 if tally.disagree == 0 and differ == 0 else 1


def engines_part(cases: list[tuple[Case, CaseTest]], args: argparse.Namespace,
                 out: TextIO, tally: Tally) -> tuple[list[Row], list[str], list[Skipped]]:
    """Every engine beside the reference: worked examples, the stock stream, the
    NFA engines of seed 003 (:mod:`.demo_nfa`), the seed 004 engines (:mod:`.demo_srt`, their
    disagreements counted in ``tally``), Spark; with the parts that did not run."""
    names = claiming_engines()
    print(f"\n━━ engines: {', '.join(names)}", file=out)
    rows = demo_engines.worked_examples(cases, names)
    notes = ["engines run under each policy they claim exactly (engines/protocol.py); "
             "paper-faithful variants claim none and are checked in the tests instead"]
    path = args.data or bundled(STOCK_FILE)
    s, why = _load_stock(path, out)
    skipped = [] if s is not None else [Skipped(
        "the stock stream parts (every engine, the NFA and SRT engines and Spark on it, the "
        "continuous run)", why,
        "pass --data a stock stream file Kleene reads, or leave --data out for the shipped "
        "one" if args.data else "restore data/datasets/ (git checkout -- data/datasets) or "
        "reinstall Kleene")]
    expected: set[Match] = set()
    pattern = parse_ses(STOCK_PATTERN)
    if s is not None:
        head = Stream(s.events[:args.prefix], s.time_unit)
        print(f"  reference and engines on the first {len(head):,} stock events "
              "(policies next and any) ...", file=out)
        rows += demo_engines.stock_prefix(pattern, head, names, ("next", "any"),
                                          make_budget(args.budget).limit)
        print(f"  engines on all {len(s):,} stock events (policy next) ...", file=out)
        full, expected = demo_engines.stock_full(pattern, s, FULL_STREAM_ENGINES, "next",
                                                 "ses-automaton", _progress)
        rows += full
        notes.append(f"stock pattern: {' '.join(STOCK_PATTERN.split())}")
    print(file=out)
    rows += demo_nfa.nfa_part(s, out)
    tally.disagree += demo_srt.srt_part(s, out)
    if s is not None and not demo_srt.QUERY_FILE.is_file():
        skipped.append(Skipped("the seed 004 run on the stock stream",
                               f"{demo_srt.QUERY_FILE} is missing",
                               "restore data/datasets/ (git checkout -- data/datasets) or "
                               "reinstall Kleene"))
    if args.no_spark:
        skipped.append(Skipped(SPARK_PART, "--no-spark was given", "leave out --no-spark"))
        return rows, notes, skipped
    try:
        spark, seconds = demo_spark.start(args.master)
    except KleeneError as err:
        print(f"  Spark did not start: {err}", file=out)
        skipped.append(Skipped(SPARK_PART, str(err), SPARK_NEEDS))
        return rows, notes, skipped
    print(f"  Spark ({spark.sparkContext.master}) started in {seconds:.1f} s; the worked "
          "examples and the whole stock stream on Spark ...", file=out)
    rows += demo_spark.worked_examples(spark, cases, SPARK_ENGINES)
    if s is not None:
        rows += demo_spark.stock(spark, path, pattern, SPARK_ENGINES, "next", expected, len(s))
        if args.no_stream:
            skipped.append(Skipped("the continuous run (Spark Structured Streaming)",
                                   "--no-stream was given", "leave out --no-stream"))
        else:
            print(file=out)
            tally.disagree += not demo_stream.run_stream_demo(spark, path, out)
    return rows, notes, skipped


def _load_stock(path: Path, out: TextIO) -> tuple[Stream | None, str]:
    """The stock stream, or ``None`` and why it is not there."""
    print(f"━━ the stock stream: {path}", file=out)
    if not path.is_file():
        print("  (not found: skipping the stock stream; --data names another file)", file=out)
        return None, f"{path} not found"
    start = time.perf_counter()
    try:
        s = load_events(path, format="stock")
    except KleeneError as err:
        print(f"  cannot load it: {err}", file=out)
        return None, f"{path} cannot be loaded: {err}"
    seconds = time.perf_counter() - start
    print(f"  {plural(len(s), 'event')} loaded in {seconds:.1f} s "
          f"({len(s) / max(seconds, 1e-9):,.0f} events/s); ts in ms since midnight, "
          f"{clock(s[0].ts)} to {clock(s[-1].ts)}", file=out)
    return s, ""


def _progress(name: str, total: int) -> Callable[[Iterable[Event]], Iterable[Event]]:
    """A progress bar (on stderr, when it is a terminal) over the events an engine
    reads, keeping the stream's columns (:class:`kleene.cli.progress.Reading`)."""
    def wrap(events: Iterable[Event]) -> Iterable[Event]:
        return Reading(events, f"  {name}")

    return wrap


def draw_pictures(folder: Path, out: TextIO, skipped: list[Skipped]) -> list[Path]:
    """The SES automata of Q1 (seed 000 Fig. 5) and of the stock pattern, as SVG; a
    picture not drawn is added to ``skipped``."""
    # lazy: networkx and Graphviz when the pictures are drawn, not for `kleene --help`
    from kleene.engines.drawers import write

    folder.mkdir(parents=True, exist_ok=True)
    made = []
    for name, text in (("q1-ses-automaton", Q1_PATTERN), ("stock-ses-automaton", STOCK_PATTERN)):
        try:
            compiled = engine("ses-automaton").compile(Query.parse(text, policy="next"))
            made.append(write(compiled, folder / f"{name}.svg", title=name))
        except KleeneError as err:
            print(f"  picture {name} not drawn: {err}", file=out)
            skipped.append(Skipped(f"the picture {name}", str(err),
                                   "install Graphviz (`dot`; `make demo` installs it)"))
    return made


def clock(ms: int | float) -> str:
    """Milliseconds since midnight as ``HH:MM:SS.mmm``."""
    seconds, millis = divmod(int(ms), 1000)
    return f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}.{millis:03d}"
