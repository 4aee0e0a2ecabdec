"""The Python API of ``kleene match``: the matches of a pattern on events, computed
by the fastest registered engine that claims the query exactly, else by the
reference semantics (docs/architecture.md, "Engines").

Example::

    from kleene.engines.fastest import find_matches
    from kleene.data.loaders import load_events

    found = find_matches(open("examples/chemo/q1.ses").read(),
                         load_events("examples/chemo/chemo.csv", time_unit="h"),
                         policy="next")
    found.matches, found.backend        # a set of Match, "windows+ses"
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from kleene.engines.protocol import Compiled, Counters, Engine, Query, missing
from kleene.engines.registry import engine, fastest_engine
from kleene.reference.budget import Budget
from kleene.reference.errors import Unsupported
from kleene.reference.events import Event, Stream
from kleene.reference.match import Match
from kleene.reference.pattern import Pattern

#: The backend name of the reference semantics.
REFERENCE = "reference"


@dataclass(frozen=True)
class Found:
    """The matches, the backend that computed them (an engine name or ``reference``),
    why that backend, and the query as the door decided it (:meth:`Query.said` says
    which window and reading it used)."""

    matches: set[Match]
    backend: str
    reason: str
    query: Query


def choose(query: Query) -> tuple[str, str]:
    """The backend for ``query`` and why: the fastest claiming engine, else ``reference``."""
    choice = fastest_engine(query)
    if choice is None:
        return REFERENCE, (f"no registered engine claims this {query.language} pattern under "
                           f"policy {query.policy}")
    return choice.name, choice.reason


def claiming_engine(name: str, query: Query, choices: str) -> Engine:
    """The registered engine ``name``; ``Unsupported`` (one line naming what it does not
    claim, what it claims, and the options to change: ``choices``) when it does not claim
    ``query``."""
    eng = engine(name)
    absent = missing(eng, query)
    if absent:
        claimed = sorted(str(f) for f in eng.capabilities)
        raise Unsupported(f"engine {name!r} does not claim {', '.join(sorted(map(str, absent)))} "
                          f"(it claims: {', '.join(claimed) or 'nothing'}); choose another "
                          f"{choices}")
    return eng


def run_engine(name: str, query: Query, source: Iterable[Event], *,
               budget: Budget | None = None) -> tuple[set[Match], Counters]:
    """The matches of the registered engine ``name`` on ``source`` (a stream, or an
    iterable reading it, e.g. a progress bar) and the counters of its run (made here,
    :meth:`~kleene.engines.protocol.Compiled.run`): the one way Kleene runs a
    named engine. ``Unsupported`` (one line, naming what is not claimed) when the engine
    does not claim ``query``. A ``budget`` is spent one step per match reported (its
    deadline and memory ceiling are watched by the caller), so an exponential match set
    (a group variable under ``any``) stops with its error; an engine that bounds its own
    work (the NFAs' instances) draws on it too."""
    compiled = claiming_engine(name, query, "--engine or --policy").compile(query)
    counters = Counters()
    if budget is None:
        return set(compiled.run(source, counters=counters)), counters
    budget.what = f"running engine {name}"
    return set(spent(compiled, source, counters, budget)), counters


def spent(compiled: Compiled, source: Iterable[Event], counters: Counters,
          budget: Budget) -> Iterator[Match]:
    """The matches of ``compiled`` on ``source`` within ``budget``: one step per match
    reported, and the engine's own work (the NFAs' instances) drawn from it too; past it,
    :class:`~kleene.reference.errors.BudgetExceeded`."""
    for m in compiled.run(source, counters=counters, budget=budget):
        budget.spend()
        yield m


def find_matches(pattern: str | Pattern | Query, stream: Stream, *,
                 policy: str | None = None, reading: str | None = None,
                 engine_name: str | None = None, budget: Budget | None = None,
                 events: Iterable[Event] | None = None) -> Found:
    """The matches of ``pattern`` (text, AST or a :class:`Query`) on ``stream``, as
    ``kleene match`` computes them: the query is decided here, once
    (:meth:`Query.ask`: the language's default policy and window reading unless
    ``policy`` or ``reading`` is given; the stream's time unit), by ``engine_name``
    (``reference`` forces the reference semantics; an engine must claim the query) or
    the fastest engine that claims the query. ``events`` reads the stream otherwise (a
    progress bar); ``budget`` bounds the reference's search, or an engine's matches
    (:func:`run_engine`)."""
    query = Query.ask(pattern, policy=policy, reading=reading,
                      door="find_matches").with_time_unit(stream.time_unit)
    if engine_name is None:
        engine_name, reason = choose(query)
    else:
        reason = "named"
    if engine_name == REFERENCE:
        return Found(query.reference(stream, budget=budget), REFERENCE, reason, query)
    found, _ = run_engine(engine_name, query, stream if events is None else events,
                          budget=budget)
    return Found(found, engine_name, reason, query)
