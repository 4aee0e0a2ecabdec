"""The conformance cases: load, validate and run ``conformance/cases/*.json``.

The case files are data (``conformance/CASES.md``; docs/architecture.md, Style 2, after
JSON-Schema-Test-Suite): one file per construct, each case citing the seed
section it pins, each test a stream, a policy and the expected match set, with
0-based positions (the papers' ``e1`` is position 0). This module

- loads every file, from the source tree or an installed package alike
  (:func:`load_case_files` reads them through :mod:`importlib.resources`);
- validates each (:func:`kleene.conformance.validation.problems`: the schema
  ``case.schema.json`` and the suite's own sanity rules);
- runs one test (:func:`run_case`): a ``matches`` test through the reference
  of the case's language (:data:`LANGUAGES`), any other ``check`` through its
  checker (:data:`CHECKS`). An unknown language or an unwired check kind is
  an error, never a silent pass or skip (docs/architecture.md, Style 4-5).

Conventions: ``s: Stream``, ``m: Match``; ``case: Case``, ``test: CaseTest``.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from kleene.conformance.validation import problems
from kleene.engines.protocol import WindowReading
from kleene.reference.errors import KleeneError
from kleene.reference.events import Stream
from kleene.reference.languages import LANGUAGES as REGISTRY
from kleene.reference.match import Match, matches_from_json
from kleene.reference.query import Query

#: A language's reference: ``(pattern_text, stream, policy) -> set[Match]``.
Reference = Callable[[str, Stream, str], set[Match]]

#: A checker of a pruning definition: raises :class:`CaseFailure` when the
#: reference disagrees with the test's expectation.
Checker = Callable[["Case", "CaseTest"], None]



class CaseError(KleeneError):
    """A case file that is malformed, or a test the suite cannot run."""

    code = "case"


class UnknownLanguage(CaseError):
    """A case names a language that has no reference in :data:`LANGUAGES`."""


class UnsupportedCheck(CaseError):
    """A test's ``check`` kind has no checker in :data:`CHECKS`."""


class CaseFailure(AssertionError):
    """The reference disagrees with a test's expectation; the message reproduces it."""


# ---------------------------------------------------------------- the registries


#: The reference of each pattern language, from the one registry
#: (:mod:`kleene.reference.languages`); a new language registers there.
LANGUAGES = REGISTRY


#: The reference module each pruning check kind exercises (seed 001 Sec. 4).
CHECK_MODULES = {
    "filter": "kleene.reference.ses.filtering",
    "candidate_window": "kleene.reference.ses.necessary",
    "summary_statistics": "kleene.reference.ses.statistics",
    "partitions": "kleene.reference.ses.partitioning",
}



def _pruning_checker(kind: str) -> Checker:
    """A :data:`Checker` for a seed 001 pruning check of :mod:`kleene.conformance.checks`."""

    def checker(case: Case, test: CaseTest) -> None:
        # lazy: the SES reference's pruning definitions only for a case that checks one
        from kleene.conformance.checks import PRUNING_CHECKS
        from kleene.reference.ses.text import parse_ses

        problems = PRUNING_CHECKS[kind](parse_ses(case.pattern), case.stream_of(test), test.data)
        if problems:
            raise CaseFailure("\n".join([f"{case.file}: {case.description}: {test.description}",
                                         *problems]))

    return checker


#: The checker of each check kind other than ``matches``.
CHECKS: dict[str, Checker] = {kind: _pruning_checker(kind) for kind in CHECK_MODULES}


def reference_for(language: str) -> Reference:
    """The reference of ``language``; :class:`UnknownLanguage` names the known ones."""
    if language not in LANGUAGES:
        raise UnknownLanguage(f"no reference for language {language!r}; known: "
                              f"{', '.join(sorted(LANGUAGES))} (register it in "
                              "kleene.reference.languages)")
    def reference(pattern_text: str, s: Stream, policy: str) -> set[Match]:
        query = Query.parse(pattern_text, language=language, policy=policy, source="<case>")
        return query.reference(s)

    return reference


def checker_for(kind: str) -> Checker:
    """The checker of ``kind``; :class:`UnsupportedCheck` says what is missing."""
    if kind in CHECKS:
        return CHECKS[kind]
    module = CHECK_MODULES.get(kind)
    if module is None:
        why = "it is not a known check kind"
    elif importlib.util.find_spec(module) is None:
        why = f"its reference module {module} does not exist yet"
    else:
        why = f"{module} exists, but no checker is wired in CHECKS"
    raise UnsupportedCheck(f"check {kind!r} is not supported: {why}")


# ---------------------------------------------------------------- cases as values


@dataclass(frozen=True)
class CaseTest:
    """One test: a stream (its own or the case's), a policy, an expectation."""

    __test__ = False  # not a pytest class

    description: str
    check: str
    policy: str
    events: tuple[Mapping[str, Any], ...] | None
    time_unit: str | None
    errata: tuple[str, ...]
    matches: tuple[Mapping[str, list[int]], ...] | None
    data: Mapping[str, Any]  # the JSON object, for the fields of other check kinds
    reading: WindowReading = "inclusive"   # the case schema's enum
    error: str | None = None

    def expectations(self) -> tuple[Expectation, ...]:
        """What a ``matches`` test expects, per window reading: one expectation
        (under its ``reading``, default inclusive) or, for a test with
        ``readings``, one per reading (a backend is checked under each reading it
        claims)."""
        if self.error is not None:
            return (Expectation(self.reading, None, self.error),)
        by_reading = self.data.get("readings")
        if by_reading is not None:
            return tuple(Expectation(reading, frozenset(matches_from_json(ms)), None)
                         for reading, ms in by_reading.items())
        return (Expectation(self.reading, frozenset(matches_from_json(self.matches or ())),
                            None),)


@dataclass(frozen=True)
class Expectation:
    """Under window reading ``reading``: the match set, or the stable code of the error."""

    reading: WindowReading
    matches: frozenset[Match] | None
    error: str | None


@dataclass(frozen=True)
class Case:
    """One case: a pattern of ``language``, citations, shared events, its tests."""

    file: str
    language: str
    description: str
    specification: tuple[tuple[str, str], ...]
    pattern: str
    time_unit: str | None
    events: tuple[Mapping[str, Any], ...] | None
    tests: tuple[CaseTest, ...]

    def events_of(self, test: CaseTest) -> tuple[Mapping[str, Any], ...]:
        """The rows ``test`` runs on: its own, else the case's."""
        rows = test.events if test.events is not None else self.events
        if rows is None:
            raise CaseError(f"{self.file}: test {test.description!r} has no events")
        return rows

    def stream_of(self, test: CaseTest) -> Stream:
        """The validated stream of ``test`` (its time unit overrides the case's)."""
        return Stream.from_rows(self.events_of(test), time_unit=test.time_unit or self.time_unit,
                                source=f"{self.file}: {test.description}")


@dataclass(frozen=True)
class CaseFile:
    """A case file: its name, language, description and cases."""

    name: str
    language: str
    description: str
    cases: tuple[Case, ...]


def _test(data: Mapping[str, Any], language: str) -> CaseTest:
    """A test of a case of ``language``: a policy or reading it does not name is the
    language's default (:mod:`kleene.reference.languages`), as at every door."""
    errata = data.get("errata", ())
    matches = data.get("matches")
    lang = REGISTRY[language] if language in REGISTRY else None
    policy = data.get("policy", lang.default_policy if lang else "any")
    reading = data.get("reading", lang.default_reading if lang else "inclusive")
    return CaseTest(description=data["description"], check=data.get("check", "matches"),
                    policy=policy,
                    events=tuple(data["events"]) if "events" in data else None,
                    time_unit=data.get("time_unit"),
                    errata=(errata,) if isinstance(errata, str) else tuple(errata),
                    matches=tuple(matches) if matches is not None else None, data=data,
                    reading=reading, error=data.get("error"))


def case_file(name: str, data: Mapping[str, Any], *, optional: bool = False) -> CaseFile:
    """The :class:`CaseFile` of a parsed JSON document (raises :class:`CaseError`
    listing every problem :func:`problems` finds); ``optional`` for a file of
    ``cases/optional/``."""
    found = problems(name, data, optional=optional)
    if found:
        raise CaseError(f"{name} is not a valid case file: {said(name, found)}")
    cases = tuple(Case(file=name, language=data["language"], description=c["description"],
                       specification=tuple((x["seed"], x["section"]) for x in c["specification"]),
                       pattern=c["pattern"], time_unit=c.get("time_unit"),
                       events=tuple(c["events"]) if "events" in c else None,
                       tests=tuple(_test(t, data["language"]) for t in c["tests"]))
                  for c in data["cases"])
    return CaseFile(name, data["language"], data["description"], cases)


def said(name: str, found: list[str], most: int = 3) -> str:
    """The first ``most`` problems of file ``name`` on one line (a failure is one line,
    docs/architecture.md, "Bad input"), and how many more there are."""
    shown = "; ".join(p.removeprefix(f"{name}: ") for p in found[:most])
    return shown + (f" (and {len(found) - most} more)" if len(found) > most else "")


def case_directory() -> Traversable:
    """``conformance/cases`` as package data (works from the source tree and installed):
    the engine-facing files."""
    return files("kleene.conformance") / "cases"


def optional_directory() -> Traversable:
    """``conformance/cases/optional``: tests of the reference's own pruning
    definitions (after JSON-Schema-Test-Suite's ``optional/``); backends never run them."""
    return case_directory() / "optional"


def load_case_files(directory: Traversable | Path | None = None) -> list[CaseFile]:
    """Every ``*.json`` file of ``directory`` (default: the packaged cases), validated,
    sorted by name."""
    root = directory if directory is not None else case_directory()
    optional = root.name == "optional"
    out = []
    for entry in sorted(root.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".json") and entry.is_file():
            try:
                data = json.loads(entry.read_text(encoding="utf-8"))
            except (json.JSONDecodeError, UnicodeDecodeError) as err:
                raise CaseError(f"{entry.name}: not JSON: {err}") from None
            out.append(case_file(entry.name, data, optional=optional))
    return out


def load_optional_case_files() -> list[CaseFile]:
    """Every file of :func:`optional_directory`, validated, sorted by name."""
    return load_case_files(optional_directory())


def iter_tests(case_files: Iterable[CaseFile]) -> Iterator[tuple[Case, CaseTest]]:
    """Every ``(case, test)`` of ``case_files``, in file order."""
    for f in case_files:
        for case in f.cases:
            for test in case.tests:
                yield case, test


def case_id(case: Case, test: CaseTest) -> str:
    """A readable, shell-friendly id: ``ses-q1/q1-on-fig-1/next-gives-...``."""

    def slug(text: str) -> str:
        return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")

    return f"{case.file.removesuffix('.json')}/{slug(case.description)}/{slug(test.description)}"


# ---------------------------------------------------------------- running


def computed_matches(case: Case, test: CaseTest,
                     implementation: Reference | None = None,
                     reading: WindowReading = "inclusive") -> set[Match]:
    """What ``implementation`` (default: the reference of the case's language,
    under window reading ``reading``) computes for a ``matches`` test."""
    if implementation is not None:
        return implementation(case.pattern, case.stream_of(test), test.policy)
    reference_for(case.language)  # an unknown language says so
    query = Query.parse(case.pattern, language=case.language, policy=test.policy,
                        reading=reading, source="<case>")
    return query.reference(case.stream_of(test))


def run_case(case: Case, test: CaseTest) -> None:
    """Run ``test`` of ``case`` against the reference (under each window reading it
    pins); raise :class:`CaseFailure` (with a reproduction) when it disagrees,
    :class:`UnknownLanguage` or :class:`UnsupportedCheck` when it cannot be run."""
    if test.check != "matches":
        checker_for(test.check)(case, test)
        return
    for expected in test.expectations():
        if expected.error is not None:
            try:
                got = computed_matches(case, test, reading=expected.reading)
            except KleeneError as err:
                if err.code != expected.error:
                    raise CaseFailure(f"{case.file}: {case.description}: {test.description}: "
                                      f"expected error {expected.error!r}, the reference "
                                      f"raised {err.code!r}: {err}") from None
                continue
            raise CaseFailure(f"{case.file}: {case.description}: {test.description}: expected "
                              f"error {expected.error!r}, the reference computed "
                              f"{len(got)} matches")
        got = computed_matches(case, test, reading=expected.reading)
        if got != expected.matches:
            raise CaseFailure(explain(case, test, got=got, expected=set(expected.matches or ()),
                                      reading=expected.reading))


def explain(case: Case, test: CaseTest, *, got: set[Match], expected: set[Match],
            reading: WindowReading = "inclusive") -> str:
    """A copy-paste reproduction of a disagreement (docs/architecture.md, Style 7): the pattern, the
    policy, the events, and what is missing and what is extra."""
    rows = case.events_of(test)
    unit = test.time_unit or case.time_unit
    lines = [f"{case.file}: {case.description}: {test.description}",
             f"language {case.language}, policy {test.policy}, window {reading}"
             + (f", time unit {unit}" if unit else ""),
             "pattern:", f"  {case.pattern}", "events:"]
    lines += [f"  {i:>3} {json.dumps(row, ensure_ascii=False)}" for i, row in enumerate(rows)]
    for title, ms in (("missing (expected, not computed)", expected - got),
                      ("extra (computed, not expected)", got - expected)):
        if ms:
            lines.append(f"{title}:")
            lines += [f"  {m.dumps()}" for m in sorted(ms)]
    return "\n".join(lines)
