"""Confirm case files' expected match sets with the independent evaluator (issue 28, item 3).

:func:`confirm_file` runs every plain matches test of a case file (a
``policy``, an optional ``reading``, the expected ``matches``) through the
evaluator of its language and says, per test, whether it agrees, disagrees
(the missing and extra matches) or is not covered (the construct or policy,
named). :func:`confirm` does it for the generated corpus and raises
:class:`IndependentDisagrees` on any disagreement: ``conformance/corpus.py``
calls it before writing, so a disagreement stops the build, and
``tests/test_independent_expectations.py`` calls it on the files as committed.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kleene.conformance.independent import operators, ses, sremo
from kleene.conformance.independent.text import Row, Uncovered

Matches = set[frozenset[tuple[str, tuple[int, ...]]]]
EVALUATORS: dict[str, Callable[[str, Sequence[Row], str, str, str | None], Matches]] = {
    "ses": ses.matches, "operator": operators.matches, "sremo": sremo.matches}
#: The policy of a test that names none (conformance/CASES.md: the language's default).
DEFAULT_POLICY = {"ses": "any", "operator": "any", "sremo": "stream"}
#: The keys of a plain matches test; a test with any other key checks something else.
PLAIN = {"description", "policy", "matches", "reading", "errata", "comment", "events"}


class IndependentDisagrees(AssertionError):
    """The independent evaluator and a test's expected match set differ."""


@dataclass(frozen=True)
class Verdict:
    """One test: agreed, disagreed (``missing``/``extra``) or not covered (``reason``)."""

    language: str
    policy: str
    description: str
    reason: str | None = None
    missing: tuple[str, ...] = ()
    extra: tuple[str, ...] = ()
    reproduction: str = ""

    @property
    def covered(self) -> bool:
        return self.reason is None

    @property
    def agrees(self) -> bool:
        return self.covered and not self.missing and not self.extra


def _as_set(ms: Iterable[Mapping[str, Sequence[int]]]) -> Matches:
    return {frozenset((v, tuple(ps)) for v, ps in m.items()) for m in ms}


def _text(m: frozenset[tuple[str, tuple[int, ...]]]) -> str:
    return json.dumps({v: list(ps) for v, ps in sorted(m)})


def confirm_test(language: str, case: Mapping[str, Any], test: Mapping[str, Any]) -> Verdict:
    """The verdict of one test of ``case`` (a case of a ``language`` file)."""
    policy = str(test.get("policy", DEFAULT_POLICY.get(language, "?")))
    where = (language, policy, str(test.get("description", "")))
    if set(test) - PLAIN or "matches" not in test:
        return Verdict(*where, reason="not a plain matches test")
    if language not in EVALUATORS:
        return Verdict(*where, reason=f"language {language}")
    rows = test.get("events", case.get("events"))
    reading = str(test.get("reading", "inclusive"))
    try:
        got = EVALUATORS[language](case["pattern"], rows, policy, reading, case.get("time_unit"))
    except Uncovered as e:
        return Verdict(*where, reason=str(e))
    expected = _as_set(test["matches"])
    repro = (f"{language} {policy} {reading}: {case['pattern']!r} on {json.dumps(rows)}")
    return Verdict(*where, missing=tuple(sorted(map(_text, expected - got))),
                   extra=tuple(sorted(map(_text, got - expected))), reproduction=repro)


def confirm_file(data: Mapping[str, Any]) -> list[Verdict]:
    """The verdicts of every test of a case file."""
    return [confirm_test(data["language"], case, test)
            for case in data["cases"] for test in case["tests"]]


def explain(v: Verdict) -> str:
    """A disagreement as one copy-paste paragraph (docs/architecture.md, Style 7)."""
    return (f"{v.description}: {v.reproduction}: expected but not found by the independent "
            f"evaluator {list(v.missing)}, found but not expected {list(v.extra)}")


def coverage(verdicts: Iterable[Verdict]) -> dict[tuple[str, str], tuple[int, int]]:
    """Per (language, policy): how many tests were covered, of how many."""
    total: Counter[tuple[str, str]] = Counter()
    covered: Counter[tuple[str, str]] = Counter()
    for v in verdicts:
        total[v.language, v.policy] += 1
        covered[v.language, v.policy] += v.covered
    return {k: (covered[k], total[k]) for k in sorted(total)}


def confirm(files: Iterable[Mapping[str, Any]]) -> list[Verdict]:
    """The verdicts of every test of ``files``; :class:`IndependentDisagrees` if any
    covered test disagrees (the first five reproductions in the message)."""
    verdicts = [v for data in files for v in confirm_file(data)]
    wrong = [v for v in verdicts if v.covered and not v.agrees]
    if wrong:
        raise IndependentDisagrees(f"{len(wrong)} generated tests disagree with the "
                                   "independent evaluator:\n"
                                   + "\n".join(explain(v) for v in wrong[:5]))
    return verdicts


def summary(verdicts: Sequence[Verdict]) -> str:
    """One line: the tests covered per language and policy, the reasons of the others."""
    parts = [f"{lang} {policy} {c}/{n}" for (lang, policy), (c, n) in coverage(verdicts).items()]
    reasons = Counter(v.reason for v in verdicts if not v.covered)
    left = "; not covered: " + ", ".join(f"{r} ({n})" for r, n in reasons.items()) \
        if reasons else ""
    return "independently confirmed: " + ", ".join(parts) + left


def confirmed(files: Iterable[tuple[str, Mapping[str, Any]]]
              ) -> list[tuple[str, Mapping[str, Any]]]:
    """``files`` (name, content) as a list, once :func:`confirm` has passed them: the
    corpus build's gate (``conformance/corpus.py``)."""
    written = list(files)
    confirm(data for _, data in written)
    return written
