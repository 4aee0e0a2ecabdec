"""The registry of pattern languages: what the rest of Kleene asks of a language.

One registry serves the command line, the conformance runner, the engines'
capability checks, the pruning decisions, the proofs and the demo: nothing
outside ``reference/<language>/`` asks a pattern which language it is in with
``isinstance``; it asks :func:`language_of`. Each language is one
:class:`Language` entry in :data:`LANGUAGES`: SES patterns (seeds 000/001),
operator patterns (seed 003) and SREMO (seed 004, also read from Wayeb's
``.sre`` files) each plug in with one :func:`register` call. ``detect`` looks
at the pattern text only (comments ``--`` and ``//`` and blank lines before
the first keyword are skipped), so a file needs no particular extension.

The built-in languages are registered lazily (:func:`register_builtin`): a
name, a ``detect`` and the package that defines their patterns, so that
naming a language, detecting one or finding a pattern's language imports only
that language's modules (``kleene match`` on an SES pattern never imports the
operator or SREMO reference; issue 10, the startup floor). :data:`LANGUAGES`
builds an entry the first time it is read.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator, MutableMapping
from dataclasses import dataclass
from typing import Any

from kleene.reference.budget import Budget
from kleene.reference.durations import Duration
from kleene.reference.errors import PatternError, Unsupported
from kleene.reference.events import Stream
from kleene.reference.match import Match
from kleene.reference.pruning import Pruning, whole_stream

#: Comments and white space before the first token of a pattern.
_LEADING = r"(?:\s+|--[^\n]*|//[^\n]*)*"

#: The window readings (docs/semantics.md, "Windows"): ``max − min ≤ τ`` or ``< τ``.
WINDOW_READINGS: tuple[str, ...] = ("inclusive", "strict")

#: The feature label of the strict window reading (the inclusive one is the default).
STRICT_WINDOW = "window-strict"


@dataclass(frozen=True)
class Language:
    """A pattern language: how to recognise, parse, match, print and prune its patterns.

    ``parse(text, source)`` returns the pattern (raising
    :class:`~kleene.reference.errors.PatternSyntaxError` with ``source`` as the
    file name); ``matches(pattern, stream, policy, budget, reading)`` is the
    reference result; ``variables(pattern)`` lists the variables in the
    pattern's own order (for tables and the paper's substitution notation);
    ``format(pattern)`` prints it back as text that ``parse`` reads;
    ``constructs`` names every construct an engine may claim for the
    language, ``constructs_of(pattern)`` the ones a pattern uses;
    ``window(pattern)`` is its window (``None``: unbounded, or bounded in
    positions only); ``pruning(pattern, policy)`` says which pruning steps keep
    the policy's match set (:mod:`kleene.reference.pruning`); ``readings`` are
    the window readings the reference computes, ``default_reading`` the one a
    pattern of the language means unless told otherwise (Wayeb's ``.sre``
    files: ``strict``, as Wayeb reads them); ``pattern_types`` the AST classes
    of its patterns (how :func:`language_of` finds the language).
    """

    name: str
    title: str
    example: str
    detect: Callable[[str], bool]
    parse: Callable[[str, str], Any]
    matches: Callable[[Any, Stream, str, Budget, str], set[Match]]
    policies: tuple[str, ...]
    default_policy: str
    variables: Callable[[Any], tuple[str, ...]]
    format: Callable[[Any], str]
    constructs: tuple[str, ...]
    constructs_of: Callable[[Any], frozenset[str]]
    window: Callable[[Any], Duration | None]
    pattern_types: tuple[type, ...]
    readings: tuple[str, ...] = WINDOW_READINGS
    pruning: Callable[[Any, str], Pruning] = whole_stream
    default_reading: str = "inclusive"
    #: ``windowed(text, source, window, window_type)``: the pattern with its own window
    #: replaced, and that window in words (``kleene match --window``); ``None``: the
    #: language's patterns carry no window to replace
    windowed: Callable[[str, str, Any, Any], tuple[Any, str]] | None = None

    def check_policy(self, policy: str) -> None:
        """Raise :class:`PatternError` naming the choices when ``policy`` is unknown."""
        if policy not in self.policies:
            raise PatternError(f"unknown policy {policy!r} for {self.title}; choose one of "
                               f"{', '.join(self.policies)}")

    def check_reading(self, reading: str) -> None:
        """Raise :class:`Unsupported` when the reference has no window reading ``reading``."""
        if reading not in self.readings:
            raise Unsupported(f"the {self.title} reference reads windows as "
                              f"{' or '.join(self.readings)}, not {reading!r}")

    def feature_labels(self) -> tuple[str, ...]:
        """Every feature label of the language: policies, constructs, window readings."""
        strict = (STRICT_WINDOW,) if "strict" in self.readings else ()
        return self.policies + self.constructs + strict

    def feature_kind(self, label: str) -> str:
        """``policy``, ``construct`` or ``window`` for a label of this language;
        :class:`Unsupported` lists the labels when it is none of them."""
        if label in self.policies:
            return "policy"
        if label in self.constructs:
            return "construct"
        if label == STRICT_WINDOW:
            return "window"
        raise Unsupported(f"{self.name} has no feature {label!r}; its features: "
                          f"{', '.join(self.name + ':' + x for x in self.feature_labels())}")

    def reference(self, pattern: Any, s: Stream, policy: str, *, budget: Budget | None = None,
                  reading: str = "inclusive") -> set[Match]:
        """The reference result of a parsed ``pattern`` on ``s``."""
        self.check_policy(policy)
        self.check_reading(reading)
        return self.matches(pattern, s, policy, budget or Budget(), reading)

    def run(self, text: str, source: str, s: Stream, policy: str, budget: Budget,
            reading: str = "inclusive") -> set[Match]:
        """Parse ``text`` and return its matches on ``s`` under ``policy``."""
        self.check_policy(policy)
        return self.reference(self.parse(text, source), s, policy, budget=budget,
                              reading=reading)


@dataclass(frozen=True)
class _Builtin:
    """A built-in language not built yet: what is known of it without importing it."""

    build: Callable[[], Language]
    detect: Callable[[str], bool]
    #: the package whose modules define the language's pattern types
    package: str


class Registry(MutableMapping[str, Language]):
    """The registered languages by name, in registration order; a built-in entry is
    built (its modules imported) the first time it is read."""

    def __init__(self) -> None:
        self._entries: dict[str, Language | _Builtin] = {}

    def __getitem__(self, name: str) -> Language:
        entry = self._entries[name]
        if isinstance(entry, _Builtin):
            entry = self._entries[name] = entry.build()
        return entry

    def __setitem__(self, name: str, language: Language) -> None:
        self._entries[name] = language

    def __delitem__(self, name: str) -> None:
        del self._entries[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def add_builtin(self, name: str, builtin: _Builtin) -> None:
        """Add a built-in language, built on first read."""
        self._entries[name] = builtin

    def detects(self, name: str, text: str) -> bool:
        """Whether language ``name``'s ``detect`` accepts ``text`` (without building it)."""
        entry = self._entries[name]
        return entry.detect(text)

    def may_define(self, name: str, pattern: Any) -> bool:
        """Whether a pattern of ``pattern``'s class can be language ``name``'s: always
        for a built entry; for an unbuilt one, only if its package defines the class."""
        entry = self._entries[name]
        if isinstance(entry, _Builtin):
            module = type(pattern).__module__
            return module == entry.package or module.startswith(entry.package + ".")
        return True


#: The registered languages by name, in registration order.
LANGUAGES = Registry()


def register(language: Language) -> Language:
    """Add ``language`` to :data:`LANGUAGES` (its name must be new)."""
    if language.name in LANGUAGES:
        raise ValueError(f"language {language.name!r} is already registered")
    LANGUAGES[language.name] = language
    return language


def register_builtin(name: str, build: Callable[[], Language], detect: Callable[[str], bool],
                     package: str) -> None:
    """Add a language that ``build()`` makes on first use: ``detect`` must be the one
    ``build`` puts in its entry, ``package`` the package of its pattern types."""
    if name in LANGUAGES:
        raise ValueError(f"language {name!r} is already registered")
    LANGUAGES.add_builtin(name, _Builtin(build, detect, package))


def language_named(name: str) -> Language:
    """The registered language ``name``; a :class:`PatternError` lists the known ones."""
    if name not in LANGUAGES:
        raise PatternError(f"unknown pattern language {name!r}; known: {', '.join(LANGUAGES)}")
    return LANGUAGES[name]


def language_of(pattern: Any) -> Language:
    """The language a parsed ``pattern`` belongs to (the first registered one whose
    ``pattern_types`` has its class: SREMO before Wayeb, whose patterns are SREMO)."""
    for name in LANGUAGES:
        if LANGUAGES.may_define(name, pattern) and type(pattern) in LANGUAGES[name].pattern_types:
            return LANGUAGES[name]
    raise Unsupported(f"no registered pattern language has patterns of type "
                      f"{type(pattern).__name__}; known: {', '.join(LANGUAGES)}")


def detect_language(text: str, source: str = "<pattern>") -> Language:
    """The one registered language whose ``detect`` accepts ``text``."""
    found = [LANGUAGES[name] for name in LANGUAGES if LANGUAGES.detects(name, text)]
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
    regex = functools.cache(lambda: re.compile(_LEADING + pattern, re.IGNORECASE))
    return lambda text: regex().match(text) is not None


# ---------------------------------------------------------------- the languages

_SES_DETECT = starts_with(r"PATTERN\s*([<⟨]|\(\s*\{)")
_SREMO_DETECT = starts_with(r"(mark\b|\{|\(|!|ANY\s*\(|NEXT\s*\(|EPS\b|EMPTY\b)")
_WAYEB_DETECT = starts_with(r"[;+*#@!]\s*\(")
_OPERATOR_DETECT = starts_with(r"PATTERN\s*(?![<⟨]|\(\s*\{)[\w~(]")


def _ses() -> Language:
    # lazy: a language's modules when it is first asked for (tests/test_cli_imports.py)
    from kleene.reference.ses import features
    from kleene.reference.ses.pattern import SESPattern
    from kleene.reference.ses.policies import POLICIES, matches
    from kleene.reference.ses.pruning import pruning
    from kleene.reference.ses.text import format_ses, parse_ses

    return Language(
        name="ses", title="SES patterns (seed 000)",
        example="PATTERN <{a, b+}, {c}> WHERE ... WITHIN 10 s",
        detect=_SES_DETECT,
        parse=lambda text, source: parse_ses(text, source=source),
        matches=lambda p, s, policy, budget, reading: matches(p, s, policy, budget=budget,
                                                              reading=reading),
        policies=POLICIES, default_policy="any",
        variables=lambda p: p.names,
        format=format_ses,
        constructs=features.CONSTRUCTS, constructs_of=features.constructs,
        window=lambda p: p.window, pattern_types=(SESPattern,), pruning=pruning,
    )


def _sremo_matches(e: Any, s: Stream, policy: str, budget: Budget, reading: str) -> set[Match]:
    # lazy: a language's modules when it is first asked for (tests/test_cli_imports.py)
    from kleene.reference.sremo import matches

    return matches(e, s, budget, policy=policy, reading=reading)


def _sremo() -> Language:
    # lazy: a language's modules when it is first asked for (tests/test_cli_imports.py)
    from kleene.reference.sremo import features as sremo_features
    from kleene.reference.sremo import format_sremo, parse_sremo
    from kleene.reference.sremo.pruning import pruning

    return Language(
        name="sremo", title="SREMO expressions (seed 004)",
        example="mark {~.type = 'B'} -> r1 ; {TRUE}* ; mark {~.id = r1.id}",
        detect=_SREMO_DETECT,
        parse=lambda text, source: parse_sremo(text, source=source),
        matches=_sremo_matches,
        policies=("stream", "literal"), default_policy="stream",
        variables=lambda e: ("~",),
        format=format_sremo,
        constructs=sremo_features.CONSTRUCTS, constructs_of=sremo_features.constructs,
        window=lambda e: None, pattern_types=sremo_features.EXPRESSION_TYPES,
        readings=("inclusive", "strict"), pruning=pruning,
    )


def _wayeb() -> Language:
    # lazy: a language's modules when it is first asked for (tests/test_cli_imports.py)
    from kleene.reference.sremo import features as sremo_features
    from kleene.reference.sremo import format_sremo
    from kleene.reference.sremo.pruning import pruning
    from kleene.reference.sremo.wayeb import parse_sre

    def query(text: str, source: str) -> Any:
        queries = parse_sre(text, source=source)
        if len(queries) != 1:
            raise PatternError(f"{source} holds {len(queries)} queries joined by '&'; "
                               "run them one at a time")
        return queries[0]

    def parse(text: str, source: str) -> Any:
        return query(text, source).to_expression()

    return Language(
        name="wayeb", title="Wayeb .sre patterns (seed 004 benchmarks)",
        example=";(IsEventTypePredicate(BUY), IsEventTypePredicate(SELL)){window:5}",
        detect=_WAYEB_DETECT,
        parse=parse,
        matches=_sremo_matches,
        policies=("stream", "literal"), default_policy="stream",
        variables=lambda e: ("~",),
        format=format_sremo,
        constructs=sremo_features.CONSTRUCTS, constructs_of=sremo_features.constructs,
        window=lambda e: None, pattern_types=sremo_features.EXPRESSION_TYPES,
        readings=("inclusive", "strict"), default_reading="strict", pruning=pruning,
        windowed=lambda text, source, window, kind: query(text, source).windowed(window, kind),
    )


def _operator() -> Language:
    # lazy: a language's modules when it is first asked for (tests/test_cli_imports.py)
    from kleene.reference.operators import features as op_features
    from kleene.reference.operators.pattern import OperatorPattern
    from kleene.reference.operators.policies import POLICIES, matches
    from kleene.reference.operators.pruning import pruning
    from kleene.reference.operators.text import format_operator, parse_operator

    return Language(
        name="operator", title="operator patterns (SASE+, seed 003)",
        example="PATTERN SEQ(A a, B+ b[], C c) WHERE ... WITHIN 1 hour",
        detect=_OPERATOR_DETECT,
        parse=lambda text, source: parse_operator(text, source),
        matches=lambda p, s, policy, budget, reading: matches(p, s, policy, budget,
                                                              reading=reading),  # type: ignore[arg-type]
        policies=POLICIES, default_policy="any",
        variables=lambda p: p.names,
        format=format_operator,
        constructs=op_features.CONSTRUCTS, constructs_of=op_features.constructs,
        window=lambda p: p.window, pattern_types=(OperatorPattern,), pruning=pruning,
    )


register_builtin("ses", _ses, _SES_DETECT, "kleene.reference.ses")
register_builtin("sremo", _sremo, _SREMO_DETECT, "kleene.reference.sremo")
register_builtin("wayeb", _wayeb, _WAYEB_DETECT, "kleene.reference.sremo")
register_builtin("operator", _operator, _OPERATOR_DETECT, "kleene.reference.operators")
