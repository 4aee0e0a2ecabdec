"""Printing ``MATCH_RECOGNIZE`` back as SQL that
:func:`~kleene.reference.match_recognize.parser.parse_statement` reads to the same AST.

:func:`format_clause` prints a clause, one part a line, in the standard's order,
leaving out the parts that say the default (``ONE ROW PER MATCH``, ``AFTER MATCH
SKIP PAST LAST ROW``); ``WITHIN`` is printed right after ``PATTERN``, where Calcite
(Flink) reads it. :func:`format_statement` prints a statement: its text with each
recognition's source and clause printed anew (the rest of the SQL is kept as written).

Parentheses are printed where the tree needs them and nowhere else: an expression or
a row pattern inside another of looser binding, the right side of a binary operator
of equal binding (``a - (b - c)``), either side of a comparison that holds one. A
number after a unary sign is parenthesised (``-(1)``), since ``-1`` reads as the
negative literal. Names that are not regular identifiers, or are keywords, are
quoted (``"a"``, ``"ROWS"``).
"""

from __future__ import annotations

import math
import re
from decimal import Decimal

from kleene.reference.match_recognize.ast import (
    Aggregate,
    Alt,
    Anchor,
    Between,
    Binary,
    Call,
    Case,
    Cast,
    Classifier,
    Column,
    Concat,
    Empty,
    Exclude,
    Expr,
    InList,
    IsNull,
    Like,
    Literal,
    MatchNumber,
    MatchRecognize,
    Navigation,
    Permute,
    Quantified,
    RowPattern,
    SortKey,
    Statement,
    Subquery,
    TableName,
    Unary,
    Var,
)
from kleene.reference.match_recognize.expressions import AGGREGATES, NAVIGATIONS
from kleene.reference.match_recognize.lexer import RESERVED

_REGULAR = re.compile(r"[A-Z_][A-Z0-9_]*")

#: Words a name spelled so is quoted for: the reserved ones and every other keyword of
#: the clause, so that no printed name reads as a keyword (``PERMUTE ()``, ``TO LAST``).
KEYWORDS = RESERVED | {
    "PREV", "NEXT", "FIRST", "LAST", "CLASSIFIER", "MATCH_NUMBER", "COUNT", "SUM", "AVG",
    "MIN", "MAX", "RUNNING", "FINAL", "PERMUTE", "DATE", "TIME", "TIMESTAMP", "BY", "ONE",
    "ROW", "ROWS", "PER", "MATCH", "SKIP", "TO", "PAST", "SHOW", "OMIT", "EMPTY",
    "UNMATCHED", "ASC", "DESC", "NULLS", "INITIAL", "SEEK", "AUTO", "DEFINES",
}

#: How tightly each binary operator binds (higher: tighter); see expressions.py.
_BINARY = {"OR": 1, "AND": 2, "||": 5, "+": 6, "-": 6, "*": 7, "/": 7, "%": 7,
           **{op: 4 for op in ("=", "<>", "<", "<=", ">", ">=")}}
#: Names that never read back as a :class:`Call`.
_NOT_CALLS = RESERVED | {*NAVIGATIONS, *AGGREGATES, "CLASSIFIER", "MATCH_NUMBER"}
_PREDICATE = 4
_UNARY = 8
_ATOM = 9

_ROWS = {"ALL SHOW": "ALL ROWS PER MATCH", "ALL OMIT": "ALL ROWS PER MATCH OMIT EMPTY MATCHES",
         "ALL WITH UNMATCHED": "ALL ROWS PER MATCH WITH UNMATCHED ROWS"}


def name(text: str) -> str:
    """A name as SQL reads it back: bare if it is a regular identifier in upper case and
    no keyword, else quoted."""
    if _REGULAR.fullmatch(text) and text not in KEYWORDS:
        return text
    return '"' + text.replace('"', '""') + '"'


def format_statement(statement: Statement) -> str:
    """The statement's text with each recognition printed anew."""
    text, pieces, at = statement.text, [], 0
    for r in statement.recognitions:
        source = (r.source.name if isinstance(r.source, TableName)
                  else f"({format_statement(r.source)})")
        body = "\n  ".join(format_clause(r.clause).splitlines())
        pieces += [text[at:r.start], f"{source} MATCH_RECOGNIZE (\n  {body}\n)"]
        at = r.end
    return "".join(pieces) + text[at:]


def format_clause(clause: MatchRecognize) -> str:
    """The inside of ``MATCH_RECOGNIZE ( … )``, one part a line."""
    lines = []
    if clause.partition_by:
        lines.append("PARTITION BY " + ", ".join(format_expr(e) for e in clause.partition_by))
    if clause.order_by:
        lines.append("ORDER BY " + ", ".join(_sort_key(k) for k in clause.order_by))
    if clause.measures:
        lines.append("MEASURES " + ", ".join(f"{format_expr(m.expr)} AS {name(m.name)}"
                                             for m in clause.measures))
    if clause.rows_per_match != "ONE":
        lines.append(_ROWS[clause.rows_per_match])
    skip = clause.after_match
    if skip.kind != "PAST LAST ROW":
        target = "" if skip.var is None else " " + name(skip.var)
        lines.append(f"AFTER MATCH SKIP {skip.kind}{target}")
    pattern = clause.pattern
    lines.append("PATTERN (" + ("" if isinstance(pattern, Empty) else format_pattern(pattern))
                 + ")")
    if clause.within is not None:
        lines.append(f"WITHIN INTERVAL '{_decimal(clause.within.amount)}' "
                     f"{clause.within.unit}")
    if clause.subsets:
        lines.append("SUBSET " + ", ".join(
            f"{name(s.name)} = ({', '.join(name(v) for v in s.vars)})" for s in clause.subsets))
    if clause.defines:
        lines.append("DEFINE " + ", ".join(f"{name(d.var)} AS {format_expr(d.condition)}"
                                           for d in clause.defines))
    return "\n".join(lines)


def _sort_key(key: SortKey) -> str:
    text = format_expr(key.expr) + (" DESC" if key.descending else "")
    if key.nulls_first is not None:
        text += " NULLS FIRST" if key.nulls_first else " NULLS LAST"
    return text


# ---------------------------------------------------------------- row patterns


def format_pattern(p: RowPattern) -> str:
    """A row pattern as ``PATTERN ( … )`` holds it."""
    if isinstance(p, Alt):
        return " | ".join(_pattern_in(item, 2) for item in p.items)
    if isinstance(p, Concat):
        return " ".join(_pattern_in(item, 3) for item in p.items)
    if isinstance(p, Quantified):
        return _pattern_in(p.body, 4) + _quantifier(p) + ("?" if p.reluctant else "")
    if isinstance(p, Var):
        return name(p.name)
    if isinstance(p, Empty):
        return "()"
    if isinstance(p, Anchor):
        return p.kind
    if isinstance(p, Permute):
        return "PERMUTE(" + ", ".join(format_pattern(item) for item in p.items) + ")"
    if isinstance(p, Exclude):
        return "{- " + format_pattern(p.body) + " -}"
    raise TypeError(f"not a row pattern: {p!r}")


def _pattern_binding(p: RowPattern) -> int:
    return 1 if isinstance(p, Alt) else 2 if isinstance(p, Concat) else (
        3 if isinstance(p, Quantified) else 4)


def _pattern_in(p: RowPattern, binding: int) -> str:
    text = format_pattern(p)
    return text if _pattern_binding(p) >= binding or isinstance(p, Empty) else f"({text})"


def _quantifier(q: Quantified) -> str:
    low, high = q.low, q.high
    short = {(0, None): "*", (1, None): "+", (0, 1): "?"}.get((low, high))
    if short is not None:
        return short
    if high is None:
        return f"{{{low},}}"
    if low == high:
        return f"{{{low}}}"
    return f"{{,{high}}}" if low == 0 else f"{{{low},{high}}}"


# ---------------------------------------------------------------- expressions


def format_expr(e: Expr) -> str:
    """An expression as SQL, parenthesised where its tree needs it."""
    if isinstance(e, Binary):
        binding = _BINARY[e.op]
        left = _in(e.left, binding + 1 if binding == _PREDICATE else binding)
        return f"{left} {e.op} {_in(e.right, binding + 1)}"
    if isinstance(e, Unary):
        if e.op == "NOT":
            return "NOT " + _in(e.operand, 3)
        operand = _in(e.operand, _UNARY)
        if isinstance(e.operand, (Unary, Literal)) or operand.startswith(("-", "+")):
            operand = f"({format_expr(e.operand)})"
        return e.op + operand
    if isinstance(e, IsNull):
        return _in(e.operand, 5) + (" IS NOT NULL" if e.negated else " IS NULL")
    if isinstance(e, Between):
        return (f"{_in(e.operand, 5)}{' NOT' if e.negated else ''} BETWEEN "
                f"{_in(e.low, 5)} AND {_in(e.high, 5)}")
    if isinstance(e, InList):
        items = ", ".join(x.text if isinstance(x, Subquery) and x.many else format_expr(x)
                          for x in e.items)
        return f"{_in(e.operand, 5)}{' NOT' if e.negated else ''} IN ({items})"
    if isinstance(e, Like):
        return f"{_in(e.operand, 5)}{' NOT' if e.negated else ''} LIKE {_in(e.pattern, 5)}"
    return _atom(e)


def _binding(e: Expr) -> int:
    if isinstance(e, Binary):
        return _BINARY[e.op]
    if isinstance(e, Unary):
        return 3 if e.op == "NOT" else _UNARY
    if isinstance(e, (IsNull, Between, InList, Like)):
        return _PREDICATE
    if isinstance(e, Literal) and isinstance(e.value, (int, float, Decimal)) and not isinstance(
            e.value, bool) and str(e.value).startswith("-"):
        return _UNARY
    return _ATOM


def _in(e: Expr, binding: int) -> str:
    """``e`` where an expression binding at least ``binding`` tightly is read."""
    text = format_expr(e)
    return text if _binding(e) >= binding else f"({text})"


def _atom(e: Expr) -> str:
    if isinstance(e, Literal):
        return _literal(e.value)
    if isinstance(e, Column):
        return name(e.name) if e.var is None else f"{name(e.var)}.{name(e.name)}"
    if isinstance(e, Navigation):
        default = 1 if e.kind in ("PREV", "NEXT") else 0
        offset = "" if e.offset == default else f", {e.offset}"
        return f"{_semantics(e.semantics)}{e.kind}({format_expr(e.operand)}{offset})"
    if isinstance(e, Aggregate):
        distinct = "DISTINCT " if e.distinct else ""
        if e.operand is not None:
            argument = format_expr(e.operand)
        else:
            argument = "*" if e.var is None else f"{name(e.var)}.*"
        where = "" if e.filter is None else f" FILTER (WHERE {format_expr(e.filter)})"
        return f"{_semantics(e.semantics)}{e.name}({distinct}{argument}){where}"
    if isinstance(e, Classifier):
        return f"{_semantics(e.semantics)}CLASSIFIER({'' if e.var is None else name(e.var)})"
    if isinstance(e, MatchNumber):
        return "MATCH_NUMBER()"
    if isinstance(e, Subquery):
        return f"({e.text})"
    if isinstance(e, Case):
        parts = ["CASE"] + ([] if e.operand is None else [format_expr(e.operand)])
        parts += [f"WHEN {format_expr(w)} THEN {format_expr(t)}" for w, t in e.whens]
        if e.otherwise is not None:
            parts.append("ELSE " + format_expr(e.otherwise))
        return " ".join(parts + ["END"])
    if isinstance(e, Cast):
        return f"CAST({format_expr(e.operand)} AS {e.type})"
    if isinstance(e, Call):
        if not _REGULAR.fullmatch(e.name) or e.name in _NOT_CALLS:
            raise ValueError(f"a function's name is a regular identifier, not {e.name!r}")
        return f"{e.name}({', '.join(format_expr(x) for x in e.args)})"
    raise TypeError(f"not an expression: {e!r}")


def _semantics(semantics: str | None) -> str:
    return "" if semantics is None else semantics + " "


def _literal(value: object) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, Decimal):
        return _decimal(value, point=True)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"SQL has no literal for {value!r}")
        text = repr(value)
        return text if "e" in text else text + "e0"
    assert isinstance(value, str)
    return "'" + value.replace("'", "''") + "'"


def _decimal(value: Decimal, point: bool = False) -> str:
    """``value`` in positional notation (``1E+2`` is ``100``); with ``point``, always
    with a decimal point, so that it reads back as a ``Decimal``, not an ``int``."""
    if not value.is_finite():
        raise ValueError(f"SQL has no literal for {value!r}")
    text = format(value, "f")
    return text + ".0" if point and "." not in text else text
