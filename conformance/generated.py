"""Generated cases: Hypothesis-drawn queries checked against the reference, shrunk.

``kleene conform --generated N`` adds, per language with a generator, up to
``N`` drawn queries the backend claims (pattern, stream, policy, window
reading), each compared with the reference. On a disagreement Hypothesis
shrinks the example and the :class:`~kleene.conformance.runner.Result`
carries the reproduction of the minimal counterexample. Generators:

- ``ses``: :func:`kleene.conformance.strategies.ses_patterns` over
  :func:`~kleene.conformance.strategies.streams` (group variables only if
  the backend claims ``ses:group-variables``);
- ``operator``: the same SES patterns translated to ``SEQ(AND(...), ...)``
  (:func:`kleene.reference.operators.from_ses.from_ses`), an operator
  pattern with the same matches.

SREMO has no generator yet: its result says so (a skip with that reason).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from kleene.conformance.backends import Backend
from kleene.conformance.runner import FAIL, PASS, SKIP, Result, judge, reproduction
from kleene.conformance.wire import Request
from kleene.engines.protocol import Feature, Query
from kleene.reference.budget import Budget
from kleene.reference.errors import BudgetExceeded
from kleene.reference.languages import LANGUAGES, language_named

#: Reference steps per generated example (larger examples are rejected, not run).
STEPS = 20_000


@dataclass
class _Failure(AssertionError):
    """A generated example the backend got wrong (raised inside Hypothesis to shrink)."""

    request: Request
    reason: str
    listings: list[Any]

    def __str__(self) -> str:
        return self.reason


def _ses_pattern(draw: Any, backend: Backend) -> Any:
    from hypothesis import strategies as st

    from kleene.conformance.strategies import ses_patterns

    groups = Feature("ses", "group-variables") in backend.capabilities
    return draw(ses_patterns(groups=st.booleans() if groups else st.just(False)))


def _operator_pattern(draw: Any, backend: Backend) -> Any:
    from kleene.reference.operators.from_ses import from_ses

    return from_ses(_ses_pattern(draw, backend))


#: The pattern generator of each language: ``(draw, backend) -> parsed pattern``.
GENERATORS: dict[str, Callable[[Any, Backend], Any]] = {
    "ses": _ses_pattern,
    "operator": _operator_pattern,
}


def _claimed(backend: Backend, language: str) -> tuple[list[str], list[str]]:
    lang = language_named(language)
    policies = [p for p in lang.policies if Feature(language, p) in backend.capabilities]
    readings = ["inclusive"] + (["strict"] if "strict" in lang.readings and
                                Feature(language, "window-strict") in backend.capabilities
                                else [])
    return policies, readings


def check_language(backend: Backend, language: str, examples: int, *,
                   timeout: float | None = None) -> Result:
    """Up to ``examples`` drawn queries of ``language`` against ``backend``."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import strategies as st
    from hypothesis.errors import Unsatisfiable

    ident = f"generated/{language}"
    result = Result(ident, "(generated)", language, PASS)
    policies, readings = _claimed(backend, language)
    if Feature(language) not in backend.capabilities or not policies:
        result.status, result.reason = SKIP, f"needs {language} and one of its policies"
        return result
    if language not in GENERATORS:
        result.status, result.reason = SKIP, f"no generator for {language} patterns yet"
        return result
    from kleene.conformance.strategies import streams

    lang = LANGUAGES[language]
    ran = [0]
    last: list[_Failure] = []

    @settings(max_examples=examples, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck), print_blob=False,
              phases=[Phase.generate, Phase.shrink])
    @given(st.data())
    def check(data: Any) -> None:
        from hypothesis import assume, reject

        pattern = GENERATORS[language](data.draw, backend)
        s = data.draw(streams())
        policy = data.draw(st.sampled_from(policies))
        reading = data.draw(st.sampled_from(readings))
        query = Query.of(pattern, policy=policy, window=reading)
        assume(not (query.features() - backend.capabilities))
        try:
            expected = lang.reference(pattern, s, policy, budget=Budget(limit=STEPS),
                                      reading=reading)
        except BudgetExceeded:
            reject()
        request = Request(language, query.text, policy, reading, s.time_unit,
                          tuple(e.to_json() for e in s))
        outcome = backend.run(request, timeout=timeout)
        ran[0] += 1
        status, reason, listings = judge(outcome, expected, None)
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
        result.reproduction = reproduction(
            f"FAIL {ident} (shrunk by Hypothesis to a minimal counterexample)",
            minimal.request, minimal.reason, minimal.listings)
    except Unsatisfiable:
        result.status, result.reason = SKIP, "no drawn query fits the backend's capabilities"
    except Exception as err:  # e.g. Hypothesis found the failure flaky
        result.status = FAIL
        if last:
            result.reason = f"{type(err).__name__} while shrinking; last counterexample: " \
                            f"{last[-1].reason}"
            result.reproduction = reproduction(f"FAIL {ident}", last[-1].request,
                                               last[-1].reason, last[-1].listings)
        else:
            result.reason = f"the generator failed: {type(err).__name__}: {err}"
    result.seconds = time.perf_counter() - start
    result.notes.append(f"{ran[0]} generated queries run")
    return result


def run_generated(backend: Backend, examples: int, *,
                  timeout: float | None = None) -> Iterator[Result]:
    """:func:`check_language` for every registered language the case files use."""
    for language in ("ses", "operator", "sremo"):
        yield check_language(backend, language, examples, timeout=timeout)
