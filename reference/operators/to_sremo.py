"""The regular fragment of operator patterns as SREMO: seed 003 (SASE+) → seed 004 (report).

docs/architecture.md, "The three pattern languages": the translation lets a SREMO engine
be checked against the operator reference and back. :func:`to_sremo` maps

    PATTERN expr WHERE Θ WITHIN τ          (skip-till-any-match, seed 003 Sec. 1)

to a SREMO (report Def. 15), one case per construct:

- ``A a`` ↦ the atom ``mark {~.type = 'A' AND θ…} -> a`` (Def. 15 cases 2–3):
  every event bound to a positive variable is marked •; ``θ…`` are the
  conditions of Θ attached to it (below); the register write ``-> a`` is
  there only when a later atom reads register ``a`` (``ANY a`` has no type test);
- ``SEQ(p1, …, pn)`` ↦ ``t1 · (⊤↑⊗)* · t2 ··· (⊤↑⊗)* · tn``: Def. 44's
  skip-till-any-match ⟲(t1, …, tn), written out;
- ``OR(p1, …, pn)`` ↦ ``t1 + … + tn`` (Def. 15 case 4);
- ``B{l,m} b[]`` (``B+ b[]`` is ``{1,}``) ↦ ``t₁ (· (⊤↑⊗)* · tₙ)^(l−1)``
  followed by ``((⊤↑⊗)* · tₙ)*`` when ``m`` is unbounded, else by ``m − l``
  nested optional steps ``(ϵ + (⊤↑⊗)* · tₙ · (…))``; ``t₁`` is the first
  iteration's atom and ``tₙ`` the others' (they differ only in ``prev``);
- ``WITHIN τ`` ↦ ``e[1..w]`` around the whole (report Def. 39), see below.

**Conditions and registers.** A condition ``c`` of Θ over variables
``v1..vk`` is attached to the atom of the variable that is bound last on the
path through the expression (an ``OR`` makes several paths: the translation
keeps one alternative per set of relevant variables bound so far, so a
condition on an ``OR`` branch not taken is attached nowhere, as it then does
not apply, :mod:`.matching` condition 2). There ``v.A`` of the atom's own
variable reads the head ``~.A``, and ``u.A`` of an earlier variable reads the
register ``u`` its atom wrote: ``u`` must be bound by *one* event on that
path, since a register holds one element (Def. 12). Decomposition
(:mod:`kleene.reference.conditions`) instantiates ``c`` once per event of
each variable, so

- a condition relating a Kleene variable ``b`` to earlier one-event variables
  holds iff it holds at every iteration of ``b`` with their registers: it is
  attached to both ``t₁`` and ``tₙ``; a condition naming ``b`` alone
  (``b.x < b.x`` included: both sides are the *same* event) is a property of
  each iteration;
- ``prev(b.A)`` ranges over consecutive iterations: every iteration writes
  register ``b``; ``tₙ`` reads ``prev(b.A)`` as ``b.A`` before overwriting it
  (Def. 17 case 3 tests φ with the old valuation), and ``t₁`` drops the whole
  condition, which has no instance for one event (vacuously true; Def. 13
  would make a comparison with the empty register false instead). ``prev`` of
  a one-event variable is vacuous everywhere and dropped;
- a condition relating an *earlier* Kleene variable to a later event needs
  every one of its events when the later one arrives; one register keeps only
  the last, so this is :class:`~kleene.reference.errors.Unsupported` (some
  shapes, ``a.x < c.x`` through a running-maximum register, could be
  expressed; they are not translated). So are aggregates (Sec. 4.5.1) and
  everything but ``SEQ``, ``OR``, single events and their repetition:
  ``AND``, ``NOT``, Kleene over a sub-pattern, strategies other than
  skip-till-any-match.

**What is compared.** The canonical operator match γ maps variables to
positions; SREMO gives the set M of marked positions (Def. 18). The claim is
``{π(γ) | γ ∈ Γ} = stream matches of to_sremo(P)`` (docs/architecture.md, "SREMO
streaming"), with π(γ) = ⋃_v γ(v) (:func:`project`). π is not injective:
``OR(A a, A b)`` gives {a/0} and {b/0}, ``SEQ(A+ a[], A+ b[])`` on A A A gives
{a/0, b/⟨1, 2⟩} and {a/⟨0, 1⟩, b/2}, each pair with one image. The comparison
is of images, so it cannot see a translation that mixes up variables with
the same image; ``marked=`` (mark only some variables) lets a test compare
each variable's positions on their own, over every slice (the Def. 17
relation), which it does.

**Order and time** (``docs/errata.md#seed-004-from-operator-ties``). ``SEQ``
is strict in ``ts`` (seed 003 Sec. 4.1), concatenation strict in positions;
iterations of a Kleene operator are ordered by positions in both. The
translation is exact on streams with strictly increasing ``ts``; with a tie
between the parts of a ``SEQ`` SREMO has matches the operator reference has
not (``SEQ(A a, B b)`` on A, B both at ts 0).

**Windows** (``docs/errata.md#seed-004-from-operator-window``). ``WITHIN τ``
bounds ``max ts − min ts`` of γ's events (``≤ τ``, or ``< τ`` for
``reading="strict"``); ``e[1..w]`` bounds ``max(M) − min(M) + 1`` of the
*marked* positions. With every event of γ marked and ``ts = position`` they
coincide for ``w = ⌊τ⌋ + 1`` (inclusive) and ``w = ⌈τ⌉`` (strict; ``τ = 0``
strict admits nothing and becomes ``∅``). For any other timestamps no ``w``
is right for every stream, and a window with a time unit is refused. With
``marked=`` a proper subset, Def. 39 would bound only the marked events, so
a window is refused there too.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass

from kleene.reference.conditions import (
    And,
    Attr,
    Cmp,
    Condition,
    Const,
    Not,
    Or,
    Prev,
    Term,
    conjunction,
    has_aggregate,
    prev_variables,
    variables,
)
from kleene.reference.durations import WindowReading
from kleene.reference.errors import Unsupported
from kleene.reference.match import Match
from kleene.reference.operators.pattern import (
    Conj,
    Disj,
    Kleene,
    Neg,
    Node,
    OperatorPattern,
    Primitive,
    Seq,
    positive_variables,
)
from kleene.reference.sremo.expressions import (
    HEAD,
    KEYWORDS,
    SKIP,
    Atom,
    Choice,
    Concat,
    Empty,
    Epsilon,
    Expr,
    Star,
    Window,
    check,
    reads,
    walk,
)

#: ``(⊤↑⊗)*``: the gap skip-till-any-match allows between two parts (report Def. 44).
GAP: Expr = Star(SKIP)


def project(m: Match) -> Match:
    """π(γ): the set of positions ``m`` binds, as a SREMO match (every bound event is marked)."""
    return Match.marked(m.positions)


@dataclass(frozen=True)
class Scope:
    """The relevant variables bound so far on one path: ``single`` by one event (its
    register holds it), ``iterated`` by a Kleene operator (its register, the last one)."""

    single: frozenset[str] = frozenset()
    iterated: frozenset[str] = frozenset()

    def bind(self, var: str, *, iterated: bool) -> Scope:
        if iterated:
            return Scope(self.single, self.iterated | {var})
        return Scope(self.single | {var}, self.iterated)

    @property
    def bound(self) -> frozenset[str]:
        return self.single | self.iterated


Alternatives = dict[Scope, Expr]


def to_sremo(pattern: OperatorPattern, *, reading: WindowReading = "inclusive",
             marked: Collection[str] | None = None) -> Expr:
    """The SREMO of ``pattern`` (see the module docstring), checked well formed.

    ``reading`` is the window's (``inclusive``: ``≤ τ``; ``strict``: ``< τ``);
    ``marked`` the variables whose events are marked (default: all positive ones).
    Raises :class:`~kleene.reference.errors.Unsupported` naming the construct
    outside the fragment.
    """
    if pattern.strategy not in (None, "skip_till_any_match"):
        raise Unsupported(f"the strategy {pattern.strategy} is not translated: the SREMO of "
                          "to_sremo is skip-till-any-match (report Def. 44)")
    names = positive_variables(pattern.expr)
    chosen = names if marked is None else frozenset(marked)
    if chosen - names:
        raise Unsupported(f"cannot mark {', '.join(sorted(chosen - names))}: not a positive "
                          "variable of the pattern")
    translator = _Translator(pattern.conditions, chosen)
    e = choice(translator.node(pattern.expr, Scope()).values())
    # Second pass: write only the registers some atom reads (``c`` last needs none).
    used = frozenset().union(*(reads(a.condition) for a in walk(e) if isinstance(a, Atom)))
    translator.writing = frozenset(v for v, r in translator.register.items() if r in used)
    e = choice(translator.node(pattern.expr, Scope()).values())
    if pattern.window is not None:
        if chosen != names:
            raise Unsupported("a window with only some variables marked: e[1..w] bounds the "
                              "marked positions only (report Def. 39), WITHIN every event")
        w = window_width(pattern, reading)
        e = Window(e, w) if w >= 1 else Empty()
    return check(e)


def window_width(pattern: OperatorPattern, reading: WindowReading = "inclusive") -> int:
    """The ``w`` of ``e[1..w]`` that equals ``WITHIN τ`` on streams with ``ts = position``:
    ``max − min ≤ τ`` iff ``max − min + 1 ≤ ⌊τ⌋ + 1``; ``< τ`` iff ``≤ ⌈τ⌉``."""
    assert pattern.window is not None
    if pattern.window.unit is not None:
        raise Unsupported(f"WITHIN {pattern.window}: a window with a time unit has no "
                          "counterpart in positions; SREMO windows count positions "
                          "(report Def. 39), so write it in timestamp units, with ts = position")
    tau = pattern.window.value
    if reading == "inclusive":
        return math.floor(tau) + 1
    if reading == "strict":
        return math.ceil(tau)
    raise ValueError(f"unknown window reading {reading!r}; use 'inclusive' or 'strict'")


class _Translator:
    """One pattern's conditions, registers and marking; :meth:`node` is the translation."""

    def __init__(self, conditions: tuple[Condition, ...], marked: frozenset[str]) -> None:
        for c in conditions:
            if has_aggregate(c):
                raise Unsupported("aggregates (seed 003 Sec. 4.5.1) read the whole sequence "
                                  "of a variable; a SREMO register holds one element")
        self.conditions = conditions
        self.marked = marked
        self.relevant = frozenset().union(
            *(variables(c) for c in conditions if len(variables(c)) > 1),
            *(prev_variables(c) for c in conditions))
        self.register = _register_names(self.relevant)
        self.writing = self.relevant  # the variables whose atoms write their register

    def node(self, p: Node, scope: Scope) -> Alternatives:
        """The translations of ``p`` after ``scope``, one per scope after ``p``."""
        if isinstance(p, Primitive):
            return self.repetition(p, scope, 1, 1)
        if isinstance(p, Kleene):
            if not isinstance(p.part, Primitive):
                raise Unsupported("Kleene closure of a sub-pattern that is not one event: "
                                  "only B+ b[] and B{l,m} b[] are in the regular fragment")
            return self.repetition(p.part, scope, p.low, p.high)
        if isinstance(p, Disj):
            out: dict[Scope, list[Expr]] = {}
            for q in p.parts:
                for after, e in self.node(q, scope).items():
                    out.setdefault(after, []).append(e)
            return {after: choice(es) for after, es in out.items()}
        if isinstance(p, Seq):
            return self.sequence(p.parts, scope)
        construct = "AND (Sec. 4.2)" if isinstance(p, Conj) else "NOT (Sec. 4.4)"
        assert isinstance(p, (Conj, Neg))
        raise Unsupported(f"{construct} is outside the fragment translated to SREMO "
                          "(SEQ, OR, single events and their Kleene closure)")

    def sequence(self, parts: tuple[Node, ...], scope: Scope) -> Alternatives:
        """``SEQ``: the parts with gaps between them, alternatives threaded through."""
        current: dict[Scope, Expr | None] = {scope: None}
        for q in parts:
            # after-scope → translation of q → the prefixes it follows
            following: dict[Scope, dict[Expr, list[Expr]]] = {}
            for before, prefix in current.items():
                for after, e in self.node(q, before).items():
                    prefixes = following.setdefault(after, {}).setdefault(e, [])
                    if prefix is not None:
                        prefixes.append(prefix)
            current = {after: choice(concat(choice(pre), GAP, e) if pre else e
                                     for e, pre in by_part.items())
                       for after, by_part in following.items()}
        return {after: e for after, e in current.items() if e is not None}

    def repetition(self, x: Primitive, scope: Scope, low: int, high: int | None) -> Alternatives:
        """``x{low,high}`` (one event when ``high == 1``): first atom, then the others."""
        iterated = high != 1
        first = self.atom(x, scope, first=True)
        if not iterated:
            return {scope.bind(x.var, iterated=False) if x.var in self.relevant else scope: first}
        step = concat(GAP, self.atom(x, scope, first=False))
        parts = [first] + [step] * (low - 1)
        if high is None:
            parts.append(Star(step))
        else:
            tail: Expr | None = None
            for _ in range(high - low):
                tail = Choice((Epsilon(), step if tail is None else concat(step, tail)))
            if tail is not None:
                parts.append(tail)
        after = scope.bind(x.var, iterated=True) if x.var in self.relevant else scope
        return {after: concat(*parts)}

    def atom(self, x: Primitive, scope: Scope, *, first: bool) -> Atom:
        """The atom of ``x`` after ``scope``; ``first``: a one-event variable or the first
        iteration (``prev(x…)`` has no instance there)."""
        phi: list[Condition] = []
        if x.type is not None:
            phi.append(Cmp("=", Attr(HEAD, "type"), Const(x.type)))
        phi += [self.rewrite(c, x.var) for c in self.attached(x.var, scope, first=first)]
        write = self.register[x.var] if x.var in self.writing else None
        return Atom(conjunction(phi), marked=x.var in self.marked, write=write)

    def attached(self, var: str, scope: Scope, *, first: bool) -> Iterable[Condition]:
        """The conditions of Θ that become fully bound at an event of ``var`` after ``scope``."""
        for c in self.conditions:
            names = variables(c)
            if names and var not in names:
                continue
            others = names - {var}
            if not others <= scope.bound:
                continue  # attached later on this path, or never (an OR branch not taken)
            stale = others & scope.iterated
            if stale:
                raise Unsupported(
                    f"a condition relates {', '.join(sorted(stale))}, bound by a Kleene "
                    f"operator, to the later {var}: it must hold for every iteration, and a "
                    "SREMO register keeps only the last one (report Def. 12)")
            prevs = prev_variables(c)
            if prevs & scope.single or (var in prevs and first):
                continue  # prev() of one event: no instance, vacuously true
            yield c

    def rewrite(self, c: Condition, var: str) -> Condition:
        """``c`` read at an event of ``var``: ``var.A`` is ``~.A``, ``prev(var.A)`` and
        ``u.A`` read registers (report Def. 10)."""

        def term(t: Term) -> Term:
            if isinstance(t, Attr):
                return Attr(HEAD if t.var == var else self.register[t.var], t.attr)
            if isinstance(t, Prev):
                return Attr(self.register[t.var], t.attr)
            return t

        return _map_terms(c, term)


def _map_terms(c: Condition, f: Callable[[Term], Term]) -> Condition:
    """``c`` with every term ``t`` replaced by ``f(t)``."""
    if isinstance(c, Cmp):
        return Cmp(c.op, f(c.left), f(c.right))
    if isinstance(c, And):
        return And(tuple(_map_terms(p, f) for p in c.parts))
    if isinstance(c, Or):
        return Or(tuple(_map_terms(p, f) for p in c.parts))
    if isinstance(c, Not):
        return Not(_map_terms(c.part, f))
    return c


def _register_names(names: frozenset[str]) -> dict[str, str]:
    """A register per variable, named after it unless that is a SREMO keyword."""
    out: dict[str, str] = {}
    for v in sorted(names):
        name = v
        while name.upper() in KEYWORDS or name in names - {v} or name in out.values():
            name = "r_" + name
        out[v] = name
    return out


def choice(parts: Iterable[Expr]) -> Expr:
    """``e1 + … + en`` without repeats (one part: itself)."""
    unique = tuple(dict.fromkeys(parts))
    return unique[0] if len(unique) == 1 else Choice(unique)


def concat(*parts: Expr) -> Expr:
    """``e1 · … · en``, flattening nested concatenations (· is associative)."""
    flat: list[Expr] = []
    for e in parts:
        flat.extend(e.parts if isinstance(e, Concat) else (e,))
    return flat[0] if len(flat) == 1 else Concat(tuple(flat))
