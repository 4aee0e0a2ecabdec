"""What the classification rules of :mod:`.mr_classes` look for in a failing recognition:
a shrunk disagreement's reproduction read back (:func:`.mr_suite.reproduction`: the
statement, then ``-- table t (names), n rows:`` and a JSON row a line), its clause and rows,
and the shapes of clause an engine was found by hand to read wrongly (docs/peers.md)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from decimal import Decimal

from kleene.reference.errors import KleeneError
from kleene.reference.match_recognize.ast import (
    Column,
    Concat,
    InList,
    Like,
    MatchRecognize,
    Navigation,
    Quantified,
    Var,
)
from kleene.reference.match_recognize.expressions import walk
from kleene.reference.match_recognize.parser import parse_statement
from kleene.reference.match_recognize.semantics import UNITS


def parsed(reproduction: str) -> tuple[MatchRecognize, list[str], list[list[object]]] | None:
    """The first clause of ``reproduction``, its table's column names (upper case) and rows
    (``None``: no table, or a statement that does not parse)."""
    text, found, rest = reproduction.partition("\n-- table t (")
    if not found:
        return None
    names = [n.strip().upper() for n in rest.split(")", 1)[0].split(",")]
    rows = [json.loads(line[5:]) for line in rest.splitlines()[1:] if line.startswith("--   ")]
    try:
        return parse_statement(text).recognitions[0].clause, names, rows
    except KleeneError:
        return None


def _at(expr: object, names: Sequence[str]) -> int | None:
    if not isinstance(expr, Column) or expr.var is not None or expr.name.upper() not in names:
        return None
    return names.index(expr.name.upper())


def within_boundary(reproduction: str) -> bool:
    """Whether two rows of one partition of ``reproduction``'s table lie exactly the
    clause's ``WITHIN`` interval apart on its first ``ORDER BY`` key (a number of the
    interval's units, as Flink's adapter sends it: ``native.flink_time``): a match spanning
    them is one Kleene's reference keeps and Flink drops (:mod:`.mr_classes`)."""
    read = parsed(reproduction)
    if read is None:
        return False
    clause, names, rows = read
    if clause.within is None or not clause.order_by:
        return False
    unit = clause.within.unit.upper().removesuffix("S")
    span = clause.within.amount * UNITS.get(unit, Decimal(0))
    key = _at(clause.order_by[0].expr, names)
    parts = [_at(p, names) for p in clause.partition_by]
    if key is None or None in parts:
        return False
    seen: dict[str, list[Decimal]] = {}
    for row in rows:
        if isinstance(row[key], int | float):
            part = json.dumps([row[i] for i in parts if i is not None])
            seen.setdefault(part, []).append(Decimal(str(row[key])))
    return any(abs(a - b) == span for keys in seen.values() for a in keys for b in keys)


def leading_zero(clause: MatchRecognize) -> bool:
    """Whether ``clause``'s pattern begins with one variable quantified with a lower bound
    of 0 and no upper bound (``*``, ``*?``, ``{0,}``) or reluctantly (``??``, ``{,n}?``),
    followed by more of the pattern."""
    p = clause.pattern
    return (isinstance(p, Concat) and isinstance(first := p.items[0], Quantified)
            and isinstance(first.body, Var) and first.low == 0
            and (first.high is None or first.reluctant))


def inner_star_next_row(clause: MatchRecognize) -> bool:
    """Whether ``clause`` resumes ``AFTER MATCH SKIP TO NEXT ROW`` and its pattern has a
    variable quantified greedily ``*`` (``{0,}``) between its first and last elements."""
    p = clause.pattern
    return clause.after_match.kind == "TO NEXT ROW" and isinstance(p, Concat) and any(
        isinstance(q, Quantified) and isinstance(q.body, Var) and q.low == 0
        and q.high is None and not q.reluctant for q in p.items[1:-1])


def logical_offset(clause: MatchRecognize) -> bool:
    """Whether a measure or ``DEFINE`` condition of ``clause`` navigates with ``FIRST`` or
    ``LAST`` and an offset of one or more (``LAST(C.X, 2)``)."""
    exprs = [m.expr for m in clause.measures] + [d.condition for d in clause.defines]
    return any(isinstance(e, Navigation) and e.kind in ("FIRST", "LAST") and e.offset > 0
               for x in exprs for e in walk(x))


def in_other_variable(clause: MatchRecognize) -> bool:
    """Whether a ``DEFINE`` condition of ``clause`` holds ``[NOT] IN`` a list with a column
    of another variable than the one it defines (``DEFINE A AS Y IN (B.Y)``)."""
    return any(isinstance(e, InList) and any(
        isinstance(i, Column) and i.var is not None and i.var != d.var for i in e.items)
        for d in clause.defines for e in walk(d.condition))


def optional_then_lazy_star(clause: MatchRecognize) -> bool:
    """Whether ``clause``'s pattern begins with a variable quantified greedily from 0 to a
    bound (``A?``, ``A{,n}``) directly followed by one quantified ``*?``."""
    p = clause.pattern
    if not isinstance(p, Concat) or len(p.items) < 3:
        return False
    first, second = p.items[0], p.items[1]
    return (isinstance(first, Quantified) and not first.reluctant and first.low == 0
            and first.high is not None and isinstance(second, Quantified)
            and second.reluctant and second.low == 0 and second.high is None)


def like_defined(clause: MatchRecognize) -> bool:
    """Whether a ``DEFINE`` condition of ``clause`` holds a ``LIKE``."""
    return any(isinstance(e, Like) for d in clause.defines for e in walk(d.condition))
