"""The text syntax of SES patterns, its parser and its printer.

The paper's triple ``(<{c, p+, d}, {b}>, Θ, 264 h)`` is written::

    PATTERN <{c, p+, d}, {b}>
    WHERE c.L = 'C' AND d.L = 'D' AND p.L = 'P' AND b.L = 'B'
      AND c.ID = p.ID AND c.ID = d.ID AND d.ID = b.ID
    WITHIN 264 hours

``PARTITION BY ID`` after the sets (before ``WHERE``) adds ``v.ID = w.ID`` for
every pair of variables ``v, w`` to Θ, in declaration order and before the
``WHERE`` conditions (docs/semantics.md, "PARTITION BY"); the printer writes
those equalities back as the clause. ``<...>`` may also be written ``⟨...⟩``
or ``(...)``. Θ is the list of the top-level ``AND``-separated conditions of
``WHERE`` (a parenthesised conjunction stays one condition). ``WITHIN``
takes a number and an optional unit (``ms``, ``s``/``seconds``,
``min``/``minutes``, ``h``/``hours``, ``d``/``days``); without a unit it is in timestamp units.
:func:`format_ses` prints a pattern so that :func:`parse_ses` reads it back. The grammar
checked against this parser is docs/grammars.md ("SES patterns").
"""

from __future__ import annotations

from kleene.reference.condition_text import format_condition
from kleene.reference.conditions import Condition
from kleene.reference.errors import PatternError, PatternSyntaxError
from kleene.reference.partition_by import partition_by, partition_equalities, split_partition
from kleene.reference.ses.pattern import KEYWORDS, SESPattern, Variable
from kleene.reference.syntax import Parser, where_conditions
from kleene.reference.syntax import duration as _duration

_CLOSE = {"<": ">", "⟨": "⟩", "(": ")"}


def parse_ses(text: str, source: str = "<pattern>") -> SESPattern:
    """Parse an SES pattern; errors carry line, column and what was expected."""
    p = Parser(text, source)
    p.expect("PATTERN", "'PATTERN'")
    sets = _sets(p)
    keys = partition_by(p)
    conditions: tuple[Condition, ...] = ()
    if p.accept("WHERE"):
        conditions = where_conditions(p)
    p.expect("WITHIN", "'WITHIN' and the window (e.g. WITHIN 264 hours)"
             if not conditions else "'AND', 'OR' or 'WITHIN'")
    window = _duration(p)
    p.end()
    _check_names(p, sets)
    names = [v.name for b in sets for v in b]
    try:
        return SESPattern(sets, partition_equalities(names, keys) + conditions, window)
    except PatternError as err:
        raise PatternSyntaxError(str(err.args[0]), line=1, column=1, source=source,
                                 text=text) from None


def _check_names(p: Parser, sets: tuple[tuple[Variable, ...], ...]) -> None:
    """Report a duplicate or undeclared variable at the token that names it."""
    declared: set[str] = set()
    in_where = False
    for i, tok in enumerate(p.tokens):
        if tok.kind != "ident":
            continue
        if tok.text.upper() in ("WHERE", "PARTITION"):
            in_where = True
            continue
        follows = p.tokens[i + 1].text if i + 1 < len(p.tokens) else ""
        if not in_where and follows in (",", "}", "+"):
            if tok.text in declared:
                raise p.error(f"a new variable name ({tok.text!r} is already declared; "
                              "the sets are pairwise disjoint)", tok)
            declared.add(tok.text)
        elif in_where and follows in (".", "+") and tok.text not in declared:
            previous = p.tokens[i - 1].text if i else ""
            if previous != ".":
                raise p.error(f"a declared variable ({', '.join(sorted(declared))})", tok)


def _sets(p: Parser) -> tuple[tuple[Variable, ...], ...]:
    opener = p.tok.text
    if opener not in _CLOSE:
        raise p.error("'<' opening the sequence of sets, as in PATTERN <{a, b+}, {c}>")
    p.advance()
    sets = [_set(p)]
    while p.accept(","):
        sets.append(_set(p))
    p.expect(_CLOSE[opener], f"',' or {_CLOSE[opener]!r} closing the sequence of sets")
    return tuple(sets)


def _set(p: Parser) -> tuple[Variable, ...]:
    p.expect("{", "'{' opening a set of variables")
    variables = [_variable(p)]
    while p.accept(","):
        variables.append(_variable(p))
    p.expect("}", "',' or '}' closing the set")
    return tuple(variables)


def _variable(p: Parser) -> Variable:
    tok = p.ident("a variable name")
    if tok.text.upper() in KEYWORDS:
        raise p.error("a variable name (not a keyword)", tok)
    return Variable(tok.text, group=p.accept("+") is not None)


def format_ses(pattern: SESPattern) -> str:
    """The pattern as text; ``parse_ses(format_ses(P)) == P``."""
    sets = ", ".join("{" + ", ".join(str(v) for v in b) + "}" for b in pattern.sets)
    lines = [f"PATTERN <{sets}>"]
    keys, conditions = split_partition(pattern.names, pattern.conditions)
    if keys:
        lines.append(f"PARTITION BY {', '.join(keys)}")
    if conditions:
        parts = [format_condition(c, 2) for c in conditions]
        lines.append("WHERE " + parts[0])
        lines.extend("  AND " + c for c in parts[1:])
    lines.append(f"WITHIN {pattern.window}")
    return "\n".join(lines) + "\n"
