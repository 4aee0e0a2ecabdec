"""Generated cases: Hypothesis-drawn queries checked against the reference, shrunk.

``kleene conform --generated N`` adds, per language with a generator, up to
``N`` drawn queries the backend claims (pattern, stream, policy, window
reading), each compared with the reference. On a disagreement Hypothesis
shrinks the example and the :class:`~kleene.conformance.runner.Result`
carries the reproduction of the minimal counterexample. A language's pattern
generator is its registry hook ``generate`` (:func:`kleene.reference.languages.hook`):
SES patterns and their operator translations; ``MATCH_RECOGNIZE`` clauses over drawn
tables (:mod:`kleene.conformance.generated_tables`)
(:func:`kleene.conformance.strategies.ses_pattern_for`,
:func:`~kleene.conformance.strategies.operator_pattern_for`), over
:func:`~kleene.conformance.strategies.streams`. A language without one (SREMO,
Wayeb's files) gets a skip that says so.

:func:`conform` is the whole run: the case files (:func:`kleene.conformance.runner.run_cases`),
then the generated cases.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, cast

from kleene.conformance.cases import CaseFile
from kleene.conformance.expected_failures import mark
from kleene.conformance.outcome import Backend
from kleene.conformance.runner import (
    FAIL,
    SKIP,
    Report,
    Result,
    generated_result,
    generated_title,
    judge,
    new_report,
    reproduction,
    run_cases,
)
from kleene.conformance.selection import Selection
from kleene.conformance.wire import Request
from kleene.engines.protocol import Feature, Query
from kleene.reference.budget import Budget
from kleene.reference.errors import BudgetExceeded
from kleene.reference.languages import LANGUAGES, hook, language_named
from kleene.reference.pattern import Pattern

#: Reference steps per generated example (larger examples are rejected, not run).
STEPS = 20_000

#: The Hypothesis seed of ``--generated`` without ``--seed``: every run draws the same
#: queries, so a run is repeatable; another seed draws others.
DEFAULT_SEED = 0


@dataclass
class _Failure(AssertionError):
    """A generated example the backend got wrong (raised inside Hypothesis to shrink)."""

    request: Request
    reason: str
    listings: list[Any]

    def __str__(self) -> str:
        return self.reason


#: A language's pattern generator (its registry hook ``generate``): given Hypothesis'
#: ``draw`` and the backend's claimed features, a parsed pattern of the language.
Generator = Callable[[Any, frozenset[Feature]], Pattern]


def _claimed(backend: Backend, language: str) -> tuple[list[str], list[str]]:
    lang = language_named(language)
    policies = [p for p in lang.policies if Feature(language, p) in backend.capabilities]
    readings = ["inclusive"] + (["strict"] if "strict" in lang.readings and
                                Feature(language, "window-strict") in backend.capabilities
                                else [])
    return policies, readings


def check_language(backend: Backend, language: str, examples: int, *,
                   timeout: float | None = None, seed: int = DEFAULT_SEED,
                   rerun: Callable[[str], str] | None = None) -> Result:
    """Up to ``examples`` queries of ``language`` drawn from ``seed`` against ``backend``
    (``rerun(id)``: the command line the reproduction gives)."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as seeded
    from hypothesis import strategies as st
    from hypothesis.errors import Unsatisfiable

    if language_named(language).answers == "tables":
        # lazy: DuckDB and the SQL reference only for a language answering tables
        from kleene.conformance.generated_tables import check_tables

        return check_tables(backend, language, examples, timeout=timeout, seed=seed,
                            rerun=rerun)
    result = generated_result(language, seed, rerun)
    policies, readings = _claimed(backend, language)
    if Feature(language) not in backend.capabilities or not policies:
        result.status, result.reason = SKIP, f"needs {language} and one of its policies"
        return result
    generator = cast("Generator | None", hook(language_named(language), "generate"))
    if generator is None:
        result.status, result.reason = SKIP, f"no generator for {language} patterns yet"
        return result
    # lazy: Hypothesis only with `--generated`
    from kleene.conformance.strategies import streams

    ran = [0]
    last: list[_Failure] = []

    @seeded(seed)
    @settings(max_examples=examples, deadline=None, database=None, derandomize=False,
              suppress_health_check=list(HealthCheck), print_blob=False,
              phases=[Phase.generate, Phase.shrink])
    @given(st.data())
    def check(data: Any) -> None:
        from hypothesis import assume, reject

        pattern = generator(data.draw, backend.capabilities)
        s = data.draw(streams())
        policy = data.draw(st.sampled_from(policies))
        reading = data.draw(st.sampled_from(readings))
        query = Query.of(pattern, policy=policy, reading=reading)
        assume(not (query.features() - backend.capabilities))
        try:
            expected = query.reference(s, budget=Budget(limit=STEPS))
        except BudgetExceeded:
            reject()
        request = Request(language, query.text, policy, reading, s.time_unit,
                          tuple(e.to_json() for e in s))
        outcome = backend.run(request, timeout=timeout)
        ran[0] += 1
        status, reason, listings = judge(outcome, expected, None, len(request.events))
        if status == FAIL:
            failure = _Failure(request, reason, listings)
            last.append(failure)
            raise failure

    start = time.perf_counter()
    try:
        check()
    except _Failure:
        minimal = last[-1]  # Hypothesis replays the shrunk example last
        result.status, result.reason = FAIL, f"minimal counterexample: {minimal.reason}"
        result.reproduction = reproduction(generated_title(result), minimal.request, minimal.reason,
                                           minimal.listings, result.rerun)
    except Unsatisfiable:
        result.status, result.reason = SKIP, "no drawn query fits the backend's capabilities"
    except Exception as err:  # e.g. Hypothesis found the failure flaky
        result.status = FAIL
        if last:
            result.reason = f"{type(err).__name__} while shrinking; last counterexample: " \
                            f"{last[-1].reason}"
            result.reproduction = reproduction(generated_title(result, shrunk=False),
                                               last[-1].request, last[-1].reason,
                                               last[-1].listings, result.rerun)
        else:
            result.reason = f"the generator failed: {type(err).__name__}: {err}"
    result.seconds = time.perf_counter() - start
    result.notes.append(f"{ran[0]} generated queries run")
    return result


def run_generated(backend: Backend, examples: int, *, timeout: float | None = None,
                  select: Selection | str | None = None, seed: int = DEFAULT_SEED,
                  rerun: Callable[[str], str] | None = None) -> Iterator[Result]:
    """:func:`check_language` for every registered language that ``select`` keeps (a skip
    with the reason for one without a generator)."""
    chosen = Selection.of(select)
    for language in LANGUAGES:
        if chosen.keeps_generated(language):
            yield check_language(backend, language, examples, timeout=timeout, seed=seed,
                                 rerun=rerun)


def conform(backend: Backend, files: Iterable[CaseFile], *, timeout: float | None = None,
            generated: int = 0, select: Selection | str | None = None,
            rerun: Callable[[str], str] | None = None,
            progress: Callable[[Result], None] | None = None, seed: int = DEFAULT_SEED,
            expected: Mapping[str, str] | None = None, corpus_version: str = "") -> Report:
    """The whole run: the case files, then ``generated`` drawn cases per language (from
    ``seed``), each test that ``select`` keeps; a test ``expected`` lists (id to reason,
    :mod:`kleene.conformance.expected_failures`) is marked before ``progress`` sees it."""
    start = time.perf_counter()
    report = new_report(backend)
    report.corpus_version = corpus_version

    def seen(result: Result) -> None:
        mark(result, expected or {})
        if progress:
            progress(result)

    report.results = run_cases(backend, files, timeout=timeout, select=select, rerun=rerun,
                               progress=seen)
    if generated:
        for result in run_generated(backend, generated, timeout=timeout, select=select,
                                    seed=seed, rerun=rerun):
            report.results.append(result)
            seen(result)
    report.seconds = time.perf_counter() - start
    return report
