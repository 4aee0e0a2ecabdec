"""A query: everything that decides a match set, decided once, at the door.

A match set is decided by the pattern (its language and its parsed AST), the
selection policy, how the window bounds a match (its *reading*:
docs/semantics.md, "Window readings"), the unit of the timestamps and, for a
Wayeb ``.sre`` file, the window the file or the user gives it. Every door of
Kleene (``kleene match|stream|draw|trace|prove|conform``, ``find_matches``,
``match_dataframe``, the backend protocol) builds one :class:`Query` with
:meth:`Query.parse` (from text) or :meth:`Query.of` (from an AST) and passes
it unchanged to the reference (:meth:`Language.reference`), an engine's
``compile``, the Spark plan and the report; nothing below a door takes a loose
``policy=`` or ``window=`` argument or re-derives a default.

A language answers matches or tables (its registry entry's ``answers``): a
``MATCH_RECOGNIZE`` statement's answer is rows. Which path a door takes is decided
here, once, by :attr:`Query.answers_tables`; a door that answers only matches
(``kleene stream``, ``kleene match --spark``, ``find_matches``, ``match_dataframe``,
``match_file``, ``ContinuousMatch``) asks :meth:`Query.matches_at`, which refuses a
table query in one line naming :data:`TABLE_DOORS`, the doors that answer tables.

Every default comes from the language registry (:mod:`kleene.reference.languages`):
the language's ``default_policy`` and ``default_reading`` (a ``.sre`` file is
read strictly, as Wayeb reads it; every other language inclusively, as the
papers do). A choice the language does not have (a policy, a window reading,
a time unit) is one :class:`~kleene.reference.errors.PatternError` line naming
the choices, raised when the query is built, before any event is read.

:class:`Feature` is the vocabulary engines claim in (``ses:next``,
``operator:window-strict``); :meth:`Query.features` is what a query needs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar, cast

from kleene.reference.budget import Budget
from kleene.reference.durations import WindowReading
from kleene.reference.errors import PatternError, PatternSyntaxError, Unsupported
from kleene.reference.events import UNIT_MS, Stream
from kleene.reference.languages import (
    LANGUAGES,
    STRICT_WINDOW,
    Language,
    detect_language,
    language_named,
    language_of,
    suffix_hint,
)
from kleene.reference.match import Match
from kleene.reference.pattern import Pattern

# ---------------------------------------------------------------- features


@dataclass(frozen=True, order=True)
class Feature:
    """A capability, scoped by language: the language itself, a construct, a
    selection policy or a window reading.

    Written ``ses`` (the language), ``ses:next`` (a policy), ``ses:group-variables``
    (a construct), ``operator:window-strict`` (the strict window reading; the
    inclusive one is the default and needs no feature). The vocabulary of each
    language is its registry entry's, so :meth:`parse` rejects a misspelt
    capability naming the choices.
    """

    language: str
    label: str = ""

    @property
    def kind(self) -> str:
        """``language``, ``policy``, ``construct`` or ``window``."""
        if not self.label:
            return "language"
        return language_named(self.language).feature_kind(self.label)

    def __str__(self) -> str:
        return f"{self.language}:{self.label}" if self.label else self.language

    @classmethod
    def of(cls, language: str, *labels: str) -> frozenset[Feature]:
        """The language feature and ``language:label`` for each label, validated."""
        lang = language_named(language)
        for label in labels:
            lang.feature_kind(label)
        return frozenset({cls(language)} | {cls(language, label) for label in labels})

    @classmethod
    def policy(cls, language: str, name: str) -> Feature:
        """The feature of selection policy ``name`` of ``language``; :class:`Unsupported`
        names the language's policies when it has no such policy."""
        lang = language_named(language)
        if name not in lang.policies:
            raise Unsupported(f"unknown policy {name!r} for {lang.title}; known policies: "
                              f"{', '.join(lang.policies)}")
        return cls(language, name)

    @classmethod
    def parse(cls, text: str) -> Feature:
        """The feature written ``text`` (``ses``, ``ses:next``, ...); :class:`Unsupported`
        says what is wrong and lists the choices."""
        language, _, label = text.strip().partition(":")
        lang = language_named(language)
        if label:
            lang.feature_kind(label)
        return cls(language, label)


def all_features() -> frozenset[Feature]:
    """Every feature every registered language defines (what a complete engine claims)."""
    out: set[Feature] = set()
    for lang in LANGUAGES.values():
        out |= Feature.of(lang.name, *lang.feature_labels())
    return frozenset(out)


# ---------------------------------------------------------------- queries

#: The doors that answer a query whose language answers tables (``MATCH_RECOGNIZE``).
TABLE_DOORS = "kleene match --pattern FILE --events FILE (--spark too), kleene stream " \
    "(SELECT * FROM t MATCH_RECOGNIZE (...) alone), or kleene.match(sql, data) in Python"


@dataclass(frozen=True)
class Query:
    """Everything that decides a match set (see the module docstring).

    ``pattern`` is the parsed pattern of ``language`` (a ``.sre`` file's, with its
    window applied), ``text`` the text it was parsed from (what a backend in another
    language reads), ``policy`` the selection policy, ``reading`` the window reading,
    ``time_unit`` the unit of the timestamps (``None``: the stream's own, or
    unit-less), ``window`` the window in words (for :meth:`said`), ``source`` where
    the text came from (what errors name). Built by :meth:`parse` or :meth:`of`,
    which take every default from the language registry; the constructor checks
    every field against the language.
    """

    language: str
    pattern: Pattern
    text: str
    policy: str
    reading: WindowReading = "inclusive"
    time_unit: str | None = None
    window: str = "no window"
    source: str = "<pattern>"

    def __post_init__(self) -> None:
        lang = language_named(self.language)
        if self.policy not in lang.policies:
            raise PatternError(f"unknown policy {self.policy!r} for {lang.title}; choose one "
                               f"of {', '.join(lang.policies)}")
        if self.reading not in lang.readings:
            raise PatternError(f"unknown window reading {self.reading!r} for {lang.title}; "
                               f"choose one of {', '.join(lang.readings)}")
        if self.time_unit is not None and self.time_unit.lower() not in UNIT_MS:
            raise PatternError(f"unknown time unit {self.time_unit!r}; choose one of "
                               "ms, s, min, h, d")
        if type(self.pattern) not in lang.pattern_types:
            raise PatternError(f"a {type(self.pattern).__name__} is not a pattern of "
                               f"{lang.title}")
        own = lang.pattern_policy(self.pattern)
        if own is not None and own != self.policy:
            raise PatternError(f"the pattern names the policy {own!r} itself, not "
                               f"{self.policy!r}; drop one of the two")

    @classmethod
    def parse(cls, text: str, *, language: str | None = None, policy: str | None = None,
              reading: str | None = None, time_unit: str | None = None,
              window: int | float | None = None, window_type: str | None = None,
              source: str = "<pattern>") -> Query:
        """The query of pattern ``text``: its language detected unless named, and the
        language's default policy and reading unless given. ``window`` and
        ``window_type`` replace a Wayeb ``.sre`` file's own window (``kleene match
        --window``); a language whose patterns carry their window in the text has no
        such override, and saying one is an error."""
        lang = language_named(language) if language else detect_language(text, source)
        if lang.windowed is None:
            if window is not None or window_type is not None:
                raise PatternError(f"a window override (--window, --window-type) applies to "
                                   f"Wayeb .sre patterns, not to {lang.title}; write the "
                                   "window in the pattern")
            pattern = _parsed(lambda: lang.parse(text, source), lang, source, language)
            words = window_words(lang, pattern)
        else:
            windowed = lang.windowed
            try:
                pattern, words = _parsed(lambda: windowed(text, source, window, window_type),
                                         lang, source, language)
            except ValueError as err:
                raise PatternError(f"window: {err}") from None
        return cls(lang.name, pattern, text, _policy(lang, pattern, policy),
                   _reading(reading or lang.default_reading), time_unit,
                   words or "no window", source)

    @classmethod
    def of(cls, pattern: Pattern, *, language: str | None = None, policy: str | None = None,
           reading: str | None = None, time_unit: str | None = None) -> Query:
        """The query of a parsed ``pattern``: its language found by its type unless
        named (a Wayeb pattern is a SREMO expression: name ``wayeb`` to read it as
        one), the language's default policy and reading unless given."""
        lang = language_named(language) if language else language_of(pattern)
        return cls(lang.name, pattern, lang.format(pattern), _policy(lang, pattern, policy),
                   _reading(reading or lang.default_reading), time_unit,
                   window_words(lang, pattern))

    @classmethod
    def ask(cls, pattern: str | Pattern | Query, *, language: str | None = None,
            policy: str | None = None, reading: str | None = None,
            time_unit: str | None = None, door: str = "this door") -> Query:
        """The query of a Python API door that answers matches (``find_matches``,
        ``match_dataframe``, named by ``door``): a :class:`Query` as it is, pattern text
        through :meth:`parse`, an AST through :meth:`of`. A query comes with its
        settings: giving them again is an error, not a second decision. A query that
        answers tables is refused here (:meth:`matches_at`)."""
        return cls.decide(pattern, language=language, policy=policy, reading=reading,
                          time_unit=time_unit).matches_at(door)

    @classmethod
    def decide(cls, pattern: str | Pattern | Query, *, language: str | None = None,
               policy: str | None = None, reading: str | None = None,
               time_unit: str | None = None) -> Query:
        """The query of a door that answers matches or tables (:func:`kleene.match`):
        as :meth:`ask`, without refusing a query that answers tables."""
        if isinstance(pattern, Query):
            given = [name for name, value in (("language", language), ("policy", policy),
                                              ("reading", reading), ("time_unit", time_unit))
                     if value is not None and value != getattr(pattern, name)]
            if given:
                raise PatternError(f"the query already says its {', '.join(given)}; build it "
                                   "with them (Query.parse or Query.of)")
            return pattern
        if isinstance(pattern, str):
            return cls.parse(pattern, language=language, policy=policy, reading=reading,
                             time_unit=time_unit)
        return cls.of(pattern, language=language, policy=policy, reading=reading,
                      time_unit=time_unit)

    @property
    def lang(self) -> Language:
        """The registry entry of the query's language."""
        return language_named(self.language)

    @property
    def answers_tables(self) -> bool:
        """Whether the query's answer is a table (rows), not a set of matches: its
        language's registry entry says so (``answers``). The one place a door asks."""
        return self.lang.answers == "tables"

    def matches_at(self, door: str) -> Query:
        """The query itself, at ``door``, a door that answers matches only; a query that
        answers tables is one :class:`Unsupported` line naming the doors that can."""
        if self.answers_tables:
            raise Unsupported(f"{door} answers matches, and a {self.language} query answers "
                              f"a table: run it with {TABLE_DOORS}")
        return self

    def with_time_unit(self, time_unit: str | None) -> Query:
        """The same query with the timestamps' unit the events turned out to have (a
        stock file's and a datetime column's are ms): only when the door did not say
        one, since a unit the user gave is never re-decided."""
        if self.time_unit is not None or time_unit is None:
            return self
        return dataclasses.replace(self, time_unit=time_unit)

    def features(self) -> frozenset[Feature]:
        """What a backend must claim to run this query: the language, the pattern's
        constructs, the policy and, for ``strict``, the strict window reading."""
        labels = set(self.lang.constructs_of(self.pattern)) | {self.policy}
        if self.reading == "strict":
            labels.add(STRICT_WINDOW)
        return Feature.of(self.language, *labels)

    def reference(self, s: Stream, *, budget: Budget | None = None) -> set[Match]:
        """The reference result of the query on ``s``: the oracle every engine is checked
        against (the language's definition, drawing on ``budget``)."""
        return self.lang.matches(self.pattern, s, self.policy, budget or Budget(), self.reading)

    def said(self) -> str:
        """Which window and reading the query uses, in words: what every door says on
        stderr (``window 264 hours, read inclusive (max ts - min ts <= τ)``). A query
        bounded in positions only (a count window) or not at all has no reading to say."""
        if not self.timed():
            return self.window
        how = "max ts - min ts < τ" if self.reading == "strict" else "max ts - min ts <= τ"
        return f"{self.window}, read {self.reading} ({how})"

    def timed(self) -> bool:
        """Whether a window bounds the query's matches in time (so its reading matters)."""
        lang = self.lang
        return lang.window(self.pattern) is not None or \
            "time-window" in lang.constructs_of(self.pattern)


def window_words(lang: Language, pattern: Pattern) -> str:
    """The window of ``pattern`` in words: its ``WITHIN`` (SES, operator patterns), or
    which windows a SREMO expression keeps inside it (``e[WITHIN τ]``, ``e[1..w]``)."""
    window = lang.window(pattern)
    if window is not None:
        return f"window {window}"
    constructs = lang.constructs_of(pattern)
    if "time-window" in constructs:
        return "the expression's time windows"
    return "the expression's count windows" if "window" in constructs else "no window"


_T = TypeVar("_T")


def _parsed(parse: Callable[[], _T], lang: Language, source: str, named: str | None) -> _T:
    """What ``parse`` returns; a syntax error of a file whose text was read as ``lang``
    (no ``named`` language) while its name's suffix names another says so
    (:func:`suffix_hint`)."""
    try:
        return parse()
    except PatternSyntaxError as err:
        hint = None if named else suffix_hint(lang, source)
        if hint is None:
            raise
        raise PatternSyntaxError(f"{err.message} ({hint})", line=err.line, column=err.column,
                                 source=err.source, text=err.text) from None


def _policy(lang: Language, pattern: Pattern, policy: str | None) -> str:
    """The policy given, else the one the pattern names itself, else the language's."""
    return policy or lang.pattern_policy(pattern) or lang.default_policy


def _reading(text: str) -> WindowReading:
    """``text`` as a window reading (checked against the language by the constructor)."""
    return cast(WindowReading, text)
