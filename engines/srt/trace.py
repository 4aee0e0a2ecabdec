"""Run traces of the SRT engines: seed 004 Alg. 1, one configuration set per element.

Per element: the runs alive before it (a run is a configuration ``[j, q, v]``,
Def. 4.3, plus the positions it marked: the engine keeps runs that agree on
state and registers as one *group* whose marks are a set of alternatives,
:class:`~kleene.engines.srt.marks.Marks`), for each the transitions that fire
(``φ ↑ o ↓ W``, as the picture labels them), the runs after it with their
registers (``r1 = e1``) and marks, and the matches reported. Under policy
``stream`` a fresh run starts in the start state at every element (the
``⊤*`` prefix of report Sec. 4.3). Example 4.5's run is the group that goes
``q0 → q1 → q1 → q1 → qf`` on Table 1's first four elements.

:func:`trace_srt` steps the engine's own :class:`~kleene.engines.srt.execution.Execution`
and evaluates each group's transitions once more with the engine's compiled
tests to say which fired (the engine does not keep that). :func:`trace_dsrt` records
the DSRT's own run (:meth:`~kleene.engines.srt.dsrt.CompiledDSRT.run`'s observer): one
configuration per state and registers, the one minterm each takes (report Alg. 7: at
most one fires), the elements its runs started at; every element a run of a fully
marked expression reads is marked, so a run started at ``j`` has marked ``j..k``.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from kleene.engines.draw import Highlight
from kleene.engines.drawers import picture_graph
from kleene.engines.pages import MAX_REFUSALS_SHOWN, page, player, table
from kleene.engines.protocol import Counters, Limitation
from kleene.engines.srt.automaton import Edge, Held, Registers, compile_edge
from kleene.engines.srt.draw import output_text, subset_label
from kleene.engines.srt.dsrt import CompiledDSRT, Configurations
from kleene.engines.srt.execution import Execution
from kleene.engines.srt.lazy_dsrt import LazyDSRT
from kleene.engines.srt.marks import ROOT, Marks, expand, union
from kleene.engines.srt.partition import stream_order
from kleene.engines.srt.run import CompiledSRT
from kleene.engines.trace import (
    MAX_PICTURED_STEPS,
    StepTrace,
    beneath,
    event_name,
    event_text,
    every_run,
    match_text,
    register_tracer,
)
from kleene.reference.budget import Budget
from kleene.reference.condition_text import format_condition
from kleene.reference.conditions import TRUE
from kleene.reference.events import Event
from kleene.reference.match import Match
from kleene.reference.policies import part_of

#: At most this many alternative mark sets are printed per group.
MAX_MARKS = 6

Group = tuple[int, tuple[Held | None, ...]]


@dataclass(frozen=True)
class Run:
    """A group of runs: state, registers, and the sets of positions they marked."""

    state: int
    registers: tuple[Held | None, ...]
    marks: tuple[tuple[int, ...], ...]


@dataclass(frozen=True)
class SRTStep:
    """One element: the runs before it, the transitions fired (run, edge), the runs
    after it, the matches reported."""

    event: Event
    before: tuple[Run, ...]
    fired: tuple[tuple[Run, Edge], ...]
    after: tuple[Run, ...]
    reported: tuple[Match, ...]
    #: the runs before it that go on with no transition, each with the transitions that
    #: leave its state (all false on the element: a guard, a register, or the window's
    #: clock or count, seed 004 Alg. 4); a fresh run in the start state is left out
    dropped: tuple[tuple[Run, tuple[Edge, ...]], ...] = ()


def _q(state: int) -> str:
    return f"q{state}"


@dataclass
class SRTTrace(StepTrace):
    """A run of a compiled SRT or DSRT, one :class:`SRTStep` per element; ``name`` the
    automaton (``SRT``, ``DSRT``), ``state_name`` how its picture names a state,
    ``counters`` what the run counted."""

    compiled: Any
    registers: tuple[str, ...]
    steps: tuple[SRTStep, ...]
    final: tuple[Match, ...]
    counters: Counters
    name: str = "SRT"
    state_name: Callable[[int], str] = _q
    graph: nx.MultiDiGraph = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.graph = picture_graph(self.compiled)


    def run_text(self, r: Run) -> str:
        """``q1 [r1 = e1] marked {e1}``: the configuration and what the group marked."""
        regs = ", ".join(f"{name} = {event_name(h.event) if h else '♯'}"
                         for name, h in zip(self.registers, r.registers, strict=True))
        sets = [("{" + ", ".join(f"e{k + 1}" for k in m) + "}") for m in r.marks[:MAX_MARKS]]
        more = f" … +{len(r.marks) - MAX_MARKS}" if len(r.marks) > MAX_MARKS else ""
        return (self.state_name(r.state) + (f" [{regs}]" if regs else "") +
                f" marked {' | '.join(sets)}{more}")

    def edge_text(self, e: Edge) -> str:
        """``q1 --~.type = 'S' AND ~.id = r1.id ↑ ●--> q3`` (``⊤`` for ``TRUE``, as the
        picture writes it)."""
        shown = e.shown_guard()
        guard = "⊤" if shown == TRUE else format_condition(shown)
        clocks = "".join(f" AND {c}" for c in e.clocks)
        return (f"{self.state_name(e.source)} --{guard}{clocks} {output_text(e)}--> "
                f"{self.state_name(e.target)}")

    def dropped_text(self, r: Run, out: tuple[Edge, ...]) -> str:
        """``q18 [x = e1] marked {e1}: false: q18 --φ2 ↑ ●--> q19; …`` (or no transition
        leaves its state: a count window has passed)."""
        why = ("false: " + "; ".join(self.edge_text(e) for e in out)) if out else \
            f"no transition leaves {self.state_name(r.state)}"
        return f"{self.run_text(r)}: {why}"

    def step_text(self, k: int) -> list[str]:
        """Step ``k``: the element, the transitions that fire from which run, the runs
        after it, the reports (indented under the element)."""
        s = self.steps[k]
        lines = [event_text(s.event)]
        lines += [f"  fires: {self.edge_text(e)}  from {self.run_text(r)}" for r, e in s.fired]
        lines += [f"  dropped: {self.dropped_text(r, out)}" for r, out in s.dropped]
        lines.append(f"  runs ({len(s.after)}): " +
                     ("; ".join(self.run_text(r) for r in s.after) or "none"))
        lines += [f"  reported: {match_text(m)}" for m in s.reported]
        return lines

    def mark(self, k: int) -> Highlight:
        """Step ``k``'s picture: black the states of the runs before the element, thick
        the transitions that fire."""
        s = self.steps[k]
        return Highlight(current=frozenset(r.state for r in s.before),
                         taken=frozenset(e for _, e in s.fired))

    def html(self, first: int | None = None, *, title: str = "Kleene trace",
             events: Sequence[Event] = ()) -> str:
        every_run(first)
        c = self.compiled
        parts = [f"<p>Run of the {self.name} (seed 004 Alg. 1), policy <b>{c.policy}</b>. "
                 "Black: the states of the runs before the element; thick: the transitions "
                 "that fire. Runs that agree on state and registers are one group; ● marks "
                 f"the element.</p>"]
        shown = [(self._html_step(k), self.mark(k))
                 for k in range(min(len(self.steps), MAX_PICTURED_STEPS))]
        parts.append(player(self.graph, shown, title=f"the {self.name}", after=beneath(
            len(self.steps) - len(shown), events,
            {s.event.position: k for k, s in enumerate(self.steps[:len(shown)])})))
        found = "".join(f"<li class='reported'>{html.escape(match_text(m))}</li>"
                        for m in self.final)
        parts.append(f"<h2>End of the stream</h2><ul>{found or '<li>nothing more reported'}"
                     "</ul><pre>" + html.escape(self.text()[-1]) + "</pre>")
        return page(title, parts)

    def _html_step(self, k: int) -> str:
        s = self.steps[k]
        fired = table(["run before", "transition fired"],
                      [(self.run_text(r), self.edge_text(e)) for r, e in s.fired]) \
            if s.fired else "<p>no transition fires</p>"
        dropped = table(["run dropped: every transition false"],
                        [(self.dropped_text(r, out),) for r, out in s.dropped],
                        css="refused", most=MAX_REFUSALS_SHOWN) if s.dropped else ""
        after = table(["run after"], [(self.run_text(r),) for r in s.after]) if s.after \
            else "<p>no run left</p>"
        reported = "".join(f"<p class='reported'>reported: {html.escape(match_text(m))}</p>"
                           for m in s.reported)
        return f"<h3>{html.escape(event_text(s.event))}</h3>{fired}{dropped}{after}{reported}"


def _runs(groups: dict[Group, Marks]) -> tuple[Run, ...]:
    memo: dict[int, set[tuple[int, ...]]] = {}
    return tuple(Run(q, regs, tuple(sorted(expand(m, memo))))
                 for (q, regs), m in sorted(groups.items(), key=lambda g: g[0][0]))


def trace_srt(compiled: CompiledSRT, events: Iterable[Event], *,
              counters: Counters | None = None, budget: Budget | None = None) -> SRTTrace:
    """Run ``compiled`` over ``events`` (every element stepped), recording every step
    (counted into ``counters``; no ``budget`` drawn on)."""
    c = compiled
    counted = Counters() if counters is None else counters
    first = Execution(c.srt, c.policy, counted, faithful=c.faithful)
    parts: dict[object, Execution] = {}   # e PARTITION BY a: one run per part (report Def. 44)
    tests = {e: compile_edge(e, first.slots) for e in c.srt.edges}
    steps = []
    for u in events:
        key = part_of(u, c.by) if c.by else None
        ex = parts.get(key) or parts.setdefault(
            key, first if not parts else Execution(c.srt, c.policy, counted,
                                                   faithful=c.faithful))
        groups = dict(ex.groups)
        if c.policy == "stream":
            start = (c.srt.start, ex.empty)
            groups[start] = ROOT if start not in groups else union([groups[start], ROOT])
        before = _runs(groups)
        fired = tuple((r, e) for r in before for e in c.srt.out[r.state]
                      if tests[e](u, r.registers))
        moved = {id(r) for r, _ in fired}
        dropped = tuple((r, tuple(c.srt.out[r.state])) for r in before if id(r) not in moved
                        and not (r.state == c.srt.start and r.marks == ((),)))
        reported = tuple(ex.step(u))
        steps.append(SRTStep(u, before, fired, _runs(ex.groups), reported, dropped))
    ends: set[Match] = set()
    for ex in parts.values() or (first,):
        ex.flush()
        ends.update(ex.finish())
    final = tuple(sorted(ends, key=stream_order))
    return SRTTrace(c, tuple(first.slots), tuple(steps), final, counted)


def trace_dsrt(compiled: CompiledDSRT, events: Iterable[Event], *,
               counters: Counters | None = None, budget: Budget | None = None) -> SRTTrace:
    """Run the DSRT engine's ``compiled`` over ``events``, recording every step (counted
    into ``counters``)."""
    counted = Counters() if counters is None else counters
    steps: list[SRTStep] = []

    def runs(configurations: Configurations, read: int) -> tuple[Run, ...]:
        return tuple(Run(q, regs, tuple(tuple(range(j, read)) for j in sorted(set(starts))))
                     for (q, regs), starts in sorted(configurations.items(),
                                                     key=lambda c: c[0][0]))

    def observe(u: Event, before: Configurations, taken: list[tuple[int, Registers, Edge]],
                after: Configurations, reported: list[Match]) -> None:
        k = u.position
        was = runs(before, k)
        fired = tuple((next(r for r in was if (r.state, r.registers) == (q, regs)), e)
                      for q, regs, e in taken)
        steps.append(SRTStep(u, was, fired, runs(after, k + 1), tuple(reported)))

    found = list(compiled.run(events, observe, counters=counted))
    final = tuple(found[sum(len(s.reported) for s in steps):])
    slots = tuple(compiled.dsrt.registers())
    subsets = compiled.subsets
    return SRTTrace(compiled, slots, tuple(steps), final, counted, name="DSRT",
                    state_name=lambda q: subset_label(subsets[q]))



def trace_lazy_dsrt(compiled: LazyDSRT, events: Iterable[Event], *,
                    counters: Counters | None = None, budget: Budget | None = None) -> SRTTrace:
    """Not implemented: one line saying why (what is left of issue 32 item 1)."""
    raise Limitation("a trace of the DSRT with marks (engines/srt/lazy_dsrt.py, built as a "
                     "stream reaches its states) is not implemented: trace --engine srt "
                     "(the same runs, per SRT state)")


register_tracer(CompiledSRT, trace_srt)
register_tracer(CompiledDSRT, trace_dsrt)
register_tracer(LazyDSRT, trace_lazy_dsrt)
