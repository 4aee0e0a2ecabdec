"""The standard's static rules on a ``MATCH_RECOGNIZE`` clause: :func:`check_clause`.

A clause that parses may still break a syntax rule of ISO/IEC 9075-2 §7.6 and
§6.26 (<row pattern navigation operation>) as TR 19075-5 §4 explains them; each
rule is a stable code on :class:`~kleene.reference.errors.RecognitionError`,
raised at the offending node's line and column. Names compare case-insensitively.
Where Oracle's error messages word a rule (docs.oracle.com, "ORA-62506" and so on),
they are cited; ``MATCH_NUMBER()`` outside ``MEASURES`` follows Oracle's "SQL Pattern
Matching deep dive, part 2" (blogs.oracle.com: "These two functions can only be
included as part of the MEASURE clause").

``define-not-in-pattern``
    ``DEFINE`` names a variable that ``PATTERN`` does not use (TR §4.14).
``duplicate-define``
    a variable defined twice (TR §4.14).
``subset-is-pattern-variable``
    a ``SUBSET`` name that is a primary pattern variable (TR §4.8).
``subset-unknown-variable``
    a ``SUBSET`` lists a name that is not a primary pattern variable (TR §4.8).
``duplicate-subset``
    two ``SUBSET`` unions of one name (TR §4.8).
``skip-target-unknown``
    ``AFTER MATCH SKIP TO [FIRST|LAST] v`` with ``v`` neither a primary nor a union
    variable (TR §4.5).
``undefined-variable``
    a column (``v.x``), ``COUNT(v.*)`` or ``CLASSIFIER(v)`` qualified by a name that is
    no pattern or union variable (TR §4.8).
``nested-physical-navigation``
    ``PREV``/``NEXT`` inside ``PREV``/``NEXT`` (TR §4.11; ORA-62506).
``nested-logical-navigation``
    a navigation inside ``FIRST``/``LAST``; only ``PREV``/``NEXT`` may hold
    ``FIRST``/``LAST`` (TR §4.11.3; ORA-62506: "The only exception allowed is
    PREV/NEXT(FIRST/LAST())").
``aggregate-in-navigation``, ``navigation-in-aggregate``, ``aggregate-in-aggregate``
    the other nestings ORA-62506 forbids (TR §4.9: an aggregate's argument is evaluated
    on each row mapped to its variable, with no navigation around or inside it).
``mixed-variables``
    columns of more than one variable (the universal one counts: an unqualified
    column) in one navigation's or aggregate's argument, ``CLASSIFIER(v)`` reading
    ``v``'s rows and ``CLASSIFIER()`` the universal one's (TR §4.9–4.10; ORA-62508); an
    aggregate's ``FILTER (WHERE …)`` is read at the rows its argument is read at, so it
    counts with the argument (``SUM(x) FILTER (WHERE B.x > 0)`` mixes the universal
    variable and ``B``; DuckDB reads ``B``'s rows there).
``negative-offset``
    a navigation's offset below 0 (TR §4.10–4.11); ``offset-not-constant`` (raised by
    the parser, which reads the offset) for one that is no integer literal.
``misplaced-semantics``
    ``RUNNING`` or ``FINAL`` before ``PREV``/``NEXT`` (TR §4.13; ORA-62509: only
    aggregates, ``FIRST``, ``LAST``; Kleene also allows ``CLASSIFIER``, as the AST does).
``final-in-define``
    ``FINAL`` in ``DEFINE`` (TR §4.13: a condition sees the match so far; ORA-62509).
``match-number-in-define``
    ``MATCH_NUMBER()`` in ``DEFINE`` (TR §4.12; Oracle, above; DuckDB reads it there).
``pattern-function-outside``
    a qualified column, navigation, aggregate, ``CLASSIFIER`` or ``MATCH_NUMBER`` in
    ``PARTITION BY`` or ``ORDER BY``, which read the input rows (§7.6 SR).
``duplicate-measure``
    two measures of one name (the output's columns, §7.6 SR).
``exclusion-with-unmatched-rows``
    ``{- … -}`` with ``ALL ROWS PER MATCH WITH UNMATCHED ROWS`` (TR §4.7.4; ORA-62515).
``recognition-in-subquery``
    (raised by the parser, which reads a subquery as written) a subquery inside the clause
    that holds ``MATCH_RECOGNIZE`` itself (TR §4.18.4; ORA-62519).
``window-function``
    (raised by the parser) ``f(…) OVER (…)`` in ``MEASURES`` or ``DEFINE``: a measure is
    a value of its match and a condition one of its row (TR §4.9–4.14), a window function
    one of a row of a query's result, which the clause has not made yet (Databricks refuses
    it too, MATCH_RECOGNIZE_UNSUPPORTED_WINDOW_FUNCTION; DuckDB numbers the output rows).
"""

from __future__ import annotations

from collections.abc import Iterator

from kleene.reference.match_recognize.ast import (
    Aggregate,
    Alt,
    Classifier,
    Column,
    Concat,
    Exclude,
    Expr,
    MatchNumber,
    MatchRecognize,
    Navigation,
    Node,
    Permute,
    Quantified,
    RowPattern,
    Var,
)
from kleene.reference.match_recognize.expressions import children, walk
from kleene.reference.match_recognize.lexer import Source

#: Every code :func:`check_clause` (and the parser, for ``offset-not-constant``) raises.
CODES = ("define-not-in-pattern", "duplicate-define", "subset-is-pattern-variable",
         "subset-unknown-variable", "duplicate-subset", "skip-target-unknown",
         "undefined-variable", "nested-physical-navigation", "nested-logical-navigation",
         "aggregate-in-navigation", "navigation-in-aggregate", "aggregate-in-aggregate",
         "mixed-variables", "negative-offset", "offset-not-constant", "misplaced-semantics",
         "final-in-define", "match-number-in-define", "pattern-function-outside",
         "duplicate-measure", "exclusion-with-unmatched-rows", "recognition-in-subquery",
         "window-function")


def pattern_parts(p: RowPattern) -> Iterator[RowPattern]:
    """``p`` and every row pattern inside it, in reading order."""
    yield p
    if isinstance(p, (Concat, Alt, Permute)):
        for item in p.items:
            yield from pattern_parts(item)
    elif isinstance(p, (Quantified, Exclude)):
        yield from pattern_parts(p.body)


def pattern_variables(p: RowPattern) -> tuple[str, ...]:
    """The primary pattern variables of ``p``, each once, in order of first use."""
    names: dict[str, str] = {}
    for part in pattern_parts(p):
        if isinstance(part, Var):
            names.setdefault(part.name.upper(), part.name)
    return tuple(names.values())


def check_clause(clause: MatchRecognize, source: Source) -> None:
    """Raise the first :class:`~kleene.reference.errors.RecognitionError` the clause has."""
    def fail(code: str, message: str, node: Node) -> None:
        raise source.recognition_error(code, message, node.at)

    primary = {name.upper() for name in pattern_variables(clause.pattern)}
    defined: set[str] = set()
    for d in clause.defines:
        if d.var.upper() not in primary:
            fail("define-not-in-pattern", f"DEFINE {d.var}: the PATTERN has no variable "
                 f"{d.var}", d)
        if d.var.upper() in defined:
            fail("duplicate-define", f"{d.var} is defined more than once", d)
        defined.add(d.var.upper())
    unions: set[str] = set()
    for s in clause.subsets:
        if s.name.upper() in primary:
            fail("subset-is-pattern-variable", f"SUBSET {s.name}: {s.name} is a pattern "
                 "variable", s)
        if s.name.upper() in unions:
            fail("duplicate-subset", f"SUBSET {s.name} is defined more than once", s)
        for v in s.vars:
            if v.upper() not in primary:
                fail("subset-unknown-variable", f"SUBSET {s.name} names {v}, which is no "
                     "pattern variable", s)
        unions.add(s.name.upper())
    known = primary | unions
    skip = clause.after_match
    if skip.var is not None and skip.var.upper() not in known:
        fail("skip-target-unknown", f"AFTER MATCH SKIP {skip.kind} {skip.var}: {skip.var} is "
             "no pattern or union variable", skip)
    if clause.rows_per_match == "ALL WITH UNMATCHED":
        for part in pattern_parts(clause.pattern):
            if isinstance(part, Exclude):
                fail("exclusion-with-unmatched-rows", "an exclusion {- -} cannot be used "
                     "with ALL ROWS PER MATCH WITH UNMATCHED ROWS", part)
    for e in (*clause.partition_by, *(k.expr for k in clause.order_by)):
        for x in walk(e):
            if isinstance(x, (Navigation, Aggregate, Classifier, MatchNumber)) or (
                    isinstance(x, Column) and x.var is not None):
                fail("pattern-function-outside", "PARTITION BY and ORDER BY read input "
                     "columns, not the row pattern's functions or variables", x)
    names: set[str] = set()
    for m in clause.measures:
        if m.name.upper() in names:
            fail("duplicate-measure", f"two measures are named {m.name}", m)
        names.add(m.name.upper())
        _check_expr(m.expr, known, source, define=False, around=())
    for d in clause.defines:
        _check_expr(d.condition, known, source, define=True, around=())


def _check_expr(e: Expr, known: set[str], source: Source, *, define: bool,
                around: tuple[Expr, ...]) -> None:
    """The rules on ``e`` inside the navigations and aggregates ``around`` it."""
    def fail(code: str, message: str) -> None:
        raise source.recognition_error(code, message, e.at)

    var = (e.var if isinstance(e, (Column, Classifier, Aggregate)) else None)
    if var is not None and var.upper() not in known:
        fail("undefined-variable", f"{var} is no pattern or union variable")
    if isinstance(e, MatchNumber) and define:
        fail("match-number-in-define", "MATCH_RECOGNIZE's DEFINE cannot read MATCH_NUMBER()")
    if isinstance(e, (Navigation, Aggregate, Classifier)) and e.semantics == "FINAL" and define:
        fail("final-in-define", "DEFINE sees the match so far: FINAL is for MEASURES")
    if isinstance(e, Navigation):
        if e.kind in ("PREV", "NEXT") and e.semantics is not None:
            fail("misplaced-semantics", f"{e.semantics} applies to FIRST, LAST, aggregates "
                 f"and CLASSIFIER, not {e.kind}")
        if e.offset < 0:
            fail("negative-offset", f"{e.kind}'s offset is negative ({e.offset})")
        for outer in around:
            if isinstance(outer, Aggregate):
                fail("navigation-in-aggregate", f"{e.kind} inside {outer.name}")
            assert isinstance(outer, Navigation)
            if outer.kind in ("FIRST", "LAST"):
                fail("nested-logical-navigation", f"{e.kind} inside {outer.kind} (only "
                     "PREV and NEXT may hold FIRST or LAST)")
            if e.kind in ("PREV", "NEXT"):
                fail("nested-physical-navigation", f"{e.kind} inside {outer.kind}")
    if isinstance(e, Aggregate) and around:
        outer = around[-1]
        if isinstance(outer, Aggregate):
            fail("aggregate-in-aggregate", f"{e.name} inside {outer.name}")
        assert isinstance(outer, Navigation)
        fail("aggregate-in-navigation", f"{e.name} inside {outer.kind}")
    if isinstance(e, Navigation | Aggregate):
        read = _read_at_rows(e)
        if read:
            qualifiers = {None if q is None else q.upper() for x in read for q in _columns_of(x)}
            if isinstance(e, Aggregate) and e.var is not None:     # COUNT(v.*)
                qualifiers.add(e.var.upper())
            if len(qualifiers) > 1:
                what = e.kind if isinstance(e, Navigation) else e.name
                parts = "argument and filter read" if len(read) > 1 else "argument reads"
                fail("mixed-variables", f"{what}'s {parts} columns of more than one variable "
                     "(an unqualified column is the universal one)")
            around = (*around, e)
    for child in children(e):
        _check_expr(child, known, source, define=define, around=around)


def _read_at_rows(e: Navigation | Aggregate) -> list[Expr]:
    """What ``e`` reads at the rows it selects: a navigation's operand, an aggregate's
    argument and filter."""
    if isinstance(e, Navigation):
        return [e.operand]
    return [x for x in (e.operand, e.filter) if x is not None]


def _columns_of(e: Expr) -> Iterator[str | None]:
    """The variables whose rows ``e`` reads outside the navigations and aggregates nested
    in it (those answer for their own): its columns' qualifiers and ``CLASSIFIER``'s."""
    if isinstance(e, (Column, Classifier)):
        yield e.var
    for child in children(e):
        if not isinstance(child, (Navigation, Aggregate)):
            yield from _columns_of(child)
