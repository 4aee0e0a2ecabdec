"""The condition language over symbolic events, in Z3 (docs/architecture.md, "Proofs (Z3)").

Encoding decisions (documented once, relied on by every proof):

- **Values.** A symbolic attribute value is a :class:`SymValue`: a flag
  ``present`` and one Z3 constant per *kind* it may take (``str`` → String,
  ``num`` → Int or Real, ``bool`` → Bool), each with a flag saying whether the
  value is of that kind. The schema (:mod:`kleene.proofs.schema`) gives each
  attribute a sort: ``str``/``int``/``real``/``bool`` allow one kind, ``any``
  allows all three (exactly one holds), so mixed-kind streams can be encoded
  too. Integers and floats are one kind (``num``) as in
  :func:`kleene.reference.conditions.compare`; an ``int`` attribute is an Int,
  a ``real`` one a Real (exact rationals; a float constant is its exact value).
- **Missing attributes.** ``present`` is a free Boolean for every attribute the
  schema marks *optional* (by default all but ``ts``), so symbolic events may
  lack attributes exactly as reference events may (``Event.value`` is then
  ``None``); ``ts`` is always present and numeric, ``type`` a string.
- **Three-valued logic.** A condition is encoded as a pair ``(t, f)``: "it is
  true", "it is false"; *unknown* is neither. A comparison is known iff both
  sides are present and of the same kind (the reference's ``compare``);
  ``AND``/``OR``/``NOT`` follow Kleene's strong logic; a condition *holds* only
  when ``t`` (:func:`kleene.reference.conditions.holds`).
- **Decomposition.** :func:`holds_over` instantiates a condition once for every
  combination of one candidate event per variable, each candidate guarded by a
  Boolean "this event is bound to the variable"; a variable read through
  ``prev`` ranges over consecutive pairs of its bound events (seed 001 Sec. 3).

Python Booleans stand for Z3 literals where the truth is known while encoding,
so formulas stay small (:func:`conj`, :func:`disj`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TypeAlias

import z3

from kleene.proofs.schema import Schema
from kleene.reference.conditions import (
    LIKE,
    And,
    Attr,
    Cmp,
    Condition,
    Const,
    Not,
    Or,
    Prev,
    Term,
    Truth,
    decomposed_variables,
    prev_variables,
    variables,
)
from kleene.reference.errors import PatternError, Unsupported
from kleene.reference.events import Event, Value

#: A literal: a Z3 Boolean, or a Python Boolean when it is known while encoding.
Lit: TypeAlias = bool | z3.BoolRef

# ---------------------------------------------------------------- literals


def conj(*parts: Lit) -> Lit:
    """The conjunction of ``parts``, simplified where they are Python Booleans."""
    kept = [p for p in parts if p is not True]
    if any(p is False for p in kept):
        return False
    if not kept:
        return True
    return kept[0] if len(kept) == 1 else z3.And(*kept)


def disj(*parts: Lit) -> Lit:
    """The disjunction of ``parts``, simplified where they are Python Booleans."""
    kept = [p for p in parts if p is not False]
    if any(p is True for p in kept):
        return True
    if not kept:
        return False
    return kept[0] if len(kept) == 1 else z3.Or(*kept)


def neg(p: Lit) -> Lit:
    """The negation of ``p``."""
    return (not p) if isinstance(p, bool) else z3.Not(p)


def implies(a: Lit, b: Lit) -> Lit:
    """``a → b``."""
    return disj(neg(a), b)


def as_z3(p: Lit) -> z3.BoolRef:
    """``p`` as a Z3 Boolean (for the solver)."""
    return z3.BoolVal(p) if isinstance(p, bool) else p

# ---------------------------------------------------------------- values and events


@dataclass(frozen=True)
class SymValue:
    """A symbolic attribute value: ``present``, and per kind (``is_kind``, Z3 value)."""

    present: Lit
    kinds: tuple[tuple[str, Lit, z3.ExprRef], ...]


def constant(v: str | int | float | bool) -> SymValue:
    """A pattern constant as a (present, single-kind) symbolic value."""
    if isinstance(v, bool):
        return SymValue(True, (("bool", True, z3.BoolVal(v)),))
    if isinstance(v, int):
        return SymValue(True, (("num", True, z3.IntVal(v)),))
    if isinstance(v, float):
        return SymValue(True, (("num", True, z3.RealVal(str(Fraction(v)))),))
    return SymValue(True, (("str", True, z3.StringVal(v)),))


_MISSING = SymValue(False, ())

_ZSORT: dict[str, Callable[[str], z3.ExprRef]] = {
    "str": z3.String, "int": z3.Int, "real": z3.Real, "bool": z3.Bool}
_KIND = {"str": "str", "int": "num", "real": "num", "bool": "bool"}


@dataclass(frozen=True)
class SymEvent:
    """A symbolic event: ``ts`` and one :class:`SymValue` per attribute of the schema."""

    name: str
    ts: z3.ArithRef
    slots: Mapping[str, SymValue]
    constraints: tuple[z3.BoolRef, ...]

    def value(self, attr: str) -> SymValue:
        """Attribute ``attr`` (``ts``, ``type`` included); missing if the schema lacks it."""
        return self.slots.get(attr, _MISSING)


def _slot(name: str, sort: str, optional: bool) -> tuple[SymValue, list[z3.BoolRef]]:
    present: Lit = z3.Bool(f"{name}?") if optional else True
    if sort != "any":
        return SymValue(present, ((_KIND[sort], True, _ZSORT[sort](name)),)), []
    flags = [z3.Bool(f"{name}:{k}") for k in ("str", "num", "bool")]
    kinds = ((("str", flags[0], z3.String(name + "$s")),
              ("num", flags[1], z3.Real(name + "$n")),
              ("bool", flags[2], z3.Bool(name + "$b"))))
    exactly_one = z3.PbEq([(f, 1) for f in flags], 1)
    return SymValue(present, kinds), [exactly_one]


def symbolic_event(schema: Schema, name: str) -> SymEvent:
    """A fresh symbolic event named ``name`` with the attributes of ``schema``."""
    ts = _ZSORT[schema.sorts["ts"]](f"{name}.ts")
    slots: dict[str, SymValue] = {"ts": SymValue(True, (("num", True, ts),))}
    constraints: list[z3.BoolRef] = []
    for attr, sort in schema.sorts.items():
        if attr != "ts":
            slots[attr], extra = _slot(f"{name}.{attr}", sort, attr in schema.optional)
            constraints += extra
    return SymEvent(name, ts, slots, tuple(constraints))

# ---------------------------------------------------------------- three-valued truth

TV: TypeAlias = tuple[Lit, Lit]   # (is true, is false); unknown is neither


def _relation(op: str, kind: str, a: z3.ExprRef, b: z3.ExprRef) -> z3.BoolRef:
    if kind == "bool" and op not in ("=", "!="):
        a, b = z3.If(a, 1, 0), z3.If(b, 1, 0)   # Python orders False < True
    return {"=": lambda: a == b, "!=": lambda: a != b, "<": lambda: a < b,
            "<=": lambda: a <= b, ">": lambda: a > b, ">=": lambda: a >= b}[op]()


def compare(op: str, a: SymValue, b: SymValue) -> TV:
    """``a op b`` in three-valued logic: known iff both present and of the same kind.
    ``LIKE`` is refused (:class:`Unsupported`): Z3's regular expressions are not RE2's
    partial match, and no abstraction of it is claimed sound here, so a proof over a
    condition with ``LIKE`` is not attempted (the reports say unknown, with this reason)."""
    if op == LIKE:
        raise Unsupported("a condition with LIKE is not proved: Z3 has no RE2 partial match")
    t_parts: list[Lit] = []
    f_parts: list[Lit] = []
    for ka, ia, va in a.kinds:
        for kb, ib, vb in b.kinds:
            if ka == kb:
                rel = _relation(op, ka, va, vb)
                t_parts.append(conj(ia, ib, rel))
                f_parts.append(conj(ia, ib, z3.Not(rel)))
    known = conj(a.present, b.present)
    return conj(known, disj(*t_parts)), conj(known, disj(*f_parts))


@dataclass(frozen=True)
class Binding:
    """One instantiation: a symbolic event per variable, its predecessor for ``prev``, and
    the whole sequence bound to a variable an aggregate reads (candidates, each with its
    membership literal)."""

    current: Mapping[str, SymEvent]
    previous: Mapping[str, SymEvent]
    sequences: Mapping[str, Sequence[Member]] = field(default_factory=dict)


def term_value(t: Term, b: Binding) -> SymValue:
    """The symbolic value of term ``t`` under ``b`` (``prev`` of a first event is missing)."""
    if isinstance(t, Const):
        return constant(t.value)
    if isinstance(t, Attr):
        return b.current[t.var].value(t.attr)
    if isinstance(t, Prev):
        before = b.previous.get(t.var)
        return _MISSING if before is None else before.value(t.attr)
    if t.var not in b.sequences:
        raise Unsupported(f"{t.func}({t.var}) reads a sequence this encoding does not bind")
    return aggregate_value(t.func, t.attr, b.sequences[t.var])


def _number(v: SymValue) -> tuple[Lit, z3.ArithRef] | None:
    """(is a number, the number) of ``v``: present and of kind ``num``; ``None`` if never."""
    for kind, flag, val in v.kinds:
        if kind == "num":
            return conj(v.present, flag), val
    return None


def aggregate_value(func: str, attr: str | None, members: Sequence[Member]) -> SymValue:
    """``func(var.attr)`` over the member events (seed 003 Sec. 4.5.1, as
    :func:`kleene.reference.conditions.aggregate`): ``COUNT`` counts members (with
    ``attr``: those where it is present), the others read the numbers among the
    present values and are missing when there is none; ``AVG`` is exact (Real)."""
    if func == "COUNT":
        ones = [z3.If(as_z3(conj(lit, True if attr is None else e.value(attr).present)), 1, 0)
                for lit, e in members]
        return SymValue(True, (("num", True, z3.Sum(*ones) if ones else z3.IntVal(0)),))
    nums = [(conj(lit, n[0]), n[1]) for lit, e in members
            if attr is not None and (n := _number(e.value(attr))) is not None]
    nums = [(ok, v) for ok, v in nums if ok is not False]
    if not nums:
        return _MISSING
    some = disj(*(ok for ok, _ in nums))
    if func in ("SUM", "AVG"):
        total = z3.Sum(*(z3.If(as_z3(ok), v, 0) for ok, v in nums))
        if func == "SUM":
            return SymValue(some, (("num", True, total),))
        count = z3.Sum(*(z3.If(as_z3(ok), 1, 0) for ok, _ in nums))
        return SymValue(some, (("num", True, z3.ToReal(total) / z3.ToReal(count)),))
    better = (lambda a, b: a < b) if func == "MIN" else (lambda a, b: a > b)
    have: Lit = False
    best: z3.ArithRef = nums[0][1]
    for ok, v in nums:
        take = conj(ok, disj(neg(have), better(v, best)))
        best = z3.If(as_z3(take), v, best)
        have = disj(have, ok)
    return SymValue(some, (("num", True, best),))


def truth(c: Condition, b: Binding) -> TV:
    """The pair (true, false) of ``c`` under ``b``: Kleene's strong logic."""
    if isinstance(c, Cmp):
        return compare(c.op, term_value(c.left, b), term_value(c.right, b))
    if isinstance(c, And | Or):
        parts = [truth(p, b) for p in c.parts]
        ts, fs = [p[0] for p in parts], [p[1] for p in parts]
        return (conj(*ts), disj(*fs)) if isinstance(c, And) else (disj(*ts), conj(*fs))
    if isinstance(c, Not):
        t, f = truth(c.part, b)
        return f, t
    assert isinstance(c, Truth)
    return c.value, not c.value

# ---------------------------------------------------------------- decomposition

#: A candidate event of a variable: (is it bound to the variable?, the event).
Member: TypeAlias = tuple[Lit, SymEvent]


def _choices(var: str, cands: Sequence[Member], uses_prev: bool,
             anchor: int | None) -> list[tuple[Lit, SymEvent, SymEvent | None]]:
    """The instantiations of one variable: each candidate, or consecutive pairs for ``prev``."""
    ends = range(len(cands)) if anchor is None else (anchor,)
    out: list[tuple[Lit, SymEvent, SymEvent | None]] = []
    for j in ends:
        if not uses_prev:
            out.append((cands[j][0], cands[j][1], None))
            continue
        for i in range(j):
            between = [neg(cands[x][0]) for x in range(i + 1, j)]
            out.append((conj(cands[i][0], cands[j][0], *between), cands[j][1], cands[i][1]))
    return out


def holds_over(c: Condition, members: Mapping[str, Sequence[Member]],
               anchor: Mapping[str, int] | None = None) -> Lit:
    """``c`` holds for the substitution the membership literals describe.

    ``members[v]`` lists ``v``'s candidate events in stream order. With
    ``anchor[v] = j`` only the instantiations whose current event of ``v`` is
    candidate ``j`` are encoded (the engine evaluates only those involving the
    new event). Mirrors :func:`kleene.reference.conditions.instances`.
    """
    names = sorted(decomposed_variables(c))
    missing = [v for v in variables(c) if v not in members]
    if missing:
        raise PatternError(f"condition refers to unbound variable(s) {missing}")
    prevs = prev_variables(c)
    anchor = anchor or {}
    choices = [_choices(v, members[v], v in prevs, anchor.get(v)) for v in names]
    parts: list[Lit] = []
    for combo in itertools.product(*choices):
        lit = conj(*(ch[0] for ch in combo))
        if lit is False:
            continue
        binding = Binding({v: ch[1] for v, ch in zip(names, combo, strict=True)},
                          {v: ch[2] for v, ch in zip(names, combo, strict=True)
                           if ch[2] is not None},
                          {v: members[v] for v in variables(c) if v in members})
        parts.append(implies(lit, truth(c, binding)[0]))
    return conj(*parts)


def holds_for(c: Condition, var: str, e: SymEvent) -> Lit:
    """Property ``c`` of ``var`` holds for the single symbolic event ``e``."""
    return holds_over(c, {var: [(True, e)]})

# ---------------------------------------------------------------- models back to events


def evaluated(model: z3.ModelRef, x: Lit | z3.ExprRef) -> z3.ExprRef:
    """``x`` in ``model``, simplified to a value (``eval`` can leave ground string
    comparisons such as ``"" == "A"`` unreduced)."""
    return z3.simplify(model.eval(as_z3(x) if isinstance(x, bool) else x,
                                  model_completion=True))


def true_in(model: z3.ModelRef, x: Lit) -> bool:
    """Whether literal ``x`` is true in ``model``."""
    return z3.is_true(evaluated(model, x))


def number(v: z3.ExprRef) -> int | float:
    """A Z3 numeral as a Python ``int`` (integral) or ``float``."""
    if z3.is_int_value(v):
        return v.as_long()
    q = v.as_fraction()
    return int(q) if q.denominator == 1 else float(q)


def _value(model: z3.ModelRef, v: SymValue) -> Value:
    if not true_in(model, v.present):
        return None
    for kind, flag, val in v.kinds:
        if true_in(model, flag):
            got = evaluated(model, val)
            if kind == "str":
                return got.as_string()
            if kind == "bool":
                return z3.is_true(got)
            return number(got)
    return None


def concrete_event(model: z3.ModelRef, e: SymEvent, position: int) -> Event:
    """The event ``model`` assigns to ``e``, at ``position``."""
    ts = number(evaluated(model, e.ts))
    kind = _value(model, e.value("type"))
    attrs = {a: _value(model, v) for a, v in e.slots.items() if a not in ("ts", "type")}
    return Event(position, ts, kind if isinstance(kind, str) else None,
                 {a: v for a, v in attrs.items() if v is not None})
