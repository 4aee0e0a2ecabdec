"""The ``MATCH_RECOGNIZE`` corpus through the peers natively (issue 30, item 3): the
compliance table of ``docs/peers.md``.

The corpus is Kleene's hand-computed file (``conformance/sqllogictest/kleene/``) and
DuckDB's files (``conformance/sqllogictest/duckdb/``). Each file runs as ``kleene conform
--sqllogictest`` runs it (:func:`~kleene.conformance.sqllogictest.runner.run_file`: the
statements create the tables in DuckDB, each query's result is compared with the file's),
with the recognitions done by the peer (:class:`~kleene.conformance.adapters.native.Native`)
or by Kleene's ``match-recognize`` engine, the column beside them. A record's outcome is
*passed*, *failed* (a wrong result, an error where a result is expected, or no answer in
time) or *declined* (the peer says it does not support what it was asked, or the adapter
cannot send it: the runner's ``unsupported``); Kleene's ``EXPLAINED.toml`` is not applied
(it explains Kleene's records, not a peer's). Only records holding ``MATCH_RECOGNIZE``
count; a ``statement error`` record passes on any error of the peer, as on any of Kleene's.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from kleene.conformance.sqllogictest.runner import (
    FileReport,
    engine_recognizer,
    feature_table,
    files_in,
    run_file,
)
from kleene.data.sql import ArrowRecognizer

#: The corpus, relative to the ``conformance`` folder.
CORPUS = ("sqllogictest/kleene/match_recognize.test", "sqllogictest/duckdb")
#: The runner's statuses as the compliance table counts them.
COUNTED = {"passed": "passed", "failed": "failed", "explained": "failed",
           "unsupported": "declined"}


def corpus_files() -> list[Path]:
    """Kleene's file, then DuckDB's, in order."""
    root = Path(__file__).resolve().parents[1]
    return files_in(root / p for p in CORPUS)


def kleene_recognizer() -> ArrowRecognizer:
    """Kleene's ``match-recognize`` engine, each recognition under 10 s."""
    return engine_recognizer("match-recognize", 10.0)


@dataclass(frozen=True)
class EngineRun:
    """One engine's reports over the corpus and its seconds."""

    engine: str
    reports: tuple[FileReport, ...]
    seconds: float

    def counts(self) -> dict[str, int]:
        """Passed, failed and declined records holding ``MATCH_RECOGNIZE``."""
        out = dict.fromkeys(("passed", "failed", "declined"), 0)
        for r in self.reports:
            for o in r.outcomes:
                if o.recognizes and o.status in COUNTED:
                    out[COUNTED[o.status]] += 1
        return out


def run_engine(engine: str, recognizer: ArrowRecognizer, files: Sequence[Path],
               say: Callable[[str], None] = lambda s: print(s, file=sys.stderr, flush=True),
               ) -> EngineRun:
    """Every file of ``files`` with ``recognizer`` doing the recognitions."""
    began = time.time()
    reports = []
    for path in files:
        report = run_file(path, recognizer)
        reports.append(report)
        say(f"peers: {engine}: {path.name}: {report.count('passed', recognizing=True)} passed "
            f"({time.time() - began:.0f} s)")
    return EngineRun(engine, tuple(reports), time.time() - began)


def _cell(row: dict[str, int] | None) -> str:
    if row is None:
        return "–"
    return f"{row['passed']}/{row['failed']}/{row['declined']}"


def features(run: EngineRun) -> dict[str, dict[str, int]]:
    """Per construct, the engine's passed, failed and declined records."""
    out: dict[str, dict[str, int]] = {}
    for feature, row in feature_table(run.reports).items():
        cell = out.setdefault(feature, dict.fromkeys(("passed", "failed", "declined"), 0))
        for status, n in row.items():
            if status in COUNTED:
                cell[COUNTED[status]] += n
    return out


def section(runs: Sequence[EngineRun], files: Sequence[Path], date: str) -> list[str]:
    """The markdown section: the compliance table, then each peer's disagreements."""
    names = [r.engine for r in runs]
    tables = {r.engine: features(r) for r in runs}
    rows = sorted({f for t in tables.values() for f in t})
    out = ["## The MATCH_RECOGNIZE corpus, natively", "",
           f"*Run on {date}: `python scripts/peers.py --parts mr`.* Kleene's hand-computed "
           "file and DuckDB's files (" + ", ".join(f"`{p.name}`" for p in files[:1])
           + f" and {len(files) - 1} more), each statement's table created by DuckDB, each "
           "recognition sent as written to the engine (`conformance/adapters/native.py`: "
           "the source table and the clause, printed back in the engine's dialect), the "
           "SQL around it by DuckDB, each query's result compared with the file's "
           "(`conformance/adapters/mr_suite.py`). Cells: passed/failed/declined records "
           "holding `MATCH_RECOGNIZE` (declined: the engine says it does not support it, "
           "or the adapter cannot send it); a record counts in every construct it uses. "
           "`kleene` is Kleene's `match-recognize` engine (no EXPLAINED.toml applied).", "",
           "| construct | " + " | ".join(names) + " |",
           "| --- | " + " | ".join("---" for _ in names) + " |"]
    out.append("| **all records** | " + " | ".join(_cell(r.counts()) for r in runs) + " |")
    out += ["| " + f"`{f}`" + " | " + " | ".join(_cell(tables[n].get(f)) for n in names) + " |"
            for f in rows]
    partial = [r.engine for r in runs if len(r.reports) < len(files)]
    out += ["", "Seconds: " + ", ".join(f"{r.engine} {r.seconds:.0f}" for r in runs) + "."
            + (f" {', '.join(partial)}: Kleene's file only (`--mr-kleene-only`)."
               if partial else ""), ""]
    kleene = {o.where: o.status for r in runs if r.engine == "kleene"
              for rep in r.reports for o in rep.outcomes}
    for r in runs:
        if r.engine == "kleene":
            continue
        wrong = [o for rep in r.reports for o in rep.outcomes
                 if o.recognizes and o.status in ("failed", "explained")]
        alone = [o for o in wrong if kleene.get(o.where) == "passed"]
        both = [o for o in wrong if kleene.get(o.where) != "passed"]
        for title, found in ((f"the {len(alone)} failed records Kleene's engine passes "
                              "(disagreements, not yet classified)", alone),
                             (f"the {len(both)} failed records Kleene's engine fails too "
                              "(DuckDB-only SQL, Kleene's static checks, ...)", both)):
            out += [f"### {r.engine}: {title}", ""]
            out += [f"- `{_relative(o.where)}`: {_relative(' '.join(o.reason.split()))[:240]}"
                    for o in found]
            out.append("")
    return out


def _relative(text: str) -> str:
    """``text`` with the repository's folder left out of every path in it."""
    return text.replace(str(Path(__file__).resolve().parents[2]) + "/", "")
