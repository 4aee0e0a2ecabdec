"""Symbolic streams, symbolic substitutions, and the match conditions 1--3.

A :class:`SymStream` is ``n`` symbolic events (:mod:`kleene.proofs.encode`)
with non-decreasing ``ts`` (docs/architecture.md, "The shared core": ties allowed). A symbolic
substitution (:class:`Assignment`) says, for each position ``i``, which
variable binds ``e_i`` (an Int ``x_i``: the variable's index, or ``-1`` for
"unbound"); since each position binds at most one variable, the events of γ
are distinct by construction (seed 000 Sec. 3.2). :func:`is_match` encodes
seed 001 Def. 2 (= seed 000 Def. 2 conditions 1--3) over it, so one Z3 query
ranges over every candidate γ of every stream of ``n`` events at once.

:func:`solve` runs one query with a timeout; its outcome is a value.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import z3

from kleene.proofs.encode import (
    Lit,
    Member,
    SymEvent,
    as_z3,
    concrete_event,
    conj,
    disj,
    evaluated,
    holds_over,
    implies,
    symbolic_event,
)
from kleene.proofs.schema import Schema
from kleene.reference.durations import Duration
from kleene.reference.events import Stream, canonical_unit
from kleene.reference.match import Match
from kleene.reference.ses.pattern import SESPattern

#: Z3's default time limit per query, in milliseconds.


@dataclass(frozen=True)
class SymStream:
    """``n`` symbolic events ``e_0..e_{n-1}``; ``tau`` is the window in its time unit."""

    events: tuple[SymEvent, ...]
    time_unit: str | None
    tau: z3.ArithRef

    @property
    def constraints(self) -> list[Lit]:
        """Well-formedness: each value of one kind, ``ts`` non-decreasing."""
        out: list[Lit] = [c for e in self.events for c in e.constraints]
        out += [a.ts <= b.ts for a, b in itertools.pairwise(self.events)]
        return out

    def within(self, i: int, j: int) -> Lit:
        """``e_j.ts − e_i.ts ≤ τ`` (condition 3; seed 001 Def. 3 for ``i = 0``)."""
        return self.events[j].ts - self.events[i].ts <= self.tau


def window_value(window: Duration) -> tuple[z3.ArithRef, str | None]:
    """τ as a Z3 number, in the window's own unit (the symbolic stream's time unit)."""
    unit = canonical_unit(window.unit) if window.unit else None
    value = window.value
    exact = z3.IntVal(value) if isinstance(value, int) else z3.RealVal(str(Fraction(value)))
    return exact, unit


def sym_stream(schema: Schema, n: int, window: Duration, prefix: str = "e") -> SymStream:
    """A fresh symbolic stream of ``n`` events over ``schema``."""
    tau, unit = window_value(window)
    events = tuple(symbolic_event(schema, f"{prefix}{i}") for i in range(n))
    return SymStream(events, unit, tau)


@dataclass(frozen=True)
class Assignment:
    """A symbolic substitution: ``x[i]`` is the index in ``names`` of e_i's variable, or -1."""

    names: tuple[str, ...]
    x: tuple[z3.ArithRef, ...]

    @property
    def constraints(self) -> list[Lit]:
        return [z3.And(-1 <= xi, xi < len(self.names)) for xi in self.x]

    def binds(self, i: int, v: str) -> Lit:
        """e_i is bound to ``v``."""
        return self.x[i] == self.names.index(v)

    def bound(self, i: int) -> Lit:
        """e_i is bound to some variable."""
        return self.x[i] != -1

    def members(self, s: SymStream, upto: int | None = None) -> dict[str, list[Member]]:
        """Each variable's candidates among e_0..e_{upto-1} (all events by default)."""
        n = len(s.events) if upto is None else upto
        return {v: [(self.binds(i, v), s.events[i]) for i in range(n)] for v in self.names}

    def bound_before(self, v: str, j: int) -> Lit:
        """Some event before e_j is bound to ``v``."""
        return disj(*(self.binds(i, v) for i in range(j)))


def assignment(names: Sequence[str], n: int, prefix: str = "x") -> Assignment:
    """A fresh symbolic substitution of ``names`` over ``n`` positions."""
    return Assignment(tuple(names), tuple(z3.Int(f"{prefix}{i}") for i in range(n)))


def is_match(pattern: SESPattern, s: SymStream, g: Assignment) -> Lit:
    """γ is a match (seed 001 Def. 2): every variable binds (one event if singleton),
    1. every condition holds, 2. sets in order, 3. within τ."""
    n = len(s.events)
    parts: list[Lit] = []
    for var in pattern.variables:
        count = z3.Sum([z3.If(as_z3(g.binds(i, var.name)), 1, 0) for i in range(n)])
        parts.append(count >= 1 if var.group else count == 1)
    members = g.members(s)
    parts += [holds_over(c, members) for c in pattern.conditions]
    for before, after in itertools.pairwise(pattern.sets):
        for i, j in itertools.permutations(range(n), 2):
            early = disj(*(g.binds(i, v.name) for v in before))
            late = disj(*(g.binds(j, v.name) for v in after))
            parts.append(implies(conj(early, late), s.events[i].ts < s.events[j].ts))
    for i, j in itertools.combinations(range(n), 2):
        parts.append(implies(conj(g.bound(i), g.bound(j)), s.within(i, j)))
    return conj(*parts)


# ---------------------------------------------------------------- solving


def stream_from(model: z3.ModelRef, s: SymStream) -> Stream:
    """The concrete stream ``model`` assigns to ``s``."""
    return Stream(tuple(concrete_event(model, e, i) for i, e in enumerate(s.events)),
                  s.time_unit)


def match_from(model: z3.ModelRef, g: Assignment) -> Match | None:
    """The substitution ``model`` assigns to ``g`` (``None`` if it binds nothing)."""
    bindings: dict[str, list[int]] = {}
    for i, xi in enumerate(g.x):
        k = evaluated(model, xi).as_long()
        if k >= 0:
            bindings.setdefault(g.names[k], []).append(i)
    return Match.of(bindings) if bindings else None
