"""Hypothesis strategies for events, streams and SES patterns (docs/architecture.md, Style 6),
operator patterns (seed 003) and prunable patterns; SREMO expressions (seed 004) are
drawn by :mod:`kleene.conformance.sremo_strategies`.

In Hypothesis's own style: plural names, keyword arguments for sizes,
composite strategies that take strategies. The defaults are chosen so that
small examples exercise what distinguishes engines from the reference:

- a small alphabet of labels (``L`` in ``A B C``) and properties that are
  sometimes absent, negated or disjunctive, so variables are often *not*
  mutually exclusive (seed 000 Def. 6) and automata branch;
- gaps of 0 between timestamps, so ties are common (docs/architecture.md, "The shared core");
- group variables ``v+``, ``prev`` relationships (seed 001 Def. 1) and
  equalities on a key attribute ``ID`` (seed 001 Def. 6 partitioning);
- small windows, so the window cuts matches.

Conventions: ``L`` a label, ``ID`` a key with two values, ``V`` a small number.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

from hypothesis import strategies as st

from kleene.conformance.regex_strategies import regexes
from kleene.reference.conditions import LIKE, Agg, Attr, Cmp, Condition, Const, Or, Prev
from kleene.reference.durations import Duration
from kleene.reference.errors import PatternError
from kleene.reference.events import Event, Stream
from kleene.reference.operators.from_ses import from_ses
from kleene.reference.operators.pattern import (
    Conj,
    Disj,
    Kleene,
    Neg,
    Node,
    OperatorPattern,
    Primitive,
    Seq,
    iterated_variables,
    negated_variables,
    positive_variables,
    primitives,
    scopes,
)
from kleene.reference.query import Feature
from kleene.reference.ses.pattern import SESPattern, Variable

#: Labels of the default alphabet (attribute ``L``).
LABELS = ("A", "B", "C")
#: Variable names, in the order they are used.
NAMES = ("a", "b", "c", "d", "e", "f")

# Default strategies (module-level, so that defaults are not calls).
_LABELS = st.sampled_from(LABELS)
_KEYS = st.integers(0, 1)
_VALUES = st.integers(0, 3)
_TIMES = st.integers(0, 20)
_GAPS = st.integers(0, 2)
_WINDOWS = st.integers(0, 8)
_GROUPS = st.booleans()


def attributes(*, labels: st.SearchStrategy[str] = _LABELS,
               keys: st.SearchStrategy[int] = _KEYS,
               values: st.SearchStrategy[int] = _VALUES,
               ) -> st.SearchStrategy[dict[str, str | int]]:
    """An event's attributes: ``{"L": label, "ID": key, "V": value}``."""
    return st.fixed_dictionaries({"L": labels, "ID": keys, "V": values})


_ATTRIBUTES = attributes()


def events(*, ts: st.SearchStrategy[int] = _TIMES,
           attributes: st.SearchStrategy[dict[str, str | int]] = _ATTRIBUTES,
           ) -> st.SearchStrategy[Event]:
    """A single event at position 0 (:func:`streams` numbers events itself)."""
    return st.builds(lambda t, attrs: Event(0, t, None, attrs), ts, attributes)


@st.composite
def streams(draw: st.DrawFn, *, min_size: int = 0, max_size: int = 8,
            attributes: st.SearchStrategy[Mapping[str, object]] = _ATTRIBUTES,
            gaps: st.SearchStrategy[int] = _GAPS,
            time_unit: str | None = None) -> Stream:
    """A stream: ``ts`` starts at 0 and grows by a drawn gap (0 makes a tie)."""
    rows = draw(st.lists(st.tuples(gaps, attributes), min_size=min_size, max_size=max_size))
    ts = 0
    out: list[dict[str, object]] = []
    for gap, attrs in rows:
        ts += gap if out else 0
        out.append({"ts": ts, **attrs})
    return Stream.from_rows(out, time_unit=time_unit)


@st.composite
def properties(draw: st.DrawFn, var: str, *, labels: st.SearchStrategy[str] = _LABELS,
               like: bool = False) -> list[Condition]:
    """Zero or one property of ``var`` on ``L``: ``=``, ``!=``, or a disjunction of two;
    with ``like`` also ``L LIKE 'regex'`` (a drawn pattern over :data:`LABELS`) or
    ``V LIKE`` (unknown: ``V`` holds numbers)."""
    kinds = ("none", "none", "eq", "eq", "ne", "or") + ("like",) * 3 * like
    kind = draw(st.sampled_from(kinds))
    label = Attr(var, "L")
    if kind == "none":
        return []
    if kind == "like":
        attr = draw(st.sampled_from(("L", "L", "L", "V")))
        return [Cmp(LIKE, Attr(var, attr), Const(draw(regexes(alphabet="".join(LABELS)))))]
    if kind == "or":
        x, y = draw(st.lists(labels, min_size=2, max_size=2, unique=True))
        return [Or((Cmp("=", label, Const(x)), Cmp("=", label, Const(y))))]
    return [Cmp("=" if kind == "eq" else "!=", label, Const(draw(labels)))]


@st.composite
def relationships(draw: st.DrawFn, variables: tuple[Variable, ...]) -> list[Condition]:
    """Relationships among ``variables``: key equalities, ``V`` comparisons, ``prev``."""
    out: list[Condition] = []
    names = [v.name for v in variables]
    if len(names) >= 2:
        pairs = [(x, y) for i, x in enumerate(names) for y in names[i + 1:]]
        for x, y in draw(st.lists(st.sampled_from(pairs), max_size=2, unique=True)):
            attr, op = draw(st.sampled_from((("ID", "="), ("ID", "="), ("V", "<"),
                                             ("V", "<="), ("V", "!="))))
            out.append(Cmp(op, Attr(x, attr), Attr(y, attr)))
    for v in variables:
        if v.group and draw(st.booleans()):
            attr, op = draw(st.sampled_from((("V", "<"), ("V", "<="), ("ID", "="))))
            out.append(Cmp(op, Prev(v.name, attr), Attr(v.name, attr)))
    return out


@st.composite
def ses_patterns(draw: st.DrawFn, *, max_sets: int = 3, max_vars: int = 4,
                 labels: st.SearchStrategy[str] = _LABELS,
                 windows: st.SearchStrategy[int] = _WINDOWS,
                 groups: st.SearchStrategy[bool] = _GROUPS, like: bool = False) -> SESPattern:
    """An SES pattern ``(<B1..Bk>, Θ, τ)`` (seed 000 Def. 1) over ``a, b, c, ...``;
    ``like`` draws properties with ``LIKE`` too (:func:`properties`)."""
    n = draw(st.integers(1, min(max_vars, len(NAMES))))
    k = draw(st.integers(1, min(max_sets, n)))
    cuts = sorted(draw(st.lists(st.integers(1, n - 1), min_size=k - 1, max_size=k - 1,
                                unique=True))) if k > 1 else []
    variables = tuple(Variable(NAMES[i], group=draw(groups)) for i in range(n))
    bounds = [0, *cuts, n]
    sets = tuple(variables[bounds[j]:bounds[j + 1]] for j in range(k))
    conditions: list[Condition] = []
    for v in variables:
        conditions += draw(properties(v.name, labels=labels, like=like))
    conditions += draw(relationships(variables))
    return SESPattern(sets, tuple(conditions), Duration(draw(windows)))


# ---------------------------------------------------------------- operator patterns
# Seed 003 (SASE+): typed events, and patterns built from every construct of
# kleene.reference.operators.features, nested, over a small alphabet of types.

#: Event types of the default operator alphabet.
TYPES = ("A", "B", "C")
_TYPES = st.sampled_from(TYPES)
_OP_WINDOWS = st.integers(0, 6)


def typed_events(*, types: st.SearchStrategy[str] = _TYPES,
                 values: st.SearchStrategy[int] = _VALUES,
                 keys: st.SearchStrategy[int] = _KEYS,
                 ) -> st.SearchStrategy[dict[str, str | int]]:
    """An event's type and attributes: ``{"type": T, "V": value, "ID": key}``."""
    return st.fixed_dictionaries({"type": types, "V": values, "ID": keys})


_TYPED = typed_events()


def typed_streams(*, min_size: int = 0, max_size: int = 9,
                  events: st.SearchStrategy[dict[str, str | int]] = _TYPED,
                  gaps: st.SearchStrategy[int] = _GAPS) -> st.SearchStrategy[Stream]:
    """A stream of typed events (ties in ``ts`` are common, gap 0)."""
    return streams(min_size=min_size, max_size=max_size, attributes=events, gaps=gaps)


@st.composite
def operator_patterns(draw: st.DrawFn, *, max_depth: int = 2, max_parts: int = 3,
                      types: st.SearchStrategy[str] = _TYPES,
                      windows: st.SearchStrategy[int] = _OP_WINDOWS,
                      disjunction: bool = True, negation: bool = True,
                      kleene: bool = True, subpattern_kleene: bool = False,
                      conditions: bool = True, optional_window: bool = True,
                      like: bool = False) -> object:
    """A well-formed operator pattern (seed 003) using ``SEQ``, ``AND``, ``OR``, ``NOT``,
    ``B+``, ``B{l,m}``, properties, relationships, negation conditions, aggregates and
    ``prev``. ``subpattern_kleene`` also iterates sub-patterns (``SEQ(A a, B b)+``);
    a flag set to ``False`` leaves its construct out; ``like`` adds properties
    ``v.type LIKE 'regex'`` (a drawn pattern over the types) and ``v.V LIKE`` (unknown)."""
    names = iter(f"v{i}" for i in itertools.count())

    def primitive() -> Primitive:
        return Primitive(draw(types, label="type"), next(names))

    def repeat(part: Node) -> Kleene:
        low = draw(st.integers(1, 2), label="low")
        high = draw(st.sampled_from((None, low, low + 1)), label="high")
        return Kleene(part, low, high)

    def node(depth: int) -> Node:
        kinds = ["primitive", "primitive"]
        if kleene:
            kinds.append("kleene")
        if depth > 0:
            kinds += ["seq", "seq", "and"]
            if disjunction:
                kinds.append("or")
            if subpattern_kleene:
                kinds.append("kleene-of")
        kind = draw(st.sampled_from(kinds), label="construct")
        if kind == "primitive":
            return primitive()
        if kind == "kleene":
            return repeat(primitive())
        if kind == "kleene-of":
            return repeat(Seq(tuple(node(0) for _ in range(2))))
        n = draw(st.integers(1 if kind != "or" else 2, max_parts), label="parts")
        parts: list[Node] = [node(depth - 1) for _ in range(n)]
        if kind == "or":
            return Disj(tuple(parts))
        if negation and draw(st.booleans(), label="negated"):
            at = draw(st.integers(0, len(parts)), label="negation place")
            parts.insert(at, Neg(primitive()))
        return Seq(tuple(parts)) if kind == "seq" else Conj(tuple(parts))

    expr = node(max_depth)
    if isinstance(expr, Disj) and not disjunction:
        expr = Seq((expr,))
    found: list[Condition] = []
    if conditions:
        positive = sorted(positive_variables(expr))
        negated = sorted(negated_variables(expr))
        together = list(scopes(expr))
        for v in draw(st.lists(st.sampled_from(positive), max_size=1, unique=True),
                      label="properties"):
            op = draw(st.sampled_from(("=", "!=", "<", ">=") + (LIKE,) * 2 * like),
                      label="property op")
            if op == LIKE:
                attr = draw(st.sampled_from(("type", "type", "V")), label="matched")
                regex = draw(regexes(alphabet="".join(TYPES)), label="pattern")
                found.append(Cmp(LIKE, Attr(v, attr), Const(regex)))
            else:
                found.append(Cmp(op, Attr(v, "V"), Const(draw(_VALUES, label="constant"))))
        pairs = [(x, y) for x in positive + negated for y in positive
                 if x < y or (x in negated)]
        pairs = [(x, y) for x, y in pairs if x != y and any({x, y} <= s for s in together)]
        if pairs:
            for x, y in draw(st.lists(st.sampled_from(pairs), max_size=2, unique=True),
                             label="relationships"):
                attr, op = draw(st.sampled_from((("ID", "="), ("V", "<"), ("V", "<="),
                                                 ("V", "!="))), label="relationship")
                found.append(Cmp(op, Attr(x, attr), Attr(y, attr)))
        iterated = sorted(iterated_variables(expr) - set(negated))
        aggregate: bool = draw(st.booleans(), label="aggregate")
        if iterated and aggregate:
            v = draw(st.sampled_from(iterated), label="aggregated")
            func = draw(st.sampled_from(("SUM", "AVG", "MIN", "MAX", "COUNT")), label="func")
            agg = Agg(func, v, None if func == "COUNT" else "V")
            found.append(Cmp(draw(st.sampled_from(("<=", ">=", "<")), label="agg op"), agg,
                             Const(draw(st.integers(1, 6), label="agg constant"))))
        previous: bool = draw(st.booleans(), label="prev")
        if iterated and previous:
            v = draw(st.sampled_from(iterated), label="prev variable")
            found.append(Cmp(draw(st.sampled_from(("<", "<=", "=")), label="prev op"),
                             Prev(v, "V"), Attr(v, "V")))
    window = draw((st.none() | windows.map(Duration)) if optional_window
                  else windows.map(Duration), label="window")
    for w in (window, Duration(draw(windows, label="fallback window"))):
        try:
            return OperatorPattern(expr, tuple(found), w)
        except PatternError:
            continue
    return OperatorPattern(Seq((Primitive("A", "z"),)), (), window)

# ---------------------------------------------------------------- prunable patterns (issue 14)


@st.composite
def keyed_operator_patterns(draw: st.DrawFn, *, max_depth: int = 2) -> object:
    """Operator patterns whose variables (negated ones too) are all joined by ``ID``
    equalities, so that their Def. 6 partitioning applies (reference/operators/pruning.py)."""
    p: Any = draw(operator_patterns(max_depth=max_depth, disjunction=False), label="pattern")
    names = sorted({v.var for v in primitives(p.expr)})
    extra = [Cmp("=", Attr(names[0], "ID"), Attr(v, "ID")) for v in names[1:]]
    return OperatorPattern(p.expr, p.conditions + tuple(extra), p.window or Duration(4))


def ses_pattern_for(draw: Any, capabilities: frozenset[Feature]) -> SESPattern:
    """The SES language's ``generate`` hook (:mod:`kleene.conformance.generated`): a drawn
    pattern, with group variables only if ``ses:group-variables`` is claimed."""
    groups = Feature("ses", "group-variables") in capabilities
    pattern: SESPattern = draw(ses_patterns(groups=st.booleans() if groups else st.just(False)))
    return pattern


def operator_pattern_for(draw: Any, capabilities: frozenset[Feature]) -> OperatorPattern:
    """The operator language's ``generate`` hook: a drawn SES pattern translated to
    ``SEQ(AND(...), ...)`` (:func:`~kleene.reference.operators.from_ses.from_ses`), an
    operator pattern with the same matches (seed 003 Sec. 4.3)."""
    return from_ses(ses_pattern_for(draw, capabilities))
