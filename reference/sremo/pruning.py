"""Pruning soundness for SREMO expressions (seed 004), per policy.

The three cuts of seed 001 Sec. 4 (:mod:`kleene.reference.pruning`), argued
for the SREMO reference (:mod:`kleene.reference.sremo.streaming`,
:mod:`kleene.reference.sremo.semantics`); strategies are rewritten first
(:func:`~kleene.reference.sremo.strategies.rewrite`).
``tests/test_spark_pruning.py`` checks each permitted step against the reference.

Only the normative ``stream`` policy is cut: ``literal`` (Def. 18 read
literally) matches the whole string, so nothing may be removed from it.

**Slices.** Under ``stream``, a match M is reported at ``k = max(M)`` for some
start ``j``: it reads ``S_j..max(M)``. A top-level window bounds
``max(M) − min(M)`` (Def. 39: ``[1..w]`` in positions, ``[WITHIN τ]`` in time),
and :func:`lead` bounds ``min(M) − j``, the elements read before the first
marked one (a leading ``Star`` that marks and writes nothing reads any prefix,
so it is dropped first: the detection already tries every start ``j``). A count
window ``[1..w]`` therefore allows slices *by position* holding
``[start − L·w, end + w]`` with ``L = ⌈lead / w⌉``; a time window allows slices by
timestamp with ``L = 0`` only when nothing is read before the first mark.

**Filtering** by the head-only conjuncts every marking atom needs (an event
failing all of them is never marked): sound only in *gap form*, where every
unmarked element is read by a gap ``(⊤↑⊗)*`` between two marking atoms
(:func:`gap_form`, e.g. ``⟲(e1, ..., en)`` of Def. 44 over atoms): then an
unmarkable element can be removed or inserted between marks without changing
any match, and no register is written by it. Not with a count window, whose
spans count the removed positions.

**Partitioning**: not worked out (a gap reads events of every key); none.
"""

from __future__ import annotations

import math

from kleene.reference.conditions import TRUE, Condition, conjunction, conjuncts, disjunction, rename
from kleene.reference.pruning import Pruning
from kleene.reference.ses.filtering import EVENT
from kleene.reference.sremo.expressions import (
    HEAD,
    SKIP,
    Atom,
    Choice,
    Concat,
    Empty,
    Epsilon,
    Expr,
    Intersect,
    Partition,
    Star,
    Window,
    reads,
    walk,
    written,
)
from kleene.reference.sremo.strategies import rewrite

INFINITE = math.inf


def max_length(e: Expr) -> float:
    """The most elements a string of ``Lang(e)`` holds (``inf``: unbounded)."""
    if isinstance(e, Atom):
        return 1
    if isinstance(e, (Epsilon, Empty)):
        return 0
    if isinstance(e, Concat):
        return sum(max_length(p) for p in e.parts)
    if isinstance(e, Choice):
        return max(max_length(p) for p in e.parts)
    if isinstance(e, Star):
        return 0 if max_length(e.body) == 0 else INFINITE
    if isinstance(e, Window):
        return max_length(e.body)
    if isinstance(e, Intersect):
        return min(max_length(p) for p in e.parts)
    return INFINITE   # Not (a complement), Strategy (rewritten before)


def surely_marked(e: Expr) -> bool:
    """Whether every match of ``e`` marks an element."""
    if isinstance(e, Atom):
        return e.marked
    if isinstance(e, (Concat, Intersect)):
        return any(surely_marked(p) for p in e.parts)
    if isinstance(e, Choice):
        return all(surely_marked(p) for p in e.parts)
    if isinstance(e, Window):
        return surely_marked(e.body)
    return isinstance(e, Empty)


def _absorbable(e: Expr) -> bool:
    """A leading part the detection may skip: a ``Star`` that marks and writes nothing."""
    return isinstance(e, Star) and not written(e) and not _marks(e)


def _marks(e: Expr) -> bool:
    return any(isinstance(a, Atom) and a.marked for a in walk(e))


def lead(e: Expr) -> float:
    """An upper bound of ``min(M) − j`` over the matches M ≠ ∅ of ``e`` on ``S_j..k``
    (``inf``: unbounded); 0 for an expression that marks nothing."""
    if isinstance(e, Concat):
        worst: float = 0
        before: float = 0
        for p in e.parts:
            if _marks(p):
                worst = max(worst, before + lead(p))
            if surely_marked(p):
                return worst
            before += max_length(p)
        return worst
    if isinstance(e, Choice):
        return max(lead(p) for p in e.parts)
    if isinstance(e, Star):
        if not _marks(e.body):
            return 0
        return lead(e.body) if surely_marked(e.body) or max_length(e.body) == 0 else INFINITE
    if isinstance(e, Window):
        return lead(e.body)
    if isinstance(e, Intersect):
        return min(lead(p) for p in e.parts)
    return 0   # an atom, ϵ, ∅, or a negation (it marks nothing)


def detected_body(e: Expr) -> Expr:
    """``e`` without the leading parts the streaming detection makes redundant
    (:func:`_absorbable`), inside a top-level window too."""
    if isinstance(e, Window):
        return Window(detected_body(e.body), e.width)
    if isinstance(e, Concat):
        parts = list(e.parts)
        while len(parts) > 1 and _absorbable(parts[0]):
            parts.pop(0)
        return parts[0] if len(parts) == 1 else Concat(tuple(parts))
    return e


def _is_gap(e: Expr) -> bool:
    return e == Star(SKIP)


def gap_form(e: Expr) -> bool:
    """Whether every unmarked element of a match is read by a gap ``(⊤↑⊗)*`` that lies
    between two marking atoms, or before the first one (see the module docstring)."""
    if isinstance(e, Window):
        return e.is_time and gap_form(e.body)
    if isinstance(e, Choice):
        return all(gap_form(p) for p in e.parts)
    if isinstance(e, Atom):
        return e.marked
    if not isinstance(e, Concat):
        return False
    parts = list(e.parts)
    if parts and _is_gap(parts[0]):
        parts.pop(0)
    if not parts or len(parts) % 2 == 0:
        return False
    marks, gaps = parts[0::2], parts[1::2]
    return all(isinstance(a, Atom) and a.marked for a in marks) and all(map(_is_gap, gaps))


def head_condition(e: Expr, var: str = EVENT) -> Condition:
    """The disjunction, over the marking atoms, of the conjuncts of their guards that
    read the head alone, renamed to ``var`` (``TRUE`` when one has none)."""
    parts: list[Condition] = []
    for a in walk(e):
        if not (isinstance(a, Atom) and a.marked):
            continue
        own = [rename(c, {HEAD: var}) for c in conjuncts(a.condition) if not reads(c)]
        part = conjunction(own)
        if part == TRUE:
            return TRUE
        if part not in parts:
            parts.append(part)
    return disjunction(parts)


def pruning(e: Expr, policy: str) -> Pruning:
    """Which of filtering, partitioning and slices keep ``policy``'s matches of ``e``."""
    if policy != "stream":
        return Pruning(policy, notes=(f"no pruning: {policy!r} matches the whole string",))
    if isinstance(e, Partition):
        return _partition(e, policy)
    body = detected_body(rewrite(e))
    notes = []
    condition: Condition | None = None
    if gap_form(body):
        condition = head_condition(body)
        if condition == TRUE:
            condition = None
            notes.append("filter: none, a marking atom reads more than the head")
        else:
            notes.append("filter: the head conditions of the marking atoms (gap form)")
    else:
        notes.append("filter: not applied, unmarked elements are read outside gaps "
                     "(or a count window counts them)")
    notes.append("partitions: none worked out for SREMO")
    reach: tuple[int, int] | None = None
    width = body.width if isinstance(body, Window) else None
    before = lead(body)
    if isinstance(width, int) and before < INFINITE:
        reach = (math.ceil(before / width), 1)
        notes.append(f"slices by position: sound if each holds [start − {reach[0]}·{width}, "
                     f"end + {width}] and owns the matches that start in it")
    elif width is not None and not isinstance(width, int) and before == 0:
        reach = (0, 1)
        notes.append("time slices: sound if each holds [start, end + 1τ] and owns the "
                     "matches that start in it")
    else:
        notes.append("slices: none, no top-level window bounds what a match reads")
        width = None
    return Pruning(policy, condition, (), reach, tuple(notes), window=width)


def _partition(e: Partition, policy: str) -> Pruning:
    """``body PARTITION BY a``: a match lies in one part, and each part is a stream, so
    the body's filter (a verdict per event) and its *time* slices (a match of a part
    reads only events within τ of its first) hold for the whole stream; the engine splits
    each slice into its parts. Not its position slices (a count window counts the
    positions of the part, not of the stream), and not keys: an event missing ``a`` is a
    part of its own (:func:`~kleene.reference.policies.part_of`) that Def. 6 keys drop."""
    inner = pruning(e.body, policy)
    timed = inner.window is not None and not isinstance(inner.window, int)
    notes = tuple(n for n in inner.notes if not n.startswith(("slices by position",
                                                              "partitions")))
    if not timed and inner.reach is not None:
        notes += ("slices: none, a count window counts the positions of each part",)
    return Pruning(policy, inner.filter, (), inner.reach if timed else None,
                   (f"parts: by {', '.join(e.by)} inside each slice (PARTITION BY)",) + notes,
                   window=inner.window)
