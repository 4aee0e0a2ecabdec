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

import dataclasses
import json
import os
import sys
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kleene.conformance.adapters import mr_generated, mr_shrink
from kleene.conformance.adapters.mr_generated import Drawn, Judged
from kleene.conformance.adapters.native import Native
from kleene.conformance.sqllogictest.runner import (
    FileReport,
    engine_recognizer,
    files_in,
    run_file,
)
from kleene.data.sql import ArrowRecognizer
from kleene.reference.errors import KleeneError
from kleene.reference.match_recognize.parser import parse_statement

#: The corpus, relative to the ``conformance`` folder.
CORPUS = ("sqllogictest/kleene/match_recognize.test", "sqllogictest/duckdb")
#: The runner's statuses as the compliance table counts them.
COUNTED = {"passed": "passed", "failed": "failed", "explained": "failed",
           "unsupported": "declined", "declined": "declined"}


def corpus_files() -> list[Path]:
    """Kleene's file, then DuckDB's, in order."""
    root = Path(__file__).resolve().parents[1]
    return files_in(root / p for p in CORPUS)


def kleene_recognizer() -> ArrowRecognizer:
    """Kleene's ``match-recognize`` engine, each recognition under 10 s."""
    return engine_recognizer("match-recognize", 10.0)


@dataclass(frozen=True)
class Verdict:
    """One record's (or drawn recognition's) outcome on one engine: where (``file:line``,
    or ``generated #k``), ``passed``/``failed``/``declined``, why, the constructs it uses
    and, for a drawn one, its reproduction (the statement and the table)."""

    where: str
    status: str
    reason: str = ""
    features: tuple[str, ...] = ()
    reproduction: str = ""


@dataclass(frozen=True)
class EngineRun:
    """One engine's verdicts over the corpus and its seconds."""

    engine: str
    verdicts: tuple[Verdict, ...]
    seconds: float
    #: the command that ran it (``docs/peers.md`` says it)
    command: str = ""
    #: the lowest and highest 1-minute load average seen during the run (:class:`Load`;
    #: ``None``: not recorded)
    load: tuple[float, float] | None = None

    def counts(self, source: str = "") -> dict[str, int]:
        """Passed, failed and declined records (those whose ``where`` starts with
        ``source``)."""
        out = dict.fromkeys(("passed", "failed", "declined"), 0)
        for v in self.verdicts:
            if v.where.startswith(source):
                out[v.status] += 1
        return out

    def to_json(self) -> dict[str, Any]:
        return {"engine": self.engine, "seconds": self.seconds, "command": self.command,
                "load": self.load, "verdicts": [dataclasses.asdict(v) for v in self.verdicts]}

    @classmethod
    def of_json(cls, data: dict[str, Any]) -> EngineRun:
        return cls(data["engine"], tuple(Verdict(**{**v, "features": tuple(v["features"])})
                                         for v in data["verdicts"]), data["seconds"],
                   data.get("command", ""), _pair(data.get("load")))

    @classmethod
    def joined(cls, pieces: Sequence[EngineRun]) -> EngineRun:
        """One engine's run from the runs of its pieces (each a part of the corpus): the
        verdicts in turn, the seconds added, the commands one a line; a ``where`` met in
        two pieces is a :class:`ValueError` (the pieces overlap)."""
        if len({p.engine for p in pieces}) != 1:
            raise ValueError("pieces of different engines: "
                             + ", ".join(sorted({p.engine for p in pieces})))
        seen: set[str] = set()
        for piece in pieces:
            mine = {v.where for v in piece.verdicts}
            if twice := sorted(seen & mine):
                raise ValueError(f"{piece.engine}: {twice[0]} is in two pieces")
            seen |= mine
        verdicts = tuple(v for p in pieces for v in p.verdicts)
        commands = "\n".join(dict.fromkeys(p.command for p in pieces if p.command))
        loads = [p.load for p in pieces if p.load is not None]
        load = (min(lo for lo, _ in loads), max(hi for _, hi in loads)) if loads else None
        return cls(pieces[0].engine, verdicts, sum(p.seconds for p in pieces), commands, load)


def _pair(load: Sequence[float] | None) -> tuple[float, float] | None:
    return None if load is None else (float(load[0]), float(load[1]))


class Load:
    """The 1-minute load average during a block (``with Load() as load:``), read every
    ``every`` seconds on a thread: :attr:`span` the lowest and highest seen (a run's
    seconds say little without the machine's load: two cores are often shared)."""

    def __init__(self, every: float = 30.0) -> None:
        self.every = every
        self.seen = [os.getloadavg()[0]]
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def _watch(self) -> None:
        while not self._done.wait(self.every):
            self.seen.append(os.getloadavg()[0])

    def __enter__(self) -> Load:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        self._thread.join()
        self.seen.append(os.getloadavg()[0])

    @property
    def span(self) -> tuple[float, float]:
        return min(self.seen), max(self.seen)


def verdicts_of(reports: Iterable[FileReport]) -> tuple[Verdict, ...]:
    """The records holding ``MATCH_RECOGNIZE`` of ``reports`` as verdicts (paths relative
    to the repository)."""
    return tuple(Verdict(_relative(o.where), COUNTED[o.status], " ".join(o.reason.split()),
                         o.features)
                 for r in reports for o in r.outcomes if o.recognizes and o.status in COUNTED)


def run_engine(engine: str, recognizer: ArrowRecognizer, files: Sequence[Path],
               drawn: Sequence[Drawn] = (), shrink: int = 0,
               say: Callable[[str], None] = lambda s: print(s, file=sys.stderr, flush=True),
               ) -> EngineRun:
    """Every file of ``files`` and every drawn recognition with ``recognizer`` doing the
    recognitions; a peer's recognitions are first recorded over the whole corpus and sent
    at once (:meth:`Native.prefetch`), then the files are run again with the answers;
    the first ``shrink`` wrong answers are shrunk (:func:`disagreements` of the files'
    records first, then the drawn ones; an error's rows do not matter: the engine rejects
    the query), each failure's reproduction the shrunk one."""
    began = time.time()
    if isinstance(recognizer, Native):
        recognizer.recording()
        for path in files:
            run_file(path, recognizer)
        say(f"peers: {engine}: {len(recognizer.recorded or [])} recognitions of the files")
        recognizer.prefetch(recognizer.recorded or [])
        say(f"peers: {engine}: answered ({time.time() - began:.0f} s)")
    reports = []
    for path in files:
        report = run_file(path, recognizer)
        reports.append(report)
        say(f"peers: {engine}: {path.name}: {report.count('passed', recognizing=True)} passed "
            f"({time.time() - began:.0f} s)")
    judged = mr_generated.run(recognizer, drawn)
    wrong = {id(j): j for j in judged if j.status == "failed"
             and mr_shrink.wrong_answer(j.reason)}
    records = disagreements(recognizer, reports) if shrink else {}
    failed = [*records.values(), *wrong.values()][:shrink]
    shrunk = {id(j): s for j, s in zip(failed, mr_shrink.shrink(recognizer, failed, say=say),
                                       strict=True)}
    generated = []
    for k, j in enumerate(judged):
        small = shrunk.get(id(j), j)
        where = f"generated #{'f' if j.drawn.flink else ''}{k}"   # f: Flink's dialect
        generated.append(Verdict(where, j.status, j.reason, j.drawn.features,
                                 reproduction(small) if j.status == "failed" else ""))
    said = {where: reproduction(shrunk[id(j)]) for where, j in records.items() if id(j) in shrunk}
    files_verdicts = tuple(dataclasses.replace(v, reproduction=said.get(v.where, ""))
                           for v in verdicts_of(reports))
    say(f"peers: {engine}: {len(drawn)} drawn recognitions ({time.time() - began:.0f} s)")
    return EngineRun(engine, files_verdicts + tuple(generated), time.time() - began)


def disagreements(recognizer: ArrowRecognizer, reports: Sequence[FileReport]
                  ) -> dict[str, Judged]:
    """For each failed record of ``reports`` holding ``MATCH_RECOGNIZE``, a recognition it
    sent the peer (the clause and its source table, as recorded) whose answer differs from
    the reference's: what :func:`mr_shrink.shrink` shrinks (by ``file:line``)."""
    if not isinstance(recognizer, Native):
        return {}
    out: dict[str, Judged] = {}
    for r in reports:
        for o in r.outcomes:
            if not o.recognizes or o.status not in ("failed", "explained"):
                continue
            try:
                clauses = [x.clause for x in parse_statement(o.record.sql).recognitions]
            except KleeneError:
                continue
            for clause, table in recognizer.calls:
                if clause not in clauses:
                    continue
                expected = mr_generated.expected_of(clause, table)
                if expected is None:
                    continue
                one = Drawn(clause, table, expected, o.features)
                j = mr_generated.judge(recognizer, one)
                if j.status == "failed" and mr_shrink.wrong_answer(j.reason):
                    out[_relative(o.where)] = j
                    break
    return out


def reproduction(judged: Judged) -> str:
    """A drawn recognition's failure as text: the statement, the table, the reference's
    answer and the engine's verdict."""
    one = judged.drawn
    lines = [one.sql(), f"-- table t ({', '.join(one.table.column_names)}), "
             f"{one.table.num_rows} rows:"]
    lines += [f"--   {json.dumps(list(r.values()), default=str)}" for r in one.table.to_pylist()]
    if isinstance(one.expected, str):
        lines.append(f"-- expected: an error ({one.expected})")
    else:
        lines.append(f"-- expected ({', '.join(one.expected.names)}): "
                     + "; ".join(repr(r) for r in one.expected.rows))
    lines.append(f"-- got: {judged.reason}")
    return "\n".join(lines)


def _cell(row: dict[str, int] | None) -> str:
    if row is None:
        return "–"
    return f"{row['passed']}/{row['failed']}/{row['declined']}"


def features(run: EngineRun) -> dict[str, dict[str, int]]:
    """Per construct, the engine's passed, failed and declined records."""
    out: dict[str, dict[str, int]] = {}
    for v in run.verdicts:
        for feature in v.features:
            out.setdefault(feature, dict.fromkeys(("passed", "failed", "declined"), 0))
            out[feature][v.status] += 1
    return dict(sorted(out.items()))


def _relative(text: str) -> str:
    """``text`` with the repository's folder left out of every path in it."""
    return text.replace(str(Path(__file__).resolve().parents[2]) + "/", "")
