"""Derivations: how a pattern expression lays itself over the stream (seed 003 Secs. 4.1–4.5, 5.1).

A *derivation* of a node ``p`` over a pool of events is a substitution γ
(variable → non-empty tuple of positions, a :class:`~kleene.reference.match.Match`)
together with the negations still *pending* on it and its *tree* (which
part of each ``OR``, which iterations: what a run of an automaton would have
followed; ``next`` reads it). :func:`derivations` gives all of them, one case
per construct:

- ``A a``: ``{a/e}`` for every event ``e`` of type ``A`` (any type for ``ANY``);
- ``SEQ(p1, …, pn)``: one derivation per positive part, *every event of part
  i strictly before (ts) every event of part i+1* (seed 003 Sec. 4.1's order
  on timestamps; with ties this is exactly seed 001 Def. 2's condition 2);
- ``AND(p1, …, pn)``: one derivation per positive part, on distinct events,
  in any order (Sec. 4.2);
- ``OR(p1, …, pn)``: a derivation of one part; the other parts' variables stay
  unbound (Sec. 5.1);
- ``p{l,m}``: ``l`` to ``m`` derivations ``d1, …, dr`` of ``p``, each entirely
  after the previous one *in stream order* (positions), so iterations never
  interleave; their bindings accumulate: a variable binds the events of all
  iterations, in stream order (Sec. 4.5: ``B+ b[]`` binds every non-empty
  subset of the B events, 7 for b1 b2 b3). Positions rather than ``ts`` order
  the iterations so that ``(B b)+`` = ``B+ b[]`` binds tied events too, as an
  SES group variable does (``docs/errata.md#seed-003-iteration-order``);
- ``NOT(p)`` as a part of ``SEQ``: pending on the open ``ts`` interval between
  the last event of the nearest positive part before it and the first event
  of the nearest positive part after it (unbounded on a missing side); as a
  part of ``AND``: pending with no bounds of its own. An enclosing ``SEQ``
  narrows the interval of every negation pending in its parts the same way.

The negations are checked by :mod:`.negation` once the whole match is known,
and the conditions and window by :mod:`.matching`. The enumeration prunes with
what cannot change later: the window (a span only grows) and the conditions
without ``prev`` and aggregates whose variables are all bound (their
instantiations only grow). Every step is drawn from a
:class:`~kleene.reference.budget.Budget`.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass

from kleene.reference.budget import Budget
from kleene.reference.conditions import Agg, Condition, Prev, holds, subterms, variables
from kleene.reference.durations import WindowReading, fits
from kleene.reference.events import Event, Stream
from kleene.reference.match import Match, substitution
from kleene.reference.operators.pattern import Conj, Disj, Kleene, Neg, Node, Primitive, Seq

Time = int | float


@dataclass(frozen=True, slots=True)
class Pending:
    """``NOT(neg.part)`` forbids its matches strictly between ``lo`` and ``hi`` (ts)."""

    neg: Neg
    lo: Time | None = None
    hi: Time | None = None

    def narrowed(self, lo: Time | None, hi: Time | None) -> Pending:
        """The same negation with its interval intersected with ``(lo, hi)``."""
        new_lo = self.lo if lo is None else lo if self.lo is None else max(self.lo, lo)
        new_hi = self.hi if hi is None else hi if self.hi is None else min(self.hi, hi)
        return Pending(self.neg, new_lo, new_hi)


@dataclass(frozen=True, slots=True)
class Taken:
    """The tree of ``A a``: the position of its event."""

    position: int


@dataclass(frozen=True, slots=True)
class Parts:
    """The tree of ``SEQ``/``AND``: one tree per positive part (``None``: no event yet,
    in the prefixes of :mod:`.prefixes` only)."""

    items: tuple[Tree | None, ...]


@dataclass(frozen=True, slots=True)
class Branch:
    """The tree of ``OR``: the index of the part taken and its tree."""

    index: int
    tree: Tree


@dataclass(frozen=True, slots=True)
class Iterations:
    """The tree of a Kleene operator: one tree per iteration, in stream order."""

    items: tuple[Tree, ...]


#: How a derivation laid the expression over the stream (``next`` reads it: a run).
Tree = Taken | Parts | Branch | Iterations


@dataclass(frozen=True, slots=True)
class Derivation:
    """A substitution ``gamma``, the negations ``pending`` on it, and its ``tree``."""

    gamma: Match
    pending: frozenset[Pending]
    tree: Tree


@dataclass
class Context:
    """The stream, window τ (``None``: none) and its reading, pruning conditions, budget."""

    s: Stream
    tau: Time | None
    reading: WindowReading
    prune: tuple[Condition, ...]
    budget: Budget

    def ts(self, position: int) -> Time:
        return self.s[position].ts

    def within(self, first: Time, last: Time) -> bool:
        """The window: ``last − first ≤ τ`` (inclusive) or ``< τ`` (strict)."""
        if self.tau is None:
            return True
        return fits(last - first, self.tau, self.reading)

    def spans(self, m: Match) -> bool:
        """Whether the events of ``m`` fit in the window."""
        return self.within(self.ts(m.first), self.ts(m.last))

    def admissible(self, m: Match) -> bool:
        """Whether ``m`` can still grow into a match: window and bound monotone conditions."""
        if not self.spans(m):
            return False
        bound = set(m.variables)
        gamma = substitution(m, self.s.events)
        return all(holds(c, gamma) for c in self.prune if variables(c) <= bound)


def monotone(c: Condition) -> bool:
    """Whether a failure of ``c`` on part of a substitution persists on all of it
    (no ``prev``, no aggregate: more events only add instantiations)."""
    return not any(isinstance(t, (Prev, Agg)) for t in subterms(c))


def merge(a: Match | None, b: Match) -> Match:
    """The union of two substitutions; a variable bound by both binds both sequences."""
    out: dict[str, tuple[int, ...]] = dict(a.bindings) if a is not None else {}
    for var, positions in b.bindings:
        out[var] = out.get(var, ()) + positions
    return Match.of(out)


def derivations(p: Node, pool: Sequence[Event], ctx: Context) -> set[Derivation]:
    """Every derivation of ``p`` whose events are in ``pool`` (see the module docstring)."""
    if isinstance(p, Primitive):
        out = set()
        for e in pool:
            ctx.budget.spend()
            if p.accepts(e):
                out.add(Derivation(Match.of({p.var: (e.position,)}), frozenset(),
                                   Taken(e.position)))
        return {d for d in out if ctx.admissible(d.gamma)}
    if isinstance(p, Disj):
        return {Derivation(d.gamma, d.pending, Branch(j, d.tree))
                for j, q in enumerate(p.parts) for d in derivations(q, pool, ctx)}
    if isinstance(p, Kleene):
        return _iterations(p, pool, ctx)
    if isinstance(p, (Seq, Conj)):
        return _combinations(p, pool, ctx)
    raise TypeError(f"a NOT has no derivations of its own: {p!r}")


def _combinations(p: Seq | Conj, pool: Sequence[Event], ctx: Context) -> set[Derivation]:
    """``SEQ``/``AND``: one derivation per positive part, ordered (SEQ) or disjoint (AND)."""
    ordered = isinstance(p, Seq)
    positive = [sorted(derivations(q, pool, ctx), key=lambda d: ctx.ts(d.gamma.first))
                for q in p.parts if not isinstance(q, Neg)]
    firsts = [[ctx.ts(d.gamma.first) for d in ds] for ds in positive]
    out: set[Derivation] = set()

    def candidates(k: int, merged: Match | None) -> Sequence[Derivation]:
        if merged is None:
            return positive[k]
        if ordered:  # strictly later than everything so far
            return positive[k][bisect.bisect_right(firsts[k], ctx.ts(merged.last)):]
        used = set(merged.positions)
        return [d for d in positive[k] if used.isdisjoint(d.gamma.positions)]

    def extend(k: int, chosen: list[Derivation], merged: Match | None) -> None:
        if k == len(positive):
            assert merged is not None
            out.add(Derivation(merged, _pending(p, chosen, ctx),
                               Parts(tuple(d.tree for d in chosen))))
            return
        for d in candidates(k, merged):
            ctx.budget.spend()
            joint = merge(merged, d.gamma)
            if ctx.admissible(joint):
                extend(k + 1, [*chosen, d], joint)

    extend(0, [], None)
    return out


def _pending(p: Seq | Conj, chosen: list[Derivation], ctx: Context) -> frozenset[Pending]:
    """The negations pending on a derivation of ``p`` built from the parts' ``chosen`` ones."""
    if isinstance(p, Conj):
        inherited = {x for d in chosen for x in d.pending}
        return frozenset(inherited | {Pending(q) for q in p.parts if isinstance(q, Neg)})
    out: set[Pending] = set()
    k = 0  # index into chosen: the positive parts in order
    for q in p.parts:
        before = chosen[k - 1].gamma if k > 0 else None
        lo = ctx.ts(before.last) if before is not None else None
        if isinstance(q, Neg):
            after = chosen[k].gamma if k < len(chosen) else None
            out.add(Pending(q, lo, ctx.ts(after.first) if after is not None else None))
            continue
        after = chosen[k + 1].gamma if k + 1 < len(chosen) else None
        hi = ctx.ts(after.first) if after is not None else None
        out |= {x.narrowed(lo, hi) for x in chosen[k].pending}
        k += 1
    return frozenset(out)


def _iterations(p: Kleene, pool: Sequence[Event], ctx: Context) -> set[Derivation]:
    """``p{l,m}``: chains of ``l`` to ``m`` derivations of the part, in stream order."""
    body = sorted(derivations(p.part, pool, ctx), key=lambda d: d.gamma.first)
    firsts = [d.gamma.first for d in body]
    level = {Derivation(d.gamma, d.pending, Iterations((d.tree,))) for d in body}
    out = set(level) if p.low <= 1 else set()
    n = 1
    while level and (p.high is None or n < p.high):
        following: set[Derivation] = set()
        for chain in level:
            assert isinstance(chain.tree, Iterations)
            for d in body[bisect.bisect_right(firsts, chain.gamma.last):]:
                ctx.budget.spend()  # d starts after the chain ends, in stream order
                joint = merge(chain.gamma, d.gamma)
                if ctx.admissible(joint):
                    tree = Iterations((*chain.tree.items, d.tree))
                    following.add(Derivation(joint, frozenset(), tree))
        n += 1
        if n >= p.low:
            out |= following
        level = following
    return out
