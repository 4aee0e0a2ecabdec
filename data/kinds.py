"""The schema of events (:data:`kleene.reference.schema.Schema`) read from their columns.

A schema maps each column name to the kinds of its values (``num``, ``str``,
``bool``; :func:`kleene.reference.schema.kind`). :func:`kinds_of` reads it from a
stream's columns when it has them (no event is built) or from its events, and
:func:`kleene.reference.schema.check_pattern` checks a pattern against it.
"""

from __future__ import annotations

from kleene.data.columnar import Columns
from kleene.data.source import column_batches
from kleene.data.textvalues import BOOL_KIND, STR_KIND, TEXT_KIND, text_kinds
from kleene.reference.events import Stream
from kleene.reference.schema import kind


def kinds_of(s: Stream) -> dict[str, frozenset[str]]:
    """The schema of ``s``: every attribute any event has, with the kinds of its values;
    ``ts`` is a number and ``type`` text. Read from the columns when the stream has
    them (no event is built), from the first batch of a source read in batches."""
    batches = column_batches(s, 1 << 62)
    if batches is not None:
        first = next(iter(batches), None)
        return {} if first is None else columns_kinds(first[1])
    found: dict[str, set[str]] = {"ts": {"num"}, "type": set()}
    for e in s:
        if e.type is not None:
            found["type"].add("str")
        for name, value in e.attrs.items():
            kinds = found.setdefault(name, set())
            k = kind(value)
            if k is not None:
                kinds.add(k)
    if not found["type"] and not any(e.type is not None for e in s):
        del found["type"]
    return {name: frozenset(k) for name, k in found.items()}


def columns_kinds(columns: Columns) -> dict[str, frozenset[str]]:
    """:func:`kinds_of` of a :class:`~kleene.data.columnar.Columns`: each column's
    kind, a *text* column's from its cells (numbers and strings), an all-null column
    none."""
    found: dict[str, frozenset[str]] = {"ts": frozenset({"num"})}
    if columns.types is not None and columns.types.null_count < len(columns.types):
        found["type"] = frozenset({"str"})
    for name, k in columns.kinds.items():
        col = columns.attrs.column(name)
        if col.null_count == len(col):
            found[name] = frozenset()
        elif k == TEXT_KIND:
            nums, _, strs = text_kinds(col)
            found[name] = frozenset(k for k, seen in (("num", nums.any()), ("str", strs.any()))
                                    if seen)
        else:
            found[name] = frozenset({"str" if k == STR_KIND else "bool" if k == BOOL_KIND
                                     else "num"})
    return found
