"""SES ``next-literal``, seed 000 Def. 2 conditions 4 and 5 as printed: the engine
``ses-next-literal``.

The policy (:mod:`kleene.reference.ses.policies`, ``_next_literal``; read literally one
patient's substitutions veto another's: docs/errata.md) keeps the matches m of Γ with

4. for each variable v, no event q *bound to v in some match of Γ* and not in m[v] with
   ``t0 < q.ts < max ts of m[v]`` (t0 the least timestamp of m: condition 4's pairs
   range over every binding of m, the earliest gives the weakest left end);
5. no g ∈ Γ with the same first binding (least ``(ts, position)``) that strictly
   contains m (every variable's events a superset).

*Usable events.* Let B(v) be the events bound to v in some match of Γ. SES conditions
hold for every instantiation (:func:`~kleene.reference.conditions.holds`: a property
for every bound event, a relationship for every pair, ``prev`` for every consecutive
pair; SES has no aggregates), so a match with every variable cut down to one of its
events is a match (conditions 2 and 3 hold for subsets; a ``prev`` condition holds
vacuously on one event). Hence B(v) is the same projection of Γ₁, the matches of the
pattern with every variable a singleton and the ``prev`` conditions dropped
(:func:`singleton_pattern`), found without listing Γ₁ by an existence search per event
(engines/ses/usable.py: a polynomial set, no group variable, no subsets).

*Candidates.* By 4, once the first binding ``(v0, e0)`` (t0 = e0.ts) is fixed, a
singleton v binds an event of B(v) at t0 or at T_v, the least timestamp of B(v) after
t0; a group v binds some of B(v)'s events at t0, *all* of those strictly between t0 and
its last timestamp L, and some of those at L. A variable w of a later set than the first
binds only after t0 (set order, condition 2), so its first event is at T_w, and every
event of an earlier set lies before it. The search
(:meth:`~kleene.engines.ses.literal_search.Literal.starting_at`) binds the variables in
set order over those choices, checks conditions 1–3 as soon as their variables are
bound, and keeps a match when 5 holds. Every condition holds for every instance, and an
event appended to a group's binding adds instances and removes none, so a binding that
fails 1–3 is not grown (a tie of n events at L has 2^n subsets; those grown are the
ones whose every prefix passes).

*Maximality (5).* If no condition reads ``prev`` of a group variable together with
another group variable (*coupled*), a larger match g with the same first binding exists
iff (a) m with one more event bound to one group variable read by no ``prev`` is a
match, or (b) m with one ``prev`` group variable b bound to g[b] is: every instance
of the conditions of that smaller match is an instance over m or over g. The events a
larger match may add to v lie after the events of v's previous set in m and before
those of its next (condition 2: g binds what m binds). (a) is tried per event, by the
conditions that read v alone (m's other instances hold); (b) is a path search over the
events b may take (each checked against m's other bindings), pairs checked by the
``prev`` conditions (``Literal.extends_path``, engines/ses/literal_search.py). A
coupled pattern searches the supersets of m (``Literal.any_superset``, exponential in
the events a window offers the group variables, each superset tried a candidate).

*Bound.* B by the search of engines/ses/usable.py (linear with boundedly many candidates
per window), then for each event of B(v0) with v0 in the first set: a choice per
singleton among the ties at t0 and T_v, per group variable among the timestamps L
before the later sets' T_w and the subsets of ties at t0 and L; 5 in ``O(c · |Θ|)`` per
match, ``O(c²)`` with a ``prev`` group variable. With boundedly many events per window
and timestamp (no ties of a variable's candidates grow with n), linear in the stream.
The stream is read once (B's events are kept, no other); the budget's held limit bounds
the candidates tried from one first event (ties make subsets) and in one search for B.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace

from kleene.engines.protocol import Counters, Feature, Query, require, window_in_units
from kleene.engines.registry import register
from kleene.engines.ses.automaton import SESAutomaton, required_features, ses_automaton
from kleene.engines.ses.literal_search import Literal
from kleene.engines.ses.run import PicturedSES
from kleene.engines.ses.usable import usable as usable_events
from kleene.engines.ses.usable import with_implied_properties
from kleene.reference.budget import Budget
from kleene.reference.conditions import prev_variables
from kleene.reference.errors import Unsupported
from kleene.reference.events import Event
from kleene.reference.languages import STRICT_WINDOW
from kleene.reference.match import Match
from kleene.reference.ses.features import CONSTRUCTS
from kleene.reference.ses.pattern import SESPattern, Variable

#: The policy this engine computes.
POLICY = "next-literal"


def singleton_pattern(p: SESPattern) -> SESPattern:
    """The pattern with every variable a singleton and the ``prev`` conditions dropped:
    its matches are the matches of ``p`` cut down to one event per variable."""
    sets = tuple(tuple(Variable(v.name) for v in b) for b in p.sets)
    return replace(p, sets=sets, conditions=tuple(c for c in p.conditions
                                                  if not prev_variables(c)))


@dataclass
class CompiledNextLiteral(PicturedSES):
    """An SES pattern under ``next-literal``: its automaton (drawn) and the singleton
    pattern whose matches give B."""

    pattern: SESPattern
    automaton: SESAutomaton
    policy: str
    singletons: SESPattern
    time_unit: str | None = None
    reading: str = "inclusive"

    def run(self, events: Iterable[Event], *, counters: Counters | None = None,
            budget: Budget | None = None) -> Iterator[Match]:
        """B(v) for every v in one reading of ``events`` (engines/ses/usable.py), then
        the search from each usable first event; ``budget``'s held limit bounds the
        candidates tried from one first event and in one search for B."""
        if self.policy != POLICY:   # compiled to be drawn: it runs only next-literal
            raise Unsupported(f"ses-next-literal computes the policy {POLICY}, "
                              f"not {self.policy!r}")
        c = Counters() if counters is None else counters
        win = window_in_units(self.pattern.window, self.time_unit, events, self.reading)
        usable, at = usable_events(self.singletons, events, win, c, budget)
        if not at:
            return
        search = Literal(self.pattern, at, usable, win, budget)
        found: list[Match] = []
        for v0 in self.pattern.sets[0]:
            for q in search.b_pos[v0.name]:
                found.extend(search.starting_at(v0.name, at[q]))
        c.literal_matches += len(found)
        yield from sorted(found, key=lambda m: (max(p for _, ps in m.bindings for p in ps),
                                                m.bindings))


@dataclass(frozen=True)
class NextLiteralEngine:
    """``next-literal`` by Γ₁'s usable events and the search of the module docstring.
    A query under another policy compiles (its automaton is drawn) but does not run."""

    name: str = "ses-next-literal"

    @property
    def capabilities(self) -> frozenset[Feature]:
        return Feature.of("ses", *CONSTRUCTS, STRICT_WINDOW, POLICY)

    def compile(self, query: Query) -> CompiledNextLiteral:
        p = query.pattern
        if not isinstance(p, SESPattern):
            raise Unsupported(f"the SES engines take SES patterns, not {type(p).__name__}")
        require(self, required_features(p))
        one = with_implied_properties(singleton_pattern(p))
        return CompiledNextLiteral(p, ses_automaton(p), query.policy, one,
                                   query.time_unit, query.reading)


register("ses-next-literal", NextLiteralEngine)
