"""Runs and "could extend", for skip-till-next-match over operator patterns.

The SES ``next`` (seed 000 Def. 2 conditions 4–5, normative reading in
:mod:`kleene.reference.ses.policies`): a run never skips an event it could
take. Generalised to nested operators, a *run* is a derivation of the match
with its tree (:mod:`.derivations`: which ``OR`` part, which iterations), as
an NFA instance follows one path; its *state* before position k is the tree
cut to the events before k (:func:`prefix`): an ``OR`` is committed to its
part once that part has taken an event, an iteration is open or done.

The run *could extend* its state with the event ``e`` at k iff ``e`` can be
put into the state tree (:func:`extensions`: as the event of an unused
``A a``, inside the ``OR`` part already taken or any part if none is yet,
into the current iteration or a new one) so that

1. the tree is still *viable* (:func:`shapes`): it is the past of some
   derivation over the events up to k followed by future events (later, of
   any type, at strictly increasing ``ts``): every ``SEQ`` part before the
   last one that has events is complete and strictly earlier in ``ts`` than
   the next, every iteration but the last is complete, repetition bounds
   can still be met; and
2. no condition refutes it: every condition of Θ over positive variables,
   without aggregates, whose variables the extended state all binds, holds
   (as SES's ``can_take`` does; an aggregate reads the whole sequence, so it
   is judged on complete matches only).

Negated parts play no role: a run never takes a negated event. On
``SEQ(AND(B1), …, AND(Bk))`` this is exactly SES's ``can_take``. Because the
``OR`` is committed where it stands, ``SEQ(A a, OR(B b, C c))`` and its DNF
``OR(SEQ(A a, B b), SEQ(A a, C c))`` differ under ``next`` (on A C B the
first keeps only {a, c}, the second also {a, b}; ``docs/errata.md#seed-003-next-dnf``).
"""

from __future__ import annotations

from collections.abc import Iterator

from kleene.reference.budget import Budget
from kleene.reference.conditions import Condition, has_aggregate, holds, variables
from kleene.reference.events import Event, Stream
from kleene.reference.match import Match, substitution
from kleene.reference.operators.derivations import (
    Branch,
    Iterations,
    Parts,
    Taken,
    Tree,
    merge,
)
from kleene.reference.operators.pattern import Conj, Disj, Kleene, Neg, Node, Primitive, Seq

DONE, OPEN = "done", "open"


def _positive(p: Seq | Conj) -> tuple[Node, ...]:
    return tuple(q for q in p.parts if not isinstance(q, Neg))


def bindings(p: Node, tree: Tree | None) -> Match | None:
    """The substitution a (partial) tree binds; ``None`` if it binds nothing."""
    if tree is None:
        return None
    if isinstance(tree, Taken):
        assert isinstance(p, Primitive)
        return Match.of({p.var: (tree.position,)})
    if isinstance(tree, Branch):
        assert isinstance(p, Disj)
        return bindings(p.parts[tree.index], tree.tree)
    if isinstance(tree, Iterations):
        assert isinstance(p, Kleene)
        subs = [bindings(p.part, t) for t in tree.items]
    else:
        assert isinstance(p, (Seq, Conj))
        subs = [bindings(q, t) for q, t in zip(_positive(p), tree.items, strict=True)]
    out = None
    for m in subs:
        if m is not None:
            out = merge(out, m)
    return out


def prefix(p: Node, tree: Tree | None, k: int) -> Tree | None:
    """``tree`` cut to the events at positions before ``k`` (``None``: no event left)."""
    if tree is None:
        return None
    if isinstance(tree, Taken):
        return tree if tree.position < k else None
    if isinstance(tree, Branch):
        assert isinstance(p, Disj)
        inner = prefix(p.parts[tree.index], tree.tree, k)
        return None if inner is None else Branch(tree.index, inner)
    if isinstance(tree, Iterations):
        assert isinstance(p, Kleene)
        kept = [x for x in (prefix(p.part, t, k) for t in tree.items) if x is not None]
        return Iterations(tuple(kept)) if kept else None
    assert isinstance(p, (Seq, Conj))
    items = tuple(prefix(q, t, k) for q, t in zip(_positive(p), tree.items, strict=True))
    return Parts(items) if any(x is not None for x in items) else None


def shapes(p: Node, tree: Tree | None, s: Stream) -> frozenset[str]:
    """Which of :data:`DONE` (a whole derivation) and :data:`OPEN` (the past of one that
    needs future events) the partial ``tree`` can be; empty if neither (not viable)."""
    if tree is None:
        return frozenset({OPEN})
    if isinstance(tree, Taken):
        return frozenset({DONE})
    if isinstance(tree, Branch):
        assert isinstance(p, Disj)
        return shapes(p.parts[tree.index], tree.tree, s)
    if isinstance(tree, Iterations):
        assert isinstance(p, Kleene)
        return _iteration_shapes(p, tree, s)
    assert isinstance(p, (Seq, Conj))
    each = [shapes(q, t, s) for q, t in zip(_positive(p), tree.items, strict=True)]
    if isinstance(p, Conj):
        if not all(each):
            return frozenset()
        done = {DONE} if all(DONE in x for x in each) else set()
        return frozenset(done | ({OPEN} if any(OPEN in x for x in each) else set()))
    return _sequence_shapes(p, tree, each, s)


def _sequence_shapes(p: Seq, tree: Parts, each: list[frozenset[str]],
                     s: Stream) -> frozenset[str]:
    last = max(i for i, t in enumerate(tree.items) if t is not None)
    for i in range(last):
        before = bindings(_positive(p)[i], tree.items[i])
        after = bindings(_positive(p)[i + 1], tree.items[i + 1])
        if before is None or after is None or DONE not in each[i]:
            return frozenset()  # a part still to come would precede events already taken
        if not s[before.last].ts < s[after.first].ts:
            return frozenset()
    if last == len(tree.items) - 1 or not each[last]:
        return each[last]
    return frozenset({OPEN})


def _iteration_shapes(p: Kleene, tree: Iterations, s: Stream) -> frozenset[str]:
    each = [shapes(p.part, t, s) for t in tree.items]
    n = len(each)
    if any(DONE not in x for x in each[:-1]) or (p.high is not None and n > p.high):
        return frozenset()
    out = set()
    if DONE in each[-1] and n >= p.low:
        out.add(DONE)
    if OPEN in each[-1] or (DONE in each[-1] and (p.high is None or n < p.high)):
        out.add(OPEN)
    return frozenset(out)


def extensions(p: Node, tree: Tree | None, e: Event) -> Iterator[Tree]:
    """Every tree that puts ``e`` into the partial ``tree`` (viability aside)."""
    if isinstance(p, Primitive):
        if tree is None and p.accepts(e):
            yield Taken(e.position)
        return
    if isinstance(p, Disj):
        if isinstance(tree, Branch):
            yield from (Branch(tree.index, t)
                        for t in extensions(p.parts[tree.index], tree.tree, e))
            return
        for j, q in enumerate(p.parts):
            yield from (Branch(j, t) for t in extensions(q, None, e))
        return
    if isinstance(p, Kleene):
        done = tree.items if isinstance(tree, Iterations) else ()
        if done:
            yield from (Iterations((*done[:-1], t)) for t in extensions(p.part, done[-1], e))
        yield from (Iterations((*done, t)) for t in extensions(p.part, None, e))
        return
    assert isinstance(p, (Seq, Conj))
    parts = _positive(p)
    items = tree.items if isinstance(tree, Parts) else (None,) * len(parts)
    for i, q in enumerate(parts):
        for t in extensions(q, items[i], e):
            yield Parts((*items[:i], t, *items[i + 1:]))


def refuting_conditions(conditions: tuple[Condition, ...]) -> tuple[Condition, ...]:
    """The conditions that can refute a state: no aggregate (point 2 above)."""
    return tuple(c for c in conditions if not has_aggregate(c))


def could_extend(expr: Node, conditions: tuple[Condition, ...], s: Stream, state: Tree | None,
                 e: Event, budget: Budget) -> bool:
    """Whether a run in ``state`` could take ``e`` (``conditions``: as
    :func:`refuting_conditions` keeps them, over positive variables)."""
    for tree in extensions(expr, state, e):
        budget.spend()
        if not shapes(expr, tree, s):
            continue
        m = bindings(expr, tree)
        assert m is not None
        gamma = substitution(m, s.events)
        if all(holds(c, gamma) for c in conditions if variables(c) <= gamma.keys()):
            return True
    return False
