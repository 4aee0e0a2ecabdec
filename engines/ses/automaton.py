"""The SES automaton: seed 000 Def. 3 and its construction, Sec. 4.2.

``N = (Q, Δ, q_s, q_f, τ)``: states are sets of variable names, a transition
``δ = (q, v, Θ_δ)`` leads from ``q`` to ``q ∪ {v}`` when its conditions Θ_δ
hold for the match buffer extended by ``v/e``. The construction has two steps:

1. :func:`set_automaton` (Sec. 4.2.1) translates one event set pattern V_i:
   a state per subset of V_i, a transition ``(q, v, Θ_δ)`` for every
   ``v ∈ V_i \\ q`` and a loop ``(q, v+, Θ_δ)`` for every group variable
   ``v+ ∈ q``, with Θ_δ the conditions of Θ that constrain ``v`` and refer
   only to variables of the preceding sets, of ``q`` and ``v`` itself;
2. :func:`concatenate` (Sec. 4.2.2) merges the accepting state of the left
   automaton with the start state of the right one: the right states are
   renamed ``q ∪ q_f(left)``, and every transition leaving the right start
   state gets the time constraints ``{v'.T < v.T | v' ∈ q_f(left)}``.

:func:`ses_automaton` concatenates N_1 .. N_m left to right, as the paper does
(``(N1 N2) N3``). Our conditions are richer than the paper's two forms
``v.A φ C`` and ``v.A φ v'.A'``; Θ_δ is read as "every condition that mentions
``v`` and whose variables are all bound once ``v`` is": the paper's rule for
its two forms, and the natural one for ``prev``, ``OR`` and ``NOT``. A
condition without variables (``1 = 2``) guards every transition that leaves
the start state. Timestamps are read as ``v.ts`` (the reserved attribute of
:class:`~kleene.reference.events.Event`).

Conventions: ``q`` a state (frozenset of names), ``v`` a variable name,
``theta`` a condition, ``delta`` a transition, ``n`` an automaton.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from itertools import combinations

from kleene.engines.protocol import Feature
from kleene.reference.condition_text import format_condition
from kleene.reference.conditions import (
    Attr,
    Cmp,
    Condition,
    conjunction,
    variables,
)
from kleene.reference.durations import Duration
from kleene.reference.errors import KleeneError
from kleene.reference.ses.features import constructs
from kleene.reference.ses.pattern import SESPattern

State = frozenset[str]


class InvalidAutomaton(KleeneError):
    """An SES automaton whose parts do not fit together (Def. 3)."""

    code = "automaton"


@dataclass(frozen=True, slots=True)
class SESTransition:
    """``δ = (q, v, Θ_δ)``: from ``source`` bind ``variable``, if ``conditions`` hold."""

    source: State
    variable: str
    conditions: tuple[Condition, ...]

    @property
    def target(self) -> State:
        """``q ∪ {v}``: the source itself for a loop of a group variable."""
        return self.source | {self.variable}

    @property
    def is_loop(self) -> bool:
        return self.variable in self.source

    @property
    def guard(self) -> Condition:
        """Θ_δ as one condition (their conjunction; ``TRUE`` when empty)."""
        return conjunction(self.conditions)

    def __str__(self) -> str:
        def name(q: State) -> str:
            return "{" + ", ".join(sorted(q)) + "}"
        return f"{name(self.source)} --{self.variable} [{format_condition(self.guard)}]--> " \
               f"{name(self.target)}"


@dataclass(frozen=True)
class SESAutomaton:
    """``N = (Q, Δ, q_s, q_f, τ)`` of Def. 3, validated on construction.

    ``group_variables`` names the variables that may loop; ``preceding`` the
    variables of the event set patterns before this one (non-empty only for a
    single N_i of Sec. 4.2.1, whose guards may mention them).
    """

    states: frozenset[State]
    transitions: tuple[SESTransition, ...]
    start: State
    accepting: State
    window: Duration
    group_variables: frozenset[str] = frozenset()
    preceding: frozenset[str] = frozenset()
    _outgoing: Mapping[State, tuple[SESTransition, ...]] = field(
        init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        _validate(self)
        outgoing: dict[State, list[SESTransition]] = {q: [] for q in self.states}
        for delta in self.transitions:
            outgoing[delta.source].append(delta)
        object.__setattr__(self, "_outgoing", {q: tuple(ts) for q, ts in outgoing.items()})

    def outgoing(self, q: State) -> tuple[SESTransition, ...]:
        """The transitions that leave state ``q`` (Alg. 2 line 2), loops included."""
        return self._outgoing[q]

    @property
    def variables(self) -> State:
        """Every variable some transition binds."""
        return frozenset(delta.variable for delta in self.transitions)

    def restricted_to(self, states: Iterable[State]) -> SESAutomaton:
        """The sub-automaton on ``states``: the transitions between two of them."""
        kept = frozenset(states)
        return SESAutomaton(
            states=kept,
            transitions=tuple(d for d in self.transitions
                              if d.source in kept and d.target in kept),
            start=self.start, accepting=self.accepting, window=self.window,
            group_variables=self.group_variables, preceding=self.preceding)


def _validate(n: SESAutomaton) -> None:
    if n.start not in n.states:
        raise InvalidAutomaton(f"the start state {set(n.start)} is not a state")
    if n.accepting not in n.states:
        raise InvalidAutomaton(f"the accepting state {set(n.accepting)} is not a state")
    seen: set[tuple[State, str]] = set()
    for delta in n.transitions:
        if delta.source not in n.states or delta.target not in n.states:
            raise InvalidAutomaton(f"transition {delta} leaves the set of states")
        if delta.is_loop and delta.variable not in n.group_variables:
            raise InvalidAutomaton(f"transition {delta} loops on the singleton variable "
                                   f"{delta.variable!r}; only group variables loop")
        if (delta.source, delta.variable) in seen:
            raise InvalidAutomaton(f"two transitions bind {delta.variable!r} from "
                                   f"{set(delta.source)}")
        seen.add((delta.source, delta.variable))
        unbound = set().union(*map(variables, delta.conditions)) - delta.target - n.preceding
        if unbound:
            raise InvalidAutomaton(f"transition {delta} tests unbound variable(s) "
                                   f"{sorted(unbound)}")

# ---------------------------------------------------------------- Sec. 4.2.1


def transition_conditions(pattern: SESPattern, bound: State, v: str,
                          *, leaves_start: bool) -> tuple[Condition, ...]:
    """Θ_δ of Sec. 4.2.1 for binding ``v`` when ``bound`` (preceding sets ∪ q) is bound.

    The conditions of Θ that mention ``v`` and whose variables are all in
    ``bound ∪ {v}``, in the order of Θ; ``leaves_start`` adds the conditions
    without variables (they must hold for any match at all).
    """
    after = bound | {v}
    return tuple(theta for theta in pattern.conditions
                 if (v in variables(theta) and variables(theta) <= after)
                 or (leaves_start and not variables(theta)))


def set_automaton(pattern: SESPattern, i: int) -> SESAutomaton:
    """N_{i+1} of Sec. 4.2.1 for the event set pattern ``pattern.sets[i]`` (0-based ``i``)."""
    names = tuple(v.name for v in pattern.sets[i])
    groups = frozenset(v.name for v in pattern.sets[i] if v.group)
    preceding = frozenset(v.name for b in pattern.sets[:i] for v in b)
    states = frozenset(frozenset(c) for k in range(len(names) + 1)
                       for c in combinations(names, k))
    transitions = []
    for q in sorted(states, key=_state_order(names)):
        for v in names:
            if v not in q or v in groups:
                theta = transition_conditions(pattern, preceding | q, v,
                                              leaves_start=i == 0 and not q)
                transitions.append(SESTransition(q, v, theta))
    return SESAutomaton(states=states, transitions=tuple(transitions), start=frozenset(),
                        accepting=frozenset(names), window=pattern.window,
                        group_variables=groups, preceding=preceding)


def _state_order(names: tuple[str, ...]):
    """Sort key: by size, then by the variables' order in the set (Fig. 4's reading order)."""
    return lambda q: (len(q), sorted(names.index(v) for v in q))

# ---------------------------------------------------------------- Sec. 4.2.2


def time_constraints(before: State, v: str) -> tuple[Condition, ...]:
    """``{v'.T < v.T | v' ∈ before}`` of Sec. 4.2.2, in name order."""
    return tuple(Cmp("<", Attr(w, "ts"), Attr(v, "ts")) for w in sorted(before))


def concatenate(left: SESAutomaton, right: SESAutomaton) -> SESAutomaton:
    """``N = N_1 N_2`` of Sec. 4.2.2: merge q_f(left) with q_s(right).

    The right automaton's states and transitions are renamed ``q ∪ q_f(left)``
    (Q_2*, Δ_2*); transitions leaving the right start state also require every
    event bound so far to be strictly earlier.
    """
    if right.preceding != left.accepting | left.preceding:
        raise InvalidAutomaton("the right automaton was not built for the variables the "
                               "left one binds")
    base = left.accepting
    renamed = []
    for delta in right.transitions:
        extra = time_constraints(base, delta.variable) if delta.source == right.start else ()
        renamed.append(SESTransition(delta.source | base, delta.variable,
                                     delta.conditions + extra))
    return SESAutomaton(
        states=left.states | {q | base for q in right.states},
        transitions=left.transitions + tuple(renamed),
        start=left.start, accepting=right.accepting | base, window=left.window,
        group_variables=left.group_variables | right.group_variables,
        preceding=left.preceding)


def ses_automaton(pattern: SESPattern) -> SESAutomaton:
    """The SES automaton of ``pattern``: ``(N_1 N_2) ... N_m`` (Sec. 4.2)."""
    n = set_automaton(pattern, 0)
    for i in range(1, len(pattern.sets)):
        n = concatenate(n, set_automaton(pattern, i))
    return n


def required_features(pattern: SESPattern) -> frozenset[Feature]:
    """The features an engine needs for ``pattern``: SES, and group variables or
    ``prev`` when the pattern uses them."""
    return Feature.of("ses", *constructs(pattern))


def paths(n: SESAutomaton) -> Iterator[tuple[State, ...]]:
    """Every path of states from start to accepting that takes no loop (for drawing
    runs and for the orderings of the brute force, Sec. 5.2)."""
    def extend(path: tuple[State, ...]) -> Iterator[tuple[State, ...]]:
        q = path[-1]
        if q == n.accepting:
            yield path
            return
        for delta in n.outgoing(q):
            if not delta.is_loop:
                yield from extend(path + (delta.target,))
    yield from extend((n.start,))
