"""Hypothesis strategies for ``MATCH_RECOGNIZE`` (SQL:2016 row pattern recognition):
row patterns, conditions and measures, whole clauses and statements
(docs/architecture.md, Style 6).

Drawn clauses are well formed (:mod:`kleene.reference.match_recognize.checks`
accepts them) and read a table of a few columns: numbers ``X`` and ``Y``, text
``S``, the partition key ``P`` and the order key ``T`` (:data:`COLUMNS`), so that the
syntax's round trip and, later, the reference and the engines draw from one place.
Every construct appears: quantifiers greedy and reluctant, alternation, grouping,
``PERMUTE``, anchors, exclusion, the empty pattern, ``SUBSET``, every ``ROWS PER
MATCH`` and ``AFTER MATCH SKIP``, ``WITHIN``; in expressions, ``PREV NEXT FIRST LAST``
with offsets (``FIRST``/``LAST`` inside ``PREV``/``NEXT``), aggregates with
``DISTINCT``, ``RUNNING``/``FINAL``, ``CLASSIFIER``, ``MATCH_NUMBER``, ``CASE``,
``CAST``, ``BETWEEN``, ``IN``, ``LIKE``, ``IS NULL``, ``||`` and calls.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal

import pyarrow as pa
from hypothesis import strategies as st

from kleene.engines.protocol import Feature
from kleene.reference.match_recognize.ast import (
    AfterMatchSkip,
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
    Define,
    Empty,
    Exclude,
    Expr,
    InList,
    IsNull,
    Like,
    Literal,
    MatchNumber,
    MatchRecognize,
    Measure,
    Navigation,
    Permute,
    Quantified,
    Recognition,
    RowPattern,
    RowsPerMatch,
    Semantics,
    SortKey,
    Statement,
    Subset,
    TableName,
    Unary,
    Var,
    Within,
)
from kleene.reference.match_recognize.checks import pattern_variables
from kleene.reference.match_recognize.expressions import AGGREGATES, NAVIGATIONS, walk
from kleene.reference.match_recognize.printer import format_clause

#: Pattern variables, in the order they are drawn.
VARIABLES = ("A", "B", "C", "D")
#: Names of union variables (``SUBSET``).
UNIONS = ("U", "W")
#: The numeric columns, the text column, the partition key and the order key.
NUMERIC, TEXT, PARTITION, ORDER = ("X", "Y"), "S", "P", "T"
COLUMNS = (*NUMERIC, TEXT, PARTITION, ORDER)

_QUANTIFIERS = ((0, None), (1, None), (0, 1), (2, 2), (1, 2), (0, 2), (2, None))
_TYPES = ("INTEGER", "DOUBLE", "DECIMAL(10,2)")
_UNITS = ("SECOND", "MINUTE", "HOUR")


@dataclass(frozen=True)
class _Scope:
    """What an expression may read: the variables it may name, whether it is a
    ``DEFINE`` condition (no ``FINAL``, no ``MATCH_NUMBER()``) and, inside a
    navigation's or aggregate's argument, the one variable its columns name (``""``
    outside one; ``None`` the universal variable) and whether a logical navigation may
    still be nested (inside ``PREV``/``NEXT`` only)."""

    known: tuple[str, ...]
    define: bool
    argument: str | None = ""
    logical_inside: bool = False


@st.composite
def row_patterns(draw: st.DrawFn, *, variables: tuple[str, ...] = VARIABLES,
                 max_depth: int = 3, exclusion: bool = True) -> RowPattern:
    """A row pattern over ``variables`` (TR §4.7), nested at most ``max_depth`` deep."""
    kinds = ["var", "var", "anchor", "empty"]
    if max_depth > 0:
        kinds += ["concat", "concat", "alt", "quantified", "quantified", "permute"]
        kinds += ["exclude"] if exclusion else []
    kind = draw(st.sampled_from(kinds), label="row pattern kind")
    inner = row_patterns(variables=variables, max_depth=max_depth - 1, exclusion=exclusion)
    if kind == "var":
        return Var(draw(st.sampled_from(variables), label="variable"))
    if kind == "anchor":
        return Anchor(draw(st.sampled_from(("^", "$")), label="anchor"))
    if kind == "empty":
        return Empty()
    if kind in ("concat", "alt", "permute"):
        items = tuple(draw(st.lists(inner, min_size=2, max_size=3), label=f"{kind} items"))
        return {"concat": Concat, "alt": Alt, "permute": Permute}[kind](items)
    if kind == "exclude":
        return Exclude(draw(inner, label="excluded"))
    low, high = draw(st.sampled_from(_QUANTIFIERS), label="quantifier")
    return Quantified(draw(inner, label="quantified"), low, high,
                      draw(st.booleans(), label="reluctant"))


def _literals() -> st.SearchStrategy[Literal]:
    numbers: st.SearchStrategy[int | Decimal | float] = st.one_of(
        st.integers(-5, 20),
                        st.decimals(-10, 10, places=2).map(lambda d: d.normalize()),
                        st.floats(-100, 100, allow_nan=False, allow_infinity=False))
    return (numbers | st.none()).map(Literal)


@st.composite
def numeric_values(draw: st.DrawFn, scope: _Scope, depth: int = 2) -> Expr:
    """A numeric expression: columns, literals, arithmetic, navigation, aggregates,
    ``MATCH_NUMBER()``, ``CASE``, ``CAST`` and calls, as ``scope`` allows."""
    kinds = ["column", "column", "literal"]
    inside = scope.argument != ""
    if depth > 0:
        kinds += ["arithmetic", "arithmetic", "negate", "abs"]
        if not inside:
            kinds += ["navigation", "navigation", "aggregate", "case", "cast", "coalesce"]
        elif scope.logical_inside:
            kinds += ["logical"]
    if not inside and not scope.define:
        kinds.append("match_number")
    kind = draw(st.sampled_from(kinds), label="numeric kind")
    value = numeric_values(scope, depth - 1)
    if kind == "column":
        var = scope.argument if inside else draw(st.sampled_from((None, *scope.known)),
                                                  label="qualifier")
        return Column(draw(st.sampled_from(NUMERIC), label="column"), var)
    if kind == "literal":
        return draw(_literals(), label="number")
    if kind == "arithmetic":
        op = draw(st.sampled_from(("+", "-", "*", "/", "%")), label="arithmetic")
        return Binary(op, draw(value, label="left"), draw(value, label="right"))
    if kind == "negate":
        return Unary(draw(st.sampled_from(("-", "+")), label="sign"), draw(value))
    if kind == "abs":
        return Call("ABS", (draw(value, label="argument"),))
    if kind == "coalesce":
        return Call("COALESCE", tuple(draw(st.lists(value, min_size=2, max_size=3))))
    if kind == "match_number":
        return MatchNumber()
    if kind == "case":
        whens = draw(st.lists(st.tuples(conditions(scope, depth - 1), value), min_size=1,
                              max_size=2), label="whens")
        operand_free = draw(st.none() | value, label="otherwise")
        return Case(None, tuple(whens), operand_free)
    if kind == "cast":
        return Cast(draw(value), draw(st.sampled_from(_TYPES), label="type"))
    if kind in ("navigation", "logical"):
        return draw(navigations(scope, logical=kind == "logical"), label="navigation")
    return draw(aggregates(scope), label="aggregate")


@st.composite
def navigations(draw: st.DrawFn, scope: _Scope, *, logical: bool = False) -> Expr:
    """``PREV NEXT FIRST LAST`` with an offset; ``PREV``/``NEXT`` may hold ``FIRST``/
    ``LAST`` (TR §4.11.3); ``RUNNING``/``FINAL`` only on ``FIRST``/``LAST``."""
    kind = draw(st.sampled_from(NAVIGATIONS[2:] if logical else NAVIGATIONS), label="navigation")
    physical = kind in ("PREV", "NEXT")
    var = draw(st.sampled_from((None, *scope.known)), label="navigated variable")
    inner = _Scope(scope.known, scope.define, var, logical_inside=physical)
    operand = draw(numeric_values(inner, 1), label="navigated")
    offset = draw(st.integers(0, 3), label="offset")
    semantics = None if physical else draw(_semantics(scope), label="semantics")
    return Navigation(kind, operand, offset, semantics)


def _semantics(scope: _Scope) -> st.SearchStrategy[Semantics]:
    choices: tuple[Semantics, ...] = (None, "RUNNING") if scope.define else (
        None, "RUNNING", "FINAL")
    return st.sampled_from(choices)


#: The aggregates whose value is a number (``ARRAY_AGG``'s is a list: a measure of its own).
_NUMERIC_AGGREGATES = tuple(name for name in AGGREGATES if name != "ARRAY_AGG")


@st.composite
def aggregates(draw: st.DrawFn, scope: _Scope,
               names: tuple[str, ...] = _NUMERIC_AGGREGATES) -> Expr:
    """``COUNT(*)``, ``COUNT(v.*)`` or one of ``names`` of a variable's rows (TR §4.9),
    with or without ``DISTINCT``, with or without ``FILTER (WHERE …)`` (a comparison of the
    same variable's columns, ISO/IEC 9075-2 §10.9)."""
    name = draw(st.sampled_from(names), label="aggregate")
    var = draw(st.sampled_from((None, *scope.known)), label="aggregated variable")
    distinct = draw(st.booleans(), label="distinct")
    semantics = draw(_semantics(scope), label="semantics")
    inner = _Scope(scope.known, scope.define, var)
    where = None
    if draw(st.booleans(), label="filtered"):
        where = Binary(draw(st.sampled_from(("<", ">=", "<>")), label="filter comparison"),
                       draw(numeric_values(inner, 0), label="filtered"),
                       draw(_literals(), label="filter bound"))
    if name == "COUNT" and draw(st.booleans(), label="star"):
        return Aggregate("COUNT", None, var, distinct, semantics, where)
    operand = draw(numeric_values(inner, 1), label="operand")
    named = any(isinstance(x, Column) for x in walk(operand))
    kind = next(k for k in AGGREGATES if k == name)
    return Aggregate(kind, operand, var if named else None, distinct, semantics, where)


@st.composite
def text_values(draw: st.DrawFn, scope: _Scope, depth: int = 1) -> Expr:
    """A text expression: ``S``, a string, ``CLASSIFIER()``, ``||``, ``UPPER``."""
    kinds = ["column", "string", "classifier"] + (["concat", "upper"] if depth > 0 else [])
    kind = draw(st.sampled_from(kinds), label="text kind")
    if kind == "column":
        return Column(TEXT, draw(st.sampled_from((None, *scope.known)), label="qualifier"))
    if kind == "string":
        return Literal(draw(st.sampled_from(("a", "b", "it's", "", "A%")), label="string"))
    if kind == "classifier":
        var = draw(st.sampled_from((None, *scope.known)), label="classified")
        return Classifier(var, draw(_semantics(scope), label="semantics"))
    inner = text_values(scope, depth - 1)
    if kind == "concat":
        return Binary("||", draw(inner), draw(inner))
    return Call("UPPER", (draw(inner),))


def conditions(scope: _Scope, depth: int = 2) -> st.SearchStrategy[Expr]:
    """A condition (three-valued): comparisons, ``IS [NOT] NULL``, ``[NOT] BETWEEN``,
    ``[NOT] IN``, ``[NOT] LIKE``, ``NOT``, ``AND``, ``OR``, ``TRUE``/``FALSE``."""
    return condition_trees(lambda d: numeric_values(scope, d), text_values(scope), depth,
                           truth=True)


@st.composite
def condition_trees(draw: st.DrawFn, numbers: Callable[[int], st.SearchStrategy[Expr]],
                    texts: st.SearchStrategy[Expr], depth: int, *, truth: bool) -> Expr:
    """A condition over the number values ``numbers(depth)`` and the text values
    ``texts`` draw: comparisons, ``IS [NOT] NULL``, ``[NOT] BETWEEN``, ``[NOT] IN``,
    ``[NOT] LIKE``, with ``truth`` the constants ``TRUE``/``FALSE``, and below ``depth``
    ``NOT``, ``AND``, ``OR`` of such conditions (every dialect's drawn ``DEFINE``)."""
    kinds = ["compare", "compare", "compare", "text", "null", "between", "in", "like"]
    kinds += ["truth"] if truth else []
    kinds += ["not", "and", "or"] if depth > 0 else []
    kind = draw(st.sampled_from(kinds), label="condition kind")
    number, text = numbers(max(depth - 1, 0)), texts
    negated = draw(st.booleans(), label="negated")
    if kind == "compare":
        op = draw(st.sampled_from(("=", "<>", "<", "<=", ">", ">=")), label="comparison")
        return Binary(op, draw(number, label="left"), draw(number, label="right"))
    if kind == "text":
        return Binary(draw(st.sampled_from(("=", "<>")), label="comparison"), draw(text),
                      draw(text))
    if kind == "null":
        return IsNull(draw(number | text, label="tested"), negated)
    if kind == "between":
        return Between(draw(number), draw(number), draw(number), negated)
    if kind == "in":
        return InList(draw(number), tuple(draw(st.lists(number, min_size=1, max_size=3))),
                      negated)
    if kind == "like":
        return Like(draw(text), Literal(draw(st.sampled_from(("a%", "_", "%b")))), negated)
    if kind == "truth":
        return Literal(draw(st.booleans(), label="truth"))
    inner = condition_trees(numbers, texts, depth - 1, truth=truth)
    if kind == "not":
        return Unary("NOT", draw(inner))
    return Binary(kind.upper(), draw(inner), draw(inner))


@st.composite
def match_recognize_clauses(draw: st.DrawFn, *, variables: tuple[str, ...] = VARIABLES,
                            max_depth: int = 3, max_measures: int = 3,
                            within: bool = True) -> MatchRecognize:
    """A well-formed clause over :data:`COLUMNS` with every construct (``within``:
    Flink's ``WITHIN`` too, sometimes)."""
    rows: RowsPerMatch = draw(st.sampled_from(("ONE", "ALL SHOW", "ALL OMIT",
                                               "ALL WITH UNMATCHED")), label="rows per match")
    pattern = draw(row_patterns(variables=variables, max_depth=max_depth,
                                exclusion=rows != "ALL WITH UNMATCHED"), label="pattern")
    primary = pattern_variables(pattern)
    unions: list[Subset] = []
    if primary:
        for union in draw(st.lists(st.sampled_from(UNIONS), unique=True, max_size=2),
                          label="unions"):
            members = draw(st.lists(st.sampled_from(primary), min_size=1, unique=True),
                           label="members")
            unions.append(Subset(union, tuple(members)))
    known = (*primary, *(u.name for u in unions))
    defined = draw(st.lists(st.sampled_from(primary), unique=True) if primary else st.just([]),
                   label="defined")
    defines = tuple(Define(v, draw(conditions(_Scope(known, True)), label=f"DEFINE {v}"))
                    for v in defined)
    measure_scope = _Scope(known, False)
    values = st.one_of(numeric_values(measure_scope), text_values(measure_scope),
                       conditions(measure_scope, 1),
                       aggregates(measure_scope, names=("ARRAY_AGG",)))
    measures = tuple(Measure(draw(values, label="measure"), f"M{i}")
                     for i in range(draw(st.integers(0, max_measures), label="measures")))
    partition_by = (Column(PARTITION),) if draw(st.booleans(), label="partitioned") else ()
    order_by = (SortKey(Column(ORDER), draw(st.booleans(), label="descending"),
                        draw(st.sampled_from((None, True, False)), label="nulls first")),)
    skips = [AfterMatchSkip("PAST LAST ROW"), AfterMatchSkip("TO NEXT ROW")]
    skips += [AfterMatchSkip(kind, v) for kind in ("TO FIRST", "TO LAST") for v in known]
    bound = draw(st.none() | st.builds(Within, st.integers(1, 60).map(Decimal),
                                       st.sampled_from(_UNITS)) if within else st.none(),
                 label="within")
    return MatchRecognize(pattern, defines, partition_by, order_by, measures, rows,
                          draw(st.sampled_from(skips), label="skip"), tuple(unions), bound)


@st.composite
def statements(draw: st.DrawFn, *, clauses: st.SearchStrategy[MatchRecognize] | None = None,
               ) -> Statement:
    """``SELECT * FROM t MATCH_RECOGNIZE ( … ) AS m`` around a drawn clause, its text as
    :func:`~kleene.reference.match_recognize.printer.format_statement` prints it."""
    clause = draw(clauses or match_recognize_clauses(), label="clause")
    head = "SELECT * FROM "
    piece = "t MATCH_RECOGNIZE (\n  " + "\n  ".join(format_clause(clause).splitlines()) + "\n)"
    text = head + piece + " AS m"
    recognition = Recognition(TableName("t"), clause, "M", len(head), len(head) + len(piece))
    return Statement(text, (recognition,))



def _column(draw: st.DrawFn, values: st.SearchStrategy[object], n: int, kind: pa.DataType,
            label: str, nulls: bool) -> pa.Array:
    drawn = st.none() | values if nulls else values
    return pa.array(draw(st.lists(drawn, min_size=n, max_size=n), label=label), type=kind)


@st.composite
def input_tables(draw: st.DrawFn, *, nulls: bool = True) -> pa.Table:
    """Tables over :data:`COLUMNS`: few distinct values (ties in the order key ``T`` and the
    partition key ``P``), NULLs in every column (``nulls``; else none), ``X`` integers,
    ``Y`` floats or decimals."""
    n = draw(st.integers(0, 10) | st.integers(4, 10), label="rows")
    y_decimal = draw(st.booleans(), label="Y decimal")
    y = (st.decimals(-5, 5, places=1) if y_decimal else
         st.floats(-5, 5, allow_nan=False).map(lambda f: round(f, 1)))
    return pa.table({
        "X": _column(draw, st.integers(-3, 3), n, pa.int64(), "X", nulls),
        "Y": _column(draw, y, n, pa.decimal128(4, 1) if y_decimal else pa.float64(), "Y",
                     nulls),
        "S": _column(draw, st.sampled_from(("a", "b", "A%", "")), n, pa.string(), "S", nulls),
        "P": _column(draw, st.sampled_from(("p", "q")), n, pa.string(), "P", nulls),
        "T": _column(draw, st.integers(0, 4), n, pa.int64(), "T", nulls),
    })


def recognition_for(draw: st.DrawFn, capabilities: frozenset[Feature]
                    ) -> tuple[MatchRecognize, pa.Table]:
    """``match_recognize``'s generator for ``kleene conform --generated`` (its registry hook
    ``generate``): a clause (Flink's ``WITHIN`` only for a backend that claims it) and an
    input table."""
    within = Feature("match_recognize", "within") in capabilities
    plain = draw(st.sampled_from((True, True, False)), label="plain clause")
    clause = draw(plain_clauses() if plain else match_recognize_clauses(within=within),
                  label="clause")
    return clause, draw(input_tables(nulls=not plain), label="table")


@st.composite
def plain_clauses(draw: st.DrawFn) -> MatchRecognize:
    """A clause of the everyday shape, where most engines' defects show: a quantified
    variable, alone or before or after another (or a shallow row pattern), each variable
    defined by a comparison of ``X`` with a constant or its previous value, and the match's
    row count, number and first order key as measures (one row per match)."""
    low, high = draw(st.sampled_from(_QUANTIFIERS), label="quantifier")
    quantified = Quantified(Var("A"), low, high, draw(st.booleans(), label="reluctant"))
    shape = draw(st.sampled_from(("A B", "B A", "A", "any")), label="shape")
    pattern: RowPattern = {"A B": Concat((quantified, Var("B"))), "A": quantified,
                           "B A": Concat((Var("B"), quantified))}.get(shape) or draw(
        row_patterns(max_depth=2, exclusion=False), label="pattern")
    ops = st.sampled_from((">", "<", "=", ">=", "<>"))
    defines = []
    for v in pattern_variables(pattern):
        right: Expr = draw(st.sampled_from((Literal(0), Literal(1), Navigation(
            "PREV", Column("X", v), 1))), label=f"DEFINE {v} operand")
        defines.append(Define(v, Binary(draw(ops, label="comparison"), Column("X", v), right)))
    measures = (Measure(Aggregate("COUNT", None), "N"), Measure(MatchNumber(), "M"),
                Measure(Navigation("FIRST", Column(ORDER), 0), "F"))
    partition_by = (Column(PARTITION),) if draw(st.booleans(), label="partitioned") else ()
    return MatchRecognize(pattern, tuple(defines), partition_by, (SortKey(Column(ORDER)),),
                          measures)
