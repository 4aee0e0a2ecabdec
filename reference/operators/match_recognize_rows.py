"""Events as the rows of a :mod:`.to_match_recognize` statement's input, and its output as matches.

docs/semantics.md, "Translations into MATCH_RECOGNIZE". The input table has a row
per event, in stream order: its position (the :class:`~.to_match_recognize.Naming`'s ``position``
column, if any), its ``ts``, and a column per attribute (``NULL`` where the event
has none). An SQL column holds one type, so an attribute whose events hold values
of different kinds (text and numbers, say) has no table; integers and floats
together are ``DOUBLE``.

The output has one row per match with the position of each variable's row (``x``),
or of the first and last of its rows (``x_first``, ``x_last``): the match binds ``x``
to every row of its partition from the first to the last (consecutive rows), which
:func:`matches_of` reads back as a Kleene :class:`~kleene.reference.match.Match`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from kleene.reference.events import Value
from kleene.reference.match import Match
from kleene.reference.match_recognize.table import Table
from kleene.reference.operators.to_match_recognize import Naming, Translation, Untranslatable


def column_types(rows: Sequence[Mapping[str, Value]]) -> dict[str, str]:
    """The SQL type of each attribute (``BIGINT``, ``DOUBLE``, ``VARCHAR``,
    ``BOOLEAN``; an attribute with no value ``VARCHAR``); an attribute holding values of
    several kinds is :class:`~.to_match_recognize.Untranslatable`."""
    kinds: dict[str, set[str]] = {}
    for row in rows:
        for k, v in row.items():
            if k == "ts":
                continue
            kind = set() if v is None else {
                "BOOLEAN" if isinstance(v, bool) else "BIGINT" if isinstance(v, int)
                else "DOUBLE" if isinstance(v, float) else "VARCHAR"}
            kinds.setdefault(k, set()).update(kind)
    out = {}
    for k, ks in kinds.items():
        if ks == {"BIGINT", "DOUBLE"}:
            ks = {"DOUBLE"}
        if len(ks) > 1:
            raise Untranslatable(f"attribute {k!r} mixes {', '.join(sorted(ks))} values")
        out[k] = ks.pop() if ks else "VARCHAR"
    return out


def column_name(naming: Naming, attr: str) -> str:
    """The input column of attribute ``attr`` (``ts`` its timestamp), as stored."""
    return naming.ts if attr == "ts" else naming.column.format(attr)


def columns(naming: Naming, rows: Sequence[Mapping[str, Value]]) -> tuple[tuple[str, str], ...]:
    """The input's columns and their SQL types: the position, ``ts``, the attributes."""
    types = column_types(rows)
    ts = "DOUBLE" if any(isinstance(r["ts"], float) for r in rows) else "BIGINT"
    head = ((naming.position, "BIGINT"),) if naming.position is not None else ()
    attributes = ((column_name(naming, a), t) for a, t in sorted(types.items()))
    return (*head, (naming.ts, ts), *attributes)


def row_values(naming: Naming, types: Mapping[str, str], row: Mapping[str, Value],
               position: int) -> dict[str, Value]:
    """One input row: the position, ``ts`` and every attribute's column (``None`` if
    absent; an integer of a ``DOUBLE`` column as a float)."""
    out: dict[str, Value] = {naming.position: position} if naming.position is not None else {}
    out[naming.ts] = row["ts"]
    for a, t in sorted(types.items()):
        v = row.get(a)
        out[column_name(naming, a)] = float(v) if t == "DOUBLE" and v is not None else v
    return out


def table_of(naming: Naming, rows: Sequence[Mapping[str, Value]]) -> Table:
    """The input table of the events ``rows`` (``{"ts": …, attribute: value}``), in order."""
    types = column_types(rows)
    names = tuple(name for name, _ in columns(naming, rows))
    return Table(names, tuple(tuple(row_values(naming, types, r, k)[n] for n in names)
                              for k, r in enumerate(rows)))


def matches_of(t: Translation, rows: Sequence[Mapping[str, Value]],
               found: Sequence[Mapping[str, object]]) -> list[Match]:
    """Kleene matches from the output rows ``found`` over the events ``rows``: the
    positions of ``x`` are the rows of its partition from ``x_first`` to ``x_last``, or
    the row ``x`` (output names are read case-insensitively: SQL folds them)."""
    if t.naming.position is None:
        raise ValueError("matches are read back by position: name a position column")
    out = []
    for r in found:
        got = {str(k).lower(): v for k, v in r.items()}
        binding: dict[str, tuple[int, ...]] = {}
        for i in t.items:
            ends = (f"{i.var}_first", f"{i.var}_last") if i.iterated else (i.var, i.var)
            f, last = (got.get(e.lower()) for e in ends)
            if f is None or last is None:
                continue
            key = tuple(rows[_position(f)].get(a) for a in t.partition)
            binding[i.var] = tuple(k for k in range(_position(f), _position(last) + 1)
                                   if tuple(rows[k].get(a) for a in t.partition) == key)
        out.append(Match.of(binding))
    return out


def _position(v: object) -> int:
    """A position the output gives back (an integer, whatever the engine's type)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v != int(v):
        raise ValueError(f"a position must be a whole number, not {v!r}")
    return int(v)
