"""The registry of pattern languages: name → (detect, parse, matches, format).

One registry serves the command line, the conformance runner and the demo.
Each language is one :class:`Language` entry in :data:`LANGUAGES`: SES
patterns (seeds 000/001), operator patterns (seed 003) and SREMO (seed 004)
each plug in with one :func:`register` call. ``detect`` looks at the pattern
text only (comments ``--`` and ``//`` and blank lines before the first keyword
are skipped), so a file needs no particular extension.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kleene.reference.budget import Budget
from kleene.reference.errors import PatternError
from kleene.reference.events import Stream
from kleene.reference.match import Match

#: Comments and white space before the first token of a pattern.
_LEADING = r"(?:\s+|--[^\n]*|//[^\n]*)*"


@dataclass(frozen=True)
class Language:
    """A pattern language: how to recognise, parse and match its patterns.

    ``parse(text, source)`` returns the pattern (raising
    :class:`~kleene.reference.errors.PatternSyntaxError` with ``source`` as
    the file name); ``matches(pattern, stream, policy, budget)`` is the
    reference result; ``variables(pattern)`` lists the variables in the
    pattern's own order (for tables and the paper's substitution notation);
    ``format(pattern)`` prints it back as text that ``parse`` reads.
    """

    name: str
    title: str
    example: str
    detect: Callable[[str], bool]
    parse: Callable[[str, str], Any]
    matches: Callable[[Any, Stream, str, Budget], set[Match]]
    policies: tuple[str, ...]
    variables: Callable[[Any], tuple[str, ...]]
    format: Callable[[Any], str]

    def check_policy(self, policy: str) -> None:
        """Raise :class:`PatternError` naming the choices when ``policy`` is unknown."""
        if policy not in self.policies:
            raise PatternError(f"unknown policy {policy!r} for {self.title}; choose one of "
                               f"{', '.join(self.policies)}")

    def run(self, text: str, source: str, s: Stream, policy: str, budget: Budget) -> set[Match]:
        """Parse ``text`` and return its matches on ``s`` under ``policy``."""
        self.check_policy(policy)
        return self.matches(self.parse(text, source), s, policy, budget)


#: The registered languages by name, in registration order.
LANGUAGES: dict[str, Language] = {}


def register(language: Language) -> Language:
    """Add ``language`` to :data:`LANGUAGES` (its name must be new)."""
    if language.name in LANGUAGES:
        raise ValueError(f"language {language.name!r} is already registered")
    LANGUAGES[language.name] = language
    return language


def language_named(name: str) -> Language:
    """The registered language ``name``; a :class:`PatternError` lists the known ones."""
    if name not in LANGUAGES:
        raise PatternError(f"unknown pattern language {name!r}; known: {', '.join(LANGUAGES)}")
    return LANGUAGES[name]


def detect_language(text: str, source: str = "<pattern>") -> Language:
    """The one registered language whose ``detect`` accepts ``text``."""
    found = [lang for lang in LANGUAGES.values() if lang.detect(text)]
    if len(found) == 1:
        return found[0]
    known = "; ".join(f"{lang.name}: {lang.example}" for lang in LANGUAGES.values())
    if not found:
        raise PatternError(f"cannot tell the pattern language of {source} (known: {known}); "
                           "name it with --language")
    raise PatternError(f"{source} reads as several languages "
                       f"({', '.join(lang.name for lang in found)}); name one with --language")


def starts_with(pattern: str) -> Callable[[str], bool]:
    """A ``detect`` that accepts texts whose first tokens match the regex ``pattern``."""
    regex = re.compile(_LEADING + pattern, re.IGNORECASE)
    return lambda text: regex.match(text) is not None


# ---------------------------------------------------------------- the languages

def _ses() -> Language:
    from kleene.reference.ses.policies import POLICIES, matches
    from kleene.reference.ses.text import format_ses, parse_ses

    return Language(
        name="ses", title="SES patterns (seed 000)",
        example="PATTERN <{a, b+}, {c}> WHERE ... WITHIN 10 s",
        detect=starts_with(r"PATTERN\s*([<⟨]|\(\s*\{)"),
        parse=lambda text, source: parse_ses(text, source=source),
        matches=lambda p, s, policy, budget: matches(p, s, policy, budget=budget),
        policies=POLICIES,
        variables=lambda p: p.names,
        format=format_ses,
    )


def _sremo() -> Language:
    from kleene.reference.sremo import format_sremo, matches, parse_sremo

    return Language(
        name="sremo", title="SREMO expressions (seed 004)",
        example="mark {~.type = 'B'} -> r1 ; {TRUE}* ; mark {~.id = r1.id}",
        detect=starts_with(r"(mark\b|\{|\(|!|ANY\s*\(|NEXT\s*\(|EPS\b|EMPTY\b)"),
        parse=lambda text, source: parse_sremo(text, source=source),
        matches=lambda e, s, policy, budget: matches(e, s, budget, policy=policy),
        policies=("stream", "literal"),
        variables=lambda e: ("~",),
        format=format_sremo,
    )


def _wayeb() -> Language:
    from kleene.reference.sremo import format_sremo, matches
    from kleene.reference.sremo.wayeb import parse_sre

    def parse(text: str, source: str) -> Any:
        queries = parse_sre(text, source=source)
        if len(queries) != 1:
            raise PatternError(f"{source} holds {len(queries)} queries joined by '&'; "
                               "run them one at a time")
        return queries[0].to_expression()

    return Language(
        name="wayeb", title="Wayeb .sre patterns (seed 004 benchmarks)",
        example=";(IsEventTypePredicate(BUY), IsEventTypePredicate(SELL)){window:5}",
        detect=starts_with(r"[;+*#@!]\s*\("),
        parse=parse,
        matches=lambda e, s, policy, budget: matches(e, s, budget, policy=policy),
        policies=("stream", "literal"),
        variables=lambda e: ("~",),
        format=format_sremo,
    )


def _operator() -> Language:
    from kleene.reference.operators.policies import POLICIES, matches
    from kleene.reference.operators.text import format_operator, parse_operator

    return Language(
        name="operator", title="operator patterns (SASE+, seed 003)",
        example="PATTERN SEQ(A a, B+ b[], C c) WHERE ... WITHIN 1 hour",
        detect=starts_with(r"PATTERN\s*(?![<⟨]|\(\s*\{)[\w~(]"),
        parse=lambda text, source: parse_operator(text, source),
        matches=lambda p, s, policy, budget: matches(p, s, policy, budget),
        policies=POLICIES,
        variables=lambda p: p.names,
        format=format_operator,
    )


register(_ses())
register(_sremo())
register(_wayeb())
register(_operator())
