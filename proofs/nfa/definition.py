"""The operator reference's match condition over a symbolic stream (seed 003 Sec. 2.1).

One Z3 formula says "the symbolic substitution γ is a match of the pattern on the
symbolic stream" under ``any`` (or ``contiguous``), encoded from the pattern's
definition (:mod:`kleene.reference.operators.matching`), never from an automaton:

1. γ is a derivation of the expression (:mod:`kleene.reference.operators.derivations`):
   ``A a`` binds one event of type A; ``A{l,m} a[]`` binds ``l`` to ``m`` of them (any
   set: iterations of one event are ordered by position, ties allowed); ``SEQ``
   orders every event of part i strictly (``ts``) before every event of part j > i;
   ``AND`` orders nothing (events are distinct by construction: a position binds at
   most one variable); ``OR`` binds one part, the others' variables stay unbound;
2. every condition over positive variables whose variables γ all binds holds,
   decomposed (:func:`kleene.proofs.encode.holds_over`: ``prev``, aggregates);
3. the window over γ's events (``≤ τ``, or ``< τ`` strict);
4. no ``NOT`` pending on that derivation forbids γ (:mod:`kleene.reference.operators.negation`):
   an event not in γ, of the negated type, strictly inside the interval the
   enclosing ``SEQ``\\ s give it (after every event of the nearest positive part
   before it, before every event of the nearest one after it, at every level),
   fitting in one window with γ, on which every condition mentioning the negated
   variable (whose other variables γ binds) holds.

The symbolic substitution is :class:`kleene.proofs.ses.symbolic.Assignment`: per
position, the index of the positive variable binding it, or ``-1``. A Kleene
operator over a sub-pattern or a negated sub-pattern is outside this encoding
(:class:`~kleene.reference.errors.Unsupported`).
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
    conj,
    disj,
    holds_over,
    implies,
    neg,
)
from kleene.proofs.ses.symbolic import Assignment
from kleene.reference.conditions import Condition, variables
from kleene.reference.errors import Unsupported
from kleene.reference.operators.pattern import (
    Conj,
    Disj,
    Kleene,
    Neg,
    Node,
    OperatorPattern,
    Primitive,
    Seq,
    negated_variables,
    positive_variables,
)
from kleene.reference.operators.pattern import variables as node_variables

#: ``inclusive`` (``≤ τ``) or ``strict`` (``< τ``).
Reading = str


@dataclass(frozen=True)
class Symbolic:
    """``n`` symbolic events (``ts`` non-decreasing), a substitution γ over them, τ."""

    events: tuple[SymEvent, ...]
    gamma: Assignment
    tau: int | float | None
    reading: Reading = "inclusive"

    @property
    def n(self) -> int:
        return len(self.events)

    @property
    def constraints(self) -> list[Lit]:
        out: list[Lit] = [c for e in self.events for c in e.constraints]
        out += [a.ts <= b.ts for a, b in itertools.pairwise(self.events)]
        return [*out, *self.gamma.constraints]

    def is_type(self, i: int, t: str | None) -> Lit:
        """Event ``i`` has type ``t`` (``None``: any)."""
        return True if t is None else self.events[i].value("type").kinds[0][2] == z3.StringVal(t)

    def fits(self, i: int, j: int) -> Lit:
        """Events ``i`` and ``j`` fit in one window."""
        if self.tau is None:
            return True
        a, b = self.events[min(i, j)].ts, self.events[max(i, j)].ts
        tau = (z3.IntVal(self.tau) if isinstance(self.tau, int)
               else z3.RealVal(str(Fraction(self.tau))))
        return b - a <= tau if self.reading == "inclusive" else b - a < tau

    def binds_any(self, i: int, names: Sequence[str] | frozenset[str]) -> Lit:
        """Event ``i`` is bound to one of ``names``."""
        return disj(*(self.gamma.binds(i, v) for v in sorted(names) if v in self.gamma.names))

    def count(self, v: str) -> z3.ArithRef:
        """How many events γ binds to ``v``."""
        return z3.Sum([z3.If(as_z3(self.gamma.binds(i, v)), 1, 0) for i in range(self.n)])

    def is_bound(self, v: str) -> Lit:
        """γ binds ``v``."""
        return disj(*(self.gamma.binds(i, v) for i in range(self.n)))

    def members(self) -> dict[str, list[Member]]:
        """Each variable's candidate events, with γ's membership literals."""
        return {v: [(self.gamma.binds(i, v), e) for i, e in enumerate(self.events)]
                for v in self.gamma.names}

    def window(self) -> Lit:
        """γ's events fit in one window."""
        return conj(*(implies(conj(self.gamma.bound(i), self.gamma.bound(j)), self.fits(i, j))
                      for i, j in itertools.combinations(range(self.n), 2)))

    def before(self, early: frozenset[str], late: frozenset[str]) -> Lit:
        """Every event of ``early``'s variables is earlier (``ts``) than every one of ``late``'s."""
        return conj(*(implies(conj(self.binds_any(i, early), self.binds_any(j, late)),
                              self.events[i].ts < self.events[j].ts)
                      for i, j in itertools.permutations(range(self.n), 2)))

    def contiguous(self) -> Lit:
        """γ binds every event between its first and its last one."""
        g = self.gamma
        return conj(*(implies(conj(g.bound(i), g.bound(j)), g.bound(k))
                      for i, j in itertools.combinations(range(self.n), 2)
                      for k in range(i + 1, j)))

    def sized(self, v: str, t: str | None, low: int, high: int | None) -> Lit:
        """``v`` binds ``max(low, 1)`` to ``high`` events, each of type ``t``."""
        k = self.count(v)
        return conj(k >= max(low, 1), True if high is None else k <= high,
                    *(implies(g, self.is_type(i, t))
                      for i, g in ((i, self.gamma.binds(i, v)) for i in range(self.n))))

    def forbidden_at(self, k: int, var: str, t: str | None, after: Sequence[frozenset[str]],
                     before: Sequence[frozenset[str]], conditions: Sequence[Condition],
                     gated: bool) -> Lit:
        """Event ``k``, bound to the negated ``var``, forbids γ: not in γ, of type ``t``,
        after every event of each set of ``after``, before every one of ``before``, in
        one window with γ, and every condition holds (``gated``: only those whose other
        variables γ binds apply)."""
        e = self.events[k]
        inside = [implies(self.binds_any(i, names), self.events[i].ts < e.ts)
                  for names in after for i in range(self.n)]
        inside += [implies(self.binds_any(i, names), e.ts < self.events[i].ts)
                   for names in before for i in range(self.n)]
        fits = [implies(self.gamma.bound(i), self.fits(i, k)) for i in range(self.n) if i != k]
        members = {**self.members(), var: [(True, e)]}
        holds: list[Lit] = []
        for c in conditions:
            others = variables(c) - {var}
            if gated and not others <= set(self.gamma.names):
                continue   # another negated variable: never bound
            h = holds_over(c, members)
            holds.append(implies(conj(*(self.is_bound(v) for v in sorted(others))), h)
                         if gated else h)
        return conj(neg(self.gamma.bound(k)), self.is_type(k, t), *inside, *fits, *holds)


def derivation(p: Node, s: Symbolic) -> Lit:
    """γ restricted to ``p``'s variables is a derivation of ``p`` (module docstring, 1)."""
    if isinstance(p, Primitive):
        return s.sized(p.var, p.type, 1, 1)
    if isinstance(p, Kleene):
        if not isinstance(p.part, Primitive):
            raise Unsupported("the symbolic encoding iterates single events only")
        return s.sized(p.part.var, p.part.type, p.low, p.high)
    if isinstance(p, Disj):
        return disj(*(conj(derivation(q, s), *(neg(s.is_bound(v)) for v in sorted(
            positive_variables(Disj(tuple(r for r in p.parts if r is not q)))
            - positive_variables(q)))) for q in p.parts))
    if isinstance(p, Neg):
        return True
    assert isinstance(p, (Seq, Conj))
    positive = [q for q in p.parts if not isinstance(q, Neg)]
    out = [derivation(q, s) for q in positive]
    if isinstance(p, Seq):
        names = [positive_variables(q) for q in positive]
        out += [s.before(names[i], names[j])
                for i, j in itertools.combinations(range(len(names)), 2)]
    return conj(*out)


@dataclass(frozen=True)
class PendingNot:
    """A ``NOT`` of a derivation: its primitive, the sets of variables its event must
    follow and precede, and when it is pending (its ``OR`` branches taken)."""

    part: Primitive
    after: tuple[frozenset[str], ...]
    before: tuple[frozenset[str], ...]
    taken: tuple[frozenset[str], ...]


def pending(p: Node, after: tuple[frozenset[str], ...] = (),
            before: tuple[frozenset[str], ...] = (),
            taken: tuple[frozenset[str], ...] = ()) -> list[PendingNot]:
    """The negations of ``p`` with the intervals their enclosing ``SEQ``\\ s give them."""
    if isinstance(p, Primitive | Kleene):
        return []
    if isinstance(p, Neg):
        if not isinstance(p.part, Primitive):
            raise Unsupported("the symbolic encoding negates single events only")
        return [PendingNot(p.part, after, before, taken)]
    if isinstance(p, Disj):
        return [x for q in p.parts
                for x in pending(q, after, before, (*taken, positive_variables(q)))]
    out: list[PendingNot] = []
    for k, q in enumerate(p.parts):
        lo: tuple[frozenset[str], ...] = ()
        hi: tuple[frozenset[str], ...] = ()
        if isinstance(p, Seq):
            prior = [r for r in p.parts[:k] if not isinstance(r, Neg)]
            later = [r for r in p.parts[k + 1:] if not isinstance(r, Neg)]
            lo = (positive_variables(prior[-1]),) if prior else ()
            hi = (positive_variables(later[0]),) if later else ()
        out += pending(q, (*after, *lo), (*before, *hi), taken)
    return out


def forbids(pattern: OperatorPattern, s: Symbolic) -> Lit:
    """Some pending ``NOT`` forbids γ (module docstring, 4)."""
    out: list[Lit] = []
    for x in pending(pattern.expr):
        relevant = [c for c in pattern.conditions if x.part.var in variables(c)]
        active = conj(*(disj(*(s.is_bound(v) for v in sorted(names))) for names in x.taken))
        out += [conj(active, s.forbidden_at(k, x.part.var, x.part.type, x.after, x.before,
                                            relevant, gated=True))
                for k in range(s.n)]
    return disj(*out)


def reference_match(pattern: OperatorPattern, s: Symbolic, policy: str = "any") -> Lit:
    """γ is a match of ``pattern`` under ``policy`` (``any`` or ``contiguous``)."""
    negated = negated_variables(pattern.expr)
    conditions = [implies(conj(*(s.is_bound(v) for v in sorted(variables(c)))),
                          holds_over(c, s.members()))
                  for c in pattern.conditions if not variables(c) & negated]
    extra = set(s.gamma.names) - set(node_variables(pattern.expr))
    if extra:
        raise Unsupported(f"γ names variables the pattern lacks: {sorted(extra)}")
    out = conj(derivation(pattern.expr, s), s.window(), *conditions, neg(forbids(pattern, s)))
    return conj(out, s.contiguous()) if policy == "contiguous" else out
