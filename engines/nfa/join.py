"""The lazy chain over a loaded stream's columns: every state's buffer lookups at once.

Seed 003 Sec. 3: the chain takes the slots in ascending order of frequency;
entering state k, an instance looks into the buffer of σ(k+1)'s type for the
events that fit (strictly after the bound slots before it, strictly before
those after it, within the window). Over a loaded stream
(:attr:`~kleene.reference.events.Stream.columns`, or a source read in batches
of columns, its timestamps and types read whole first) the per-type buffers
are built from the columns (positions and timestamps as numpy arrays, no
event objects) and each state's lookups run for all its instances together: two
binary searches per instance (``np.searchsorted``) give the range of fitting
buffered events, and the instances of state k+1 are the ranges expanded.
Because the edge predicate is symmetric (Sec. 6: any order yields the same
complete instances), taking every event "from the buffer" instead of some
"on arrival" creates exactly the chain's instances, once each.

It runs the fragment where the lookups are the whole predicate (:func:`eligible`):
single events of pairwise distinct types (so never the same event twice), no
condition, no negation, a window; the policies ``any`` and ``contiguous``.
Counters: ``instances_created`` and ``predicate_evaluations`` as the chain
counts them (one per instance, one per edge tried), ``buffer_operations`` the
insertions (nothing expires: the buffers are the columns), ``peak_instances``
0 (no instance is kept from one event to the next).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from kleene.engines.nfa.partial import Plan
from kleene.engines.protocol import Counters
from kleene.reference.columnar import column_batches
from kleene.reference.match import Match

#: Rows per batch read.
ROWS = 65_536


def eligible(plan: Plan, policy: str) -> bool:
    """Whether :func:`run` computes ``plan`` exactly (see the module docstring)."""
    slots = plan.shape.slots
    types = [s.type for s in slots]
    return (policy in ("any", "contiguous") and plan.bound is not None
            and not plan.shape.negations and not plan.placed.final
            and not any(plan.placed.incremental)
            and all(t is not None and not s.iterated for t, s in zip(types, slots, strict=True))
            and len(set(types)) == len(types))


def read(events: Any) -> tuple[np.ndarray, Any] | None:
    """The timestamps (numpy) and types (Arrow) of every event of a loaded stream or a
    source read in batches of columns (:func:`~kleene.reference.columnar.column_batches`,
    read whole: two columns); ``None`` for events without columns or types."""
    batches = column_batches(events, ROWS)
    if batches is None:
        return None
    stamps, types, at = [], [], 0
    for start, part in batches:
        if part.types is None or start != at:
            raise ValueError("batches of columns must be consecutive and typed")
        stamps.append(np.asarray(part.ts.to_numpy()))
        types += part.types.chunks
        at += len(part)
    if not stamps:
        return np.zeros(0), pa.chunked_array([], pa.string())
    return np.concatenate(stamps), pa.chunked_array(types)


def typed(events: Any) -> bool:
    """Whether ``events`` has columns (loaded, or read in batches) with a type column."""
    columns = getattr(events, "columns", None)
    if columns is not None:
        return columns.types is not None
    return callable(getattr(events, "batches", None))


def frequencies(types: Any, plan: Plan) -> dict[str, float]:
    """Events per type of the plan's slots, counted on the type column."""
    counts = pc.value_counts(types).to_pylist()
    wanted = {s.type for s in plan.shape.slots}
    return {d["values"]: float(d["counts"]) for d in counts if d["values"] in wanted}


def run(ts_all: np.ndarray, types: Any, plan: Plan, sigma: tuple[int, ...],
        counters: Counters, contiguous: bool) -> Iterator[Match]:
    """Every match of ``plan`` over the columns ``ts_all`` and ``types`` (:func:`read`)
    by the chain σ (see the module docstring)."""
    n_rows = len(ts_all)
    counters.events_read += n_rows
    slots = plan.shape.slots
    pos: list[np.ndarray] = []
    times: list[np.ndarray] = []
    for slot in slots:
        mask = pc.fill_null(pc.equal(types, slot.type), False)
        p = np.flatnonzero(np.asarray(mask.to_numpy(zero_copy_only=False)))
        pos.append(p)
        times.append(ts_all[p])
    kept = sum(len(p) for p in pos)
    counters.events_filtered += n_rows - kept
    counters.buffer_operations += kept
    bound = plan.bound
    assert bound is not None
    first_slot = sigma[0]
    # idx[i]: for each instance, the index of slot i's event in its buffer (-1: unbound)
    m = len(pos[first_slot])
    idx = {first_slot: np.arange(m)}
    first = times[first_slot].astype(float)
    last = first.copy()
    counters.instances_created += m
    counters.predicate_evaluations += m
    for s in sigma[1:]:
        after = np.full(m, -np.inf)
        for t in plan.shape.before[s]:
            if t in idx:
                after = np.maximum(after, times[t][idx[t]])
        upto = np.full(m, np.inf)
        for t in plan.shape.after[s]:
            if t in idx:
                upto = np.minimum(upto, times[t][idx[t]])
        buf = times[s]
        lo = np.maximum(np.searchsorted(buf, after, "right"),
                        np.searchsorted(buf, last - bound, "left"))
        hi = np.minimum(np.searchsorted(buf, upto, "left"),
                        np.searchsorted(buf, first + bound, "right"))
        counts = np.maximum(hi - lo, 0)
        total = int(counts.sum())
        rep = np.repeat(np.arange(m), counts)
        starts = np.cumsum(counts) - counts
        new = lo[rep] + (np.arange(total) - starts[rep])
        idx = {t: i[rep] for t, i in idx.items()}
        idx[s] = new
        new_ts = buf[new]
        first = np.minimum(first[rep], new_ts)
        last = np.maximum(last[rep], new_ts)
        m = total
        counters.instances_created += total
        counters.predicate_evaluations += total
        if not m:
            return
    named = plan.named
    columns_of_positions = [pos[i][idx[i]].tolist() for _, i in named]
    names = [var for var, _ in named]
    for row in zip(*columns_of_positions, strict=True):
        if contiguous and max(row) - min(row) + 1 != len(row):
            continue
        yield Match(tuple((v, (p,)) for v, p in zip(names, row, strict=True)))
