"""The columnar chain's candidates in pieces bounded by the window (:mod:`.join`).

Seed 003 Sec. 3 buffers each event type only for the window: an event older
than τ before the newest one can join no new match. The chain over columns
(:mod:`.join`) reads the stream in batches of columns (a loaded stream cut,
or a source read in batches, ``kleene match --stream``) and holds each
slot's *candidates* (positions, timestamps, the columns of the joint
conditions) only while a match can still need them:

- timestamps do not decrease, so once a batch ending at ``T`` is read, every
  match whose first event does not fit with ``T`` (``ts < earliest(T)``,
  :meth:`~kleene.engines.spans.Window.earliest`) lies wholly in the rows read
  (its events fit with its first one, so they are before ``T``);
- a *piece* is the candidates held; :func:`pieces` yields one, with the range
  ``[lo, hi)`` of first timestamps whose matches it reports, once the held
  candidates span at least 2τ (so each piece reports at least a window), then
  keeps only the candidates at or after ``hi`` (``hi = earliest(T)``: a later
  match starts there); the last piece reports every remaining match (``hi = ∞``).

Timestamps keep their column's dtype: int64 (exact at any int64, compared by
:func:`kleene.engines.spans.searched` and :func:`~kleene.engines.spans.spans_of`,
never through float64) or float64. Batches of integers beside batches of floats
are read as floats only where float64 holds every integer exactly
(:func:`exact_floats`); elsewhere :func:`pieces` refuses them.

Every match is reported by exactly one piece (the one whose range holds its
first timestamp), with the same events: the pieces overlap by τ, the reports
do not. A batch is added in steps of at most :data:`STEP` rows, so the held
candidates never exceed those of 2τ of stream plus one step;
``counters.peak_candidates`` counts the most held at once.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from kleene.data.columnar import Columns as EventColumns
from kleene.data.source import column_batches, source_name
from kleene.data.textvalues import FLOAT_KIND, INT_KIND, STR_KIND, TEXT_KIND
from kleene.data.timestamps import int64_array
from kleene.engines.columns import ArrowColumns
from kleene.engines.nfa.columns import read_attributes
from kleene.engines.nfa.gather import Candidates
from kleene.engines.nfa.join import Scan, joint, unary
from kleene.engines.nfa.keyed import KeyedView, Keys
from kleene.engines.nfa.partial import Plan
from kleene.engines.protocol import Counters
from kleene.engines.spans import searched
from kleene.reference.errors import StreamError, Unsupported

#: Rows per batch of a loaded stream.
ROWS = 65_536
#: Rows added to a piece at once (a batch is cut into steps of at most this many): each
#: step costs fixed work (type masks, the unary conditions' kernels, gathering the joint
#: columns), so a step as large as a loaded batch; the candidates it adds are few.
STEP = ROWS

_INF = float("inf")


def pieces(events: Any, plan: Plan, counters: Counters, rows: int = ROWS,
           keys: Sequence[str] = ()) -> Iterator[Any] | None:
    """The pieces (:class:`.join.Scan`) of ``events`` for ``plan`` (see the module
    docstring), keyed by the attributes ``keys`` if any (:mod:`.keyed`); ``None``
    without columns. Counts ``events_read``,
    ``events_filtered`` (rows no slot takes), ``buffer_operations`` (candidates
    inserted) and ``peak_candidates``."""
    batches = column_batches(events, rows)
    if batches is None:
        return None
    return _pieces(batches, plan, counters, source_name(events), Keys(keys) if keys else None)


def _pieces(batches: Iterator[tuple[int, EventColumns]], plan: Plan,
            counters: Counters, source: str = "<events>",
            keys: Keys | None = None) -> Iterator[Any]:
    bound = plan.bound
    assert bound is not None
    slots = plan.shape.slots
    conds = joint(plan)
    need = sorted({i for _, ss in conds for i in ss})
    read = read_attributes(c for c, _ in conds)
    pos = [np.zeros(0, dtype=np.int64) for _ in slots]
    times: list[np.ndarray] = []   # per slot, in the timestamps' dtype (int64 stays exact)
    held: dict[int, EventColumns | None] = {i: None for i in need}
    tests = [unary(plan, s.index) for s in slots]
    # keyed: per slot, each candidate's part and rank in it (keyed.py)
    codes = [np.zeros(0, dtype=np.int64) for _ in slots]
    ranks = [np.zeros(0, dtype=np.int64) for _ in slots]
    lo = -_INF
    for start, part in _steps(batches):
        n = len(part)
        counters.events_read += n
        stamps = np.asarray(part.ts.to_numpy())
        if not times:
            times = [stamps[:0] for _ in slots]
        elif stamps.dtype != times[0].dtype:   # integer batches beside float ones
            if not (exact_floats(stamps) and all(exact_floats(t) for t in times)):
                raise Unsupported(f"{source}: integer timestamps past 2**53 beside decimal "
                                  "ones are not compared as columns (floats would round them)")
            stamps = stamps.astype(np.float64)
            times = [t.astype(np.float64) for t in times]
        row_codes, row_ranks = keys.of(part) if keys is not None else (None, None)
        by_type: dict[str | None, np.ndarray] = {}
        taken = np.zeros(n, dtype=bool)
        for s in slots:
            if s.type not in by_type:
                by_type[s.type] = (np.ones(n, dtype=bool) if s.type is None
                                   else np.zeros(n, dtype=bool) if part.types is None
                                   else np.asarray(pc.fill_null(pc.equal(part.types, s.type),
                                                                False)
                                                   .to_numpy(zero_copy_only=False), dtype=bool))
            mask = by_type[s.type].copy()
            if tests[s.index] and mask.any():
                cols = ArrowColumns(part, s.var)
                for c in tests[s.index]:
                    mask &= cols.holds(c)
            taken |= mask
            idx = np.flatnonzero(mask)
            pos[s.index] = np.concatenate([pos[s.index], idx + start])
            times[s.index] = np.concatenate([times[s.index], stamps[idx]])
            if row_codes is not None and row_ranks is not None:
                codes[s.index] = np.concatenate([codes[s.index], row_codes[idx]])
                ranks[s.index] = np.concatenate([ranks[s.index], row_ranks[idx]])
            if s.index in held:
                held[s.index] = _joined(held[s.index], _take(part, idx, read), start, source)
        kept = int(np.count_nonzero(taken))
        counters.events_filtered += n - kept
        counters.buffer_operations += kept
        counters.peak_candidates = max(counters.peak_candidates, sum(len(p) for p in pos))
        last = stamps[-1].item()   # a Python number: an int stays exact
        earliest = min((t[0].item() for t in times if len(t)), default=last)
        if last - earliest < 2 * bound.tau:
            continue
        hi = bound.earliest(last)
        yield _scan(Scan, pos, times, held, lo, hi, (codes, ranks) if keys else None)
        lo = hi
        for i in range(len(slots)):
            cut = int(searched(times[i], [hi], "left")[0])
            pos[i], times[i] = pos[i][cut:], times[i][cut:]
            codes[i], ranks[i] = codes[i][cut:], ranks[i][cut:]
            if i in held and held[i] is not None:
                whole = held[i]
                assert whole is not None
                held[i] = whole.slice(cut, len(whole))
    yield _scan(Scan, pos, times or [np.zeros(0) for _ in slots], held, lo, _INF,
                (codes, ranks) if keys else None)


def exact_floats(ts: np.ndarray) -> bool:
    """Whether float64 holds every timestamp of ``ts`` exactly (floats, or integers
    of magnitude at most 2**53)."""
    if ts.dtype.kind not in "iu" or not len(ts):
        return True
    return bool(-(2**53) <= int(ts.min()) and int(ts.max()) <= 2**53)


def _steps(batches: Iterator[tuple[int, EventColumns]]) -> Iterator[tuple[int, EventColumns]]:
    """The batches cut into steps of at most :data:`STEP` rows (none empty)."""
    for start, part in batches:
        n = len(part)
        for s in range(0, n, STEP):
            yield start + s, (part if n <= STEP else part.slice(s, min(n, s + STEP)))


def _scan(scan: Any, pos: list[np.ndarray], times: list[np.ndarray],
          held: dict[int, EventColumns | None], lo: int | float, hi: int | float,
          keyed: tuple[list[np.ndarray], list[np.ndarray]] | None = None) -> Any:
    columns = {i: Candidates(c) for i, c in held.items() if c is not None}
    if keyed is None:
        return scan(list(pos), list(times), columns, lo, hi)
    codes, ranks = keyed
    return scan(list(pos), list(times), columns, lo, hi, list(codes), list(ranks),
                KeyedView(codes, times))


def _take(part: EventColumns, idx: np.ndarray, read: frozenset[str]) -> EventColumns:
    names = [n for n in part.attrs.column_names if n in read]
    take = int64_array(idx)
    return EventColumns(part.ts.take(take), None if part.types is None else part.types.take(take),
                        part.attrs.select(names).take(take),
                        {n: k for n, k in part.kinds.items() if n in read}, part.sparse & read)


def _widened(part: EventColumns, other: dict[str, str]) -> EventColumns:
    """``part`` with a column retyped where the other side's kinds (``other``) differ as
    the whole file would type the union of their cells (the text rule,
    :func:`kleene.data.textvalues.typed_column`): integers beside floats are
    floats; integers, floats or strings beside text cells are text cells (each cell
    written so that :func:`~kleene.data.textvalues.text_value` reads it back as
    the same value: ``str`` of an int, ``repr`` of a float). Other changes stay
    changes (:func:`_joined` refuses them)."""
    attrs, kinds = part.attrs, dict(part.kinds)
    for n, k in part.kinds.items():
        o = other.get(n)
        if k == INT_KIND and o == FLOAT_KIND:
            column, kinds[n] = pc.cast(attrs.column(n), pa.float64()), FLOAT_KIND
        elif k in (INT_KIND, FLOAT_KIND, STR_KIND) and o == TEXT_KIND:
            write = repr if k == FLOAT_KIND else str
            column = pa.array([None if v is None else write(v)
                               for v in attrs.column(n).to_pylist()], pa.string())
            kinds[n] = TEXT_KIND
        else:
            continue
        attrs = attrs.set_column(attrs.column_names.index(n), n, column)
    return part if kinds == part.kinds else EventColumns(part.ts, part.types, attrs, kinds,
                                                         part.sparse)


def _joined(held: EventColumns | None, new: EventColumns, row: int = 0,
            source: str = "<events>") -> EventColumns:
    """The held candidates' columns and a batch's (from stream row ``row``), as one
    :class:`Columns`."""
    if held is None:
        return new
    held, new = _widened(held, new.kinds), _widened(new, held.kinds)
    if held.kinds != new.kinds or held.attrs.schema != new.attrs.schema:
        changed = sorted(n for n in set(held.kinds) | set(new.kinds)
                         if held.kinds.get(n) != new.kinds.get(n)) or ["(schema)"]
        raise StreamError(f"column {changed[0]!r} changes kind between batches "
                          f"({held.kinds.get(changed[0])} before this row, "
                          f"{new.kinds.get(changed[0])} in the batch from it); "
                          "load the stream whole (without --stream)", row=row,
                          field=changed[0], source=source)
    ts = pa.chunked_array([*held.ts.chunks, *new.ts.chunks], held.ts.type)
    types = (None if held.types is None or new.types is None else
             pa.chunked_array([*held.types.chunks, *new.types.chunks], held.types.type))
    return EventColumns(ts, types, pa.concat_tables([held.attrs, new.attrs]), held.kinds,
                        held.sparse)
