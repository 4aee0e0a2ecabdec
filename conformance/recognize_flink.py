"""Hypothesis strategies for ``MATCH_RECOGNIZE`` in the dialect Flink SQL takes: the share
of ``make peers``' drawn recognitions Flink is checked on (issue 30, item 3).

:mod:`.recognize_strategies` draws every construct of the standard, and most of its clauses
use one Flink rejects (``MATCH_NUMBER()`` in every plain clause), so Flink answered almost
none of them. The clauses here leave out what Flink's documentation lists as unsupported
(*Pattern Recognition*, "Known Limitations", and the sections it links:
nightlies.apache.org/flink/flink-docs-stable/docs/dev/table/sql/queries/match_recognize/):

- the pattern is a concatenation of distinct variables, each at most quantified: no pattern
  groups, alternation, ``PERMUTE``, anchors, exclusion or empty pattern, no variable twice
  (Flink: "Pattern variables must be unique"), no reluctant optional quantifier (``??``);
- it cannot match the empty sequence ("Patterns that can potentially produce an empty match
  are not supported") and its last element is a variable or a reluctant quantifier (a greedy
  one there is rejected: "not allowed as the last element", FLINK-10587); no ``?``, ``*`` or
  ``*?`` right after a greedy quantifier of variable length (Flink's planner builds those with
  the CEP library's ``Pattern.optional()``, which throws "Optional pattern cannot be preceded
  by greedy pattern": 4 of 300 drawn, 2026-11-28);
- ``DEFINE`` holds one condition or more (Flink's grammar, *Queries* overview:
  ``DEFINE variable AS condition [, variable AS condition ]*``; without one its parser stops
  at the clause's ``)``: 111 of 300 drawn, 2026-11-28, which the page had read as an empty
  pattern). A quantifier ``{0,n}`` is drawn; Flink's adapter writes it ``{0,n}``, not
  ``{,n}`` (``native.flink_bounds``);
- ``ONE ROW PER MATCH`` only; no ``SUBSET``, ``CLASSIFIER()``, ``MATCH_NUMBER()``,
  ``RUNNING``/``FINAL``, physical offsets (``PREV``/``NEXT``), ``DISTINCT`` or filtered
  aggregates, ``ARRAY_AGG``; an aggregate reads one variable's columns ("only if they
  reference a single pattern variable"); navigation is ``FIRST``/``LAST`` with an offset;
- ``ORDER BY`` is the ascending time attribute (``T``, never NULL, no two rows of a table
  equal on it: the adapter makes it Flink's event time), ``WITHIN`` (Flink's extension)
  sometimes.

Also left out, so that an answer is one the standard fixes: division (``/``, ``%``: an
integer quotient's type differs between engines) and ``AVG`` of the integer column (Flink
answers an integer).
"""

from __future__ import annotations

import typing
from collections.abc import Callable
from decimal import Decimal

import pyarrow as pa
from hypothesis import strategies as st

from kleene.conformance.recognize_strategies import condition_trees
from kleene.reference.match_recognize.ast import (
    AfterMatchSkip,
    Aggregate,
    Binary,
    Call,
    Case,
    Column,
    Concat,
    Define,
    Expr,
    Literal,
    MatchRecognize,
    Measure,
    Navigation,
    Quantified,
    RowPattern,
    SortKey,
    Unary,
    Var,
    Within,
)

#: Pattern variables; the columns (as :mod:`.recognize_strategies` names them).
VARIABLES = ("A", "B", "C", "D")
NUMERIC, TEXT, PARTITION, ORDER = ("X", "Y"), "S", "P", "T"

#: (low, high, reluctant) of an element before the last (``None``: no quantifier).
_INNER: tuple[tuple[int, int | None, bool] | None, ...] = (
    None, None, (1, None, False), (0, None, False), (0, 1, False), (2, 2, False),
    (1, 2, False), (0, 2, False), (2, None, False), (1, None, True), (0, None, True),
    (1, 2, True), (2, None, True))
#: Of the last element: a variable, or reluctant and never empty.
_LAST: tuple[tuple[int, int | None, bool] | None, ...] = (
    None, None, None, (1, None, True), (1, 2, True), (2, None, True))


#: The aggregates drawn (``COUNT`` twice as often).
_AGGREGATES: tuple[typing.Literal["COUNT", "SUM", "MIN", "MAX", "AVG"], ...] = (
    "COUNT", "COUNT", "SUM", "MIN", "MAX", "AVG")


@st.composite
def flink_patterns(draw: st.DrawFn) -> RowPattern:
    """A concatenation of one to four distinct variables, each at most quantified (the
    module docstring)."""
    names = draw(st.permutations(VARIABLES), label="variables")[:draw(st.integers(1, 4),
                                                                      label="length")]
    items: list[RowPattern] = []
    before: tuple[int, int | None, bool] | None = None
    for k, name in enumerate(names):
        choices = _LAST if k == len(names) - 1 else _INNER
        if _greedy(before):   # Flink: "Optional pattern cannot be preceded by greedy pattern"
            choices = tuple(q for q in choices if not _optional(q))
        q = draw(st.sampled_from(choices), label="quantifier")
        items.append(Var(name) if q is None else Quantified(Var(name), *q))
        before = q
    return items[0] if len(items) == 1 else Concat(tuple(items))


def _greedy(q: tuple[int, int | None, bool] | None) -> bool:
    """Whether Flink's planner marks the quantifier ``q`` greedy (``CommonExecMatch``'s
    ``applyQuantifier``: greedy and of variable length, ``?`` apart)."""
    return q is not None and not q[2] and q[0] != q[1] and q[:2] != (0, 1)


def _optional(q: tuple[int, int | None, bool] | None) -> bool:
    """Whether Flink's planner builds ``q`` with ``Pattern.optional()`` (``?``, ``*``,
    ``*?``), which rejects a greedy predecessor."""
    return q is not None and q[:2] in ((0, 1), (0, None))


def _variables(pattern: RowPattern) -> tuple[str, ...]:
    items = pattern.items if isinstance(pattern, Concat) else (pattern,)
    return tuple(i.body.name if isinstance(i, Quantified) and isinstance(i.body, Var)
                 else i.name if isinstance(i, Var) else "" for i in items)


@st.composite
def flink_numbers(draw: st.DrawFn, known: tuple[str, ...], depth: int = 2) -> Expr:
    """A numeric expression: a column (of a variable or none), an integer, ``+ - *``, a
    sign, ``ABS``, ``COALESCE``, ``CASE``, ``FIRST``/``LAST`` with an offset, an aggregate
    of one variable."""
    kinds = ["column", "column", "literal"]
    if depth > 0:
        kinds += ["arithmetic", "arithmetic", "negate", "abs", "coalesce", "case",
                  "navigation", "navigation", "aggregate", "aggregate"]
    kind = draw(st.sampled_from(kinds), label="numeric kind")
    inner = flink_numbers(known, depth - 1)
    if kind == "column":
        return Column(draw(st.sampled_from(NUMERIC), label="column"),
                      draw(st.sampled_from((None, *known)), label="qualifier"))
    if kind == "literal":
        return Literal(draw(st.integers(-3, 5), label="number"))
    if kind == "arithmetic":
        return Binary(draw(st.sampled_from(("+", "-", "*")), label="arithmetic"),
                      draw(inner, label="left"), draw(inner, label="right"))
    if kind == "negate":
        return Unary("-", draw(inner))
    if kind == "abs":
        return Call("ABS", (draw(inner),))
    if kind == "coalesce":
        return Call("COALESCE", (draw(inner), draw(inner)))
    if kind == "case":
        return Case(None, ((draw(flink_conditions(known, depth - 1)), draw(inner)),),
                    draw(st.none() | inner, label="otherwise"))
    if kind == "navigation":
        column = Column(draw(st.sampled_from(NUMERIC), label="column"),
                        draw(st.sampled_from(known), label="navigated variable"))
        return Navigation(draw(st.sampled_from(("FIRST", "LAST")), label="navigation"),
                          column, draw(st.integers(0, 2), label="offset"))
    var = draw(st.sampled_from((None, *known)), label="aggregated variable")
    column = Column(draw(st.sampled_from(NUMERIC), label="column"), var)
    name = draw(st.sampled_from(_AGGREGATES), label="aggregate")
    if name == "COUNT" and draw(st.booleans(), label="star"):
        return Aggregate("COUNT", None, var)
    if name == "AVG":
        column = Column("Y", var)
    return Aggregate(name, column, var)


@st.composite
def flink_texts(draw: st.DrawFn, known: tuple[str, ...]) -> Expr:
    """``S`` of a variable or none, a string, ``||``, ``UPPER``."""
    kind = draw(st.sampled_from(("column", "column", "string", "concat", "upper")),
                label="text kind")
    column = Column(TEXT, draw(st.sampled_from((None, *known)), label="qualifier"))
    if kind == "column":
        return column
    if kind == "string":
        return Literal(draw(st.sampled_from(("a", "b", "it's", "")), label="string"))
    if kind == "concat":
        return Binary("||", column, Literal(draw(st.sampled_from(("a", "")), label="tail")))
    return Call("UPPER", (column,))


def flink_conditions(known: tuple[str, ...], depth: int = 2) -> st.SearchStrategy[Expr]:
    """A condition: comparisons, ``IS [NOT] NULL``, ``[NOT] BETWEEN``, ``[NOT] IN``,
    ``[NOT] LIKE``, ``NOT``, ``AND``, ``OR`` (no ``TRUE``/``FALSE`` constants)."""
    return condition_trees(lambda d: flink_numbers(known, d), flink_texts(known), depth,
                           truth=False)


@st.composite
def flink_clauses(draw: st.DrawFn) -> MatchRecognize:
    """A clause in Flink's dialect (the module docstring) over the columns of
    :func:`flink_tables`, one to three measures, ``ONE ROW PER MATCH``."""
    pattern = draw(flink_patterns(), label="pattern")
    known = _variables(pattern)
    defined = draw(st.lists(st.sampled_from(known), min_size=1, unique=True),
                   label="defined")   # Flink's grammar: DEFINE and one condition or more
    defines = tuple(Define(v, draw(flink_conditions(known), label=f"DEFINE {v}"))
                    for v in sorted(defined, key=known.index))
    values = st.one_of(flink_numbers(known), flink_numbers(known), flink_texts(known),
                       flink_conditions(known, 1))
    measures = tuple(Measure(draw(values, label="measure"), f"M{i}")
                     for i in range(draw(st.integers(1, 3), label="measures")))
    partition_by = (Column(PARTITION),) if draw(st.booleans(), label="partitioned") else ()
    skip = draw(st.sampled_from(("PAST LAST ROW",) * 3 + ("TO NEXT ROW",) * 2
                                + ("TO FIRST", "TO LAST")), label="skip")
    after = AfterMatchSkip(skip, draw(st.sampled_from(known), label="skip to")
                           if skip.startswith("TO ") and skip != "TO NEXT ROW" else None)
    within = draw(st.none() | st.none() | st.builds(
        Within, st.integers(1, 8).map(Decimal), st.just("SECOND")), label="within")
    return MatchRecognize(pattern, defines, partition_by, (SortKey(Column(ORDER)),), measures,
                          "ONE", after, (), within)


@st.composite
def flink_tables(draw: st.DrawFn) -> pa.Table:
    """Tables of 2 to 12 rows over the columns of :mod:`.recognize_strategies`, ``T``
    distinct integers (Flink's event time: never NULL, no ties), a NULL in about one of
    eight values of every other column. The values come from a random generator Hypothesis
    draws (one draw for the table: drawing each value was most of the time of
    ``make peers``' drawing on a loaded machine)."""
    rnd = draw(st.randoms(use_true_random=False), label="table")
    n = rnd.randint(2, 12)

    def column(values: Callable[[], object]) -> list[object]:
        return [None if rnd.random() < 0.125 else values() for _ in range(n)]

    y_decimal = rnd.random() < 0.5
    y = column(lambda: round(rnd.uniform(-5, 5), 1))
    return pa.table({
        "X": pa.array(column(lambda: rnd.randint(-3, 3)), type=pa.int64()),
        "Y": pa.array([None if v is None else Decimal(str(v)) for v in y],
                      type=pa.decimal128(4, 1)) if y_decimal else pa.array(y, pa.float64()),
        "S": pa.array(column(lambda: rnd.choice(("a", "b", "A%", ""))), type=pa.string()),
        "P": pa.array(column(lambda: rnd.choice(("p", "q"))), type=pa.string()),
        "T": pa.array(rnd.sample(range(31), n), type=pa.int64()),
    })


def flink_recognition(draw: st.DrawFn) -> tuple[MatchRecognize, pa.Table]:
    """A clause in Flink's dialect and a table for it."""
    return draw(flink_clauses(), label="clause"), draw(flink_tables(), label="table")
