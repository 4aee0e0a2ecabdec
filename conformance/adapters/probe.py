"""The ``MATCH_RECOGNIZE``-semantics probe of ``make peers``.

``kleene conform`` holds an adapter to Kleene's own policies, so it runs only
the cases where ``MATCH_RECOGNIZE`` must agree with one (``Translation.inexact``).
The probe goes further: every operator pattern of the case files (and of
:data:`EXTRA`) that :mod:`.mr` translates is run under both contiguity policies
and both ``AFTER MATCH SKIP`` modes, and the engine's answer is compared with
:func:`.mr_oracle.expected` (SQL:2016 semantics derived from the reference).
A disagreement is shrunk (events dropped one at a time while it persists) to a
:class:`Finding`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kleene.conformance.adapters import mr, mr_oracle
from kleene.conformance.cases import CaseFile, iter_tests
from kleene.conformance.outcome import Outcome
from kleene.conformance.wire import Request
from kleene.engines.protocol import Query
from kleene.reference.budget import Budget
from kleene.reference.errors import KleeneError
from kleene.reference.events import Stream
from kleene.reference.match import Match
from kleene.reference.operators.to_match_recognize import Translation, Untranslatable


@dataclass
class Finding:
    """One disagreement of an engine with the oracle, shrunk."""

    request: Request
    sql: str
    skip: str
    expected: list[Match]
    got: list[Match] | None
    error: str = ""
    source: str = ""


@dataclass
class Tally:
    """What the probe did for one engine."""

    agreed: int = 0
    disagreed: int = 0
    untranslatable: dict[str, int] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)


def requests(files: Iterable[CaseFile]) -> Iterator[tuple[str, Request]]:
    """One request per distinct operator (pattern, events), under each contiguity policy;
    the hand-written case files first, then the generated ones."""
    seen: set[str] = set()
    ordered = sorted(files, key=lambda f: f.name.endswith("-generated.json"))
    for case, test in iter_tests(ordered):
        if case.language != "operator" or test.check != "matches":
            continue
        for policy in ("contiguous", "partition-contiguous"):
            req = Request("operator", case.pattern, policy, "inclusive",
                          test.time_unit or case.time_unit, tuple(case.events_of(test)))
            key = req.line()
            if key not in seen:
                seen.add(key)
                yield f"{case.file}: {case.description}", req


def oracle(request: Request, skip: str, ne: str = "<>") -> tuple[Translation, set[Match]]:
    """The translation and the match set SQL:2016 prescribes (:class:`Untranslatable`)."""
    query = Query.parse(request.pattern, language="operator", policy=request.policy,
                        reading=request.window, time_unit=request.time_unit)
    p = mr.plan(query, request.events, skip=skip, ne=ne)
    s = Stream.from_rows(request.events, time_unit=request.time_unit)
    found = query.reference(s, budget=Budget())
    return p, mr_oracle.expected(p, s, found)


def agrees(outcome: Outcome, expected: set[Match]) -> bool:
    """Whether the engine gave exactly ``expected``, no match twice."""
    return (outcome.matches is not None and len(set(outcome.matches)) == len(outcome.matches)
            and set(outcome.matches) == expected)


def _with_events(request: Request, events: Sequence[Mapping[str, Any]]) -> Request:
    return Request(request.language, request.pattern, request.policy, request.window,
                   request.time_unit, tuple(events))


def shrink(request: Request, skip: str, run: Callable[[Request], Outcome],
           budget: int = 12) -> Request:
    """``request`` with events dropped one at a time while the disagreement persists."""
    events = list(request.events)
    tries = 0
    k = len(events) - 1
    while k >= 0 and tries < budget:
        smaller = _with_events(request, events[:k] + events[k + 1:])
        try:
            _, expected = oracle(smaller, skip)
        except (Untranslatable, KleeneError):
            k -= 1
            continue
        tries += 1
        if not agrees(run(smaller), expected):
            events = list(smaller.events)
        k = min(k, len(events)) - 1
    return _with_events(request, events)


def probe(run: Callable[[Request], Outcome], skip: str, files: Iterable[CaseFile],
          *, budget: int = 12, limit: int | None = None, ne: str = "<>") -> Tally:
    """Translatable requests through ``run`` (an engine with ``skip``), vs the oracle
    (at most ``limit`` engine runs before shrinking, if given)."""
    tally = Tally()
    for source, req in requests(files):
        if limit is not None and tally.agreed + tally.disagreed >= limit:
            break
        try:
            p, expected = oracle(req, skip, ne)
        except Untranslatable as why:
            tally.untranslatable[str(why)] = tally.untranslatable.get(str(why), 0) + 1
            continue
        except KleeneError:
            continue
        if req.policy == "partition-contiguous" and not p.partition:
            continue  # the same query as under contiguous
        outcome = run(req)
        if outcome.declined is not None:
            reason = outcome.declined
            tally.untranslatable[reason] = tally.untranslatable.get(reason, 0) + 1
            continue
        if agrees(outcome, expected):
            tally.agreed += 1
            continue
        tally.disagreed += 1
        if any(f.request.pattern == req.pattern and f.request.policy == req.policy
               for f in tally.findings):
            continue  # one reproduction per pattern
        small = shrink(req, skip, run, budget) if outcome.matches is not None else req
        p, expected = oracle(small, skip, ne)
        got = run(small)
        tally.findings.append(Finding(
            small, p.sql(), skip, sorted(expected, key=str),
            None if got.matches is None else sorted(got.matches, key=str),
            got.broken or (got.error or ("", ""))[1] or got.declined or "", source))
    return tally
