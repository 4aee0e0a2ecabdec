"""The NFAs' first filter, over the columns of a loaded stream (before any Python loop).

Seed 003 Sec. 3 buffers "each event type" of the pattern; an event of no
type of the pattern, or one that satisfies none of the unary conditions of
the slots of its type, can enable no edge: no instance takes it, no buffer
read admits it. Over a loaded stream (:attr:`~kleene.reference.events.Stream.columns`,
or a source read in batches) those rows are dropped with Arrow's kernels
(:class:`~kleene.engines.columns.ArrowColumns`, the reference's
three-valued semantics) and only the others become events, their positions
preserved, as the SES engines do (:func:`kleene.engines.ses.filter.candidates`).

The events are built with the attributes some condition of the pattern reads
only (:func:`read_attributes`): the NFAs read attributes through conditions
alone, and a match is positions.

Dropping them changes no match: timestamps do not decrease, so a window
only expires later what it would have expired at the dropped event; the
negated types are kept whole (a negated event forbids through its own
conditions, checked later); ``next`` reads only events some slot could take
(:mod:`.selection`), which pass. ``partition-contiguous`` reads every event
between a match's first and last one, so it runs without this filter. The
Tree NFA chooses its order from the buffers' sizes, which are then those of
the kept events: a different order, the same matches (Sec. 6).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np
import pyarrow.compute as pc

from kleene.data.columnar import Columns as EventColumns
from kleene.data.source import column_batches
from kleene.engines.columns import ArrowColumns
from kleene.engines.nfa.partial import Plan
from kleene.engines.protocol import Counters
from kleene.reference.conditions import Condition, subterms
from kleene.reference.events import Event
from kleene.reference.operators.pattern import primitives

#: Rows of a loaded stream filtered at once.
ROWS = 65_536

#: One way for a row to be kept: its type (``None``: any) and, over ``var``, the
#: unary conditions it must satisfy.
Test = tuple[str | None, str, tuple[Condition, ...]]


def tests(plans: Sequence[Plan]) -> list[Test] | None:
    """The tests a row must pass one of; ``None`` when every row passes one."""
    out: list[Test] = []
    for plan in plans:
        for s in plan.shape.slots:
            if s.unit is not None:  # the body's types, read by no unary condition here
                out += [(x.type, x.var, ()) for x in primitives(s.unit.body)]
                continue
            unary = tuple(c for c, slots in plan.placed.incremental[s.index]
                          if slots == (s.index,))
            out.append((s.type, s.var, unary))
        out += [(t, x.var, ()) for x in plan.shape.negations for t in sorted(
            x.types, key=lambda t: (t is None, t or ""))]
    if any(t is None and not conds for t, _, conds in out):
        return None
    return list(dict.fromkeys(out))


def read_attributes(conditions: Iterable[Condition]) -> frozenset[str]:
    """The attributes ``conditions`` read (through ``v.A``, ``prev(v.A)``, aggregates)."""
    return frozenset(a for c in conditions for t in subterms(c)
                     if (a := getattr(t, "attr", None)) is not None)


def kept_events(events: Iterable[Event], plans: Sequence[Plan], conditions: Sequence[Condition],
                counters: Counters) -> Iterator[Event] | None:
    """The events of ``events`` that pass one of :func:`tests`, filtered over columns
    (``events_read`` and ``events_filtered`` counted), with the attributes that
    ``conditions`` (the pattern's) read; ``None`` without columns."""
    checks = tests(plans)
    if checks is None:
        return None
    batches = column_batches(events, ROWS)
    if batches is None:
        return None
    return _rows(batches, checks, read_attributes(conditions), counters)


def _projected(part: EventColumns, read: frozenset[str]) -> EventColumns:
    """``part`` with the attribute columns in ``read`` only."""
    names = [n for n in part.attrs.column_names if n in read]
    return EventColumns(part.ts, part.types, part.attrs.select(names),
                        {n: k for n, k in part.kinds.items() if n in read},
                        part.sparse & read)


def _rows(batches: Iterable[tuple[int, Any]], checks: list[Test], read: frozenset[str],
          counters: Counters) -> Iterator[Event]:
    for start, part in batches:
        n = len(part)
        kept = np.zeros(n, dtype=bool)
        for t, var, conds in checks:
            if t is None:
                rows = np.ones(n, dtype=bool)
            elif part.types is None:
                continue
            else:
                rows = pc.fill_null(pc.equal(part.types, t), False).to_numpy(
                    zero_copy_only=False)
            if conds and rows.any():
                cols = ArrowColumns(part, var)
                for c in conds:
                    rows &= cols.holds(c)
                counters.predicate_evaluations += n * len(conds)
            kept |= rows
        index = np.flatnonzero(kept)
        counters.events_read += n
        counters.events_filtered += n - len(index)
        yield from _projected(part, read).events(index, offset=start)
