"""The condition language shared by the three pattern languages.

docs/architecture.md, "The shared core": attribute references ``v.A``, constants,
``prev(v.A)`` (seed 001 Sec. 3), aggregates over bound sequences
(SUM/AVG/MIN/MAX/COUNT, seed 003 Sec. 4.5.1), comparisons ``= != < <= > >=``,
CORE's pattern match ``v.A LIKE 'regex'`` (:mod:`kleene.reference.regex`) and
``AND``/``OR``/``NOT``. Conditions are data, never opaque lambdas, so the
printer, Z3, the Spark pushdown and the pictures can all read them.

Quantification (seed 000 Sec. 3.2 "decomposition", seed 001 Sec. 3
interpretation I): a condition is instantiated once for every combination of
one event per referenced variable; it holds iff every instantiation holds.
So a property ``v.A = C`` holds for every event bound to ``v``, a relationship
``v.A < w.B`` for every pair, and a condition that mentions ``prev(v.A)``
ranges over consecutive pairs of ``v``'s events (vacuously true for one event).
Aggregates read the whole bound sequence and are not decomposed.

Comparisons use SQL's three-valued logic: a missing attribute (``None``) or
values of incompatible kinds (a string against a number) make the comparison
*unknown* (``LIKE`` too: it is known on text only); ``AND``/``OR``/``NOT`` follow
Kleene's strong logic, and a condition holds only when it is ``True``. Spark's filter
pushdown has the same reading.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kleene.reference.errors import PatternError
from kleene.reference.events import Event, Value
from kleene.reference.regex import RegexRefused, check_pattern, partial_match
from kleene.reference.sums import exact_mean, exact_sum

# ---------------------------------------------------------------- terms


@dataclass(frozen=True, slots=True)
class Attr:
    """``var.attr``: attribute ``attr`` of the event bound to ``var`` (``~`` is SREMO's head)."""

    var: str
    attr: str


@dataclass(frozen=True, slots=True)
class Prev:
    """``prev(var.attr)``: the same attribute of the previous event bound to ``var``."""

    var: str
    attr: str


@dataclass(frozen=True, slots=True)
class Const:
    """A constant: string, number or boolean."""

    value: str | int | float | bool


AGGREGATES = ("SUM", "AVG", "MIN", "MAX", "COUNT")


@dataclass(frozen=True, slots=True)
class Agg:
    """``FUNC(var.attr)`` over the whole sequence bound to ``var`` (``COUNT(var)`` has no attr)."""

    func: str
    var: str
    attr: str | None = None


Term = Attr | Prev | Const | Agg

# ---------------------------------------------------------------- formulas

COMPARISONS = ("=", "!=", "<", "<=", ">", ">=")

#: CORE's ``LIKE``: ``Cmp(LIKE, v.A, Const('regex'))`` holds where the regular expression
#: is found anywhere in the text ``v.A`` (RE2's partial match; :mod:`kleene.reference.regex`).
LIKE = "LIKE"


@dataclass(frozen=True, slots=True)
class Cmp:
    """``left op right`` with ``op`` one of ``= != < <= > >=``, or ``v.A LIKE 'regex'``
    (``op`` :data:`LIKE`: the left an attribute, the right a text constant, a pattern of
    :mod:`kleene.reference.regex`'s subset)."""

    op: str
    left: Term
    right: Term

    def __post_init__(self) -> None:
        if self.op == LIKE:
            if not isinstance(self.left, Attr):
                raise PatternError("LIKE needs an attribute v.A on its left")
            if not (isinstance(self.right, Const) and isinstance(self.right.value, str)):
                raise PatternError("LIKE needs a 'regular expression' in quotes on its right")
            try:
                check_pattern(self.right.value)
            except RegexRefused as err:
                raise PatternError(f"LIKE {self.right.value!r}: {err.message} (at character "
                                   f"{err.offset + 1} of the pattern)") from None
        elif self.op not in COMPARISONS:
            raise PatternError(f"unknown comparison {self.op!r}")


def like_pattern(c: Cmp) -> str:
    """The regular expression of ``v.A LIKE 'regex'`` (``c.op`` is :data:`LIKE`)."""
    assert c.op == LIKE and isinstance(c.right, Const) and isinstance(c.right.value, str), c
    return c.right.value


@dataclass(frozen=True, slots=True)
class And:
    """Conjunction of two or more conditions."""

    parts: tuple[Condition, ...]


@dataclass(frozen=True, slots=True)
class Or:
    """Disjunction of two or more conditions."""

    parts: tuple[Condition, ...]


@dataclass(frozen=True, slots=True)
class Not:
    """Negation."""

    part: Condition


@dataclass(frozen=True, slots=True)
class Truth:
    """The constant condition ``TRUE`` or ``FALSE``."""

    value: bool


Condition = Cmp | And | Or | Not | Truth

TRUE = Truth(True)

# ---------------------------------------------------------------- structure


def subterms(c: Condition) -> Iterator[Term]:
    """Every term of ``c``, left to right."""
    if isinstance(c, Cmp):
        yield c.left
        yield c.right
    elif isinstance(c, (And, Or)):
        for part in c.parts:
            yield from subterms(part)
    elif isinstance(c, Not):
        yield from subterms(c.part)


def variables(c: Condition) -> frozenset[str]:
    """The variables ``c`` refers to, through attributes, ``prev`` or aggregates."""
    return frozenset(t.var for t in subterms(c) if not isinstance(t, Const))


def decomposed_variables(c: Condition) -> frozenset[str]:
    """Variables instantiated event by event (not only inside an aggregate)."""
    return frozenset(t.var for t in subterms(c) if isinstance(t, (Attr, Prev)))


def prev_variables(c: Condition) -> frozenset[str]:
    """Variables ``c`` reads through ``prev``: they range over consecutive pairs."""
    return frozenset(t.var for t in subterms(c) if isinstance(t, Prev))


def reads_like(c: Condition) -> bool:
    """Whether ``c`` holds a ``v.A LIKE 'regex'``."""
    if isinstance(c, Cmp):
        return c.op == LIKE
    if isinstance(c, (And, Or)):
        return any(reads_like(p) for p in c.parts)
    return isinstance(c, Not) and reads_like(c.part)


def has_aggregate(c: Condition) -> bool:
    """Whether ``c`` reads an aggregate."""
    return any(isinstance(t, Agg) for t in subterms(c))


def is_property_of(c: Condition, var: str) -> bool:
    """Whether ``c`` is a property of ``var``: it tests one bound event alone.

    Seed 001 Sec. 3: properties have the form ``v.A φ C``; we allow any
    condition whose only references are plain attributes of ``var``.
    """
    terms = list(subterms(c))
    return (any(isinstance(t, Attr) for t in terms)
            and all(isinstance(t, Const) or (isinstance(t, Attr) and t.var == var)
                    for t in terms))


def conjuncts(c: Condition) -> tuple[Condition, ...]:
    """``c`` split at its top-level ``AND``s."""
    if isinstance(c, And):
        return tuple(x for part in c.parts for x in conjuncts(part))
    if c == TRUE:
        return ()
    return (c,)


def conjunction(parts: Sequence[Condition]) -> Condition:
    """The conjunction of ``parts`` (``TRUE`` when empty)."""
    if not parts:
        return TRUE
    if len(parts) == 1:
        return parts[0]
    return And(tuple(parts))


def disjunction(parts: Sequence[Condition]) -> Condition:
    """The disjunction of ``parts`` (``FALSE`` when empty)."""
    if not parts:
        return Truth(False)
    if len(parts) == 1:
        return parts[0]
    return Or(tuple(parts))


def rename(c: Condition, mapping: Mapping[str, str]) -> Condition:
    """``c`` with its variables renamed by ``mapping`` (others unchanged)."""

    def term(t: Term) -> Term:
        if isinstance(t, Const):
            return t
        new = mapping.get(t.var, t.var)
        if isinstance(t, Attr):
            return Attr(new, t.attr)
        if isinstance(t, Prev):
            return Prev(new, t.attr)
        return Agg(t.func, new, t.attr)

    return map_comparisons(c, lambda cmp: Cmp(cmp.op, term(cmp.left), term(cmp.right)))


def map_comparisons(c: Condition, f: Callable[[Cmp], Condition]) -> Condition:
    """``c`` with every comparison ``x`` replaced by ``f(x)``; the connectives are kept."""
    if isinstance(c, Cmp):
        return f(c)
    if isinstance(c, And):
        return And(tuple(map_comparisons(p, f) for p in c.parts))
    if isinstance(c, Or):
        return Or(tuple(map_comparisons(p, f) for p in c.parts))
    if isinstance(c, Not):
        return Not(map_comparisons(c.part, f))
    return c

# ---------------------------------------------------------------- evaluation


@dataclass(frozen=True)
class Instance:
    """One instantiation: an event per variable (and its predecessor for ``prev``),
    plus the whole bound sequences for aggregates."""

    current: Mapping[str, Event]
    previous: Mapping[str, Event]
    sequences: Mapping[str, Sequence[Event]]


#: The order comparisons, on two values of one kind.
_ORDER: dict[str, Callable[[Any, Any], bool]] = {
    "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}


def _kind(v: Value) -> str:
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "num"
    return "str"


def compare(op: str, a: Value, b: Value) -> bool | None:
    """``a op b`` in three-valued logic: ``None`` when either side is missing or
    the kinds differ (string vs number vs boolean); ``a LIKE b``: the pattern ``b``
    found in the text ``a`` (RE2's partial match), ``None`` when ``a`` is not text."""
    if op == LIKE:
        return partial_match(b, a) if isinstance(a, str) and isinstance(b, str) else None
    if a is None or b is None or _kind(a) != _kind(b):
        return None
    if op == "=":
        return a == b
    if op == "!=":
        return a != b
    return _ORDER[op](a, b)      # two strings, two numbers or two booleans


def aggregate(func: str, events: Sequence[Event], attr: str | None) -> Value:
    """SUM/AVG/MIN/MAX/COUNT of ``attr`` over ``events`` (seed 003 Sec. 4.5.1).

    ``COUNT`` counts events; the others ignore missing values and are ``None``
    when no number is left.
    """
    if func == "COUNT":
        return len(events) if attr is None else sum(e.value(attr) is not None for e in events)
    values = [e.value(attr) for e in events] if attr is not None else []
    numbers = [v for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
    if not numbers:
        return None
    if func == "SUM":
        return exact_sum(numbers)     # exact, rounded once (reference/sums.py)
    if func == "AVG":
        return exact_mean(numbers)
    if func == "MIN":
        return min(numbers)
    return max(numbers)


def term_value(t: Term, inst: Instance) -> Value:
    """The value of term ``t`` under instantiation ``inst``."""
    if isinstance(t, Const):
        return t.value
    if isinstance(t, Attr):
        return inst.current[t.var].value(t.attr)
    if isinstance(t, Prev):
        before = inst.previous.get(t.var)
        return None if before is None else before.value(t.attr)
    return aggregate(t.func, inst.sequences[t.var], t.attr)


def evaluate(c: Condition, inst: Instance) -> bool | None:
    """Three-valued truth of ``c`` under one instantiation (Kleene's strong logic)."""
    if isinstance(c, Cmp):
        return compare(c.op, term_value(c.left, inst), term_value(c.right, inst))
    if isinstance(c, And):
        result: bool | None = True
        for part in c.parts:
            v = evaluate(part, inst)
            if v is False:
                return False
            if v is None:
                result = None
        return result
    if isinstance(c, Or):
        result = False
        for part in c.parts:
            v = evaluate(part, inst)
            if v is True:
                return True
            if v is None:
                result = None
        return result
    if isinstance(c, Not):
        v = evaluate(c.part, inst)
        return None if v is None else not v
    return c.value


def instances(c: Condition, gamma: Mapping[str, Sequence[Event]]) -> Iterator[Instance]:
    """Every instantiation of ``c`` by substitution ``gamma`` (its decomposition)."""
    missing = variables(c) - gamma.keys()
    if missing:
        raise PatternError(f"condition refers to unbound variable(s) {sorted(missing)}")
    prevs = prev_variables(c)
    names = sorted(decomposed_variables(c))
    choices = [range(1, len(gamma[v])) if v in prevs else range(len(gamma[v])) for v in names]
    for combo in itertools.product(*choices):
        current = {v: gamma[v][i] for v, i in zip(names, combo, strict=True)}
        previous = {v: gamma[v][i - 1] for v, i in zip(names, combo, strict=True) if v in prevs}
        yield Instance(current, previous, gamma)


def holds(c: Condition, gamma: Mapping[str, Sequence[Event]]) -> bool:
    """Whether ``c`` is satisfied by ``gamma``: every instantiation is ``True``."""
    return all(evaluate(c, inst) is True for inst in instances(c, gamma))
