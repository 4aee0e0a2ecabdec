"""The condition printer: a condition of :mod:`kleene.reference.conditions` as text that
the condition grammar (:mod:`kleene.reference.syntax`) reads back to the same AST
(the round trip every language's printer relies on; docs/architecture.md, "The
shared core": conditions are data, read by the printer, the pictures and Z3).

Constants print as the grammar writes them (strings single-quoted, a quote doubled);
parentheses appear only where ``OR`` sits inside ``AND`` or under ``NOT``.
"""

from __future__ import annotations

from kleene.reference.conditions import Attr, Cmp, Condition, Const, Not, Or, Prev, Term, Truth


def format_value(v: object) -> str:
    """A constant as pattern text (strings single-quoted, quotes doubled)."""
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, str):
        return "'" + v.replace("'", "''") + "'"
    if isinstance(v, float):
        text = repr(v)
        return text if ("." in text or "e" in text or "inf" in text) else text + ".0"
    return str(v)


def format_term(t: Term) -> str:
    """A term as pattern text."""
    if isinstance(t, Const):
        return format_value(t.value)
    if isinstance(t, Attr):
        return f"{t.var}.{t.attr}"
    if isinstance(t, Prev):
        return f"prev({t.var}.{t.attr})"
    inner = t.var if t.attr is None else f"{t.var}.{t.attr}"
    return f"{t.func}({inner})"


def format_condition(c: Condition, _level: int = 0) -> str:
    """``c`` as text that :func:`kleene.reference.syntax.parse_condition` reads back to
    ``c`` (round trip)."""
    if isinstance(c, Cmp):
        return f"{format_term(c.left)} {c.op} {format_term(c.right)}"
    if isinstance(c, Truth):
        return "TRUE" if c.value else "FALSE"
    if isinstance(c, Not):
        return "NOT " + format_condition(c.part, 3)
    level, word = (1, " OR ") if isinstance(c, Or) else (2, " AND ")
    text = word.join(format_condition(p, level + 1) for p in c.parts)
    return f"({text})" if _level >= level else text
