"""Plausibility of a query on its events: what the definitions accept but a user rarely
means (issue 29, item 3), found before any matching and said in one line each by the
doors that run a query on a file (``kleene match``, ``kleene trace``; :mod:`kleene.cli.schema`
prints them), never an error, since each can be meant:

- a text constant compared for equality with an attribute (``p.action = 'Purchase'``)
  or an event type (``Purchase p``) that no event has: the comparison is false for every
  event, so a misspelt value gives no match without a word (docs/semantics.md, "Missing
  values", makes a missing attribute a different matter, refused by
  :func:`kleene.reference.schema.check_pattern`). The distinct values of the compared
  column are read once (Arrow's ``unique`` over the loaded column), and the nearest
  values are named (:func:`nearest`);
- a time unit under which the timestamps fall in implausible years while another unit
  reads them as dates of this era (epoch seconds read as milliseconds, or the
  reverse), or under which the events span more than :data:`MAX_YEARS` years;
- a window longer than the whole stream of at least :data:`MIN_EVENTS` events: it
  bounds no match, which a wrong unit (seconds read as milliseconds) also does (the
  few events of an example, a paper's figure, often fit in its window).

The time checks apply to a window written in a time unit (``WITHIN 30 minutes``): there
the unit of the timestamps decides the matches; a window in timestamp units reads the
numbers as they are. A source read in batches (``--stream``, a large file by default)
is not read twice: its absent values are looked for in its first batch, and the warning
says how many events it read; its time doubts are not checked.
"""

from __future__ import annotations

import datetime as dt
import difflib
from collections.abc import Callable, Iterable

import pyarrow.compute as pc

from kleene.data.columnar import Columns
from kleene.data.source import column_batches, reads_in_batches
from kleene.data.textvalues import STR_KIND, TEXT_KIND, text_value
from kleene.reference.durations import Duration
from kleene.reference.events import UNIT_MS, Stream, canonical_unit
from kleene.reference.query import Query
from kleene.reference.schema import nodes, text_equalities

#: The rows of a source read in batches whose values the absent-value warnings read.
SAMPLE = 1 << 20
#: How many of the nearest names or values a warning lists.
NEAREST = 3
#: Distinct values past which only a different case or blanks count as near (difflib
#: compares the word with each value).
MANY = 10_000
#: The values listed whole when none is near and there are at most this many.
FEW = 8
#: The years a timestamp read as an epoch time may plausibly fall in.
EPOCH_YEARS = (1990, 2100)
#: A span of the whole stream longer than this many years is implausible.
MAX_YEARS = 100
#: The fewest events whose stream a window longer than it is a warning for.
MIN_EVENTS = 1000
#: The units an epoch timestamp is commonly written in.
EPOCH_UNITS = ("s", "ms")

_YEAR_MS = 365.2425 * 86_400_000


def warnings(query: Query, stream: Stream) -> list[str]:
    """Every plausibility warning of ``query`` on ``stream``, one line each (without the
    command's prefix), in the order: absent values, time unit, window."""
    if reads_in_batches(stream):
        first = next(iter(column_batches(stream, SAMPLE) or ()), None)
        if first is None:
            return []
        sample = first[1]
        return absent_values(query, lambda attr: column_values(sample, attr),
                             among=f"of the first {len(sample):,} read")
    if len(stream) == 0:
        return []
    return absent_values(query, lambda attr: text_values(stream, attr)) + \
        time_doubts(query, stream)


def nearest(word: str, names: Iterable[str]) -> list[str]:
    """The :data:`NEAREST` of ``names`` nearest ``word``: the same but for case and
    blanks first, then the closest by :mod:`difflib` (none past :data:`MANY` names)."""
    pool = sorted(set(names))
    folded = word.strip().casefold()
    same = [n for n in pool if n.strip().casefold() == folded and n != word]
    if len(pool) > MANY:
        return same[:NEAREST]
    close = difflib.get_close_matches(word, pool, n=NEAREST, cutoff=0.6)
    return list(dict.fromkeys([*same, *close]))[:NEAREST]


def absent_values(query: Query, values_of: Callable[[str], set[str]],
                  among: str = "") -> list[str]:
    """A line for each text constant the pattern compares for equality with an
    attribute, or each event type it names, that no event has (``values_of(attr)``:
    the events' distinct text values of ``attr``; ``among``: which events were asked,
    when not all)."""
    out: list[str] = []
    seen: set[tuple[str, str]] = set()
    event = f"event {among}" if among else "event"
    for attr, text, words in text_equalities(query.pattern):
        if (attr, text) in seen:
            continue
        seen.add((attr, text))
        values = values_of(attr)
        if not values or text in values:
            continue
        near = nearest(text, values)
        if near:
            hint = f"the nearest: {', '.join(map(repr, near))}"
        elif len(values) <= FEW:
            hint = f"the values present: {', '.join(map(repr, sorted(values)))}"
        else:
            hint = f"none near it among {len(values):,} values"
        out.append(f"no {event} has {attr} {text!r} ({words}); {hint}")
    return out


def text_values(stream: Stream, attr: str) -> set[str]:
    """The distinct text values of attribute ``attr`` (``type`` the event types) over
    ``stream``: from its column when it has columns (a text column's cells typed as
    the loaders type them, so ``'7'`` is the number 7), else from its events."""
    columns = stream.columns
    if columns is None:
        return {v for e in stream if isinstance(v := e.value(attr), str)}
    return column_values(columns, attr)


def column_values(columns: Columns, attr: str) -> set[str]:
    """The distinct text values of attribute ``attr`` in ``columns`` (as
    :func:`text_values`)."""
    found = columns.column(attr)
    if found is None or found[1] not in (STR_KIND, TEXT_KIND):
        return set()
    cells = pc.unique(found[0]).drop_null().to_pylist()
    if found[1] == TEXT_KIND:
        return {v for v in map(text_value, cells) if isinstance(v, str)}
    return set(cells)


def time_doubts(query: Query, stream: Stream) -> list[str]:
    """A line when the query's time unit puts the timestamps in implausible years, else
    one when its window is longer than the whole stream (of :data:`MIN_EVENTS` or more);
    none when no window of the pattern has a time unit, or the timestamps have none."""
    windows = [d for d in nodes(query.pattern) if isinstance(d, Duration) and d.unit]
    if not windows or query.time_unit is None:
        return []
    unit = canonical_unit(query.time_unit)
    first, last = stream[0].ts, stream[len(stream) - 1].ts
    out: list[str] = []
    other = [u for u in EPOCH_UNITS if u != unit and _epoch(first, last, u)]
    if other and not _epoch(first, last, unit):
        lo, hi = _year(first, unit), _year(last, unit)
        years = f"the year {lo}" if lo == hi else f"the years {lo} to {hi}"
        out.append(f"the timestamps read in {unit} fall in {years}; read in {other[0]} "
                   f"they fall {_dates(first, last, other[0])}: is the unit {other[0]} "
                   f"(--time-unit {other[0]})?")
    elif (last - first) * UNIT_MS[unit] > MAX_YEARS * _YEAR_MS:
        out.append(f"the events span {_human((last - first) * UNIT_MS[unit])} read in "
                   f"{unit} (ts {first} to {last}): is the unit right (--time-unit)?")
    if out:   # the window's doubt has the same cause
        return out
    window = max(windows, key=lambda d: d.in_units_of(unit))
    tau = window.in_units_of(unit)
    if 0 < last - first < tau and len(stream) >= MIN_EVENTS:
        out.append(f"the window, {window}, is longer than the whole stream "
                   f"({_human((last - first) * UNIT_MS[unit])} from the first event to "
                   f"the last, the timestamps read in {unit}): it bounds no match")
    return out


def epoch_hint(stream: Stream) -> str | None:
    """Which unit reads the timestamps of ``stream`` as dates of :data:`EPOCH_YEARS`
    (``they read as epoch s on 2023-11-14: --time-unit s``), for a stream whose unit is
    not declared; ``None`` when none does."""
    if reads_in_batches(stream) or len(stream) == 0:
        return None
    first, last = stream[0].ts, stream[len(stream) - 1].ts
    for unit in EPOCH_UNITS:
        if _epoch(first, last, unit):
            return f"they read as epoch {unit} {_dates(first, last, unit)}: --time-unit {unit}"
    return None


def _dates(first: int | float, last: int | float, unit: str) -> str:
    """``on DATE`` or ``from DATE to DATE``: ``first`` and ``last`` as epoch times in ``unit``."""
    lo, hi = _date(first, unit), _date(last, unit)
    return f"on {lo}" if lo == hi else f"from {lo} to {hi}"


def _year(ts: int | float, unit: str) -> int:
    """The year ``ts`` falls in read as an epoch time in ``unit`` (any size)."""
    return 1970 + int(ts * UNIT_MS[unit] // _YEAR_MS)


def _epoch(first: int | float, last: int | float, unit: str) -> bool:
    """Whether ``first`` and ``last`` read in ``unit`` are epoch times of :data:`EPOCH_YEARS`."""
    lo, hi = EPOCH_YEARS
    return lo <= _year(first, unit) and _year(last, unit) < hi


def _date(ts: int | float, unit: str) -> str:
    """``ts`` read as an epoch time in ``unit``, as an ISO date (UTC)."""
    moment = dt.datetime.fromtimestamp(ts * UNIT_MS[unit] / 1000, dt.UTC)
    return moment.date().isoformat()


def _human(ms: float) -> str:
    """A duration of ``ms`` milliseconds in the largest unit it holds one of, to three
    significant digits: ``2.5 hours``, ``1,004 years``."""
    for name, size in (("year", _YEAR_MS), ("day", 86_400_000), ("hour", 3_600_000),
                       ("minute", 60_000), ("second", 1000)):
        if ms >= size:
            value = ms / size
            text = f"{value:,.0f}" if value >= 100 else f"{value:.3g}"
            return f"{text} {name}{'' if text == '1' else 's'}"
    return f"{ms:.3g} ms"
