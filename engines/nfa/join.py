"""The lazy chain over a loaded stream's columns: every state's buffer lookups at once.

Seed 003 Sec. 3: the chain takes the slots in ascending order of frequency;
entering state k, an instance looks into the buffer of σ(k+1)'s type for the
events that fit (strictly after the bound slots before it, strictly before
those after it, within the window) and evaluates the edge's predicate on
them. Over a loaded stream (:attr:`~kleene.reference.events.Stream.columns`,
or a source read in batches of columns) the buffers are built from the
columns without event objects: each slot's *candidates* are the rows of its
type that satisfy its unary conditions (Arrow kernels, the reference's
three-valued semantics, as :mod:`.columns` filters), as arrays of positions
and timestamps. Then each state's lookups run for all its instances together:
two binary searches per instance (``np.searchsorted``) give the range of
fitting candidates, the instances of state k+1 are the ranges expanded (for an
iterated slot, Sec. 4.5, every subset of ``l..m`` of them, :func:`.gather.subsets`),
and a condition over several variables is evaluated over the new instances
as soon as its last variable is bound (:class:`.gather.InstanceColumns`).
Because the edge predicate is symmetric (Sec. 6: any order yields the same
complete instances), taking every event "from the buffer" instead of some
"on arrival" creates exactly the chain's instances, once each.

The fragment (:func:`eligible`, then :func:`scan` at run time): a window; no
negation; no ``prev`` or aggregate (conditions on the complete match); the
other conditions comparisons of attributes and constants, those over an
iterated variable unary; iterations bounded (``{l,m}``, m ≤ :data:`MAX_ITERATED`);
the policies ``any`` and ``contiguous``. Two slots not ordered by ``SEQ`` that
may take the same event bind distinct ones (:func:`_distinct`, the edge
predicate's distinctness). Elsewhere the event-by-event chain (:mod:`.chain`)
runs. The candidates are held in pieces bounded by the window
(:mod:`.pieces`), each reporting the matches whose first timestamp is in its
range; :func:`run` computes one piece.

σ is the order of the given frequencies, else of the candidates' counts (a
slot's "event type" is its type and unary conditions: on the stock stream a
ticker; the order only changes the cost). Counters: ``instances_created`` and
``predicate_evaluations`` as the chain counts them (one per instance, one per
edge tried and per condition evaluated), ``buffer_operations`` the
insertions (a piece's candidates are dropped at once, uncounted),
``peak_instances`` 0 (no instance is kept from one event to the next). The
subsets of an iterated slot are counted before they are built: more than
the instance budget (:meth:`~.partial.Plan.check_budget`) raises
:class:`~kleene.reference.errors.BudgetExceeded`, as too many instances alive
do in the event-by-event chain.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from kleene.data.source import columns_of_source, reads_in_batches
from kleene.engines.match_columns import MatchColumns, offsets_of
from kleene.engines.nfa.chain import chain_order
from kleene.engines.nfa.gather import InstanceColumns, columnar, count_subsets, subsets
from kleene.engines.nfa.keyed import KeyedView
from kleene.engines.nfa.partial import Plan
from kleene.engines.protocol import Counters
from kleene.engines.spans import Window, searched, spans_of
from kleene.reference.conditions import Condition
from kleene.reference.durations import span_bound

#: The largest ``m`` of an iterated slot ``B{l,m}`` enumerated over columns.
MAX_ITERATED = 8


def unary(plan: Plan, i: int) -> tuple[Condition, ...]:
    return tuple(c for c, slots in plan.placed.incremental[i] if slots == (i,))


def joint(plan: Plan) -> list[tuple[Condition, tuple[int, ...]]]:
    """The conditions over several slots, each once."""
    return list(dict.fromkeys(cs for per in plan.placed.incremental for cs in per
                              if len(cs[1]) > 1))


def eligible(plan: Plan) -> bool:
    """Whether :func:`run` may compute ``plan`` (see the module docstring; the policy's
    filter over the instances is :mod:`.policy_columns`')."""
    slots = plan.shape.slots
    if plan.bound is None or plan.shape.negations or plan.placed.final or plan.shape.units:
        return False
    for s in slots:
        if s.iterated and (s.low < 1 or s.high is None or s.high > MAX_ITERATED):
            return False
    if all(s.iterated for s in slots):
        return False  # the first slot of σ is a single event: the window bounds the rest
    conds = [c for per in plan.placed.incremental for c, _ in per]
    if not all(columnar(c) for c in conds):
        return False
    return not any(slots[i].iterated for _, ss in joint(plan) for i in ss)


def typed(events: Any) -> bool:
    """Whether ``events`` has columns (loaded, or read in batches) with a type column."""
    columns = columns_of_source(events)
    if columns is not None:
        return columns.types is not None
    return reads_in_batches(events)


@dataclass
class Scan:
    """One piece of each slot's candidates (:func:`.pieces.pieces`): positions,
    timestamps, and (for the slots of a joint condition) their columns; the piece
    reports the matches whose first timestamp is in ``[lo, hi)``."""

    pos: list[np.ndarray]
    times: list[np.ndarray]
    columns: dict[int, Any]  # slot → gather.Candidates
    lo: int | float   # Python numbers (an int past 2**53 stays exact), or ±∞
    hi: int | float
    #: keyed (:mod:`.keyed`): per slot, each candidate's part and its rank in the part
    codes: list[np.ndarray] | None = None
    ranks: list[np.ndarray] | None = None
    view: KeyedView | None = None


def order(plan: Plan, found: Scan, frequencies: Mapping[str, float] | None) -> tuple[int, ...]:
    """σ: by the given frequencies, else by the slots' candidate counts."""
    if frequencies is not None:
        return chain_order(plan, frequencies)
    slots = plan.shape.slots
    return tuple(sorted(range(len(slots)),
                        key=lambda i: (slots[i].iterated, len(found.pos[i]), i)))


#: Which of a piece's matches a policy keeps: ``keep(found, idx, matches)``, a boolean
#: mask over ``matches`` (:func:`instances`' ``idx``, as columns), ``None`` for all.
Keep = Callable[[Scan, dict[int, np.ndarray], MatchColumns], np.ndarray | None]


def run(found: Scan, plan: Plan, sigma: tuple[int, ...], counters: Counters,
        keep: Keep | None = None) -> Iterator[MatchColumns]:
    """Every match of ``plan`` over the piece ``found`` by the chain σ whose first
    timestamp is in ``[found.lo, found.hi)`` that ``keep`` keeps (the policy's,
    :mod:`.policy_columns`), as columns (none, or one batch)."""
    idx = instances(found, plan, sigma, counters)
    if idx is None:
        return
    matches = _columns(found, plan, idx)
    kept = None if keep is None else keep(found, idx, matches)
    yield matches if kept is None else matches.take(kept)


def instances(found: Scan, plan: Plan, sigma: tuple[int, ...], counters: Counters
              ) -> dict[int, np.ndarray] | None:
    """The complete instances of the chain σ over ``found`` whose first timestamp is in
    ``[found.lo, found.hi)``: per slot, each instance's candidate index (held order;
    2-D, ``-1``-padded, for an iterated slot); ``None`` if there is none. Over keyed
    candidates (:mod:`.keyed`) every state after σ's first looks up its own part only."""
    slots = plan.shape.slots
    shared = _sharing(plan)
    bound = plan.bound
    assert bound is not None
    conds = joint(plan)
    # per slot bound so far: the candidate index per instance (2-D for an iterated slot)
    idx: dict[int, np.ndarray] = {}
    lo_ts: dict[int, np.ndarray] = {}  # the slot's first event's ts, per instance
    hi_ts: dict[int, np.ndarray] = {}  # its last event's ts
    m = 1
    part = np.zeros(1, dtype=np.int64)   # keyed: the part of each instance
    # the instances' first and last timestamps, in the column's own dtype (an int64
    # column stays exact past 2**53: no float sentinel is mixed in; spans.searched)
    first = last = found.times[sigma[0]][:0] if sigma else np.zeros(0)
    for k, s in enumerate(sigma):
        slot = slots[s]
        buf = found.times[s]
        view = found.view
        if k == 0:  # σ's first event fits with the match's first one, in [lo, hi)
            lo = searched(buf, [found.lo], "left")
            hi = searched(buf, [bound.latest(found.hi) if math.isfinite(found.hi)
                                else found.hi], "right")
        elif view is None:  # the events that fit with the instance's first and last
            lo, hi = _fitting(bound, plan, s, buf, first, last, idx, lo_ts, hi_ts)
        else:  # the same, by rank among the piece's timestamps, in the instance's part
            lo, hi = view.range(s, part, *_fitting(bound, plan, s, view.stamps, first, last,
                                                   idx, lo_ts, hi_ts))
        if slot.iterated:
            assert slot.high is not None
            # the state's instances are held at once: the instance budget bounds them
            plan.check_budget(count_subsets(lo, hi, slot.low, slot.high))
            rep, chosen = subsets(lo, hi, slot.low, slot.high)
            if k and view is not None:   # keyed index → held index (a part's, in order)
                chosen = np.where(chosen >= 0, view.order[s][np.maximum(chosen, 0)], -1)
            width = (chosen >= 0).sum(axis=1)
            new_lo = buf[chosen[:, 0]] if len(rep) else buf[:0]
            new_hi = (buf[chosen[np.arange(len(rep)), width - 1]] if len(rep)
                      else buf[:0])
        else:
            counts = np.maximum(hi - lo, 0)
            total = int(counts.sum())
            rep = np.repeat(np.arange(m), counts)
            starts = np.cumsum(counts) - counts
            chosen = lo[rep] + (np.arange(total) - starts[rep])
            if k and view is not None:
                chosen = view.order[s][chosen]   # keyed index → held index
            new_lo = new_hi = buf[chosen]
        if view is not None:   # the part of each instance: its first slot's
            part = view.codes[s][chosen] if k == 0 else part[rep]
        first = new_lo if k == 0 else np.minimum(first[rep], new_lo)
        last = new_hi if k == 0 else np.maximum(last[rep], new_hi)
        # the window; a match of another piece: its first ts is before lo already, or
        # at or after hi (it fits with last: at least earliest(last))
        keep = (bound.fits_array(spans_of(last, first)) & (first >= found.lo)
                & _starts_before(bound, last, found.hi))
        # counted in the piece that holds the instance's first ts only (pieces overlap)
        ours = (first >= found.lo) & (first < found.hi)
        if slot.iterated:
            counters.subsets += int(ours.sum())
            counters.predicate_evaluations += int((ours & (width > 1)).sum())  # the window
        idx = {t: i[rep] for t, i in idx.items()}
        lo_ts = {t: v[rep] for t, v in lo_ts.items()}
        hi_ts = {t: v[rep] for t, v in hi_ts.items()}
        idx[s], lo_ts[s], hi_ts[s] = chosen, new_lo, new_hi
        counters.predicate_evaluations += int(ours.sum())
        if k == len(sigma) - 1:
            keep &= first < found.hi
        for t in shared[s]:
            if t in idx:
                keep &= _distinct(found, s, idx[s], t, idx[t])
        for c, ss in conds:
            if s in ss and all(t in idx for t in ss):
                counters.predicate_evaluations += int((keep & ours).sum())
                here = InstanceColumns(len(keep), {slots[t].var: (found.columns[t], idx[t])
                                                   for t in ss})
                keep &= here.holds(c)
        if not keep.all():
            idx = {t: i[keep] for t, i in idx.items()}
            lo_ts = {t: v[keep] for t, v in lo_ts.items()}
            hi_ts = {t: v[keep] for t, v in hi_ts.items()}
            first, last = first[keep], last[keep]
            if view is not None:
                part = part[keep]
        m = len(first)
        counters.instances_created += int(((first >= found.lo) & (first < found.hi)).sum())
        if not m:
            return None
    return idx


def _fitting(bound: Window, plan: Plan, s: int, buf: np.ndarray, first: np.ndarray,
             last: np.ndarray, idx: dict[int, np.ndarray], lo_ts: dict[int, np.ndarray],
             hi_ts: dict[int, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Per instance, the range ``[lo, hi)`` of the sorted timestamps ``buf`` that slot
    ``s`` may take: within the window of the instance's first and last events
    (spans.py), strictly after the bound slots before it, strictly before those after."""
    lo = bound.starts(buf, last)
    hi = bound.ends(buf, first)
    for t in plan.shape.before[s]:
        if t in idx:
            lo = np.maximum(lo, np.searchsorted(buf, hi_ts[t], "right"))
    for t in plan.shape.after[s]:
        if t in idx:
            hi = np.minimum(hi, np.searchsorted(buf, lo_ts[t], "left"))
    return lo, hi


def _starts_before(bound: Window, last: np.ndarray, hi: int | float) -> np.ndarray:
    """Per instance, whether ``earliest(last) < hi``: exactly for an int64 column
    (``last − b < hi ⇔ last < hi + b``, b the window's integer span bound: Python ints,
    no saturation), by the column bound for floats."""
    if last.dtype.kind == "i" and not math.isinf(hi):
        return last < hi + int(span_bound(bound.tau, bound.reading, int))
    return bound.earliests(last) < hi


def _sharing(plan: Plan) -> list[list[int]]:
    """Per slot, the slots ``SEQ`` does not order with it that may take the same event
    (of its type, or of any type): their events must differ (the edge predicate's
    "distinct from the bound events", :meth:`~.partial.Plan.admits`)."""
    shape = plan.shape
    slots = shape.slots
    return [[t.index for t in slots if t.index != s.index
             and t.index not in shape.before[s.index] | shape.after[s.index]
             and (s.type is None or t.type is None or s.type == t.type)]
            for s in slots]


def _distinct(found: Scan, s: int, i: np.ndarray, t: int, j: np.ndarray) -> np.ndarray:
    """Per instance, whether slots ``s`` and ``t`` (candidate indices ``i``, ``j``; 2-D
    ``-1``-padded for an iterated slot) bound no event in common."""
    a = _positions(found.pos[s], i, -1)
    b = _positions(found.pos[t], j, -2)
    return ~(a[:, :, None] == b[:, None, :]).any(axis=(1, 2))


def _positions(pos: np.ndarray, i: np.ndarray, pad: int) -> np.ndarray:
    rows = i if i.ndim == 2 else i[:, None]
    if not len(pos):
        return np.full(rows.shape, pad, dtype=np.int64)
    return np.where(rows >= 0, pos[np.maximum(rows, 0)], pad)


def _columns(found: Scan, plan: Plan, idx: dict[int, np.ndarray]) -> MatchColumns:
    """The instances' matches as columns: each variable's positions per instance (its
    candidates' positions; an iterated slot's ``-1``-padded rows give each instance's
    bound ones)."""
    offsets, positions = [], []
    for _, i in plan.named:
        p, rows = found.pos[i], idx[i]
        if rows.ndim == 1:
            offsets.append(np.arange(len(rows) + 1, dtype=np.int64))
            positions.append(p[rows].astype(np.int64))
        else:
            bound = rows >= 0
            offsets.append(offsets_of(bound.sum(axis=1)))
            positions.append(p[rows[bound]].astype(np.int64))
    return MatchColumns(tuple(var for var, _ in plan.named), tuple(offsets), tuple(positions))
