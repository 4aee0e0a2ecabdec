"""The Engine protocol: what every engine offers the suite (docs/architecture.md, "Engines").

A :class:`Query` says everything a backend needs to compute a match set: the
pattern's language, the pattern (parsed, and as text for backends in other
languages), the selection policy, the window reading (``inclusive``, the
default, or ``strict``) and the unit of the timestamps.

An :class:`Engine` has a ``name``, declares its ``capabilities`` (a frozenset
of :class:`Feature`, scoped by language: ``operator:next`` is not
``ses:next``) and compiles a pattern into a :class:`Compiled` automaton,
raising :class:`~kleene.reference.errors.Unsupported` with a reason for
anything else. It claims a feature only where it computes exactly what the
reference computes. A compiled automaton

- lists its transitions as data (:meth:`Compiled.iter_transitions`): source and
  target state, kind, the variable bound, the guard as a condition AST, the
  output mark and the register writes, so that drawing (``engines/draw.py``)
  and proofs (``proofs/automata.py``) read SES, NFA and SRT edges alike;
- runs incrementally (:meth:`Compiled.run`): one pass over the events, each
  match emitted as soon as it is final, memory bounded by the window;
- keeps :class:`Counters` of its last run (an open mapping; the shared names
  are listed there).

Engines are found by name in the registry, :mod:`kleene.engines.registry`.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol, runtime_checkable

from kleene.reference.conditions import Condition
from kleene.reference.durations import Duration
from kleene.reference.errors import Unsupported
from kleene.reference.events import Event
from kleene.reference.languages import (
    WINDOW_READINGS,
    Language,
    language_named,
    language_of,
)
from kleene.reference.match import Match

#: How a window bounds a match (see docs/semantics.md, "Windows").
WindowReading = Literal["inclusive", "strict"]


# ---------------------------------------------------------------- features


@dataclass(frozen=True, order=True)
class Feature:
    """A capability, scoped by language: the language itself, a construct, a
    selection policy or a window reading.

    Written ``ses`` (the language), ``ses:next`` (a policy), ``ses:group-variables``
    (a construct), ``operator:window-strict`` (the strict window reading; the
    inclusive one is the default and needs no feature). The vocabulary of each
    language is its registry entry's (:mod:`kleene.reference.languages`), so
    :meth:`parse` rejects a misspelt capability naming the choices.
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
    from kleene.reference.languages import LANGUAGES

    out: set[Feature] = set()
    for lang in LANGUAGES.values():
        out |= Feature.of(lang.name, *lang.feature_labels())
    return frozenset(out)


# ---------------------------------------------------------------- queries


@dataclass(frozen=True)
class Query:
    """Everything a backend needs to compute a match set.

    ``pattern`` is the parsed pattern of ``language``; ``text`` its text (what
    a backend in another language reads). ``window`` is the reading of the
    pattern's window, ``time_unit`` the unit of the timestamps (``None``: the
    stream's own, or unit-less).
    """

    language: str
    pattern: Any
    text: str
    policy: str
    window: WindowReading = "inclusive"
    time_unit: str | None = None

    def __post_init__(self) -> None:
        lang = language_named(self.language)
        lang.check_policy(self.policy)
        if self.window not in WINDOW_READINGS:
            raise Unsupported(f"unknown window reading {self.window!r}; choose one of "
                              f"{', '.join(WINDOW_READINGS)}")

    @classmethod
    def parse(cls, text: str, *, language: str | None = None, policy: str | None = None,
              window: WindowReading = "inclusive", time_unit: str | None = None,
              source: str = "<pattern>") -> Query:
        """The query of pattern ``text`` (its language detected unless named; the
        language's default policy unless one is given)."""
        from kleene.reference.languages import detect_language

        lang = language_named(language) if language else detect_language(text, source)
        pattern = lang.parse(text, source)
        return cls(lang.name, pattern, text, policy or lang.default_policy, window, time_unit)

    @classmethod
    def of(cls, pattern: Any, *, policy: str | None = None,
           window: WindowReading = "inclusive", time_unit: str | None = None) -> Query:
        """The query of a parsed ``pattern`` (its language found by its type)."""
        lang = language_of(pattern)
        return cls(lang.name, pattern, lang.format(pattern), policy or lang.default_policy,
                   window, time_unit)

    @property
    def lang(self) -> Language:
        """The registry entry of the query's language."""
        return language_named(self.language)

    def features(self) -> frozenset[Feature]:
        """What a backend must claim to run this query: the language, the pattern's
        constructs, the policy and, for ``strict``, the strict window reading."""
        labels = set(self.lang.constructs_of(self.pattern)) | {self.policy}
        if self.window == "strict":
            labels.add("window-strict")
        return Feature.of(self.language, *labels)


# ---------------------------------------------------------------- automata


@dataclass(frozen=True, slots=True)
class Transition:
    """One transition as data: ``source --kind variable [guard] / mark, writes--> target``.

    States are any hashable values (the SES automaton uses frozensets of
    variable names, seed 000 Def. 3). ``guard`` is a condition AST, printable
    with :func:`kleene.reference.condition_text.format_condition`. ``kind`` names the
    edge: ``bind`` (takes the event for ``variable``), ``skip`` (reads it and
    keeps the state), ``epsilon`` (reads nothing; its guard is ``TRUE``).
    ``mark`` is the output of an SRT edge (``True`` marked, ``False`` not,
    ``None`` no output: SES and NFA edges); ``writes`` the registers it stores
    the event in (seed 004 report Def. 4).
    """

    source: Hashable
    target: Hashable
    variable: str | None
    guard: Condition
    kind: str = "bind"
    mark: bool | None = None
    writes: tuple[str, ...] = ()


class Counters:
    """What the last run did, counted where it happens (never estimated): an open
    mapping from counter name to count.

    Shared names (every engine that does the thing counts it under this name):

    - ``instances_created``: automaton instances (runs) started or cloned;
    - ``peak_instances``: the most instances alive between two events
      (|Ω| after an event, seed 000 Alg. 1 line 15; :meth:`observe_active`);
    - ``predicate_evaluations``: conditions evaluated on events;
    - ``buffer_operations``: events stored in or removed from buffers;
    - ``events_read``: events the engine was given;
    - ``events_filtered``: events dropped by a filter before any instance saw them.

    An engine family adds its own (the match-window framework counts
    ``calls_to_a`` and ``events_to_a``, seed 001 Algorithm 1). Reading a name
    never counted gives 0, so ``counters.calls_to_a += 1`` needs no declaration.
    """

    SHARED: ClassVar[tuple[str, ...]] = ("instances_created", "peak_instances",
                                         "predicate_evaluations", "buffer_operations",
                                         "events_read", "events_filtered")

    instances_created: int
    peak_instances: int
    predicate_evaluations: int
    buffer_operations: int
    events_read: int
    events_filtered: int

    if TYPE_CHECKING:  # any other name is a counter too (no runtime cost in hot loops)
        def __setattr__(self, name: str, value: int) -> None: ...

    def __init__(self, **counts: int) -> None:
        for name in self.SHARED:
            setattr(self, name, 0)
        for name, value in counts.items():
            setattr(self, name, value)

    def __getattr__(self, name: str) -> int:
        # only called for names not set yet: an uncounted counter is 0
        if name.startswith("_"):
            raise AttributeError(name)
        return 0

    def __getitem__(self, name: str) -> int:
        return int(getattr(self, name))

    def __setitem__(self, name: str, value: int) -> None:
        setattr(self, name, value)

    def __iter__(self) -> Iterator[str]:
        return iter(vars(self))

    def __len__(self) -> int:
        return len(vars(self))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Counters) and vars(self) == vars(other)

    def __repr__(self) -> str:
        return f"Counters({', '.join(f'{k}={v}' for k, v in vars(self).items())})"

    def reset(self) -> None:
        """Set every counter back to zero (a run starts with this)."""
        for name in vars(self):
            setattr(self, name, 0)

    def observe_active(self, active: int) -> None:
        """Record that ``active`` instances are alive now (updates the peak)."""
        if active > self.peak_instances:
            self.peak_instances = active

    def as_dict(self) -> dict[str, int]:
        """The counts by name, shared names first."""
        return dict(vars(self))


class Pictured:
    """A compiled automaton that shows its picture in a notebook (Jupyter calls
    ``_repr_svg_``): the drawing of :mod:`kleene.engines.draw`, read through
    ``iter_transitions`` like every picture. Compiled classes inherit it."""

    def _repr_svg_(self) -> str:
        from kleene.engines.draw import draw

        return draw(self, "svg").decode("utf-8")  # type: ignore[arg-type]


@runtime_checkable
class Compiled(Protocol):
    """A pattern compiled by an engine: transitions as data, an incremental run, counters.

    ``initial`` and ``accepting`` are sets of states (a set of automata run in
    parallel, like the brute force of seed 000 Sec. 5.2, has several starts).
    """

    counters: Counters

    @property
    def initial(self) -> frozenset[Hashable]: ...

    @property
    def accepting(self) -> frozenset[Hashable]: ...

    def iter_transitions(self) -> Iterator[Transition]: ...

    def run(self, events: Iterable[Event]) -> Iterator[Match]: ...


@runtime_checkable
class Engine(Protocol):
    """An engine: a name, the features it claims, and ``compile``.

    ``compile`` takes the parsed pattern, the policy (default: the language's,
    ``any`` for every language but SREMO), the unit of the timestamps and the
    window reading, and raises :class:`Unsupported` for what it cannot run.
    """

    @property
    def name(self) -> str: ...

    @property
    def capabilities(self) -> frozenset[Feature]: ...

    def compile(self, pattern: Any, *, policy: str = "any", time_unit: str | None = None,
                window: WindowReading = "inclusive") -> Compiled: ...


def missing(engine: Engine, query: Query) -> frozenset[Feature]:
    """The features ``query`` needs that ``engine`` does not claim."""
    return query.features() - engine.capabilities


def claims(engine: Engine, query: Query) -> bool:
    """Whether ``engine`` claims to compute the reference's result of ``query`` exactly."""
    return not missing(engine, query)


def claims_policy(engine: Engine, language: str, policy: str) -> bool:
    """Whether ``engine`` claims ``policy`` for (some) patterns of ``language``."""
    return Feature(language, policy) in engine.capabilities


def require(engine: Engine, needed: Iterable[Feature]) -> None:
    """Raise :class:`Unsupported` naming every feature in ``needed`` that ``engine`` lacks."""
    absent = sorted(str(f) for f in set(needed) - engine.capabilities)
    if absent:
        raise Unsupported(f"engine {engine.name!r} does not support {', '.join(absent)}")


def compile_query(engine: Engine, query: Query) -> Compiled:
    """``engine`` compiled for ``query`` (the one place the query's fields meet ``compile``)."""
    return engine.compile(query.pattern, policy=query.policy, time_unit=query.time_unit,
                          window=query.window)


def window_in_units(window: Duration, compiled_unit: str | None,
                    events: Iterable[Event], reading: str = "inclusive") -> int | float:
    """τ in timestamp units as the inclusive bound of ``reading``
    (:meth:`~kleene.reference.durations.Duration.bound`): the unit given to
    ``compile`` wins, else the stream's own.

    A :class:`~kleene.reference.events.Stream` carries ``time_unit``; a plain
    iterable of events carries none, and a window with a unit then raises the
    reference's clear :class:`~kleene.reference.errors.PatternError`.
    """
    unit = compiled_unit if compiled_unit is not None else getattr(events, "time_unit", None)
    return window.bound(unit, reading)
