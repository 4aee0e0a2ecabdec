"""The operator reference (skip-till-any-match) on hand-computed examples.

Expected values come from seed 003's worked examples (Example 1.1, Sec. 4.5)
or are computed by hand from the definitions in
:mod:`kleene.reference.operators.matching`, explained inline. Events are
written ``"A"`` (type A at ts = its position) or ``("A", ts, attrs)``.
"""

from __future__ import annotations

import itertools

import pytest

from kleene.reference.budget import Budget
from kleene.reference.errors import BudgetExceeded, PatternError
from kleene.reference.events import Stream
from kleene.reference.match import Match
from kleene.reference.operators.matching import all_matches
from kleene.reference.operators.policies import matches, run_text
from kleene.reference.operators.text import parse_operator
from tests.helpers import m, typed_stream


def run(text: str, s: Stream, **kwargs) -> set[Match]:
    return run_text(text, s, "any", **kwargs)


# ---------------------------------------------------------------- the paper's examples


def test_example_1_1_has_four_matches():
    # Seed 003 Example 1.1 / Pattern (1): a1 a2 b1 b2 c, each price above T = 10,
    # one event a minute: {a1 b1 c}, {a2 b1 c}, {a1 b2 c}, {a2 b2 c}.
    s = typed_stream(*[(k, i, {"price": 20}) for i, k in enumerate("AABBC")], time_unit="min")
    text = ("PATTERN SEQ(A a, B b, C c) WHERE skip_till_any_match { a.price > 10 "
            "AND b.price > 10 AND c.price > 10 } WITHIN 1 hour")
    assert run(text, s) == {m(a=a, b=b, c=4) for a in (0, 1) for b in (2, 3)}


def test_section_4_5_has_seven_matches():
    # Pattern (5) on a b1 b2 b3 c: "ab1c, ab2c, ab3c, ab1b2c, ab1b3c, ab2b3c, ab1b2b3c".
    s = typed_stream("A", "B", "B", "B", "C", time_unit="min")
    subsets = [list(c) for n in (1, 2, 3) for c in itertools.combinations([1, 2, 3], n)]
    expected = {m(a=0, b=b, c=4) for b in subsets}
    assert len(expected) == 7
    assert run("PATTERN SEQ(A a, B+ b[], C c) WITHIN 1 hour", s) == expected
    assert run("PATTERN SEQ(A a, (B b)+, C c) WITHIN 1 hour", s) == expected


def test_pattern_6_aggregate_over_the_iteration():
    # AVG(b[i].x) < c.y with b.x = 1, 5 and c.y = 4: {b1} (avg 1) and {b1, b2}
    # (avg 3) qualify, {b2} (avg 5) does not.
    s = typed_stream("A", ("B", 1, {"x": 1}), ("B", 2, {"x": 5}), ("C", 3, {"y": 4}))
    got = run("PATTERN SEQ(A a, B+ b[], C c) WHERE AVG(b[i].x) < c.y WITHIN 10", s)
    assert got == {m(a=0, b=1, c=3), m(a=0, b=[1, 2], c=3)}


def test_pattern_7_prev_ranges_over_consecutive_events():
    # b[i].x > b[i-1].x on x = 1, 3, 2: the increasing subsequences
    # {0} {1} {2} {0,1} {0,2}; {1,2} and {0,1,2} have 3 then 2.
    s = typed_stream(("B", 0, {"x": 1}), ("B", 1, {"x": 3}), ("B", 2, {"x": 2}))
    got = run("PATTERN B+ b[] WHERE b[i].x > b[i-1].x", s)
    assert got == {m(b=b) for b in ([0], [1], [2], [0, 1], [0, 2])}


def test_pattern_8_disjunction_with_a_shared_variable():
    # OR(SEQ(A a, B b, C c), SEQ(C c, D d, E e)) on A B C D E: one match per branch;
    # the c at position 2 serves both.
    got = run("PATTERN OR(SEQ(A a, B b, C c), SEQ(C c, D d, E e)) WITHIN 10",
              typed_stream(*"ABCDE"))
    assert got == {m(a=0, b=1, c=2), m(c=2, d=3, e=4)}


def test_pattern_9_conditions_on_an_untaken_branch_do_not_apply():
    # SEQ(A a, OR(B b, C c), D d) WHERE a.price > d.price AND b.price > 100:
    # a=5, B=1, C=1, d=3 and d=7. a > d only for d/3; "b.price > 100" rules out
    # the b branch and does not apply to the c branch.
    s = typed_stream(("A", 0, {"price": 5}), ("B", 1, {"price": 1}), ("C", 2, {"price": 1}),
               ("D", 3, {"price": 3}), ("D", 4, {"price": 7}))
    text = ("PATTERN SEQ(A a, OR(B b, C c), D d) WHERE a.price > d.price "
            "AND b.price > 100 WITHIN 10")
    assert run(text, s) == {m(a=0, c=2, d=3)}

# ---------------------------------------------------------------- operators


def test_seq_is_strict_in_ts_and_and_is_not():
    tie = typed_stream(("A", 5, {}), ("B", 5, {}))
    assert run("PATTERN SEQ(A a, B b)", tie) == set()
    assert run("PATTERN AND(A a, B b)", tie) == {m(a=0, b=1)}


def test_and_binds_distinct_events_in_any_order():
    # AND(A a, A b) on two As: a and b take different events, either way round.
    assert run("PATTERN AND(A a, A b)", typed_stream("A", "A")) == {m(a=0, b=1), m(a=1, b=0)}


def test_partial_sequence_pattern_3():
    # AND(SEQ(A a, B b), SEQ(C c, D d), E e) on C A E B D: b after a, d after c,
    # e anywhere: exactly one match.
    got = run("PATTERN AND(SEQ(A a, B b), SEQ(C c, D d), E e) WITHIN 10", typed_stream(*"CAEBD"))
    assert got == {m(a=1, b=3, c=0, d=4, e=2)}
    assert run("PATTERN AND(SEQ(A a, B b), SEQ(C c, D d), E e)", typed_stream(*"BACDE")) == set()


def test_iterations_of_a_sequence_do_not_interleave():
    # SEQ(A a, B b)+ on A B A B: one iteration {a0 b1}, {a0 b3}, {a2 b3}; two
    # iterations only a0 b1 then a2 b3. The interleaved a0 a2 / b1 b3 pairing
    # (a0 b3, a2 b1) is no derivation: b1 precedes a2.
    assert run("PATTERN SEQ(A a, B b)+", typed_stream(*"ABAB")) == {
        m(a=0, b=1), m(a=0, b=3), m(a=2, b=3), m(a=[0, 2], b=[1, 3])}


def test_relationships_hold_across_iterations():
    # Same stream with x = 1, 2, 3, 4 and a.x < b.x: decomposition checks every
    # pair, so the two-iteration match fails on a2.x = 3 < b1.x = 2.
    s = typed_stream(*[(k, i, {"x": i + 1}) for i, k in enumerate("ABAB")])
    assert run("PATTERN SEQ(A a, B b)+ WHERE a.x < b.x", s) == {
        m(a=0, b=1), m(a=0, b=3), m(a=2, b=3)}


def test_bounded_repetition_counts_subsets():
    # B{2,3} b[] on four Bs: C(4,2) + C(4,3) = 6 + 4 = 10 matches.
    got = run("PATTERN B{2,3} b[]", typed_stream(*"BBBB"))
    assert len(got) == 10 and all(2 <= len(x["b"]) <= 3 for x in got)


def test_iterations_take_tied_events():
    # Two Bs at the same ts: {0}, {1} and {0, 1} (iterations are ordered by
    # position, as SES group variables are); docs/errata.md#seed-003-iteration-order.
    s = typed_stream(("B", 0, {}), ("B", 0, {}))
    assert run("PATTERN (B b)+", s) == {m(b=0), m(b=1), m(b=[0, 1])}

# ---------------------------------------------------------------- windows


def test_window_is_inclusive_with_a_strict_reading_on_request():
    s = typed_stream(("A", 0, {}), ("B", 60, {}), time_unit="min")
    text = "PATTERN SEQ(A a, B b) WITHIN 1 hour"
    assert run(text, s) == {m(a=0, b=1)}
    assert run(text, s, reading="strict") == set()
    assert run(text, typed_stream(("A", 0, {}), ("B", 61, {}), time_unit="min")) == set()

# ---------------------------------------------------------------- negation


def test_pattern_4_negation_with_a_condition():
    # SEQ(A a, NOT(B b), C c, D d) WHERE b.x < c.y on A B(x=5) C(y=3) C(y=9) D:
    # for c/2 the B has 5 < 3 false: kept; for c/3 it has 5 < 9: forbidden.
    s = typed_stream("A", ("B", 1, {"x": 5}), ("C", 2, {"y": 3}), ("C", 3, {"y": 9}), "D")
    got = run("PATTERN SEQ(A a, NOT(B b), C c, D d) WHERE b.x < c.y WITHIN 10", s)
    assert got == {m(a=0, c=2, d=4)}


def test_negation_only_between_its_neighbours():
    # A C B D: the B lies between c and d, not between a and c.
    text = "PATTERN SEQ(A a, NOT(B b), C c, D d)"
    assert run(text, typed_stream(*"ACBD")) == {m(a=0, c=1, d=3)}
    assert run(text, typed_stream(*"ABCD")) == set()


def test_trailing_negation_reaches_to_the_window():
    # SEQ(A a, B b, NOT(C c)) with A@0 B@2 C@6: the C forbids iff A, B and C
    # fit in one window: span 6.
    s = typed_stream(("A", 0, {}), ("B", 2, {}), ("C", 6, {}))
    assert run("PATTERN SEQ(A a, B b, NOT(C c)) WITHIN 5", s) == {m(a=0, b=1)}
    assert run("PATTERN SEQ(A a, B b, NOT(C c)) WITHIN 6", s) == set()
    assert run("PATTERN SEQ(A a, B b, NOT(C c)) WITHIN 6", s, reading="strict") == \
        {m(a=0, b=1)}


def test_leading_negation_reaches_back_to_the_window():
    # SEQ(NOT(C c), A a, B b) WITHIN 5: C@0 A@3 B@5 spans 5 (forbidden);
    # C@0 A@4 B@6 spans 6 (allowed).
    text = "PATTERN SEQ(NOT(C c), A a, B b) WITHIN 5"
    assert run(text, typed_stream(("C", 0, {}), ("A", 3, {}), ("B", 5, {}))) == set()
    assert run(text, typed_stream(("C", 0, {}), ("A", 4, {}), ("B", 6, {}))) == {m(a=1, b=2)}


def test_negation_in_and_is_anywhere_in_the_window():
    text = "PATTERN AND(A a, B b, NOT(C c)) WITHIN 3"
    assert run(text, typed_stream(("A", 0, {}), ("B", 1, {}), ("C", 3, {}))) == set()
    assert run(text, typed_stream(("A", 0, {}), ("B", 1, {}), ("C", 4, {}))) == {m(a=0, b=1)}
    assert run(text, typed_stream(("C", 0, {}), ("A", 2, {}), ("B", 3, {}))) == set()


def test_negation_under_and_is_bounded_by_an_enclosing_seq():
    # No window needed: the C must lie strictly between a and d.
    text = "PATTERN SEQ(A a, AND(B b, NOT(C c)), D d)"
    assert run(text, typed_stream(*"ACBD")) == set()
    assert run(text, typed_stream(*"CABD")) == {m(a=1, b=2, d=3)}


def test_a_negated_event_is_never_an_event_of_the_match():
    # AND(A a, NOT(A n)): one A alone matches; with two, each forbids the other.
    text = "PATTERN AND(A a, NOT(A n)) WITHIN 10"
    assert run(text, typed_stream("A")) == {m(a=0)}
    assert run(text, typed_stream("A", "A")) == set()


def test_negating_a_sequence():
    # NOT(SEQ(B b, C c)) forbids a B followed by a C between a and d, not a C then a B.
    text = "PATTERN SEQ(A a, NOT(SEQ(B b, C c)), D d)"
    assert run(text, typed_stream(*"ABCD")) == set()
    assert run(text, typed_stream(*"ACBD")) == {m(a=0, d=3)}


def test_negation_condition_on_an_untaken_branch_does_not_apply():
    # n.x = b.x cannot be instantiated when the match took c: the N forbids
    # alone (docs/errata.md#seed-003-negation-or). With the b branch, 1 = 2 fails.
    text = "PATTERN SEQ(A a, OR(B b, C c), NOT(N n), D d) WHERE n.x = b.x"
    assert run(text, typed_stream("A", "C", ("N", 2, {"x": 1}), "D")) == set()
    assert run(text, typed_stream("A", ("B", 1, {"x": 2}), ("N", 2, {"x": 1}), "D")) == \
        {m(a=0, b=1, d=3)}

# ---------------------------------------------------------------- errors and budget


def test_unbounded_kleene_on_a_large_window_exhausts_the_budget():
    p = parse_operator("PATTERN B+ b[] WITHIN 100")
    with pytest.raises(BudgetExceeded) as err:
        all_matches(p, typed_stream(*"B" * 25), budget=Budget(limit=10_000))
    assert "steps=10000" in str(err.value)


def test_a_policy_must_agree_with_the_named_strategy():
    p = parse_operator("PATTERN A a WHERE skip_till_next_match { }")
    assert matches(p, typed_stream("A")) == {m(a=0)}
    with pytest.raises(PatternError, match="skip_till_next_match"):
        matches(p, typed_stream("A"), "any")
    with pytest.raises(PatternError, match="unknown policy"):
        run_text("PATTERN A a", typed_stream("A"), "earliest")


def test_a_window_with_a_unit_needs_a_stream_unit():
    with pytest.raises(PatternError, match="no declared unit"):
        run("PATTERN SEQ(A a, B b) WITHIN 1 hour", typed_stream("A", "B"))
