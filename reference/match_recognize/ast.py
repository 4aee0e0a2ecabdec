"""The AST of SQL row pattern recognition: ``MATCH_RECOGNIZE`` (ISO/IEC 9075-2:2016).

Row pattern recognition in a ``FROM`` clause is defined by ISO/IEC 9075-2:2016
§7.6 (<table reference>, <row pattern recognition clause>) and explained in
ISO/IEC TR 19075-5:2016 (sections cited below as "TR §n"); the vendors' public
manuals (Oracle's "SQL for Pattern Matching", Trino's and Flink's
``MATCH_RECOGNIZE`` pages, Snowflake's) describe the same clauses. A query is

```
SELECT … FROM <source> MATCH_RECOGNIZE (
  [PARTITION BY e, …] [ORDER BY e [ASC|DESC] [NULLS FIRST|LAST], …]
  [MEASURES e AS name, …]
  [ONE ROW PER MATCH | ALL ROWS PER MATCH [SHOW EMPTY MATCHES | OMIT EMPTY MATCHES
                                           | WITH UNMATCHED ROWS]]
  [AFTER MATCH SKIP PAST LAST ROW | TO NEXT ROW | TO FIRST v | TO LAST v | TO v]
  PATTERN (<row pattern>)
  [SUBSET u = (v, …), …]
  [WITHIN INTERVAL '<n>' <unit>]          -- Flink's extension, not the standard's
  DEFINE v AS <condition>, …
) [AS] [alias] …
```

Three groups of nodes, each a frozen dataclass:

- the row pattern (TR §4.7; :class:`RowPattern`): variables, concatenation,
  alternation, grouping, quantifiers greedy and reluctant, ``PERMUTE``, the
  anchors ``^ $``, exclusion ``{- … -}`` and the empty pattern ``()``;
- expressions (:class:`Expr`) of ``DEFINE``, ``MEASURES``, ``PARTITION BY``
  and ``ORDER BY``: SQL scalar expressions plus the row pattern's own
  functions: column references qualified by a pattern or union variable
  (TR §4.8), navigation ``PREV NEXT FIRST LAST`` with offsets (TR §4.10–4.11),
  aggregates (TR §4.9), ``CLASSIFIER()`` and ``MATCH_NUMBER()`` (TR §4.12),
  each with ``RUNNING`` or ``FINAL`` semantics where the standard allows it
  (TR §4.13);
- the clause (:class:`MatchRecognize`) and the statement around it
  (:class:`Statement`, the root: a :class:`~kleene.reference.pattern.Pattern`).

The outer ``SELECT`` is not Kleene's to define: a :class:`Statement` keeps its
text and the places of every ``<source> MATCH_RECOGNIZE (…)`` in it
(:class:`Recognition`), so that a real SQL engine evaluates the rest once each
recognition's output table stands in for it.

Every node has ``at``: the offset of its first character in the statement's
text (``-1`` for a node built in code), so that a semantic error names line and
column; it takes no part in equality, so a parsed AST equals one built by hand.
Identifiers are kept as written but compared case-insensitively: the parser
gives every pattern variable and column name in upper case unless it was
quoted (SQL's rule for regular identifiers, ISO/IEC 9075-2 §5.2).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Literal as Choice

from kleene.reference.pattern import Pattern


@dataclass(frozen=True)
class Node:
    """A node of the AST; ``at`` is where it starts in the statement's text."""

    at: int = field(default=-1, compare=False, kw_only=True, repr=False)


# --- the row pattern (TR §4.7; ISO/IEC 9075-2 §7.6 <row pattern>) ---------------------------


@dataclass(frozen=True)
class RowPattern(Node):
    """A row pattern or a part of one."""


@dataclass(frozen=True)
class Var(RowPattern):
    """A primary pattern variable: one row that satisfies the variable's ``DEFINE``
    condition (or any row when the variable has none, TR §4.14)."""

    name: str


@dataclass(frozen=True)
class Empty(RowPattern):
    """The empty pattern ``()``: matches no row, once."""


@dataclass(frozen=True)
class Concat(RowPattern):
    """Concatenation ``p1 p2 …`` (at least two parts)."""

    items: tuple[RowPattern, ...]


@dataclass(frozen=True)
class Alt(RowPattern):
    """Alternation ``p1 | p2 | …`` (at least two parts): the left one is preferred."""

    items: tuple[RowPattern, ...]


@dataclass(frozen=True)
class Quantified(RowPattern):
    """``body`` repeated ``low`` to ``high`` times (``None``: unbounded).

    ``*`` is ``{0,}``, ``+`` ``{1,}``, ``?`` ``{0,1}``, ``{n}`` ``{n,n}``,
    ``{,m}`` ``{0,m}``; a trailing ``?`` makes it reluctant (fewest repetitions
    preferred), otherwise it is greedy (most preferred), TR §4.7.3.
    """

    body: RowPattern
    low: int
    high: int | None
    reluctant: bool = False


@dataclass(frozen=True)
class Permute(RowPattern):
    """``PERMUTE(p1, …, pn)``: every order of the parts, preferred in the
    lexicographic order of their positions in the list (TR §4.7.5)."""

    items: tuple[RowPattern, ...]


@dataclass(frozen=True)
class Anchor(RowPattern):
    """``^`` (before the partition's first row) or ``$`` (after its last)."""

    kind: Choice["^", "$"]


@dataclass(frozen=True)
class Exclude(RowPattern):
    """``{- p -}``: rows matched by ``p`` are left out of ``ALL ROWS PER MATCH``
    output (they are still part of the match, TR §4.7.4)."""

    body: RowPattern


# --- expressions ---------------------------------------------------------------------------

#: ``RUNNING`` or ``FINAL`` (TR §4.13); ``None``: not written (running in ``DEFINE``,
#: running in ``MEASURES`` under ``ALL ROWS PER MATCH``, final under ``ONE ROW PER MATCH``).
Semantics = Choice["RUNNING", "FINAL"] | None


@dataclass(frozen=True)
class Expr(Node):
    """A scalar expression."""


@dataclass(frozen=True)
class Literal(Expr):
    """A constant: ``NULL`` (``None``), a boolean, an integer, an exact decimal
    (``1.5``), an approximate number (``1e3``, a ``float``) or a string."""

    value: None | bool | int | Decimal | float | str


@dataclass(frozen=True)
class Column(Expr):
    """A column of the input, ``price`` or ``A.price``: ``var`` is the pattern or
    union variable that qualifies it (``None``: the universal row pattern
    variable, every row of the match so far, TR §4.8)."""

    name: str
    var: str | None = None


@dataclass(frozen=True)
class Unary(Expr):
    """``-e``, ``+e`` or ``NOT e``."""

    op: Choice["-", "+", "NOT"]
    operand: Expr


@dataclass(frozen=True)
class Binary(Expr):
    """``left op right``: arithmetic ``+ - * / %``, ``||``, a comparison
    ``= <> < <= > >=`` or ``AND`` / ``OR`` (three-valued)."""

    op: str
    left: Expr
    right: Expr


@dataclass(frozen=True)
class IsNull(Expr):
    """``e IS [NOT] NULL``."""

    operand: Expr
    negated: bool = False


@dataclass(frozen=True)
class Between(Expr):
    """``e [NOT] BETWEEN low AND high``."""

    operand: Expr
    low: Expr
    high: Expr
    negated: bool = False


@dataclass(frozen=True)
class InList(Expr):
    """``e [NOT] IN (x, …)``."""

    operand: Expr
    items: tuple[Expr, ...]
    negated: bool = False


@dataclass(frozen=True)
class Like(Expr):
    """``e [NOT] LIKE pattern``."""

    operand: Expr
    pattern: Expr
    negated: bool = False


@dataclass(frozen=True)
class Case(Expr):
    """``CASE [operand] WHEN w THEN t … [ELSE e] END``."""

    operand: Expr | None
    whens: tuple[tuple[Expr, Expr], ...]
    otherwise: Expr | None = None


@dataclass(frozen=True)
class Cast(Expr):
    """``CAST(e AS type)``; ``type`` as written, upper case."""

    operand: Expr
    type: str


@dataclass(frozen=True)
class Call(Expr):
    """A scalar function that is not the row pattern's own: ``ABS(x)``,
    ``COALESCE(x, y)``; ``name`` upper case."""

    name: str
    args: tuple[Expr, ...]


@dataclass(frozen=True)
class Navigation(Expr):
    """``PREV(e, n)``, ``NEXT(e, n)`` (physical: ``n`` rows before or after the
    row ``e`` is evaluated on, TR §4.11) or ``FIRST(e, n)``, ``LAST(e, n)``
    (logical: the ``n``-th row from the first or last of the rows mapped to
    ``e``'s variable, TR §4.10). ``offset`` defaults to 1 for ``PREV``/``NEXT``
    and 0 for ``FIRST``/``LAST``; ``PREV(LAST(A.x, 1), 2)`` nests a logical
    navigation inside a physical one."""

    kind: Choice["PREV", "NEXT", "FIRST", "LAST"]
    operand: Expr
    offset: int
    semantics: Semantics = None


@dataclass(frozen=True)
class Aggregate(Expr):
    """``COUNT SUM AVG MIN MAX ARRAY_AGG`` over the rows mapped to one variable (the
    variable that qualifies the argument's columns, else the filter's; ``COUNT(A.*)``:
    ``var`` ``A``; ``COUNT(*)``: ``operand`` ``None``), TR §4.9; of those rows only the ones
    where ``filter`` is TRUE (``FILTER (WHERE …)``, ISO/IEC 9075-2 §10.9 <filter clause>)."""

    name: Choice["COUNT", "SUM", "AVG", "MIN", "MAX", "ARRAY_AGG"]
    operand: Expr | None
    var: str | None = None
    distinct: bool = False
    semantics: Semantics = None
    filter: Expr | None = None


@dataclass(frozen=True)
class Classifier(Expr):
    """``CLASSIFIER()``: the name of the primary variable the row is mapped to
    (``CLASSIFIER(U)``: that of the last row mapped to ``U``, as a column reference
    qualified by ``U`` reads it; Trino: "it limits the rows of interest, the same way
    as with prefixed column references"), TR §4.12."""

    var: str | None = None
    semantics: Semantics = None


@dataclass(frozen=True)
class Subquery(Expr):
    """A subquery ``(SELECT …)`` inside the clause, its ``text`` as written (``many``: the
    list of ``x IN (SELECT …)``, its only item). The standard admits one that performs no
    row pattern recognition and reads no row pattern variable of the clause around it
    (TR 19075-5 §4.18.4, as the PostgreSQL RPR patch quotes it); it is so a constant of the
    recognition, evaluated once by the SQL engine around it
    (:func:`kleene.data.sql.run_statement`) into ``values``, its rows' first column
    (``None``: not yet evaluated)."""

    text: str
    many: bool = False
    values: tuple[object, ...] | None = None


@dataclass(frozen=True)
class MatchNumber(Expr):
    """``MATCH_NUMBER()``: the match's number in its partition, from 1 (TR §4.12)."""


# --- the clause ----------------------------------------------------------------------------


@dataclass(frozen=True)
class SortKey(Node):
    """An ``ORDER BY`` item."""

    expr: Expr
    descending: bool = False
    #: ``NULLS FIRST`` (``True``), ``NULLS LAST`` (``False``) or not written (``None``)
    nulls_first: bool | None = None


@dataclass(frozen=True)
class Measure(Node):
    """``MEASURES expr AS name``."""

    expr: Expr
    name: str


@dataclass(frozen=True)
class Subset(Node):
    """``SUBSET name = (v1, …)``: a union variable (TR §4.8)."""

    name: str
    vars: tuple[str, ...]


@dataclass(frozen=True)
class Define(Node):
    """``DEFINE var AS condition``."""

    var: str
    condition: Expr


#: ``ONE ROW PER MATCH`` and the three kinds of ``ALL ROWS PER MATCH`` (TR §4.4).
RowsPerMatch = Choice["ONE", "ALL SHOW", "ALL OMIT", "ALL WITH UNMATCHED"]


@dataclass(frozen=True)
class AfterMatchSkip(Node):
    """``AFTER MATCH SKIP …`` (TR §4.5): ``PAST LAST ROW``, ``TO NEXT ROW``,
    ``TO FIRST v``, ``TO LAST v`` or ``TO v`` (which is ``TO LAST v``)."""

    kind: Choice["PAST LAST ROW", "TO NEXT ROW", "TO FIRST", "TO LAST"]
    var: str | None = None


@dataclass(frozen=True)
class Within(Node):
    """Flink's ``WITHIN INTERVAL 'n' unit`` (not in the standard): a match spans
    at most this much of the first ``ORDER BY`` key. ``amount`` exactly as
    written; ``unit`` upper case (``SECOND``, ``MINUTE``, …)."""

    amount: Decimal
    unit: str


@dataclass(frozen=True)
class MatchRecognize(Node):
    """One ``MATCH_RECOGNIZE ( … )`` clause (ISO/IEC 9075-2 §7.6); defaults as the
    standard's: ``ONE ROW PER MATCH``, ``AFTER MATCH SKIP PAST LAST ROW``."""

    pattern: RowPattern
    defines: tuple[Define, ...] = ()
    partition_by: tuple[Expr, ...] = ()
    order_by: tuple[SortKey, ...] = ()
    measures: tuple[Measure, ...] = ()
    rows_per_match: RowsPerMatch = "ONE"
    after_match: AfterMatchSkip = AfterMatchSkip("PAST LAST ROW")
    subsets: tuple[Subset, ...] = ()
    within: Within | None = None


# --- the statement (the AST root) ----------------------------------------------------------


@dataclass(frozen=True)
class TableName(Node):
    """A named table as the source of a recognition: ``t`` or ``schema.t``, as written,
    with the row pattern input name and columns written after it (``ticks AS k``), or a
    table function or a parenthesised query followed by such a name (``range(6) t(x)``,
    ``(VALUES (1)) t(x)``): the text a SQL engine reads after ``SELECT * FROM``."""

    name: str


@dataclass(frozen=True)
class Recognition(Node):
    """``<source> MATCH_RECOGNIZE ( … ) [AS] [alias]`` inside a statement.

    ``source`` is a table name or a parenthesised query (itself a
    :class:`Statement`, which may hold recognitions of its own); ``start`` and
    ``end`` delimit, in the statement's text, the source and the clause up to
    its closing parenthesis (the alias, if any, follows ``end`` and is kept in
    the text): replacing ``text[start:end]`` by the name of the recognition's
    output table gives SQL that a plain SQL engine runs.
    """

    source: TableName | Statement
    clause: MatchRecognize
    alias: str | None
    start: int
    end: int


@dataclass(frozen=True)
class Statement(Pattern, Node):
    """A query holding one or more row pattern recognitions: its whole text and
    each recognition, in the order they appear (a subquery's recognitions sit
    inside its :class:`Recognition`'s source, not here)."""

    text: str
    recognitions: tuple[Recognition, ...]
