"""SES patterns, evaluated by brute force from the definitions (seed 000 Def. 1–2, seed 001 Def. 6).

Independent of :mod:`kleene.reference` (issue 28, item 3): its own parser and
a generate-and-test enumeration, written to be checked against the papers,
not to be fast.

- Pattern (seed 000 Def. 1): ``PATTERN <{a, p+}, {b}> [PARTITION BY A, …] [WHERE Θ]
  [WITHIN τ]``, τ a plain number of ``ts`` units.
- Γ (seed 000 Def. 2, conditions 1–3; docs/semantics.md, section 4): every
  substitution that binds each variable to one event (``v``) or to a
  non-empty set of events in stream order (``v+``), no event twice, such that
  (1) every instance of every condition holds, (2) every event of set B_i is
  strictly earlier (``ts``) than every event of B_i+1, (3) ``max ts − min ts
  ≤ τ`` (``< τ`` in the strict reading). The enumeration tries every event
  (every non-empty subset for a group variable) for each variable in turn and
  drops a partial substitution as soon as one of 1–3 fails on the variables
  bound so far (each test reads only bound variables, whose events no later
  step changes).
- Policies (docs/semantics.md, section 5): ``any`` (Γ); ``next``, the
  normative reading of seed 000 Def. 2 (4)–(5): a match is kept iff no event
  from its first event to the end of that event's window is skipped that the
  run could have taken, given the bindings made before it (:func:`could_take`);
  ``next-literal``: conditions (4) and (5) as printed, over all of Γ (no γ′ binds
  a variable of γ to an event strictly between two of γ's events that γ does
  not bind to it; γ is no proper part of a γ′ with the same earliest binding);
  ``earliest-maximal`` (seed 001 Sec. 3): among the matches with γ's first
  event, every variable starts at the earliest start any of them gives it, and
  none is γ with one more event bound to one variable
  (``earliest-maximal-contained``: none properly contains γ);
  ``contiguous``: the match binds every event from its first to its last;
  ``partition-contiguous``: every such event of its part, the events sharing
  the values of the partitioning attributes X of seed 001 Def. 6 (the
  attributes whose equalities ``vi.A = vj.A`` connect all variables).
"""

from __future__ import annotations

import functools
import itertools
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from kleene.conformance.independent.text import (
    Cmp,
    Cond,
    Ref,
    Row,
    Tokens,
    Uncovered,
    conditions,
    holds,
    partition_by,
    prev_variables,
    ts,
    variables,
    window,
)

#: A match: each variable with its positions, in stream order.
Match = frozenset[tuple[str, tuple[int, ...]]]
POLICIES = ("any", "next", "next-literal", "earliest-maximal", "earliest-maximal-contained",
            "contiguous", "partition-contiguous")


@dataclass(frozen=True)
class SES:
    """P = (⟨B1, …, Bk⟩, Θ, τ): ``sets`` of ``(name, group)``; τ ``None``: no window."""

    sets: tuple[tuple[tuple[str, bool], ...], ...]
    theta: tuple[Cond, ...]
    tau: int | float | None

    def set_of(self, var: str) -> int:
        return next(i for i, b in enumerate(self.sets) if var in dict(b))

    @property
    def names(self) -> list[str]:
        return [v for b in self.sets for v, _ in b]

    def group(self, var: str) -> bool:
        return dict(self.sets[self.set_of(var)])[var]


def parse(text: str, time_unit: str | None = None) -> SES:
    """The SES pattern of ``text``."""
    t = Tokens(text, time_unit)
    t.take("PATTERN")
    t.take("<")
    sets = []
    while True:
        t.take("{")
        block = []
        while True:
            name = t.name()
            group = t.at("+")
            if group:
                t.take("+")
            block.append((name, group))
            if not t.at(","):
                break
            t.take(",")
        t.take("}")
        sets.append(tuple(block))
        if not t.at(","):
            break
        t.take(",")
    t.take(">")
    theta = partition_by(t, [v for block in sets for v, _ in block])
    if t.at("WHERE"):
        t.take()
        theta += conditions(t)
    tau = None
    if t.at("WITHIN"):
        t.take()
        tau = window(t)
    if not t.done():
        raise Uncovered(f"SES pattern: {t.peek().text!r} (only sets, WHERE, WITHIN τ)")
    return SES(tuple(sets), tuple(theta), tau)


def fits(span: float, tau: float | None, reading: str) -> bool:
    """Condition 3: ``span ≤ τ`` (inclusive) or ``span < τ`` (strict)."""
    return tau is None or (span <= tau if reading == "inclusive" else span < tau)


def _bound(gamma: dict[str, tuple[int, ...]], rows: Sequence[Row]) -> dict[str, list[Row]]:
    return {v: [rows[p] for p in ps] for v, ps in gamma.items()}


def acceptable(p: SES, gamma: dict[str, tuple[int, ...]], new: str, rows: Sequence[Row],
               reading: str) -> bool:
    """Conditions 1–3 of Def. 2 (and no event twice) on the variables ``gamma`` binds,
    given that they held before ``new`` was bound: what reads ``new`` is tested."""
    mine = set(gamma[new])
    if any(mine & set(ps) for v, ps in gamma.items() if v != new):
        return False
    times = [ts(rows, q) for ps in gamma.values() for q in ps]
    if not fits(max(times) - min(times), p.tau, reading):
        return False
    for w, ps in gamma.items():
        earlier, later = (ps, gamma[new]) if p.set_of(w) < p.set_of(new) else (gamma[new], ps)
        if p.set_of(w) != p.set_of(new) and not all(
                ts(rows, x) < ts(rows, y) for x in earlier for y in later):
            return False
    events = _bound(gamma, rows)
    return all(holds(c, events) for c in p.theta
               if new in variables(c) and variables(c) <= gamma.keys())


def _choices(p: SES, var: str, rows: Sequence[Row]) -> Iterator[tuple[int, ...]]:
    """The events (sets of events, in stream order, for a group variable) ``var`` may
    bind: those on which every condition over ``var`` alone without ``prev`` holds
    (it must hold on each event ``var`` binds)."""
    alone = [c for c in p.theta if variables(c) == {var} and not prev_variables(c)]
    events = [q for q in range(len(rows)) if all(holds(c, {var: [rows[q]]}) for c in alone)]
    if not p.group(var):
        yield from ((q,) for q in events)
        return
    for size in range(1, len(events) + 1):
        yield from itertools.combinations(events, size)


def gamma(p: SES, rows: Sequence[Row], reading: str = "inclusive") -> set[Match]:
    """Γ: every substitution that satisfies Def. 2 (1)–(3)."""
    names = p.names
    for c in p.theta:
        if not variables(c) <= set(names):
            raise Uncovered(f"a condition names an unknown variable: {sorted(variables(c))}")
    own = {v: [c for c in _choices(p, v, rows) if acceptable(p, {v: c}, v, rows, reading)]
           for v in names}
    out: set[Match] = set()

    def extend(k: int, partial: dict[str, tuple[int, ...]]) -> None:
        if k == len(names):
            out.add(frozenset(partial.items()))
            return
        for c in own[names[k]]:
            bigger = {**partial, names[k]: c}
            if acceptable(p, bigger, names[k], rows, reading):
                extend(k + 1, bigger)

    extend(0, {})
    return out


@functools.lru_cache(maxsize=16)
def _gamma_of(text: str, events: str, reading: str, time_unit: str | None
              ) -> frozenset[Match]:
    """Γ of the pattern ``text`` on the events (as JSON), kept for the case's other tests."""
    return frozenset(gamma(parse(text, time_unit), json.loads(events), reading))


def could_take(p: SES, prefix: dict[str, tuple[int, ...]], q: int, rows: Sequence[Row]
               ) -> bool:
    """Whether a run holding ``prefix`` could bind event ``q`` (docs/semantics.md, section 5,
    ``next``): to a variable of the last set it touched that is unbound or a group
    variable, or, once that set is complete and ``q`` is strictly later than its
    events, to a variable of the next set; and every condition whose variables
    are then all bound holds."""
    current = max(p.set_of(v) for v in prefix)
    options = [v for v, group in p.sets[current] if group or v not in prefix]
    complete = all(v in prefix for v, _ in p.sets[current])
    latest = max(ts(rows, x) for v, _ in p.sets[current] for x in prefix.get(v, ()))
    if complete and current + 1 < len(p.sets) and latest < ts(rows, q):
        options += [v for v, _ in p.sets[current + 1]]
    for v in options:
        bigger = {**prefix, v: tuple(sorted(prefix.get(v, ()) + (q,)))}
        events = _bound(bigger, rows)
        if all(holds(c, events) for c in p.theta if variables(c) <= bigger.keys()):
            return True
    return False


def is_next(p: SES, m: Match, rows: Sequence[Row], reading: str) -> bool:
    """The ``next`` policy: the run of ``m`` never skipped an event it could take."""
    first = min(q for _, ps in m for q in ps)
    bound = {q for _, ps in m for q in ps}
    for q in range(first + 1, len(rows)):
        if not fits(ts(rows, q) - ts(rows, first), p.tau, reading):
            break
        prefix = {v: tuple(x for x in ps if x < q) for v, ps in m}
        prefix = {v: ps for v, ps in prefix.items() if ps}
        if q not in bound and could_take(p, prefix, q, rows):
            return False
    return True


def _contains(big: Match, small: Match, by_one: bool = False) -> bool:
    """Whether ``big`` properly contains ``small`` (same variables, each one's events a
    superset); ``by_one``: with exactly one more event, bound to one variable."""
    b, s = dict(big), dict(small)
    if b.keys() != s.keys() or big == small or not all(set(s[v]) <= set(b[v]) for v in s):
        return False
    return not by_one or sum(len(b[v]) - len(s[v]) for v in s) == 1


def _first(m: Match) -> int:
    return min(q for _, ps in m for q in ps)


def earliest_maximal(found: set[Match], by_one: bool) -> set[Match]:
    """Seed 001's earliest and maximal matches, group by group of one first event."""
    out = set()
    for start in {_first(m) for m in found}:
        group = [m for m in found if _first(m) == start]
        earliest = {v: min(dict(g)[v][0] for g in group) for v, _ in group[0]}
        out |= {m for m in group if all(ps[0] == earliest[v] for v, ps in m)
                and not any(_contains(g, m, by_one) for g in group)}
    return out


def next_literal(found: set[Match], rows: Sequence[Row]) -> set[Match]:
    """Seed 000 Def. 2 (4) and (5) as printed, quantified over all of Γ (``found``)."""
    anywhere: dict[str, set[int]] = {}
    for g in found:
        for v, ps in g:
            anywhere.setdefault(v, set()).update(ps)

    def earliest_binding(m: Match) -> tuple[str, int]:
        return min(((v, q) for v, ps in m for q in ps), key=lambda b: (ts(rows, b[1]), b[1]))

    def condition4(m: Match) -> bool:
        pairs = [(v, q) for v, ps in m for q in ps]
        return not any(ts(rows, e) < ts(rows, x) < ts(rows, e2)
                       for _, e in pairs for v2, e2 in pairs
                       for x in anywhere[v2] - set(dict(m)[v2]))

    return {m for m in found if condition4(m) and not any(
        earliest_binding(g) == earliest_binding(m) and _contains(g, m) for g in found)}


def partitioning_attributes(names: Sequence[str], theta: Sequence[Cond]) -> list[str]:
    """X of seed 001 Def. 6: the attributes A whose equalities ``vi.A = vj.A`` (closed
    transitively) connect every variable; none with fewer than two variables."""
    if len(names) < 2:
        return []
    edges: dict[str, set[frozenset[str]]] = {}
    for c in theta:
        if isinstance(c, Cmp) and c.op == "=" and isinstance(c.left, Ref) \
                and isinstance(c.right, Ref) and not c.left.prev and not c.right.prev \
                and c.left.attr == c.right.attr and c.left.var != c.right.var:
            edges.setdefault(c.left.attr, set()).add(frozenset((c.left.var, c.right.var)))
    out = []
    for attr, pairs in sorted(edges.items()):
        reached = {names[0]}
        while True:  # grow the component of the first variable
            more = {v for pair in pairs if pair & reached for v in pair} - reached
            if not more:
                break
            reached |= more
        if reached >= set(names):
            out.append(attr)
    return out


def part_of(row: Row, attrs: Sequence[str], q: int) -> object:
    """The part of an event: its values of ``attrs`` with their kinds (``=`` of the
    condition language: 1 and 1.0 alike, 1 and TRUE not); alone if one is missing."""
    key = []
    for a in attrs:
        value = row.get(a)
        if value is None:
            return ("alone", q)
        kind = "bool" if isinstance(value, bool) else \
            "num" if isinstance(value, (int, float)) else "str"
        key.append((kind, value))
    return tuple(key)


def is_contiguous(m: Match, rows: Sequence[Row], attrs: Sequence[str] = ()) -> bool:
    """Every event from the first to the last of ``m`` in the first event's part is in ``m``."""
    positions = sorted(q for _, ps in m for q in ps)
    part = part_of(rows[positions[0]], attrs, positions[0])
    between = [q for q in range(positions[0], positions[-1] + 1)
               if part_of(rows[q], attrs, q) == part]
    return between == positions


def matches(text: str, rows: Sequence[Row], policy: str, reading: str = "inclusive",
            time_unit: str | None = None) -> set[Match]:
    """The matches of the SES pattern ``text`` on ``rows`` under ``policy``."""
    p = parse(text, time_unit)
    if policy not in POLICIES:
        raise Uncovered(f"SES policy {policy!r}")
    found = set(_gamma_of(text, json.dumps(list(rows)), reading, time_unit))
    if policy == "next":
        return {m for m in found if is_next(p, m, rows, reading)}
    if policy == "next-literal":
        return next_literal(found, rows)
    if policy.startswith("earliest-maximal"):
        return earliest_maximal(found, by_one=policy == "earliest-maximal")
    if policy == "contiguous":
        return {m for m in found if is_contiguous(m, rows)}
    if policy == "partition-contiguous":
        attrs = partitioning_attributes(p.names, p.theta)
        return {m for m in found if is_contiguous(m, rows, attrs)}
    return found
