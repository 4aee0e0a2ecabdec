"""The conformance runner: every case file of every language against one backend.

:func:`run_cases` turns each ``matches`` test of ``conformance/cases/*.json``
into :class:`~kleene.conformance.wire.Request` s (one per window reading
it pins), skips those whose query needs a feature the backend does not claim
(naming the features: a skip is never a silent pass), sends the others and
gives each test one :class:`Result`: ``pass``, ``fail`` (with a copy-paste
reproduction: pattern, events, missing and extra matches, the JSON line to
send the backend) or ``skip`` (with its reason). A backend that crashes,
hangs, prints non-JSON, answers with a malformed message or reports a match
twice fails that test and the run goes on with the next.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache, partial

from kleene.conformance.cases import Case, CaseFile, CaseTest, Expectation, case_id, iter_tests
from kleene.conformance.outcome import Backend, Outcome
from kleene.conformance.selection import Selection
from kleene.conformance.wire import Request
from kleene.engines.protocol import Feature, Query
from kleene.reference.errors import KleeneError
from kleene.reference.match import Match

PASS, FAIL, SKIP = "pass", "fail", "skip"
#: A listed expected failure that failed, and one that passed (``--expected-failures``,
#: :mod:`kleene.conformance.expected_failures`): the first keeps the run green, the
#: second fails it (pytest's strict xfail).
XFAIL, XPASS = "xfail", "xpass"


@dataclass
class Result:
    """The verdict on one test (or one batch of generated cases)."""

    id: str
    file: str
    language: str
    status: str
    reason: str = ""
    reproduction: str = ""
    seconds: float = 0.0
    matches: int = 0
    events: int = 0
    peak: int | None = None
    notes: list[str] = field(default_factory=list)
    #: The features the test's queries need (its language's for a generated batch).
    features: tuple[str, ...] = ()
    #: The command line that reruns just this test ("" where the caller gave none).
    rerun: str = ""
    #: The Hypothesis seed of a generated batch (``None`` for a case file's test).
    seed: int | None = None


@dataclass
class Report:
    """A whole run: the backend's identity and every result, in case-file order."""

    backend: str
    version: str
    origin: str
    capabilities: tuple[str, ...]
    results: list[Result] = field(default_factory=list)
    seconds: float = 0.0
    #: The version of the case corpus run (:mod:`kleene.conformance.versioning`).
    corpus_version: str = ""

    def count(self, status: str) -> int:
        return sum(r.status == status for r in self.results)

    @property
    def failed(self) -> bool:
        """A test failed, or a listed expected failure passed."""
        return self.count(FAIL) + self.count(XPASS) > 0

    def skips_by_reason(self) -> list[tuple[str, int]]:
        """The skip reasons, most frequent first."""
        return Counter(r.reason for r in self.results if r.status == SKIP).most_common()


def needed_features(request: Request) -> frozenset[Feature]:
    """What a backend must claim to be sent ``request``: the query's features, or,
    for a pattern the reference rejects, the language and the policy."""
    return _needed(request.language, request.pattern, request.policy, request.window,
                   request.time_unit)


@lru_cache(maxsize=8192)
def _needed(language: str, pattern: str, policy: str, window: str,
            time_unit: str | None) -> frozenset[Feature]:
    """:func:`needed_features` of a query, parsed once for every backend of a run (the
    report site's backends decide each test's skip on the same queries: parsing them
    again was nine tenths of a backend's run that claims little)."""
    try:
        return Query.parse(pattern, language=language, policy=policy, reading=window,
                           time_unit=time_unit).features()
    except KleeneError:
        out = {Feature(language)}
        try:
            out.add(Feature.policy(language, policy))
        except KleeneError:
            pass
        if window == "strict":
            out.add(Feature(language, "window-strict"))
        return frozenset(out)


def request_of(case: Case, test: CaseTest, reading: str) -> Request:
    """The request of ``test`` under window reading ``reading``."""
    return Request(case.language, case.pattern, test.policy, reading,
                   test.time_unit or case.time_unit, tuple(case.events_of(test)))


def duplicates(found: Iterable[Match]) -> list[Match]:
    """The matches reported more than once."""
    return sorted(m for m, k in Counter(found).items() if k > 1)


def judge(outcome: Outcome, matches: frozenset[Match] | set[Match] | None,
          error: str | None, events: int) -> tuple[str, str, list[tuple[str, list[Match]]]]:
    """``(status, reason, listings)`` of ``outcome`` against the expectation:
    ``matches``, or the error with stable code ``error``. A reported match holding a
    position past the stream's ``events`` is named ``out of range``, not extra."""
    if outcome.declined is not None:
        return SKIP, outcome.declined, []
    if outcome.broken is not None:
        return FAIL, f"{outcome.verdict}: {outcome.broken}", []
    if error is not None:
        if outcome.error is None:
            return FAIL, (f"expected error {error!r}, the backend reported "
                          f"{len(outcome.matches or ())} matches"), []
        if outcome.error[0] != error:
            return FAIL, (f"expected error {error!r}, the backend reported error "
                          f"{outcome.error[0]!r}: {outcome.error[1]}"), []
        return PASS, "", []
    if outcome.error is not None:
        return FAIL, f"the backend reported error {outcome.error[0]!r}: {outcome.error[1]}", []
    found = list(outcome.matches or ())
    expected = set(matches or ())
    missing, extra, twice = expected - set(found), set(found) - expected, duplicates(found)
    outside = {m for m in extra if not all(0 <= p < events for p in m.positions)}
    extra -= outside
    if not (missing or extra or twice or outside):
        return PASS, "", []
    parts = [f"{len(outside)} out of range (a position past the stream's {events} "
             "events)"] * bool(outside) \
        + [f"{len(missing)} missing"] * bool(missing) + [f"{len(extra)} extra"] * bool(extra) \
        + [f"{len(twice)} reported more than once"] * bool(twice)
    return FAIL, ", ".join(parts), [
        (f"out of range (positions are 0 to {events - 1})" if events
         else "out of range (the stream has no event)", sorted(outside)),
        ("missing (expected, not reported)", sorted(missing)),
        ("extra (reported, not expected)", sorted(extra)),
        ("reported more than once (a defect even where the sets agree)", twice)]


def reproduction(title: str, request: Request, reason: str,
                 listings: Sequence[tuple[str, list[Match]]], rerun: str = "") -> str:
    """A copy-paste reproduction of one failed request (docs/architecture.md, Style 7)."""
    lines = [title, f"  {reason}",
             f"  language {request.language}, policy {request.policy}, window {request.window}"
             + (f", time unit {request.time_unit}" if request.time_unit else ""),
             "  pattern:", *(f"    {line}" for line in request.pattern.splitlines()),
             "  events:"]
    lines += [f"    {i:>3} {json.dumps(dict(row), ensure_ascii=False)}"
              for i, row in enumerate(request.events)]
    for heading, ms in listings:
        if ms:
            lines.append(f"  {heading}:")
            lines += [f"    {m.dumps()}" for m in ms]
    if rerun:
        lines.append(f"  rerun: {rerun}")
    lines.append("  the run message (one line on the backend's stdin):")
    lines.append(f"    {request.line()}")
    return "\n".join(lines)


def features_needed_by(case: Case, test: CaseTest) -> frozenset[Feature]:
    """What ``test`` needs a backend to claim, over every window reading it pins."""
    return frozenset().union(*(needed_features(request_of(case, test, e.reading))
                               for e in test.expectations()))


def run_test(backend: Backend, case: Case, test: CaseTest, *, timeout: float | None = None,
             rerun: Callable[[str], str] | None = None) -> Result:
    """One test against ``backend``: run under each window reading the backend claims."""
    ident = case_id(case, test)
    result = Result(ident, case.file, case.language, PASS,
                    rerun=rerun(ident) if rerun else "")
    ran = 0
    skipped: list[str] = []
    needed: set[Feature] = set()
    for expected in test.expectations():
        request = request_of(case, test, expected.reading)
        features = needed_features(request)
        needed |= features
        absent = sorted(map(str, features - backend.capabilities))
        if absent:
            skipped.append(f"needs {', '.join(absent)}")
            continue
        outcome = backend.run(request, timeout=timeout)
        ran += 1
        status, reason, listings = _judge_expected(outcome, expected, len(request.events))
        result.seconds += outcome.seconds
        result.matches += len(outcome.matches or ())
        result.events += len(request.events)
        if outcome.peak is not None:
            result.peak = max(result.peak or 0, outcome.peak)
        if status == SKIP:
            skipped.append(reason)
            ran -= 1
        elif status == FAIL and result.status != FAIL:
            result.status, result.reason = FAIL, reason
            result.reproduction = reproduction(
                f"FAIL {ident}\n  {case.file}: {case.description}: {test.description}",
                request, reason, listings, result.rerun)
    result.features = tuple(sorted(map(str, needed)))
    if not ran and result.status != FAIL:
        result.status, result.reason = SKIP, "; ".join(dict.fromkeys(skipped))
    elif skipped:
        result.notes += [f"not run: {why}" for why in dict.fromkeys(skipped)]
    return result


def _judge_expected(outcome: Outcome, expected: Expectation, events: int
                    ) -> tuple[str, str, list[tuple[str, list[Match]]]]:
    return judge(outcome, expected.matches, expected.error, events)


def claimed_requests(backend: Backend, tests: Iterable[tuple[Case, CaseTest]]) -> list[Request]:
    """Every request :func:`run_test` will send ``backend`` for the ``matches`` tests."""
    out = []
    for case, test in tests:
        if test.check != "matches":
            continue
        for expected in test.expectations():
            request = request_of(case, test, expected.reading)
            if needed_features(request) <= backend.capabilities:
                out.append(request)
    return out


def selected_tests(files: Iterable[CaseFile], select: Selection | str | None = None
                   ) -> list[tuple[Case, CaseTest]]:
    """Every ``matches`` test of ``files`` that ``select`` keeps (a text: the ids holding
    it; :class:`~kleene.conformance.selection.Selection`)."""
    chosen = Selection.of(select)
    return [(case, test) for case, test in iter_tests(files)
            if test.check == "matches" and chosen.keeps(
                case_id(case, test), case.language, partial(features_needed_by, case, test))]


def run_cases(backend: Backend, files: Iterable[CaseFile], *, timeout: float | None = None,
              select: Selection | str | None = None, rerun: Callable[[str], str] | None = None,
              progress: Callable[[Result], None] | None = None) -> list[Result]:
    """Every ``matches`` test of ``files`` that ``select`` keeps (:func:`selected_tests`).
    A backend with a ``prefetch(requests)`` method (Spark: one job for them all) is
    handed every request first."""
    out = []
    tests = selected_tests(files, select)
    prefetch = getattr(backend, "prefetch", None)
    if callable(prefetch):
        prefetch(claimed_requests(backend, tests))
    for case, test in tests:
        result = run_test(backend, case, test, timeout=timeout, rerun=rerun)
        out.append(result)
        if progress:
            progress(result)
    return out


def generated_result(language: str, seed: int, rerun: Callable[[str], str] | None) -> Result:
    """The empty result of the generated batch of ``language`` drawn from ``seed``."""
    ident = f"generated/{language}"
    return Result(ident, "(generated)", language, PASS, features=(language,),
                  rerun=rerun(ident) if rerun else "", seed=seed)


def generated_title(result: Result, shrunk: bool = True) -> str:
    """The first line of a generated failure's reproduction: its id and seed."""
    how = "shrunk by Hypothesis to a minimal counterexample; " if shrunk else ""
    return f"FAIL {result.id} ({how}Hypothesis seed {result.seed})"


def new_report(backend: Backend) -> Report:
    """An empty report naming ``backend``."""
    return Report(backend.name, backend.version, backend.origin,
                  tuple(sorted(map(str, backend.capabilities))))
