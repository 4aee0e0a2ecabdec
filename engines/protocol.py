"""The Engine protocol: what every engine offers the suite (DESIGN.md, "Engines").

An :class:`Engine` has a ``name``, declares its ``capabilities`` (a frozenset
of :class:`Feature`: the languages, constructs and selection policies it
matches *exactly* against the reference) and compiles a pattern into a
:class:`Compiled` automaton, raising :class:`~kleene.reference.errors.Unsupported`
with a reason for anything else. A compiled automaton

- lists its transitions as data (:meth:`Compiled.iter_transitions`): source
  and target state, the variable bound, the guard as a condition AST, so that
  drawing (``engines/draw.py``) and proofs read every engine the same way;
- runs incrementally (:meth:`Compiled.run`): one pass over the events, each
  match emitted as soon as it is final, memory bounded by the window;
- keeps :class:`Counters` of its last run: automaton instances created, the
  peak of simultaneously active instances (|Ω| of seed 000 Sec. 4.4 and
  Sec. 5.3), predicate evaluations, buffer operations and, for the match-window
  framework of seed 001 (Algorithm 1), calls to A and the events passed to A.

Engines are found by name in a registry (STYLE.md 4: the backend is chosen in
one place and fails loudly): :func:`engine` imports the built-in engine
families on first use and raises :class:`UnknownEngine` naming the choices.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import asdict, dataclass, fields
from enum import Enum
from typing import Any, Protocol, runtime_checkable

from kleene.reference.conditions import Condition
from kleene.reference.durations import Duration
from kleene.reference.errors import KleeneError, Unsupported
from kleene.reference.events import Event
from kleene.reference.match import Match


class Feature(Enum):
    """A capability an engine can claim: a language, a construct or a policy."""

    # languages (DESIGN.md, "The three pattern languages")
    SES = "language:ses"
    OPERATOR = "language:operator"
    SREMO = "language:sremo"
    # constructs
    GROUP_VARIABLES = "construct:group-variables"   # v+ of seed 000 Def. 1
    PREV = "construct:prev"                         # prev(v.A) of seed 001 Def. 1
    DISJUNCTION = "construct:or"
    NEGATION = "construct:not"
    KLEENE = "construct:kleene"
    AGGREGATES = "construct:aggregates"
    # selection policies (kleene.reference.ses.policies)
    ANY = "policy:any"
    NEXT = "policy:next"
    NEXT_LITERAL = "policy:next-literal"
    EARLIEST_MAXIMAL = "policy:earliest-maximal"
    CONTIGUOUS = "policy:contiguous"
    PARTITION_CONTIGUOUS = "policy:partition-contiguous"

    @property
    def kind(self) -> str:
        """``language``, ``construct`` or ``policy``."""
        return self.value.split(":", 1)[0]

    @property
    def label(self) -> str:
        """The name after the kind: ``ses``, ``group-variables``, ``next``."""
        return self.value.split(":", 1)[1]

    @classmethod
    def policy(cls, name: str) -> Feature:
        """The feature of selection policy ``name``; raises :class:`Unsupported` if unknown."""
        try:
            return cls("policy:" + name)
        except ValueError:
            known = ", ".join(f.label for f in cls if f.kind == "policy")
            raise Unsupported(f"unknown policy {name!r}; known policies: {known}") from None


@dataclass(frozen=True, slots=True)
class Transition:
    """One transition as data: ``source --variable [guard]--> target``.

    States are any hashable values (the SES automaton uses frozensets of
    variable names, seed 000 Def. 3); ``guard`` is a condition AST, printable
    with :func:`kleene.reference.syntax.format_condition`.
    """

    source: Hashable
    target: Hashable
    variable: str | None
    guard: Condition


@dataclass
class Counters:
    """What the last run did, counted where it happens (never estimated).

    ``peak_instances`` is the largest number of automaton instances alive
    between two events (|Ω| after an event is processed, seed 000 Alg. 1
    line 15); ``events_filtered`` counts the events dropped by the filter of
    seed 000 Sec. 4.5 before any instance saw them.
    """

    instances_created: int = 0
    peak_instances: int = 0
    predicate_evaluations: int = 0
    buffer_operations: int = 0
    calls_to_a: int = 0
    events_to_a: int = 0
    events_read: int = 0
    events_filtered: int = 0

    def reset(self) -> None:
        """Set every counter back to zero (a run starts with this)."""
        for f in fields(self):
            setattr(self, f.name, 0)

    def observe_active(self, active: int) -> None:
        """Record that ``active`` instances are alive now (updates the peak)."""
        if active > self.peak_instances:
            self.peak_instances = active

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


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
    """An engine: a name, the features it claims, and ``compile``."""

    name: str
    capabilities: frozenset[Feature]

    def compile(self, pattern: Any, *, policy: str = "next",
                time_unit: str | None = None) -> Compiled: ...


def claims(engine: Engine, policy: str) -> bool:
    """Whether ``engine`` claims to match the reference under ``policy`` exactly."""
    return Feature.policy(policy) in engine.capabilities


def require(engine: Engine, needed: Iterable[Feature]) -> None:
    """Raise :class:`Unsupported` naming every feature in ``needed`` that ``engine`` lacks."""
    missing = sorted(f.value for f in set(needed) - engine.capabilities)
    if missing:
        raise Unsupported(f"engine {engine.name!r} does not support {', '.join(missing)}")


def window_in_units(window: Duration, compiled_unit: str | None,
                    events: Iterable[Event]) -> int | float:
    """τ in timestamp units: the unit given to ``compile`` wins, else the stream's own.

    A :class:`~kleene.reference.events.Stream` carries ``time_unit``; a plain
    iterable of events carries none, and a window with a unit then raises the
    reference's clear :class:`~kleene.reference.errors.PatternError`.
    """
    unit = compiled_unit if compiled_unit is not None else getattr(events, "time_unit", None)
    return window.in_units_of(unit)

# ---------------------------------------------------------------- registry


class UnknownEngine(KleeneError):
    """No engine is registered under the name asked for."""

    code = "engine"


#: Modules that register the built-in engine families when imported.
BUILTIN_MODULES: tuple[str, ...] = (
    "kleene.engines.ses",
    "kleene.engines.windows",
)

_REGISTRY: dict[str, Callable[[], Engine]] = {}


def register(name: str, factory: Callable[[], Engine]) -> None:
    """Register ``factory`` (a callable returning a fresh engine) under ``name``."""
    known = _REGISTRY.get(name)
    if known is not None and known.__module__ != factory.__module__:
        raise ValueError(f"an engine named {name!r} is already registered by {known.__module__}")
    _REGISTRY[name] = factory


def _load_builtins() -> None:
    for module in BUILTIN_MODULES:
        importlib.import_module(module)


def engine_names() -> tuple[str, ...]:
    """The names of all registered engines, sorted."""
    _load_builtins()
    return tuple(sorted(_REGISTRY))


def engine(name: str) -> Engine:
    """A fresh engine registered as ``name``; :class:`UnknownEngine` lists the choices."""
    _load_builtins()
    if name not in _REGISTRY:
        raise UnknownEngine(f"no engine named {name!r}; registered engines: "
                            f"{', '.join(sorted(_REGISTRY)) or '(none)'}")
    return _REGISTRY[name]()
