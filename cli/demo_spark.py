"""The Spark part of ``kleene demo``: the same engines on Spark (``local[*]`` by
default), compared with their single-process results (DESIGN.md, "Spark":
results equal the single-process engine's)."""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from kleene.cli.demo_engines import Row, _claims, _verdict
from kleene.conformance.cases import Case, CaseTest
from kleene.engines.protocol import engine
from kleene.reference.errors import KleeneError, StreamError
from kleene.reference.match import Match, matches_from_json
from kleene.reference.ses.pattern import SESPattern
from kleene.reference.ses.text import parse_ses


def start(master: str | None) -> tuple[Any, float]:
    """The SparkSession and the seconds it took to start."""
    from kleene.engines.spark.session import session

    begin = time.perf_counter()
    spark = session(master)
    return spark, time.perf_counter() - begin


def where(spark: Any) -> str:
    return f"spark {spark.sparkContext.master}"


def worked_examples(spark: Any, cases: Iterable[tuple[Case, CaseTest]],
                    names: Sequence[str]) -> list[Row]:
    """Each engine on Spark on every SES ``matches`` test whose policy it claims."""
    from kleene.engines.spark.frames import from_stream
    from kleene.engines.spark.runner import collect_matches, match_frame

    rows = []
    for name in names:
        e = engine(name)
        total = Row(name, where(spark), "worked examples", "claimed", 0, True, 0, 0.0)
        tests = skipped = 0
        for case, test in cases:
            if case.language != "ses" or test.check != "matches" or not _claims(e, test.policy):
                continue
            s = case.stream_of(test)
            pattern = parse_ses(case.pattern)
            begin = time.perf_counter()
            try:
                frame = from_stream(spark, s, require=_attributes(pattern))
            except StreamError:   # e.g. a column mixing strings and numbers: not a DataFrame
                skipped += 1
                continue
            try:
                found = collect_matches(match_frame(frame, pattern, engine=name,
                                                    policy=test.policy, tasks=2))
            except KleeneError as err:
                total.agree, total.note = False, f"{case.description}: {err}"
                continue
            total.seconds += time.perf_counter() - begin
            ok, why = _verdict(found, matches_from_json(test.matches or ()))
            tests += 1
            total.matches += len(found)
            total.events += len(s)
            if not ok:
                total.agree = False
                total.note = f"{case.description} / {test.description}: {why}"
        if tests:
            total.note = total.note or f"{tests} tests, one Spark job each" + (
                f"; {skipped} not run: their events mix kinds in one column, which a "
                "DataFrame cannot hold" if skipped else "")
            rows.append(total)
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
