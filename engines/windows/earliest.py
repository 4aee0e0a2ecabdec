"""A(P, W) for the earliest-maximal policies of seed 001 Sec. 3, over the match windows.

Seed 001 Def. 4: A(P, W) returns the matches of the policy that start at W's first
event e1. ``earliest-maximal`` and ``earliest-maximal-contained``
(:mod:`kleene.reference.ses.policies`) judge a match only against the matches of Γ
with the same first event (its *group*): *earliest*, every variable starts at the
earliest start any match of the group gives it; *maximal*, no match of the group is it
with one more event bound to one variable (``earliest-maximal``), or contains it
(``earliest-maximal-contained``). The group of e1 is exactly what the SES automaton
under skip-till-any-match returns for W anchored at e1 (every match starting at e1
lies in W, Def. 3). :class:`EarliestMatcher` searches the runs of the SES automaton
under skip-till-any-match started at e1 (seed 000 Sec. 4.3: a run takes or skips each
event; every match of the group is the buffer of one run), depth first, in two passes:

1. *earliest* (``earliest[v]``, the least first position of v over the group): branch
   and bound; a run is cut when it can lower no ``earliest[v]`` found so far (each v
   bound at or after it, or unbound with the next event at or after it: a run binds
   v first at a later event or never). A cut run's matches lower nothing, so the
   minima are the group's.
2. *the earliest matches* E, the matches of the group whose every v starts at
   ``earliest[v]``: a run is cut as soon as it binds some v first elsewhere, or passes
   ``earliest[v]`` with v unbound.

Then :func:`select_group` keeps of E what the policy keeps of the group. E suffices:
a match g of the group that extends or contains m ∈ E binds each v to a superset of
m's, so ``g[v][0] ≤ m[v][0] = earliest[v] ≤ g[v][0]``: g is in E. (With no match
starting every v at its earliest, E is empty, and so is the policy's answer.)

*Cost.* Pass 1 explores the runs that may still start some variable earlier: with
singleton variables, once the first match is found (the depth-first search takes
before it skips), a run survives only while it can bind a variable earlier, about
``O(|W| · k)`` runs for k variables. Pass 2 enumerates E: one run per way to bind
the group variables after their first events (exponential in the events of W that a
group variable can take, as ``any``'s group is; with singleton variables E has at most
one match). Over the stream, Algorithm 1 calls A at most once per event that passes
the filter and the necessary conditions (seed 001 Sec. 4): linear in the stream for a
pattern and window whose windows hold boundedly many candidates. ``budget``'s limit
on what is held bounds both the runs a search holds at once and the runs it explores
in one window (a group variable over many candidates: the search is exponential in
them, and stops there with the budget error).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from kleene.engines.protocol import Counters
from kleene.engines.ses.automaton import SESAutomaton, State
from kleene.engines.ses.run import Instance, Move
from kleene.engines.spans import Window
from kleene.engines.windows.matching import AnchoredExecution, Split, property_split
from kleene.reference.budget import Budget
from kleene.reference.events import Event
from kleene.reference.match import Match
from kleene.reference.ses.pattern import SESPattern

#: The policies :class:`EarliestMatcher` selects.
EARLIEST_POLICIES: tuple[str, ...] = ("earliest-maximal", "earliest-maximal-contained")


def _one_smaller(g: Match) -> list[Match]:
    """Every match that ``g`` extends by one event bound to one of its variables."""
    out = []
    for i, (v, ps) in enumerate(g.bindings):
        if len(ps) < 2:
            continue
        for j in range(len(ps)):
            rest = (v, ps[:j] + ps[j + 1:])
            out.append(Match(g.bindings[:i] + (rest,) + g.bindings[i + 1:]))
    return out


def _contains(big: Match, small: Match) -> bool:
    return big != small and all(set(small[v]) <= set(big[v]) for v in small.variables)


def select_group(policy: str, group: Sequence[Match]) -> list[Match]:
    """The matches of ``group`` (the matches of Γ with one first event) that ``policy``
    keeps: earliest, and maximal in the policy's reading (module docstring)."""
    if not group:
        return []
    names = group[0].variables
    earliest = {v: min(m[v][0] for m in group) for v in names}
    early = [m for m in group if all(m[v][0] == earliest[v] for v in names)]
    if policy == "earliest-maximal":
        extended = {s for g in group for s in _one_smaller(g)}
        return [m for m in early if m not in extended]
    return [m for m in early if not any(_contains(g, m) for g in group)]


#: Whether a run (its buffer, the position of the next event it would read, ∞ at the end)
#: may still lead to a match the pass wants.
Wanted = Callable[[Instance, float], bool]


class Runs(AnchoredExecution):
    """The execution whose transitions a search takes (Ω unused), anchored at W's first
    event, reading the properties off ē where given
    (:class:`~kleene.engines.windows.matching.AnchoredExecution`); its budget's limit
    bounds the runs a search holds."""

    def consume(self, inst: Instance, e: Event) -> tuple[list[Instance], Instance | None]:
        """Seed 000 Alg. 2 under skip-till-any-match: the runs that take ``e``, and ``inst``
        skipping it (``None`` in the start state)."""
        return self._consume(inst, e)

    def hold_runs(self, held: int, what: str = "held at once") -> None:
        assert self.budget is not None
        self.budget.hold(held, f"runs of an earliest-maximal search {what}")


def search(ex: Runs, W: Sequence[Event], wanted: Wanted) -> list[Match]:
    """The matches of the runs started at ``W[0]`` (skip-till-any-match) that a depth-first
    search reaches, cutting each run ``wanted`` rejects; a run takes before it skips."""
    n, win, first = ex.n, ex.win, W[0]
    out: list[Match] = []
    start = Instance(n.start, {}, first)
    stack: list[tuple[Instance, int]] = [(start, 0)]
    most = ex.most
    explored = 0
    while stack:
        inst, i = stack.pop()
        explored += 1
        if most is not None and explored > most:   # the search's size in one window
            ex.hold_runs(explored, "explored in one window")
        if i == len(W) or not win.fits(W[i].ts - first.ts):
            continue
        if i > 0 and not wanted(inst, W[i].position):
            continue
        fired, kept = ex.consume(inst, W[i])
        if kept is not None:
            stack.append((kept, i + 1))
        for new in fired:
            if new.state == n.accepting:
                m = new.match()
                if wanted(new, math.inf):
                    out.append(m)
                if not n.outgoing(new.state):
                    continue
            if wanted(new, W[i + 1].position if i + 1 < len(W) else math.inf):
                stack.append((new, i + 1))
        if most is not None and len(stack) > most:
            ex.hold_runs(len(stack))
    return out


def earliest_starts(ex: Runs, W: Sequence[Event], names: Sequence[str]) -> dict[str, float]:
    """Pass 1: ``earliest[v]`` over the matches starting at ``W[0]`` (∞: no match)."""
    best = dict.fromkeys(names, math.inf)

    def lowers(inst: Instance, at: float) -> bool:
        beta = inst.beta
        for v in names:
            bound = beta.get(v)
            if (bound[0].position if bound else at) < best[v]:
                return True
        return False

    def wanted(inst: Instance, at: float) -> bool:
        if at == math.inf and inst.state == ex.n.accepting:   # a match: lower the minima
            for v, es in inst.beta.items():
                best[v] = min(best[v], es[0].position)
            return False
        return lowers(inst, at)

    search(ex, W, wanted)
    return best


def earliest_matches(ex: Runs, W: Sequence[Event],
                     earliest: dict[str, float]) -> list[Match]:
    """Pass 2: E, the matches starting at ``W[0]`` whose every v starts at ``earliest[v]``."""
    def wanted(inst: Instance, at: float) -> bool:
        beta = inst.beta
        for v, p in earliest.items():
            bound = beta.get(v)
            if (bound[0].position != p) if bound else at > p:
                return False
        return True

    return search(ex, W, wanted)


class EarliestMatcher:
    """A(P, W) under an earliest-maximal policy, by the two searches of the module
    docstring over ``automaton`` (the SES automaton of ``pattern`` without the equalities
    the partitioning dropped, seed 000 Sec. 4.2; ``pattern``'s properties are those ē
    encodes)."""

    reads_bits = True

    def __init__(self, automaton: SESAutomaton, pattern: SESPattern, policy: str,
                 win: Window, budget: Budget | None = None) -> None:
        self.automaton, self.policy, self.names = automaton, policy, pattern.names
        self.win, self.budget = win, budget
        self.counters = Counters()
        self.split: Split = property_split([automaton], pattern)
        self.moves: dict[bool, dict[State, tuple[Move, ...]]] = {True: {}, False: {}}

    def __call__(self, W: Sequence[Event], bits: Sequence[int] | None = None) -> list[Match]:
        known = None if bits is None else dict(zip((e.position for e in W), bits, strict=True))
        ex = Runs(self.automaton, anchor=W[0], win=self.win, policy="any",
                  variant="corrected", counters=self.counters, bits=known, split=self.split,
                  moves=self.moves[known is not None], budget=self.budget)
        earliest = earliest_starts(ex, W, self.names)
        if any(p == math.inf for p in earliest.values()):
            return []
        return select_group(self.policy, earliest_matches(ex, W, earliest))
