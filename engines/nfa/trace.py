"""Run traces of the NFAs of seed 003: per event, the buffers, the live instances, the
instances created (and from where their events came), the matches reported.

The lazy NFA's reordering is what a trace makes visible (Sec. 3): an event is
*read* when it arrives (it goes into its type's input buffer) and *evaluated*
when an instance looks for it, possibly many events later ("an outgoing take
edge of q2 retrieves events belonging to type B from the input buffer"). Each
new instance records the events it bound and, for each, whether it came with
the arrival (``arrival``) or from the buffer (``buffer, read at e2``).

:func:`trace_nfa` drives the engine's own runners (:mod:`.runner`,
:mod:`.eager`, :mod:`.chain`, :mod:`.tree`) as
:meth:`~kleene.engines.nfa.engine.CompiledNFA.run` sets them up (the window,
the order from the first ``sample`` events or the given frequencies), and
observes instance creation by wrapping each plan's ``bind`` (the one place
every NFA creates an instance). The tests check that the trace reports the
engine's match set.
"""

from __future__ import annotations

import html
import itertools
from collections import Counter
from collections.abc import Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace

import networkx as nx

from kleene.engines.draw import Highlight
from kleene.engines.nfa.chain import ChainRunner, chain_order
from kleene.engines.nfa.draw import nfa_graph
from kleene.engines.nfa.eager import EagerRunner
from kleene.engines.nfa.engine import CompiledNFA
from kleene.engines.nfa.held import NegationBuffers, Pending
from kleene.engines.nfa.partial import Partial, Plan
from kleene.engines.nfa.runner import Runner
from kleene.engines.nfa.subpattern import Piece
from kleene.engines.nfa.tree import TreeRunner
from kleene.engines.pages import MAX_REFUSALS_SHOWN, page, player, table
from kleene.engines.protocol import Counters, window_in_units
from kleene.engines.trace import (
    MAX_PICTURED_STEPS,
    StepTrace,
    beneath,
    event_name,
    event_text,
    every_run,
    match_text,
    register_tracer,
    substitution_text,
)
from kleene.reference.budget import Budget
from kleene.reference.condition_text import format_condition
from kleene.reference.conditions import holds
from kleene.reference.events import Event
from kleene.reference.match import Match
from kleene.reference.operators.text import format_operator


@dataclass(frozen=True)
class Created:
    """An instance created at this event: conjunct, the state it left (bound slots), the
    slot it bound, the events it added and the instance it is."""

    branch: int
    source: frozenset[int]
    slot: int
    new: tuple[Event, ...]
    instance: Partial


@dataclass(frozen=True)
class Refused:
    """An edge not taken at this event: conjunct, the state it would leave (bound slots),
    the slot, the events it was offered and why :meth:`~.partial.Plan.admits` refused
    them (:meth:`~.partial.Plan.refusal`: the false guard named)."""

    branch: int
    source: frozenset[int]
    slot: int
    new: tuple[Event, ...]
    why: str


@dataclass(frozen=True)
class Killed:
    """An instance (or its complete match) dropped at this event, and why: a negated
    event found in the buffer, a final condition false, or the window (τ)."""

    branch: int
    instance: Partial
    why: str


@dataclass(frozen=True)
class NFAStep:
    """What one event did: was it of a pattern type, the buffers after it (type → events),
    the instances created, the live ones after it, the matches reported."""

    event: Event
    relevant: bool
    buffers: tuple[tuple[str, tuple[Event, ...]], ...]
    created: tuple[Created, ...]
    live: tuple[tuple[int, Partial], ...]
    reported: tuple[Match, ...]
    refused: tuple[Refused, ...] = ()
    killed: tuple[Killed, ...] = ()


@dataclass
class NFATrace(StepTrace):
    """A run of a compiled NFA, one :class:`NFAStep` per event, the matches the end of
    the stream released (``final``) and what the run counted; ``compiled`` has the chain
    orders σ the run followed (its picture's)."""

    compiled: CompiledNFA
    steps: tuple[NFAStep, ...]
    final: tuple[Match, ...]
    counters: Counters
    graph: nx.MultiDiGraph = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.graph = nfa_graph(self.compiled)


    # ------------------------------------------------------------ names

    def state(self, b: int, p: Partial) -> str:
        """The state of ``p`` as the picture names it (variables in evaluation order)."""
        return self._label(b, frozenset(i for i, x in enumerate(p.binds) if x))

    def _label(self, b: int, slots: frozenset[int]) -> str:
        key = self._node(b, slots)
        return str(self.graph.nodes[key]["label"]) if key in self.graph else "?"

    def _node(self, b: int, slots: frozenset[int]) -> Hashable:
        if (b, slots) in self.graph:
            return (b, slots)
        return "start" if not slots else "F"

    def binds_text(self, b: int, p: Partial) -> str:
        plan = self.compiled.plans[b]
        return substitution_text({plan.shape.slots[i].var: list(x)
                                  for i, x in enumerate(p.binds) if x})

    def created_text(self, c: Created, now: Event) -> str:
        """``cb ← b/e3 (arrival)``, ``cba ← a/e1 (buffer: read at e1, evaluated at e5)``."""
        plan = self.compiled.plans[c.branch]
        var = plan.shape.slots[c.slot].var
        came = ", ".join(event_name(e) for e in c.new)
        if all(e.position == now.position for e in c.new):
            where = "arrival"
        else:
            read = ", ".join(event_name(e) for e in c.new)
            where = f"buffer: read at {read}, evaluated at {event_name(now)}"
        return (f"{self._label(c.branch, c.source)} --{var}--> {self.state(c.branch, c.instance)}"
                f" ← {var}/{came} ({where})  {self.binds_text(c.branch, c.instance)}")

    def refused_text(self, r: Refused) -> str:
        """``a --b--✗ b/e3: b.x = a.x is false``."""
        var = self.compiled.plans[r.branch].shape.slots[r.slot].var
        came = ", ".join(event_name(e) for e in r.new)
        return f"{self._label(r.branch, r.source)} --{var}--✗ {var}/{came}: {r.why}"

    def killed_text(self, k: Killed) -> str:
        """``ab {a/e1, b/e3} dropped: NOT C n, forbidden by e2``."""
        return f"{self.state(k.branch, k.instance)} {self.binds_text(k.branch, k.instance)} " \
               f"dropped: {k.why}"

    # ------------------------------------------------------------ text

    def step_text(self, k: int) -> list[str]:
        """Step ``k``: the event, the buffers, the instances created, the live ones, the
        reports (indented under the event)."""
        s = self.steps[k]
        lines = [event_text(s.event) + ("" if s.relevant else "  [no pattern type]")]
        if s.buffers:
            lines.append("  buffers: " + " · ".join(
                f"{t} [{', '.join(event_name(e) for e in es)}]" for t, es in s.buffers))
        lines += [f"  new: {self.created_text(c, s.event)}" for c in s.created]
        lines += [f"  refused: {self.refused_text(r)}" for r in s.refused]
        lines += [f"  killed: {self.killed_text(k)}" for k in s.killed]
        lines.append(f"  live ({len(s.live)}): " + ("; ".join(
            f"{self.state(b, p)} {self.binds_text(b, p)}" for b, p in s.live) or "none"))
        lines += [f"  reported: {match_text(m)}" for m in s.reported]
        return lines

    def mark(self, k: int) -> Highlight:
        """The marks of step ``k``'s picture (see :meth:`highlight`)."""
        return self.highlight(self.steps[k], self.steps[k - 1].live if k else ())

    # ------------------------------------------------------------ html

    def highlight(self, s: NFAStep, before: Sequence[tuple[int, Partial]]) -> Highlight:
        """Black: the states of the instances alive before the event; thick: the edges
        the new instances took."""
        current = {self._node(b, frozenset(i for i, x in enumerate(p.binds) if x))
                   for b, p in before}
        taken = {(c.branch, tuple(sorted(c.source)), c.slot) for c in s.created}
        return Highlight(current=frozenset(current), taken=frozenset(taken))

    def html(self, first: int | None = None, *, title: str = "Kleene trace",
             events: Sequence[Event] = ()) -> str:
        every_run(first)
        c = self.compiled
        parts = [f"<pre>{html.escape(format_operator(c.pattern))}</pre>",
                 f"<p>{html.escape(_describe(c))}. Black: the states of the instances alive "
                 "before the event; thick: the edges taken by the instances it created. "
                 "An event taken from a buffer was read when it arrived and is evaluated "
                 "only now (seed 003 Sec. 3).</p>"]
        shown: list[tuple[str, Highlight]] = []
        before: tuple[tuple[int, Partial], ...] = ()
        for s in self.steps[:MAX_PICTURED_STEPS]:
            shown.append((self._html_step(s), self.highlight(s, before)))
            before = s.live
        parts.append(player(self.graph, shown, title="the automaton", after=beneath(
            len(self.steps) - len(shown), events,
            {s.event.position: k for k, s in enumerate(self.steps[:len(shown)])})))
        found = "".join(f"<li class='reported'>{html.escape(match_text(m))}</li>"
                        for m in self.final)
        parts.append(f"<h2>End of the stream</h2><ul>{found or '<li>nothing more reported'}"
                     "</ul><pre>" + html.escape(self.text()[-1]) + "</pre>")
        return page(title, parts)

    def _html_step(self, s: NFAStep) -> str:
        head = html.escape(event_text(s.event)) + ("" if s.relevant else " — no pattern type")
        rows: list[Sequence[object]] = [(t, ", ".join(event_name(e) for e in es))
                                        for t, es in s.buffers]
        buffers = table(["buffer", "events (oldest first)"], rows) if rows else ""
        created = table(["instance created"], [(self.created_text(c, s.event),)
                                               for c in s.created]) if s.created else \
            "<p>no instance created</p>"
        refused = table(["edge not taken: why"], [(self.refused_text(r),) for r in s.refused],
                        css="refused", most=MAX_REFUSALS_SHOWN) if s.refused else ""
        killed = table(["instance dropped: why"], [(self.killed_text(k),) for k in s.killed],
                       css="refused", most=MAX_REFUSALS_SHOWN) if s.killed else ""
        live = table(["live instance", "match buffer"],
                     [(self.state(b, p), self.binds_text(b, p)) for b, p in s.live])
        reported = "".join(f"<p class='reported'>reported: {html.escape(match_text(m))}</p>"
                           for m in s.reported)
        return f"<h3>{head}</h3>{buffers}{created}{refused}{killed}{live}{reported}"


def _describe(c: CompiledNFA) -> str:
    kind = {"eager": "the eager NFA (seed 003 Sec. 2.2)",
            "chain": "the Lazy Chain NFA (Secs. 3-4)", "tree": "the Tree NFA (Sec. 7)"}[c.kind]
    if c.kind == "chain" and len(c.plans) > 1:
        kind = "the Lazy Multi-Chain NFA (Sec. 5)"
    return f"Run of {kind}, {len(c.plans)} conjunct(s)"


@dataclass
class _Seen:
    """What the observed plans saw during one event."""

    created: list[Created] = field(default_factory=list)
    refused: list[Refused] = field(default_factory=list)
    killed: list[Killed] = field(default_factory=list)

    def flush(self) -> tuple[tuple[Created, ...], tuple[Refused, ...], tuple[Killed, ...]]:
        out = tuple(self.created), tuple(self.refused), tuple(self.killed)
        self.created, self.refused, self.killed = [], [], []
        return out


def _observe(plan: Plan, branch: int, seen: _Seen) -> Plan:
    """A copy of ``plan`` whose ``bind`` also records each instance it creates, whose
    ``admits`` records each refusal with its reason, and whose ``forbidder`` and
    ``finish`` record each instance a negated event or a final condition drops (the run
    of an unobserved plan pays nothing)."""
    mine = replace(plan)
    bind, admits, forbidder, finish = mine.bind, mine.admits, mine.forbidder, mine.finish
    bind_unit = mine.bind_unit

    def slots_of(p: Partial) -> frozenset[int]:
        return frozenset(i for i, x in enumerate(p.binds) if x)

    def recorded(p: Partial, slot: int, new: tuple[Event, ...], stage: int, c: Counters
                 ) -> Partial:
        q = bind(p, slot, new, stage, c)
        seen.created.append(Created(branch, slots_of(p), slot, new, q))
        return q

    def recorded_unit(p: Partial, slot: int, chain: Piece, stage: int, c: Counters
                      ) -> Partial:
        q = bind_unit(p, slot, chain, stage, c)
        seen.created.append(Created(branch, slots_of(p), slot, chain.events, q))
        return q

    def admitted(p: Partial, slot: int, new: tuple[Event, ...], c: Counters) -> bool:
        ok = admits(p, slot, new, c)
        if not ok:
            seen.refused.append(Refused(branch, slots_of(p), slot, new,
                                        mine.refusal(p, slot, new)))
        return ok

    def forbidding(k: int, p: Partial, negbuf: NegationBuffers, c: Counters
                   ) -> Event | None:
        e = forbidder(k, p, negbuf, c)
        if e is not None:
            neg = mine.shape.negations[k]
            what = f"({neg.var})" if neg.part is not None else f" {neg.type or 'ANY'} {neg.var}"
            seen.killed.append(Killed(branch, p, f"NOT{what}: forbidden by {event_name(e)}"))
        return e

    def finishing(p: Partial, c: Counters, negbuf: NegationBuffers,
                  pending: Pending[Partial]) -> Iterator[Match]:
        gamma = mine.gamma(p)
        false = [f for f in mine.placed.final if not holds(f, gamma)]
        if false:
            seen.killed.append(Killed(branch, p, f"{format_condition(false[0])} is false"))
        return finish(p, c, negbuf, pending)

    for name, f in [("bind", recorded), ("bind_unit", recorded_unit), ("admits", admitted),
                    ("forbidder", forbidding), ("finish", finishing)]:
        object.__setattr__(mine, name, f)
    return mine


def trace_nfa(compiled: CompiledNFA, events: Iterable[Event], *,
              counters: Counters | None = None, budget: Budget | None = None) -> NFATrace:
    """Run ``compiled`` over ``events`` as its ``run`` does (counted into ``counters``,
    the instances alive bounded by ``budget``), recording every step. The trace's
    automaton is ``compiled`` with the orders σ this run chose (``compiled`` is left as
    it is)."""
    c = compiled
    counted = Counters() if counters is None else counters
    stream = list(events)
    bound = (None if c.pattern.window is None else
             window_in_units(c.pattern.window, c.time_unit, events, c.reading))
    seen = _Seen()
    plans = [_observe(replace(p, bound=bound, budget=budget), b, seen)
             for b, p in enumerate(c.plans)]
    if c.kind != "eager" and c.frequencies is None:
        counts = Counter(e.type for e in itertools.islice(stream, c.sample)
                         if e.type is not None)
        c = replace(c, orders=tuple(chain_order(p, {t: float(k) for t, k in counts.items()})
                                    for p in plans))

    def runner(b: int, p: Plan) -> Runner:
        if c.kind == "eager":
            return EagerRunner(p, counted)
        if c.kind == "tree":
            return TreeRunner(p, counted, c.orders[b], observed=True)
        return ChainRunner(p, counted, c.orders[b], observed=True)

    runners = [runner(b, p) for b, p in enumerate(plans)]
    relevant = c.relevant()
    done: set[Match] = set()
    steps = []
    for e in stream:
        counted.events_read += 1
        ok = relevant is None or e.type in relevant
        reported: list[Match] = []
        if ok:
            for b, r in enumerate(runners):
                before = list(r.live)
                reported += [m for m in r.step(e) if m not in done]
                done.update(reported)
                seen.killed += _expired(r, b, before, e)
        else:
            counted.events_filtered += 1
        created, refused, killed = seen.flush()
        steps.append(NFAStep(e, ok, _buffers(runners), created,
                             tuple((b, p) for b, r in enumerate(runners) for p in r.live),
                             tuple(dict.fromkeys(reported)), refused, killed))
    final = [m for r in runners for m in r.close() if m not in done]
    return NFATrace(c, tuple(steps), tuple(dict.fromkeys(final)), counted)


def _expired(r: Runner, branch: int, before: Sequence[Partial], e: Event) -> list[Killed]:
    """The instances alive before ``e`` that ``r`` dropped on it: the window (τ) left
    their first event behind (:meth:`~.runner.Runner.step`)."""
    still = {id(p) for p in r.live}
    return [Killed(branch, p, f"expired (τ): {event_name(e)} is out of the window of its "
                              "first event")
            for p in before if id(p) not in still]


def _buffers(runners: Sequence[Runner]) -> tuple[tuple[str, tuple[Event, ...]], ...]:
    """The input buffers (lazy NFAs) and negation buffers, type → events in the window."""
    out: dict[str, tuple[Event, ...]] = {}
    for r in runners:
        for t, buf in getattr(r, "buffers", {}).items():
            out.setdefault(t or "ANY", tuple(buf.events[buf.head:]))
        for t, q in r.negbuf.events.items():
            out.setdefault(f"NOT {t or 'ANY'}", tuple(q))
    return tuple(out.items())



register_tracer(CompiledNFA, trace_nfa)
