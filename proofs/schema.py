"""The sorts of symbolic events' attributes (docs/architecture.md, "Proofs (Z3)").

A :class:`Schema` gives every attribute a pattern reads a sort --- ``str``,
``int``, ``real``, ``bool`` or ``any`` (a value of any kind, so streams whose
attribute changes kind from event to event are covered too) --- and says which
attributes may be missing. Every proof holds *for the streams of its schema*;
the CLI prints the schema next to the results.

Where the sorts come from, first match wins, attribute by attribute:

1. declared (``{"V": "real"}``, ``kleene prove --sort V=real``);
2. inferred from an events file (:func:`observed_sorts`): the kinds of the
   values seen (ints and floats together are ``real``, several kinds ``any``);
3. defaulted from the constants the pattern compares the attribute with
   (directly, or through attribute-to-attribute comparisons: ``c.ID = p.ID``
   links ``ID`` to itself, ``v.A < w.B`` links ``A`` and ``B``): one kind gives
   its sort, several give ``any``, none gives ``int``.

``ts`` is always present and numeric (``int`` unless a stream, a float
constant or a fractional window says ``real``); ``type`` is a string. Any other
attribute is *optional* (may be missing, as in the reference) unless a stream
shows it in every event or it is declared required.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from kleene.reference.conditions import Attr, Cmp, Condition, Const, Prev, subterms
from kleene.reference.durations import Duration
from kleene.reference.errors import PatternError, Unsupported
from kleene.reference.events import UNIT_MS, Stream, canonical_unit

#: The sorts an attribute may have.
SORTS = ("str", "int", "real", "bool", "any")


@dataclass(frozen=True)
class Schema:
    """``sorts`` (attribute → sort, ``ts`` included) and the ``optional`` attributes."""

    sorts: Mapping[str, str]
    optional: frozenset[str]

    def __str__(self) -> str:
        return ", ".join(f"{a}: {s}{'?' if a in self.optional else ''}"
                         for a, s in sorted(self.sorts.items()))


def _kind_of_constant(v: object) -> str:
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    if isinstance(v, float):
        return "real"
    return "str"


def _join(kinds: set[str]) -> str | None:
    """One sort for a set of constant kinds (``None`` when empty)."""
    if not kinds:
        return None
    if kinds <= {"int", "real"}:
        return "real" if "real" in kinds else "int"
    return next(iter(kinds)) if len(kinds) == 1 else "any"


def attributes(conditions: Iterable[Condition]) -> set[str]:
    """Every attribute the conditions read (``ts`` and ``type`` included)."""
    return {t.attr for c in conditions for t in subterms(c) if isinstance(t, Attr | Prev)}


def default_sorts(conditions: Iterable[Condition]) -> dict[str, str]:
    """Sorts from the constants, propagated through attribute comparisons (rule 3)."""
    conditions = list(conditions)
    parent: dict[str, str] = {a: a for a in attributes(conditions)}

    def find(a: str) -> str:
        while parent[a] != a:
            a = parent[a]
        return a

    kinds: dict[str, set[str]] = {}
    comparisons = [x for c in conditions for x in _comparisons(c)]
    for left, right in comparisons:
        if isinstance(left, Attr | Prev) and isinstance(right, Attr | Prev):
            parent[find(left.attr)] = find(right.attr)
    for left, right in comparisons:
        for a, b in ((left, right), (right, left)):
            if isinstance(a, Attr | Prev) and isinstance(b, Const):
                kinds.setdefault(find(a.attr), set()).add(_kind_of_constant(b.value))
    return {a: _join(kinds.get(find(a), set())) or "int" for a in parent}


def _comparisons(c: Condition) -> Iterable[tuple[object, object]]:
    if isinstance(c, Cmp):
        yield c.left, c.right
    for part in getattr(c, "parts", ()):
        yield from _comparisons(part)
    if hasattr(c, "part"):
        yield from _comparisons(c.part)


def observed_sorts(s: Stream) -> tuple[dict[str, str], frozenset[str]]:
    """Rule 2: the sorts of the attributes of ``s`` and those missing somewhere."""
    kinds: dict[str, set[str]] = {"ts": {_kind_of_constant(e.ts) for e in s}}
    seen_in: dict[str, int] = {}
    for e in s:
        for a, v in e.attrs.items():
            if v is not None:
                kinds.setdefault(a, set()).add(_kind_of_constant(v))
                seen_in[a] = seen_in.get(a, 0) + 1
    if any(e.type is not None for e in s):
        kinds["type"] = {"str"}
        seen_in["type"] = sum(e.type is not None for e in s)
    sorts = {a: sort for a, k in kinds.items() if (sort := _join(k)) is not None}
    return sorts, frozenset(a for a in sorts if a != "ts" and seen_in.get(a, 0) < len(s))


def schema_for(conditions: Iterable[Condition], window: Duration | None = None, *,
               declared: Mapping[str, str] | None = None, stream: Stream | None = None,
               required: Iterable[str] = ()) -> Schema:
    """The schema of the attributes ``conditions`` read, by rules 1--3 above."""
    conditions = list(conditions)
    declared = dict(declared or {})
    bad = {a: s for a, s in declared.items() if s not in SORTS}
    if bad:
        raise PatternError(f"unknown sort(s) {bad}; use one of {', '.join(SORTS)}")
    observed, sometimes_missing = observed_sorts(stream) if stream is not None else ({}, None)
    defaults = default_sorts(conditions)
    sorts: dict[str, str] = {}
    for a in attributes(conditions) | {"ts"} | declared.keys():
        sorts[a] = declared.get(a) or observed.get(a) or defaults.get(a) or "int"
    sorts["ts"] = _ts_sort(declared, observed, defaults, window)
    if "type" in sorts:
        sorts["type"] = "str"
    required = set(required) | {"ts"}
    if sometimes_missing is not None:
        required |= {a for a in observed if a not in sometimes_missing}
    return Schema(sorts, frozenset(a for a in sorts if a not in required))


def _ts_sort(declared: Mapping[str, str], observed: Mapping[str, str],
             defaults: Mapping[str, str], window: Duration | None) -> str:
    sort = declared.get("ts") or observed.get("ts") or defaults.get("ts") or "int"
    if window is not None and not float(window.value).is_integer():
        sort = "real"
    if sort not in ("int", "real"):
        raise PatternError(f"ts is a number (int or real), not {sort}")
    return sort


def unit_less(window: Duration) -> int | float:
    """τ of ``window`` in timestamp units: the bounded proofs read unit-less timestamps, so
    a window with a unit is :class:`~kleene.reference.errors.Unsupported`, saying how to
    write it."""
    try:
        return window.in_units_of(None)
    except PatternError as err:
        raise Unsupported(f"bounded proofs use unit-less timestamps, and the window {window} "
                          "has a unit: write it in timestamp units (WITHIN 3600 for 1 hour "
                          "of seconds)") from err


def timestamp_unit(windows: Iterable[Duration], given: str | None = None) -> str | None:
    """The unit the bounded proofs read timestamps in: ``given`` (``kleene prove
    --time-unit``), else the finest unit among the pattern's ``windows`` (so each is a
    whole number of it), else none (timestamp units)."""
    if given is not None:
        return canonical_unit(given)
    units = {canonical_unit(w.unit) for w in windows if w.unit is not None}
    return min(units, key=lambda u: UNIT_MS[u]) if units else None


def in_timestamp_units(window: Duration, unit: str | None) -> Duration:
    """``window`` as a unit-less duration of timestamps in ``unit`` (``WITHIN 1 hour``
    with ``unit`` ``s`` is ``WITHIN 3600``)."""
    return Duration(window.in_units_of(unit))
