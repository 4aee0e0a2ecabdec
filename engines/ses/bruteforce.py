"""The brute force of seed 000 Sec. 5.2: one automaton per ordering, run in parallel.

"A sequence of all event variables in P is a concatenation of one permutation
of each event set pattern V_i"; the brute force builds an automaton for each of
the ``|V_1|! · ... · |V_m|!`` sequences and runs them all over the events
(Example 11, Fig. 10(b)). Two readings of "an automaton for a sequence"
(``orderings=``):

- ``"sets"`` (the paper's): each variable becomes its own event set pattern,
  ``<{v_1}, {v_2}, ...>``, and the automaton is the SES automaton of that
  pattern. Consecutive variables are then *strictly* ordered in time, and a
  group variable's events cannot interleave with the other variables of its
  set. This misses matches of the SES pattern: ties in timestamps inside a set,
  and Q1's own match for patient 2 (p/e6 comes before d/e7 and c/e8, p/e10
  after them). See docs/errata.md;
- ``"paths"`` (default): the sub-automaton of the SES automaton on the states
  of one path through each set's subset lattice (the ordering says in which
  order the variables are *first* bound; loops of bound group variables stay).
  Every match of Γ has exactly one such path: its variables' order of first
  binding. So under ``policy="any"`` the union is Γ (the reference ``any``),
  without duplicates.

Under ``next`` each automaton runs with skip-till-next-match on its own. An
automaton whose ordering does not allow the variable that could take an event
skips it, where the SES automaton would bind it; so the union is a *superset*
of the reference ``next`` (every next-run follows one path and takes what the
SES automaton takes) and a subset of Γ, and the two differ: for
``<{a, b, c}>`` with A C B C, the ordering a, b, c also reports
{a/0, b/2, c/3}, which skipped C at 1. The brute force under ``next`` is kept
as the paper-faithful variant, and is not claimed.

No match is reported twice, so there is nothing to deduplicate: a match's
automaton is determined by the order in which its variables are first bound
(``"paths"``) or by the time order of its variables' blocks (``"sets"``), and
one automaton never reports a buffer twice (each buffer is one run).
The differential tests check this, since a duplicate is a defect.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator
from dataclasses import dataclass
from itertools import permutations, product

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
from kleene.engines.ses.automaton import SESAutomaton, State, required_features, ses_automaton
from kleene.engines.ses.filter import candidates
from kleene.engines.ses.run import Execution, check_options, drive
from kleene.reference.budget import Budget
from kleene.reference.errors import Unsupported
from kleene.reference.events import Event
from kleene.reference.languages import STRICT_WINDOW
from kleene.reference.match import Match
from kleene.reference.ses.features import CONSTRUCTS
from kleene.reference.ses.pattern import SESPattern, Variable

ORDERINGS = ("paths", "sets")

Ordering = tuple[tuple[Variable, ...], ...]


def orderings(pattern: SESPattern) -> Iterator[Ordering]:
    """Every choice of one permutation per set, as in Example 11 (in product order)."""
    yield from product(*(permutations(b) for b in pattern.sets))


def label(ordering: Ordering) -> str:
    """``c d p | b``: the ordering as text (sets separated by ``|``)."""
    return " | ".join(" ".join(str(v) for v in b) for b in ordering)


def path_automaton(n: SESAutomaton, ordering: Ordering) -> SESAutomaton:
    """The SES automaton ``n`` restricted to the states along ``ordering``."""
    states: list[State] = [frozenset()]
    for b in ordering:
        for v in b:
            states.append(states[-1] | {v.name})
    return n.restricted_to(states)


def sets_automaton(pattern: SESPattern, ordering: Ordering) -> SESAutomaton:
    """The SES automaton of ``<{v_1}, {v_2}, ...>`` (Sec. 5.2, as printed)."""
    singletons = tuple((v,) for b in ordering for v in b)
    return ses_automaton(SESPattern(singletons, pattern.conditions, pattern.window))


def automata(pattern: SESPattern, mode: str) -> list[tuple[str, SESAutomaton]]:
    """The brute force's automata, each with the label of its ordering."""
    if mode not in ORDERINGS:
        raise Unsupported(f"unknown orderings {mode!r}; choose one of {', '.join(ORDERINGS)}")
    if mode == "sets":
        return [(label(o), sets_automaton(pattern, o)) for o in orderings(pattern)]
    whole = ses_automaton(pattern)
    return [(label(o), path_automaton(whole, o)) for o in orderings(pattern)]


@dataclass
class CompiledBruteForce(Pictured):
    """A pattern compiled to one automaton per ordering; states are ``(ordering, q)``."""

    pattern: SESPattern
    automata: list[tuple[str, SESAutomaton]]
    policy: str = "next"
    variant: str = "corrected"
    filter: str = "sound"
    time_unit: str | None = None
    reading: str = "inclusive"

    @property
    def initial(self) -> frozenset[Hashable]:
        return frozenset((name, n.start) for name, n in self.automata)

    @property
    def accepting(self) -> frozenset[Hashable]:
        return frozenset((name, n.accepting) for name, n in self.automata)

    def iter_transitions(self) -> Iterator[Transition]:
        for name, n in self.automata:
            for delta in n.transitions:
                yield Transition((name, delta.source), (name, delta.target), delta.variable,
                                 delta.guard)

    @property
    def ses_automata(self) -> list[SESAutomaton]:
        """The SES automata run side by side: one per ordering (Sec. 5.2)."""
        return [n for _, n in self.automata]

    def run(self, events: Iterable[Event], *, counters: Counters | None = None,
            budget: Budget | None = None) -> Iterator[Match]:
        """All automata over one pass of the events; each reports as the SES automaton
        does, counted into ``counters``; ``budget``'s limit bounds each automaton's
        instances alive (:meth:`~kleene.engines.ses.run.Execution.hold`)."""
        c = Counters() if counters is None else counters
        win = window_in_units(self.pattern.window, self.time_unit, events, self.reading)
        if not win.fits(0):   # WITHIN 0 read strictly: no span fits, nothing matches
            return
        executions = [Execution(n, win=win, policy=self.policy, variant=self.variant,
                                counters=c, budget=budget) for _, n in self.automata]
        events, keep = candidates(self.pattern, self.filter, events, c)
        yield from drive(executions, events, keep, c)


@dataclass(frozen=True)
class BruteForceEngine:
    """The brute force of Sec. 5.2 as an engine; claims ``any`` with ``orderings="paths"``."""

    name: str = "ses-bruteforce"
    orderings: str = "paths"
    variant: str = "corrected"
    filter: str = "sound"

    @property
    def capabilities(self) -> frozenset[Feature]:
        if self.orderings == "paths" and self.variant == "corrected" and self.filter != "paper":
            return Feature.of("ses", *CONSTRUCTS, STRICT_WINDOW, "any")
        return Feature.of("ses", *CONSTRUCTS, STRICT_WINDOW)

    def compile(self, query: Query) -> CompiledBruteForce:
        p = check_options(query.pattern, query.policy, self.variant)
        require(self, required_features(p))
        return CompiledBruteForce(p, automata(p, self.orderings), query.policy, self.variant,
                                  self.filter, query.time_unit, query.reading)


register("ses-bruteforce", BruteForceEngine)
register("ses-bruteforce-paper",
         lambda: BruteForceEngine("ses-bruteforce-paper", orderings="sets", variant="faithful",
                                  filter="none"))
