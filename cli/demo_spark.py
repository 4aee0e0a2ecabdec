"""The Spark part of ``kleene demo``: the same engines on Spark (``local[*]`` by
default), compared with their single-process results (docs/architecture.md, "Spark":
results equal the single-process engine's)."""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from kleene import __version__
from kleene.cli.demo_engines import Row, _claims, _verdict, agreement_row
from kleene.conformance.backends import Outcome
from kleene.conformance.cases import Case, CaseTest
from kleene.conformance.wire import Request
from kleene.engines.protocol import Feature, Query, engine
from kleene.reference.errors import KleeneError, StreamError
from kleene.reference.events import Stream
from kleene.reference.match import Match
from kleene.reference.ses.pattern import SESPattern


def start(master: str | None) -> tuple[Any, float]:
    """The SparkSession and the seconds it took to start."""
    from kleene.engines.spark.session import session

    begin = time.perf_counter()
    spark = session(master)
    return spark, time.perf_counter() - begin


def where(spark: Any) -> str:
    return f"spark {spark.sparkContext.master}"


class SparkBackend:
    """An engine run on Spark as a conformance backend (:mod:`kleene.conformance.runner`):
    each request is one Spark job over the request's events. It claims the engine's
    SES features but the strict window reading (the Spark runner reads windows
    inclusively); events a DataFrame cannot hold (a column mixing strings and
    numbers) decline the request with that reason."""

    def __init__(self, spark: Any, name: str) -> None:
        self.spark, self.name = spark, name
        self.version = __version__
        self.origin = f"engine {name} on {where(spark)}"
        self._capabilities = frozenset(f for f in engine(name).capabilities
                                       if f.language == "ses" and f.kind != "window")

    @property
    def capabilities(self) -> frozenset[Feature]:
        return self._capabilities

    def run(self, request: Request, *, timeout: float | None = None) -> Outcome:
        from kleene.engines.spark.frames import from_stream
        from kleene.engines.spark.runner import collect_matches, match_frame

        begin = time.perf_counter()
        try:
            query = Query.parse(request.pattern, language=request.language,
                                policy=request.policy, time_unit=request.time_unit)
            s = Stream.from_rows(request.events, time_unit=request.time_unit)
        except KleeneError as err:
            return Outcome(error=(err.code, str(err)), seconds=time.perf_counter() - begin)
        try:
            frame = from_stream(self.spark, s, require=_attributes(query.pattern))
        except StreamError:
            return Outcome(declined="its events mix kinds in one column, which a DataFrame "
                                    "cannot hold")
        try:
            found = collect_matches(match_frame(frame, query.pattern, engine=self.name,
                                                policy=request.policy, tasks=2))
        except KleeneError as err:
            return Outcome(error=(err.code, str(err)), seconds=time.perf_counter() - begin)
        return Outcome(matches=tuple(found), seconds=time.perf_counter() - begin)

    def close(self) -> None:
        """The session is the demo's: nothing to release."""


def worked_examples(spark: Any, cases: Iterable[tuple[Case, CaseTest]],
                    names: Sequence[str]) -> list[Row]:
    """Each engine on Spark on every conformance test it claims, through the runner."""
    rows = []
    for name in names:
        row = agreement_row(SparkBackend(spark, name), cases, where(spark),
                            "; one Spark job each")
        if row is not None:
            rows.append(row)
    return rows


def _attributes(pattern: SESPattern) -> list[str]:
    from kleene.engines.spark.plan import attributes_read

    return sorted(attributes_read(pattern))


def stock(spark: Any, path: Path, pattern: SESPattern, names: Sequence[str], policy: str,
          expected: set[Match], events: int) -> list[Row]:
    """Each engine on Spark over the whole stock file, against the single-process result."""
    from kleene.engines.spark.runner import collect_matches, match_file

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
