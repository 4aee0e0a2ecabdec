"""The ``MATCH_RECOGNIZE`` corpus section of ``docs/peers.md``: the compliance table
(rows the constructs of ``docs/features.md``, columns the engines, cells passed/failed/
declined) and each peer's failures, classified (:mod:`.mr_classes`), from one run of
``python scripts/peers.py --parts mr`` (:mod:`.mr_suite`)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from pathlib import Path

from kleene.conformance.adapters.mr_classes import classify
from kleene.conformance.adapters.mr_suite import EngineRun, Verdict, features
from kleene.conformance.generated_tables import NO_COLUMN

HEADING = "## The MATCH_RECOGNIZE corpus, natively"
#: The parts of the corpus, by the start of a verdict's ``where``.
SOURCES = (("Kleene's file", "conformance/sqllogictest/kleene/"),
           ("DuckDB's files", "conformance/sqllogictest/duckdb/"),
           ("drawn (Hypothesis)", "generated #"),
           ("drawn in Flink's dialect", "generated #f"))


def judged(run: EngineRun) -> EngineRun:
    """``run`` without the drawn recognitions the reference gives no answer to compare (an
    output of no column: :data:`~kleene.conformance.generated_tables.NO_COLUMN`)."""
    return dataclasses.replace(run, verdicts=tuple(v for v in run.verdicts
                                                   if NO_COLUMN not in v.reason))


def cell(row: dict[str, int] | None) -> str:
    """A table cell: passed/failed/declined (``–``: the engine met no such record)."""
    if row is None:
        return "–"
    return f"{row['passed']}/{row['failed']}/{row['declined']}"


def compliance(runs: Sequence[EngineRun]) -> list[str]:
    """The compliance table."""
    names = [r.engine for r in runs]
    tables = {r.engine: features(r) for r in runs}
    rows = sorted({f for t in tables.values() for f in t})
    out = ["| construct | " + " | ".join(names) + " |",
           "| --- | " + " | ".join("---" for _ in names) + " |",
           "| **all records** | " + " | ".join(cell(r.counts()) for r in runs) + " |"]
    out += [f"| *{title}* | " + " | ".join(
        cell(r.counts(start) if any(v.where.startswith(start) for v in r.verdicts) else None)
        for r in runs) + " |" for title, start in SOURCES]
    out += [f"| `{f}` | " + " | ".join(cell(tables[n].get(f)) for n in names) + " |"
            for f in rows]
    return out


def classes(run: EngineRun, kleene: dict[str, str]) -> dict[str, list[tuple[Verdict, str]]]:
    """The failures of ``run`` by class, each with its explanation (a file's record that
    Kleene's engine fails too is classed apart; a drawn one's oracle is the reference)."""
    out: dict[str, list[tuple[Verdict, str]]] = {}
    for v in run.verdicts:
        if v.status != "failed":
            continue
        if not v.where.startswith("generated #") and kleene.get(v.where, "passed") != "passed":
            cls, why = "Kleene fails it too", "not a disagreement (DuckDB-only SQL, ...)"
        else:
            cls, why = classify(run.engine, v)
        out.setdefault(cls, []).append((v, why))
    return out


def section(runs: Sequence[EngineRun], files: Sequence[Path], drawn: int, date: str,
            duckdb: str) -> list[str]:
    """The markdown section (module docstring)."""
    left = {r.engine: len(r.verdicts) - len(judged(r).verdicts) for r in runs}
    runs = [judged(r) for r in runs]
    flink = max(sum(v.where.startswith("generated #f") for v in r.verdicts) for r in runs)
    commands = list(dict.fromkeys(line for r in runs for line in r.command.splitlines()))
    out = [HEADING, "",
           f"*Run on {date}*"
           + (" (in pieces, then joined: `python scripts/peers.py --parts mr --combine "
              "DIR,...`)" if len(commands) > 1 else "") + ":", ""]
    out += ["```text", *(commands or ["python scripts/peers.py --parts mr"]), "```", ""]
    out += [f"Kleene's hand-computed file, DuckDB's files ({len(files) - 1}) and {drawn} "
            "recognitions drawn by Hypothesis (`conformance/adapters/mr_generated.py`, the "
            f"reference's answer the oracle): {drawn - flink} with every construct, ties and "
            f"NULLs (`conformance/recognize_strategies.py`), {flink} in the dialect Flink SQL "
            "takes (`conformance/recognize_flink.py`: what its documentation lists as "
            "unsupported left out, no `MATCH_NUMBER()`, no greedy quantifier last nor an "
            "optional one after a greedy one, a `DEFINE` always, `ONE ROW PER MATCH`). For "
            "the files each statement's table "
            "is created by DuckDB, each recognition sent as written to the engine "
            "(`conformance/adapters/native.py`: the source table and the clause, printed "
            "back in the engine's dialect), the SQL around it by DuckDB, each query's result "
            "compared with the file's (`conformance/adapters/mr_suite.py`). Flink runs in the "
            "mode its column names, each recognition of a run sent at once and run ten to "
            "a job on one mini-cluster, both modes on one worker (`flink_worker.py`); "
            "Flink is sent a quantifier `{,n}` as `{0,n}` (its planner fails on the "
            "first at run time: `native.flink_bounds`). Each peer is sent `AFTER MATCH "
            "SKIP PAST LAST ROW` written out where the query leaves the standard's default "
            "implicit: Flink's own default is not it (left implicit, 9 more records of "
            "Kleene's file failed on Flink, 2026-11-28); a source an engine was not run "
            "on is `–`. Cells: passed/failed/"
            "declined (declined: the engine says it does not support it, or the adapter "
            "cannot send it); a record counts in every construct it uses. `kleene` is "
            "Kleene's `match-recognize` engine (no EXPLAINED.toml applied). The rows are "
            "the `match_recognize:` labels of `docs/features.md`. "
            f"{duckdb}. The sections above this one (the operator cases, the probe, the "
            "direct checks, CORE) are from the run dated at the top of the page, not rerun "
            "here.", ""]
    out += compliance(runs)
    missing = [f"{r.engine} on {title}" for r in runs for title, start in SOURCES[:3]
               if not any(v.where.startswith(start) for v in r.verdicts)]
    if missing:
        out += ["", "*This run is incomplete: not run " + ", ".join(missing) + " (`–` in "
                "the table; the commands above say what each piece ran).*"]
    loads = [f"{r.engine} {r.load[0]:.0f}–{r.load[1]:.0f}" for r in runs if r.load]
    said = ("The machine's load (the 1-minute load average, lowest–highest during each "
            "engine's run; two cores, shared with other work): " + ", ".join(loads) + ". "
            if loads else "")
    out += ["", "Seconds: " + ", ".join(f"{r.engine} {r.seconds:.0f}" for r in runs) + ". "
            + said + "Left out (the reference refuses an output of no column, so there is "
            "nothing to compare): " + ", ".join(f"{e} {n}" for e, n in left.items()) + ".", ""]
    kleene = {v.where: v.status for r in runs if r.engine == "kleene" for v in r.verdicts}
    for r in runs:
        if r.engine == "kleene":
            continue
        by_class = classes(r, kleene)
        out += [f"### {r.engine}: the failures by class", ""]
        out += [f"- {cls}: {len(found)}" for cls, found in sorted(by_class.items())]
        out.append("")
        out += ["Each failure with its class; a reproduction, where there is one, is the "
                "recognition that disagrees with the reference, its rows shrunk (rows "
                "dropped by halves first while it still disagrees, `mr_shrink.py`; "
                "`--mr-shrink` caps how many are); "
                f"at most {REPRODUCTIONS} a class, each of at most {REPRODUCTION_LINES} "
                "lines (every one is in the run's JSON, `--runs`).", ""]
        for cls, found in sorted(by_class.items()):
            out += [f"#### {r.engine}: {cls} ({len(found)})", ""]
            shown = 0
            for v, why in found:
                out.append(f"- `{v.where}`: {_relative(' '.join(v.reason.split()))[:240]}"
                           + (f" — {why}" if why else ""))
                lines = v.reproduction.splitlines()
                if lines and shown < REPRODUCTIONS and len(lines) <= REPRODUCTION_LINES \
                        and max(map(len, lines)) <= REPRODUCTION_WIDTH:
                    out += ["", "  ```sql"] + [f"  {line}" for line in lines] + ["  ```", ""]
                    shown += 1
            out.append("")
    return out


#: The page shows at most this many reproductions per engine and class, each of at most
#: this many lines of at most this width; the rest are in the run's JSON
#: (``--runs``), one line each here: a page a reader can scroll.
REPRODUCTIONS, REPRODUCTION_LINES, REPRODUCTION_WIDTH = 5, 40, 200


def _relative(reason: str) -> str:
    """``reason`` with a case file's path from the repository's root, not the machine's
    (a parse error names the file it read as the runner was given it)."""
    return re.sub(r"(?<![\w`])/\S*?/(?=conformance/)", "", reason)
