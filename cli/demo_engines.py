"""The engines part of ``kleene demo``: every registered engine beside the reference,
single-process, on the worked examples (each on the tests it claims, whatever
its family) and, for SES patterns, on the stock stream.

Each measurement is a :class:`Row` of the agreement table: which engine, on
which workload, under which policy, how many matches, whether they equal the
oracle (the case file's expectation, or the reference, or — on the whole
stock stream, where the brute-force reference cannot go — the SES automaton
after it agreed with the reference on the prefix), events per second and the
peak of simultaneously active instances (|Ω| of seed 000).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from kleene.conformance.backends import EngineBackend
from kleene.conformance.cases import Case, CaseTest
from kleene.conformance.outcome import Backend
from kleene.conformance.runner import FAIL, SKIP, run_test
from kleene.engines.protocol import Counters, Engine, Query, claims_policy
from kleene.engines.registry import engine, engine_names
from kleene.reference.budget import Budget
from kleene.reference.errors import KleeneError
from kleene.reference.events import Event, Stream
from kleene.reference.match import Match
from kleene.reference.ses.pattern import SESPattern
from kleene.reference.ses.policies import matches as reference_matches

#: The name under which the reference appears in the table.
REFERENCE = "reference"


@dataclass
class Row:
    """One line of the agreement table."""

    engine: str
    where: str              # "local" or "spark local[*]" ...
    workload: str
    policy: str
    matches: int
    agree: bool | None      # None: nothing to compare with
    events: int
    seconds: float
    peak: int | None = None
    note: str = ""

    @property
    def rate(self) -> float | None:
        """Events per second (None when too fast to time)."""
        return self.events / self.seconds if self.seconds > 1e-6 else None


def claiming_engines() -> list[str]:
    """Every registered engine, of every family (SES, match windows, NFA, SRT, ...),
    that claims at least one policy of some language: each runs, on the worked
    examples, the tests it claims (:func:`~kleene.engines.protocol.claims`)."""
    return [name for name in engine_names()
            if any(f.kind == "policy" for f in engine(name).capabilities)]


def timed_run(e: Engine, pattern: SESPattern, events: Sequence[Event], policy: str,
              time_unit: str | None,
              progress: Callable[[Iterable[Event]], Iterable[Event]] | None = None
              ) -> tuple[list[Match], float, int]:
    """Compile and run; the matches (duplicates kept), seconds, peak instances."""
    compiled = e.compile(Query.of(pattern, policy=policy, time_unit=time_unit))
    feed: Iterable[Event] = progress(events) if progress else events
    counters = Counters()
    start = time.perf_counter()
    found = list(compiled.run(feed, counters=counters))
    seconds = time.perf_counter() - start
    return found, seconds, counters.peak_instances


def _verdict(found: list[Match], expected: set[Match] | None) -> tuple[bool | None, str]:
    if len(set(found)) != len(found):
        return False, f"{len(found) - len(set(found))} duplicates"
    if expected is None:
        return None, ""
    got = set(found)
    if got == expected:
        return True, ""
    return False, f"{len(expected - got)} missing, {len(got - expected)} extra"


def worked_examples(cases: Iterable[tuple[Case, CaseTest]], names: Sequence[str]) -> list[Row]:
    """Every engine on every conformance test it claims, through the conformance
    runner (:mod:`kleene.conformance.runner`, as ``kleene conform --backend NAME``)."""
    rows = []
    for name in names:
        row = agreement_row(EngineBackend(engine(name), origin=f"built-in engine {name}"),
                            cases, "local")
        if row is not None:
            rows.append(row)
    return rows


def agreement_row(backend: Backend, cases: Iterable[tuple[Case, CaseTest]],
                  where: str, note: str = "") -> Row | None:
    """One line of the agreement table: ``backend`` on the ``matches`` tests of
    ``cases`` it claims (``None`` when it claims none)."""
    results = [run_test(backend, case, test) for case, test in cases if test.check == "matches"]
    ran = [r for r in results if r.status != SKIP]
    if not ran:
        return None
    failed = [r for r in ran if r.status == FAIL]
    peaks = [r.peak for r in ran if r.peak is not None]
    row = Row(backend.name, where, "worked examples", "claimed", sum(r.matches for r in ran),
              not failed, sum(r.events for r in ran), sum(r.seconds for r in ran),
              max(peaks) if peaks else None)
    unclaimed = sum(r.status == SKIP and r.reason.startswith("needs ") for r in results)
    declined = Counter(r.reason for r in results
                       if r.status == SKIP and not r.reason.startswith("needs "))
    row.note = (f"{failed[0].id}: {failed[0].reason}" if failed else
                f"{len(ran)} tests" + (f", {unclaimed} skipped (features not claimed)"
                                       if unclaimed else "") + note
                + "".join(f"; {n} not run: {why}" for why, n in declined.items()))
    return row


def _claims(e: Engine, policy: str) -> bool:
    try:
        return claims_policy(e, "ses", policy)
    except KleeneError:
        return False


def stock_prefix(pattern: SESPattern, head: Stream, names: Sequence[str],
                 policies: Sequence[str], budget: int) -> list[Row]:
    """The reference and every engine on a prefix of the stock stream, per policy."""
    rows = []
    for policy in policies:
        start = time.perf_counter()
        try:
            expected = reference_matches(pattern, head, policy, budget=Budget(limit=budget))
        except KleeneError as err:
            rows.append(Row(REFERENCE, "local", f"stock, first {len(head):,}", policy, 0, None,
                            len(head), time.perf_counter() - start, note=str(err)))
            continue
        rows.append(Row(REFERENCE, "local", f"stock, first {len(head):,}", policy, len(expected),
                        None, len(head), time.perf_counter() - start, note="the oracle"))
        for name in names:
            e = engine(name)
            if not _claims(e, policy):
                continue
            found, seconds, peak = timed_run(e, pattern, head.events, policy, head.time_unit)
            ok, why = _verdict(found, expected)
            rows.append(Row(name, "local", f"stock, first {len(head):,}", policy, len(found), ok,
                            len(head), seconds, peak, why))
    return rows


def stock_full(pattern: SESPattern, s: Stream, names: Sequence[str], policy: str,
               baseline: str,
               progress: Callable[[str, int], Callable[[Iterable[Event]], Iterable[Event]]]
               ) -> tuple[list[Row], set[Match]]:
    """Engines on the whole stream, each compared with ``baseline`` (run first)."""
    rows: list[Row] = []
    expected: set[Match] | None = None
    for name in [baseline, *[n for n in names if n != baseline]]:
        e = engine(name)
        if not _claims(e, policy):
            continue
        found, seconds, peak = timed_run(e, pattern, s.events, policy, s.time_unit,
                                          progress(name, len(s)))
        ok, why = _verdict(found, expected)
        if expected is None:
            expected = set(found)
            why = "baseline (agreed with the reference on the prefix)"
        rows.append(Row(name, "local", f"stock, all {len(s):,}", policy, len(found), ok,
                        len(s), seconds, peak, why))
    return rows, expected or set()
