"""The generated conformance corpus: ``conformance/cases/*-generated.json`` (issue 16).

``python -m kleene.conformance.corpus [--seed N] [--out DIR]`` draws patterns
of the three languages and small streams with a fixed seed, shrinks each
stream, computes every expected match set with the reference **and confirms it
by an independent route** before writing it:

- SES, policies ``any``, ``next``, ``contiguous``, ``partition-contiguous``:
  the SES reference (seed 000/001, :mod:`kleene.reference.ses`) against the
  operator reference (seed 003, derivations) of the translation
  :func:`~kleene.reference.operators.from_ses.from_ses`;
- operator patterns translated from SES: the same two routes, reversed;
- operator patterns of the regular fragment (``SEQ``, ``AND``, ``OR``,
  ``NOT``, iteration, repetition) on streams with ``ts = position``, policies
  ``any``, ``contiguous``, ``partition-contiguous``: the operator reference's
  matches projected to position sets against the SREMO reference (seed 004) of
  :func:`~kleene.reference.operators.to_sremo.to_sremo` (the contiguity
  policies: the SREMO sets filtered by :func:`~kleene.reference.policies.is_contiguous`);
- SREMO expressions (those ``to_sremo`` writes), policy ``stream``: the SREMO
  reference against the projected operator matches.

A test without a second route is not written; a test whose routes disagree
stops the generator with :class:`RoutesDisagree` (a bug to fix, never a case
to drop). Tests are deduplicated by behaviour (language, policy, pattern and
expected match set; and language, policy, events and expected match set with
the same constructs).
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kleene.conformance import corpus_draw as draw
from kleene.conformance.independent.check import confirmed
from kleene.engines.protocol import Feature, Query
from kleene.reference.budget import Budget
from kleene.reference.errors import KleeneError
from kleene.reference.events import Stream
from kleene.reference.languages import language_named
from kleene.reference.match import Match
from kleene.reference.operators.from_ses import from_ses
from kleene.reference.operators.pattern import OperatorPattern
from kleene.reference.operators.policies import partition_attributes
from kleene.reference.operators.text import format_operator
from kleene.reference.operators.to_sremo import project, to_sremo
from kleene.reference.pattern import Pattern
from kleene.reference.policies import is_contiguous
from kleene.reference.ses.text import format_ses
from kleene.reference.sremo import format_sremo

SEED = 16
OPERATOR_SES_POLICIES = ("any", "next", "contiguous", "partition-contiguous")
REGULAR_POLICIES = ("any", "contiguous", "partition-contiguous")


class RoutesDisagree(AssertionError):
    """Two independent routes gave different match sets: a bug in one of them."""


def reference(language: str, pattern: object, rows: Sequence[Mapping[str, Any]],
              policy: str, reading: str = "inclusive") -> set[Match]:
    """The reference's match set (a budget keeps the generator fast)."""
    assert isinstance(pattern, Pattern)
    query = Query.of(pattern, language=language, policy=policy, reading=reading)
    return query.reference(Stream.from_rows(rows), budget=Budget(limit=50_000))


def projected(ms: set[Match]) -> set[Match]:
    """Operator matches as SREMO matches (the position sets)."""
    return {project(m) for m in ms}


def sremo_route(op: OperatorPattern, rows: Sequence[Mapping[str, Any]], policy: str
                ) -> set[Match] | None:
    """The operator matches' position sets under ``policy`` by way of SREMO, or ``None``
    when the pattern is outside ``to_sremo``'s fragment or the policy has no such route."""
    try:
        e = to_sremo(op)
    except KleeneError:
        return None
    sets = reference("sremo", e, rows, "stream")
    if policy == "any":
        return sets
    s = Stream.from_rows(rows)
    if policy == "contiguous":
        return {m for m in sets if is_contiguous(s, m)}
    if policy == "partition-contiguous":
        attrs = partition_attributes(op, Match.of({v: (0,) for v in op.names}))
        return {m for m in sets if is_contiguous(s, m, attrs)}
    return None


def _disagree(what: str, text: str, rows: Sequence[Mapping[str, Any]], policy: str,
              a: set[Match], b: set[Match]) -> RoutesDisagree:
    return RoutesDisagree(f"{what}: {text} under {policy} on {json.dumps(list(rows))}: "
                          f"{sorted(map(str, a - b))} only by the first route, "
                          f"{sorted(map(str, b - a))} only by the second")


def shrink(language: str, pattern: object, rows: list[dict[str, Any]], policy: str
           ) -> list[dict[str, Any]]:
    """Drop events while the match set under ``policy`` stays non-empty (kept as is if
    empty); timestamps of the SREMO route stay positions."""
    try:
        if not reference(language, pattern, rows, policy):
            return rows
    except KleeneError:
        return rows
    k = len(rows) - 1
    while k >= 0:
        smaller = [dict(r) for r in rows[:k] + rows[k + 1:]]
        if draw.positional(rows):
            for i, r in enumerate(smaller):
                r["ts"] = i
        try:
            keep = bool(reference(language, pattern, smaller, policy))
        except KleeneError:
            keep = False
        if keep:
            rows = smaller
        k = min(k, len(rows)) - 1
    return rows


@dataclass
class Corpus:
    """The tests drawn so far, per language, with their behaviour keys."""

    cases: dict[str, list[dict[str, Any]]] = field(
        default_factory=lambda: {"ses": [], "operator": [], "sremo": []})
    seen: set[Any] = field(default_factory=set)
    routes: dict[str, int] = field(default_factory=dict)

    def add(self, language: str, text: str, rows: Sequence[Mapping[str, Any]],
            tests: list[tuple[str, set[Match], str, str]],
            constructs: frozenset[Feature]) -> None:
        """A case with its confirmed tests (policy, matches, route, window reading),
        deduplicated."""
        kept = []
        n = len(self.cases[language])
        for policy, ms, route, reading in tests:
            expected = frozenset(ms)
            keys = ((language, policy, reading, text, expected),
                    (language, policy, reading, json.dumps(list(rows)), expected, constructs))
            if any(k in self.seen for k in keys):
                continue
            self.seen.update(keys)
            self.routes[route] = self.routes.get(route, 0) + 1
            strict = " and the strict window reading" if reading == "strict" else ""
            kept.append({"description": f"{language} {n} under {policy}{strict} ({route})",
                         "policy": policy, **({"reading": reading} if strict else {}),
                         "matches": [dict(m.bindings) for m in sorted(ms, key=_order)]})
        if kept:
            self.cases[language].append({
                "description": f"generated {language} case {n}: {text}",
                "specification": draw.citations(language),
                "pattern": text, "events": [dict(r) for r in rows], "tests": kept})

    def count(self, language: str | None = None) -> int:
        """How many tests (of one language, or all)."""
        langs = [language] if language else list(self.cases)
        return sum(len(c["tests"]) for lang in langs for c in self.cases[lang])


def _order(m: Match) -> tuple[Any, ...]:
    return (m.positions, m.bindings)


def ses_case(rng: random.Random, corpus: Corpus) -> None:
    """An SES pattern and its operator translation, confirmed by each other."""
    p = draw.ses_pattern(rng)
    op = from_ses(p)
    rows = draw.stream(rng)
    rows = shrink("ses", p, rows, rng.choice(OPERATOR_SES_POLICIES))
    ses_tests, op_tests = [], []
    for policy in OPERATOR_SES_POLICIES:
        try:
            a = reference("ses", p, rows, policy)
            b = reference("operator", op, rows, policy)
        except KleeneError:
            continue
        if a != b:
            raise _disagree("SES vs operator", format_ses(p), rows, policy, a, b)
        ses_tests.append((policy, a, "operator translation", "inclusive"))
        op_tests.append((policy, b, "SES reference", "inclusive"))
        if policy in ("any", "next"):
            sa = reference("ses", p, rows, policy, "strict")
            sb = reference("operator", op, rows, policy, "strict")
            if sa != sb:
                raise _disagree("SES vs operator (strict)", format_ses(p), rows, policy, sa, sb)
            if sa != a:
                ses_tests.append((policy, sa, "operator translation", "strict"))
                op_tests.append((policy, sb, "SES reference", "strict"))
    corpus.add("ses", format_ses(p), rows, ses_tests, Query.of(p).features())
    corpus.add("operator", format_operator(op), rows, op_tests, Query.of(op).features())


def operator_case(rng: random.Random, corpus: Corpus) -> None:
    """A regular operator pattern, confirmed through SREMO; its SREMO translation too."""
    op = draw.operator_pattern(rng)
    if op is None:
        return
    rows = draw.stream(rng, positional=True, types=True)
    rows = shrink("operator", op, rows, rng.choice(REGULAR_POLICIES))
    tests = []
    for policy in REGULAR_POLICIES:
        try:
            a = reference("operator", op, rows, policy)
            b = sremo_route(op, rows, policy)
        except KleeneError:
            continue
        if b is None:
            continue
        if projected(a) != b:
            raise _disagree("operator vs SREMO", format_operator(op), rows, policy,
                            projected(a), b)
        tests.append((policy, a, "SREMO translation", "inclusive"))
    corpus.add("operator", format_operator(op), rows, tests, Query.of(op).features())
    if tests:
        e = to_sremo(op)
        s_matches = reference("sremo", e, rows, "stream")
        corpus.add("sremo", format_sremo(e), rows,
                   [("stream", s_matches, "operator reference", "inclusive")],
                   Query.of(e).features())


def generate(seed: int = SEED, target: int = 2100, limit: int = 20_000) -> Corpus:
    """Draw until ``target`` tests (or ``limit`` draws)."""
    rng = random.Random(seed)
    corpus = Corpus()
    for k in range(limit):
        if corpus.count() >= target:
            break
        (ses_case if k % 2 == 0 else operator_case)(rng, corpus)
    return corpus


def files(corpus: Corpus, seed: int) -> Iterator[tuple[str, dict[str, Any]]]:
    """The case files of ``corpus``."""
    for language, cases in corpus.cases.items():
        prefix = language_named(language).case_prefixes[0]
        yield f"{prefix}generated.json", {
            "language": language,
            "description": f"Generated {language} tests (conformance/corpus.py, seed {seed}): "
                           "drawn, shrunk, deduplicated by behaviour, each expected match set "
                           "computed by the reference and confirmed by an independent route",
            "comment": "Do not edit: regenerate with python -m kleene.conformance.corpus. "
                       "Each test's description names its second route.",
            "cases": cases}


def main(argv: list[str] | None = None) -> int:
    """Write the corpus."""
    ap = argparse.ArgumentParser(description="write conformance/cases/*-generated.json")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--target", type=int, default=2100)
    ap.add_argument("--out", type=Path, default=Path(__file__).with_name("cases"))
    args = ap.parse_args(argv)
    corpus = generate(args.seed, args.target)
    for name, data in confirmed(files(corpus, args.seed)):  # stops on IndependentDisagrees
        (args.out / name).write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"{corpus.count()} tests: " + ", ".join(
        f"{lang} {corpus.count(lang)}" for lang in corpus.cases) + "; routes: "
        + ", ".join(f"{r} {n}" for r, n in corpus.routes.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
