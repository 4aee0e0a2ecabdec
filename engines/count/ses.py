"""The number of matches of an SES pattern under ``any``, without enumerating them.

The count is ``|Γ|``, Γ the set of all matches of seed 000 Def. 2 (conditions 1–3;
:func:`kleene.reference.ses.matching.all_matches`). It is computed by dynamic
programming over the runs of seed 000's SES automaton (Sec. 4), read as a weighted
automaton over the *tie groups* of the stream (the events of one timestamp):

- a state is ``start``, or ``(i, S)``: the sets ``B_1..B_i`` are bound and ``S ≠ ∅``
  is the part of ``B_{i+1}`` bound so far (0-based ``i`` below);
- condition 2 (every event of ``B_i`` strictly before every event of ``B_{i+1}``)
  means that the events a match takes from one tie group all go to variables of one
  set; from ``(i, S)`` a group's events either go to ``B_i`` (a singleton of ``S`` takes
  none, a group variable any number) or, when ``S = B_i``, to ``B_{i+1}``; from
  ``start`` to ``B_1``. ``M_g[p][q]`` counts the ways (each event to at most one
  variable whose properties it satisfies, Def. 2's distinct events), binding none
  being the one way from ``p`` to ``p``;
- the matches using only groups ``a..b`` number ``start · M_a ⋯ M_b · final``,
  ``final = (k−1, B_k)``.

Condition 3 (the window, :func:`~kleene.reference.durations.fits`) is seed 001's match
window (Def. 3) read from its last event: a match whose last group is ``g`` lies in the
groups ``lo_g..g``, ``lo_g`` the oldest group that fits with ``g``. So the matches
*ending* in ``g`` number

    ``N(lo_g..g) − N(lo_g..g−1)``,     and  ``|Γ| = Σ_g  N(lo_g..g) − N(lo_g..g−1)``,

each matrix product kept by :class:`~kleene.engines.count.transfer.SlidingProduct`
(O(1) amortised per group): time linear in the stream (times the automaton's states
cubed), memory bounded by the window. Only the events that satisfy the properties
of some variable are read (seed 001 Thm 1), their properties evaluated over the
columns of a loaded stream (:class:`~kleene.engines.columns.PropertyBits`).

Equalities ``u.A = v.B`` between variables are counted exactly when they partition the
stream (seed 001 Def. 6; ``PARTITION BY``): the equalities' classes of terms each hold one
attribute of *every* variable, so a match lies in one part, keyed by those values (an
event may join several parts: its key as ``u`` and as ``v`` differ when ``A ≠ B``), and
each part is counted alone. Any other relationship (an order comparison, ``!=``,
``prev``, an ``OR`` over two variables) is outside the fragment: :func:`outside` says
why, and the caller enumerates.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import numpy as np

from kleene.data.source import column_batches
from kleene.engines.columns import PropertyBits
from kleene.engines.count.transfer import Matrix, SlidingProduct, Sparse, sparse
from kleene.engines.protocol import window_in_units
from kleene.engines.spans import Window
from kleene.reference.conditions import (
    Attr,
    Cmp,
    holds,
    is_property_of,
    variables,
)
from kleene.reference.events import Event, Value
from kleene.reference.ses.pattern import SESPattern

#: Rows of a loaded stream whose properties are evaluated at once.
ROWS = 65_536
#: The most states the automaton may have (Σ_i (2^|B_i| − 1) + 1).
MAX_STATES = 256

Key = tuple[tuple[str, Value], ...]


def outside(pattern: SESPattern) -> str | None:
    """Why ``pattern`` is outside the counted fragment, or ``None`` when it is inside."""
    try:
        _Plan.of(pattern)
    except _Outside as e:
        return str(e)
    return None


class _Outside(Exception):
    """The pattern is outside the fragment (the message says why)."""


@dataclass(frozen=True)
class _Plan:
    """What the count reads of the pattern: its sets, the partition attributes of each
    variable, whether the constant conditions hold."""

    sets: tuple[tuple[bool, ...], ...]          # per set, per variable: is it a group
    names: tuple[str, ...]                      # the variables, set by set
    keys: tuple[tuple[str, ...], ...]           # per variable, its partition attributes
    constants: bool                              # every variable-free condition holds

    @classmethod
    def of(cls, pattern: SESPattern) -> _Plan:
        names = pattern.names
        parent: dict[tuple[str, str], tuple[str, str]] = {}

        def find(t: tuple[str, str]) -> tuple[str, str]:
            while parent.setdefault(t, t) != t:
                t = parent[t]
            return t

        constants = True
        for c in pattern.conditions:   # whole, as PropertyBits reads the properties
            vs = variables(c)
            if not vs:
                constants = constants and holds(c, {})
            elif len(vs) == 1 and is_property_of(c, next(iter(vs))):
                continue
            elif isinstance(c, Cmp) and c.op == "=" and isinstance(c.left, Attr) \
                    and isinstance(c.right, Attr) and c.left.var != c.right.var:
                parent[find((c.left.var, c.left.attr))] = find((c.right.var, c.right.attr))
            else:
                raise _Outside("a relationship other than an equality between two "
                               "variables (an order, !=, prev, OR over variables) needs the "
                               "matches themselves")
        classes: dict[tuple[str, str], list[tuple[str, str]]] = {}
        for t in parent:
            classes.setdefault(find(t), []).append(t)
        keys: dict[str, list[str]] = {n: [] for n in names}
        for members in classes.values():
            owners = [v for v, _ in members]
            if sorted(owners) != sorted(names):
                raise _Outside("the equalities between variables do not partition the "
                               "events (each must join one attribute of every variable)")
            for v, a in members:
                keys[v].append(a)
        states = 1 + sum(2 ** len(b) - 1 for b in pattern.sets)
        if states > MAX_STATES:
            raise _Outside(f"the sets make {states} automaton states (at most {MAX_STATES})")
        return cls(sets=tuple(tuple(v.group for v in b) for b in pattern.sets), names=names,
                   keys=tuple(tuple(keys[n]) for n in names), constants=constants)


def key_value(v: Value) -> tuple[str, Value] | None:
    """``v`` as a key: equal keys iff ``=`` holds (:func:`~kleene.reference.conditions.compare`:
    the kinds apart, a missing value or NaN equal to nothing)."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return None
    kind = "bool" if isinstance(v, bool) else "num" if isinstance(v, int | float) else "str"
    return kind, v


class _Automaton:
    """The states and the transfer matrix of a tie group (the module docstring)."""

    def __init__(self, sets: tuple[tuple[bool, ...], ...]) -> None:
        self.sets = sets
        self.offsets: list[int] = []
        self.bases: list[int] = []
        offset, base = 0, 1
        for b in sets:
            self.offsets.append(offset)
            self.bases.append(base)
            offset += len(b)
            base += 2 ** len(b) - 1
        self.n = base
        self.fulls = [2 ** len(b) - 1 for b in sets]
        self.singles = [sum(1 << j for j, g in enumerate(b) if not g) for b in sets]
        self.final = frozenset({self.bases[-1] + self.fulls[-1] - 1})

    def state(self, i: int, bound: int) -> int:
        return self.bases[i] + bound - 1

    def _ways(self, i: int, masks: list[int], blocked: int) -> dict[int, int]:
        """The ways to give the group's events (each its set of allowed variables of
        set ``i``) to the variables of ``B_i``, by the set of variables that take some:
        each event to at most one, a singleton to at most one, none of ``blocked``."""
        singles = self.singles[i]
        ways = {0: 1}
        for mask in masks:
            local = (mask >> self.offsets[i]) & self.fulls[i] & ~blocked
            if not local:
                continue
            after = dict(ways)
            for used, c in ways.items():
                free = local & ~(used & singles)
                while free:
                    bit = free & -free
                    free ^= bit
                    after[used | bit] = after.get(used | bit, 0) + c
            ways = after
        return ways

    def matrix(self, masks: list[int]) -> Matrix:
        """``M_g`` for a group whose events allow the variables ``masks`` (bit j: the
        j-th variable, set by set)."""
        m = [[0] * self.n for _ in range(self.n)]
        m[0][0] = 1
        for used, c in self._ways(0, masks, 0).items():
            if used:
                m[0][self.state(0, used)] += c
        for i in range(len(self.sets)):
            onward = {u: c for u, c in self._ways(i + 1, masks, 0).items() if u} \
                if i + 1 < len(self.sets) else {}
            cache: dict[int, dict[int, int]] = {}
            for bound in range(1, self.fulls[i] + 1):
                p = self.state(i, bound)
                blocked = bound & self.singles[i]
                if blocked not in cache:
                    cache[blocked] = self._ways(i, masks, blocked)
                for used, c in cache[blocked].items():
                    m[p][self.state(i, bound | used)] += c
                if bound == self.fulls[i]:
                    for used, c in onward.items():
                        m[p][self.state(i + 1, used)] += c
        return m


@dataclass(frozen=True)
class Ending:
    """The matches whose last event is in one tie group of one part: ``count`` of them,
    the group's timestamp ``ts`` and its last candidate event's ``position``."""

    ts: int | float
    position: int
    count: int


def endings(pattern: SESPattern, source: Iterable[Event], *, time_unit: str | None = None,
            reading: str = "inclusive") -> Iterator[Ending]:
    """For each tie group (and part) in stream order, the number of matches of Γ that
    end there (the module docstring's recurrence), as soon as the group is complete."""
    plan = _Plan.of(pattern)
    if not plan.constants:
        return
    window = window_in_units(pattern.window, time_unit, source, reading)
    if not window.fits(0):    # strict, τ = 0: not even one timestamp fits
        return
    automaton = _Automaton(plan.sets)
    parts: dict[Key, SlidingProduct] = {}
    matrices: dict[tuple[int, ...], Sparse] = {}   # M_g by the group's masks
    group: dict[Key, list[int]] = {}
    ts: int | float | None = None
    last: dict[Key, int] = {}
    for e, bits in _candidates(pattern, source):
        if e.ts != ts and group and ts is not None:
            yield from _close(automaton, parts, group, ts, last, window, matrices)
            group, last = {}, {}
        ts = e.ts
        allowed: dict[Key, int] = {}
        for j, attrs in enumerate(plan.keys):
            if bits >> j & 1:
                key = _key(e, attrs)
                if key is not None:
                    allowed[key] = allowed.get(key, 0) | 1 << j
        for key, mask in allowed.items():
            group.setdefault(key, []).append(mask)
            last[key] = e.position
    if group and ts is not None:
        yield from _close(automaton, parts, group, ts, last, window, matrices)


def _close(automaton: _Automaton, parts: dict[Key, SlidingProduct], group: dict[Key, list[int]],
           ts: int | float, last: dict[Key, int], window: Window,
           matrices: dict[tuple[int, ...], Sparse]) -> Iterator[Ending]:
    """The matches ending in the group at ``ts``, part by part (``group``: for each part,
    one entry per event, the bits of the variables it may take there)."""
    for key, masks in group.items():
        part = parts.get(key)
        if part is None:
            part = parts[key] = SlidingProduct(automaton.n, 0, automaton.final)
        while len(part) and not window.fits_between(part.oldest(), ts):
            part.drop()
        before = part.total()
        shape = tuple(masks)
        m = matrices.get(shape)
        if m is None:
            m = matrices[shape] = sparse(automaton.matrix(masks))
        part.push(ts, m)
        ending = part.total() - before
        if ending:
            yield Ending(ts, last[key], ending)


def _candidates(pattern: SESPattern, source: Iterable[Event]) -> Iterator[tuple[Event, int]]:
    """Each event that satisfies the properties of some variable (seed 001 Thm 1), with
    ē, its bit per such variable (Sec. 5; :class:`~kleene.engines.columns.PropertyBits`):
    over a loaded stream's columns batch by batch, else event by event."""
    bits = PropertyBits(pattern)
    batches = column_batches(source, ROWS)
    if batches is None:
        for e in source:
            b = bits.of_event(e)
            if b:
                yield e, b
        return
    for start, part in batches:
        found = bits.of(part)
        index = np.flatnonzero(found)
        yield from zip(part.events(index, offset=start), found[index].tolist(), strict=True)


def _key(e: Event, attrs: tuple[str, ...]) -> Key | None:
    """``e``'s part as a variable with partition attributes ``attrs`` (``()``: one part),
    ``None`` when one of them makes every equality false or unknown."""
    out = []
    for a in attrs:
        k = key_value(e.value(a))
        if k is None:
            return None
        out.append(k)
    return tuple(out)


def count(pattern: SESPattern, source: Iterable[Event], *, time_unit: str | None = None,
          reading: str = "inclusive") -> int:
    """``|Γ|`` (policy ``any``), by :func:`endings`."""
    return sum(x.count for x in endings(pattern, source, time_unit=time_unit, reading=reading))
