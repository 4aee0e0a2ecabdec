"""Match windows and the pruning definitions of seed 001 on its worked examples.

Expected values come from the paper's Examples 6–13 and Fig. 5 on the Chemo
relation of Fig. 1 (reconstructed: ``CHEMO`` below; e1 is position 0), or
from hand computation explained in a comment. Where the paper's example and
its definition disagree the test follows the definition and names the
``docs/errata.md`` anchor. The pruning checks of
``conformance/cases/ses-match-windows.json`` run through ``conformance.checks``
in ``tests/test_conformance_cases.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kleene.reference.condition_text import format_condition
from kleene.reference.conditions import TRUE, Attr, Cmp, Const, Or
from kleene.reference.errors import StreamError
from kleene.reference.events import Event, Stream
from kleene.reference.match import Match
from kleene.reference.ses.filtering import (
    filter_condition,
    filtered,
    filtered_matches,
    passes_filter,
)
from kleene.reference.ses.necessary import is_candidate_window, necessary_conditions
from kleene.reference.ses.partitioning import (
    partition_key,
    partitioned_matches,
    partitioned_window,
    partitioning_attributes,
    without_partitioning_equalities,
)
from kleene.reference.ses.policies import matches
from kleene.reference.ses.statistics import (
    PaperStatistics,
    SummaryStatistics,
    event_bits,
    replay,
    set_masks,
    statistics_bits,
    summary_statistics,
)
from kleene.reference.ses.text import parse_ses
from kleene.reference.ses.windows import match_window, window_at, window_matches, window_of
from tests.helpers import labelled

# Fig. 1 of seed 001: (PID, L, V, day of July) for e1..e14.
CHEMO = [(1, "C", 1672.5, 3), (1, "B", 7100, 4), (1, "P", 111.5, 5), (2, "B", 10100, 6),
         (2, "P", 88, 8), (2, "D", 84, 9), (2, "C", 1320, 10), (2, "P", 98, 11),
         (1, "P", 116.5, 12), (2, "P", 88, 15), (1, "B", 3400, 17), (2, "B", 4000, 18),
         (2, "B", 4900, 19), (1, "B", 3000, 22)]
S = Stream.from_rows([{"ts": d, "PID": pid, "L": lab, "V": v} for pid, lab, v, d in CHEMO],
                     time_unit="d")
P1 = parse_ses("PATTERN <{c, p+}, {b}> WHERE c.L = 'C' AND p.L = 'P' AND b.L = 'B' "
               "AND c.PID = p.PID AND p.PID = b.PID AND prev(p.V) < p.V WITHIN 15 days")
AB = parse_ses("PATTERN <{a}, {b}> WHERE a.L = 'A' AND b.L = 'B' WITHIN 10")
ABC5 = parse_ses("PATTERN <{a}, {b}, {c}> WHERE a.L = 'A' AND b.L = 'B' AND c.L = 'C' WITHIN 5")
CASES = (Path(__file__).resolve().parents[1] / "conformance" / "cases" / "optional"
         / "ses-match-windows.json")


def positions(events) -> list[int]:
    return [e.position for e in events]


def at(*ps: int) -> list[Event]:
    return [S[p] for p in ps]


# ---------------------------------------------------------------- Def. 3, Def. 4


def test_example_6_both_windows_hold_twelve_events():
    # τ = 15 days; W1 starts on day 3 and ends with e12 (day 18); W2 on day 4, e13 (day 19).
    assert window_of(P1, S) == 15
    assert positions(match_window(S, 0, 15)) == list(range(12))
    assert positions(match_window(S, 1, 15)) == list(range(1, 13))
    assert window_at(S.events, 1, 15) == match_window(S, 1, 15)


def test_example_7_a_returns_every_match_that_starts_at_e1():
    # c/e1 with b/e11 and p/e3, p/e9 or p/<e3, e9> (111.5 < 116.5): three, not one
    # (docs/errata.md#seed-001-example-7-a); none starts at e2 (a 'B').
    got = window_matches(P1, match_window(S, 0, 15), time_unit="d")
    assert got == {Match.of({"c": [0], "p": ps, "b": [10]}) for ps in ([2], [8], [2, 8])}
    assert window_matches(P1, match_window(S, 1, 15), time_unit="d") == set()


def test_a_ignores_events_beyond_tau_and_needs_stream_order():
    s = labelled(("A", 0), ("B", 11))
    assert window_matches(AB, s.events) == set()  # B is 11 > 10 after A
    with pytest.raises(StreamError):
        window_matches(AB, [s[1], s[0]])


def test_def_3_window_starts_at_its_event_under_ties():
    # docs/errata.md#seed-001-def-3-ties: A@0, B@0; the window at position 1 is <B>.
    s = labelled(("A", 0), ("B", 0))
    assert positions(window_at(s.events, 1, 10)) == [1]

# ---------------------------------------------------------------- Thm 1


def test_example_8_filter_is_a_condition_over_one_event():
    expected = Or((Cmp("=", Attr("e", "L"), Const("C")), Cmp("=", Attr("e", "L"), Const("P")),
                   Cmp("=", Attr("e", "L"), Const("B"))))
    assert filter_condition(P1) == expected
    assert format_condition(filter_condition(P1, "x")) == "x.L = 'C' OR x.L = 'P' OR x.L = 'B'"
    # every event but e6 (a 'D') passes
    assert positions(filtered(P1, S)) == [0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13]
    assert not passes_filter(P1, S[5])


def test_filter_is_true_when_a_variable_has_no_property():
    p = parse_ses("PATTERN <{a}, {b}> WHERE a.L = 'A' AND a.K = b.K WITHIN 10")
    assert filter_condition(p) == TRUE
    twice = parse_ses("PATTERN <{a}, {b}> WHERE a.L = 'A' AND b.L = 'A' WITHIN 10")
    assert filter_condition(twice) == Cmp("=", Attr("e", "L"), Const("A"))


def test_filter_drops_an_event_missing_the_attribute():
    # three-valued logic: e.L = 'A' is unknown on an event without L, so it fails
    s = Stream.from_rows([{"ts": 0}, {"ts": 1, "L": "A"}])
    assert positions(filtered(AB, s)) == [1]


def test_filtering_changes_contiguous_matches():
    # docs/errata.md#seed-001-filter-contiguous: A X B has no contiguous match;
    # behind the filter X is gone and {a/0, b/2} is contiguous.
    s = labelled(("A", 0), ("X", 1), ("B", 2))
    assert matches(AB, s, "contiguous") == set()
    assert filtered_matches(AB, s, "contiguous") == {Match.of({"a": [0], "b": [2]})}
    assert filtered_matches(AB, s, "next") == matches(AB, s, "next")

# ---------------------------------------------------------------- Thm 2


def test_example_9_candidate_windows():
    tau = window_of(P1, S)
    w1, w2 = window_at(filtered(P1, S), 0, tau), window_at(filtered(P1, S), 1, tau)
    assert len(w1) == 11  # |W'1| = 11 as Example 9 says
    assert is_candidate_window(P1, w1)
    # e2 is a 'B': condition 5 fails; e7, e3 and e12 keep 6 and 7 true.
    assert necessary_conditions(P1, w2) == {4: True, 5: False, 6: True, 7: True}


def test_condition_7_is_strict_in_time():
    assert necessary_conditions(AB, labelled(("A", 0), ("B", 0)).events)[7] is False
    assert necessary_conditions(AB, labelled(("A", 0), ("B", 1)).events)[7] is True


def test_empty_window_is_no_candidate():
    assert necessary_conditions(AB, ()) == {4: False, 5: False, 6: False, 7: False}

# ---------------------------------------------------------------- Def. 5, Sec. 5, Thm 3

# Fig. 5: the window of patient 1 and its counters (c, p, b) after each step.
FIG_5 = [((0,), (1, 0, 0)), ((0, 1), (1, 0, 0)), ((0, 1, 2), (1, 1, 0)),
         ((0, 1, 2, 8), (1, 2, 0)), ((0, 1, 2, 8, 10), (1, 2, 1)), ((1, 2, 8, 10), (0, 2, 0))]


def test_example_10_counters_by_definition():
    assert summary_statistics(P1, at(0, 1, 2)) == {"c": 1, "p": 1, "b": 0}


@pytest.mark.parametrize("window, counters", FIG_5)
def test_fig_5_counters_by_definition(window, counters):
    assert tuple(summary_statistics(P1, at(*window)).values()) == counters


@pytest.mark.parametrize("rule", [PaperStatistics, SummaryStatistics])
def test_fig_5_trace_incrementally(rule):
    stats = rule(P1)
    for (window, counters), p in zip(FIG_5, (0, 1, 2, 8, 10), strict=False):
        stats.enqueue(S[p])
        assert positions(stats.window) == list(window)
        assert tuple(stats.counters.values()) == counters
    assert stats.dequeue() is S[0]
    assert tuple(stats.counters.values()) == FIG_5[-1][1]


def test_fig_5_conditions():
    # Fig. 5's last four columns, except condition 6 on rows 3 and 4: c/e1, p/e3 and
    # b/e2 satisfy it (docs/errata.md#seed-001-fig-5-condition-6).
    rows = [(False, True, False, False), (False, True, False, False), (True, True, True, False),
            (True, True, True, False), (True, True, True, True), (True, False, False, False)]
    for (window, _), row in zip(FIG_5, rows, strict=True):
        assert tuple(necessary_conditions(P1, at(*window)).values()) == row


def test_example_13_bit_vectors():
    assert [event_bits(P1, e) for e in at(0, 1, 2)] == ["100", "001", "010"]
    assert statistics_bits({"c": 0, "p": 0, "b": 0}) == "111"
    assert statistics_bits(summary_statistics(P1, at(0, 1, 2))) == "001"
    assert set_masks(P1) == ("000", "110")


def test_paper_rule_counts_a_tie_but_definition_does_not():
    # docs/errata.md#seed-001-statistics-update-rule: A@0, B@0; B does not follow A.
    s = labelled(("A", 0), ("B", 0))
    trace = [("enqueue", e) for e in s]
    assert replay(PaperStatistics(AB), trace) == {"a": 1, "b": 1}
    assert replay(SummaryStatistics(AB), trace) == {"a": 1, "b": 0}
    assert summary_statistics(AB, s.events) == {"a": 1, "b": 0}


def test_paper_rule_keeps_a_stale_count_after_dequeue():
    # A@0, B@1, A@2, then A@0 leaves: B@1 follows no A of W = <B@1, A@2>.
    s = labelled(("A", 0), ("B", 1), ("A", 2))
    trace = [("enqueue", e) for e in s] + [("dequeue", s[0])]
    assert replay(PaperStatistics(AB), trace) == {"a": 1, "b": 1}
    assert replay(SummaryStatistics(AB), trace) == {"a": 1, "b": 0}


def test_paper_rule_goes_negative():
    # Fig. 5 continued: dequeue e1, then e2 (a 'B' never counted): cnt_b = 0 - 1.
    trace = [("enqueue", e) for e in at(0, 1, 2, 8, 10)] + [("dequeue", S[0]), ("dequeue", S[1])]
    assert replay(PaperStatistics(P1), trace)["b"] == -1
    assert replay(SummaryStatistics(P1), trace) == summary_statistics(P1, at(2, 8, 10))


def test_paper_rule_would_lose_a_match():
    # WITHIN 5: B@0 A@1 B@2 C@6. When C@6 arrives B@0 leaves; its decrement zeroes b
    # (B@2 was the counted one), so C@6 is not counted: counters (1, 0, 0) on a
    # window <A@1, B@2, C@6> that holds the match {a/1, b/2, c/3}.
    s = labelled(("B", 0), ("A", 1), ("B", 2), ("C", 6))
    trace = [("enqueue", e) for e in s[:3]] + [("dequeue", s[0]), ("enqueue", s[3])]
    assert replay(PaperStatistics(ABC5), trace) == {"a": 1, "b": 0, "c": 0}
    assert replay(SummaryStatistics(ABC5), trace) == {"a": 1, "b": 1, "c": 1}
    assert window_matches(ABC5, s[1:]) == {Match.of({"a": [1], "b": [2], "c": [3]})}


def test_replay_rejects_a_wrong_dequeue_and_an_out_of_order_enqueue():
    s = labelled(("A", 0), ("B", 1))
    with pytest.raises(StreamError):
        replay(SummaryStatistics(AB), [("enqueue", s[0]), ("dequeue", s[1])])
    with pytest.raises(StreamError):
        replay(SummaryStatistics(AB), [("enqueue", s[1]), ("enqueue", s[0])])
    with pytest.raises(StreamError):
        SummaryStatistics(AB).dequeue()

# ---------------------------------------------------------------- Def. 6


def test_example_12_partitions_of_the_filtered_window():
    # docs/errata.md#seed-001-example-12-e4: patient 2's part holds e4 too.
    assert partitioning_attributes(P1) == ("PID",)
    w1 = window_at(filtered(P1, S), 0, 15)
    assert [positions(p) for p in partitioned_window(P1, w1)] == [[0, 1, 2, 8, 10],
                                                                  [3, 4, 6, 7, 9, 11]]


def test_partitioning_drops_exactly_the_pid_equalities():
    dropped = set(P1.conditions) - set(without_partitioning_equalities(P1).conditions)
    assert {format_condition(c) for c in dropped} == {"c.PID = p.PID", "p.PID = b.PID"}
    assert partitioned_matches(P1, S, time_unit="d", drop_equalities=True) == matches(P1, S)


def test_partition_keys_follow_the_condition_equality():
    # 1 = 1.0 holds, TRUE = 1 is unknown (different kinds), a missing K equals nothing.
    s = Stream.from_rows([{"ts": 0, "K": 1}, {"ts": 1, "K": 1.0}, {"ts": 2, "K": True},
                          {"ts": 3}, {"ts": 4}])
    assert partition_key(s[0], ["K"]) == partition_key(s[1], ["K"])
    assert partition_key(s[0], ["K"]) != partition_key(s[2], ["K"])
    p = parse_ses("PATTERN <{a}, {b}> WHERE a.K = b.K WITHIN 10")
    assert [positions(x) for x in partitioned_window(p, s.events)] == [[0, 1], [2], [3], [4]]
    assert partitioned_matches(p, s, drop_equalities=True) == matches(p, s) == {
        Match.of({"a": [0], "b": [1]})}
