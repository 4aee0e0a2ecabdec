"""Run traces of the SES automaton, step by step (seed 000 Sec. 4.3 and Fig. 6): the
tracer of the ``ses-automaton*`` engines (registered with
:func:`kleene.engines.trace.register_tracer`, as the NFAs' and SRTs' are).

Example 8: "Each step shows the transition of the automaton instance (``{}``
if Ñ does not take any transition), the current state and match buffer of Ñ,
and the transition graph. The black node represents the current state of Ñ
before taking the transition, thick edges represent the transitions that Ñ
takes, and gray nodes represent states which Ñ traversed before."

:func:`trace_ses` runs a compiled SES automaton (:class:`~kleene.engines.ses.run.CompiledSES`,
any variant, policy and filter) over events with a read-only
:class:`~kleene.engines.ses.run.Observer` and records, for every event, Ω
before it, the instances that expired, each instance's move (Algorithm 2: the
transitions it took, or none), Ω after it and the matches reported.
:func:`run_steps` follows one *run*: the instances started at one event
(Alg. 1 line 4) and every instance branched from them. :func:`to_text` and
:func:`to_html` print a trace; the page shows the transition graph of every
step with Fig. 6's marks (:class:`~kleene.engines.draw.Highlight`).

:func:`view_of` gives an automaton ``N`` of Def. 3 that does not run on its own (N1 and
N2 of Fig. 4) as a picture's :class:`~kleene.engines.draw.Drawable`.

Conventions: ``e`` an event, ``inst`` an automaton instance ``Ñ = (q_c, β)``.
Events are named as in the papers, ``e1`` for position 0.
"""

from __future__ import annotations

import html
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field

import networkx as nx

from kleene.engines.draw import AutomatonView, Highlight, to_graph
from kleene.engines.labels import group_variables, state_label, variable_label
from kleene.engines.pages import MAX_REFUSALS_SHOWN, page, player, table
from kleene.engines.protocol import Counters, Transition, window_in_units
from kleene.engines.ses.automaton import SESAutomaton, SESTransition
from kleene.engines.ses.filter import event_filter
from kleene.engines.ses.run import CompiledSES, Execution, Instance
from kleene.engines.trace import (
    MAX_PICTURED_STEPS,
    beneath,
    event_name,
    event_text,
    match_text,
    register_tracer,
    substitution_text,
)
from kleene.reference.budget import Budget
from kleene.reference.condition_text import format_condition
from kleene.reference.conditions import Condition, holds, prev_variables
from kleene.reference.events import Event
from kleene.reference.match import Match
from kleene.reference.ses.text import format_ses

#: The "state after" of a fresh instance that takes nothing (Alg. 2 line 8: it is dropped).
DROPPED = "dropped (start state)"


@dataclass(frozen=True)
class Move:
    """One instance consuming one event (Algorithm 2): the transitions it took, each
    with the instance it made, and the instance that stays (``None``: none stays)."""

    before: Instance
    taken: tuple[tuple[SESTransition, Instance], ...]
    kept: Instance | None
    #: the transitions of ``before``'s state not taken, each with the condition of its
    #: Θ_δ that is false on the event (Alg. 2 line 3; :func:`refused`)
    refused: tuple[tuple[SESTransition, Condition], ...] = ()


@dataclass(frozen=True)
class Step:
    """What one event did (Algorithm 1, lines 4–15); ``passed`` is the filter's verdict."""

    event: Event
    passed: bool
    before: tuple[Instance, ...]
    expired: tuple[Instance, ...]
    moves: tuple[Move, ...]
    after: tuple[Instance, ...]
    reported: tuple[Match, ...]


@dataclass(frozen=True)
class Trace:
    """A whole run of a compiled SES automaton: one :class:`Step` per event, and the
    matches reported at the end of the stream (``final``), and what the run counted."""

    compiled: CompiledSES
    steps: tuple[Step, ...]
    final: tuple[Match, ...]
    counters: Counters

    @property
    def matches(self) -> tuple[Match, ...]:
        """Every match reported, in the order the run reported them."""
        return tuple(m for s in self.steps for m in s.reported) + self.final

    def _repr_html_(self) -> str:
        """The run step by step in a notebook (the page of ``kleene trace -o run.html``)."""
        return to_html(self)

    def text(self, first: int | None = None) -> list[str]:
        """:func:`to_text`."""
        return to_text(self, first)

    def html(self, first: int | None = None, *, title: str = "Kleene trace",
             events: Sequence[Event] = ()) -> str:
        """:func:`to_html`."""
        return to_html(self, first, title=title, events=events)


def refused(n: SESAutomaton, inst: Instance, e: Event,
            taken: Sequence[SESTransition]) -> tuple[tuple[SESTransition, Condition], ...]:
    """The transitions leaving ``inst``'s state that ``e`` does not fire, each with the
    first condition of its Θ_δ that is false for ``β ∪ {v/e}`` (Alg. 2 line 3), read with
    the reference :func:`~kleene.reference.conditions.holds` as
    :meth:`~kleene.engines.ses.run.Execution._bind` reads it (a ``prev`` condition on
    ``v``'s last event and ``e``). Only a trace asks: the run itself never names a guard."""
    out = []
    for delta in n.outgoing(inst.state):
        if delta in taken:
            continue
        v = delta.variable
        bound = inst.beta.get(v, ())
        for theta in delta.conditions:
            new = (bound[-1], e) if bound and v in prev_variables(theta) else (e,)
            if not holds(theta, {**inst.beta, v: new}):
                out.append((delta, theta))
                break
    return tuple(out)


@dataclass
class _Recorder:
    """The observer: collects what happens during one step, and, for each instance, the
    guards that kept it from a transition (:func:`refused`)."""

    automaton: SESAutomaton
    gone: list[Instance] = field(default_factory=list)
    moves: list[Move] = field(default_factory=list)

    def expired(self, e: Event, instances: Sequence[Instance]) -> None:
        self.gone.extend(instances)

    def consumed(self, e: Event, inst: Instance,
                 taken: Sequence[tuple[SESTransition, Instance]], kept: Instance | None) -> None:
        no = refused(self.automaton, inst, e, [d for d, _ in taken])
        self.moves.append(Move(inst, tuple(taken), kept, no))

    def flush(self) -> tuple[tuple[Instance, ...], tuple[Move, ...]]:
        out = tuple(self.gone), tuple(self.moves)
        self.gone, self.moves = [], []
        return out


def trace_ses(compiled: CompiledSES, events: Iterable[Event], *,
              counters: Counters | None = None, budget: Budget | None = None) -> Trace:
    """The SES automaton's trace: every instance's move at every event (Fig. 6), counted
    into ``counters`` as :meth:`~kleene.engines.ses.run.CompiledSES.run` counts."""
    c = Counters() if counters is None else counters
    win = window_in_units(compiled.pattern.window, compiled.time_unit, events,
                          compiled.reading)
    recorder = _Recorder(compiled.automaton)
    ex = Execution(compiled.automaton, win=win, policy=compiled.policy,
                   variant=compiled.variant, counters=c, observer=recorder)
    keep = event_filter(compiled.pattern, compiled.filter, c)
    steps = []
    for e in events:
        passed = keep is None or keep(e)
        before = tuple(ex.omega)
        reported = tuple(ex.step(e, passed))
        expired, moves = recorder.flush()
        steps.append(Step(e, passed, before, expired, moves, tuple(ex.omega), reported))
    return Trace(compiled, tuple(steps), tuple(ex.finish()), c)


register_tracer(CompiledSES, trace_ses)

# ---------------------------------------------------------------- one run (Fig. 6)


@dataclass(frozen=True)
class RunStep:
    """One step of one run: its moves, and the marks of Fig. 6 for the picture."""

    step: Step
    moves: tuple[Move, ...]
    after: tuple[Instance, ...]
    highlight: Highlight


def run_steps(t: Trace, first: int | None = None) -> list[RunStep]:
    """The steps of the run started at position ``first`` (all runs when ``None``).

    A run's steps go from its first event to the step after which none of its
    instances is left (reported, expired or dropped). ``visited`` collects the
    states its instances were in at earlier steps.
    """
    def ours(inst: Instance) -> bool:
        return first is None or inst.first.position == first

    def shown(m: Move) -> bool:
        # following every run, a fresh instance that takes nothing is no news
        return ours(m.before) and (first is not None or bool(m.taken) or m.kept is not None)

    out: list[RunStep] = []
    visited: set[Hashable] = set()
    for s in t.steps:
        moves = tuple(m for m in s.moves if shown(m))
        if first is not None and not moves and not any(map(ours, s.before)):
            if out:
                break
            continue
        current = frozenset(m.before.state for m in moves)
        taken = frozenset((d.source, d.target, d.variable) for m in moves for d, _ in m.taken)
        mark = Highlight(current=current, visited=frozenset(visited) - current, taken=taken)
        out.append(RunStep(s, moves, tuple(i for i in s.after if ours(i)), mark))
        visited |= current
    return out


# ---------------------------------------------------------------- printing


class TraceNames:
    """How a trace names states (as the picture does) and transitions (Θi)."""

    def __init__(self, t: Trace) -> None:
        self.graph: nx.MultiDiGraph = to_graph(t.compiled)
        self.groups = group_variables(t.compiled.iter_transitions())
        self.theta = {(a, d["variable"]): d["name"] for a, _, d in self.graph.edges(data=True)}

    def state(self, q: Hashable) -> str:
        return str(self.graph.nodes[q]["label"]) if q in self.graph else state_label(q)

    def transition(self, d: SESTransition) -> str:
        """``p, Θ11``: the variable bound and the transition's name in the picture."""
        name = self.theta.get((d.source, d.variable))
        return variable_label(d.variable, self.groups) + (f", {name}" if name else "")

    def move(self, m: Move) -> list[tuple[str, str, str, str, str]]:
        """Rows ``(run, state before, transition, state after, buffer after)``; ``{}`` is
        "no transition" (Fig. 6)."""
        run = f"run from {event_name(m.before.first)}"
        here = self.state(m.before.state)
        rows = [(run, here, self.transition(d), self.state(i.state), substitution_text(i.beta))
                for d, i in m.taken]
        if m.kept is not None:
            rows.append((run, here, "{}", here, substitution_text(m.kept.beta)))
        if not rows:
            rows.append((run, here, "{}", DROPPED, "{}"))
        return rows

    def refusals(self, m: Move, e: Event) -> list[str]:
        """Each guard that kept ``m``'s instance from a transition on ``e``:
        ``run from e1: c --p+, Θ11--✗ on e4: p.price > c.price is false``."""
        return [f"run from {event_name(m.before.first)}: {self.state(m.before.state)} "
                f"--{self.transition(d)}--✗ on {event_name(e)}: "
                f"{format_condition(theta)} is false" for d, theta in m.refused]


def move_text(row: tuple[str, str, str, str, str]) -> str:
    """One row of :meth:`TraceNames.move` as text: ``cd --p+, Θ11--> cdp+  β = {...}``,
    or ``c  {} (no transition)  β = {c/e1}``."""
    _, q, tr, q2, buf = row
    moved = f"{q} --{tr}--> {q2}" if tr != "{}" else f"{q}  {{}} (no transition)"
    return f"{moved}  β = {buf}" + ("" if q2 != DROPPED else "  (dropped)")


def to_text(t: Trace, first: int | None = None) -> list[str]:
    """The trace as lines of text: per event, each instance's move and the reports."""
    names = TraceNames(t)
    lines = []
    for rs in run_steps(t, first):
        s = rs.step
        lines.append(event_text(s.event) + ("" if s.passed else "  [filtered out]"))
        lines += [f"  run from {event_name(i.first)}: {names.state(i.state)} expired (τ)  "
                  f"β = {substitution_text(i.beta)}"
                  for i in s.expired if first is None or i.first.position == first]
        for m in rs.moves:
            lines += [f"  {row[0]}: {move_text(row)}" for row in names.move(m)]
            lines += [f"  refused: {r}" for r in names.refusals(m, s.event)]
        lines += [f"  reported: {match_text(m)}" for m in s.reported]
    lines += [f"end of stream, reported: {match_text(m)}" for m in t.final]
    return lines


def to_html(t: Trace, first: int | None = None, *, title: str = "Kleene trace",
            events: Sequence[Event] = ()) -> str:
    """A self-contained HTML page: the pattern, the automaton, the events, then each step
    with its moves and the transition graph marked as in Fig. 6."""
    names = TraceNames(t)
    c = t.compiled
    whose = "every run" if first is None else f"the run started at e{first + 1}"
    parts = [f"<pre>{html.escape(format_ses(c.pattern))}</pre>",
             f"<p>SES automaton (seed 000 Sec. 4), policy <b>{c.policy}</b>, variant "
             f"<b>{c.variant}</b>, filter <b>{c.filter}</b>; following {whose}. Black: the "
             "state before the event; thick: the transitions taken; gray: states the run "
             "was in before; {}: no transition (seed 000 Fig. 6).</p>"]
    every = run_steps(t, first)
    steps = every[:MAX_PICTURED_STEPS]
    parts.append(player(names.graph,
                        [(_html_step(rs, names, first), rs.highlight) for rs in steps],
                        title="the automaton", after=beneath(
                            len(every) - len(steps), events,
                            {rs.step.event.position: k for k, rs in enumerate(steps)})))
    found = "".join(f"<li class='reported'>{html.escape(match_text(m))}</li>"
                    for m in t.final)
    parts.append(f"<h2>End of the stream</h2><ul>{found or '<li>nothing more reported</li>'}"
                 "</ul>")
    return page(title, parts)


def _html_step(rs: RunStep, names: TraceNames, first: int | None) -> str:
    s = rs.step
    head = html.escape(event_text(s.event)) + ("" if s.passed else " — filtered out (Sec. 4.5)")
    rows = [row for m in rs.moves for row in names.move(m)]
    rows += [(f"run from {event_name(i.first)}", names.state(i.state), "expired (τ)", "",
              substitution_text(i.beta))
             for i in s.expired if first is None or i.first.position == first]
    moves = table(["instance", "state", "transition", "state after", "buffer β after"],
                  rows) if rows else \
        "<p>no instance of this run moves</p>"
    no = [r for m in rs.moves for r in names.refusals(m, s.event)]
    refusals = table(["guard false: transition not taken"], [(r,) for r in no],
                     css="refused", most=MAX_REFUSALS_SHOWN) if no else ""
    reported = "".join(f"<p class='reported'>reported: {html.escape(match_text(m))}</p>"
                       for m in s.reported)
    return f"<h3>{head}</h3>{moves}{refusals}{reported}"


def view_of(n: SESAutomaton) -> AutomatonView:
    """``N = (Q, Δ, q_s, q_f, τ)`` of seed 000 Def. 3 as a :class:`Drawable`."""
    return AutomatonView(
        initial=frozenset({n.start}), accepting=frozenset({n.accepting}),
        transitions=tuple(Transition(d.source, d.target, d.variable, d.guard)
                          for d in n.transitions))
