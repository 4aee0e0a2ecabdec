"""Many small (query, events) pairs as ONE Spark job (issue 14, item 1: "many small
inputs run as one job, not one job each").

A conformance run, or the demo's worked examples, is hundreds of queries over a
few events each; one Spark job per pair costs more in scheduling than in
matching (the demo measured 7–18 events/s). :func:`match_many` puts every pair
in one DataFrame, a row per pair keyed by its index (the events as one JSON
array, so pairs with different columns, or a column mixing kinds, share the
frame), and runs them all in one ``mapInArrow`` stage: each task compiles the
queries of its rows (once per distinct query; the queries travel with the
function, the events in the rows) and runs each over its events.

Every query is parsed and compiled on the driver first: a pair whose pattern,
policy or window reading the engine rejects gets its error there, and never
reaches the job. A pair that fails inside a task (bad events, a defect of the
engine) gets its own error row; the other pairs are unaffected. Matches travel
back as canonical JSON (:meth:`~kleene.reference.match.Match.dumps`), so the
literal SREMO policy's empty match, which has no event to carry it, is kept.
"""

from __future__ import annotations

import json
import time
import traceback
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

from kleene.engines.protocol import Query
from kleene.engines.registry import engine
from kleene.engines.spark.session import worker_python
from kleene.reference.errors import KleeneError
from kleene.reference.events import Stream
from kleene.reference.match import Match

#: The code of an answer whose run crashed (an exception that is no Kleene error).
CRASHED = "crashed"

_SCHEMA = "case long, matches string, code string, message string, seconds double"


@dataclass(frozen=True)
class Pair:
    """One query over one stream: the engine's name and the query's fields (those of a
    conformance request), ``events`` the stream's rows (positions index them)."""

    engine: str
    language: str | None
    pattern: str
    policy: str | None
    window: str = "inclusive"
    time_unit: str | None = None
    events: tuple[Mapping[str, Any], ...] = ()

    def query(self) -> Query:
        return Query.parse(self.pattern, language=self.language, policy=self.policy,
                           reading=self.window, time_unit=self.time_unit)


@dataclass(frozen=True)
class Answer:
    """What one pair gave: its matches (duplicates kept), or an error ``(code, message)``
    (code :data:`CRASHED` when the engine raised something else); ``seconds`` is the
    run's time inside its task (0 for an error found on the driver)."""

    matches: tuple[Match, ...] | None = None
    error: tuple[str, str] | None = None
    seconds: float = 0.0


def _crash(err: BaseException) -> str:
    frames = traceback.extract_tb(err.__traceback__)
    where = f" (at {Path(frames[-1].filename).name}:{frames[-1].lineno})" if frames else ""
    return f"{type(err).__name__}: {err}{where}"


def run_pair(pair: Pair, compiled: Any) -> tuple[list[str] | None, tuple[str, str] | None]:
    """The canonical JSON of every match of ``compiled`` on the pair's events, or an error."""
    try:
        s = Stream.from_rows(pair.events, time_unit=pair.time_unit)
        return [m.dumps() for m in compiled.run(s)], None
    except KleeneError as err:
        return None, (err.code, str(err))
    except Exception as err:  # a defect of the engine: the answer says so
        return None, (CRASHED, _crash(err))


def _run_rows(pairs: Sequence[Pair], batches: Iterator[Any]) -> Iterator[Any]:
    """The ``mapInArrow`` function: every pair of the partition's rows."""
    import pyarrow as pa

    cache: dict[tuple[Any, ...], Any] = {}
    for batch in batches:
        out: dict[str, list[Any]] = {"case": [], "matches": [], "code": [], "message": [],
                                     "seconds": []}
        for case, events in zip(batch.column("case").to_pylist(),
                                batch.column("events").to_pylist(), strict=True):
            pair = replace(pairs[case], events=tuple(json.loads(events)))
            begin = time.perf_counter()
            key = (pair.engine, pair.language, pair.pattern, pair.policy, pair.window,
                   pair.time_unit)
            error: tuple[str, str] | None = None
            found: list[str] | None = None
            try:
                if key not in cache:
                    cache[key] = engine(pair.engine).compile(pair.query())
                found, error = run_pair(pair, cache[key])
            except KleeneError as err:
                error = (err.code, str(err))
            out["case"].append(case)
            out["matches"].append(None if found is None else json.dumps(found))
            out["code"].append(error[0] if error else None)
            out["message"].append(error[1] if error else None)
            out["seconds"].append(time.perf_counter() - begin)
        yield pa.RecordBatch.from_pydict(out, schema=pa.schema([
            ("case", pa.int64()), ("matches", pa.string()), ("code", pa.string()),
            ("message", pa.string()), ("seconds", pa.float64())]))


def match_many(spark: Any, pairs: Sequence[Pair], *, tasks: int | None = None) -> list[Answer]:
    """The answer of every pair, in order, computed in one Spark job (see the module
    docstring); ``tasks`` is the number of Spark partitions (default: the cores)."""
    answers: list[Answer | None] = [None] * len(pairs)
    sent = []
    for i, pair in enumerate(pairs):
        try:
            engine(pair.engine).compile(pair.query())      # on the driver, first
            sent.append(i)
        except KleeneError as err:
            answers[i] = Answer(error=(err.code, str(err)))
    if sent:
        worker_python(spark)
        n = max(1, min(len(sent), tasks or spark.sparkContext.defaultParallelism))
        # deal the pairs round-robin, largest first, so that tasks get as many events each
        order = sorted(sent, key=lambda i: -len(pairs[i].events))
        dealt = [order[k::n] for k in range(n)]
        rows = spark.sparkContext.parallelize(
            [(i, json.dumps([dict(e) for e in pairs[i].events])) for part in dealt for i in part],
            n)
        df = spark.createDataFrame(rows, "case long, events string")
        function = partial(_run_rows, [replace(p, events=()) for p in pairs])
        for r in df.mapInArrow(function, _SCHEMA).collect():
            answers[r["case"]] = Answer(
                matches=None if r["matches"] is None else tuple(
                    Match.from_json(json.loads(m)) for m in json.loads(r["matches"])),
                error=None if r["code"] is None else (r["code"], r["message"]),
                seconds=r["seconds"])
    return [a if a is not None else Answer(error=(CRASHED, "no answer from Spark"))
            for a in answers]
