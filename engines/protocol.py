"""The Engine protocol: what every engine offers the suite (docs/architecture.md, "Engines").

A :class:`Query` (:mod:`kleene.reference.query`, built once at a door) says
everything a backend needs to compute a match set: the pattern's language, the
pattern (parsed, and as text for backends in other languages), the selection
policy, the window reading (``inclusive`` or ``strict``) and the unit of the
timestamps. ``Engine.compile`` takes it whole.

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
- keeps no run state: a run counts into the :class:`Counters` its caller passes
  (``counters=``, an open mapping; the shared names are listed there) and draws
  on the caller's :class:`~kleene.reference.budget.Budget` (``budget=``), so one
  compiled automaton runs any number of times at once (threads, the tasks of a
  Spark job) and no run sees another's state.

Engines are found by name in the registry, :mod:`kleene.engines.registry`.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Protocol, runtime_checkable

from kleene.data.source import time_unit_of
from kleene.engines.spans import Window
from kleene.reference.budget import Budget
from kleene.reference.conditions import Condition
from kleene.reference.durations import Duration
from kleene.reference.errors import Unsupported
from kleene.reference.events import Event
from kleene.reference.match import Match
from kleene.reference.query import Feature, Query, WindowReading, all_features

__all__ = ["Compiled", "Counters", "Engine", "Feature", "Query", "Transition",
           "WindowReading", "all_features", "claims", "claims_policy", "enumerates_any", "missing",
           "require", "window_in_units"]


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
    """What a run did, counted where it happens (never estimated): an open mapping
    from counter name to count. The caller of a run makes it and reads it once the
    run's iterator is exhausted (:meth:`Compiled.run`); a run adds to it.

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

    def observe_active(self, active: int) -> None:
        """Record that ``active`` instances are alive now (updates the peak)."""
        if active > self.peak_instances:
            self.peak_instances = active

    def as_dict(self) -> dict[str, int]:
        """The counts by name, shared names first."""
        return dict(vars(self))


@runtime_checkable
class Compiled(Protocol):
    """A pattern compiled by an engine: transitions as data and an incremental run.

    ``initial`` and ``accepting`` are sets of states (a set of automata run in
    parallel, like the brute force of seed 000 Sec. 5.2, has several starts).
    The automaton holds what compiling decided, never what a run did: :meth:`run`
    counts into ``counters`` (the caller's, to read once the iterator is exhausted;
    ``None``: a fresh one nobody reads) and bounds the engine's own work by
    ``budget`` where its family draws on one (the NFAs' live instances).
    """

    @property
    def initial(self) -> frozenset[Hashable]: ...

    @property
    def accepting(self) -> frozenset[Hashable]: ...

    def iter_transitions(self) -> Iterator[Transition]: ...

    def run(self, events: Iterable[Event], *, counters: Counters | None = None,
            budget: Budget | None = None) -> Iterator[Match]: ...


@runtime_checkable
class Engine(Protocol):
    """An engine: a name, the features it claims, and ``compile``.

    ``compile`` takes the :class:`Query` a door built (the parsed pattern, the
    policy, the window reading, the unit of the timestamps: every setting decided
    there, none re-decided here) and raises :class:`Unsupported` for what it cannot
    run.
    """

    @property
    def name(self) -> str: ...

    @property
    def capabilities(self) -> frozenset[Feature]: ...

    def compile(self, query: Query) -> Compiled: ...


class Limitation(Unsupported):
    """A query an engine claims by its features but, as its docstring documents, cannot
    compile: a limit of its construction that no feature label names (``dsrt`` and a body
    that reads a register it writes: report Alg. 7's register copies). The command line
    prints it as any :class:`Unsupported`; the conformance runner reports the test
    *declined* by the engine, with this reason, never passed
    (:class:`kleene.conformance.backends.EngineBackend`)."""


def missing(engine: Engine, query: Query) -> frozenset[Feature]:
    """The features ``query`` needs that ``engine`` does not claim."""
    return query.features() - engine.capabilities


def claims(engine: Engine, query: Query) -> bool:
    """Whether ``engine`` claims to compute the reference's result of ``query`` exactly."""
    return not missing(engine, query)


def enumerates_any(engine: Engine, query: Query) -> bool:
    """Whether ``engine`` computes ``query``'s policy by enumerating every
    skip-till-any-match match of the pattern and keeping some (the NFAs' policies other
    than ``any``, :mod:`kleene.engines.nfa.engine`): its cost then grows with the product
    of the candidates whatever the matches kept. An engine says which policies it
    computes so in ``filtered_policies`` (none when it has no such attribute)."""
    return query.policy in getattr(engine, "filtered_policies", ())


def keyed_by(compiled: Compiled, events: Iterable[Event]) -> tuple[tuple[str, ...], int] | None:
    """The attributes whose parts a run of ``compiled`` on ``events`` enumerates one at a
    time (seed 001 Def. 6: the NFAs' chain over columns keyed by them,
    :mod:`kleene.engines.nfa.keyed`), so that an enumeration of every skip-till-any-match
    match costs the product of one part's candidates within a window, not of all parts';
    with the most events of one part within one window. ``None`` when it enumerates no
    part alone. A compiled automaton says so with ``keyed_by(events)`` (one without
    the method enumerates none)."""
    said = getattr(compiled, "keyed_by", None)
    return said(events) if callable(said) else None


def claims_policy(engine: Engine, language: str, policy: str) -> bool:
    """Whether ``engine`` claims ``policy`` for (some) patterns of ``language``."""
    return Feature(language, policy) in engine.capabilities


def require(engine: Engine, needed: Iterable[Feature]) -> None:
    """Raise :class:`Unsupported` naming every feature in ``needed`` that ``engine`` lacks."""
    absent = sorted(str(f) for f in set(needed) - engine.capabilities)
    if absent:
        raise Unsupported(f"engine {engine.name!r} does not support {', '.join(absent)}")


def window_in_units(window: Duration, compiled_unit: str | None,
                    events: Iterable[Event], reading: str = "inclusive") -> Window:
    """The run's :class:`~kleene.engines.spans.Window`: τ in timestamp units and
    ``reading`` (decided by :func:`~kleene.reference.durations.fits`): the unit
    given to ``compile`` wins, else the stream's own.

    A :class:`~kleene.reference.events.Stream` carries ``time_unit``; a plain
    iterable of events carries none, and a window with a unit then raises the
    reference's clear :class:`~kleene.reference.errors.PatternError`.
    """
    unit = compiled_unit if compiled_unit is not None else time_unit_of(events)
    return Window(window.in_units_of(unit), reading)
