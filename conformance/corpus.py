"""The generated conformance corpus: ``conformance/cases/*-generated.json`` (issue 16).

``python -m kleene.conformance.corpus [--seed N] [--out DIR]`` draws patterns
of the three languages and streams of up to 12 events with a fixed seed, computes
every expected match set with the reference **and confirms it by an independent
route** before writing it:

- SES, policies ``any``, ``next``, ``contiguous``, ``partition-contiguous``:
  the SES reference (seed 000/001, :mod:`kleene.reference.ses`) against the
  operator reference (seed 003, derivations) of the translation
  :func:`~kleene.reference.operators.from_ses.from_ses`;
- operator patterns translated from SES: the same two routes, reversed; the
  translation is written as plain ``SEQ`` where every set holds one variable
  (:func:`plain_from_ses`), ``AND`` only where a set holds several;
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

Tests are selected for a strong pass signal (issue 28): a backend that answers
no match, or every subset of the positions, must fail nearly all of them. A
test expecting no match is kept only as a *near miss* (the same pattern on the
same events matches under another policy or window reading of its case) and
only while such tests are at most :data:`NO_MATCH_SHARE` of their language's
tests; no test expects exactly the matches of its pattern's bare shape
(:func:`unconstrained`); a test expects at most :data:`MAX_MATCHES` matches,
and the reference may spend at most :data:`COST` steps on it (what keeps the
suite fast for every engine that runs it).
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
from kleene.reference.durations import Duration
from kleene.reference.errors import KleeneError
from kleene.reference.events import Stream
from kleene.reference.languages import language_named
from kleene.reference.match import Match
from kleene.reference.operators.from_ses import variable_node
from kleene.reference.operators.pattern import (
    Conj,
    Disj,
    Kleene,
    Neg,
    Node,
    OperatorPattern,
    Primitive,
    Seq,
    walk,
)
from kleene.reference.operators.policies import partition_attributes
from kleene.reference.operators.text import format_operator
from kleene.reference.operators.to_sremo import project, to_sremo
from kleene.reference.pattern import Pattern
from kleene.reference.policies import is_contiguous
from kleene.reference.ses.pattern import SESPattern
from kleene.reference.ses.text import format_ses
from kleene.reference.sremo import format_sremo

SEED = 16
OPERATOR_SES_POLICIES = ("any", "next", "contiguous", "partition-contiguous")
REGULAR_POLICIES = ("any", "contiguous", "partition-contiguous")

#: The largest share of a language's generated tests that may expect no match.
NO_MATCH_SHARE = 0.04

#: The most matches a generated test expects.
MAX_MATCHES = 200

#: The most steps the reference may spend on a generated test's expected set.
COST = 20_000

#: The steps a draw may cost the generator before it is given up.
STEPS = 50_000


class RoutesDisagree(AssertionError):
    """Two independent routes gave different match sets: a bug in one of them."""


def reference(language: str, pattern: object, rows: Sequence[Mapping[str, Any]],
              policy: str, reading: str = "inclusive", budget: Budget | None = None
              ) -> set[Match]:
    """The reference's match set (a budget of :data:`STEPS` keeps the generator fast;
    pass one to read the steps spent)."""
    assert isinstance(pattern, Pattern)
    query = Query.of(pattern, language=language, policy=policy, reading=reading)
    return query.reference(Stream.from_rows(rows), budget=budget or Budget(limit=STEPS))


def costed(language: str, pattern: object, rows: Sequence[Mapping[str, Any]], policy: str,
           reading: str = "inclusive") -> tuple[set[Match], int]:
    """The reference's match set and the steps it spent."""
    budget = Budget(limit=STEPS)
    return reference(language, pattern, rows, policy, reading, budget), budget.used


def unconstrained(language: str, pattern: SESPattern | OperatorPattern,
                  rows: Sequence[Mapping[str, Any]]) -> set[Match] | None:
    """The matches of ``pattern``'s shape alone on ``rows``: no condition, no event type,
    no negation, a window over the whole stream, policy ``any`` (``None`` when the
    reference's budget runs out). A test expecting exactly these tests nothing of its
    conditions, types, window or policy: a backend answering every binding of the
    variables in order would pass it."""
    try:
        if isinstance(pattern, SESPattern):
            bare: Pattern = SESPattern(pattern.sets, (),
                                       Duration(rows[-1]["ts"] - rows[0]["ts"]))
        else:
            expr = shape(pattern.expr)
            if expr is None:
                return None
            bare = OperatorPattern(expr, (), None)
        return reference(language, bare, rows, "any", budget=Budget(limit=COST))
    except KleeneError:   # past COST steps: more matches than a kept test expects
        return None


def shape(p: Node) -> Node | None:
    """``p`` without its event types and negations (``None`` for a ``NOT``)."""
    if isinstance(p, Primitive):
        return Primitive(None, p.var)
    if isinstance(p, Neg):
        return None
    if isinstance(p, Kleene):
        inner = shape(p.part)
        return None if inner is None else Kleene(inner, p.low, p.high)
    parts = tuple(q for q in map(shape, p.parts) if q is not None)
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else type(p)(parts)


def plain_from_ses(p: SESPattern) -> OperatorPattern:
    """:func:`~kleene.reference.operators.from_ses.from_ses` without its one-variable
    ``AND(...)`` and one-set ``SEQ(...)``: ``SEQ(ANY a, ANY+ b[])`` for ``<{a}, {b+}>``,
    ``SEQ(AND(ANY a, ANY b), ANY c)`` for ``<{a, b}, {c}>``, ``ANY a`` for ``<{a}>``."""
    parts: list[Node] = [variable_node(b[0]) if len(b) == 1
                         else Conj(tuple(variable_node(v) for v in b)) for b in p.sets]
    expr = parts[0] if len(parts) == 1 else Seq(tuple(parts))
    return OperatorPattern(expr, p.conditions, p.window)


def projected(ms: set[Match]) -> set[Match]:
    """Operator matches as SREMO matches (the position sets)."""
    return {project(m) for m in ms}


def sremo_route(op: OperatorPattern, rows: Sequence[Mapping[str, Any]], policy: str
                ) -> set[Match] | None:
    """The operator matches' position sets under ``policy`` by way of SREMO, or ``None``
    when the pattern is outside ``to_sremo``'s fragment or the policy has no such route
    (``partition-contiguous`` of a pattern with ``OR``: a position set does not say which
    variables, hence which partitioning attributes, a match has)."""
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
        if any(isinstance(n, Disj) for n in walk(op.expr)):
            return None   # the attributes depend on the branch a match binds (Def. 6)
        attrs = partition_attributes(op, Match.of({v: (0,) for v in op.names}))
        return {m for m in sets if is_contiguous(s, m, attrs)}
    return None


def _disagree(what: str, text: str, rows: Sequence[Mapping[str, Any]], policy: str,
              a: set[Match], b: set[Match]) -> RoutesDisagree:
    return RoutesDisagree(f"{what}: {text} under {policy} on {json.dumps(list(rows))}: "
                          f"{sorted(map(str, a - b))} only by the first route, "
                          f"{sorted(map(str, b - a))} only by the second")


@dataclass
class Corpus:
    """The tests drawn so far, per language, with their behaviour keys."""

    cases: dict[str, list[dict[str, Any]]] = field(
        default_factory=lambda: {"ses": [], "operator": [], "sremo": []})
    seen: set[Any] = field(default_factory=set)
    routes: dict[str, int] = field(default_factory=dict)
    count_of: dict[str, int] = field(default_factory=dict)

    no_match: dict[str, int] = field(default_factory=dict)

    def add(self, language: str, text: str, rows: Sequence[Mapping[str, Any]],
            tests: list[tuple[str, set[Match], str, str]],
            constructs: frozenset[Feature]) -> None:
        """A case with its confirmed tests (policy, matches, route, window reading),
        deduplicated; a test expecting no match only as a near miss, within
        :data:`NO_MATCH_SHARE`."""
        kept = []
        n = len(self.cases[language])
        near = any(ms for _, ms, _, _ in tests)
        for policy, ms, route, reading in tests:
            expected = frozenset(ms)
            if not ms and not (near and self._room(language)):
                continue
            keys = ((language, policy, reading, text, expected),
                    (language, policy, reading, json.dumps(list(rows)), expected, constructs))
            if any(k in self.seen for k in keys):
                continue
            self.seen.update(keys)
            self.routes[route] = self.routes.get(route, 0) + 1
            strict = " and the strict window reading" if reading == "strict" else ""
            miss = "" if ms else ": no match, a near miss"
            if not ms:
                self.no_match[language] = self.no_match.get(language, 0) + 1
            kept.append({"description": f"{language} {n} under {policy}{strict}{miss} ({route})",
                         "policy": policy, **({"reading": reading} if strict else {}),
                         "matches": [dict(m.bindings) for m in sorted(ms, key=_order)]})
            self.count_of[language] = self.count_of.get(language, 0) + 1
        if kept:
            self.cases[language].append({
                "description": f"generated {language} case {n}: {text}",
                "specification": draw.citations(language),
                "pattern": text, "events": [dict(r) for r in rows], "tests": kept})

    def _room(self, language: str) -> bool:
        """Whether one more test expecting no match stays within :data:`NO_MATCH_SHARE`."""
        return self.no_match.get(language, 0) + 1 <= NO_MATCH_SHARE * (
            self.count_of.get(language, 0) + 1)

    def count(self, language: str | None = None) -> int:
        """How many tests (of one language, or all)."""
        langs = [language] if language else list(self.cases)
        return sum(self.count_of.get(lang, 0) for lang in langs)


def _order(m: Match) -> tuple[Any, ...]:
    return (m.positions, m.bindings)


def fits(ms: set[Match], cost: int) -> bool:
    """Whether a test expecting ``ms``, which cost the reference ``cost`` steps, is kept
    (:data:`MAX_MATCHES`, :data:`COST`)."""
    return len(ms) <= MAX_MATCHES and cost <= COST


def ses_case(rng: random.Random, corpus: Corpus) -> None:
    """An SES pattern and its operator translation, confirmed by each other."""
    p = draw.ses_pattern(rng)
    op = plain_from_ses(p)
    rows = draw.stream(rng)
    free = unconstrained("ses", p, rows)
    ses_tests, op_tests = [], []
    for policy in OPERATOR_SES_POLICIES:
        for reading in ("inclusive", "strict") if policy in ("any", "next") else ("inclusive",):
            try:
                a, cost_a = costed("ses", p, rows, policy, reading)
                b, cost_b = costed("operator", op, rows, policy, reading)
            except KleeneError:
                continue
            if a != b:
                raise _disagree(f"SES vs operator ({reading})", format_ses(p), rows, policy,
                                a, b)
            same = reading == "strict" and a == reference("ses", p, rows, policy)
            if same or a == free:
                continue
            if fits(a, cost_a):
                ses_tests.append((policy, a, "operator translation", reading))
            if fits(b, cost_b):
                op_tests.append((policy, b, "SES reference", reading))
    corpus.add("ses", format_ses(p), rows, ses_tests, Query.of(p).features())
    corpus.add("operator", format_operator(op), rows, op_tests, Query.of(op).features())


def operator_case(rng: random.Random, corpus: Corpus) -> None:
    """A regular operator pattern, confirmed through SREMO; its SREMO translation too."""
    op = draw.operator_pattern(rng)
    if op is None:
        return
    rows = draw.stream(rng, positional=True, types=True)
    free = unconstrained("operator", op, rows)
    tests = []
    confirmed: set[Match] | None = None   # the SREMO sets, equal to the projected `any`
    for policy in REGULAR_POLICIES:
        try:
            a, cost = costed("operator", op, rows, policy)
            b = sremo_route(op, rows, policy)
        except KleeneError:
            continue
        if b is None:
            continue
        if projected(a) != b:
            raise _disagree("operator vs SREMO", format_operator(op), rows, policy,
                            projected(a), b)
        if policy == "any":
            confirmed = b
        if fits(a, cost) and a != free:
            tests.append((policy, a, "SREMO translation", "inclusive"))
    corpus.add("operator", format_operator(op), rows, tests, Query.of(op).features())
    if confirmed and confirmed != (free is not None and projected(free)):
        e = to_sremo(op)
        s_matches, cost = costed("sremo", e, rows, "stream")
        if fits(s_matches, cost):
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
        (ses_case if k % 3 == 0 else operator_case)(rng, corpus)
    return corpus


def files(corpus: Corpus, seed: int) -> Iterator[tuple[str, dict[str, Any]]]:
    """The case files of ``corpus``."""
    for language, cases in corpus.cases.items():
        prefix = language_named(language).case_prefixes[0]
        yield f"{prefix}generated.json", {
            "language": language,
            "description": f"Generated {language} tests (conformance/corpus.py, seed {seed}): "
                           "drawn, selected for a strong pass signal, deduplicated by "
                           "behaviour, each expected match set computed by the reference and "
                           "confirmed by an independent route",
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
