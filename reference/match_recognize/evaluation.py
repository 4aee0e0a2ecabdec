"""The value of a ``DEFINE`` or ``MEASURES`` expression over a (partial) match.

ISO/IEC TR 19075-5:2016 §4.8–4.14 (as Oracle's "SQL for Pattern Matching",
"Expressions in MEASURES and DEFINE", and Trino's "Row pattern recognition
expressions" restate them). An expression is evaluated in a :class:`Scope`: the
partition's rows in order, the rows of the match mapped so far to their primary
variables, and how much of the match is visible:

- **running** (``upto`` rows of the match, from its first): a ``DEFINE`` condition
  sees the match up to and including the row it decides (TR §4.13; Trino: "only
  the preceding part of the match (plus the current row) is visible"); a measure
  of ``ALL ROWS PER MATCH`` sees the match up to the row it is output with;
- **final** (the whole match): ``FINAL`` before ``FIRST``, ``LAST``, an aggregate
  or ``CLASSIFIER`` (``MEASURES`` only); under ``ONE ROW PER MATCH`` the measures
  are evaluated at the match's last row, where running and final agree (Trino:
  "running and final semantics are the same").

The rules, each from TR §4 as cited:

- a column reference ``A.x`` reads ``x`` of the *last* row mapped to ``A`` (a
  primary variable, or a union variable of ``SUBSET``: any of its variables)
  among the visible rows; an unqualified ``x`` is qualified by the *universal*
  variable, every row of the match: the last visible row, the current row
  (TR §4.8; Trino: "a non-prefixed column name refers to all rows of the current
  match"); no such row: NULL;
- ``FIRST(e, n)`` / ``LAST(e, n)`` (logical navigation, TR §4.10): the ``n``-th
  row (default 0) from the first / last of the visible rows mapped to ``e``'s
  variable; none: NULL;
- ``PREV(e, n)`` / ``NEXT(e, n)`` (physical navigation, TR §4.11): ``n`` rows
  (default 1) before / after the row ``e`` refers to (for ``PREV(LAST(A.x, 1), 2)``
  the row the logical navigation found), inside the partition but not
  necessarily inside the match; outside the partition: NULL. Every column
  reference of ``e`` then reads that row;
- an aggregate ``COUNT SUM AVG MIN MAX`` [``DISTINCT``] (TR §4.9) folds its
  argument, evaluated at each visible row mapped to its variable (``COUNT(A.*)``,
  or the variable of the argument's columns, else of its filter's; none: the universal
  one), skipping NULLs; ``COUNT(*)`` counts those rows. With ``FILTER (WHERE c)``
  (ISO/IEC 9075-2 §10.9 <filter clause>) only the rows where ``c``, evaluated at the row
  as the argument is, is TRUE. ``ARRAY_AGG`` (§10.9 <array aggregate function>) is the
  list of the argument's values at those rows in the match's order, NULLs kept (the
  standard's example of ``CLASSIFIER``, TR §4.12). Over no row ``COUNT`` is 0, the others
  NULL. ``SUM`` of integers and floats is the exact sum rounded once
  (:func:`kleene.reference.sums.exact_sum`: ``1.7e308 + 1.7e308 - 1.7e308`` is
  1.7e308, not ``inf``; an int when every value is one). ``AVG`` of integers or
  floats is a ``float`` (DuckDB, Trino; Oracle's ``NUMBER`` is exact: a vendor
  difference), the exact mean rounded once
  (:func:`kleene.reference.sums.exact_mean`: two values of 1.7e308 average to
  1.7e308, not ``inf``), of decimals a ``Decimal``;
- ``CLASSIFIER()`` is the primary variable of the current row, ``CLASSIFIER(U)``
  that of the last visible row mapped to ``U`` (TR §4.12); ``MATCH_NUMBER()``
  the match's number in its partition, from 1 (in ``DEFINE``: the number the
  match gets if it is found);
- a variable with no ``DEFINE`` is true for every row (TR §4.14);
- a subquery is a constant of the recognition, the value the SQL engine around the
  clause found for it before (TR 19075-5 §4.18.4; :class:`.ast.Subquery`).

An empty match has no row: column references, navigation and ``CLASSIFIER`` are
NULL there, aggregates fold no row (Trino, "Evaluating expressions in empty
matches and unmatched rows"). Scalar operations are SQL's (:mod:`.scalars`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal

from kleene.reference.errors import Unsupported
from kleene.reference.match_recognize.ast import (
    Aggregate,
    Between,
    Binary,
    Call,
    Case,
    Cast,
    Classifier,
    Column,
    Expr,
    InList,
    IsNull,
    Like,
    Literal,
    MatchNumber,
    Navigation,
    Subquery,
    Unary,
)
from kleene.reference.match_recognize.expressions import walk
from kleene.reference.match_recognize.scalars import (
    COMPARISONS,
    DataError,
    arithmetic,
    call,
    cast,
    cast_number,
    compare,
    concat,
    like,
    logical_not,
    negate,
    truth,
)
from kleene.reference.sums import exact_mean, exact_sum


@dataclass(frozen=True)
class Scope:
    """Where an expression is evaluated: the partition's ``rows`` (ordered) and its
    ``columns`` (upper-case name to position), the match starting at row ``start``
    whose rows, in order, are mapped to ``variables`` (as far as known), of which the
    first ``upto`` are visible (running semantics), its ``match_number``, the
    ``subsets`` (union variable to its primary variables) and, inside a navigation
    or an aggregate, the ``pinned`` row every column reference reads."""

    rows: Sequence[Sequence[object]]
    columns: Mapping[str, int]
    start: int
    variables: Sequence[str]
    upto: int
    match_number: int
    subsets: Mapping[str, frozenset[str]]
    pinned: int | None = None

    def members(self, var: str | None) -> frozenset[str] | None:
        """The primary variables ``var`` stands for (``None``: all, the universal one)."""
        if var is None:
            return None
        name = var.upper()
        return self.subsets.get(name, frozenset({name}))

    def mapped(self, var: str | None, final: bool = False) -> list[int]:
        """The visible rows (all of the match if ``final``) mapped to ``var``, in order."""
        members = self.members(var)
        visible = self.variables if final else self.variables[:self.upto]
        return [self.start + i for i, v in enumerate(visible)
                if members is None or v.upper() in members]

    def value(self, row: int | None, name: str) -> object:
        """Column ``name`` of partition row ``row``; NULL outside the partition."""
        if row is None or not 0 <= row < len(self.rows):
            return None
        if name.upper() not in self.columns:
            raise DataError("unknown-column", f"no column named {name!r}; the columns are "
                            f"{', '.join(sorted(self.columns))}")
        return self.rows[row][self.columns[name.upper()]]

    def classifier(self, row: int | None) -> str | None:
        """The variable partition row ``row`` is mapped to, if it is a known row of the match:
        in ``DEFINE`` the rows mapped so far, in ``MEASURES`` the whole match, even past the
        running row (``NEXT(CLASSIFIER())``: DuckDB's classifier tests, TR's compound
        example ``NEXT(RUNNING LAST(CLASSIFIER(U), 2), 3)``)."""
        if row is None or not 0 <= row - self.start < len(self.variables):
            return None
        return self.variables[row - self.start]


def variable_of(e: Expr) -> str | None:
    """The pattern variable that qualifies ``e``'s column references and ``CLASSIFIER``
    (all the same one, a static rule: TR §4.10); ``None``: the universal variable."""
    if isinstance(e, Column | Classifier):
        return e.var
    if isinstance(e, Aggregate):
        return None  # an aggregate's own variable does not qualify what is around it
    for child in children(e):
        var = variable_of(child)
        if var is not None:
            return var
    return None


def children(e: Expr) -> tuple[Expr, ...]:
    """The sub-expressions of ``e``."""
    if isinstance(e, Unary):
        return (e.operand,)
    if isinstance(e, Binary):
        return (e.left, e.right)
    if isinstance(e, IsNull | Like | Between | InList | Cast | Navigation):
        parts = [getattr(e, f) for f in ("operand", "pattern", "low", "high")
                 if isinstance(getattr(e, f, None), Expr)]
        return tuple(parts) + (e.items if isinstance(e, InList) else ())
    if isinstance(e, Case):
        ends = tuple(x for x in (e.operand, e.otherwise) if x is not None)
        return ends + tuple(x for pair in e.whens for x in pair)
    if isinstance(e, Call):
        return e.args
    if isinstance(e, Aggregate):
        return tuple(x for x in (e.operand, e.filter) if x is not None)
    return ()


def row_local(e: Expr, var: str, subsets: Mapping[str, frozenset[str]]) -> bool:
    """Whether ``e``, the ``DEFINE`` condition of ``var`` (upper case), is *row-local*: its
    value at a row depends on that row alone (and on rows a fixed distance away), not on
    the rows mapped before it. Every column it names is unqualified or qualified by
    ``var`` or by a union variable holding ``var`` (under running semantics the last row
    mapped to any of them is the current row, TR §4.8, §4.13), and it holds no aggregate,
    no ``FIRST``/``LAST``, no ``CLASSIFIER`` and no ``MATCH_NUMBER`` (each reads the match
    so far); ``PREV``/``NEXT`` read rows by position (TR §4.11)."""
    for x in walk(e):
        if isinstance(x, Aggregate | Classifier | MatchNumber):
            return False
        if isinstance(x, Navigation) and x.kind in ("FIRST", "LAST"):
            return False
        if isinstance(x, Column) and x.var is not None:
            name = x.var.upper()
            if name != var and var not in subsets.get(name, frozenset()):
                return False
    return True


def holds(e: Expr | None, s: Scope) -> bool:
    """A ``DEFINE`` condition is satisfied: it is TRUE (no condition: always)."""
    return e is None or truth(evaluate(e, s)) is True


def current(var: str | None, s: Scope, final: bool = False) -> int | None:
    """The row a reference qualified by ``var`` reads: the pinned one, else the last
    visible row mapped to ``var`` (searched from the end: the same row as
    ``s.mapped(var, final)[-1]``)."""
    if s.pinned is not None:
        return s.pinned
    members = s.members(var)
    for i in reversed(range(len(s.variables) if final else s.upto)):
        if members is None or s.variables[i].upper() in members:
            return s.start + i
    return None


def navigate(e: Navigation, s: Scope) -> tuple[int | None, Expr]:
    """The row navigation ``e`` lands on (``None``: off the match or the partition) and
    the expression to read there (its operand, inside a nested logical navigation's)."""
    final = e.semantics == "FINAL"
    operand = e.operand
    if e.kind in ("FIRST", "LAST"):
        rows = s.mapped(variable_of(operand), final)
        index = e.offset if e.kind == "FIRST" else len(rows) - 1 - e.offset
        return (rows[index] if 0 <= index < len(rows) else None), operand
    if isinstance(operand, Navigation) and operand.kind in ("FIRST", "LAST"):
        base, operand = navigate(operand, s)
    else:
        base = current(variable_of(operand), s, final)
    if base is None:
        return None, operand
    target = base - e.offset if e.kind == "PREV" else base + e.offset
    return (target if 0 <= target < len(s.rows) else None), operand


def aggregated_variable(e: Aggregate) -> str | None:
    """The variable whose rows ``e`` folds: its own (``COUNT(A.*)``), else the one that
    qualifies its argument, else its filter's (``COUNT(*) FILTER (WHERE B.x > 0)``: ``B``;
    a static rule makes them agree, TR §4.9); ``None``: the universal one."""
    if e.var is not None:
        return e.var
    found = (variable_of(x) for x in (e.operand, e.filter) if x is not None)
    return next((v for v in found if v is not None), None)


def aggregate(e: Aggregate, s: Scope) -> object:
    """``e`` over the visible rows mapped to its variable (module docstring)."""
    final = e.semantics == "FINAL"
    upto = len(s.variables) if final else s.upto
    rows = s.mapped(aggregated_variable(e), final)
    if e.filter is not None:
        condition = e.filter
        rows = [r for r in rows if holds(condition, replace(s, pinned=r, upto=upto))]
    if e.operand is None:
        return len(rows)
    values = [evaluate(e.operand, replace(s, pinned=r, upto=upto)) for r in rows]
    if e.name == "ARRAY_AGG":
        return (list(dict.fromkeys(values)) if e.distinct else values) if values else None
    present = [v for v in values if v is not None]
    if e.distinct:
        present = list(dict.fromkeys(present))
    if e.name == "COUNT":
        return len(present)
    if not present:
        return None
    if e.name in ("MIN", "MAX"):
        best = present[0]
        for v in present[1:]:
            if compare("<" if e.name == "MIN" else ">", v, best):
                best = v
        return best
    numbers = [v for v in present if isinstance(v, (int, float)) and not isinstance(v, bool)]
    if e.name == "SUM" and len(numbers) == len(present):
        return exact_sum(numbers)   # exact, rounded once: no overflow (reference/sums.py)
    total: object = 0
    for v in present:
        total = arithmetic("+", total, v)
    if e.name == "SUM":
        return total
    if e.name == "AVG" and len(numbers) == len(present):
        return exact_mean(numbers)   # exact, rounded once: no overflow (reference/sums.py)
    if e.name == "AVG":
        number = cast_number(total)
        if isinstance(number, Decimal):
            return number / len(present)
        return float(number) / len(present)
    raise Unsupported(f"aggregate {e.name} is not supported")


def evaluate(e: Expr, s: Scope) -> object:
    """The value of ``e`` in scope ``s`` (``None`` is NULL)."""
    if isinstance(e, Literal):
        return e.value
    if isinstance(e, Column):
        return s.value(current(e.var, s), e.name)
    if isinstance(e, Navigation):
        row, operand = navigate(e, s)
        if row is None:
            return None
        upto = len(s.variables) if e.semantics == "FINAL" else s.upto
        return evaluate(operand, replace(s, pinned=row, upto=upto))
    if isinstance(e, Aggregate):
        return aggregate(e, s)
    if isinstance(e, Classifier):
        return s.classifier(current(e.var, s, e.semantics == "FINAL"))
    if isinstance(e, MatchNumber):
        return s.match_number
    if isinstance(e, Unary):
        value = evaluate(e.operand, s)
        if e.op == "NOT":
            return logical_not(value)
        return negate(value) if e.op == "-" else arithmetic("+", 0, value)
    if isinstance(e, Binary):
        return _binary(e, s)
    if isinstance(e, IsNull):
        return (evaluate(e.operand, s) is None) != e.negated
    if isinstance(e, Between):
        x = evaluate(e.operand, s)
        inside = _and(compare("<=", evaluate(e.low, s), x), compare("<=", x, evaluate(e.high, s)))
        return logical_not(inside) if e.negated else inside
    if isinstance(e, InList):
        x = evaluate(e.operand, s)
        items = (v for item in e.items for v in (
            subquery_values(item) if isinstance(item, Subquery) and item.many
            else (evaluate(item, s),)))
        found = _any(compare("=", x, v) for v in items)
        return logical_not(found) if e.negated else found
    if isinstance(e, Like):
        matched = like(evaluate(e.operand, s), evaluate(e.pattern, s))
        return logical_not(matched) if e.negated else matched
    if isinstance(e, Case):
        return _case(e, s)
    if isinstance(e, Cast):
        return cast(evaluate(e.operand, s), e.type)
    if isinstance(e, Call):
        return call(e.name.upper(), [evaluate(a, s) for a in e.args])
    if isinstance(e, Subquery):
        [value] = subquery_values(e)
        return value
    raise Unsupported(f"expression {type(e).__name__} is not supported")


def subquery_values(e: Subquery) -> tuple[object, ...]:
    """What the SQL engine around the clause found for ``e``: one value for a scalar
    subquery, the list of ``IN (SELECT …)``."""
    if e.values is None:
        raise Unsupported("a subquery inside MATCH_RECOGNIZE is evaluated by the SQL engine "
                          "around the recognition (kleene.data.sql.run_statement), not by "
                          "the reference alone")
    return e.values


def _and(a: object, b: object) -> bool | None:
    """Three-valued ``AND`` (ISO/IEC 9075-2 §6.39, Table 12)."""
    x, y = truth(a), truth(b)
    if x is False or y is False:
        return False
    return None if x is None or y is None else True


def _any(values: Iterable[object]) -> bool | None:
    """Three-valued ``OR`` of several (``x IN (…)`` is ``x = a OR x = b …``, §8.4)."""
    unknown = False
    for v in values:
        t = truth(v)
        if t is True:
            return True
        unknown = unknown or t is None
    return None if unknown else False


def _binary(e: Binary, s: Scope) -> object:
    op = e.op.upper()
    if op in ("AND", "OR"):
        first = truth(evaluate(e.left, s))
        if (op == "AND" and first is False) or (op == "OR" and first is True):
            return first  # the other operand cannot change the result
        second = evaluate(e.right, s)
        return _and(first, second) if op == "AND" else _any([first, second])
    left, right = evaluate(e.left, s), evaluate(e.right, s)
    if op in COMPARISONS or op == "!=":
        return compare(op, left, right)
    if op == "||":
        return concat(left, right)
    return arithmetic(op, left, right)


def _case(e: Case, s: Scope) -> object:
    """``CASE``: the first ``WHEN`` that is TRUE (simple form: equal to the operand)."""
    subject = evaluate(e.operand, s) if e.operand is not None else None
    for when, then in e.whens:
        value = evaluate(when, s)
        hit = compare("=", subject, value) if e.operand is not None else truth(value)
        if hit is True:
            return evaluate(then, s)
    return evaluate(e.otherwise, s) if e.otherwise is not None else None
