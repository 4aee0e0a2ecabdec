"""The Spark part of ``kleene demo``: the same engines on Spark (``local[*]`` by
default), compared with their single-process results (docs/architecture.md, "Spark":
results equal the single-process engine's). The worked examples of every engine
run as one Spark job (:func:`kleene.engines.spark.batch.match_many`), not one
job per example."""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from kleene import __version__
from kleene.cli.demo_engines import Row, _claims, _verdict, agreement_row
from kleene.conformance.cases import Case, CaseTest
from kleene.conformance.outcome import Outcome
from kleene.conformance.runner import claimed_requests
from kleene.conformance.wire import Request
from kleene.engines.protocol import Feature
from kleene.engines.registry import engine
from kleene.engines.spark.batch import CRASHED, Answer, Pair, match_many
from kleene.engines.spark.runner import collect_matches, match_file
from kleene.engines.spark.session import session
from kleene.reference.errors import KleeneError
from kleene.reference.match import Match
from kleene.reference.ses.pattern import SESPattern


def start(master: str | None) -> tuple[Any, float]:
    """The SparkSession and the seconds it took to start."""
    begin = time.perf_counter()
    spark = session(master)
    return spark, time.perf_counter() - begin


def where(spark: Any) -> str:
    return f"spark {spark.sparkContext.master}"


class SparkBackend:
    """An engine run on Spark as a conformance backend (:mod:`kleene.conformance.runner`).

    It claims what the engine claims. :meth:`prefetch` runs many requests in
    one Spark job (:func:`kleene.engines.spark.batch.match_many`) and keeps
    their outcomes, which :meth:`run` then answers; a request not prefetched is
    a job of its own. An outcome's ``seconds`` is its share of the job's wall
    time (Spark's scheduling included), so events/s stay honest."""

    def __init__(self, spark: Any, name: str) -> None:
        self.spark, self.name = spark, name
        self.version = __version__
        self.origin = f"engine {name} on {where(spark)}"
        self._capabilities = frozenset(engine(name).capabilities)
        self.answers: dict[str, Outcome] = {}

    @property
    def capabilities(self) -> frozenset[Feature]:
        return self._capabilities

    def pair(self, request: Request) -> Pair:
        return Pair(self.name, request.language, request.pattern, request.policy,
                    request.window, request.time_unit, request.events)

    def prefetch(self, requests: Sequence[Request]) -> None:
        """Answer ``requests`` in one Spark job and keep the outcomes."""
        prefetch(self.spark, [(self, r) for r in requests])

    def run(self, request: Request, *, timeout: float | None = None) -> Outcome:
        key = request.line()
        if key not in self.answers:
            self.prefetch([request])
        return self.answers[key]

    def close(self) -> None:
        """The session is the demo's: nothing to release."""


def outcome(answer: Answer, seconds: float) -> Outcome:
    """A batch answer as the conformance runner's outcome."""
    if answer.error is not None and answer.error[0] == CRASHED:
        return Outcome(broken=answer.error[1], verdict="crashed", seconds=seconds)
    if answer.error is not None:
        return Outcome(error=answer.error, seconds=seconds)
    return Outcome(matches=answer.matches, seconds=seconds)


def prefetch(spark: Any, work: Sequence[tuple[SparkBackend, Request]]) -> float:
    """Answer every (backend, request) in ONE Spark job; returns the job's seconds."""
    if not work:
        return 0.0
    begin = time.perf_counter()
    answers = match_many(spark, [b.pair(r) for b, r in work])
    seconds = time.perf_counter() - begin
    for (backend, request), answer in zip(work, answers, strict=True):
        backend.answers[request.line()] = outcome(answer, seconds / len(work))
    return seconds


def worked_examples(spark: Any, cases: Iterable[tuple[Case, CaseTest]],
                    names: Sequence[str]) -> list[Row]:
    """Each engine on Spark on every conformance test it claims: every engine's
    requests together in one Spark job, then judged by the runner."""
    cases = list(cases)
    backends = [SparkBackend(spark, name) for name in names]
    work = [(b, r) for b in backends for r in claimed_requests(b, cases)]
    seconds = prefetch(spark, work)
    note = f"; all engines' {len(work)} runs in one Spark job ({seconds:.1f} s)"
    rows = []
    for backend in backends:
        row = agreement_row(backend, cases, where(spark), note)
        if row is not None:
            rows.append(row)
    return rows


def stock(spark: Any, path: Path, pattern: SESPattern, names: Sequence[str], policy: str,
          expected: set[Match], events: int) -> list[Row]:
    """Each engine on Spark over the whole stock file, against the single-process result."""
    rows = []
    for name in names:
        if not _claims(engine(name), policy):
            continue
        begin = time.perf_counter()
        try:
            found = collect_matches(match_file(spark, str(path), pattern, engine=name,
                                               policy=policy, format="stock"))
        except KleeneError as err:
            rows.append(Row(name, where(spark), f"stock, all {events:,}", policy, 0, False,
                            events, time.perf_counter() - begin, note=str(err)))
            continue
        seconds = time.perf_counter() - begin
        ok, why = _verdict(found, expected)
        rows.append(Row(name, where(spark), f"stock, all {events:,}", policy, len(found), ok,
                        events, seconds, note=why or "equal to the single-process run"))
    return rows
