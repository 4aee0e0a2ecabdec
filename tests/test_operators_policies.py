"""Selection policies over operator patterns, on hand-computed examples.

``next`` (:mod:`kleene.reference.operators.prefixes`): the run that produced a
match, started at its first event, never skipped an event its state could
take; an ``OR`` is committed once its part has an event, iterations are open
or done. Each expectation below is worked out run by run in the comments.
"""

from __future__ import annotations

from kleene.reference.operators.policies import run_text
from tests.helpers import m, typed_stream


def test_next_on_example_1_1_takes_the_first_b():
    # a1 a2 b1 b2 c: the run from a1 takes b1 (it could), then ignores b2 (b is
    # bound) and takes c; the same from a2. {a, b2, c} skipped b1: not next.
    got = run_text("PATTERN SEQ(A a, B b, C c)", typed_stream(*"AABBC"), "next")
    assert got == {m(a=0, b=2, c=4), m(a=1, b=2, c=4)}


def test_next_on_section_4_5_takes_every_b():
    # a b1 b2 b3 c: the iteration takes each B as it comes; of the seven
    # matches only the one with all three Bs skipped nothing.
    got = run_text("PATTERN SEQ(A a, B+ b[], C c)", typed_stream(*"ABBBC"), "next")
    assert got == {m(a=0, b=[1, 2, 3], c=4)}


def test_next_ignores_events_outside_the_window_of_the_first_event():
    # WITHIN 2 from A@0: B@1 and B@2 are taken, B@3 is out of reach.
    s = typed_stream(("A", 0, {}), ("B", 1, {}), ("B", 2, {}), ("B", 3, {}))
    assert run_text("PATTERN SEQ(A a, B+ b[]) WITHIN 2", s, "next") == {m(a=0, b=[1, 2])}


def test_next_with_a_leading_or_keeps_each_branch():
    # OR(SEQ(A a, B b), SEQ(A a, C c)) on A C B: the run in the first branch
    # cannot take C, so {a, b} skipped nothing it could take; {a, c} neither.
    text = "PATTERN OR(SEQ(A a, B b), SEQ(A a, C c))"
    assert run_text(text, typed_stream(*"ACB"), "next") == {m(a=0, c=1), m(a=0, b=2)}


def test_next_with_a_nested_or_commits_at_its_first_event():
    # SEQ(A a, OR(B b, C c)) on A C B: after a the OR is not committed, so the
    # run could take C; {a, b} skipped it. docs/errata.md#seed-003-next-dnf.
    text = "PATTERN SEQ(A a, OR(B b, C c))"
    assert run_text(text, typed_stream(*"ACB"), "any") == {m(a=0, c=1), m(a=0, b=2)}
    assert run_text(text, typed_stream(*"ACB"), "next") == {m(a=0, c=1)}


def test_next_with_iterations_of_a_sequence():
    # SEQ(A a, B b)+ on A B A B. {a0 b1} skipped a2, which starts a new
    # iteration; {a0 b3} skipped b1, which completes the open one; {a2 b3} and
    # the two-iteration match skipped nothing.
    got = run_text("PATTERN SEQ(A a, B b)+", typed_stream(*"ABAB"), "next")
    assert got == {m(a=2, b=3), m(a=[0, 2], b=[1, 3])}
    # On A A B the run from a0 cannot take a1: its iteration is open (no b
    # yet), and the next iteration starts only after it is done. So both
    # {a0 b2} and {a1 b2} are next.
    got = run_text("PATTERN SEQ(A a, B b)+", typed_stream(*"AAB"), "next")
    assert got == {m(a=0, b=2), m(a=1, b=2)}


def test_next_judges_aggregates_on_complete_matches_only():
    # SUM(b.x) > 3 with x = 1, 1, 5: the prefix {b/0} has sum 1, yet the run
    # still takes every B: an aggregate does not refute a partial match. Of the
    # matches with sum > 3 ({2}, {0,2}, {1,2}, {0,1,2}), {0,2} skipped b1; the
    # runs started at b0, b1 and b2 skipped nothing.
    s = typed_stream(("B", 0, {"x": 1}), ("B", 1, {"x": 1}), ("B", 2, {"x": 5}))
    got = run_text("PATTERN B+ b[] WHERE SUM(b.x) > 3", s, "any")
    assert got == {m(b=b) for b in ([2], [0, 2], [1, 2], [0, 1, 2])}
    assert run_text("PATTERN B+ b[] WHERE SUM(b.x) > 3", s, "next") == \
        {m(b=[0, 1, 2]), m(b=[1, 2]), m(b=[2])}


def test_contiguous_and_partition_contiguous():
    # SEQ(A a, B b) on A C B A B: any = {a0 b2, a0 b4, a3 b4}; only a3 b4 has
    # nothing in between.
    text = "PATTERN SEQ(A a, B b)"
    assert run_text(text, typed_stream(*"ACBAB"), "contiguous") == {m(a=3, b=4)}
    # WHERE a.id = b.id on A(1) A(2) B(1) B(2): both matches interleave with the
    # other id (not contiguous) but are contiguous within their id (Def. 6).
    s = typed_stream(("A", 0, {"id": 1}), ("A", 1, {"id": 2}), ("B", 2, {"id": 1}),
                     ("B", 3, {"id": 2}))
    text = "PATTERN SEQ(A a, B b) WHERE a.id = b.id"
    assert run_text(text, s, "contiguous") == set()
    assert run_text(text, s, "partition-contiguous") == {m(a=0, b=2), m(a=1, b=3)}


def test_next_with_an_iterated_disjunction():
    # SEQ(A a, OR(B b, C c)+) on A B C: any binds a with {b1}, {c2} or both;
    # the run takes b1 (first iteration, branch B) and c2 (second, branch C).
    text = "PATTERN SEQ(A a, OR(B b, C c)+)"
    assert run_text(text, typed_stream(*"ABC"), "any") == {m(a=0, b=1), m(a=0, c=2),
                                                     m(a=0, b=1, c=2)}
    assert run_text(text, typed_stream(*"ABC"), "next") == {m(a=0, b=1, c=2)}
