"""What an engine may read of its input: the declared type of events (docs/architecture.md,
"Layers": ``event file ──validate──▶ Stream``, then ``run(events)``).

An engine's ``run`` takes an :data:`EventSource`. Every source yields its events in
stream order (an :class:`~kleene.reference.events.Event` knows its position and
timestamp); that is all a plain iterable of events (a list, in tests and in the
reference) offers, and every engine must accept one. The sources Kleene builds offer
more, each part declared by a protocol here:

- :class:`TimedSource`: the timestamps' ``time_unit`` (``ms s min h d``, or ``None``
  for unit-less numbers), which converts a window ``WITHIN 15 days``;
- :class:`ColumnSource`: all events at once as checked Arrow columns
  (:class:`~kleene.data.columnar.Columns`: positions implicit, row ``i`` is position
  ``i``; a ``ts`` column, a type column, one column per attribute; a loaded
  :class:`~kleene.reference.events.Stream`, whose ``columns`` is ``None`` when it
  holds events instead);
- :class:`BatchSource`: the columns batch by batch, ``(offset, columns)`` with
  positions ``offset + row`` (:class:`kleene.data.batches.Batched`, a file read in
  bounded memory; ``kleene match``'s progress reading); a source that has both is
  read in batches;
- :class:`NamedSource`: the ``source`` name its errors carry (a file's).

The schema (the kinds of each column's values) is :func:`kleene.data.kinds.kinds_of`.
The functions below are the one place that asks a source which parts it has; an
engine calls them and never inspects its input itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Protocol, TypeAlias, runtime_checkable

from kleene.data.columnar import Columns
from kleene.reference.events import Event

#: The name errors give events that have none of their own.
UNNAMED = "<events>"


@runtime_checkable
class TimedSource(Protocol):
    """Events whose timestamps have a unit (``None``: unit-less numbers)."""

    time_unit: str | None

    def __iter__(self) -> Iterator[Event]: ...


@runtime_checkable
class ColumnSource(TimedSource, Protocol):
    """Events held as checked Arrow columns, all at once (``None``: held as events)."""

    @property
    def columns(self) -> Columns | None: ...


@runtime_checkable
class BatchSource(TimedSource, Protocol):
    """Events read as batches of checked Arrow columns, in stream order."""

    def batches(self) -> Iterator[tuple[int, Columns]] | None: ...


@runtime_checkable
class NamedSource(Protocol):
    """Events that know where they were read from."""

    source: str


#: What ``Engine.run`` reads: a source Kleene built, or any iterable of events.
EventSource: TypeAlias = ColumnSource | BatchSource | Iterable[Event]


def time_unit_of(events: EventSource) -> str | None:
    """The unit of ``events``' timestamps; ``None`` for unit-less ones and for a plain
    iterable of events (a window with a unit then says it needs one)."""
    return events.time_unit if isinstance(events, TimedSource) else None


def source_name(events: EventSource) -> str:
    """The name errors about ``events`` carry (the file it was read from)."""
    return events.source if isinstance(events, NamedSource) else UNNAMED


def columns_of_source(events: EventSource) -> Columns | None:
    """All of ``events``' columns at once (a loaded stream's), else ``None``."""
    return events.columns if isinstance(events, ColumnSource) else None


def reads_in_batches(events: EventSource) -> bool:
    """Whether ``events`` are read batch by batch (a file larger than memory)."""
    return isinstance(events, BatchSource)


def column_batches(events: EventSource, rows: int) -> Iterator[tuple[int, Columns]] | None:
    """The columns of ``events`` in batches ``(offset, columns)`` of about ``rows`` rows:
    a source read in batches (its own batches), or a loaded stream's columns cut;
    ``None`` for events without columns."""
    if isinstance(events, BatchSource):
        return events.batches()
    columns = columns_of_source(events)
    if columns is None:
        return None
    rows = max(1, rows)
    return ((s, columns.slice(s, min(s + rows, len(columns))))
            for s in range(0, len(columns), rows))
