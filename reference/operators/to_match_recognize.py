"""Operator patterns (seed 003) and SES patterns (seed 000) as SQL:2016 ``MATCH_RECOGNIZE``.

docs/semantics.md, "Translations into MATCH_RECOGNIZE"; ISO/IEC 9075-2:2016 §7.6,
ISO/IEC TR 19075-5:2016.
:func:`translate` maps a pattern and a contiguity policy to the text of a
``MATCH_RECOGNIZE`` statement over a table of events (one row per event: its
``ts``, its attributes, optionally its position), which parses to a
:class:`~kleene.reference.match_recognize.ast.Statement` (:meth:`Translation.statement`).
An SES pattern ``(<B1..Bk>, Θ, τ)`` is first ``SEQ(AND(B1), …, AND(Bk))``
(:func:`~kleene.reference.operators.from_ses.from_ses`); a set of one variable is
that variable, ``v`` as ``ANY v`` and ``v+`` as ``ANY+ v[]``.

**The fragment** (anything else is :class:`Untranslatable`, naming why):

- the policy is ``contiguous`` (no ``PARTITION BY``: the whole stream is one
  partition) or ``partition-contiguous`` (``PARTITION BY`` the attributes whose
  equalities connect every variable, seed 001 Def. 6, as
  :func:`kleene.reference.operators.policies.partition_attributes`): a row
  pattern matches consecutive rows, the other policies skip events;
- ``expr`` is a ``SEQ`` (nested ones flattened: ``SEQ(a, SEQ(b, c))`` orders as
  ``SEQ(a, b, c)``) of primitives ``T x``/``ANY x`` and their repetitions
  ``T{l,m} x[]``/``T+ x[]`` (a lone one is a ``SEQ`` of one): ``AND`` (an SES
  set of two or more variables), ``OR``, ``NOT`` and iterated sub-patterns have
  no exact counterpart (``PERMUTE`` and ``|`` keep one order or branch per start
  row, Kleene every one);
- ``T x`` becomes ``x AS x.type = 'T'`` in ``DEFINE``; each condition of Θ (a
  condition without ``prev`` split at its top-level ``AND``s, one with ``prev``
  kept whole: :mod:`kleene.reference.conditions` instantiates it on consecutive
  pairs) goes into the ``DEFINE`` of the latest variable it names, so it is
  tested on each row of that variable with the rows bound so far; the earlier
  variables it names bind one row each (``DEFINE`` reads only the last row of
  an earlier variable, Kleene quantifies over all of them); ``prev(x.A)`` of the
  variable itself is ``LAST(x.A, 1)`` (the row of ``x`` before this one), the
  condition then guarded by ``LAST(x.ts, 1) IS NULL OR``: no previous row, no
  instance; aggregates (over the *whole* iteration in Kleene, running in
  ``DEFINE``) are refused;
- ``SEQ`` orders its parts strictly by ``ts`` and a repetition's iterations by
  position (seed 003 Sec. 4.1, 4.5): the first row of each part after the first
  is strictly later than the last row of the part before (``x.ts > w.ts``; for
  an iterated ``x`` only on its first row: ``LAST(x.ts, 1) IS NOT NULL OR …``),
  left out when the caller says the stream has no ties (``ties=False``);
- ``WITHIN τ`` is ``last.ts - first.ts <= τ`` (``<`` for the strict reading)
  in the ``DEFINE`` of the last variable: its rows are the match's latest;
- rows are ordered by ``ts``, then by the position column if one is named (the
  standard leaves the order of ties to the implementation; Kleene's reference
  keeps the input's, so without a position column the input must be in stream
  order).

**Exactness.** ``AFTER MATCH SKIP TO NEXT ROW`` tries every row as a start row and
keeps the first matching in preferment order; Kleene's contiguous policies keep
every contiguous match. So the translation is exact, the statement's matches
(:func:`~kleene.reference.operators.match_recognize_rows.matches_of`) equal to the
reference's under the policy, when a start row has at most one contiguous match:
every variable binds one row (no quantifier, no SES group variable).
:meth:`Translation.inexact` says why otherwise; :func:`translate` refuses such a
pattern unless ``exact=False`` (the peers' probe compares those statements with
the SQL:2016 answer derived from the reference, ``conformance/adapters/mr_oracle.py``).
tests/test_translate_match_recognize.py checks both against Kleene's
``MATCH_RECOGNIZE`` reference (:mod:`kleene.reference.match_recognize.semantics`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass

from kleene.reference.conditions import (
    LIKE,
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
    prev_variables,
    subterms,
    variables,
)
from kleene.reference.errors import Unsupported
from kleene.reference.events import Value
from kleene.reference.match import Match
from kleene.reference.match_recognize.ast import Statement
from kleene.reference.match_recognize.lexer import RESERVED
from kleene.reference.match_recognize.parser import parse_statement
from kleene.reference.operators.from_ses import from_ses
from kleene.reference.operators.pattern import (
    Conj,
    Disj,
    Kleene,
    Neg,
    Node,
    OperatorPattern,
    Primitive,
    Seq,
)
from kleene.reference.operators.policies import partition_attributes
from kleene.reference.query import Query
from kleene.reference.ses.pattern import SESPattern

#: The ``AFTER MATCH SKIP`` modes a translation may have.
SKIPS = ("TO NEXT ROW", "PAST LAST ROW")

#: The policies the fragment holds.
POLICIES = ("contiguous", "partition-contiguous")

#: Words quoted when a name spells them (besides the reserved words of the lexer).
_MR_WORDS = frozenset({"FIRST", "LAST", "PREV", "NEXT", "CLASSIFIER", "MATCH_NUMBER",
                       "PERMUTE", "RUNNING", "FINAL", "ONE", "ROW", "ROWS", "PER", "SKIP",
                       "PAST", "TO", "BY", "MATCH", "COUNT", "SUM", "AVG", "MIN", "MAX"})
_REGULAR = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class Untranslatable(Unsupported):
    """The pattern is outside the fragment :func:`translate` handles (the message says why)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


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
        """The SQL quantifier (``''``, ``+``, ``{l,}``, ``{l,m}``)."""
        if not self.iterated:
            return ""
        if self.high is None:
            return "+" if self.low == 1 else f"{{{self.low},}}"
        return f"{{{self.low},{self.high}}}"


def identifier(name: str) -> str:
    """``name`` as an SQL identifier: as is when it is a regular identifier and no
    keyword, else delimited (``"x y"``)."""
    if _REGULAR.fullmatch(name) and name.upper() not in RESERVED | _MR_WORDS:
        return name
    return '"' + name.replace('"', '""') + '"'


@dataclass(frozen=True)
class Naming:
    """The names the statement uses: ``variable`` and ``column`` format Kleene's
    variable and attribute names, ``ts`` is the timestamp column, ``position`` the
    column of the event's position (``None``: the input is in stream order)."""

    variable: str = "{}"
    column: str = "{}"
    ts: str = "ts"
    position: str | None = None

    def var(self, v: str) -> str:
        """The pattern variable of Kleene variable ``v``."""
        return identifier(self.variable.format(v))

    def col(self, attr: str) -> str:
        """The column of event attribute ``attr``."""
        return identifier(self.ts if attr == "ts" else self.column.format(attr))

    @property
    def key(self) -> str:
        """The column that tells rows apart in the measures (the position, else ``ts``)."""
        return identifier(self.position or self.ts)


#: Kleene's own names: variables and attributes as written, ``ts``, no position column.
PLAIN = Naming()


@dataclass(frozen=True)
class Translation:
    """A ``MATCH_RECOGNIZE`` statement: its row pattern, ``DEFINE`` conditions (SQL
    text), ``PARTITION BY`` attributes, names and ``AFTER MATCH SKIP`` mode."""

    items: tuple[Item, ...]
    defines: tuple[tuple[str, str], ...]
    partition: tuple[str, ...]
    naming: Naming = PLAIN
    skip: str = "TO NEXT ROW"

    def measures(self) -> tuple[tuple[str, str], ...]:
        """Each measure's name and expression: the key (position, else ``ts``) of the row
        of a variable ``x`` that binds one (measure ``x``), of the first and the last
        row of one that binds several (``x_first``, ``x_last``)."""
        n = self.naming
        out = []
        for i in self.items:
            key = f"{n.var(i.var)}.{n.key}"
            out += ([(f"{i.var}_first", f"FIRST({key})"), (f"{i.var}_last", f"LAST({key})")]
                    if i.iterated else [(i.var, key)])
        return tuple(out)

    def sql(self, table: str = "events", *, quote: str = "") -> str:
        """The statement's text over ``table`` (measure and partition names delimited by
        ``quote`` where a dialect needs it)."""
        n = self.naming
        order = ", ".join(identifier(c) for c in (n.ts, n.position) if c is not None)
        measures = ",\n    ".join(f"{e} AS {quote + name + quote if quote else identifier(name)}"
                                   for name, e in self.measures())
        by = ", ".join(quote + n.col(a) + quote for a in self.partition)
        part = f"  PARTITION BY {by}\n" if by else ""
        pattern = " ".join(n.var(i.var) + i.quantifier() for i in self.items)
        defines = ",\n    ".join(f"{n.var(v)} AS {d}" for v, d in self.defines)
        return (f"SELECT * FROM {table}\nMATCH_RECOGNIZE (\n{part}  ORDER BY {order}\n"
                f"  MEASURES\n    {measures}\n  ONE ROW PER MATCH\n"
                f"  AFTER MATCH SKIP {self.skip}\n  PATTERN ({pattern})\n"
                + (f"  DEFINE\n    {defines}\n" if defines else "") + ")")

    def statement(self, table: str = "events") -> Statement:
        """The statement as Kleene's ``MATCH_RECOGNIZE`` reference reads it."""
        return parse_statement(self.sql(table), "<translation>")

    def inexact(self) -> str | None:
        """Why the statement's matches may differ from the reference's under the
        policy, or ``None`` when they cannot (module docstring, "Exactness")."""
        if any(i.iterated for i in self.items):
            return ("an iterated variable: MATCH_RECOGNIZE keeps one (greedy) match per start "
                    "row, the contiguous policy every contiguous match")
        if self.skip != "TO NEXT ROW":
            return f"AFTER MATCH SKIP {self.skip} drops matches overlapping an earlier one"
        return None


def literal(v: Value) -> str:
    """An SQL literal."""
    if v is None:
        return "NULL"
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, str):
        return "'" + v.replace("'", "''") + "'"
    if isinstance(v, float) and not math.isfinite(v):
        raise Untranslatable(f"no SQL literal for {v!r}")
    return repr(v)


def _sequence(p: Node) -> list[Node]:
    """``p`` as the parts of one ``SEQ``: nested ``SEQ``s and ``AND``s of one part
    flattened (``SEQ(a, SEQ(b, c))`` orders a, b, c as ``SEQ(a, b, c)`` does)."""
    if isinstance(p, Seq) or (isinstance(p, Conj) and len(p.parts) == 1):
        return [q for part in p.parts for q in _sequence(part)]
    return [p]


#: Why each construct has no exact ``MATCH_RECOGNIZE`` counterpart.
_REFUSED = {
    Conj: "AND (an SES set of several variables): its events come in any order, and "
          "PERMUTE keeps one order per start row",
    Disj: "OR: alternation (|) keeps one branch per start row, Kleene every branch that "
          "matches",
    Neg: "NOT: a row pattern cannot forbid rows",
    Kleene: "an iterated sub-pattern: only a primitive's repetition is translated",
}


def items_of(pattern: OperatorPattern) -> tuple[Item, ...]:
    """The row pattern's elements, or :class:`Untranslatable`."""
    out = []
    for p in _sequence(pattern.expr):
        if isinstance(p, Primitive):
            out.append(Item(p.var, p.type))
        elif isinstance(p, Kleene) and isinstance(p.part, Primitive):
            out.append(Item(p.part.var, p.part.type, p.low, p.high))
        else:
            raise Untranslatable(_REFUSED[type(p)])
    folded = [i.var.upper() for i in out]
    measures = [m.upper() for i in out for m in
                ((f"{i.var}_first", f"{i.var}_last") if i.iterated else (i.var,))]
    if len(set(folded)) != len(folded) or len(set(measures)) != len(measures):
        raise Untranslatable("two variables whose names (or measures x, x_first, x_last) "
                             "differ only in case: SQL folds them")
    return tuple(out)


@dataclass(frozen=True)
class _Conditions:
    """How conditions become SQL: names, column kinds (``None``: not checked), ``<>``."""

    naming: Naming
    types: Mapping[str, str] | None
    ne: str

    def term(self, t: object) -> tuple[str, str | None]:
        if isinstance(t, (Attr, Prev)):
            kind = self.types.get(t.attr) if self.types is not None else "ANY"
            if kind is None:
                raise Untranslatable("a condition on an attribute no event has")
            column = f"{self.naming.var(t.var)}.{self.naming.col(t.attr)}"
            return (column if isinstance(t, Attr) else f"LAST({column}, 1)"), kind
        if isinstance(t, Const):
            v = t.value
            return literal(v), ("BOOLEAN" if isinstance(v, bool) else
                                "VARCHAR" if isinstance(v, str) else "NUM")
        if isinstance(t, Agg):
            raise Untranslatable("aggregates over a whole iteration are not a DEFINE (there "
                                 "they are running)")
        raise Untranslatable(f"term {t!r}")

    def sql(self, c: Condition) -> str:
        """``c`` in SQL (three-valued, as Kleene's); with column kinds, a comparison of
        kinds that never meet (unknown in Kleene, an error in SQL) is refused."""
        if isinstance(c, Truth):
            return "TRUE" if c.value else "FALSE"
        if isinstance(c, (And, Or)):
            op = " AND " if isinstance(c, And) else " OR "
            return "(" + op.join(self.sql(p) for p in c.parts) + ")"
        if isinstance(c, Not):
            return f"(NOT {self.sql(c.part)})"
        if isinstance(c, Cmp) and c.op == LIKE:
            raise Untranslatable("LIKE is an RE2 regular expression found anywhere in the "
                                 "text: not SQL's LIKE, and SQL's LIKE_REGEX reads XQuery's "
                                 "dialect")
        if isinstance(c, Cmp):
            (left, lk), (right, rk) = self.term(c.left), self.term(c.right)
            numeric = {"BIGINT", "DOUBLE", "NUM"}
            if "ANY" not in (lk, rk) and lk != rk and not (lk in numeric and rk in numeric):
                raise Untranslatable(f"compares {lk} with {rk} (unknown in Kleene, an error "
                                     "in SQL)")
            return f"{left} {self.ne if c.op == '!=' else c.op} {right}"
        raise Untranslatable(f"condition {c!r}")


def _pieces(pattern: OperatorPattern) -> list[Condition]:
    """Θ as the units a ``DEFINE`` tests: conditions without ``prev`` split at ``AND``."""
    return [part for c in pattern.conditions
            for part in (conjuncts(c) if not prev_variables(c) else (c,))]


def translate(query: Query, *, skip: str = "TO NEXT ROW", ties: bool = True,
              exact: bool = True, types: Mapping[str, str] | None = None,
              naming: Naming = PLAIN, ne: str = "<>") -> Translation:
    """The query (an SES or operator pattern, its policy, window reading and time unit)
    as a ``MATCH_RECOGNIZE`` statement (module docstring).

    ``ties=False``: the caller guarantees strictly increasing ``ts`` (the strict order
    conditions are left out); ``exact=False``: also a statement whose answer is not the
    policy's (:meth:`Translation.inexact`); ``types``: each attribute's SQL kind
    (``BIGINT``, ``DOUBLE``, ``VARCHAR``, ``BOOLEAN``) when known, so that
    comparisons SQL rejects are refused; ``ne``: the dialect's spelling of ``<>``."""
    pattern = query.pattern
    if isinstance(pattern, SESPattern):
        pattern = from_ses(pattern)
    if not isinstance(pattern, OperatorPattern):
        raise Untranslatable(f"{query.lang.title} have no MATCH_RECOGNIZE translation (SES "
                             "and operator patterns have)")
    policy = query.policy
    if policy not in POLICIES:
        raise Untranslatable(f"policy {policy}: MATCH_RECOGNIZE matches consecutive rows "
                             f"only ({' or '.join(POLICIES)})")
    if skip not in SKIPS:
        raise Untranslatable(f"AFTER MATCH SKIP {skip} (translated: {', '.join(SKIPS)})")
    items = items_of(pattern)
    conds = _Conditions(naming, types, ne)
    order = {i.var: k for k, i in enumerate(items)}
    define: dict[str, list[str]] = {i.var: [] for i in items}
    for i in items:
        if i.type is not None:
            has_type = types is None or "type" in types
            define[i.var].append(f"{naming.var(i.var)}.{naming.col('type')} = "
                                 f"{literal(i.type)}" if has_type else "FALSE")
    for c in _pieces(pattern):
        names = variables(c)
        if not names <= set(order):
            raise Untranslatable("a condition on a variable outside the row pattern")
        last = max(names, key=order.__getitem__) if names else items[-1].var
        if any(items[order[v]].iterated for v in names - {last}):
            raise Untranslatable("a condition relates an earlier iterated variable: DEFINE "
                                 "sees only its last row, Kleene quantifies over all")
        if not names and any(True for _ in subterms(c)):
            raise Untranslatable(f"condition {c!r}")
        sql = conds.sql(c)
        for v in sorted(prev_variables(c)):
            sql = f"(LAST({naming.var(v)}.{naming.col('ts')}, 1) IS NULL OR {sql})"
        define[last].append(sql)
    if ties:
        for before, i in zip(items, items[1:], strict=False):
            x, ts = naming.var(i.var), naming.col("ts")
            later = f"{x}.{ts} > {naming.var(before.var)}.{ts}"
            define[i.var].append(f"(LAST({x}.{ts}, 1) IS NOT NULL OR {later})"
                                 if i.iterated else later)
    if pattern.window is not None:
        tau = pattern.window.in_units_of(query.time_unit)
        define[items[-1].var].append(_window(items, tau, query.reading, naming))
    partition: tuple[str, ...] = ()
    if policy == "partition-contiguous":
        partition = partition_attributes(pattern, _all_bound(items))
        absent = [a for a in partition if types is not None and a not in types]
        if absent:
            raise Untranslatable(f"partitioning attribute {absent[0]!r} absent from every event")
    t = Translation(items, tuple((v, " AND ".join(d)) for v, d in define.items() if d),
                    partition, naming, skip)
    if exact and (why := t.inexact()):
        raise Untranslatable(f"not exact under the {policy} policy: {why}")
    return t


def _window(items: tuple[Item, ...], tau: int | float, reading: str, naming: Naming) -> str:
    """``last.ts - first.ts <= τ`` (``<``: the strict reading), in the last variable's
    ``DEFINE`` (``FIRST(x.ts)``: the first row of an iterated first variable)."""
    ts = naming.col("ts")
    first, last = naming.var(items[0].var), naming.var(items[-1].var)
    ref = f"FIRST({first}.{ts})" if items[0].iterated else f"{first}.{ts}"
    op = "<=" if reading == "inclusive" else "<"
    return f"{last}.{ts} - {ref} {op} {literal(tau)}"


def _all_bound(items: tuple[Item, ...]) -> Match:
    """A stand-in match binding every variable (the partition attributes depend only
    on which variables a match binds)."""
    return Match.of({i.var: (k,) for k, i in enumerate(items)})
