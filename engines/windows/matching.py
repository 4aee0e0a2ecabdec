"""The event pattern matching algorithm A of seed 001 Def. 4, over a wrapped engine.

Def. 4: for a match window ``W = <e1, ..., en>``, ``A(P, W)`` "returns the set
of all matches that start at e1" (all matches of the policy: A computes the
policy's matches, and a policy selects per first event, see
:mod:`kleene.engines.windows.soundness`). Two ways to get them from an engine:

- :class:`EngineMatcher`, for any engine: run the compiled pattern over the
  events of W (original positions kept) and keep the matches whose first
  event is e1. Runs started at e2, ..., en are wasted work.
- :class:`AnchoredMatcher`, for the SES automaton and the brute force of
  seed 000 (:mod:`kleene.engines.ses`): the same executions (Algorithms 1 and
  2 with the engine's policy, variant and event filter), but only the run
  started at e1 is instantiated (:class:`AnchoredExecution`), which is exactly
  the set of matches starting at e1: a run started at e binds e first, and
  a later run binds nothing before its start. The properties in a
  transition's Θ_δ are read off the events' ē (the pre-processing evaluated
  them already, :mod:`kleene.engines.columns`); the other conditions
  are evaluated by the engine as usual.

Both keep :class:`~kleene.engines.protocol.Counters` of what A did over all
calls (instances created, their peak, predicate evaluations, buffer
operations); :func:`absorb` adds them to the framework's counters.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import TYPE_CHECKING, Protocol, TypeVar

from kleene.engines.protocol import Compiled, Counters
from kleene.engines.ses.automaton import SESAutomaton, SESTransition, State
from kleene.engines.ses.filter import event_filter
from kleene.engines.ses.run import (
    CompiledSES,
    Execution,
    Instance,
    Move,
    drive_instances,
    steps,
)
from kleene.engines.spans import Window
from kleene.reference.budget import Budget
from kleene.reference.conditions import Condition
from kleene.reference.events import Event
from kleene.reference.match import Match
from kleene.reference.ses.pattern import SESPattern

if TYPE_CHECKING:  # imported by the registry only when a brute-force engine is asked for
    from kleene.engines.ses.bruteforce import CompiledBruteForce

#: The counters of A that the framework reports as its own (summed; the peak is a max).
ABSORBED = ("instances_created", "predicate_evaluations", "buffer_operations")


def absorb(total: Counters, inner: Counters) -> None:
    """Add what A counted in ``inner`` to ``total`` (peaks: the larger one)."""
    for name in ABSORBED:
        setattr(total, name, getattr(total, name) + getattr(inner, name))
    total.observe_active(inner.peak_instances)


#: What A reports of each match: the match, or (:class:`Buffers`) the instance whose buffer
#: it is.
R = TypeVar("R")


class WindowMatcher(Protocol[R]):
    """A(P, W): the matches that start at ``W[0]``; ``counters`` accumulate over calls.

    ``bits``, when given, are the events' ē (Sec. 5) for the pattern A was
    compiled for; a matcher that ``reads_bits`` uses them instead of evaluating
    properties again.
    """

    counters: Counters
    reads_bits: bool

    def __call__(self, W: Sequence[Event], bits: Sequence[int] | None = None) -> list[R]: ...


class EngineMatcher:
    """A(P, W) by any compiled engine: its matches over W that start at W[0], each call
    a run of its own (counted apart, then absorbed; within ``budget``)."""

    reads_bits = False

    def __init__(self, compiled: Compiled, budget: Budget | None = None) -> None:
        self.compiled = compiled
        self.budget = budget
        self.counters = Counters()

    def __call__(self, W: Sequence[Event], bits: Sequence[int] | None = None) -> list[Match]:
        first = W[0].position
        counted = Counters()
        out = [m for m in self.compiled.run(W, counters=counted, budget=self.budget)
               if m.first == first]
        absorb(self.counters, counted)
        return out


#: For a transition ``(v, id(Θ_δ))``: the bit of v in ē and Θ_δ without v's properties.
Split = dict[tuple[str, int], tuple[int, tuple[Condition, ...]]]


def property_split(automata: Sequence[SESAutomaton], pattern: SESPattern) -> Split:
    """How to read Θ_δ's properties off ē: Θ_δ holds for ``β ∪ {v/e}`` iff e has
    v's bit (Θp_v(e): every property of v, and Θ_δ has them all, Sec. 4.2.1) and
    the other conditions of Θ_δ hold. Transitions that lack a property keep Θ_δ."""
    out: Split = {}
    for n in automata:
        for delta in n.transitions:
            v = delta.variable
            props = set(pattern.properties(v))
            if props <= set(delta.conditions):
                rest = tuple(c for c in delta.conditions if c not in props)
                out[v, id(delta.conditions)] = (1 << pattern.names.index(v), rest)
    return out


class AnchoredExecution(Execution):
    """An :class:`~kleene.engines.ses.run.Execution` in which only the run started at
    ``anchor`` goes on: the fresh start-state instance that seed 000 Alg. 1 line 4 adds for
    every other event is dropped before it consumes the event (and not counted).

    With ``bits`` (position → ē) and ``split`` (:func:`property_split`), a
    transition's properties are read off ē instead of being evaluated again;
    ``wants`` caches, per state, the bits of the variables it has transitions for.
    """

    def __init__(self, n: SESAutomaton, *, anchor: Event, win: Window, policy: str,
                 variant: str, counters: Counters, bits: Mapping[int, int] | None = None,
                 split: Split | None = None, wants: dict[Hashable, int] | None = None,
                 moves: dict[State, tuple[Move, ...]] | None = None,
                 budget: Budget | None = None) -> None:
        super().__init__(n, win=win, policy=policy, variant=variant, counters=counters,
                         moves=moves, budget=budget)
        self.anchor = anchor.position
        self.bits, self.split = bits, split if split is not None else {}
        self._wants = wants if wants is not None else {}   # state -> _mask(state)
        self._wanted: int | None = None      # the union of Ω's masks, None: not known

    def advance(self, e: Event, passed: bool = True) -> list[Instance]:
        """Seed 000 Alg. 1 lines 4–15, where ē shows which instances of Ω can take ``e``:
        for an event other than the anchor the fresh start instance is dropped
        (it would be dropped before consuming ``e``, uncounted), and an instance
        none of whose transitions wants a variable of ē stays as it is (each of
        its transitions would find ``e`` failing a property)."""
        bits = self.bits
        if bits is None or e.position == self.anchor or self.observer is not None:
            self._wanted = None
            return super().advance(e, passed)
        have, wants = bits[e.position], self._wants
        wanted = self._wanted
        if wanted is None:       # the bits the transitions of Ω's instances want
            wanted = 0
            for inst in self.omega:
                mask = wants.get(inst.state)
                wanted |= self._mask(inst.state) if mask is None else mask
            self._wanted = wanted
        if not have & wanted:
            return []         # within W nothing expires (every instance started at
                              # the anchor, and W ends within τ of it): nothing changes
        self._wanted = None
        if self.faithful and not passed:
            return []
        out = self._expire(e)
        if not passed:
            return out
        omega, self.omega = self.omega, []
        start, union = self.n.start, 0     # union: the masks of the new Ω (and 0s)
        for inst in omega:
            mask = wants.get(inst.state)
            if mask is None:
                mask = self._mask(inst.state)
            if not have & mask:
                if inst.state != start:
                    self.omega.append(inst)
                    union |= mask
                continue
            # no start instance is in Ω (the anchor's left it), so the base's _consume
            fired, kept = super()._consume(inst, e, have)
            for new in fired:
                self._place(new, out)      # kept in Ω, or final (no transitions: mask 0)
                got = wants.get(new.state)
                union |= self._mask(new.state) if got is None else got
            if kept is not None:
                self.omega.append(kept)
                union |= mask
            if self.most is not None and len(self.omega) > self.most:
                self.hold()
        self._wanted = union
        return out

    def _mask(self, q: State) -> int:
        """The bits of the variables ``q`` has transitions for (−1: some transition of
        ``q`` reads no bit)."""
        mask = self._wants.get(q)
        if mask is None:
            mask = 0
            for _, _, bit, _ in self.moves(q):
                mask |= bit if bit else -1
            self._wants[q] = mask
        return mask

    def _move(self, delta: SESTransition) -> Move:
        split = self.split.get((delta.variable, id(delta.conditions))) \
            if self.bits is not None else None
        if split is None:
            return super()._move(delta)
        bit, rest = split
        return delta, delta.target, bit, steps(rest, delta.variable)

    def _have(self, e: Event) -> int:
        return -1 if self.bits is None else self.bits[e.position]

    def _consume(self, inst: Instance, e: Event,
                 have: int | None = None) -> tuple[list[Instance], Instance | None]:
        if inst.state == self.n.start and e.position != self.anchor:
            self.counters.instances_created -= 1
            return [], None
        return super()._consume(inst, e, have)


class AnchoredMatcher:
    """A(P, W) by the automata of a compiled SES engine, only the run started at W[0].

    ``properties``: the pattern whose properties the ē given to a call encode;
    they are read (``reads_bits``) only if it has the same properties as the
    compiled pattern. The engine's own event filter (seed 000 Sec. 4.5) is
    skipped when W passed Thm 1's filter already (``prefiltered``) and the
    engine's filter is ``sound`` (the same test) or ``none``; otherwise a
    ``sound`` filter is read off ē (it keeps e iff ē ≠ 0, as Thm 1 does) and
    any other filter is the engine's own.
    """

    def __init__(self, compiled: CompiledSES | CompiledBruteForce, win: Window, *,
                 prefiltered: bool, properties: SESPattern | None = None,
                 budget: Budget | None = None) -> None:
        self.compiled = compiled
        self.budget = budget
        self.win = win
        self.counters = Counters()
        self.automata: list[SESAutomaton] = compiled.ses_automata
        self.filtered = prefiltered and compiled.filter in ("sound", "none")
        self.keep: Callable[[Event], bool] | None = \
            None if self.filtered else event_filter(compiled.pattern, compiled.filter,
                                                    self.counters)
        same = properties is not None and all(
            set(properties.properties(v)) == set(compiled.pattern.properties(v))
            for v in compiled.pattern.names)
        self.split = property_split(self.automata, compiled.pattern) if same else None
        self.reads_bits = self.split is not None
        # per automaton, with ē read or not: the state masks and the moves
        self.wants: dict[tuple[int, bool], dict[Hashable, int]] = {}
        self.moves: dict[tuple[int, bool], dict[State, tuple[Move, ...]]] = {}

    def __call__(self, W: Sequence[Event], bits: Sequence[int] | None = None) -> list[Match]:
        return [inst.match() for inst in self.instances(W, bits)]

    def instances(self, W: Sequence[Event], bits: Sequence[int] | None = None) -> list[Instance]:
        """A(P, W) as the instances whose buffers are its matches (no match made)."""
        c, keep = self.compiled, self.keep
        known = None if bits is None or self.split is None else \
            dict(zip((e.position for e in W), bits, strict=True))
        if known is not None and keep is not None and c.filter == "sound":
            keep = lambda e: known[e.position] != 0   # noqa: E731
        kind = known is not None
        runs = [AnchoredExecution(n, anchor=W[0], win=self.win, policy=c.policy,
                                  variant=c.variant, counters=self.counters, bits=known,
                                  split=self.split,
                                  wants=self.wants.setdefault((i, kind), {}),
                                  moves=self.moves.setdefault((i, kind), {}),
                                  budget=self.budget)
                for i, n in enumerate(self.automata)]
        return list(drive_instances(runs, W, keep, self.counters))


class Buffers:
    """The :class:`AnchoredMatcher` ``A`` reporting, for each match, the instance whose
    buffer it is (:meth:`AnchoredMatcher.instances`): many are turned into columns at
    once (:func:`~kleene.engines.ses.buffers.instance_columns`), no match made."""

    def __init__(self, A: AnchoredMatcher) -> None:
        self.A, self.counters, self.reads_bits = A, A.counters, A.reads_bits

    def __call__(self, W: Sequence[Event], bits: Sequence[int] | None = None) -> list[Instance]:
        return self.A.instances(W, bits)


def matcher(compiled: Compiled, win: Window, *, prefiltered: bool,
            properties: SESPattern | None = None, anchored: bool = True,
            budget: Budget | None = None) -> WindowMatcher[Match]:
    """A for ``compiled`` (one run's: its counters are its own): anchored for the SES
    engines (unless ``anchored=False``; ``budget``'s limit bounds each run's instances
    alive), else the generic run-and-keep, each run within ``budget``. ``properties``:
    see :class:`AnchoredMatcher`."""
    if anchored and hasattr(compiled, "ses_automata"):   # CompiledSES, CompiledBruteForce
        return AnchoredMatcher(compiled, win,  # type: ignore[arg-type]
                               prefiltered=prefiltered, properties=properties, budget=budget)
    return EngineMatcher(compiled, budget)
