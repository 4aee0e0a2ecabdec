"""The marks of a group of SRT runs, shared as a DAG: seed 004, report Alg. 1 (Sec. 4.3),
the ``M`` of a configuration ``(q, v, M)`` (Defs. 21–24).

Runs that agree on state and registers take the same transitions from then on and
differ only in the positions they marked; :class:`Marks` keeps those alternatives as
one DAG, so that their 2^n subsets are listed only when a run reports
(:func:`reported`, :func:`expand`). Used by the streaming run
(:mod:`kleene.engines.srt.execution`), the column-wise agenda
(:mod:`kleene.engines.srt.agenda`) and the tracer (:mod:`kleene.engines.srt.trace`).
"""

from __future__ import annotations

from kleene.reference.budget import Budget
from kleene.reference.match import Match

#: What :func:`expand` holds against a budget (docs/architecture.md, "Engine budgets").
HELD = "SRT sets of marked positions listed at once (a star over marks makes one per subset)"


class Marks:
    """The marks of a group of runs, shared as a DAG (so that runs which agree on state
    and registers are one group, and their 2^n subsets of marks are never listed until a
    report needs them): ``ROOT`` (nothing marked), ``Marks(k, prev)`` (position ``k``
    after any of ``prev``), or a union of alternatives (``k is None``)."""

    __slots__ = ("k", "prev")

    def __init__(self, k: int | None, prev: tuple[Marks, ...]) -> None:
        self.k = k
        self.prev = prev


ROOT = Marks(None, ())


def union(parts: list[Marks]) -> Marks:
    """One :class:`Marks` for several alternatives (the part itself when there is one).
    Unions are kept flat and free of repeats, so that a group which lives for many
    elements does not nest unions ever deeper: the depth of the DAG is at most twice
    the number of marks of a run."""
    if len(parts) == 1:
        return parts[0]
    flat: dict[int, Marks] = {}
    for p in parts:
        if p.k is None and p is not ROOT:
            for q in p.prev:
                flat[id(q)] = q
        else:
            flat[id(p)] = p
    if len(flat) == 1:
        return next(iter(flat.values()))
    return Marks(None, tuple(flat.values()))


def expand(m: Marks, memo: dict[int, set[tuple[int, ...]]],
           budget: Budget | None = None) -> set[tuple[int, ...]]:
    """Every set of positions ``m`` stands for, as increasing tuples; ``budget``'s limit
    bounds how many one node stands for (:meth:`~kleene.reference.budget.Budget.hold`)."""
    found = memo.get(id(m))
    if found is not None:
        return found
    if m is ROOT:
        found = {()}
    elif m.k is None:
        found = set().union(*(expand(p, memo, budget) for p in m.prev))
    else:
        k = m.k
        found = {t + (k,) for t in expand(m.prev[0], memo, budget)}
    if budget is not None:
        budget.hold(len(found), HELD)
    memo[id(m)] = found
    return found


def reported(reports: list[Marks], budget: Budget | None = None) -> list[Match]:
    """The matches of the runs that report on one element (each set of marks once),
    in order, within ``budget`` (:func:`expand`)."""
    if not reports:
        return []
    memo: dict[int, set[tuple[int, ...]]] = {}
    found = set().union(*(expand(m, memo, budget) for m in reports))
    if budget is not None:
        budget.hold(len(found), HELD)
    return [Match.marked(m) for m in sorted(found)]

