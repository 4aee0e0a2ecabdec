"""``kleene conform``: every conformance case of every language against one backend."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from kleene.cli.common import Commands, positive_count, positive_number
from kleene.cli.conform_product import (
    STDOUT,
    add_product_options,
    before_summary,
    given,
    product_of,
    rerun_command,
    write_results,
)
from kleene.conformance.backends import DEFAULT_TIMEOUT, ENV, find_backend
from kleene.conformance.cases import (
    CaseError,
    case_directory,
    case_id,
    iter_tests,
    load_case_files,
)
from kleene.conformance.command import DEFAULT_MAX_ANSWER
from kleene.conformance.generated import conform
from kleene.conformance.outcome import Backend, UnknownBackend
from kleene.conformance.report import header, line, summary, write_html, write_junit
from kleene.conformance.runner import FAIL, PASS, Result, new_report
from kleene.conformance.versioning import corpus_version
from kleene.data.outputs import OutputError, check_writable, refuse_inputs
from kleene.engines.registry import engine_names
from kleene.reference.errors import KleeneError, Unsupported

NAME = "conform"
HELP = "run the conformance cases against a backend (an engine or an external command)"
DESCRIPTION = f"""\
Run every case file of every language (conformance/cases/*.json) against one
backend and compare its matches, as sets, with the cases' expectations. A case
needing a feature the backend does not claim is skipped and the reason names the
features; each failure prints a copy-paste reproduction (pattern, events,
missing and extra matches, the run message to send the backend).

BACKEND is a registered engine (ses-automaton, windows+ses), an entry point of
the group kleene.engines, a Python module:factory, or cmd:COMMAND ARGS for an
external backend speaking the JSON-lines protocol of docs/backends.md
(e.g. cmd:node conformance/examples/minimal_backend.js); default ${ENV}.

With --sqllogictest PATH... it runs sqllogictest files instead (DuckDB's
MATCH_RECOGNIZE tests when no PATH is given): every MATCH_RECOGNIZE by Kleene's
reference (or --engine NAME, or --backend BACKEND: each recognition sent over the
protocol with its source as a table), all other SQL by DuckDB, and prints a table
per file and per construct and every failure with its FILE:LINE and query.

Exit codes: 0 every applicable case passes, 1 some case failed (or the protocol
check found a problem), 2 a user mistake (unknown backend, ...)."""


def add_parser(commands: Commands) -> argparse.ArgumentParser:
    """Declare ``kleene conform`` and its options."""
    parser = commands.add_parser(NAME, help=HELP, description=DESCRIPTION,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backend", metavar="BACKEND",
                        help=f"the backend to test (default: ${ENV})")
    parser.add_argument("--generated", type=int, default=0, metavar="N",
                        help="add N Hypothesis-drawn queries per language, checked against "
                             "the reference and shrunk to a minimal counterexample")
    parser.add_argument("--junit", type=Path, metavar="FILE", help="write JUnit XML to FILE")
    parser.add_argument("--report", type=Path, metavar="FILE.html",
                        help="write an HTML report to FILE.html")
    parser.add_argument("--timeout", type=positive_number, default=DEFAULT_TIMEOUT,
                        metavar="SECONDS",
                        help=f"per-case time limit (default {DEFAULT_TIMEOUT:g})")
    parser.add_argument("--max-answer", type=positive_count, default=DEFAULT_MAX_ANSWER,
                        metavar="CHARS",
                        help="the longest answer line read from an external backend "
                             f"(default {DEFAULT_MAX_ANSWER:,}); a longer one is malformed")
    parser.add_argument("--case", metavar="TEXT", dest="select",
                        help="run only the tests whose id contains TEXT")
    parser.add_argument("--cases", type=Path, metavar="DIR",
                        help="the case files (default: the packaged conformance/cases)")
    parser.add_argument("--check-protocol", action="store_true",
                        help="check that an external backend speaks the protocol: every "
                             "message is shown and each malformed one is named")
    parser.add_argument("--export", type=Path, metavar="DIR",
                        help="write the corpus as plain JSON (tests.jsonl, cases/, FORMAT.md) "
                             "into DIR for backends in any language, and exit")
    parser.add_argument("--spark", action="store_true",
                        help="run the engine named by --backend on Spark, every case in one "
                             "Spark job")
    parser.add_argument("--master", metavar="URL",
                        help="the Spark master with --spark: local[*] (default), local[N] or "
                             "spark://HOST:PORT")
    parser.add_argument("--quiet", "-q", action="store_true",
                        help="print failures and the summary only, not one line per test")
    parser.add_argument("--sqllogictest", nargs="*", metavar="PATH",
                        help="run sqllogictest files instead (a file, or a folder's *.test and "
                             "*.test_slow; none: DuckDB's MATCH_RECOGNIZE tests shipped in "
                             "conformance/sqllogictest/duckdb): each MATCH_RECOGNIZE by Kleene's "
                             "reference, within --timeout seconds, all other SQL by DuckDB; "
                             "--case TEXT keeps the records whose FILE:LINE contains TEXT")
    parser.add_argument("--reading", metavar="VENDOR",
                        help="with --sqllogictest: read as VENDOR does where it parts from the "
                             "standard (duckdb: ALL ROWS PER MATCH lists the input's columns "
                             "first); the errata it adopts then explain no failure")
    parser.add_argument("--report-site", type=Path, metavar="DIR",
                        help="run every built-in engine, the example backends and the "
                             "installed peers over the cases and write a static compliance "
                             "report into DIR (index.html, a page and an SVG badge per "
                             "backend; docs/backends.md, \"A compliance report\")")
    parser.add_argument("--site-backend", action="append", metavar="NAME",
                        help="with --report-site: only this backend (a name the site lists, "
                             "or any --backend form); repeat for several")
    parser.add_argument("--engine", metavar="NAME",
                        help="with --sqllogictest: the engine that runs each MATCH_RECOGNIZE "
                             "(match-recognize; default: Kleene's reference)")
    add_product_options(parser)   # --languages --features --expected-failures --json --seed
    return parser


def run(args: argparse.Namespace) -> int:
    """Run the cases (or the protocol check); 0 when every applicable case passes."""
    out = sys.stderr if args.json == STDOUT else sys.stdout
    if args.report_site is not None or args.site_backend:
        # lazy: the site's runs and pages only with `--report-site`
        from kleene.cli.conform_site import run_site

        return run_site(args, out)
    modes = [name for name, on in (("--export", args.export),
                                   ("--check-protocol", args.check_protocol),
                                   ("--sqllogictest", args.sqllogictest is not None)) if on]
    if len(modes) > 1:
        raise Unsupported(f"{modes[0]} and {modes[1]} are two different runs: give one")
    if args.export and args.cases:
        raise Unsupported("--export writes the packaged case files; --cases DIR is not "
                          "exported (copy the folder itself)")
    other = bool(modes)
    for option, target in (("--junit", args.junit), ("--report", args.report)):
        if target is not None and other:
            raise Unsupported(f"{option} reports a run of the conformance cases; --export, "
                              "--check-protocol and --sqllogictest write no report")
    for option in given(args) if other else ():
        raise Unsupported(f"{option} is an option of a run of the conformance cases, "
                          f"not of {modes[0]}")
    if getattr(args, "export", None):
        # lazy: only `--export` writes the cases out
        from kleene.conformance.export import export

        tests, lines = export(args.export)
        print(f"exported {tests} tests ({lines} lines) to {args.export} (FORMAT.md)", file=out)
        return 0
    if args.check_protocol:
        # lazy: jsonschema's protocol checks only with `--check-protocol`
        from kleene.conformance.check_protocol import check_protocol

        spec = args.backend or os.environ.get(ENV, "")
        if not spec:
            raise UnknownBackend(f"--check-protocol needs --backend cmd:COMMAND (or ${ENV})")
        return check_protocol(spec, out, timeout=args.timeout, max_answer=args.max_answer)
    if args.sqllogictest is not None:
        # lazy: DuckDB and the SQL reference only with `--sqllogictest`
        from kleene.cli.conform_sqllogic import run_sqllogictest

        return run_sqllogictest(args.sqllogictest, out, time_limit=args.timeout,
                                select=args.select, quiet=args.quiet, engine=args.engine,
                                backend=args.backend, reading=args.reading)
    if args.reading:
        raise Unsupported("--reading names a vendor's reading of --sqllogictest")
    if args.engine:
        raise Unsupported("--engine names the MATCH_RECOGNIZE engine of --sqllogictest; "
                          "other runs take --backend")
    if args.generated < 0:
        raise KleeneError("--generated takes a number of cases, 0 or more")
    if args.master and not args.spark:
        raise Unsupported("--master needs --spark")
    sources = _check_reports(args)
    files = load_case_files(args.cases)
    if args.select and not args.generated and not any(
            args.select in case_id(case, test) for case, test in iter_tests(files)):
        raise KleeneError(f"--case {args.select!r} is in no test id of the case files "
                          "(an id is FILE/CASE/TEST, as the run prints them)")
    product = product_of(args, files, sources)
    backend = spark_backend(args) if args.spark else find_backend(
        args.backend, timeout=args.timeout, max_answer=args.max_answer)
    spec = args.backend or os.environ.get(ENV, "")
    rerun = rerun_command(spec, spark=args.spark, generated=args.generated,
                          seed=product.seed)
    print(header_of(backend), file=out)
    if not args.quiet:
        print(file=out)

    def progress(result: Result) -> None:
        if not args.quiet:
            print(line(result), file=out, flush=True)

    try:
        report = conform(backend, files, timeout=args.timeout, generated=args.generated,
                         select=product.selection, rerun=rerun, progress=progress,
                         seed=product.seed, expected=product.expected,
                         corpus_version=corpus_version(args.cases))
    finally:
        backend.close()
    failures = [r for r in report.results if r.status == FAIL]
    if failures:
        print("\n━━ failures (copy-paste reproductions)\n", file=out)
        for r in failures:
            print(r.reproduction + "\n", file=out)
    before_summary(report, out, expected_file=args.expected_failures)
    print(file=out)
    print(summary(report), file=out)
    try:   # the verdicts are printed above: a report that cannot be written loses none
        write_results(report, product, out, spec=spec)
        if args.junit:
            print(f"JUnit XML: {write_junit(report, args.junit)}", file=out)
        if args.report:
            print(f"HTML report: {write_html(report, args.report)}", file=out)
    except OutputError as err:
        raise OutputError(f"{err} (the verdicts are printed above: {report.count(PASS)} "
                          f"passed, {report.count(FAIL)} failed)") from None
    return 1 if report.failed else 0


def _check_reports(args: argparse.Namespace) -> list[str]:
    """Before any test: ``--cases`` is a folder of case files, and each report file
    (``--junit``, ``--report``) is none of them and can be written
    (:mod:`kleene.data.outputs`); the case files, read by the run."""
    if args.cases is not None and not args.cases.is_dir():
        raise CaseError(f"--cases {args.cases}: no such folder")
    folder = args.cases if args.cases is not None else case_directory()
    sources = [str(f) for f in folder.iterdir() if f.name.endswith(".json")]
    if not sources:
        raise CaseError(f"--cases {args.cases}: no case file (*.json) in it")
    for option, target in (("--junit", args.junit), ("--report", args.report)):
        if target is not None:
            refuse_inputs(str(target), sources, option=option)
            check_writable(str(target), option=option)
    return sources


def spark_backend(args: argparse.Namespace) -> Backend:
    """``--spark``: the engine ``--backend`` names, run on Spark (one job for every case,
    :class:`kleene.cli.demo_spark.SparkBackend`)."""
    # lazy: Spark only with `--spark` (`kleene --help` imports every command)
    from kleene.cli.demo_spark import SparkBackend, start
    from kleene.cli.spark_failures import spark_errors

    name = args.backend or os.environ.get(ENV, "")
    if name not in engine_names():
        raise Unsupported(f"--spark runs a registered engine ({', '.join(engine_names())}), "
                          f"not {name!r}")
    with spark_errors():
        spark, _ = start(args.master)
    return SparkBackend(spark, name)


def header_of(backend: Backend) -> str:
    """The header of a run (the backend's name, version, origin, capabilities)."""
    return header(new_report(backend))
