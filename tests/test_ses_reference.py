"""The SES reference on hand-checked examples (expected values computed by hand
from seed 000 Def. 2 and seed 001 Def. 2, explained inline)."""

from __future__ import annotations

import pytest
from hypothesis import given, reject

from kleene.conformance.strategies import ses_patterns, streams
from kleene.reference.budget import Budget
from kleene.reference.errors import BudgetExceeded, PatternSyntaxError
from kleene.reference.events import Stream
from kleene.reference.match import Match
from kleene.reference.ses.policies import matches
from kleene.reference.ses.text import format_ses, parse_ses
from tests.helpers import labelled


def test_set_matches_any_permutation():
    # <{a, b}> within 10: a and b in either order; events 0:A 1:B 2:A
    p = parse_ses("PATTERN <{a, b}> WHERE a.L = 'A' AND b.L = 'B' WITHIN 10")
    got = matches(p, labelled(("A", 0), ("B", 1), ("A", 2)))
    assert got == {Match.of({"a": [0], "b": [1]}), Match.of({"a": [2], "b": [1]})}


def test_sets_are_strictly_ordered_in_time():
    # <{a}, {b}>: b must be strictly later than a; a tie in ts is not later.
    p = parse_ses("PATTERN <{a}, {b}> WHERE a.L = 'A' AND b.L = 'B' WITHIN 10")
    assert matches(p, labelled(("A", 5), ("B", 5))) == set()
    assert matches(p, labelled(("A", 4), ("B", 5))) == {Match.of({"a": [0], "b": [1]})}


def test_group_variable_binds_every_nonempty_subset_under_any():
    # docs/architecture.md, "Kleene": under `any` every non-empty subset counts: 3 events -> 7.
    p = parse_ses("PATTERN <{b+}> WHERE b.L = 'B' WITHIN 10")
    assert len(matches(p, labelled(("B", 0), ("B", 1), ("B", 2)))) == 7


def test_window_is_inclusive():
    p = parse_ses("PATTERN <{a}, {b}> WHERE a.L = 'A' AND b.L = 'B' WITHIN 3")
    assert matches(p, labelled(("A", 0), ("B", 3))) == {Match.of({"a": [0], "b": [1]})}
    assert matches(p, labelled(("A", 0), ("B", 4))) == set()


def test_prev_ranges_over_consecutive_pairs():
    # prev(p.V) < p.V: only increasing sequences; V = 1, 3, 2 at ts 0, 1, 2.
    p = parse_ses("PATTERN <{p+}> WHERE prev(p.V) < p.V WITHIN 10")
    s = Stream.from_rows([{"ts": 0, "V": 1}, {"ts": 1, "V": 3}, {"ts": 2, "V": 2}])
    got = {m["p"] for m in matches(p, s)}
    assert got == {(0,), (1,), (2,), (0, 1), (0, 2)}


def test_next_takes_every_event_it_can():
    # A run started at the A takes both Bs: skip-till-next-match with maximality.
    p = parse_ses("PATTERN <{a}, {b+}> WHERE a.L = 'A' AND b.L = 'B' WITHIN 10")
    got = matches(p, labelled(("A", 0), ("B", 1), ("C", 2), ("B", 3)), "next")
    assert got == {Match.of({"a": [0], "b": [1, 3]})}


def test_text_round_trip_and_error_position():
    text = ("PATTERN <{c, p+, d}, {b}>\nWHERE c.L = 'C' AND (c.ID = d.ID OR NOT d.V >= -1.5)\n"
            "WITHIN 264 hours\n")
    p = parse_ses(text)
    assert parse_ses(format_ses(p)) == p
    with pytest.raises(PatternSyntaxError) as err:
        parse_ses("PATTERN <{c}>\nWHERE c.L = \nWITHIN 3")
    assert (err.value.line, err.value.column) == (3, 1)


def test_budget_error_names_the_budget():
    p = parse_ses("PATTERN <{b+}> WHERE b.L = 'B' WITHIN 100")
    s = labelled(*[("B", i) for i in range(20)])
    with pytest.raises(BudgetExceeded) as err:
        matches(p, s, budget=Budget(limit=1000))
    assert "steps=1000" in str(err.value)


@given(ses_patterns(max_sets=3, max_vars=5))
def test_ses_printer_round_trips_on_generated_patterns(p) -> None:
    # Issue 2, item 6: parse(format(P)) == P for every pattern the strategies draw.
    assert parse_ses(format_ses(p)) == p


@given(ses_patterns(), streams(max_size=7))
def test_every_policy_is_a_subset_of_any(p, s) -> None:
    # docs/architecture.md, "All-matches first": policies are predicates over Γ.
    from kleene.reference.ses.matching import all_matches
    from kleene.reference.ses.policies import POLICIES, select

    try:
        gamma = all_matches(p, s, budget=Budget(limit=20_000))
    except BudgetExceeded:
        reject()
    for policy in POLICIES:
        assert select(policy, p, s, gamma) <= gamma


def test_the_strict_window_reading_excludes_a_span_of_exactly_tau():
    # By hand: a at ts 0 and b at ts 5; WITHIN 5 holds inclusively (5 ≤ 5), not strictly.
    from kleene.reference.ses.policies import matches
    from kleene.reference.ses.text import parse_ses

    p = parse_ses("PATTERN <{a}, {b}> WHERE a.L = 'A' AND b.L = 'B' WITHIN 5")
    s = Stream.from_rows([{"ts": 0, "L": "A"}, {"ts": 4.5, "L": "B"}, {"ts": 5, "L": "B"}])
    assert {str(m) for m in matches(p, s, "any")} == {"{a/[0], b/[1]}", "{a/[0], b/[2]}"}
    assert {str(m) for m in matches(p, s, "any", reading="strict")} == {"{a/[0], b/[1]}"}
