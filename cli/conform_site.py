"""``kleene conform --report-site DIR``: the compliance report across implementations.

Runs every backend of :func:`kleene.conformance.site.catalogue` (or those
``--site-backend`` names) over the same case files (``--cases``, ``--case``,
``--generated``, ``--timeout`` as for one backend), prints one line per backend, and
writes the static site (:mod:`kleene.conformance.site`). Exit code 0 once the site is
written, whatever the backends' verdicts (the site reports them); 2 for a user mistake.
"""

from __future__ import annotations

import argparse
import datetime as dt
import shlex
import sys
import time
from pathlib import Path
from typing import TextIO

from kleene import __version__
from kleene.conformance.cases import CaseError, load_case_files
from kleene.conformance.site import check_target, chosen, needs, run_all, write_site
from kleene.conformance.site_pages import Column, tally
from kleene.conformance.site_records import record_files, record_needs
from kleene.conformance.versioning import corpus_version
from kleene.reference.errors import KleeneError, Unsupported

#: The options of one backend's run that a site, which runs many, does not take.
_ALONE = ("backend", "junit", "report", "export", "check_protocol", "spark", "master",
          "reading", "engine", "json", "expected_failures", "languages", "features", "seed")


def run_site(args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    """The site run (see the module docstring)."""
    if args.report_site is None:
        raise Unsupported("--site-backend chooses the backends of --report-site DIR")
    given = [f"--{name.replace('_', '-')}" for name in _ALONE if getattr(args, name, None)]
    if getattr(args, "sqllogictest", None) is not None:
        given.append("--sqllogictest")
    if given:
        raise Unsupported(f"--report-site runs many backends and writes its own pages; "
                          f"{given[0]} belongs to a run of one backend")
    if args.generated < 0:
        raise KleeneError("--generated takes a number of cases, 0 or more")
    if args.cases is not None and not args.cases.is_dir():
        raise CaseError(f"--cases {args.cases}: no such folder")
    directory: Path = args.report_site
    check_target(directory, args.cases)
    files = load_case_files(args.cases)
    records = record_needs(args.select)
    test_needs = needs(files) | records
    if args.select and not args.generated and not any(args.select in i for i in test_needs):
        raise KleeneError(f"--case {args.select!r} is in no test id of the case files "
                          "(an id is FILE/CASE/TEST, as the run prints them)")
    columns = chosen(args.site_backend)
    start = time.perf_counter()

    def started(column: Column) -> None:
        if not args.quiet:
            print(f"running {column.label} ({column.kind}) ...", file=out, flush=True)

    def finished(column: Column) -> None:
        if column.report is None:
            print(f"{column.label}: {column.absent}", file=out, flush=True)
            return
        t = tally(column.report.results)
        print(f"{column.label}: {t.passed} passed, {t.failed} failed, {t.skipped} skipped "
              f"({column.report.seconds:.1f} s)", file=out, flush=True)

    ran = run_all(columns, files, timeout=args.timeout, generated=args.generated,
                  select=args.select, max_answer=args.max_answer, records=records,
                  started=started, finished=finished)
    seconds = time.perf_counter() - start
    command = " ".join(["kleene conform --report-site", shlex.quote(str(directory)),
                        *_selection(args)])
    about = [f"Kleene {__version__}, written {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} "
             f"UTC in {seconds:.0f} s by: {command}",
             f"case files: {args.cases or 'the packaged conformance/cases'}"
             + ("" if args.cases else f" (case corpus {corpus_version()}, "
                "conformance/CHANGELOG.md)")
             + (f"; tests whose id contains {args.select!r}" if args.select else "")
             + (f"; {args.generated} generated queries per language" if args.generated
                else ""),
             f"MATCH_RECOGNIZE: {len(records)} records of Kleene's hand-computed "
             f"sqllogictest file ({', '.join(p.name for p in record_files())}; "
             "kleene conform --sqllogictest)"]
    written = write_site(directory, ran, test_needs, about)
    print(f"report site: {directory / 'index.html'} ({len(written)} files, "
          f"{sum(c.report is not None for c in ran)} of {len(ran)} backends ran, "
          f"{seconds:.0f} s)", file=out)
    return 0


def _selection(args: argparse.Namespace) -> list[str]:
    """The options that chose the tests and the backends, as a command line writes them."""
    words = []
    for option, value in (("--cases", args.cases), ("--case", args.select),
                          ("--generated", args.generated or None)):
        if value is not None:
            words += [option, shlex.quote(str(value))]
    for name in args.site_backend or ():
        words += ["--site-backend", shlex.quote(name)]
    return words
