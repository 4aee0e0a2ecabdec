"""A shrunk disagreement's reproduction read back (:func:`.mr_suite.reproduction`: the
statement, then ``-- table t (names), n rows:`` and a JSON row a line): its clause and rows,
for the classification rules of :mod:`.mr_classes` that look at the rows."""

from __future__ import annotations

import json
from collections.abc import Sequence
from decimal import Decimal

from kleene.reference.errors import KleeneError
from kleene.reference.match_recognize.ast import Column, MatchRecognize
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
