"""Events and streams: the shared core of all three pattern languages.

docs/architecture.md, "The shared core": an event has a position ``i`` (0-based index in
the stream: the total order), a timestamp ``ts`` (int or float), an optional
``type`` and attributes. Timestamps are non-decreasing along positions; ties
are allowed. Seed 000 Sec. 3.1 and seed 001 Sec. 3 call a stream an *event
relation* E, totally ordered by T; we keep the order explicit as ``position``
so that ties in ``ts`` stay ordered.

Conventions used throughout :mod:`kleene.reference`: ``e: Event``,
``s: Stream``, ``m: Match``.
"""

from __future__ import annotations

import datetime as _dt
import math
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, overload

from kleene.reference.errors import StreamError

#: An attribute value. ``None`` means "missing" and makes comparisons unknown.
Value = str | int | float | bool | None

#: Milliseconds per time unit; durations in patterns carry one of these units.
UNIT_MS: dict[str, float] = {
    "ms": 1, "millisecond": 1, "milliseconds": 1,
    "s": 1000, "sec": 1000, "second": 1000, "seconds": 1000,
    "min": 60_000, "minute": 60_000, "minutes": 60_000,
    "h": 3_600_000, "hour": 3_600_000, "hours": 3_600_000,
    "d": 86_400_000, "day": 86_400_000, "days": 86_400_000,
}


def canonical_unit(unit: str) -> str:
    """The short name (``ms s min h d``) of a time unit word; raises ``KeyError``."""
    factor = UNIT_MS[unit.lower()]
    return {1: "ms", 1000: "s", 60_000: "min", 3_600_000: "h", 86_400_000: "d"}[int(factor)]


@dataclass(frozen=True, slots=True)
class Event:
    """One event ``e``: its position in the stream, timestamp, type and attributes."""

    position: int
    ts: int | float
    type: str | None = None
    attrs: Mapping[str, Value] = field(default_factory=dict)

    def value(self, name: str) -> Value:
        """Attribute ``name`` (``ts`` and ``type`` address the event); ``None`` if missing."""
        if name == "ts":
            return self.ts
        if name == "type":
            return self.type
        return self.attrs.get(name)

    def __hash__(self) -> int:
        return hash((self.position, self.ts))

    def to_json(self) -> dict[str, Any]:
        """The event as a JSON object (the conformance case format)."""
        out: dict[str, Any] = {"ts": self.ts}
        if self.type is not None:
            out["type"] = self.type
        out.update(self.attrs)
        return out


class Stream(Sequence[Event]):
    """A finite stream ``s``: events at positions 0..n-1 with non-decreasing ``ts``.

    ``time_unit`` (``ms s min h d`` or ``None`` for unit-less timestamps) lets a
    pattern's ``WITHIN 15 days`` be converted to timestamp units.

    A stream holds either its events (``Stream(events, time_unit)``) or their
    columns (:meth:`from_columns`, what the loaders build: Arrow columns,
    :mod:`kleene.data.columnar`); then an event is built only when it is
    read (``s[i]``, iteration, ``s.events``), and engines that read
    :attr:`columns` evaluate conditions over them without building events.
    Both forms give the same events.
    """

    __slots__ = ("_events", "_columns", "time_unit")

    def __init__(self, events: Sequence[Event] = (), time_unit: str | None = None) -> None:
        self._events: tuple[Event, ...] | None = tuple(events)
        self._columns: Any = None
        self.time_unit = time_unit
        previous: int | float | None = None
        for i, e in enumerate(self._events):
            if e.position != i:
                raise StreamError(f"position {e.position} where {i} was expected", row=i,
                                  field="position")
            if previous is not None and e.ts < previous:
                raise StreamError(f"timestamp {e.ts} is earlier than the previous event's "
                                  f"{previous}; events must be sorted by ts", row=i, field="ts")
            previous = e.ts

    @classmethod
    def from_columns(cls, columns: Any, time_unit: str | None = None) -> Stream:
        """A stream over validated :class:`~kleene.data.columnar.Columns`."""
        s = cls.__new__(cls)
        s._events, s._columns, s.time_unit = None, columns, time_unit
        return s

    @property
    def columns(self) -> Any:
        """The :class:`~kleene.data.columnar.Columns` of a loaded stream, else ``None``."""
        return self._columns

    @property
    def events(self) -> tuple[Event, ...]:
        """Every event, in stream order (built once from the columns when needed)."""
        if self._events is None:
            self._events = tuple(self._columns.iter_events())
        return self._events

    def __len__(self) -> int:
        return len(self._events) if self._events is not None else len(self._columns)

    @overload
    def __getitem__(self, i: int) -> Event: ...

    @overload
    def __getitem__(self, i: slice) -> tuple[Event, ...]: ...

    def __getitem__(self, i: int | slice) -> Event | tuple[Event, ...]:
        if self._events is None and isinstance(i, int):
            n = len(self._columns)
            j = i + n if i < 0 else i
            if not 0 <= j < n:
                raise IndexError("stream index out of range")
            return self._columns.slice(j, j + 1).events(offset=j)[0]
        return self.events[i]

    def __iter__(self) -> Iterator[Event]:
        if self._events is None:
            return self._columns.iter_events()
        return iter(self._events)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Stream):
            return NotImplemented
        return self.time_unit == other.time_unit and self.events == other.events

    def __hash__(self) -> int:
        return hash((self.events, self.time_unit))

    def __repr__(self) -> str:
        return f"Stream(events={self.events!r}, time_unit={self.time_unit!r})"

    @classmethod
    def from_rows(cls, rows: Iterable[Mapping[str, Any]], *, ts: str = "ts",
                  type: str | None = "type", time_unit: str | None = None,
                  source: str = "<events>", sort: bool = False) -> Stream:
        """Validate rows (mappings) into a stream; errors name the row and the field.

        ``ts`` names the timestamp field (numbers; ISO strings and datetimes are
        converted to epoch milliseconds, which sets ``time_unit='ms'``; one
        stream does not mix the two), ``type`` the optional type field. Every
        other field becomes an attribute. With ``sort`` the rows are sorted by
        ``ts`` (stably) instead of being rejected when out of order.
        """
        rows_out: list[tuple[int | float, str | None, dict[str, Value]]] = []
        unit = canonical_unit(time_unit) if time_unit else None
        first_converted: bool | None = None
        columns: dict[str, None] = {}
        typed = False
        for i, row in enumerate(rows):
            if not isinstance(row, Mapping):
                raise StreamError(f"expected an object, got {type_name(row)}", row=i,
                                  source=source)
            if ts not in row or row[ts] is None or row[ts] == "":
                raise StreamError("missing timestamp", row=i, field=ts, source=source)
            stamp, converted = _timestamp(row[ts], row=i, field_name=ts, source=source)
            if first_converted is None:
                first_converted = converted
            elif converted != first_converted:
                raise StreamError(f"timestamp {row[ts]!r} mixes ISO datetimes with numbers "
                                  "in one column", row=i, field=ts, source=source)
            if converted:
                unit = "ms"
            # a type is a value as an attribute's is (an object or a list is refused)
            kind = _attribute(row.get(type), row=i, field_name=type, source=source) \
                if type else None
            if type and not typed:
                typed = type in row
                columns.update(dict.fromkeys(map(str, row)))
            if kind is not None and not isinstance(kind, str):
                kind = str(kind)
            attrs: dict[str, Value] = {}
            for key, val in row.items():
                if key == ts or (type and key == type):
                    continue
                attrs[str(key)] = _attribute(val, row=i, field_name=str(key), source=source)
            if not sort and rows_out and stamp < rows_out[-1][0]:
                raise StreamError(f"timestamp {stamp} is earlier than the previous row's "
                                  f"{rows_out[-1][0]}; sort the events by {ts} (or use --sort)",
                                  row=i, field=ts, source=source)
            rows_out.append((stamp, kind, attrs))
        if type and type != "type" and rows_out and not typed:
            raise StreamError(f"no row has the type field {type!r}; the columns are: "
                              f"{', '.join(columns)}", field=type, source=source)
        if sort:
            rows_out.sort(key=lambda r: r[0])
        return cls(tuple(Event(i, *r) for i, r in enumerate(rows_out)), unit)

    def to_json(self) -> list[dict[str, Any]]:
        """The events as JSON objects, in stream order."""
        return [e.to_json() for e in self.events]


def type_name(value: object) -> str:
    """A short name for the type of ``value`` in error messages."""
    return type(value).__name__


#: A timestamp string that is an integer literal (ASCII digits): read as an exact int.
_INTEGER = re.compile("[+-]?[0-9]+")


def _timestamp(raw: Any, *, row: int, field_name: str, source: str) -> tuple[int | float, bool]:
    if isinstance(raw, bool):
        raise StreamError("timestamp must be a number, got a boolean", row=row,
                          field=field_name, source=source)
    if isinstance(raw, (int, float)):
        if isinstance(raw, float) and not math.isfinite(raw):
            raise StreamError(f"timestamp must be finite, got {raw}", row=row, field=field_name,
                              source=source)
        return raw, False
    if isinstance(raw, _dt.datetime):
        return _epoch_ms(raw), True
    if isinstance(raw, str):
        text = raw.strip()
        if _INTEGER.fullmatch(text):
            return int(text), False   # exact at any size (float() would round past 2**53)
        try:
            number = float(text)
        except ValueError:
            try:
                return _epoch_ms(_dt.datetime.fromisoformat(text)), True
            except ValueError:
                raise StreamError(f"timestamp {raw!r} is neither a number nor an ISO datetime",
                                  row=row, field=field_name, source=source) from None
        if not math.isfinite(number):
            raise StreamError(f"timestamp must be finite, got {raw!r}", row=row,
                              field=field_name, source=source)
        return number, False
    raise StreamError(f"timestamp must be a number, got {type_name(raw)}", row=row,
                      field=field_name, source=source)


def _epoch_ms(moment: _dt.datetime) -> int:
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=_dt.UTC)
    return int(round(moment.timestamp() * 1000))


def _attribute(raw: Any, *, row: int, field_name: str, source: str) -> Value:
    if raw is None or isinstance(raw, (str, bool, int)):
        return raw
    if isinstance(raw, float):
        return None if math.isnan(raw) else raw
    if hasattr(raw, "item"):  # numpy scalars
        return _attribute(raw.item(), row=row, field_name=field_name, source=source)
    if isinstance(raw, (_dt.datetime, _dt.date)):
        return raw.isoformat()
    raise StreamError(f"attribute values must be strings, numbers or booleans, got "
                      f"{type_name(raw)}", row=row, field=field_name, source=source)


def stream_of(events: Iterable[Mapping[str, Any]] | Stream, **kwargs: Any) -> Stream:
    """``events`` as a :class:`Stream` (rows are validated with :meth:`Stream.from_rows`)."""
    if isinstance(events, Stream):
        return events
    return Stream.from_rows(events, **kwargs)
