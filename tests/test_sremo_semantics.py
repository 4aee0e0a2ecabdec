"""SREMO semantics (seed 004, report Defs. 13, 17, 18, 39, 44, 45) on hand-computed
examples. Positions are 0-based: the paper's index i is position i − 1."""

from __future__ import annotations

import pytest

from kleene.reference.budget import Budget
from kleene.reference.errors import BudgetExceeded, PatternError
from kleene.reference.events import Stream
from kleene.reference.match import Match
from kleene.reference.sremo import matches, run_text
from kleene.reference.sremo.language import language
from kleene.reference.sremo.semantics import Semantics, accepts, match_sets
from kleene.reference.sremo.strategies import rewrite
from kleene.reference.sremo.streaming import detect, literal_matches, stream_matches
from kleene.reference.sremo.text import parse_sremo
from kleene.reference.sremo.valuations import EMPTY, satisfies, update
from kleene.reference.syntax import parse_condition
from tests.helpers import letters

E1 = "mark {~.type = 'B'} -> r1 ; {TRUE}* ; mark {~.type = 'S' AND ~.id = r1.id}"
TABLE_1 = [("B", 1, 22, 300), ("B", 1, 24, 225), ("B", 2, 32, 1210), ("S", 1, 70, 760),
           ("S", 1, 68, 2000), ("B", 2, 33, 95)]


def table_1(n: int = 6) -> Stream:
    return Stream.from_rows([{"ts": i + 1, "type": t, "id": d, "price": p, "volume": v}
                             for i, (t, d, p, v) in enumerate(TABLE_1[:n])])


def marked(*sets: tuple[int, ...]) -> set[Match]:
    return {Match.marked(m) for m in sets}


A, B, C = "mark {~.type = 'a'}", "mark {~.type = 'b'}", "mark {~.type = 'c'}"


# ---------------------------------------------------------------- Example 3.7 / 19 and 40

def test_example_3_7_streaming_reports_1_4_and_1_5():
    # Every B of id 1 (paper 1, 2) with every later S of id 1 (paper 4, 5); the B of
    # id 2 (paper 3) has no S: {1,4}, {1,5}, {2,4}, {2,5} in the paper's indices.
    assert run_text(E1, table_1()) == marked((0, 3), (0, 4), (1, 3), (1, 4))


def test_example_3_7_reports_each_match_at_its_last_position():
    reported = [(k, m["~"]) for k, m in detect(parse_sremo(E1), table_1())]
    assert reported == [(3, (0, 3)), (3, (1, 3)), (4, (0, 4)), (4, (1, 4))]


def test_def_18_read_literally_consumes_the_whole_string():
    # docs/errata.md#seed-004-def18-whole-string: the string must start with the stored
    # B and end with the S, so S1..4 gives {1,4}, S1..5 only {1,5}, all of S nothing.
    assert run_text(E1, table_1(4), "literal") == marked((0, 3))
    assert run_text(E1, table_1(5), "literal") == marked((0, 4))
    assert run_text(E1, table_1(), "literal") == set()
    assert accepts(parse_sremo(E1), table_1(4)) and not accepts(parse_sremo(E1), table_1())


def test_example_40_window_4_keeps_1_4_and_drops_1_5():
    # Spans max − min + 1: {0,3} 4, {0,4} 5, {1,3} 3, {1,4} 4.
    windowed = f"({E1})[1..4]"
    assert run_text(windowed, table_1()) == marked((0, 3), (1, 3), (1, 4))
    assert run_text(windowed, table_1(5), "literal") == set()


def test_register_holds_the_whole_element():
    # Example 3.5: after the first element, r1 stores (B, 1, 22, 300).
    s = table_1()
    (m, v), = Semantics(s).relate(parse_sremo("mark {~.type = 'B'} -> r1"), 0, 1)
    assert m == {0} and v == (("r1", 0),) and s[dict(v)["r1"]].value("price") == 22


# ---------------------------------------------------------------- Def. 13

def test_a_comparison_over_an_empty_register_is_false_and_its_negation_true():
    s = letters("a")
    phi = parse_condition("~.type = r.type")
    assert not satisfies(phi, s[0], EMPTY, s)
    assert satisfies(parse_condition("NOT ~.type = r.type"), s[0], EMPTY, s)
    assert satisfies(phi, s[0], update(EMPTY, "r", 0), s)


def test_a_branch_that_did_not_write_the_register_cannot_satisfy_a_read():
    # ({a} -> r + {b}) ; mark {~.type = r.type}: after b the register is empty.
    e = "({~.type = 'a'} -> r + {~.type = 'b'}) ; mark {~.type = r.type}"
    assert run_text(e, letters("a", "a")) == marked((1,))
    assert run_text(e, letters("b", "b")) == set()


# ---------------------------------------------------------------- Def. 17 cases

def test_star_iterates_with_the_registers_of_the_previous_iteration():
    # Increasing runs: each iteration compares with the element the previous one stored.
    e = "mark {TRUE} -> r ; (mark {~.v > r.v} -> r)*"
    s = Stream.from_rows([{"ts": i, "v": v} for i, v in enumerate([1, 3, 2, 4])])
    # Streaming: contiguous increasing runs ending at each k:
    # k0 {0}; k1 {1}, {0,1}; k2 {2}; k3 {3}, {2,3}.
    assert run_text(e, s) == marked((0,), (1,), (0, 1), (2,), (3,), (2, 3))


def test_epsilon_and_empty():
    s = letters("a")
    assert run_text("EPS", s, "literal") == set()   # S is not empty
    assert accepts(parse_sremo("EPS"), letters())
    assert not accepts(parse_sremo("EMPTY"), letters())
    assert run_text("EMPTY + " + A, s) == marked((0,))


def test_an_unmarked_match_is_the_empty_match_under_the_literal_policy():
    # {TRUE}* reads any string and marks nothing: M = ∅ (Match.of({})).
    got = run_text("{TRUE}*", letters("a", "b"), "literal")
    assert got == {Match.of({})}
    assert run_text("{TRUE}*", letters("a", "b")) == set()  # nothing is ever reported


# ---------------------------------------------------------------- strategies

def test_skip_till_any_match_def_44():
    # ⟲(a, b, c) = a · ⊤* · b · ⊤* · c on a x b b c: either b.
    assert run_text(f"ANY({A}, {B}, {C})", letters("a", "x", "b", "b", "c")) == \
        marked((0, 2, 4), (0, 3, 4))
    # Without the strategy the sequence is strictly contiguous.
    assert run_text(f"{A} ; {B} ; {C}", letters("a", "x", "b", "b", "c")) == set()


def test_skip_till_next_match_takes_the_first_instance():
    # docs/errata.md#seed-004-def45-next: a b b b.
    e = parse_sremo(f"NEXT({A}, {B})")
    s = letters("a", "b", "b", "b")
    assert stream_matches(e, s) == marked((0, 1))
    # Def. 45 as printed: (!b)* also skips the gap "b b" (one piece of length 2).
    assert stream_matches(rewrite(e, "literal"), s) == marked((0, 1), (0, 3))
    assert run_text(f"NEXT({A}, {B})", letters("a", "x", "b", "b")) == marked((0, 2))


def test_strategies_on_an_iteration_and_on_a_choice():
    # ANY(b*) := EPS + b ; (⊤* ; b)*; it starts right after the a (strict concatenation).
    assert run_text(f"{A} ; ANY(({B})*)", letters("a", "b", "x", "b")) == \
        marked((0,), (0, 1), (0, 1, 3))
    # NEXT(b*): the gap may not hold a b, so after b(1) the run cannot skip b(2).
    assert run_text(f"{A} ; NEXT(({B})*)", letters("a", "b", "x", "b", "b")) == \
        marked((0,), (0, 1), (0, 1, 3), (0, 1, 3, 4))
    # A strategy has no effect on a disjunction (report Sec. 5.2).
    assert run_text(f"ANY({A} + {B})", letters("a", "b")) == marked((0,), (1,))


# ---------------------------------------------------------------- negation, intersection

def test_negation_is_the_complement_of_the_language_and_marks_nothing():
    # The report's example shape (phi1 ↓ r ; !phi2 ; phi3(~, r))[1..w]:
    # !{b} accepts every string but a single b.
    e = f"({A} ; !{{~.type = 'b'}} ; {C})[1..4]"
    assert run_text(e, letters("a", "c")) == marked((0, 1))
    assert run_text(e, letters("a", "b", "c")) == set()
    assert run_text(e, letters("a", "b", "b", "c")) == marked((0, 3))
    assert run_text(e, letters("a", "x", "x", "x", "c")) == set()  # span 5 > 4


def test_intersection_keeps_common_matches():
    e = f"ANY({A}, {B}) INTERSECT ({A} ; {{TRUE}} ; {B})"
    assert run_text(e, letters("a", "x", "b", "x", "b")) == marked((0, 2))


def test_intersection_valuation_takes_each_register_from_its_writer():
    # Each part stores the same element in its own register; the sequence after the
    # intersection compares with both.
    e = ("(mark {TRUE} -> p INTERSECT mark {TRUE} -> q) ; "
         "mark {~.v = p.v AND ~.v = q.v}")
    s = Stream.from_rows([{"ts": i, "v": v} for i, v in enumerate([1, 1, 2])])
    assert run_text(e, s) == marked((0, 1))


# ---------------------------------------------------------------- errors

def test_budget_exhaustion_names_the_budget():
    # Every subset of the 14 elements is a match of ({TRUE} + mark {TRUE})*: 2^14 of them.
    s = letters(*"a" * 14)
    with pytest.raises(BudgetExceeded) as err:
        run_text("({TRUE} + mark {TRUE})*", s, budget=Budget(limit=500))
    assert "steps=500" in str(err.value)


def test_unknown_policy_names_the_choices():
    with pytest.raises(PatternError, match="stream, literal"):
        run_text(A, letters("a"), "any")


def test_matches_accepts_expressions_and_rows():
    rows = [{"ts": 0, "type": "a"}, {"ts": 1, "type": "b"}]
    assert matches(parse_sremo(f"ANY({A}, {B})"), rows) == marked((0, 1))
    assert literal_matches(parse_sremo(A), letters("a")) == marked((0,))
    assert match_sets(parse_sremo(A), letters("b")) == set()


def test_bounded_language_enumerates_the_accepted_strings():
    # Lang(mark {a} ; {TRUE}*) over the letters a (0) and b (1), up to length 2:
    # the strings that start with an a: a, aa, ab.
    alphabet = [{"type": "a"}, {"type": "b"}]
    e = parse_sremo(f"{A} ; {{TRUE}}*")
    assert language(e, alphabet, 2) == {(0,), (0, 0), (0, 1)}
    assert language(parse_sremo("EPS"), alphabet, 2) == {()}
