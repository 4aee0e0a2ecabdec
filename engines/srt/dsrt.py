"""``dsrt``: the output-agnostic deterministic SRT of a SREMO: seed 004, report Thm 41
(paper Thm 4.11) by Alg. 7, as a compiled automaton whose transitions the proofs read.

:func:`compile_dsrt` compiles the expression (windows unrolled by
:func:`kleene.engines.srt.windows.count_window`) and determinizes it with
minterms (:func:`kleene.engines.srt.complement.determinize`, where the
satisfiability of a minterm and the caps are documented). The result is a
*recognizer*: it accepts a string iff the expression does (Def. 18,
``Lang(e)``), ignoring outputs, so it reports no matches; :meth:`accepts`
runs it, one transition per element (exactly one fires: the minterms of a
state are exclusive and cover every element).

The blow-up, stated honestly: a subset construction can reach 2^|Q| subsets
of the (unrolled) SRT's states, and each subset has up to 2^a minterms for
its ``a`` distinct atomic conditions; both are capped, and beyond a cap
compilation stops with a one-line :class:`Unsupported` naming it. Registers:
a count-windowed expression whose accepted strings start and end with a
marked element (all of Wayeb's queries) is unrolled with register copies
(:mod:`.unroll`, Algs. 3–6) and determinized keeping the copies; any other
expression must read no register it writes. Time windows are not
determinized (they do not bound the length of a string).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass

from kleene.engines.pictured import Pictured
from kleene.engines.protocol import Counters, Feature, Query, Transition
from kleene.engines.registry import register
from kleene.engines.srt.automaton import SRT, Edge, Held, Registers, compile_edge
from kleene.engines.srt.compile import MAX_STATES, Options, compile_sremo
from kleene.engines.srt.complement import determinize
from kleene.engines.srt.lazy_dsrt import LazyDSRT
from kleene.engines.srt.run import claimed, compile_expression
from kleene.engines.srt.unroll import boundary_marked, unroll
from kleene.reference.budget import Budget
from kleene.reference.errors import Unsupported
from kleene.reference.events import Event
from kleene.reference.match import Match
from kleene.reference.sremo.expressions import (
    Atom,
    Expr,
    Not,
    Partition,
    Strategy,
    Window,
    check,
    walk,
)
from kleene.reference.sremo.features import EXPRESSION_TYPES

#: A configuration of the DSRT's runs: (state, registers) → the elements the runs started at.
Configurations = dict[tuple[int, Registers], list[int]]
#: ``observe(element, before, taken, after, reported)``: one step of :meth:`CompiledDSRT.run`,
#: ``taken`` the (state, registers, transition) of every configuration before the element.
Observe = Callable[[Event, Configurations, list[tuple[int, Registers, Edge]], Configurations,
                    list[Match]], None]


@dataclass
class CompiledDSRT(Pictured):
    """A deterministic, complete, output-agnostic SRT (transitions as data)."""

    dsrt: SRT
    subsets: tuple[frozenset[int], ...]
    #: ``stream`` or ``literal`` when compiled by the engine (then :meth:`run` reports)
    policy: str = ""

    @property
    def minterms(self) -> int:
        """The transitions of the DSRT: one per satisfiable-looking minterm of each state."""
        return len(self.dsrt.edges)

    @property
    def initial(self) -> frozenset[Hashable]:
        return frozenset({self.dsrt.start})

    @property
    def accepting(self) -> frozenset[Hashable]:
        return self.dsrt.finals

    def iter_transitions(self) -> Iterator[Transition]:
        for e in self.dsrt.edges:
            yield Transition(e.source, e.target, None, e.shown_guard(), "bind", None, ())

    def accepts(self, events: Iterable[Event], *, counters: Counters | None = None) -> bool:
        """Whether the string ``events`` is in ``Lang(e)``: the one run ends in a final
        state (counted into ``counters``)."""
        c = Counters() if counters is None else counters
        slots = {r: i for i, r in enumerate(self.dsrt.registers())}
        tests = [[(compile_edge(e, slots), e.target, tuple(slots[r] for r in e.writes))
                  for e in self.dsrt.out[q]] for q in range(self.dsrt.size)]
        q = self.dsrt.start
        regs: Registers = (None,) * len(slots)
        for u in events:
            c.events_read += 1
            fired = [(t, w) for test, t, w in tests[q] if test(u, regs)]
            c.predicate_evaluations += len(tests[q])
            if len(fired) > 1:  # pragma: no cover - the minterms are exclusive
                raise AssertionError(f"state {q} is not deterministic on {u}")
            if len(fired) != 1:  # pragma: no cover - the minterms cover every element
                raise AssertionError(f"state {q} is not complete on {u}")
            q, writes = fired[0]
            if writes:
                held, cells = Held(u), list(regs)
                for i in writes:
                    cells[i] = held
                regs = tuple(cells)
        return q in self.dsrt.finals

    def run(self, events: Iterable[Event], observe: Observe | None = None, *,
            counters: Counters | None = None, budget: Budget | None = None,
            ) -> Iterator[Match]:
        """The matches of a *fully marked* expression (:func:`fully_marked`; refused at
        compile time otherwise): Alg. 1 over the DSRT. Under ``stream`` a run starts at
        every element ``j`` and is deterministic, so it is one configuration per start;
        configurations that agree on state and registers share their starts; at ``k``
        every start ``j`` of a configuration in a final state gives the match
        ``{j, ..., k}`` (every element read is marked, so ``S_j..k ∈ Lang(e)`` is the
        match ``M = {j..k}``, ``max M = k``). Under ``literal`` one run from the
        first element, the whole stream reported at the end if accepted. ``observe``
        (the trace, :mod:`kleene.engines.srt.trace`) is called after every element with
        the configurations before it, the transition each took, those after it and the
        matches reported. Counted into ``counters``; ``budget``'s limit bounds the matches
        made on one element (docs/architecture.md, "Engine budgets")."""
        if not self.policy:
            raise Unsupported("an output-agnostic DSRT (report Thm 41) recognizes strings; "
                              "compile it with the dsrt engine to report matches")
        d, c = self.dsrt, Counters() if counters is None else counters
        slots = {r: i for i, r in enumerate(d.registers())}
        sinks = {i for i, s in enumerate(self.subsets) if not s}
        tests = [[(compile_edge(e, slots), e.target, tuple(slots[r] for r in e.writes), e)
                  for e in d.out[q]] for q in range(d.size)]
        empty: Registers = (None,) * len(slots)
        streaming = self.policy == "stream"
        runs: Configurations = {} if streaming else {(d.start, empty): [0]}
        k = -1
        for k, u in enumerate(events):
            k = u.position
            if streaming:
                runs.setdefault((d.start, empty), []).append(k)
            nxt: Configurations = {}
            taken: list[tuple[int, Registers, Edge]] = []
            for (q, regs), starts in runs.items():
                c.predicate_evaluations += len(tests[q])
                fired = next((t for t in tests[q] if t[0](u, regs)), None)
                if fired is None:  # pragma: no cover - the minterms cover every element
                    raise AssertionError(f"state {q} is not complete on {u}")
                _, target, writes, edge = fired
                if observe is not None:
                    taken.append((q, regs, edge))
                if target in sinks:
                    continue
                if writes:
                    held, cells = Held(u), list(regs)
                    for i in writes:
                        cells[i] = held
                    regs = tuple(cells)
                nxt.setdefault((target, regs), []).extend(starts)
            c.events_read += 1
            c.instances_created += len(nxt)
            c.observe_active(len(nxt))
            if budget is not None and streaming:
                budget.hold(sum(len(s) for (q, _), s in nxt.items() if q in d.finals),
                            "DSRT matches made on one element")
            found = [Match.marked(range(j, k + 1)) for (q, _), starts in nxt.items()
                     if q in d.finals for j in sorted(set(starts))] if streaming else []
            if observe is not None:
                observe(u, dict(runs), taken, dict(nxt), found)
            runs = nxt
            yield from found
        if not streaming and any(q in d.finals for q, _ in runs):
            yield Match.marked(range(k + 1)) if k >= 0 else Match.of({})


def compile_dsrt(e: Expr, *, time_unit: str | None = None,
                 max_states: int = MAX_STATES) -> CompiledDSRT:
    """The DSRT of ``e`` (Alg. 7); :class:`Unsupported` beyond the fragment or the caps.

    A count-windowed ``e = body[1..w]`` whose body is boundary-marked is unrolled as the
    report does (Algs. 3–6, register copies), so registers written and read are handled;
    any other expression is determinized directly (its SRT must read no register it
    writes, :func:`~kleene.engines.srt.complement.check_determinizable`)."""
    check(e)
    options = Options(time_unit, "inclusive", max_states)
    if isinstance(e, Window) and isinstance(e.width, int):
        body = compile_sremo(e.body, options)
        if boundary_marked(body):
            d, subsets = determinize(unroll(body, e.width, max_states), max_states,
                                     copies=True)
            return CompiledDSRT(d, subsets)
    d, subsets = determinize(compile_sremo(e, options), max_states)
    return CompiledDSRT(d, subsets)


def fully_marked(e: Expr) -> str | None:
    """Why the DSRT cannot report the matches of ``e`` (``None``: it can). An
    output-agnostic DSRT forgets which elements a run marked, so it reports matches
    only when every element a run reads is marked: every atom marked, and no negation
    or selection strategy (they read elements without marking them)."""
    for node in walk(e):
        if isinstance(node, Atom) and not node.marked:
            return "an unmarked atom"
        if isinstance(node, Not):
            return "a negation"
        if isinstance(node, Strategy):
            return "a selection strategy (its gaps are unmarked)"
    return None


#: Policies the engine reports matches under.
POLICIES = ("stream", "literal")


def eager(e: Expr) -> bool:
    """Whether the engine runs ``e`` on its eager, output-agnostic DSRT
    (:func:`compile_dsrt`, drawn and proved whole): ``e`` is fully marked
    (:func:`fully_marked`), has no time window and no ``PARTITION BY`` (and its DSRT is
    within the caps and needs no copies beyond Algs. 3-6's). Every other expression runs
    on the DSRT with its marks, built lazily
    (:mod:`kleene.engines.srt.lazy_dsrt`)."""
    return fully_marked(e) is None and not any(
        isinstance(n, Window) and not isinstance(n.width, int) for n in walk(e))


@dataclass(frozen=True)
class DSRTEngine:
    """The engine ``dsrt``: the DSRT of report Thm 41 / Alg. 7 run over the stream.
    A fully marked, count-windowed expression runs on its output-agnostic DSRT, built
    whole (:meth:`CompiledDSRT.run`); every other one (time windows, unmarked atoms and
    the gaps of selection strategies, ``PARTITION BY``, negation, bodies that read a
    register they write) on the DSRT that keeps its marks, built lazily
    (:class:`~kleene.engines.srt.lazy_dsrt.LazyDSRT`: its states are bounded by the
    elements that can share a window, and capped). It claims what ``srt`` claims; beyond
    a cap it refuses naming it."""

    name: str = "dsrt"

    @property
    def capabilities(self) -> frozenset[Feature]:
        return claimed("sremo") | claimed("wayeb") | claimed("ceql")

    def compile(self, query: Query) -> CompiledDSRT | LazyDSRT:
        pattern, policy, time_unit = query.pattern, query.policy, query.time_unit
        if not isinstance(pattern, EXPRESSION_TYPES):
            raise Unsupported(f"the SRT engines run SREMO expressions, not "
                              f"{type(pattern).__name__}")
        if policy not in POLICIES:
            raise Unsupported(f"the dsrt engine has no policy {policy!r}; choose "
                              f"{' or '.join(POLICIES)}")
        if not isinstance(pattern, Partition) and eager(pattern):
            try:
                compiled = compile_dsrt(pattern, time_unit=time_unit,
                                        max_states=DSRT_MAX_STATES)
            except Unsupported:
                pass    # beyond the eager construction (a cap, a register read after its
                # write outside Algs. 3-6's unrolling): the DSRT with marks, built lazily
            else:
                compiled.policy = policy
                return compiled
        srt = compile_expression(query)
        return LazyDSRT(srt.srt, policy, DSRT_MAX_STATES, by=srt.by)


#: The state cap of the engine's determinization (report Alg. 7).
DSRT_MAX_STATES = 20_000

register("dsrt", DSRTEngine)
