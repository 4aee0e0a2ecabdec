"""Execution of the SES automaton: seed 000 Sec. 4.3 (Def. 4, Algorithms 1 and 2)
and the event filter of Sec. 4.5; the engine ``ses-automaton``.

An automaton instance ``Ñ = (q_c, β)`` (Def. 4) is a state and a match buffer.
For each event ``e`` (Algorithm 1, ``SESExec``) a fresh instance in the start
state joins Ω; an instance whose buffer spans more than τ together with ``e``
*expires* (reported if accepting); every other instance consumes ``e``
(Algorithm 2, ``ConsumeEvent``): it branches into one instance per transition
whose Θ_δ holds for ``β ∪ {v/e}``, stays as it is if none fires, and is
dropped if it is still in the start state.

Two variants (``variant=``):

- ``"corrected"`` (default): reports every accepting instance whose buffer can
  no longer change: when it expires, as soon as it reaches an accepting state
  without outgoing transitions, and at the end of the stream. Its result is
  the reference ``next`` policy (:func:`kleene.reference.ses.policies.can_take`
  is the set of enabled transitions, read declaratively);
- ``"faithful"``: Algorithm 1 as printed, which reports only on expiry, so a
  match still open when the stream ends is never reported (docs/errata.md).

``policy="any"`` (our extension, a second engine for the reference ``any``):
an instance may also skip an event it could take (it stays beside its
branches), and every buffer is reported when a transition brings it into the
accepting state.

The filter of Sec. 4.5 (``filter=``, :mod:`kleene.engines.ses.filter`) drops an
event before any instance sees it. The corrected variant still lets a filtered
event expire instances (so matches are emitted on time); the faithful one inserts
the filter after line 3, as the paper says.

Conventions: ``n`` the automaton, ``e`` an event, ``beta`` a match buffer.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from operator import attrgetter
from typing import Any, NamedTuple, Protocol

from kleene.engines.pictured import Pictured
from kleene.engines.protocol import (
    Counters,
    Feature,
    Query,
    Transition,
    require,
    window_in_units,
)
from kleene.engines.registry import register
from kleene.engines.ses.automaton import (
    SESAutomaton,
    SESTransition,
    State,
    required_features,
    ses_automaton,
)
from kleene.engines.ses.evaluation import PROPERTY, comparison_holds, plan
from kleene.engines.ses.filter import candidates
from kleene.engines.spans import Window
from kleene.reference.budget import Budget
from kleene.reference.conditions import (
    Condition,
    holds,
    prev_variables,
)
from kleene.reference.errors import Unsupported
from kleene.reference.events import Event
from kleene.reference.languages import STRICT_WINDOW
from kleene.reference.match import Match
from kleene.reference.ses.features import CONSTRUCTS
from kleene.reference.ses.pattern import SESPattern

Buffer = Mapping[str, tuple[Event, ...]]

VARIANTS = ("corrected", "faithful")
POLICIES = ("next", "any")


_POSITION = attrgetter("position")


class Instance(NamedTuple):
    """``Ñ = (q_c, β)`` of Def. 4; ``first`` is the event the run started at (Alg. 1
    line 4), which is β's earliest event once β is not empty. (A named tuple: the
    automaton makes one per branch, and a frozen dataclass costs twice as much.)"""

    state: State
    beta: Buffer
    first: Event

    def match(self) -> Match:
        """β as a match. Each variable's events were appended in stream order, one
        event once (a step binds ``e`` once per branch), so the positions are
        already :meth:`Match.of`'s sorted, distinct tuples."""
        return Match(tuple(sorted([(v, tuple(map(_POSITION, es)))
                                   for v, es in self.beta.items()])))


class Observer(Protocol):
    """A read-only watcher of an :class:`Execution`, step by step (``engines/trace.py``,
    seed 000 Fig. 6). It is told what happens; it never changes Ω."""

    def expired(self, e: Event, instances: Sequence[Instance]) -> None:
        """``instances`` expired on ``e`` (Alg. 1 lines 7–9)."""

    def consumed(self, e: Event, inst: Instance,
                 taken: Sequence[tuple[SESTransition, Instance]], kept: Instance | None) -> None:
        """``inst`` consumed ``e`` (Alg. 2): the transitions it took with the instance each
        made, and the instance that stays (``None`` if none does)."""


@lru_cache(maxsize=4096)
def _reads_prev(theta: Condition, v: str) -> bool:
    return v in prev_variables(theta)


#: How :meth:`Execution._bind` evaluates each condition of Θ_δ when ``v`` binds an
#: event: the condition, its :func:`~kleene.engines.ses.evaluation.plan` and
#: whether it reads ``prev(v)``.
Steps = tuple[tuple[Condition, Any, bool], ...]

#: A transition ready to fire: the transition, its target state (one object for
#: every instance: a state is hashed once), the bit of ē it needs (0: its
#: properties are evaluated, not read off ē) and the :data:`Steps` of the
#: conditions left to evaluate.
Move = tuple[SESTransition, State, int, Steps]


def steps(conditions: Sequence[Condition], v: str) -> Steps:
    """The :data:`Steps` of ``conditions`` when ``v`` binds an event."""
    return tuple((theta, plan(theta, v), _reads_prev(theta, v)) for theta in conditions)


class Execution:
    """One automaton running over one stream: Ω and the steps of Algorithms 1 and 2.

    ``step(e, passed)`` processes one event (``passed`` is the filter's verdict)
    and returns the matches it makes final; ``finish()`` those left at the end.
    ``moves`` caches each state's :data:`Move` s (it may be shared by executions of
    the same automaton and kind).
    """

    def __init__(self, n: SESAutomaton, *, win: Window, policy: str, variant: str,
                 counters: Counters, observer: Observer | None = None,
                 moves: dict[State, tuple[Move, ...]] | None = None,
                 budget: Budget | None = None) -> None:
        if n.preceding:
            raise Unsupported("only the automaton of a whole pattern runs; this one "
                              f"expects {sorted(n.preceding)} to be bound already")
        self.n, self.win, self.counters = n, win, counters
        self.skips = policy == "any"
        self.faithful = variant == "faithful"
        self.omega: list[Instance] = []   # Ω, ordered by the first event of β
        self.observer = observer          # read-only (engines/trace.py); None when running
        self._seen: Event | None = None   # the event whose property verdicts are cached
        self._verdicts: dict[int, bool] = {}
        self._moves = moves if moves is not None else {}
        #: the run's budget: its limit bounds Ω, the instances alive at once (:meth:`hold`)
        self.budget = budget
        self.most = budget.most_held if budget is not None else None

    def hold(self) -> None:
        """Stop once Ω holds more instances than the budget's limit (under ``any`` a
        group variable makes one per subset of its events: docs/architecture.md,
        "Engine budgets"); called by the loops once :attr:`most` is passed."""
        assert self.budget is not None
        self.budget.hold(len(self.omega), "SES automaton instances alive at once "
                                          "(a group variable under any makes one per subset)")

    def moves(self, q: State) -> tuple[Move, ...]:
        """The transitions that leave ``q`` (Alg. 2 line 2) as :data:`Move` s."""
        found = self._moves.get(q)
        if found is None:
            found = self._moves[q] = tuple(self._move(delta) for delta in self.n.outgoing(q))
        return found

    def _move(self, delta: SESTransition) -> Move:
        """``delta`` as a :data:`Move`: every condition evaluated, no bit of ē read."""
        return delta, delta.target, 0, steps(delta.conditions, delta.variable)

    def _have(self, e: Event) -> int:
        """ē of ``e`` as far as it is known (-1: nothing is read off ē)."""
        return -1

    def step(self, e: Event, passed: bool = True) -> list[Match]:
        """Algorithm 1, lines 4–15, for event ``e``: the matches it makes final."""
        found = self.advance(e, passed)
        return [inst.match() for inst in found] if found else []

    def advance(self, e: Event, passed: bool = True) -> list[Instance]:
        """:meth:`step`, the instances whose buffers are matches (each a match once made:
        :meth:`Instance.match`; :func:`instance_columns` turns many into columns)."""
        if self.faithful and not passed:
            return []                      # the filter sits right after line 3
        out = self._expire(e)              # lines 7–9
        if not passed:
            return out
        self.counters.instances_created += 1
        omega = self.omega + [Instance(self.n.start, {}, e)]   # line 4
        self.omega = []
        for inst in omega:                 # lines 6, 11–12
            fired, kept = self._consume(inst, e)
            for new in fired:
                self._place(new, out)
            if kept is not None:
                self.omega.append(kept)
            if self.most is not None and len(self.omega) > self.most:
                self.hold()
        return out

    def finish(self) -> list[Match]:
        """The end of the stream: the corrected ``next`` run reports what is accepting."""
        return [inst.match() for inst in self.remaining()]

    def remaining(self) -> list[Instance]:
        """:meth:`finish`, the instances whose buffers are matches."""
        left, self.omega = self.omega, []
        if self.faithful or self.skips:
            return []
        return [inst for inst in left if inst.state == self.n.accepting]

    def _expire(self, e: Event) -> list[Instance]:
        """Drop the instances whose buffer spans more than τ with ``e`` (lines 7–9).

        Ω is ordered by first event, so the expired instances are a prefix.
        """
        k = 0
        while k < len(self.omega) and not self.win.fits(e.ts - self.omega[k].first.ts):
            k += 1
        expired, self.omega = self.omega[:k], self.omega[k:]
        if self.observer is not None:
            self.observer.expired(e, expired)
        if self.skips:
            return []                      # `any` reported each buffer when it was accepted
        return [inst for inst in expired if inst.state == self.n.accepting]

    def _consume(self, inst: Instance, e: Event,
                 have: int | None = None) -> tuple[list[Instance], Instance | None]:
        """Algorithm 2 (ConsumeEvent): the instances that take ``e``, and the one that stays.

        Under ``next`` the instance stays only if nothing fires (line 8) and it
        left the start state; under ``any`` it also stays beside its branches.
        """
        fired, taken = [], []
        if have is None:
            have = self._have(e)
        beta0, first = inst.beta, inst.first
        moves = self._moves.get(inst.state)
        for delta, target, bit, todo in moves if moves is not None else self.moves(inst.state):
            if bit and not have & bit:
                continue                   # e fails a property of delta's variable
            beta = self._bind(delta.variable, todo, beta0, e)
            if beta is not None:
                fired.append(Instance(target, beta, first))
                taken.append(delta)
        at_start = inst.state == self.n.start
        kept = None if at_start or (fired and not self.skips) else inst
        if self.observer is not None:
            self.observer.consumed(e, inst, tuple(zip(taken, fired, strict=True)), kept)
        # One instance goes on with the first branch (Thm 2's proof: t - 1 are new).
        made = len(fired) + (kept is not None) - 1
        if made > 0:
            self.counters.instances_created += made
        return fired, kept

    def _bind(self, v: str, todo: Steps, beta: Buffer,
              e: Event) -> dict[str, tuple[Event, ...]] | None:
        """``β' = β ∪ {v/e}`` if Θ_δ β' is satisfied (Alg. 2 lines 3–4), else ``None``;
        ``todo``: the :data:`Steps` of Θ_δ's conditions (those not read off ē).

        Only the instantiations that involve ``e`` are evaluated: the others were
        evaluated when their last event was bound (each condition of Θ_δ
        mentions ``v``), so the verdict equals evaluating all of Θ_δ β'.
        """
        bound = beta.get(v, ())
        counters = self.counters
        for theta, how, prev in todo:
            counters.predicate_evaluations += 1
            if how is not None and how[0]:    # a property: one verdict for every instance
                if self._seen is not e:
                    self._seen, self._verdicts = e, {}
                ok = self._verdicts.get(id(theta))
                if ok is None:
                    ok = self._verdicts[id(theta)] = holds(theta, {v: (e,)}) \
                        if how is PROPERTY else comparison_holds(how, beta, v, e)
            elif how is not None:
                ok = comparison_holds(how, beta, v, e)
            else:
                new = (bound[-1], e) if bound and prev else (e,)
                ok = holds(theta, {**beta, v: new})
            if not ok:
                return None
        counters.buffer_operations += 1
        return {**beta, v: bound + (e,)}

    def _place(self, inst: Instance, out: list[Instance]) -> None:
        """Keep a new instance in Ω, or report it now if its buffer is final."""
        accepting = inst.state == self.n.accepting
        if accepting and self.skips:
            out.append(inst)               # `any`: every accepted buffer is a match
        if accepting and not self.faithful and not self.n.outgoing(inst.state):
            if not self.skips:
                out.append(inst)           # nothing can change it any more
            return
        self.omega.append(inst)


def drive(executions: Sequence[Execution], events: Iterable[Event],
          keep: Callable[[Event], bool] | None, counters: Counters) -> Iterator[Match]:
    """Feed each event to every execution (in parallel, Sec. 5.2), counting as it goes."""
    return map(Instance.match, drive_instances(executions, events, keep, counters))


def drive_instances(executions: Sequence[Execution], events: Iterable[Event],
                    keep: Callable[[Event], bool] | None,
                    counters: Counters) -> Iterator[Instance]:
    """:func:`drive`, the instances whose buffers are the matches."""
    one = executions[0] if len(executions) == 1 else None
    for e in events:
        counters.events_read += 1
        passed = keep is None or keep(e)
        if not passed:
            counters.events_filtered += 1
        if one is not None:
            found = one.advance(e, passed)
            if found:
                yield from found
            active = len(one.omega)
        else:
            for ex in executions:
                yield from ex.advance(e, passed)
            active = sum(len(ex.omega) for ex in executions)
        counters.observe_active(active)
    for ex in executions:
        yield from ex.remaining()


def check_options(pattern: object, policy: str, variant: str) -> SESPattern:
    """The pattern, if an SES automaton can run it under ``policy`` and ``variant``."""
    if not isinstance(pattern, SESPattern):
        raise Unsupported(f"the SES engines take SES patterns, not {type(pattern).__name__}")
    if variant not in VARIANTS:
        raise Unsupported(f"unknown variant {variant!r}; choose one of {', '.join(VARIANTS)}")
    if policy not in POLICIES:
        raise Unsupported(f"the SES automaton implements the policies {', '.join(POLICIES)}, "
                          f"not {policy!r}")
    if variant == "faithful" and policy != "next":
        raise Unsupported("the faithful variant is Algorithm 1 as printed: policy next only")
    return pattern


def claimed(variant: str, filter: str) -> frozenset[Feature]:
    """What a variant claims: the policies only where it equals the reference."""
    if variant == "corrected" and filter != "paper":
        return Feature.of("ses", *CONSTRUCTS, STRICT_WINDOW, "next", "any")
    return Feature.of("ses", *CONSTRUCTS, STRICT_WINDOW)


class PicturedSES(Pictured):
    """A compiled SES pattern shown as its ``automaton`` (Sec. 4.2): its start state,
    its accepting state and its transitions, as pictures and traces read them."""

    automaton: SESAutomaton

    @property
    def initial(self) -> frozenset[Hashable]:
        return frozenset({self.automaton.start})

    @property
    def accepting(self) -> frozenset[Hashable]:
        return frozenset({self.automaton.accepting})

    def iter_transitions(self) -> Iterator[Transition]:
        for delta in self.automaton.transitions:
            yield Transition(delta.source, delta.target, delta.variable, delta.guard)


@dataclass
class CompiledSES(PicturedSES):
    """An SES pattern compiled to its automaton (Sec. 4.2), ready to run (Sec. 4.3)."""

    pattern: SESPattern
    automaton: SESAutomaton
    policy: str = "next"
    variant: str = "corrected"
    filter: str = "sound"
    time_unit: str | None = None
    reading: str = "inclusive"

    @property
    def ses_automata(self) -> list[SESAutomaton]:
        """The SES automata run side by side: this one (the match-window framework,
        seed 001, runs them anchored at a window's first event)."""
        return [self.automaton]

    def run(self, events: Iterable[Event], *, counters: Counters | None = None,
            budget: Budget | None = None) -> Iterator[Match]:
        """SESExec (Algorithm 1): one pass, each match emitted as soon as it is final,
        counted into ``counters``; ``budget``'s limit bounds Ω (:meth:`Execution.hold`)."""
        c = Counters() if counters is None else counters
        win = window_in_units(self.pattern.window, self.time_unit, events, self.reading)
        if not win.fits(0):   # WITHIN 0 read strictly: no span fits, nothing matches
            return
        ex = Execution(self.automaton, win=win, policy=self.policy, variant=self.variant,
                       counters=c, budget=budget)
        events, keep = candidates(self.pattern, self.filter, events, c)
        yield from drive([ex], events, keep, c)


@dataclass(frozen=True)
class SESAutomatonEngine:
    """The SES automaton of seed 000 Sec. 4 as an engine."""

    name: str = "ses-automaton"
    variant: str = "corrected"
    filter: str = "sound"

    @property
    def capabilities(self) -> frozenset[Feature]:
        return claimed(self.variant, self.filter)

    def compile(self, query: Query) -> CompiledSES:
        p = check_options(query.pattern, query.policy, self.variant)
        require(self, required_features(p))
        return CompiledSES(p, ses_automaton(p), query.policy, self.variant, self.filter,
                           query.time_unit, query.reading)


register("ses-automaton", SESAutomatonEngine)
register("ses-automaton-unfiltered",
         lambda: SESAutomatonEngine("ses-automaton-unfiltered", filter="none"))
register("ses-automaton-paper-filter",
         lambda: SESAutomatonEngine("ses-automaton-paper-filter", filter="paper"))
register("ses-automaton-faithful",
         lambda: SESAutomatonEngine("ses-automaton-faithful", variant="faithful",
                                    filter="none"))
