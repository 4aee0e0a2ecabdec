"""The policies as filters on Γ over the chain's columns (:mod:`.join`), no event built.

Every policy of the operator reference is a predicate over Γ and the stream
(:mod:`kleene.reference.operators.policies`; :mod:`.selection` applies them
event by event). Over columns, :func:`keep_of` gives the filter :func:`.join.run`
applies to a piece's complete instances:

- ``contiguous``: every position from the first to the last is bound
  (:meth:`~kleene.engines.match_columns.MatchColumns.contiguous`);
- ``partition-contiguous``: :func:`~kleene.reference.policies.is_contiguous` over
  the match's part (Def. 6's ``X``, :func:`.keyed.key_attributes`): with no ``X``
  as ``contiguous``; else each candidate carries its rank among the rows of its
  part (every row of the stream counted, :class:`.keyed.Keys`), and a match's
  events, all of one part, are every event of the part from its first to its last
  iff the ranks of its first and last differ by its events less one;
- ``next`` for a sequence of single events ``SEQ(A1 a1, ..., Ak ak)`` (no
  iteration, no ``AND``, no ``OR``, no negation): a run's state before an event
  is the prefix ``a1..aj`` bound before it, and
  :func:`~kleene.reference.operators.prefixes.could_extend` holds of an event ``e``
  iff ``e`` can be ``a(j+1)`` after them (an event into a later slot leaves the
  sequence not viable): of its type and unary conditions (a candidate of slot
  j+1), strictly later than ``aj``, and every condition whose variables are among
  ``a1..a(j+1)`` holds. So the match is kept iff for each j no candidate of slot
  j+1 between ``aj`` and ``a(j+1)`` (later than ``aj`` in ``ts``, earlier in
  position than ``a(j+1)``) satisfies the conditions over ``a1..aj`` and it; those
  candidates are looked up among ``a(j+1)``'s part only where ``X``'s equalities
  among ``a1..a(j+1)`` relate it to the prefix (every other candidate fails them),
  else among all. An event of no candidate cannot extend the run: it never
  becomes an object, nor is it read.

Elsewhere (:func:`keep_of` ``None``) the event-by-event NFA with :mod:`.selection` runs.
"""

from __future__ import annotations

import numpy as np

from kleene.engines.match_columns import MatchColumns
from kleene.engines.nfa.gather import InstanceColumns
from kleene.engines.nfa.join import Keep, Scan, joint
from kleene.engines.nfa.keyed import key_attributes
from kleene.engines.nfa.partial import Plan
from kleene.reference.conditions import Condition, variables
from kleene.reference.durations import Duration
from kleene.reference.operators.matching import positive_conditions
from kleene.reference.operators.pattern import OperatorPattern, Primitive, Seq
from kleene.reference.ses.partitioning import connects_all, equality_relationships
from kleene.reference.ses.pattern import SESPattern, Variable

#: One step of ``next``'s check: the previous slot, the slot, the conditions to
#: evaluate on a candidate between them, whether its part alone is looked up.
Step = tuple[int, int, list[tuple[Condition, tuple[int, ...]]], bool]


def keep_of(pattern: OperatorPattern, plan: Plan, policy: str) -> Keep | None:
    """The filter of ``policy`` over the chain's instances (:data:`~.join.Keep`), ``None``
    where the columns cannot decide it."""
    if policy == "any":
        return _every
    if policy == "contiguous":
        return _contiguous
    keys = key_attributes(pattern, plan)
    if policy == "partition-contiguous":
        return _contiguous if not keys else _partition_contiguous
    if policy == "next":
        steps = next_steps(pattern, plan, keys)
        return None if steps is None else _next(plan, steps)
    return None


def _every(found: Scan, idx: dict[int, np.ndarray], matches: MatchColumns) -> None:
    return None


def _contiguous(found: Scan, idx: dict[int, np.ndarray], matches: MatchColumns) -> np.ndarray:
    return matches.contiguous()


def _partition_contiguous(found: Scan, idx: dict[int, np.ndarray],
                          matches: MatchColumns) -> np.ndarray:
    """Single events of one part (the keyed slots; no iteration is keyed: an iterated
    variable is in no equality of the chain over columns)."""
    assert found.ranks is not None
    ranks = [found.ranks[s][i] for s, i in idx.items()]
    return np.maximum.reduce(ranks) - np.minimum.reduce(ranks) + 1 == len(ranks)


def next_steps(pattern: OperatorPattern, plan: Plan, keys: tuple[str, ...]
               ) -> list[Step] | None:
    """The checks of ``next`` (see the module docstring), ``None`` outside a sequence
    of single events."""
    expr = pattern.expr
    parts = (expr,) if isinstance(expr, Primitive) else expr.parts if isinstance(expr, Seq) else ()
    if not parts or not all(isinstance(p, Primitive) for p in parts):
        return None
    slot_of = {s.var: s.index for s in plan.shape.slots}
    if any(s.iterated for s in plan.shape.slots) or len(slot_of) != len(parts):
        return None
    chain = [slot_of[p.var] for p in parts if isinstance(p, Primitive)]
    names = {s.index: s.var for s in plan.shape.slots}
    equal = [(a, b, attr) for a, b, attr in _equalities(pattern, plan) if attr in keys]
    steps: list[Step] = []
    for j in range(1, len(chain)):
        s, prefix = chain[j], set(chain[:j])
        checks = [(c, ss) for c, ss in joint(plan) if s in ss and set(ss) <= prefix | {s}]
        bound = [names[t] for t in chain[:j + 1]]
        keyed = bool(keys) and all(
            connects_all(bound, [(a, b) for a, b, attr in equal if attr == x
                                 and a in bound and b in bound]) for x in keys)
        steps.append((chain[j - 1], s, checks, keyed))
    return steps


def _equalities(pattern: OperatorPattern, plan: Plan) -> list[tuple[str, str, str]]:
    """The equalities ``vi.A = vj.A`` among the plan's variables (Def. 6's Θeq)."""
    names = {s.var for s in plan.shape.slots}
    conditions = tuple(c for c in positive_conditions(pattern) if variables(c) <= names)
    return equality_relationships(SESPattern(tuple((Variable(s.var),) for s in plan.shape.slots),
                                             conditions, Duration(0)))


def _next(plan: Plan, steps: list[Step]) -> Keep:
    def keep(found: Scan, idx: dict[int, np.ndarray], matches: MatchColumns) -> np.ndarray:
        n = len(next(iter(idx.values())))
        skipped = np.zeros(n, dtype=bool)
        for prev, s, checks, keyed in steps:
            skipped |= _skipped(found, plan, idx, prev, s, checks, keyed)
        return ~skipped
    return keep


def _skipped(found: Scan, plan: Plan, idx: dict[int, np.ndarray], prev: int, s: int,
             checks: list[tuple[Condition, tuple[int, ...]]], keyed: bool) -> np.ndarray:
    """Per instance, whether a candidate of slot ``s`` between the events of ``prev`` and
    ``s`` could have been taken instead (see the module docstring)."""
    after = found.times[prev][idx[prev]]
    view = found.view
    if keyed and view is not None:
        part = view.codes[s][idx[s]]
        lo = np.searchsorted(view.sorted[s], part * view.width + view.after(after), "left")
        hi = view.place[s][idx[s]]
        order: np.ndarray | None = view.order[s]
    else:
        lo = np.searchsorted(found.times[s], after, "right")
        hi = idx[s]
        order = None
    counts = np.maximum(hi - lo, 0)
    n = len(counts)
    if not checks or not counts.any():
        return counts > 0
    rep = np.repeat(np.arange(n), counts)
    starts = np.cumsum(counts) - counts
    between = lo[rep] + (np.arange(int(counts.sum())) - starts[rep])
    if order is not None:
        between = order[between]
    ok = np.ones(len(rep), dtype=bool)
    slots = plan.shape.slots
    for c, ss in checks:
        here = InstanceColumns(len(rep), {
            slots[t].var: (found.columns[t], between if t == s else idx[t][rep]) for t in ss})
        ok &= here.holds(c)
    return np.bincount(rep[ok], minlength=n) > 0

