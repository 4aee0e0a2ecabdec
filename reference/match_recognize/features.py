"""What a ``MATCH_RECOGNIZE`` statement asks of an engine: the constructs of the row
pattern (TR 19075-5 §4.7), of its expressions (§4.8–4.13) and of the clause (§4.4–4.5)
beyond the plainest ``PATTERN (A B+) DEFINE …`` with ``ONE ROW PER MATCH`` and ``AFTER
MATCH SKIP PAST LAST ROW``. The registry scopes them as ``match_recognize:permute`` and
so on.
"""

from __future__ import annotations

from collections.abc import Iterator

from kleene.reference.match_recognize.ast import (
    Aggregate,
    Alt,
    Anchor,
    Classifier,
    Concat,
    Empty,
    Exclude,
    Expr,
    MatchNumber,
    MatchRecognize,
    Navigation,
    Permute,
    Quantified,
    RowPattern,
    Statement,
    Var,
)
from kleene.reference.match_recognize.checks import pattern_parts
from kleene.reference.match_recognize.expressions import walk

#: The constructs a ``MATCH_RECOGNIZE`` engine may claim.
CONSTRUCTS: tuple[str, ...] = (
    "alternation", "quantifier", "reluctant", "grouping", "permute", "anchor", "exclusion",
    "empty-pattern", "empty-match", "subset", "partition-by", "measures", "all-rows",
    "omit-empty-matches", "unmatched-rows", "skip-to-next-row", "skip-to-variable",
    "navigation", "nested-navigation", "navigation-offset", "aggregate", "aggregate-filter",
    "array-aggregate", "distinct", "running", "final", "classifier", "match-number", "within",
    "subquery",
)

_PATTERN = {Alt: "alternation", Quantified: "quantifier", Permute: "permute",
            Anchor: "anchor", Exclude: "exclusion", Empty: "empty-pattern"}
#: The offset of a navigation written without one (TR §4.10, §4.11).
_DEFAULT_OFFSET = {"PREV": 1, "NEXT": 1, "FIRST": 0, "LAST": 0}
_ROWS = {"ALL SHOW": ("all-rows",), "ALL OMIT": ("all-rows", "omit-empty-matches"),
         "ALL WITH UNMATCHED": ("all-rows", "unmatched-rows"), "ONE": ()}


def constructs(statement: Statement) -> frozenset[str]:
    """The constructs ``statement`` uses, in every recognition (a subquery's too)."""
    out: set[str] = set()
    for r in statement.recognitions:
        if isinstance(r.source, Statement):
            out |= {"subquery"} | constructs(r.source)
        out |= clause_constructs(r.clause)
    return frozenset(out)


def clause_constructs(clause: MatchRecognize) -> frozenset[str]:
    """The constructs one clause uses."""
    out = {label for part in pattern_parts(clause.pattern)
           for kind, label in _PATTERN.items() if isinstance(part, kind)}
    quantified = [p for p in pattern_parts(clause.pattern) if isinstance(p, Quantified)]
    out |= {"reluctant"} if any(q.reluctant for q in quantified) else set()
    out |= {"grouping"} if any(not isinstance(q.body, Var) for q in quantified) else set()
    out |= {"empty-match"} if matches_empty(clause.pattern) else set()
    out |= {"subset"} if clause.subsets else set()
    out |= {"partition-by"} if clause.partition_by else set()
    out |= {"measures"} if clause.measures else set()
    out |= set(_ROWS[clause.rows_per_match])
    out |= {"within"} if clause.within is not None else set()
    skip = clause.after_match.kind
    out |= {"skip-to-next-row"} if skip == "TO NEXT ROW" else set()
    out |= {"skip-to-variable"} if skip in ("TO FIRST", "TO LAST") else set()
    for e in expressions_of(clause):
        out |= _expression_constructs(e)
    return frozenset(out)


def matches_empty(p: RowPattern) -> bool:
    """Whether ``p`` matches the empty sequence of rows somewhere (``A*``, ``A?``, ``()``,
    ``^``, ...): the pattern has empty matches (TR §4.7, §4.15)."""
    if isinstance(p, Var):
        return False
    if isinstance(p, (Empty, Anchor)):
        return True
    if isinstance(p, (Concat, Permute)):
        return all(matches_empty(item) for item in p.items)
    if isinstance(p, Alt):
        return any(matches_empty(item) for item in p.items)
    if isinstance(p, Quantified):
        return p.low == 0 or matches_empty(p.body)
    assert isinstance(p, Exclude), p
    return matches_empty(p.body)


def expressions_of(clause: MatchRecognize) -> Iterator[Expr]:
    """Every expression of ``clause``: its partition and order keys, measures, conditions."""
    yield from clause.partition_by
    yield from (k.expr for k in clause.order_by)
    yield from (m.expr for m in clause.measures)
    yield from (d.condition for d in clause.defines)


def _expression_constructs(e: Expr) -> set[str]:
    out: set[str] = set()
    for x in walk(e):
        if isinstance(x, Navigation):
            out.add("navigation")
            if any(isinstance(y, Navigation) for y in walk(x.operand)):
                out.add("nested-navigation")
            if x.offset != _DEFAULT_OFFSET[x.kind]:
                out.add("navigation-offset")
        if isinstance(x, Aggregate):
            out |= {"aggregate"} | ({"distinct"} if x.distinct else set())
            out |= {"aggregate-filter"} if x.filter is not None else set()
            out |= {"array-aggregate"} if x.name == "ARRAY_AGG" else set()
        if isinstance(x, (Navigation, Aggregate, Classifier)) and x.semantics is not None:
            out.add(x.semantics.lower())
        if isinstance(x, Classifier):
            out.add("classifier")
        if isinstance(x, MatchNumber):
            out.add("match-number")
    return out
