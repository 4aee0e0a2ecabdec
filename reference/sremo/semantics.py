"""The semantics of SREMO: seed 004, report Def. 17 (the relation
``(e, S, M, v) ⊣ v'``), Def. 39 (windows), intersection (Def. 33 / Thm 34),
negation (Sec. 5.1.2) and Def. 18 (``Lang(e)`` and ``Match(e, S)``).

:class:`Semantics` computes, for a sub-expression ``e``, a slice ``S_i..j``
of the string ``s`` (0-based, ``j`` exclusive) and a valuation ``v``, the set
of every ``(M, v')`` with ``(e, S_i..j, M, v) ⊣ v'``, one case per construct:

1. ``ϵ``: the empty slice, ``M = ∅``, ``v' = v``; ``∅`` relates nothing;
2. ``phi ↑ o``: one element ``u`` with ``(u, v) ⊨ phi``, ``v' = v``,
   ``M = {i_u}`` if ``o = •`` else ``∅``;
3. ``phi ↑ o ↓ r``: as 2 with ``v' = v[r ← u]``;
4. ``e1 · e2``: every split ``S = S1 · S2`` with ``M = M1 · M2``;
5. ``e1 + e2``: the union;
6. ``e*``: the empty slice with ``v' = v``, or a split into a non-empty first
   iteration and ``e*`` on the rest (an iteration over the empty string
   changes neither M nor v, so leaving it out changes no result);
- ``e[1..w]`` (Def. 39): the pairs of ``e`` with ``max(M) − min(M) + 1 ≤ w``;
  an empty M has no span and satisfies every window (our reading: the report
  does not say);
- ``e[WITHIN τ]`` (Kleene's time window, docs/semantics.md): the pairs with
  ``ts(max M) − ts(min M) ≤ τ`` (``reading="inclusive"``) or ``< τ``
  (``reading="strict"``, Wayeb's), τ converted to the stream's time unit;
- ``e1 ∩ e2``: the same M from both parts, ``v'`` taking each register from
  the part that writes it (no part uses a register another writes, as Thm 34
  assumes);
- ``!e``: ``(M, v') = (∅, v)`` iff ``e`` relates no pair to ``S, v`` (the
  complement of the language, outputs ignored: Cor. 43);
- strategies are rewritten first (:mod:`kleene.reference.sremo.strategies`).

Every result is memoised per ``(node, i, j, v)`` and every produced pair
draws one step from the :class:`~kleene.reference.budget.Budget`.
"""

from __future__ import annotations

from collections.abc import Sequence

from kleene.reference.budget import Budget
from kleene.reference.durations import fits
from kleene.reference.events import Event
from kleene.reference.sremo.expressions import (
    Atom,
    Choice,
    Concat,
    Empty,
    Epsilon,
    Expr,
    Intersect,
    Not,
    Star,
    Strategy,
    Window,
    written,
)
from kleene.reference.sremo.strategies import rewrite
from kleene.reference.sremo.valuations import EMPTY, Valuation, satisfies, update

#: A match of Def. 18: the set of marked positions.
Marks = frozenset[int]
#: The pairs ``(M, v')`` related to one ``(e, S_i..j, v)``.
Results = frozenset[tuple[Marks, Valuation]]

NONE: Marks = frozenset()


def span(m: Marks) -> int:
    """``max(M) − min(M) + 1`` (0 for the empty match)."""
    return max(m) - min(m) + 1 if m else 0


class Semantics:
    """The relation ⊣ of Def. 17 over one string ``s``, memoised, within ``budget``."""

    def __init__(self, s: Sequence[Event], budget: Budget | None = None, *,
                 reading: str = "inclusive") -> None:
        self.s = s
        self.reading = reading
        self.time_unit: str | None = getattr(s, "time_unit", None)
        self.budget = budget or Budget(what="enumerating SREMO matches (seed 004 Def. 17)")
        self.memo: dict[tuple[int, int, int, Valuation], Results] = {}
        self.keep: dict[int, Expr] = {}  # id() keys stay valid while the nodes live here
        self.rewritten: dict[int, Expr] = {}

    def relate(self, e: Expr, i: int, j: int, v: Valuation = EMPTY) -> Results:
        """Every ``(M, v')`` with ``(e, S_i..j, M, v) ⊣ v'``."""
        key = (id(e), i, j, v)
        found = self.memo.get(key)
        if found is None:
            self.keep[id(e)] = e
            found = self._relate(e, i, j, v)
            self.budget.spend(1 + len(found))
            self.memo[key] = found
        return found

    def _relate(self, e: Expr, i: int, j: int, v: Valuation) -> Results:
        if isinstance(e, Epsilon):
            return frozenset({(NONE, v)}) if i == j else frozenset()
        if isinstance(e, Empty):
            return frozenset()
        if isinstance(e, Atom):
            return self._atom(e, i, j, v)
        if isinstance(e, Concat):
            return self._concat(e.parts, i, j, v)
        if isinstance(e, Choice):
            return frozenset().union(*(self.relate(p, i, j, v) for p in e.parts))
        if isinstance(e, Star):
            return self._star(e, i, j, v)
        if isinstance(e, Window):
            if isinstance(e.width, int):  # report Def. 39: max M − min M + 1 ≤ w
                return frozenset(r for r in self.relate(e.body, i, j, v)
                                 if fits(span(r[0]) - 1, e.width - 1))
            tau = e.width.in_units_of(self.time_unit)
            return frozenset(r for r in self.relate(e.body, i, j, v)
                             if not r[0] or fits(self.duration(r[0]), tau, self.reading))
        if isinstance(e, Intersect):
            return self._intersect(e, i, j, v)
        if isinstance(e, Not):
            return frozenset() if self.relate(e.body, i, j, v) else frozenset({(NONE, v)})
        assert isinstance(e, Strategy)
        if id(e) not in self.rewritten:
            self.rewritten[id(e)] = rewrite(e)
        return self.relate(self.rewritten[id(e)], i, j, v)

    def duration(self, m: Marks) -> int | float:
        """``ts(max M) − ts(min M)`` for a non-empty M."""
        return self.s[max(m)].ts - self.s[min(m)].ts

    def _atom(self, e: Atom, i: int, j: int, v: Valuation) -> Results:
        if j != i + 1:
            return frozenset()
        u = self.s[i]
        if not satisfies(e.condition, u, v, self.s):
            return frozenset()
        after = update(v, e.write, u.position) if e.write else v
        return frozenset({(frozenset({u.position}) if e.marked else NONE, after)})

    def _concat(self, parts: Sequence[Expr], i: int, j: int, v: Valuation) -> Results:
        # Thread (end of the prefix read so far, M so far, valuation) through the parts.
        current = {(i, NONE, v)}
        for part in parts:
            following = set()
            for start, m, w in current:
                for end in range(start, j + 1):
                    for m2, w2 in self.relate(part, start, end, w):
                        following.add((end, m | m2, w2))
            current = following
        return frozenset((m, w) for end, m, w in current if end == j)

    def _star(self, e: Star, i: int, j: int, v: Valuation) -> Results:
        if i == j:
            return frozenset({(NONE, v)})
        out = set()
        for k in range(i + 1, j + 1):
            for m1, v1 in self.relate(e.body, i, k, v):
                for m2, v2 in self.relate(e, k, j, v1):
                    out.add((m1 | m2, v2))
        return frozenset(out)

    def _intersect(self, e: Intersect, i: int, j: int, v: Valuation) -> Results:
        first, *rest = e.parts
        combined: dict[Marks, set[Valuation]] = {}
        for m, w in self.relate(first, i, j, v):
            combined.setdefault(m, set()).add(w)
        for part in rest:
            own = written(part)
            joined: dict[Marks, set[Valuation]] = {}
            for m, w2 in self.relate(part, i, j, v):
                for w1 in combined.get(m, ()):
                    merged = dict(w1)
                    merged.update((r, p) for r, p in w2 if r in own)
                    joined.setdefault(m, set()).add(tuple(sorted(merged.items())))
            combined = joined
        return frozenset((m, w) for m, ws in combined.items() for w in ws)


# ---------------------------------------------------------------- Def. 18


def accepts(e: Expr, s: Sequence[Event], *, budget: Budget | None = None,
            reading: str = "inclusive") -> bool:
    """``S ∈ Lang(e)`` (Def. 18): some M and v with ``(e, S, M, ♯) ⊣ v``."""
    return bool(Semantics(s, budget, reading=reading).relate(e, 0, len(s)))


def match_sets(e: Expr, s: Sequence[Event], *, budget: Budget | None = None,
               reading: str = "inclusive") -> set[Marks]:
    """``Match(e, S)`` of Def. 18, read literally: the M of every ``(e, S, M, ♯) ⊣ v``
    over the *whole* string ``s`` (may contain the empty match)."""
    return {m for m, _ in Semantics(s, budget, reading=reading).relate(e, 0, len(s))}
