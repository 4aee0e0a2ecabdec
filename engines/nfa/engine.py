"""The NFA engines of seed 003 as :class:`~kleene.engines.protocol.Engine`\\ s.

- ``nfa-eager``: the eager NFA of Sec. 2.2 (:mod:`.eager`), the baseline;
- ``nfa-chain``: the lazy Chain NFA of Secs. 3–4 (:mod:`.chain`), negation by
  post-processing (Sec. 4.4.1);
- ``nfa-chain-fc``: the same with first-chance negation (Sec. 4.4.2);
- ``nfa-multichain``: the Lazy Multi-Chain NFA of Sec. 5, one chain per
  conjunct of the DNF (:mod:`.disjunction`);
- ``nfa-tree``: the lazy Tree NFA of Sec. 7 (:mod:`.tree`), one per conjunct,
  its order chosen from the buffers' current counts while it runs; over
  columns, the chain's join re-planned as the counts drift (:mod:`.replan`).

The chain's order is ascending frequency: ``frequencies`` (events per type)
if given, else estimated from the first ``sample`` events of the stream
(Sec. 3: "the frequencies ... are known in advance or estimated"), read
before matching starts and then matched like the rest.

Each engine claims, for operator patterns, the constructs it computes exactly
like the reference (:mod:`kleene.reference.operators`) within its fragment
(:mod:`.shape`: iterations and negations of single events; the lazy ones also of
sub-patterns, :mod:`.subpattern`), every policy (a
filter on Γ: ``contiguous`` on positions, ``next`` and ``partition-contiguous``
with the reference's predicates, :mod:`.selection`; ``next`` on the pattern's
own runs, also with ``OR``) and both window readings.
Outside the fragment, compile raises :class:`~kleene.reference.errors.Unsupported`.
"""

from __future__ import annotations

import itertools
from collections import Counter, deque
from collections.abc import Hashable, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal, TypeVar

from kleene.engines.match_columns import MatchColumns, gathered
from kleene.engines.nfa import join, replan
from kleene.engines.nfa.chain import ChainRunner, chain_order
from kleene.engines.nfa.columns import kept_events
from kleene.engines.nfa.conditions import place
from kleene.engines.nfa.construct import shape_of
from kleene.engines.nfa.disjunction import Seen, branch_conditions, dnf, dnf_choices, has_or
from kleene.engines.nfa.eager import EagerRunner
from kleene.engines.nfa.keyed import key_attributes, most_in_a_window
from kleene.engines.nfa.partial import DEFAULT_MAX_INSTANCES, Plan
from kleene.engines.nfa.pieces import pieces
from kleene.engines.nfa.policy_columns import keep_of
from kleene.engines.nfa.runner import Runner
from kleene.engines.nfa.selection import FILTERED, Selection, iterates_subpattern, select
from kleene.engines.nfa.tree import TreeRunner
from kleene.engines.pictured import Pictured
from kleene.engines.protocol import (
    Counters,
    Feature,
    Query,
    Transition,
    WindowReading,
    require,
    window_in_units,
)
from kleene.engines.registry import register
from kleene.engines.spans import Window
from kleene.reference.budget import Budget
from kleene.reference.conditions import TRUE, conjunction
from kleene.reference.errors import Unsupported
from kleene.reference.events import Event
from kleene.reference.languages import STRICT_WINDOW
from kleene.reference.match import Match
from kleene.reference.operators.pattern import OperatorPattern

Kind = Literal["eager", "chain", "tree"]
T = TypeVar("T")

#: What every NFA engine here computes exactly (within its fragment).
CLAIMED = ("conjunction", "negation", "kleene", "repetition", "aggregates", "prev",
           STRICT_WINDOW, "any", "contiguous", "next", "partition-contiguous")

#: What the lazy NFAs (chain, tree) compute besides: Sec. 4.5's iteration and Sec. 4.4's
#: negation over sub-patterns (:mod:`.subpattern`)
SUBPATTERNS = ("iterated-subpattern", "negated-subpattern")


class NFARun(Iterator[T]):
    """One run of a compiled NFA: an iterator of what it finds, and ``orders``, the chain
    order σ of each conjunct this run follows, current as far as it has gone: the
    compiled one when frequencies are given, else the one the first ``sample`` events
    imply (over columns: each piece's, re-planned by the Tree NFA as counts drift).

    ``iter()`` gives the iterator of the matches itself (no step through this object
    per match); ``next()`` advances the same iterator."""

    def __init__(self, orders: tuple[tuple[int, ...], ...]) -> None:
        self.orders = orders
        self.found: Iterator[T] = iter(())

    def __iter__(self) -> Iterator[T]:
        return self.found

    def __next__(self) -> T:
        return next(self.found)


@dataclass
class CompiledNFA(Pictured):
    """One plan per DNF conjunct (one without ``OR``), run eagerly or as chains."""

    kind: Kind
    plans: tuple[Plan, ...]
    pattern: OperatorPattern
    time_unit: str | None
    reading: WindowReading
    frequencies: Mapping[str, float] | None = None
    sample: int = 1000
    #: ``next`` or ``partition-contiguous``: a filter on Γ applied while running (:mod:`.selection`)
    policy: str = "any"
    #: the order σ of each chain that the given frequencies imply (the picture's; a run
    #: without frequencies chooses its own, :attr:`NFARun.orders`)
    orders: tuple[tuple[int, ...], ...] = ()
    #: per plan, the choices of OR parts its runs stand for (:func:`.disjunction.dnf_choices`)
    choices: tuple[tuple[tuple[int, ...], ...], ...] = ((),)
    #: the tree over columns: candidate rows per block whose counts choose σ (:mod:`.replan`)
    block: int = replan.BLOCK

    def __post_init__(self) -> None:
        if not self.orders:
            self.orders = tuple(chain_order(p, self.frequencies) for p in self.plans)

    # ------------------------------------------------------------ as data

    @property
    def initial(self) -> frozenset[Hashable]:
        return frozenset(self._state(b, ()) for b in range(len(self.plans)))

    @property
    def accepting(self) -> frozenset[Hashable]:
        return frozenset(self._state(b, tuple(s.var for s in p.shape.slots))
                         for b, p in enumerate(self.plans))

    def _state(self, branch: int, bound: Iterable[str]) -> Hashable:
        if self.kind != "chain":
            return (branch, frozenset(bound))
        return (branch, len(tuple(bound)))

    def iter_transitions(self) -> Iterator[Transition]:
        for b, plan in enumerate(self.plans):
            yield from (self._chain_edges(b, plan, self.orders[b]) if self.kind == "chain"
                        else self._subset_edges(b, plan, ordered=self.kind == "eager"))

    def _subset_edges(self, b: int, plan: Plan, *, ordered: bool) -> Iterator[Transition]:
        """States are sets of bound slots: order ideals for the eager NFA (a slot after
        its predecessors), every subset for the Tree NFA (any slot next, Sec. 7)."""
        shape = plan.shape
        seen: set[frozenset[int]] = set()
        todo = [frozenset[int]()]
        while todo:
            state = todo.pop()
            if state in seen:
                continue
            seen.add(state)
            here = (b, frozenset(shape.slots[i].var for i in state))
            yield Transition(here, here, None, TRUE, "skip")
            for s in shape.slots:
                guard = conjunction(plan.placed.guard(s.index))
                if s.index in state:
                    if s.iterated and not any(t in state for t in shape.after[s.index]):
                        yield Transition(here, here, s.var, guard)
                elif not ordered or shape.before[s.index] <= state:
                    nxt = state | {s.index}
                    yield Transition(here, (b, frozenset(shape.slots[i].var for i in nxt)),
                                     s.var, guard)
                    todo.append(nxt)

    def _chain_edges(self, b: int, plan: Plan, sigma: tuple[int, ...]) -> Iterator[Transition]:
        slots = plan.shape.slots
        for k, i in enumerate(sigma):
            guard = conjunction(plan.placed.guard(i))
            yield Transition((b, k), (b, k), None, TRUE, "skip")
            yield Transition((b, k), (b, k + 1), slots[i].var, guard)
            if slots[i].iterated:
                for j in range(k + 1, len(sigma) + 1):
                    yield Transition((b, j), (b, j), slots[i].var, guard)

    # ------------------------------------------------------------ running

    def run(self, events: Iterable[Event], *, counters: Counters | None = None,
            budget: Budget | None = None) -> NFARun[Match]:
        """The matches, counted into ``counters``; ``budget``'s limit bounds the instances
        alive at once, in place of ``max_instances`` (:meth:`.partial.Plan.check_budget`).
        The run's own chain orders σ are its :attr:`NFARun.orders`."""
        c = Counters() if counters is None else counters
        out = NFARun[Match](self.orders)
        columns = self._over_columns(events, c, budget, out)
        out.found = (self._run(events, c, budget, out) if columns is None
                     else (m for batch in columns for m in batch.matches()))
        return out

    def run_columns(self, events: Iterable[Event], *, counters: Counters | None = None,
                    budget: Budget | None = None) -> NFARun[MatchColumns]:
        """:meth:`run`'s matches as columns (:mod:`kleene.engines.match_columns`):
        as the chain over columns finds them, else gathered from :meth:`run`."""
        c = Counters() if counters is None else counters
        out = NFARun[MatchColumns](self.orders)
        columns = self._over_columns(events, c, budget, out)
        out.found = gathered(self._run(events, c, budget, out)) if columns is None else columns
        return out

    def _bound(self, events: Iterable[Event]) -> Window | None:
        return (None if self.pattern.window is None else
                window_in_units(self.pattern.window, self.time_unit, events, self.reading))

    def _columnar(self, events: Iterable[Event],
                  budget: Budget | None) -> tuple[Plan, join.Keep] | None:
        """The plan and policy filter of the chain over the stream's columns (:mod:`.join`)
        where it applies to ``events``; ``None`` elsewhere."""
        if (self.kind == "eager" or len(self.plans) != 1 or self.plans[0].shape.units
                or not join.typed(events)):
            return None
        plan = replace(self.plans[0], bound=self._bound(events), budget=budget)
        keep = keep_of(self.pattern, plan, self.policy)
        if keep is None or not join.eligible(plan):
            return None
        return plan, keep

    def keyed_by(self, events: Iterable[Event]) -> tuple[tuple[str, ...], int] | None:
        """Def. 6's ``X`` when a run on ``events`` is the chain over columns keyed by it
        (:mod:`.keyed`: an instance looks up the candidates of its own part only, so the
        cost grows with the product of one part's candidates within a window, not of all
        parts'), with the most rows of one part within one window
        (:func:`.keyed.most_in_a_window`); ``None`` otherwise."""
        columnar = self._columnar(events, None)
        if columnar is None:
            return None
        plan = columnar[0]
        keys = key_attributes(self.pattern, plan)
        if not keys or plan.bound is None:
            return None
        return keys, most_in_a_window(events, keys, plan.bound)

    def _over_columns(self, events: Iterable[Event], c: Counters, budget: Budget | None,
                      out: NFARun[Any]) -> Iterator[MatchColumns] | None:
        """The matches by the chain over the stream's columns (:mod:`.join`), where it
        applies; ``None`` elsewhere."""
        columnar = self._columnar(events, budget)
        if columnar is None:
            return None
        plan, keep = columnar
        found = pieces(events, plan, c, keys=key_attributes(self.pattern, plan))
        return None if found is None else self._pieces(found, plan, c, out, keep)

    def _run(self, events: Iterable[Event], c: Counters, budget: Budget | None,
             out: NFARun[Any]) -> Iterator[Match]:
        """The event-by-event chain, tree or eager NFA."""
        bound = self._bound(events)
        plans = [replace(p, bound=bound, budget=budget) for p in self.plans]
        kept = (None if self.policy == "partition-contiguous"
                else kept_events(events, plans, self.pattern.conditions, c))
        stream: Iterator[Event] = iter(events) if kept is None else kept
        if self.kind != "eager" and self.frequencies is None:
            head = list(itertools.islice(stream, self.sample))
            counts = Counter(e.type for e in head if e.type is not None)
            freqs: Mapping[str, float] = {t: float(k) for t, k in counts.items()}
            out.orders = tuple(chain_order(p, freqs) for p in plans)
            stream = itertools.chain(head, stream)
        lazy = {"chain": ChainRunner, "tree": TreeRunner}
        runners: list[Runner] = [
            EagerRunner(p, c) if self.kind == "eager"
            else lazy[self.kind](p, c, out.orders[b])
            for b, p in enumerate(plans)]
        sel = (Selection(self.pattern, self.policy, bound, self.relevant(), self.choices)
               if self.policy in FILTERED else None)
        if sel is not None:
            stream = sel.watch(stream)  # every event the NFA is given, for the policy
        if kept is None:
            stream = self._filtered(stream, self.relevant(), c)
        if sel is not None and self.policy == "next":
            return select(sel, self._reports(runners, stream))  # every report: its runs
        found = self._drive(runners, stream, bound)
        return found if sel is None else select(sel, ((m, 0) for m in found))

    def _pieces(self, found: Iterator[join.Scan], plan: Plan, c: Counters,
                out: NFARun[Any], keep: join.Keep) -> Iterator[MatchColumns]:
        """The chain over columns, piece by piece (:mod:`.pieces`); σ by the given
        frequencies, else by each piece's candidate counts (its own "event types'"
        frequencies: the order changes the cost only, Sec. 6); the tree re-plans σ
        within a piece as the counts drift (:mod:`.replan`, ``switches`` counts the
        re-plans); the run's ``orders`` the current one."""
        current: tuple[int, ...] | None = None
        if self.kind == "tree":
            c.switches = 0
        for piece in found:
            parts = (list(replan.spans(plan, piece, current, self.block))
                     if self.kind == "tree" else
                     [(piece.lo, piece.hi, join.order(plan, piece, self.frequencies))])
            for lo, hi, sigma in parts:
                if self.kind == "tree" and current is not None and sigma != current:
                    c.switches += 1
                current = sigma
                out.orders = (sigma,)
                yield from join.run(replace(piece, lo=lo, hi=hi), plan, sigma, c, keep)

    def relevant(self) -> frozenset[str | None] | None:
        """The event types some slot or negation reads (``None``: every type)."""
        types: set[str | None] = set()
        for p in self.plans:
            types |= p.shape.types | set(p.neg_types)
        return None if None in types else frozenset(types)

    def _reports(self, runners: list[Runner], stream: Iterator[Event],
                 ) -> Iterator[tuple[Match, int]]:
        """Every match each conjunct's runner reports, with the conjunct (``next`` reads
        the runs of every conjunct that reports a match, :mod:`.selection`)."""
        for e in stream:
            for b, r in enumerate(runners):
                for m in r.step(e):
                    yield m, b
        for b, r in enumerate(runners):
            for m in r.close():
                yield m, b

    def _drive(self, runners: list[Runner], stream: Iterator[Event],
               bound: Window | None) -> Iterator[Match]:
        """The matches of the runners, each once (a match two conjuncts report, Sec. 5.2)."""
        if len(runners) == 1:
            (r,) = runners
            step = r.step
            for e in stream:
                out = step(e)
                if out:
                    yield from out
            yield from r.close()
            return
        seen = Seen(bound)
        times: deque[tuple[int, float]] = deque()
        ts_of: dict[int, float] = {}
        for e in stream:
            times.append((e.position, e.ts))
            ts_of[e.position] = e.ts
            for r in runners:
                for m in r.step(e):
                    if seen.first_time(m, ts_of[m.first]):
                        yield m
            seen.forget(e.ts)
            if bound is not None:
                # a match still to come or to be reported again starts at or
                # after the earliest first event that fits with e (Seen.forget)
                oldest = bound.earliest(bound.earliest(e.ts))
                while times and times[0][1] < oldest:
                    del ts_of[times.popleft()[0]]
        for r in runners:
            for m in r.close():
                if seen.first_time(m, ts_of.get(m.first, 0.0)):
                    yield m

    def _filtered(self, stream: Iterator[Event], relevant: frozenset[str | None] | None,
                  c: Counters) -> Iterator[Event]:
        """The events of the pattern's types (``None``: all), the others counted as filtered.

        Skipping an event of another type changes no match: it is in no slot, and
        a window only delays what it would have released or expired.
        """
        for e in stream:
            c.events_read += 1
            if relevant is None or e.type in relevant:
                yield e
            else:
                c.events_filtered += 1


@dataclass
class NFAEngine:
    """An NFA engine of seed 003 (see the module docstring)."""

    name: str = "nfa-chain"
    kind: Kind = "chain"
    first_chance: bool = False
    multichain: bool = False
    frequencies: Mapping[str, float] | None = None
    sample: int = 1000
    max_instances: int = DEFAULT_MAX_INSTANCES
    #: the group-by-attribute optimisation of Sec. 4.5.3 (exact; off only to measure it)
    group_by: bool = True
    #: the policies computed by filtering every skip-till-any-match match (Γ; the module
    #: docstring, :mod:`.selection`; :func:`~kleene.engines.protocol.enumerates_any`)
    filtered_policies: tuple[str, ...] = ("contiguous", *FILTERED)

    @property
    def capabilities(self) -> frozenset[Feature]:
        extra = ("disjunction",) if self.multichain else ()
        lazy = SUBPATTERNS if self.kind != "eager" else ()
        return Feature.of("operator", *CLAIMED, *extra, *lazy)

    def compile(self, query: Query) -> CompiledNFA:
        pattern = query.pattern
        if not isinstance(pattern, OperatorPattern):
            raise Unsupported(f"engine {self.name!r} runs operator patterns (seed 003) only")
        chosen = query.policy
        require(self, query.features())
        if has_or(pattern.expr) and not self.multichain:
            raise Unsupported(f"engine {self.name!r} has no OR; use nfa-multichain "
                              "(seed 003 Sec. 5)")
        if (chosen == "next" and has_or(pattern.expr)
                and iterates_subpattern(pattern.expr)):
            raise Unsupported(f"engine {self.name!r}: policy next over an OR beside an "
                              "iterated sub-pattern (its runs' negations differ by branch); "
                              "use the reference")
        plans = []
        for branch in dnf(pattern.expr):
            shape = shape_of(branch)
            placed = place(shape, branch_conditions(branch, pattern.conditions))
            plans.append(Plan(shape, placed, None, contiguous=chosen == "contiguous",
                              first_chance=self.first_chance,
                              max_instances=self.max_instances, group_by=self.group_by))
        return CompiledNFA(self.kind, tuple(plans), pattern, query.time_unit, query.reading,
                           self.frequencies, self.sample, chosen,
                           choices=tuple(dnf_choices(pattern.expr)))


register("nfa-eager", lambda: NFAEngine("nfa-eager", "eager"))
register("nfa-chain", lambda: NFAEngine("nfa-chain", "chain"))
register("nfa-chain-fc", lambda: NFAEngine("nfa-chain-fc", "chain", first_chance=True))
register("nfa-multichain", lambda: NFAEngine("nfa-multichain", "chain", multichain=True))
register("nfa-tree", lambda: NFAEngine("nfa-tree", "tree", multichain=True))
