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
the policies ``any`` and ``contiguous``; and two slots not ordered by ``SEQ``
never share a candidate (checked on the columns; so no event is taken twice).
Elsewhere the event-by-event chain (:mod:`.chain`) runs.

σ is the order of the given frequencies, else of the candidates' counts (a
slot's "event type" is its type and unary conditions: on the stock stream a
ticker; the order only changes the cost). Counters: ``instances_created`` and
``predicate_evaluations`` as the chain counts them (one per instance, one per
edge tried and per condition evaluated), ``buffer_operations`` the
insertions (nothing expires: the buffers are the columns),
``peak_instances`` 0 (no instance is kept from one event to the next). The
subsets of an iterated slot are counted before they are built: more than
the instance budget (:meth:`~.partial.Plan.check_budget`) raises
:class:`~kleene.reference.errors.BudgetExceeded`, as too many instances alive
do in the event-by-event chain.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from kleene.engines.nfa.chain import chain_order
from kleene.engines.nfa.columns import read_attributes
from kleene.engines.nfa.partial import Plan
from kleene.engines.protocol import Counters
from kleene.reference.columnar import Columns as EventColumns
from kleene.reference.columnar import column_batches
from kleene.reference.conditions import Condition
from kleene.reference.match import Match

#: Rows per batch read.
ROWS = 65_536
#: The largest ``m`` of an iterated slot ``B{l,m}`` enumerated over columns.
MAX_ITERATED = 8


def unary(plan: Plan, i: int) -> tuple[Condition, ...]:
    return tuple(c for c, slots in plan.placed.incremental[i] if slots == (i,))


def joint(plan: Plan) -> list[tuple[Condition, tuple[int, ...]]]:
    """The conditions over several slots, each once."""
    return list(dict.fromkeys(cs for per in plan.placed.incremental for cs in per
                              if len(cs[1]) > 1))


def eligible(plan: Plan, policy: str) -> bool:
    """Whether :func:`run` may compute ``plan`` (see the module docstring)."""
    from kleene.engines.nfa.gather import columnar

    slots = plan.shape.slots
    if (policy not in ("any", "contiguous") or plan.bound is None or plan.shape.negations
            or plan.placed.final):
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
    columns = getattr(events, "columns", None)
    if columns is not None:
        return columns.types is not None
    return callable(getattr(events, "batches", None))


@dataclass
class Scan:
    """Each slot's candidates: positions, timestamps, and (for the slots of a joint
    condition) their columns."""

    rows: int
    pos: list[np.ndarray]
    times: list[np.ndarray]
    columns: dict[int, Any]  # slot → gather.Candidates


def scan(events: Any, plan: Plan) -> Scan | None:
    """The candidates of every slot of ``plan`` over the columns of ``events``; ``None``
    when two slots not ordered by ``SEQ`` share a candidate, or the batches' columns
    differ in kind (then the event-by-event chain runs)."""
    from kleene.engines.nfa.gather import Candidates
    from kleene.engines.windows.columns import ArrowColumns

    batches = column_batches(events, ROWS)
    if batches is None:
        return None
    slots = plan.shape.slots
    conds = joint(plan)
    need = sorted({i for _, ss in conds for i in ss})
    read = read_attributes(c for c, _ in conds)
    pos: list[list[np.ndarray]] = [[] for _ in slots]
    times: list[list[np.ndarray]] = [[] for _ in slots]
    taken: dict[int, list[EventColumns]] = {i: [] for i in need}
    rows = 0
    for start, part in batches:
        n = len(part)
        rows += n
        stamps = np.asarray(part.ts.to_numpy())
        by_type: dict[str | None, np.ndarray] = {}
        for s in slots:
            if s.type not in by_type:
                by_type[s.type] = (np.ones(n, dtype=bool) if s.type is None
                                   else np.zeros(n, dtype=bool) if part.types is None
                                   else np.asarray(pc.fill_null(pc.equal(part.types, s.type),
                                                                False)
                                                   .to_numpy(zero_copy_only=False), dtype=bool))
            mask = by_type[s.type].copy()
            tests = unary(plan, s.index)
            if tests and mask.any():
                cols = ArrowColumns(part, s.var)
                for c in tests:
                    mask &= cols.holds(c)
            idx = np.flatnonzero(mask)
            pos[s.index].append(idx + start)
            times[s.index].append(stamps[idx])
            if s.index in taken:
                taken[s.index].append(_take(part, idx, read))
    out = Scan(rows, [_cat(p, np.int64) for p in pos], [_cat(t, float) for t in times], {})
    for i, parts in taken.items():
        whole = _concat(parts)
        if whole is None:
            return None
        out.columns[i] = Candidates(whole)
    for s in slots:
        others = [t.index for t in slots[s.index + 1:]
                  if t.index not in plan.shape.before[s.index] | plan.shape.after[s.index]]
        if others:
            mine = np.zeros(rows, dtype=bool)
            mine[out.pos[s.index]] = True
            if any(mine[out.pos[t]].any() for t in others):
                return None
    return out


def _cat(parts: list[np.ndarray], dtype: Any) -> np.ndarray:
    return np.concatenate(parts).astype(dtype) if parts else np.zeros(0, dtype=dtype)


def _take(part: EventColumns, idx: np.ndarray, read: frozenset[str]) -> EventColumns:
    names = [n for n in part.attrs.column_names if n in read]
    take = pa.array(idx, type=pa.int64())
    return EventColumns(part.ts.take(take), None if part.types is None else part.types.take(take),
                        part.attrs.select(names).take(take),
                        {n: k for n, k in part.kinds.items() if n in read}, part.sparse & read)


def _concat(parts: list[EventColumns]) -> EventColumns | None:
    """The batches' candidates as one :class:`Columns` (``None``: their kinds differ)."""
    if not parts:
        return None
    first = parts[0]
    if any(p.kinds != first.kinds or p.attrs.schema != first.attrs.schema for p in parts):
        return None
    ts = pa.chunked_array([c for p in parts for c in p.ts.chunks], first.ts.type)
    types = (None if first.types is None else
             pa.chunked_array([c for p in parts for c in p.types.chunks],  # type: ignore[union-attr]
                              first.types.type))
    return EventColumns(ts, types, pa.concat_tables([p.attrs for p in parts]), first.kinds,
                        first.sparse)


def order(plan: Plan, found: Scan, frequencies: Mapping[str, float] | None) -> tuple[int, ...]:
    """σ: by the given frequencies, else by the slots' candidate counts."""
    if frequencies is not None:
        return chain_order(plan, frequencies)
    slots = plan.shape.slots
    return tuple(sorted(range(len(slots)),
                        key=lambda i: (slots[i].iterated, len(found.pos[i]), i)))


def run(found: Scan, plan: Plan, sigma: tuple[int, ...], counters: Counters,
        contiguous: bool) -> Iterator[Match]:
    """Every match of ``plan`` over the candidates ``found`` by the chain σ."""
    from kleene.engines.nfa.gather import InstanceColumns, count_subsets, subsets

    slots = plan.shape.slots
    counters.events_read += found.rows
    taken = np.zeros(found.rows, dtype=bool)
    for p in found.pos:
        taken[p] = True
    kept = int(np.count_nonzero(taken))
    counters.events_filtered += found.rows - kept
    counters.buffer_operations += kept
    bound = plan.bound
    assert bound is not None
    conds = joint(plan)
    # per slot bound so far: the candidate index per instance (2-D for an iterated slot)
    idx: dict[int, np.ndarray] = {}
    lo_ts: dict[int, np.ndarray] = {}  # the slot's first event's ts, per instance
    hi_ts: dict[int, np.ndarray] = {}  # its last event's ts
    m = 1
    first = np.full(1, np.inf)
    last = np.full(1, -np.inf)
    for k, s in enumerate(sigma):
        slot = slots[s]
        buf = found.times[s]
        after = np.full(m, -np.inf)
        for t in plan.shape.before[s]:
            if t in idx:
                after = np.maximum(after, hi_ts[t])
        upto = np.full(m, np.inf)
        for t in plan.shape.after[s]:
            if t in idx:
                upto = np.minimum(upto, lo_ts[t])
        lo = np.maximum(np.searchsorted(buf, after, "right"),
                        np.searchsorted(buf, last - bound, "left"))
        hi = np.minimum(np.searchsorted(buf, upto, "left"),
                        np.searchsorted(buf, first + bound, "right"))
        if k == 0:
            lo, hi = np.zeros(1, dtype=np.int64), np.full(1, len(buf), dtype=np.int64)
        if slot.iterated:
            assert slot.high is not None
            # the state's instances are held at once: the instance budget bounds them
            plan.check_budget(count_subsets(lo, hi, slot.low, slot.high))
            rep, chosen = subsets(lo, hi, slot.low, slot.high)
            width = (chosen >= 0).sum(axis=1)
            new_lo = buf[chosen[:, 0]] if len(rep) else np.zeros(0)
            new_hi = (buf[chosen[np.arange(len(rep)), width - 1]] if len(rep)
                      else np.zeros(0))
            counters.subsets += len(rep)
            counters.predicate_evaluations += int((width > 1).sum())
        else:
            counts = np.maximum(hi - lo, 0)
            total = int(counts.sum())
            rep = np.repeat(np.arange(m), counts)
            starts = np.cumsum(counts) - counts
            chosen = lo[rep] + (np.arange(total) - starts[rep])
            new_lo = new_hi = buf[chosen]
        first = np.minimum(first[rep], new_lo)
        last = np.maximum(last[rep], new_hi)
        keep = last - first <= bound
        idx = {t: i[rep] for t, i in idx.items()}
        lo_ts = {t: v[rep] for t, v in lo_ts.items()}
        hi_ts = {t: v[rep] for t, v in hi_ts.items()}
        idx[s], lo_ts[s], hi_ts[s] = chosen, new_lo, new_hi
        counters.predicate_evaluations += len(rep)
        for c, ss in conds:
            if s in ss and all(t in idx for t in ss):
                counters.predicate_evaluations += int(keep.sum())
                here = InstanceColumns(len(keep), {slots[t].var: (found.columns[t], idx[t])
                                                   for t in ss})
                keep &= here.holds(c)
        if not keep.all():
            idx = {t: i[keep] for t, i in idx.items()}
            lo_ts = {t: v[keep] for t, v in lo_ts.items()}
            hi_ts = {t: v[keep] for t, v in hi_ts.items()}
            first, last = first[keep], last[keep]
        m = len(first)
        counters.instances_created += m
        if not m:
            return
    yield from _matches(found, plan, idx, contiguous)


def _matches(found: Scan, plan: Plan, idx: dict[int, np.ndarray],
             contiguous: bool) -> Iterator[Match]:
    names = [var for var, _ in plan.named]
    columns: list[list[tuple[int, ...]]] = []
    for _, i in plan.named:
        p = found.pos[i]
        if idx[i].ndim == 1:
            columns.append([(x,) for x in p[idx[i]].tolist()])
        else:
            every = p.tolist()
            columns.append([tuple(every[j] for j in row if j >= 0)
                            for row in idx[i].tolist()])
    for row in zip(*columns, strict=True):
        if contiguous:
            every = [x for part in row for x in part]
            if max(every) - min(every) + 1 != len(every):
                continue
        yield Match(tuple(zip(names, row, strict=True)))
