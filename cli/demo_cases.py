"""Part 1 of ``kleene demo``: every test of ``conformance/cases/*.json`` (format:
``conformance/CASES.md``) run by its language's reference, each printed with its
pattern, its policy, the matches found (as the papers' event names ``e1..`` and
as 0-based positions) and whether they equal the expected ones; the tests of a
pruning definition (seed 001) run by their checkers where they are wired, else
listed. Each case cites its seed and section; where the paper's own list of
matches differs, the test names its erratum (docs/errata.md).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TextIO

from kleene.cli.common import canonical_order, make_budget, paper_notation, plural
from kleene.conformance.cases import (
    Case,
    CaseFailure,
    CaseFile,
    CaseTest,
    UnsupportedCheck,
    checker_for,
    computed_matches,
    run_case,
)
from kleene.reference.errors import KleeneError
from kleene.reference.events import Stream
from kleene.reference.languages import LANGUAGES, Language
from kleene.reference.match import Match, matches_from_json
from kleene.reference.query import Query

#: How many matches of one test the demo prints before "... and N more".
SHOWN = 8

AGREE, CROSS, LISTED = "✓", "✗", "–"


@dataclass
class Tally:
    """How the tests went."""

    agree: int = 0
    disagree: int = 0
    listed: dict[str, str] = field(default_factory=dict)  # check kind -> why not run
    listed_tests: int = 0
    skipped: dict[str, int] = field(default_factory=dict)


def worked_examples(files: Sequence[CaseFile], budget: int, tally: Tally, out: TextIO) -> None:
    """Print every case of ``files`` and run each of its tests (counted in ``tally``)."""
    for f in files:
        print(f"━━ {f.name}: {f.description}", file=out)
        for case in f.cases:
            _print_case(case, out)
            for test in case.tests:
                _run_test(case, test, budget, tally, out)
            print(file=out)


def _source(case: Case) -> str:
    return f"{case.file}: {case.description}"


def _print_case(case: Case, out: TextIO) -> None:
    cites = "; ".join(f"seed {seed} {section}" for seed, section in case.specification)
    print(f"  {case.description}  [{cites}]", file=out)
    text = case.pattern
    language = LANGUAGES.get(case.language)
    if language is not None:
        with contextlib.suppress(KleeneError):  # a parse error is reported by each test
            text = language.format(language.parse(case.pattern, _source(case)))
    for line in text.strip().splitlines():
        print(f"      {line}", file=out)


def _run_test(case: Case, test: CaseTest, budget: int, tally: Tally, out: TextIO) -> None:
    head = f"{test.policy} — {test.description}"
    if test.check != "matches":
        _run_check(case, test, tally, out)
        return
    language = LANGUAGES.get(case.language)
    if language is not None and (test.error is not None or "readings" in test.data
                                 or test.reading != "inclusive"):
        _run_expectations(case, test, head, tally, out)
        return
    if language is None:
        tally.skipped[case.language] = tally.skipped.get(case.language, 0) + 1
        print(f"    {LISTED} {head} (skipped: no reference for {case.language!r} yet)",
              file=out)
        return
    try:
        order: tuple[str, ...] = ()
        implementation = None
        if language is not None:
            order = language.variables(language.parse(case.pattern, _source(case)))
            implementation = _budgeted(language, _source(case), budget)
        found = computed_matches(case, test, implementation)
    except KleeneError as err:
        tally.disagree += 1
        print(f"    {CROSS} {head}\n        error: {err}", file=out)
        return
    expected = matches_from_json(test.matches or ())
    ok = found == expected
    tally.agree += ok
    tally.disagree += not ok
    print(f"    {AGREE if ok else CROSS} {head} ({plural(len(found), 'match')} on "
          f"{plural(len(case.events_of(test)), 'event')})", file=out)
    _print_matches(found if ok else found & expected, order, out)
    if not ok:
        _print_matches(expected - found, order, out, "missing")
        _print_matches(found - expected, order, out, "extra")
    for anchor in test.errata:
        print(f"        (the paper's own list differs: {anchor})", file=out)


def _run_expectations(case: Case, test: CaseTest, head: str, tally: Tally,
                      out: TextIO) -> None:
    """A test expecting an error code, or matches under a window reading."""
    what = "; ".join(f"{e.reading}: " + (f"error {e.error}" if e.error is not None
                                          else plural(len(e.matches or ()), "match"))
                     for e in test.expectations())
    _verdict(lambda: run_case(case, test), f"{head} ({what})", tally, out)


def _verdict(run: Callable[[], None], head: str, tally: Tally, out: TextIO) -> None:
    """Run one test; print ✓ and count it, or ✗ with the failure's lines."""
    try:
        run()
    except (CaseFailure, KleeneError) as err:
        tally.disagree += 1
        print(f"    {CROSS} {head}", file=out)
        for line in str(err).splitlines():
            print(f"        {line}", file=out)
        return
    tally.agree += 1
    print(f"    {AGREE} {head}", file=out)


def _budgeted(language: Language, source: str,
              budget: int) -> Callable[[str, Stream, str], set[Match]]:
    """The language's reference as a conformance ``Reference``, with a fresh budget."""
    return lambda text, s, policy: Query.parse(
        text, language=language.name, policy=policy, source=source).reference(
        s, budget=make_budget(budget))


def _run_check(case: Case, test: CaseTest, tally: Tally, out: TextIO) -> None:
    """A test of a pruning definition: run when its checker is wired, else listed."""
    head = f"check {test.check} — {test.description}"
    try:
        checker = checker_for(test.check)
    except UnsupportedCheck as err:
        tally.listed_tests += 1
        tally.listed[test.check] = str(err.args[0])
        print(f"    {LISTED} {head} (listed, not run)", file=out)
        return
    _verdict(lambda: checker(case, test), head, tally, out)


def _print_matches(found: set[Match], order: tuple[str, ...], out: TextIO,
                   label: str = "") -> None:
    ordered = canonical_order(found)
    for m in ordered[:SHOWN]:
        prefix = f"{label}: " if label else ""
        print(f"        {prefix}{paper_notation(m, order):<36} {m.dumps()}", file=out)
    if len(ordered) > SHOWN:
        print(f"        ... and {len(ordered) - SHOWN:,} more", file=out)


def summary(tally: Tally, out: TextIO) -> str:
    """Print and return the line that sums the worked examples up (and what was not run)."""
    parts = [f"{tally.agree} agree", f"{tally.disagree} disagree"]
    if tally.listed_tests:
        parts.append(f"{tally.listed_tests} listed checks not run")
    parts += [f"{n} skipped ({lang}: no reference yet)" for lang, n in tally.skipped.items()]
    verdict = "everything agrees" if tally.disagree == 0 else "DISAGREEMENTS above"
    text = f"Worked examples: {', '.join(parts)}: {verdict}."
    print(text, file=out)
    for why in tally.listed.values():
        print(f"  not run: {why}", file=out)
    return text
