"""``kleene conform --sqllogictest PATH...``: sqllogictest files, every ``MATCH_RECOGNIZE``
by Kleene's reference (or an engine, ``--engine``, or a backend over the protocol,
``--backend``, :mod:`kleene.conformance.sqllogictest.backend`) and all other SQL by DuckDB
(:mod:`kleene.conformance.sqllogictest`).

Prints a table of the files (passed, failed, explained, unsupported, skipped records), one
of the constructs the ``MATCH_RECOGNIZE`` records use, then every unsupported record with
its reason, every explained record with its explanation (only their number with ``-q``;
the ``EXPLAINED.toml`` beside a file, :mod:`kleene.conformance.sqllogictest.explained`),
every stale explanation (its record passes, or there is none), every expected error whose
message differs (only their number with ``-q``), and every failure with its
``file:line``, its SQL, and the expected and the rows got. Exit code 1 when a record failed
unexplained or an explanation is stale."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

import duckdb

from kleene.conformance.backends import find_backend
from kleene.conformance.outcome import TableBackend, table_backend
from kleene.conformance.sqllogictest import DUCKDB_FILES
from kleene.conformance.sqllogictest.backend import READINGS, BackendRecognizer, Reading
from kleene.conformance.sqllogictest.explained import Stale, explain, explanations_for
from kleene.conformance.sqllogictest.reader import Query
from kleene.conformance.sqllogictest.runner import (
    STATUSES,
    FileReport,
    Outcome,
    engine_recognizer,
    feature_table,
    files_in,
    reference,
    run_file,
)
from kleene.data.sql import ArrowRecognizer, Recognize
from kleene.reference.errors import Unsupported


def run_sqllogictest(paths: Sequence[str], out: TextIO, *, time_limit: float,
                     select: str | None = None, quiet: bool = False,
                     engine: str | None = None, backend: str | None = None,
                     reading: str | None = None) -> int:
    """Run the files ``paths`` name (none: the shipped DuckDB files) and print the report,
    each recognition by ``engine`` or by the backend ``backend`` names (neither: the
    reference), in the vendor's ``reading`` if one is named (:data:`READINGS`); 1 when a
    record failed unexplained or, without a backend, an explanation is stale, else 0."""
    if engine and backend:
        raise Unsupported("--engine and --backend both name who runs each MATCH_RECOGNIZE: "
                          "give one")
    if reading is not None and reading not in READINGS:
        raise Unsupported(f"no reading {reading!r}; the readings: {', '.join(READINGS)}")
    files = files_in(paths or [DUCKDB_FILES])
    server = None if backend is None else table_backend(find_backend(backend,
                                                                     timeout=time_limit))
    try:
        return _run(files, out, time_limit, select, quiet, engine, server,
                    None if reading is None else READINGS[reading])
    finally:
        if server is not None:
            server.close()


def _run(files: Sequence[Path], out: TextIO, time_limit: float, select: str | None,
         quiet: bool, engine: str | None, server: TableBackend | None,
         reading: Reading | None) -> int:
    recognize: Recognize | ArrowRecognizer
    if server is not None:
        recognize = BackendRecognizer(server, time_limit)
        by = f"the backend {server.name} {server.version} ({server.origin})"
    elif engine is not None:
        recognize, by = engine_recognizer(engine, time_limit), f"the engine {engine}"
    else:
        recognize, by = reference(time_limit), "Kleene's reference"
    if reading is not None:
        by += f", read as {reading.name} does: {reading.says}"
        if server is None:
            recognize = reading.wrap(recognize)
    print(f"sqllogictest: MATCH_RECOGNIZE by {by} (at most {time_limit:g} s a "
          f"recognition), all other SQL by DuckDB {duckdb.__version__}", file=out)
    adopted = reading.adopts if reading is not None else frozenset()
    reports = []
    stale: list[Stale] = []
    for path in files:
        report = run_file(path, recognize)
        if select:
            report = FileReport(report.file, tuple(o for o in report.outcomes
                                                   if select in o.where), report.skipped)
        explanations = {k: e for k, e in explanations_for(path).items()
                        if e.erratum not in adopted}
        report, old = explain(report, explanations, whole=not select)
        reports.append(report)
        stale += old
        if not quiet:
            print(f"  {row(Path(report.file).name, report)}", file=out, flush=True)
    print(file=out)
    print(files_table(reports), file=out)
    features = feature_table(reports)
    if features:
        print(f"\n{'construct (MATCH_RECOGNIZE records)':<44}" +
              "".join(f"{s:>12}" for s in STATUSES[:4]), file=out)
        for name, counts in features.items():
            print(f"{name:<44}" + "".join(f"{counts[s]:>12}" for s in STATUSES[:4]), file=out)
    outcomes = [o for r in reports for o in r.outcomes]
    section(out, "unsupported", [f"{o.where}: {o.reason}" for o in outcomes
                                 if o.status == "unsupported"])
    explained = [f"{o.where}: {o.explanation}\n    Kleene: {o.reason}" for o in outcomes
                 if o.status == "explained"]
    if quiet and explained:
        print(f"\n{len(explained)} records failed as EXPLAINED.toml says (listed without -q)",
              file=out)
    else:
        section(out, "explained", explained)
    section(out, "stale explanations" if server is None else
            "explained records the backend passes (not a failure: EXPLAINED.toml is "
            "Kleene's)", [f"{s.explanation.where}: {s.reason} "
                          f"({s.explanation.category}: {s.explanation.why})" for s in stale])
    notes = [f"{o.where}: {o.note}" for o in outcomes if o.note]
    if quiet and notes:
        print(f"\n{len(notes)} expected errors came with another message (listed without -q)",
              file=out)
    else:
        section(out, "expected errors with another message", notes)
    failures = [o for o in outcomes if o.status == "failed"]
    section(out, "failures", [failure(o) for o in failures])
    return 1 if failures or (stale and server is None) else 0


def row(name: str, report: FileReport) -> str:
    """A file's line of the table."""
    counts = "".join(f"{report.count(s):>12}" for s in STATUSES)
    return f"{name:<44}{counts}" + (f"   ({report.skipped})" if report.skipped else "")


def files_table(reports: Sequence[FileReport]) -> str:
    """The table of files and their totals."""
    lines = [f"{'file':<44}" + "".join(f"{s:>12}" for s in STATUSES)]
    lines += [row(Path(r.file).name, r) for r in reports]
    total = FileReport("total", tuple(o for r in reports for o in r.outcomes))
    lines.append(row(f"total ({len(reports)} files)", total))
    return "\n".join(lines)


def section(out: TextIO, title: str, lines: Sequence[str]) -> None:
    """A titled list (nothing when it is empty)."""
    if lines:
        print(f"\n━━ {title} ({len(lines)})\n", file=out)
        for line in lines:
            print(line, file=out)


def failure(o: Outcome) -> str:
    """A failed record: where, why, its SQL, and for a query the expected and got rows."""
    text = [f"{o.where}: {o.reason}", *("    " + line for line in o.record.sql.splitlines())]
    if isinstance(o.record, Query):
        text.append("  expected:")
        text += ["    " + line for line in o.record.expected] or ["    (no rows)"]
        if o.got is not None:
            text.append("  got:")
            text += ["    " + line for line in o.got] or ["    (no rows)"]
    return "\n".join(text) + "\n"
