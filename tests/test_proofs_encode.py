"""The Z3 encoding of conditions agrees with the reference's three-valued semantics.

Symbolic events are pinned to concrete events (values of every kind, missing
attributes included); the encoded "true" and "false" must then be exactly the
reference's ``True`` and ``False`` (and neither when it says unknown), for
single instantiations and for the decomposition over group variables with
``prev``. Schema inference is checked on small hand examples.
"""

from __future__ import annotations

from typing import Any

import z3
from hypothesis import example, given, settings
from hypothesis import strategies as st

from kleene.proofs.encode import (
    Binding,
    SymEvent,
    SymValue,
    as_z3,
    holds_over,
    symbolic_event,
    true_in,
    truth,
)
from kleene.proofs.schema import Schema, default_sorts, observed_sorts, schema_for
from kleene.proofs.solver import solve
from kleene.reference.conditions import (
    And,
    Attr,
    Cmp,
    Condition,
    Const,
    Instance,
    Not,
    Or,
    Prev,
    evaluate,
    holds,
)
from kleene.reference.durations import Duration
from kleene.reference.events import Event, Stream, Value
from kleene.reference.ses.text import parse_ses

ATTRS = ("L", "V", "B", "M")
ANY = Schema({"ts": "int", **{a: "any" for a in ATTRS}}, frozenset(ATTRS))

values = st.one_of(st.none(), st.sampled_from(["A", "B", ""]), st.integers(-2, 2),
                   st.sampled_from([0.5, -1.5, 2.0]), st.booleans())
constants = st.one_of(st.sampled_from(["A", "B"]), st.integers(-2, 2),
                      st.sampled_from([0.5, 2.0]), st.booleans()).map(Const)


def terms(variables: tuple[str, ...]) -> st.SearchStrategy:
    attrs = st.sampled_from(ATTRS + ("ts",))
    refs = st.builds(Attr, st.sampled_from(variables), attrs)
    prevs = st.builds(Prev, st.sampled_from(variables), attrs)
    return st.one_of(refs, refs, prevs, constants)


def conditions(variables: tuple[str, ...] = ("v",)) -> st.SearchStrategy[Condition]:
    ops = st.sampled_from(("=", "!=", "<", "<=", ">", ">="))
    leaf = st.builds(Cmp, ops, terms(variables), terms(variables))
    return st.recursive(leaf, lambda inner: st.one_of(
        st.builds(lambda ps: And(tuple(ps)), st.lists(inner, min_size=2, max_size=3)),
        st.builds(lambda ps: Or(tuple(ps)), st.lists(inner, min_size=2, max_size=3)),
        st.builds(Not, inner)), max_leaves=5)




def _event(ts: int, vals: tuple[Value, ...]) -> Event:
    return Event(0, ts, None, {a: v for a, v in zip(ATTRS, vals, strict=True) if v is not None})


events = st.builds(_event, st.integers(0, 3), st.tuples(*[values] * len(ATTRS)))


def pin(sym: SymEvent, e: Event) -> list[z3.BoolRef]:
    """Constraints that make ``sym`` the concrete event ``e``."""
    out = [sym.ts == e.ts, *sym.constraints]
    for a in ATTRS:
        slot: SymValue = sym.value(a)
        v = e.value(a)
        out.append(as_z3(slot.present) if v is not None else z3.Not(as_z3(slot.present)))
        if v is None:
            continue                      # a missing value's kind is irrelevant
        kind = "bool" if isinstance(v, bool) else "num" if isinstance(v, int | float) else "str"
        for k, flag, val in slot.kinds:
            out.append(as_z3(flag) if k == kind else z3.Not(as_z3(flag)))
            if k == kind:
                out.append(val == (z3.StringVal(v) if k == "str" else
                                   z3.BoolVal(v) if k == "bool" else z3.RealVal(str(v))))
    return out


def value_of(lit, constraints: list[Any]) -> bool:
    solver = z3.Solver()
    solver.add(*constraints)
    assert solver.check() == z3.sat
    return true_in(solver.model(), lit)


@settings(max_examples=150)
@given(conditions(), events, events)
@example(And((Cmp("=", Attr("v", "L"), Attr("v", "L")), Cmp("<=", Const("A"), Attr("v", "V")))),
         Event(0, 0, None, {"V": ""}), Event(0, 0))    # a ground string comparison in the model
def test_three_valued_truth_is_the_references(c: Condition, e: Event, before: Event) -> None:
    cur, prev = symbolic_event(ANY, "cur"), symbolic_event(ANY, "prev")
    t, f = truth(c, Binding({"v": cur}, {"v": prev}))
    pinned = pin(cur, e) + pin(prev, before)
    expected = evaluate(c, Instance({"v": e}, {"v": before}, {}))
    assert (value_of(t, pinned), value_of(f, pinned)) == (expected is True, expected is False)


@settings(max_examples=100)
@given(conditions(("v", "w")), st.lists(events, min_size=1, max_size=3),
       st.lists(events, min_size=1, max_size=2))
def test_decomposition_is_the_references(c: Condition, vs: list[Event], ws: list[Event]) -> None:
    """Group variables: every instantiation; ``prev``: consecutive pairs (seed 001 Sec. 3)."""
    sv = [symbolic_event(ANY, f"v{i}") for i in range(len(vs))]
    sw = [symbolic_event(ANY, f"w{i}") for i in range(len(ws))]
    lit = holds_over(c, {"v": [(True, x) for x in sv], "w": [(True, x) for x in sw]})
    pinned = [p for s, e in zip(sv + sw, vs + ws, strict=True) for p in pin(s, e)]
    assert value_of(lit, pinned) == holds(c, {"v": tuple(vs), "w": tuple(ws)})


def test_membership_literals_select_the_bound_events() -> None:
    """A candidate whose literal is false is not bound: prev skips over it."""
    c = Cmp("<", Prev("v", "V"), Attr("v", "V"))
    schema = Schema({"ts": "int", "V": "int"}, frozenset())
    es = [symbolic_event(schema, f"e{i}") for i in range(3)]
    values = [z3.And(es[0].value("V").kinds[0][2] == 1, es[1].value("V").kinds[0][2] == 5,
                     es[2].value("V").kinds[0][2] == 3)]
    skip_middle = holds_over(c, {"v": [(True, es[0]), (False, es[1]), (True, es[2])]})
    all_three = holds_over(c, {"v": [(True, e) for e in es]})
    assert value_of(skip_middle, values) and not value_of(all_three, values)


def test_default_sorts_follow_constants_through_comparisons() -> None:
    p = parse_ses("PATTERN <{a}, {b}> WHERE a.L = 'x' AND a.V < 2.5 AND a.ID = b.ID "
                  "AND a.K = b.J AND b.J = 3 AND a.M = 1 AND a.M = 'y' WITHIN 4")
    sorts = default_sorts(p.conditions)
    assert sorts == {"L": "str", "V": "real", "ID": "int", "K": "int", "J": "int",
                     "M": "any"}
    schema = schema_for(p.conditions, p.window)
    assert schema.sorts["ts"] == "int" and schema.optional == frozenset(sorts)


def test_observed_and_declared_sorts_win_over_defaults() -> None:
    s = Stream.from_rows([{"ts": 0, "L": "a", "V": 1}, {"ts": 1.5, "V": 2.5, "F": True}])
    assert observed_sorts(s) == ({"ts": "real", "L": "str", "V": "real", "F": "bool"},
                                 frozenset({"L", "F"}))
    p = parse_ses("PATTERN <{a}> WHERE a.V = 1 AND a.L = 2 AND a.W = 3 WITHIN 1.5")
    schema = schema_for(p.conditions, p.window, stream=s, declared={"W": "str"})
    assert schema.sorts == {"ts": "real", "V": "real", "L": "str", "W": "str"}
    assert schema.optional == frozenset({"L", "W"})      # V is in every event
    assert schema_for(p.conditions, Duration(1)).sorts["L"] == "int"


def test_a_query_z3_cannot_decide_in_time_is_unknown() -> None:
    """Results as values: a timeout is ``unknown`` with Z3's reason, never a verdict."""
    x, y, z = z3.Ints("x y z")
    hard = [x > 0, y > 0, z > 0, x * x * x + y * y * y == z * z * z]
    out = solve(hard, timeout_ms=50)
    assert out.status == "unknown" and out.model is None and out.reason
