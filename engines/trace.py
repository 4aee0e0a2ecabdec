"""Run traces, step by step, of every engine family that registers a *tracer*
(:func:`register_tracer`): the SES automaton of seed 000 (Sec. 4.3 and Fig. 6) in
:mod:`kleene.engines.ses.trace`, the NFAs of seed 003 in
:mod:`kleene.engines.nfa.trace`, the SRTs of seed 004 in
:mod:`kleene.engines.srt.trace`. :func:`trace` finds the tracer by the compiled
automaton's class (importing its family's ``trace`` module on first use); every
trace offers :class:`Traced`: ``text()``, ``html()`` (one self-contained page,
pictures inline, built with :func:`~kleene.engines.pages.page`) and
``_repr_html_`` for notebooks.

What the families' traces share lives here: :class:`StepTrace` (a trace recorded
step by step) and the printing of events, buffers, matches and counters in the
papers' notation (``e1`` for position 0; ``{c/e1, p/⟨e4, e9⟩}``).
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

from kleene.engines.pages import step_rows
from kleene.engines.protocol import Compiled, Counters
from kleene.reference.budget import Budget
from kleene.reference.errors import Unsupported
from kleene.reference.events import Event
from kleene.reference.match import Match, readable_name

#: A trace's page draws at most this many steps (the page stays readable).
MAX_PICTURED_STEPS = 200


class Traced(Protocol):
    """What every family's trace offers (``kleene trace`` prints it)."""

    @property
    def matches(self) -> tuple[Match, ...]: ...

    @property
    def counters(self) -> Counters: ...

    def text(self, first: int | None = None) -> list[str]: ...

    def html(self, first: int | None = None, *, title: str = "Kleene trace",
             events: Sequence[Event] = ()) -> str: ...

    def _repr_html_(self) -> str: ...


class StepTrace:
    """What the traces recorded step by step (the NFAs', the SRTs') share: ``steps``
    (each with the matches it ``reported``), ``final`` (reported at the end of the
    stream), the ``compiled`` automaton, what the run counted (``counters``) and a
    family's ``step_text(k)``."""

    steps: Sequence[Any]
    final: tuple[Match, ...]
    compiled: Any
    counters: Counters

    def step_text(self, k: int) -> list[str]:
        raise NotImplementedError

    @property
    def matches(self) -> tuple[Match, ...]:
        """Every match reported, in the order the run reported them."""
        return tuple(m for s in self.steps for m in s.reported) + self.final

    def text(self, first: int | None = None) -> list[str]:
        """Per event its step (:meth:`step_text`), then the end of the stream and the
        counters."""
        every_run(first)
        lines = [line for k in range(len(self.steps)) for line in self.step_text(k)]
        lines += [f"end of stream, reported: {match_text(m)}" for m in self.final]
        lines.append(counters_text(self.counters))
        return lines

    def _repr_html_(self) -> str:
        return self.html()

    def html(self, first: int | None = None, *, title: str = "Kleene trace",
             events: Sequence[Event] = ()) -> str:
        raise NotImplementedError


def every_run(first: int | None) -> None:
    """Refuse ``--run``: only the SES automaton's trace follows one run."""
    if first is not None:
        raise Unsupported("--run follows one run of the SES automaton (seed 000 Fig. 6); "
                          "this trace shows every run")


class Tracer(Protocol):
    """A family's tracer: the compiled automaton and the events → its trace, the run
    counted into ``counters`` and bounded by ``budget`` as :meth:`Compiled.run` is."""

    def __call__(self, compiled: Any, events: Iterable[Event], *,
                 counters: Counters | None = None, budget: Budget | None = None) -> Traced: ...

_TRACERS: dict[type, Tracer] = {}


def register_tracer(cls: type, tracer: Tracer) -> None:
    """Trace instances of ``cls`` with ``tracer``."""
    _TRACERS[cls] = tracer


def tracer_of(compiled: object) -> Tracer | None:
    """The tracer registered for ``compiled``'s class (its family's ``trace`` module is
    imported first), or ``None``."""
    package = type(compiled).__module__.rpartition(".")[0]
    name = f"{package}.trace"
    if package.startswith("kleene.engines.") and importlib.util.find_spec(name) is not None:
        importlib.import_module(name)
    for cls in type(compiled).__mro__:
        if cls in _TRACERS:
            return _TRACERS[cls]
    return None


def trace(compiled: Compiled, events: Iterable[Event], *, counters: Counters | None = None,
          budget: Budget | None = None) -> Any:
    """Run ``compiled`` over ``events`` and record every step (as ``compiled.run`` does,
    counting into ``counters``; the trace keeps them), with the tracer of its family
    (:class:`~kleene.engines.ses.trace.Trace` for the SES automaton)."""
    tracer = tracer_of(compiled)
    if tracer is None:
        raise Unsupported("a trace follows the instances of one SES automaton (seed 000 "
                          "Def. 4), of an NFA (seed 003) or the runs of an SRT (seed 004); "
                          f"{type(compiled).__name__} is none of them (use an engine "
                          "ses-automaton*, nfa-*, srt or dsrt)")
    return tracer(compiled, events, counters=counters, budget=budget)


# ---------------------------------------------------------------- printing


def event_name(e: Event) -> str:
    """``e1`` for position 0 (the papers' 1-based names)."""
    return f"e{e.position + 1}"


def substitution_text(bindings: Mapping[str, Sequence[Event | int]]) -> str:
    """A buffer β or a match in the paper's notation, ``{c/e1, d/e3, p/⟨e4, e9⟩}``
    (``{}`` when empty); variables in the order of their first events."""
    positions = {v: [x.position if isinstance(x, Event) else x for x in xs]
                 for v, xs in bindings.items()}
    parts = []
    for v in sorted(positions, key=lambda v: (positions[v][0], v)):
        es = [f"e{x + 1}" for x in positions[v]]
        parts.append(f"{v}/{es[0]}" if len(es) == 1 else f"{v}/⟨{', '.join(es)}⟩")
    return "{" + ", ".join(parts) + "}"


def counters_text(c: Counters) -> str:
    """``counters: instances_created=7, ...``: every counter of the run, as
    ``kleene match --counters`` prints them."""
    return "counters: " + ", ".join(f"{k}={v}" for k, v in c.as_dict().items())


def match_text(m: Match) -> str:
    """A reported match in the paper's notation, with its 0-based JSON form, its
    variables named as ``kleene match`` prints them (SREMO's ``~`` as ``marked``:
    :func:`~kleene.reference.match.readable_name`)."""
    shown = Match.of({readable_name(v): ps for v, ps in m.bindings})
    return f"{substitution_text(dict(shown.bindings))}  {shown.dumps()}"


def event_text(e: Event) -> str:
    """``e4 (ts 81): ID=1, L=P, V=111.5``."""
    attrs = ", ".join(f"{k}={v}" for k, v in e.attrs.items())
    kind = f", type={e.type}" if e.type is not None else ""
    return f"{event_name(e)} (ts {e.ts}{kind}): {attrs}"


def events_table(events: Sequence[Event], steps: Mapping[int, int] | None = None) -> str:
    """The events as an HTML table: name, ts, then every attribute; with ``steps`` (an
    event's position → the step that shows it), a click on a row shows its step
    (:func:`kleene.engines.pages.player`)."""
    keys = list(dict.fromkeys(k for e in events for k in e.attrs))
    types = any(e.type is not None for e in events)
    where = steps or {}
    return "<h2>Events</h2>" + step_rows(
        ["event", "ts", *(["type"] if types else []), *keys],
        ((where.get(e.position), [event_name(e), e.ts, *([e.type] if types else []),
                                  *(e.attrs.get(k, "") for k in keys)]) for e in events))


def beneath(more: int, events: Sequence[Event], steps: Mapping[int, int]) -> list[str]:
    """What a trace's page shows under its player: how many steps it leaves out (``more``)
    and the events table (each row showing its step)."""
    out = [f"<p>… {more} more steps not shown (kleene trace --format text prints them "
           "all).</p>"] if more > 0 else []
    return out + ([events_table(events, steps)] if events else [])
