"""``OR`` through the DNF of seed 003 Sec. 5 (the Lazy Multi-Chain NFA).

Sec. 5.2: "any Boolean statement can be converted to DNF"; each conjunct is a
disjunction-free pattern run by its own chain (:mod:`.chain`). Only the
conditions whose variables a conjunct declares apply to it (a condition over
an ``OR`` branch not taken does not apply, :mod:`kleene.reference.operators.matching`;
``docs/errata.md#seed-003-negation-or``). The DNF preserves skip-till-any-match
only (``docs/errata.md#seed-003-next-dnf``): the multi-chain computes Γ with
it, and ``next`` on the pattern's own runs (:func:`dnf_choices`, :mod:`.selection`).

Sec. 5.2 notes that the same match may be reported by two conjuncts; results
are sets, so the multi-chain reports each match once (:class:`Seen`).
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Sequence

from kleene.engines.spans import Window
from kleene.reference.conditions import Condition, variables
from kleene.reference.errors import Unsupported
from kleene.reference.match import Match
from kleene.reference.operators.pattern import (
    Conj,
    Disj,
    Kleene,
    Neg,
    Node,
    Primitive,
    Seq,
    walk,
)
from kleene.reference.operators.pattern import variables as node_variables

#: The most conjuncts a DNF may have before compile gives up.
MAX_CONJUNCTS = 256


def has_or(p: Node) -> bool:
    return any(isinstance(q, Disj) for q in walk(p))


#: Which part of each ``OR`` a conjunct took, in pre-order (the ``OR``\ s a walk of the
#: pattern meets, left to right, inside the parts taken).
Choices = tuple[int, ...]


def dnf(p: Node) -> list[Node]:
    """The disjunction-free conjuncts of ``p`` (Sec. 5.2), in order, duplicates dropped."""
    return list(dict.fromkeys(q for q, _ in _dnf(p)))


def dnf_choices(p: Node) -> list[tuple[Choices, ...]]:
    """For each conjunct of :func:`dnf` (same order), every choice of ``OR`` parts that
    yields it (two when ``OR(B b, B b)``): the pattern's runs a conjunct's run stands for."""
    out: dict[Node, list[Choices]] = {}
    for q, path in _dnf(p):
        out.setdefault(q, []).append(path)
    return [tuple(paths) for paths in out.values()]


def _dnf(p: Node) -> list[tuple[Node, Choices]]:
    if isinstance(p, Primitive):
        return [(p, ())]
    if isinstance(p, Disj):
        out = [(q, (j, *path)) for j, part in enumerate(p.parts) for q, path in _dnf(part)]
        if len(out) > MAX_CONJUNCTS:
            raise Unsupported(f"the DNF has more than {MAX_CONJUNCTS} conjuncts")
        return out
    if isinstance(p, (Neg, Kleene)):
        # OR under NOT or an iteration stays inside the sub-pattern (Sec. 5.2 distributes
        # OR over SEQ and AND only): its pieces take one part each (:mod:`.subpattern`)
        return [(p, ())]
    choices = [_dnf(q) for q in p.parts]
    total = 1
    for c in choices:
        total *= len(c)
    if total > MAX_CONJUNCTS:
        raise Unsupported(f"the DNF has {total} conjuncts (more than {MAX_CONJUNCTS})")
    cls = Seq if isinstance(p, Seq) else Conj
    return [(cls(tuple(q for q, _ in combo)), tuple(j for _, path in combo for j in path))
            for combo in itertools.product(*choices)]


def branch_conditions(branch: Node, conditions: Sequence[Condition]) -> tuple[Condition, ...]:
    """The conditions that apply to the matches of ``branch``."""
    declared = node_variables(branch)
    return tuple(c for c in conditions if variables(c) <= declared)


class Seen:
    """The matches reported so far, forgotten once no conjunct can report them again.

    Every conjunct reports a match at the latest when the first event after its
    first event's window arrives (:meth:`~.partial.Pending.due`), so after the
    event at ``ts`` a match whose first event is more than τ earlier is final.
    """

    def __init__(self, bound: Window | None) -> None:
        self.bound = bound
        self.seen: set[Match] = set()
        self.heap: list[tuple[float, int, Match]] = []
        self.tick = itertools.count()

    def first_time(self, m: Match, first: float) -> bool:
        """Whether ``m`` (whose first event is at ``first``) is new; remember it."""
        if m in self.seen:
            return False
        self.seen.add(m)
        if self.bound is not None:
            heapq.heappush(self.heap, (first, next(self.tick), m))
        return True

    def forget(self, ts: float) -> None:
        if self.bound is None:
            return
        while self.heap and not self.bound.fits(ts - self.heap[0][0]):
            self.seen.discard(heapq.heappop(self.heap)[2])
