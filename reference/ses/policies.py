"""Selection policies over the set Γ of all matches (docs/architecture.md, "All-matches first").

Each policy is a predicate over Γ and the stream, citing its definition:

- ``any``: Γ itself (skip-till-any-match);
- ``next``: the normative reading of seed 000 Def. 2 conditions 4 and 5, the
  declarative characterisation of what seed 000 Algorithms 1–2 compute: a run
  started at each event takes every event it can take at that moment, given
  the bindings made so far, and never skips one it could take (branching when
  several variables can take it). :func:`can_take` is "could take";
- ``next-literal``: conditions 4 and 5 exactly as printed, quantifying over
  all of Γ (read literally, one patient's substitutions veto another's: see
  ``docs/errata.md``); ``⊈`` in condition 5 is read as a proper subset;
- ``earliest-maximal``: seed 001 Sec. 3. *Earliest*: each variable's sequence
  starts at the earliest start any match with the same first event gives it.
  *Maximal*, as the definition reads: "no ~ei can be extended with an event
  that occurs after the start of γ, and γ remains still a match" — no match
  binds one more event, after the first one, to one group variable. Other
  readings of "earliest" exist (Pareto-earliest; swapping one variable's
  binding at a time); they differ on ties;
- ``earliest-maximal-contained``: the same *earliest*, and *maximal* read as
  "no larger match with the same first event contains it" (adding several
  events at once). It drops matches no single event extends
  (``docs/errata.md#seed-001-maximal-one-event``);
- ``contiguous``: strict contiguity, every event between the first and the
  last of the match is in it;
- ``partition-contiguous``: contiguity within the match's partition (the
  events with its values of the Def. 6 partitioning attributes).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from kleene.reference.budget import Budget
from kleene.reference.conditions import holds, variables
from kleene.reference.durations import fits
from kleene.reference.errors import PatternError
from kleene.reference.events import Event, Stream
from kleene.reference.match import Match, substitution
from kleene.reference.policies import contiguous
from kleene.reference.ses.matching import Gamma, all_matches, window_of
from kleene.reference.ses.partitioning import partitioning_attributes
from kleene.reference.ses.pattern import SESPattern

POLICIES = ("any", "next", "next-literal", "earliest-maximal", "earliest-maximal-contained",
            "contiguous", "partition-contiguous")


def can_take(pattern: SESPattern, prefix: Gamma, e: Event) -> list[str]:
    """The variables that a run holding the bindings ``prefix`` can bind ``e`` to.

    This is the set of enabled transitions of the SES automaton (seed 000
    Sec. 4.2) in the state ``prefix`` reached, read declaratively: ``v`` is in
    the last set the prefix touches (unbound, or a group variable looping), or
    in the next set once the current one is complete and ``e`` is strictly
    later than all of its events; and every condition whose variables are all
    bound afterwards holds.
    """
    touched = [pattern.set_index(v) for v in prefix]
    current = max(touched, default=-1)
    options: list[str] = []
    if current >= 0:
        options += [v.name for v in pattern.sets[current] if v.group or v.name not in prefix]
    complete = current < 0 or all(v.name in prefix for v in pattern.sets[current])
    if complete and current + 1 < len(pattern.sets):
        latest = max((prefix[v.name][-1].ts for v in pattern.sets[current]), default=None) \
            if current >= 0 else None
        if latest is None or latest < e.ts:
            options += [v.name for v in pattern.sets[current + 1]]
    enabled = []
    for name in options:
        extended = dict(prefix)
        extended[name] = prefix.get(name, ()) + (e,)
        if all(holds(c, extended) for c in pattern.conditions if variables(c) <= extended.keys()):
            enabled.append(name)
    return enabled


def _prefix(gamma: Gamma, before: int) -> Gamma:
    out = {}
    for var, events in gamma.items():
        kept = tuple(x for x in events if x.position < before)
        if kept:
            out[var] = kept
    return out


def is_next(pattern: SESPattern, s: Stream, m: Match, tau: int | float,
            reading: str = "inclusive") -> bool:
    """Whether the run that produced ``m`` never skipped an event it could take."""
    gamma = substitution(m, s.events)
    start = s[m.first]
    bound = set(m.positions)
    for e in s.events[m.first + 1:]:
        if not fits(e.ts - start.ts, tau, reading):
            break
        if e.position not in bound and can_take(pattern, _prefix(gamma, e.position), e):
            return False
    return True


def _next(pattern: SESPattern, s: Stream, gamma_all: set[Match],
          reading: str = "inclusive") -> set[Match]:
    tau = window_of(pattern, s)
    return {m for m in gamma_all if is_next(pattern, s, m, tau, reading)}


def _contained(small: Match, big: Match) -> bool:
    return small != big and small.variables == big.variables and all(
        set(small[v]) <= set(big[v]) for v in small.variables)


def _first_binding(m: Match, s: Stream) -> tuple[str, int]:
    """min_T(γ) of seed 000: the binding with the earliest (ts, position)."""
    return min(((v, p) for v, ps in m.bindings for p in ps), key=lambda b: (s[b[1]].ts, b[1]))


def _next_literal(pattern: SESPattern, s: Stream, gamma_all: set[Match]) -> set[Match]:
    bound_anywhere: dict[str, set[int]] = {}
    for g in gamma_all:
        for v, ps in g.bindings:
            bound_anywhere.setdefault(v, set()).update(ps)

    def condition4(m: Match) -> bool:
        pairs = [(v, p) for v, ps in m.bindings for p in ps]
        for _, p in pairs:
            for v2, p2 in pairs:
                for q in bound_anywhere.get(v2, ()):
                    if q not in m[v2] and s[p].ts < s[q].ts < s[p2].ts:
                        return False
        return True

    def condition5(m: Match) -> bool:
        first = _first_binding(m, s)
        return not any(_first_binding(g, s) == first and _contained(m, g) for g in gamma_all)

    return {m for m in gamma_all if condition4(m) and condition5(m)}


def _extends_by_one_event(small: Match, big: Match) -> bool:
    """Whether ``big`` is ``small`` with one more event bound to one of its variables."""
    if small.variables != big.variables:
        return False
    grown = [v for v in small.variables if small[v] != big[v]]
    return len(grown) == 1 and set(small[grown[0]]) <= set(big[grown[0]]) \
        and len(big[grown[0]]) == len(small[grown[0]]) + 1


def _earliest_and(maximal: Callable[[Match, Match], bool]) -> Callable[
        [SESPattern, Stream, set[Match]], set[Match]]:
    """The earliest matches (seed 001 Sec. 3) that no match of the same first event
    ``g`` makes non-maximal (``maximal(m, g)`` says that ``g`` does)."""

    def select(pattern: SESPattern, s: Stream, gamma_all: set[Match]) -> set[Match]:
        by_first: dict[int, list[Match]] = {}
        for m in gamma_all:
            by_first.setdefault(m.first, []).append(m)
        out = set()
        for group in by_first.values():
            earliest = {v: min(m[v][0] for m in group) for v in pattern.names}
            for m in group:
                if all(m[v][0] == earliest[v] for v in pattern.names) and \
                        not any(maximal(m, g) for g in group):
                    out.add(m)
        return out

    return select


#: Extended "with an event" (the definition) and contained in a larger match.
_earliest_maximal = _earliest_and(_extends_by_one_event)
_earliest_maximal_contained = _earliest_and(_contained)


def _contiguous(pattern: SESPattern, s: Stream, gamma_all: set[Match],
                attributes: Sequence[str] = ()) -> set[Match]:
    return contiguous(s, gamma_all, attributes)


def _partition_contiguous(pattern: SESPattern, s: Stream, gamma_all: set[Match]) -> set[Match]:
    return _contiguous(pattern, s, gamma_all, partitioning_attributes(pattern))


_SELECT: dict[str, Callable[[SESPattern, Stream, set[Match]], set[Match]]] = {
    "any": lambda p, s, g: set(g),
    "next": _next,
    "next-literal": _next_literal,
    "earliest-maximal": _earliest_maximal,
    "earliest-maximal-contained": _earliest_maximal_contained,
    "contiguous": _contiguous,
    "partition-contiguous": _partition_contiguous,
}


def select(policy: str, pattern: SESPattern, s: Stream, gamma_all: set[Match],
           reading: str = "inclusive") -> set[Match]:
    """The matches of ``gamma_all`` (= Γ of ``pattern`` on ``s``) that ``policy`` keeps
    (``next`` reads the window: a run expires past it, under ``reading``)."""
    if policy not in _SELECT:
        raise PatternError(f"unknown policy {policy!r}; choose one of {', '.join(POLICIES)}")
    if policy == "next":
        return _next(pattern, s, gamma_all, reading)
    return _SELECT[policy](pattern, s, gamma_all)


def matches(pattern: SESPattern, s: Stream, policy: str = "any", *,
            budget: Budget | None = None, reading: str = "inclusive") -> set[Match]:
    """The reference result: Γ under ``policy``, the window read as ``reading``
    (``inclusive``: ``max ts − min ts ≤ τ``; ``strict``: ``< τ``)."""
    if policy not in _SELECT:
        raise PatternError(f"unknown policy {policy!r}; choose one of {', '.join(POLICIES)}")
    return select(policy, pattern, s, all_matches(pattern, s, budget=budget, reading=reading),
                  reading)
