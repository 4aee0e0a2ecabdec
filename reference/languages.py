"""The registry of pattern languages: what the rest of Kleene asks of a language.

One registry serves the command line, the conformance runner, the engines'
capability checks, the pruning decisions, the proofs and the demo: nothing
outside ``reference/<language>/`` asks a pattern which language it is in with
``isinstance``; it asks :func:`language_of`. Each language is one folder
under ``reference/`` whose ``registration.py`` holds its :class:`Language`
value (parser, printer, reference, policies and defaults, constructs, window,
pruning, the variables ``prev`` may read, its case files' prefixes, the
sections that define it, what Spark cannot run), and one line here that
registers it: SES patterns (seeds 000/001), operator patterns (seed 003),
SREMO (seed 004), Wayeb's ``.sre`` files, SQL's ``MATCH_RECOGNIZE`` (a query whose
first keyword is ``SELECT`` or ``WITH`` and that holds ``MATCH_RECOGNIZE``) and CORE's
CEQL (a query whose first keyword is ``SELECT`` and that holds no ``MATCH_RECOGNIZE``).
``detect`` looks at the pattern
text only (comments ``--`` and ``//`` and blank lines before the first keyword
are skipped), so a file needs no particular extension.

The built-in languages are registered lazily (:func:`register_builtin`): a
name, a ``detect``, where the value is and the package that defines their
patterns, so that
naming a language, detecting one or finding a pattern's language imports only
that language's modules (``kleene match`` on an SES pattern never imports the
operator or SREMO reference; issue 10, the startup floor). :data:`LANGUAGES`
builds an entry the first time it is read.
"""

from __future__ import annotations

import functools
import importlib
import re
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any
from typing import Literal as Choice

from kleene.reference.budget import Budget
from kleene.reference.durations import READINGS, Duration
from kleene.reference.errors import PatternError, Unsupported
from kleene.reference.events import Stream
from kleene.reference.match import Match
from kleene.reference.pruning import Pruning, whole_stream

#: Comments and white space before the first token of a pattern.
_LEADING = r"(?:\s+|--[^\n]*|//[^\n]*)*"

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
    readings: tuple[str, ...] = READINGS
    pruning: Callable[[Any, str], Pruning] = whole_stream
    default_reading: str = "inclusive"
    #: the selection strategy a pattern names itself (an operator pattern's ``USING``),
    #: ``None`` when it names none: the query's policy unless another is given
    pattern_policy: Callable[[Any], str | None] = lambda pattern: None
    #: ``windowed(text, source, window, window_type)``: the pattern with its own window
    #: replaced, and that window in words (``kleene match --window``); ``None``: the
    #: language's patterns carry no window to replace
    windowed: Callable[[str, str, Any, Any], tuple[Any, str]] | None = None
    #: the variables that bind several events (a ``prev`` on any other says nothing, and
    #: ``kleene match`` refuses it: :func:`kleene.reference.syntax.check_prev`); ``None``:
    #: the language has no variables ``prev`` could read
    repeated: Callable[[Any], frozenset[str]] | None = None
    #: the file-name prefixes of its conformance case files (conformance/CASES.md)
    case_prefixes: tuple[str, ...] = ()
    #: the seed sections that define its matches, ``(seed, section)`` (what a generated
    #: conformance test of the language cites)
    specification: tuple[tuple[str, str], ...] = ()
    #: the policies no Spark run supports, each with the reason (said before any job)
    spark_unsupported: Mapping[str, str] = field(default_factory=dict)
    #: what the floors above the reference provide for the language, each named
    #: ``module:attribute`` and imported only when asked for (:func:`hook`), as a built-in
    #: language itself is: ``generate``, a pattern generator for ``kleene conform
    #: --generated`` (:data:`kleene.conformance.generated.Generator`); ``prove``, the
    #: language's Z3 report for ``kleene prove`` (:class:`kleene.proofs.reports.ProofReport`).
    #: A key absent: the language has none (said in one line where it is asked for).
    hooks: Mapping[str, str] = field(default_factory=dict)
    #: what the reference answers: ``matches`` (a set of :class:`Match`, ``matches``) or
    #: ``tables`` (rows: ``MATCH_RECOGNIZE``, whose ``matches`` refuses)
    answers: Choice["matches", "tables"] = "matches"

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


@dataclass(frozen=True)
class _Builtin:
    """A built-in language not built yet: what is known of it without importing it."""

    #: ``module:attribute`` of its :class:`Language` value
    where: str
    detect: Callable[[str], bool]
    #: the package whose modules define the language's pattern types
    package: str

    def build(self) -> Language:
        module, _, attribute = self.where.partition(":")
        language = getattr(importlib.import_module(module), attribute)
        assert isinstance(language, Language)
        return language


class Registry(MutableMapping[str, Language]):
    """The registered languages by name, in registration order; a built-in entry is
    built (its modules imported) the first time it is read."""

    def __init__(self) -> None:
        self._entries: dict[str, Language | _Builtin] = {}
        self._detect: dict[str, Callable[[str], bool]] = {}
        self._suffixes: dict[str, str] = {}

    def __getitem__(self, name: str) -> Language:
        entry = self._entries[name]
        if isinstance(entry, _Builtin):
            entry = self._entries[name] = entry.build()
        return entry

    def __setitem__(self, name: str, language: Language) -> None:
        """Replace a registered language's entry (its ``detect`` stays): what a test
        does to plug in a variant; a new language goes through :func:`register`."""
        if name not in self._detect:
            raise KeyError(f"language {name!r} is not registered; use register()")
        self._entries[name] = language

    def __delitem__(self, name: str) -> None:
        del self._entries[name]
        del self._detect[name]
        self._suffixes = {s: n for s, n in self._suffixes.items() if n != name}

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def add(self, name: str, entry: Language | _Builtin, detect: Callable[[str], bool],
            suffixes: tuple[str, ...] = ()) -> None:
        """Add a language (a built-in one is built on first read), its ``detect`` and the
        file-name suffixes that name it (``.ses``; each suffix names one language)."""
        taken = [s for s in suffixes if s in self._suffixes]
        if taken:
            raise ValueError(f"file suffix(es) {', '.join(taken)} already name a language")
        self._entries[name] = entry
        self._detect[name] = detect
        self._suffixes.update(dict.fromkeys(suffixes, name))

    def named_by_suffix(self, source: str) -> str | None:
        """The language whose file suffix ``source`` (a file name) ends with, if any."""
        return self._suffixes.get(PurePath(source).suffix.lower())

    def detects(self, name: str, text: str) -> bool:
        """Whether language ``name``'s ``detect`` accepts ``text`` (without building it)."""
        return self._detect[name](text)

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


def register(language: Language, detect: Callable[[str], bool],
             suffixes: tuple[str, ...] = ()) -> Language:
    """Add ``language`` to :data:`LANGUAGES` (its name must be new); ``detect`` tells its
    texts from the other languages' (:func:`starts_with` builds one); a pattern file
    whose text no ``detect`` tells and whose name ends with one of ``suffixes`` is read
    as this language."""
    if language.name in LANGUAGES:
        raise ValueError(f"language {language.name!r} is already registered")
    LANGUAGES.add(language.name, language, detect, suffixes)
    return language


def register_builtin(name: str, where: str, detect: Callable[[str], bool],
                     package: str, suffixes: tuple[str, ...] = ()) -> None:
    """Add a language whose :class:`Language` value ``module:attribute`` (``where``) is
    imported on first use: ``detect`` tells its texts from the others', ``package`` is the
    package of its pattern types (the language's one folder under ``reference/``),
    ``suffixes`` the file-name endings that name it (:func:`detect_language`)."""
    if name in LANGUAGES:
        raise ValueError(f"language {name!r} is already registered")
    LANGUAGES.add(name, _Builtin(where, detect, package), detect, suffixes)


def hook(language: Language, key: str) -> Any | None:
    """What ``language``'s ``hooks[key]`` names (``module:attribute``, imported now), or
    ``None`` when the language has no such hook."""
    where = language.hooks.get(key)
    if where is None:
        return None
    module, _, attribute = where.partition(":")
    return getattr(importlib.import_module(module), attribute)


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
    """The one registered language whose ``detect`` accepts ``text``; when none or
    several do, the language the file's suffix names (``q.ses``), if any. The text
    decides first, so a file read as before is read the same; :func:`suffix_hint` says
    when a refused text's file name names another language."""
    found = [LANGUAGES[name] for name in LANGUAGES if LANGUAGES.detects(name, text)]
    if len(found) == 1:
        return found[0]
    by_suffix = LANGUAGES.named_by_suffix(source)
    if by_suffix is not None:
        return LANGUAGES[by_suffix]
    known = "; ".join(f"{lang.name}: {lang.example}" for lang in LANGUAGES.values())
    if not found:
        raise PatternError(f"cannot tell the pattern language of {source} (known: {known}); "
                           "name it with --language")
    raise PatternError(f"{source} reads as several languages "
                       f"({', '.join(lang.name for lang in found)}); name one with --language")


def suffix_hint(lang: Language, source: str) -> str | None:
    """When ``source``'s text was read as ``lang`` although the file's suffix names
    another language: what to add to the refusal (a ``.sql`` file of plain SQL reads as
    CEQL, whose parser then refuses it)."""
    named = LANGUAGES.named_by_suffix(source)
    if named is None or named == lang.name:
        return None
    return (f"read as {lang.name} by its text; its {PurePath(source).suffix} name says "
            f"{named}: name it with --language {named}")


def starts_with(pattern: str) -> Callable[[str], bool]:
    """A ``detect`` that accepts texts whose first tokens match the regex ``pattern``."""
    regex = functools.cache(lambda: re.compile(_LEADING + pattern, re.IGNORECASE))
    return lambda text: regex().match(text) is not None


# ---------------------------------------------------------------- the languages

_SES_DETECT = starts_with(r"PATTERN\s*([<⟨]|\(\s*\{)")
_SREMO_DETECT = starts_with(r"(mark\b|\{|\(|!|ANY\s*\(|NEXT\s*\(|EPS\b|EMPTY\b)")
_WAYEB_DETECT = starts_with(r"[;+*#@!]\s*\(")
_OPERATOR_DETECT = starts_with(r"PATTERN\s*(?![<⟨]|\(\s*\{)[\w~(]")
_MATCH_RECOGNIZE_DETECT = starts_with(r"(SELECT|WITH)\b(?=(?s:.*)\bMATCH_RECOGNIZE\b)")
_CEQL_DETECT = starts_with(r"SELECT\b(?!(?s:.*)\bMATCH_RECOGNIZE\b)")


register_builtin("ses", "kleene.reference.ses.registration:LANGUAGE", _SES_DETECT,
                 "kleene.reference.ses", suffixes=(".ses",))
register_builtin("sremo", "kleene.reference.sremo.registration:SREMO", _SREMO_DETECT,
                 "kleene.reference.sremo", suffixes=(".sremo",))
register_builtin("wayeb", "kleene.reference.sremo.registration:WAYEB", _WAYEB_DETECT,
                 "kleene.reference.sremo", suffixes=(".sre",))
register_builtin("operator", "kleene.reference.operators.registration:LANGUAGE",
                 _OPERATOR_DETECT, "kleene.reference.operators", suffixes=(".op",))
register_builtin("match_recognize", "kleene.reference.match_recognize.registration:LANGUAGE",
                 _MATCH_RECOGNIZE_DETECT, "kleene.reference.match_recognize",
                 suffixes=(".sql",))
register_builtin("ceql", "kleene.reference.ceql.registration:LANGUAGE", _CEQL_DETECT,
                 "kleene.reference.ceql", suffixes=(".ceql",))
