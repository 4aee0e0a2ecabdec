"""Operator patterns → SQL:2016 row-pattern recognition (``MATCH_RECOGNIZE``).

The translatable fragment (anything else raises :class:`Untranslatable` with
the reason; the adapters then decline the case):

- ``expr`` is a primitive ``T x``/``ANY x``, a repetition of one
  (``T+ x[]``, ``T{l,m} x[]``), or a ``SEQ`` of those; no ``AND``, ``OR``,
  ``NOT``, nested iteration;
- each ``WHERE`` conjunct compares plain attributes and constants
  (``=``, ``!=``, ``<``, ...; ``AND``/``OR``/``NOT`` inside); no ``prev``, no
  aggregates. A conjunct goes into the ``DEFINE`` of the latest variable it
  names; the other variables it names must be singletons (``DEFINE`` sees only
  the last row of an earlier variable, Kleene quantifies over all of them);
- a window ``WITHIN τ`` becomes ``last.ts - first.ts <= τ`` (``<`` for the
  strict reading) in the ``DEFINE`` of the last variable (every row of it, so
  every row of the match, lies within τ of the first one);
- ``SEQ`` orders its parts strictly by ``ts``: each row is strictly later
  than the row of the match before it (:func:`strictly_later`, logical
  navigation only: ``LAST(x.ts, 1)`` and the previous variable's ``ts``),
  needed only when the stream has ties in ``ts`` (otherwise ``ORDER BY ts``
  makes consecutive rows strictly later already), so it is added only then.

The policy: ``contiguous`` (no ``PARTITION BY``) or ``partition-contiguous``
(``PARTITION BY`` the attributes whose equalities connect every variable,
seed 001 Def. 6, as :func:`kleene.reference.operators.policies.partition_attributes`).
``MATCH_RECOGNIZE`` keeps *one* match per start row (the first in preferment
order: greedy quantifiers) where Kleene's contiguous policies keep all of
them; the two agree when a start row has at most one contiguous match:
:func:`exact` says when the plan is used for a claimed case.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from kleene.reference.conditions import (
    Agg,
    And,
    Attr,
    Cmp,
    Condition,
    Const,
    Not,
    Or,
    Prev,
    Truth,
    conjuncts,
    subterms,
    variables,
)
from kleene.reference.events import Value
from kleene.reference.match import Match
from kleene.reference.operators.pattern import Kleene, OperatorPattern, Primitive, Seq
from kleene.reference.operators.policies import partition_attributes

#: AFTER MATCH SKIP modes the adapters run.
SKIPS = ("TO NEXT ROW", "PAST LAST ROW")

#: The column names the plan adds: the event's position and its timestamp.
POS, TS = "kpos", "kts"


class Untranslatable(Exception):
    """The query is outside the fragment :func:`plan` translates (the message says why)."""


@dataclass(frozen=True)
class Item:
    """One element of the row pattern: variable ``var`` of event type ``type``
    (``None``: any), repeated ``low`` to ``high`` times (``None``: unbounded)."""

    var: str
    type: str | None
    low: int = 1
    high: int | None = 1

    @property
    def iterated(self) -> bool:
        """Whether the variable binds a sequence (a quantifier other than exactly once)."""
        return not (self.low == 1 and self.high == 1)

    def quantifier(self) -> str:
        """The SQL quantifier (``''``, ``+``, ``*``, ``{l,m}``)."""
        if not self.iterated:
            return ""
        if self.high is None:
            return "+" if self.low == 1 else ("*" if self.low == 0 else f"{{{self.low},}}")
        return f"{{{self.low},{self.high}}}"


@dataclass(frozen=True)
class Plan:
    """A ``MATCH_RECOGNIZE`` query over the table ``events`` and what reading its rows needs."""

    items: tuple[Item, ...]
    defines: tuple[tuple[str, str], ...]
    partition: tuple[str, ...]
    columns: tuple[tuple[str, str], ...]
    skip: str = "TO NEXT ROW"

    def sql(self, table: str = "events", *, quote: str = "") -> str:
        """The query text (identifiers quoted with ``quote`` when the dialect needs it)."""

        def q(name: str) -> str:
            return f"{quote}{name}{quote}"

        measures = ",\n    ".join(
            f"FIRST({sym(i.var)}.{POS}) AS {q('f_' + i.var)}, LAST({sym(i.var)}.{POS}) AS "
            f"{q('l_' + i.var)}" for i in self.items)
        part = f"PARTITION BY {', '.join(q(col(a)) for a in self.partition)}\n  " \
            if self.partition else ""
        defines = ",\n    ".join(f"{sym(v)} AS {d}" for v, d in self.defines) or ""
        pattern = " ".join(sym(i.var) + i.quantifier() for i in self.items)
        return (f"SELECT * FROM {table}\nMATCH_RECOGNIZE (\n  {part}ORDER BY {TS_ORDER}\n"
                f"  MEASURES\n    {measures}\n  ONE ROW PER MATCH\n"
                f"  AFTER MATCH SKIP {self.skip}\n  PATTERN ({pattern})\n"
                + (f"  DEFINE\n    {defines}\n" if defines else "") + ")")


#: The row order: time, then stream position (ties keep the stream's order).
TS_ORDER = f"{TS}, {POS}"


def sym(var: str) -> str:
    """The pattern variable of Kleene variable ``var``."""
    return f"V_{var}"


def col(attr: str) -> str:
    """The column of event attribute ``attr``."""
    return f"c_{attr}"


def literal(v: Value) -> str:
    """A SQL literal."""
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, str):
        return "'" + v.replace("'", "''") + "'"
    if isinstance(v, float) and not math.isfinite(v):
        raise Untranslatable(f"no SQL literal for {v!r}")
    return repr(v)


def column_types(rows: Sequence[Mapping[str, Value]]) -> dict[str, str]:
    """The SQL type of each attribute (``BIGINT``, ``DOUBLE``, ``VARCHAR``,
    ``BOOLEAN``); an attribute holding values of several kinds is untranslatable."""
    kinds: dict[str, set[str]] = {}
    for row in rows:
        for k, v in row.items():
            if k == "ts" or v is None:
                kinds.setdefault(k, set())
                continue
            kind = ("BOOLEAN" if isinstance(v, bool) else "BIGINT" if isinstance(v, int)
                    else "DOUBLE" if isinstance(v, float) else "VARCHAR")
            kinds.setdefault(k, set()).add(kind)
    out = {}
    for k, ks in kinds.items():
        if k == "ts":
            continue
        if ks == {"BIGINT", "DOUBLE"}:
            ks = {"DOUBLE"}
        if len(ks) > 1:
            raise Untranslatable(f"attribute {k!r} mixes {', '.join(sorted(ks))} values")
        out[k] = ks.pop() if ks else "VARCHAR"
    return out


def items_of(pattern: OperatorPattern) -> tuple[Item, ...]:
    """The row pattern's elements, or :class:`Untranslatable`."""
    parts = pattern.expr.parts if isinstance(pattern.expr, Seq) else (pattern.expr,)
    out = []
    for p in parts:
        if isinstance(p, Primitive):
            out.append(Item(p.var, p.type))
        elif isinstance(p, Kleene) and isinstance(p.part, Primitive) and p.low >= 1:
            out.append(Item(p.part.var, p.part.type, p.low, p.high))
        else:
            raise Untranslatable(f"{type(p).__name__} inside SEQ: MATCH_RECOGNIZE has no "
                                 "negation or conjunction, and the adapter translates "
                                 "only primitives and their repetitions")
    if len({i.var for i in out}) != len(out):
        raise Untranslatable("a variable declared twice")
    return tuple(out)


def _term(t: object, types: Mapping[str, str]) -> tuple[str, str | None]:
    if isinstance(t, Attr):
        return f"{sym(t.var)}.{col(t.attr)}", types.get(t.attr)
    if isinstance(t, Const):
        v = t.value
        kind = ("BOOLEAN" if isinstance(v, bool) else "VARCHAR" if isinstance(v, str)
                else "NUM")
        return literal(v), kind
    if isinstance(t, Prev):
        raise Untranslatable("prev(): PREV() in MATCH_RECOGNIZE is the previous row, "
                             "not the previous event of the variable")
    if isinstance(t, Agg):
        raise Untranslatable("aggregates over a whole iteration are not a DEFINE")
    raise Untranslatable(f"term {t!r}")


def condition_sql(c: Condition, types: Mapping[str, str], ne: str = "<>") -> str:
    """``c`` in SQL (three-valued, as Kleene's); a comparison of a string with a
    number (unknown in Kleene, a type error in SQL) or of an attribute no event
    has (always unknown) becomes ``FALSE`` only where that is exact: at the top."""
    if isinstance(c, Truth):
        return "TRUE" if c.value else "FALSE"
    if isinstance(c, And):
        return "(" + " AND ".join(condition_sql(p, types, ne) for p in c.parts) + ")"
    if isinstance(c, Or):
        return "(" + " OR ".join(condition_sql(p, types, ne) for p in c.parts) + ")"
    if isinstance(c, Not):
        return f"(NOT {condition_sql(c.part, types, ne)})"
    if isinstance(c, Cmp):
        (left, lk), (right, rk) = _term(c.left, types), _term(c.right, types)
        numeric = {"BIGINT", "DOUBLE", "NUM"}
        if lk is None or rk is None:
            raise Untranslatable("a condition on an attribute no event has")
        if lk != rk and not (lk in numeric and rk in numeric):
            raise Untranslatable(f"compares {lk} with {rk} (unknown in Kleene, an error in SQL)")
        op = ne if c.op == "!=" else c.op
        return f"{left} {op} {right}"
    raise Untranslatable(f"condition {c!r}")


def strictly_later(before: Item | None, i: Item) -> str:
    """``SEQ``'s strict ``ts`` order for a row of ``i``, in logical navigation only
    (``LAST(x.ts, 1)``: the row of ``x`` before this one; ``y.ts``: the last row of
    the previous element ``y``); ``PREV`` is a physical offset Flink rejects."""
    x = sym(i.var)
    back = f"LAST({x}.{TS}, 1)"
    first = "TRUE" if before is None else f"{x}.{TS} > {sym(before.var)}.{TS}"
    if not i.iterated:
        return first
    return f"(({back} IS NULL AND {first}) OR {x}.{TS} > {back})"


def plan(pattern: OperatorPattern, policy: str, rows: Sequence[Mapping[str, Value]], *,
         window: str = "inclusive", time_unit: str | None = None,
         skip: str = "TO NEXT ROW", ne: str = "<>") -> Plan:
    """The ``MATCH_RECOGNIZE`` plan of ``pattern`` under ``policy`` over ``rows``
    (``ne``: the engine's spelling of SQL's ``<>``)."""
    if policy not in ("contiguous", "partition-contiguous"):
        raise Untranslatable(f"policy {policy}: MATCH_RECOGNIZE only matches contiguous rows")
    items = items_of(pattern)
    types = column_types(rows)
    order = {i.var: k for k, i in enumerate(items)}
    iterated = {i.var for i in items if i.iterated}
    define: dict[str, list[str]] = {i.var: [] for i in items}
    for i in items:
        if i.type is not None:
            define[i.var].append(f"{sym(i.var)}.{col('type')} = {literal(i.type)}"
                                 if "type" in types else "FALSE")
    for c in (cc for whole in pattern.conditions for cc in conjuncts(whole)):
        names = variables(c)
        if not names:
            if any(True for _ in subterms(c)):
                raise Untranslatable(f"condition {c!r}")
            sql = condition_sql(c, types, ne)
            define[items[-1].var].append(sql)
            continue
        if not names <= set(order):
            raise Untranslatable("a condition on a variable outside the row pattern")
        last = max(names, key=order.__getitem__)
        if (names - {last}) & iterated:
            raise Untranslatable("a condition relates an earlier iterated variable: DEFINE "
                                 "sees only its last row, Kleene quantifies over all")
        define[last].append(condition_sql(c, types, ne))
    ties = len({r["ts"] for r in rows}) < len(rows)
    for before, i in zip((None, *items[:-1]), items, strict=True):
        if ties and (later := strictly_later(before, i)) != "TRUE":
            define[i.var].append(later)
    if pattern.window is not None:
        tau = pattern.window.in_units_of(time_unit)
        op = "<=" if window == "inclusive" else "<"
        first, last = items[0].var, items[-1].var
        ref = f"FIRST({sym(first)}.{TS})" if items[0].iterated else f"{sym(first)}.{TS}"
        if len(items) == 1 and items[0].iterated:
            raise Untranslatable("a window on a single iterated variable")
        if len(items) > 1:
            define[last].append(f"{sym(last)}.{TS} - {ref} {op} {literal(tau)}")
    partition: tuple[str, ...] = ()
    if policy == "partition-contiguous":
        partition = partition_attributes(pattern, _all_bound(items))
        for a in partition:
            if a not in types:
                raise Untranslatable(f"partitioning attribute {a!r} absent from every event")
    defines = tuple((v, " AND ".join(d)) for v, d in define.items() if d)
    columns = ((POS, "BIGINT"), (TS, "DOUBLE" if any(isinstance(r["ts"], float) for r in rows)
                                  else "BIGINT"),
               *((col(a), t) for a, t in sorted(types.items())))
    return Plan(items, defines, partition, columns, skip)


def _all_bound(items: Sequence[Item]) -> Match:
    """A stand-in match binding every variable (the partition attributes depend only
    on which variables a match binds)."""
    return Match.of({i.var: (k,) for k, i in enumerate(items)})


def exact(p: Plan) -> str | None:
    """Why the plan's ``TO NEXT ROW`` answer may differ from Kleene's contiguous
    policy, or ``None`` when it cannot: every variable binds exactly one row, so
    a start row has at most one contiguous match (the one ``MATCH_RECOGNIZE`` finds)."""
    if any(i.iterated for i in p.items):
        return ("an iterated variable: MATCH_RECOGNIZE keeps one (greedy) match per start "
                "row, the contiguous policy every contiguous match")
    if p.skip != "TO NEXT ROW":
        return f"AFTER MATCH SKIP {p.skip} drops matches overlapping an earlier one"
    return None


def row_values(row: Mapping[str, Value], position: int,
               types: Mapping[str, str]) -> dict[str, Value]:
    """One table row: the position, ``ts`` and every attribute's column (``None`` if absent)."""
    out: dict[str, Value] = {POS: position, TS: row["ts"]}
    for a, t in types.items():
        v = row.get(a)
        out[col(a)] = float(v) if t == "DOUBLE" and v is not None else v
    return out


def matches_of(p: Plan, rows: Sequence[Mapping[str, Value]],
               found: Sequence[Mapping[str, int | None]]) -> list[Match]:
    """Kleene matches from the measures of each output row (``f_x``/``l_x``): the
    positions of ``x`` are the rows of its partition from the first to the last."""
    out = []
    for r in found:
        binding: dict[str, tuple[int, ...]] = {}
        for i in p.items:
            f, last = r.get(f"f_{i.var}"), r.get(f"l_{i.var}")
            if f is None or last is None:
                continue
            key = tuple(rows[int(f)].get(a) for a in p.partition)
            binding[i.var] = tuple(k for k in range(int(f), int(last) + 1)
                                   if tuple(rows[k].get(a) for a in p.partition) == key)
        out.append(Match.of(binding))
    return out
