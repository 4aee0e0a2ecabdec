"""Patterns checked against the events' schema before any matching.

A schema is a mapping from column name to the *kinds* of its values
(``num``, ``str``, ``bool``; the kinds of :func:`kleene.reference.conditions.compare`);
:func:`kleene.data.kinds.kinds_of` reads it from a stream's events or columns, and
any other backend (a Spark or Arrow schema) can build the same mapping.
:func:`check_pattern` then refuses, before any matching:

- an attribute that no event has (``c.actoin``): the error names it and the
  columns present; ``allow_missing`` keeps the three-valued reading instead
  (the attribute is missing in every event, so each comparison with it is
  unknown; docs/semantics.md, "Missing values");
- a comparison whose sides can never have the same kind (a text column with
  a number, ``'a' < 5``): by :func:`compare` it would be unknown for every
  event, so the pattern could never match — a silent zero;
- ``SUM``, ``AVG``, ``MIN`` or ``MAX`` over a column with no numbers;
- a partition attribute that no event has (SREMO's ``e PARTITION BY a``, Wayeb's
  ``{partitionBy:a}``): every event would be a part of its own, so a typo would
  quietly change the matches (SES and operator ``PARTITION BY`` become equalities,
  checked as comparisons);
- an event type named (an operator pattern's ``A a``) on events with no type:
  no event has one, so the variable could never bind.

:func:`check_units` refuses a window written in a unit (``WITHIN 1 hour``) over
timestamps of no declared unit, once the events are read and before any engine
compiles the query.

Errors carry the line and column of the attribute in the pattern's text when
it is given (docs/architecture.md, "Bad input").
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import fields, is_dataclass
from typing import Any

from kleene.reference.condition_text import format_term
from kleene.reference.conditions import Agg, Attr, Cmp, Const, Prev, Term
from kleene.reference.durations import Duration
from kleene.reference.errors import KleeneError, PatternError, PatternSyntaxError
from kleene.reference.query import Query
from kleene.reference.syntax import check_prev, tokenize

#: A schema: column name → the kinds of its values (empty: only missing values).
Schema = Mapping[str, frozenset[str]]

_KIND_NAMES = {"num": "numbers", "str": "text", "bool": "booleans"}


def kind(value: object) -> str | None:
    """``num``, ``str`` or ``bool`` (``None`` for a missing value)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "num"
    return "str"


def nodes(pattern: Any) -> Iterator[Any]:
    """Every node of ``pattern``, each once, parents first and children in the order the
    pattern holds them (any language's AST: dataclasses, tuples, mappings; strings and
    numbers are leaves, not yielded)."""
    seen: set[int] = set()
    todo = [pattern]
    while todo:
        node = todo.pop()
        if isinstance(node, (str, int, float, bool, type(None))) or id(node) in seen:
            continue
        seen.add(id(node))
        yield node
        if isinstance(node, (tuple, list, frozenset, set)):
            todo.extend(reversed(list(node)))
        elif isinstance(node, Mapping):
            todo.extend(reversed(list(node.values())))
        elif is_dataclass(node):
            todo.extend(reversed([getattr(node, f.name) for f in fields(node)]))


def comparisons(pattern: Any) -> Iterator[Cmp]:
    """Every comparison in ``pattern``."""
    return (node for node in nodes(pattern) if isinstance(node, Cmp))


def partition_attributes(pattern: Any) -> Iterator[str]:
    """The attributes of every partition in ``pattern``: a node with a ``by`` tuple of
    names (SREMO's :class:`~kleene.reference.sremo.expressions.Partition`)."""
    for node in nodes(pattern):
        by = getattr(node, "by", None) if is_dataclass(node) else None
        if isinstance(by, tuple) and by and all(isinstance(a, str) for a in by):
            yield from by


def typed_variables(pattern: Any) -> Iterator[tuple[str, str]]:
    """``(type, variable)`` of every variable ``pattern`` binds to an event type: a node
    with a ``type`` and a ``var`` of text (the operator languages' ``A a``; ``ANY a``
    names no type)."""
    for node in nodes(pattern):
        if is_dataclass(node):
            typ, var = getattr(node, "type", None), getattr(node, "var", None)
            if isinstance(typ, str) and isinstance(var, str):
                yield typ, var


def text_equalities(pattern: Any) -> Iterator[tuple[str, str, str]]:
    """``(attribute, text, words)`` of every equality of an attribute with a text
    constant in ``pattern`` (``p.action = 'purchase'``, either way round) and every
    typed variable (``Purchase p`` is ``type`` = ``'Purchase'``); ``words`` is how the
    pattern writes it."""
    for c in comparisons(pattern):
        if c.op != "=":
            continue
        for term, other in ((c.left, c.right), (c.right, c.left)):
            attr = _attribute(term)
            if attr is not None and not isinstance(term, Agg) and isinstance(other, Const) \
                    and isinstance(other.value, str):
                yield attr, other.value, f"{format_term(c.left)} = {format_term(c.right)}"
    for typ, var in typed_variables(pattern):
        yield "type", typ, f"{typ} {var}"


def check_units(query: Query) -> None:
    """A :class:`PatternError` when a window of the query's pattern is written in a time
    unit and its timestamps have none (:meth:`Duration.in_units_of`): said before any
    engine compiles the query."""
    for node in nodes(query.pattern):
        if isinstance(node, Duration):
            node.in_units_of(query.time_unit)


def check_static(query: Query) -> None:
    """The checks that need no data: ``prev`` on a variable that binds one event
    (:func:`kleene.reference.syntax.check_prev`), in a language whose variables may bind
    several (its registry entry's ``repeated``)."""
    repeated = query.lang.repeated
    if repeated is not None:
        check_prev(query.text, query.source, repeated(query.pattern))


def check_pattern(pattern: Any, schema: Schema, *, text: str | None = None,
                  source: str = "<pattern>", events: str = "the events",
                  allow_missing: bool = False, can_allow_missing: bool = True) -> None:
    """Raise a one-line error for the first attribute ``schema`` lacks (unless
    ``allow_missing``), comparison of kinds that never meet, aggregate over text, or
    partition attribute ``schema`` lacks; the error names ``--allow-missing`` only where
    the door offers it for the pattern (``can_allow_missing``)."""
    def hint(text: str, sep: str = " (") -> str:
        return f"{sep}{text}" if can_allow_missing else ""

    if not allow_missing:
        for name in partition_attributes(pattern):
            if name not in schema:
                present = ", ".join(sorted(schema)) or "(none)"
                raise _error(f"{events} have no attribute {name!r} (PARTITION BY {name}); "
                             f"the columns present: {present}"
                             + hint("--allow-missing reads it as missing: every event a "
                                    "part of its own)"),
                             Attr("", name), text, source)
        if "type" not in schema:
            for typ, var in typed_variables(pattern):
                present = ", ".join(sorted(schema)) or "(none)"
                raise _error(f"{events} have no event type, and the pattern names one "
                             f"({typ} {var}); the columns present: {present} (--type-field "
                             "names the column of the types"
                             + hint("--allow-missing reads no event as having the type",
                                    "; ") + ")", Const(typ), text, source)
    for c in comparisons(pattern):
        sides = (c.left, c.right)
        for t in sides:
            attr = _attribute(t)
            if attr is None or attr in schema or allow_missing:
                continue
            present = ", ".join(sorted(schema)) or "(none)"
            raise _error(f"{events} have no attribute {attr!r} ({format_term(t)}); the columns "
                         f"present: {present}" + hint("--allow-missing reads it as missing)"),
                         t, text, source)
        for t in sides:
            if isinstance(t, Agg) and t.func != "COUNT" and t.attr is not None \
                    and t.attr in schema and schema[t.attr] and "num" not in schema[t.attr]:
                raise _error(f"{t.func} over {t.attr!r}, which holds "
                             f"{_kinds(schema[t.attr])}, not numbers", t, text, source)
        left, right = (_term_kinds(t, schema) for t in sides)
        if left and right and not left & right:
            culprit = c.left if not isinstance(c.left, Const) else c.right
            raise _error(f"{format_term(c.left)} {c.op} {format_term(c.right)} compares "
                         f"{_kinds(left)} with {_kinds(right)}: it is unknown for every "
                         "event, so the pattern can never match", culprit, text, source)


def _attribute(t: Term) -> str | None:
    if isinstance(t, (Attr, Prev)):
        return t.attr
    if isinstance(t, Agg):
        return t.attr
    return None


def _term_kinds(t: Term, schema: Schema) -> frozenset[str]:
    """The kinds ``t`` can take (empty: unknown, or missing everywhere)."""
    if isinstance(t, Const):
        k = kind(t.value)
        return frozenset({k}) if k else frozenset()
    if isinstance(t, Agg):
        return frozenset({"num"})
    return schema.get(t.attr, frozenset())


def _kinds(kinds: frozenset[str]) -> str:
    return " and ".join(_KIND_NAMES[k] for k in sorted(kinds))




def _error(message: str, t: Term, text: str | None,
           source: str) -> KleeneError:
    where = locate(t, text, source) if text is not None else None
    if where is None:
        return PatternError(f"{source}: {message}")
    line, column = where
    return PatternSyntaxError(message, line=line, column=column, source=source, text=text)


def locate(t: Term, text: str, source: str = "<pattern>") -> tuple[int, int] | None:
    """Line and column of the first ``var.attr`` (or a constant) of ``t`` in ``text``."""
    try:
        tokens = tokenize(text, source)
    except PatternSyntaxError:
        return None
    if isinstance(t, Const):
        for tok in tokens:
            if tok.kind in ("number", "string") and tok.value == t.value:
                return tok.line, tok.column
        for tok in tokens:   # a name written bare (an operator pattern's event type)
            if tok.kind == "ident" and tok.text == t.value:
                return tok.line, tok.column
        return None
    var, attr = getattr(t, "var", None), getattr(t, "attr", None)
    for i, tok in enumerate(tokens[:-2]):
        if tok.text == var and attr is not None:
            for j in range(i + 1, min(i + 8, len(tokens) - 1)):
                if tokens[j].text == "." and tokens[j + 1].text == attr:
                    return tok.line, tok.column
                if tokens[j].kind == "ident":
                    break
    for tok in tokens:   # a language writing attributes otherwise (Wayeb's predicates)
        if tok.kind == "ident" and tok.text == attr:
            return tok.line, tok.column
    return None
