"""A compiled automaton keeps no run state (engines/protocol.py, ``Compiled.run``):
each run counts into the counters its caller passes and draws on the caller's
budget, so one compiled automaton runs twice at once (threads, Spark tasks sharing
one compile) and each run gives what it gives alone."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from kleene.engines.nfa.engine import CompiledNFA, NFARun
from kleene.engines.protocol import Compiled, Counters, Query
from kleene.engines.registry import engine
from kleene.engines.trace import trace
from kleene.reference.budget import Budget
from kleene.reference.errors import BudgetExceeded
from kleene.reference.events import Stream
from kleene.reference.match import Match
from kleene.reference.operators.text import parse_operator
from kleene.reference.pattern import Pattern
from kleene.reference.ses.text import parse_ses
from kleene.reference.sremo import parse_sremo
from tests.helpers import columnar

LABELS = Stream.from_rows([{"ts": t, "L": label, "ID": t % 2, "V": t}
                           for t, label in enumerate("A A B A B B A C B A".split())])


def typed(types: str) -> Stream:
    """Events of the given types, ts = position."""
    return Stream.from_rows([{"ts": t, "type": k} for t, k in enumerate(types.split())])


CAAABBC, AABBC = typed("C A A A B B C"), typed("A A B B C")
TYPES = Stream.from_rows([{"ts": t, "type": k} for t, k in enumerate("A A B B C A B C C".split())])

SES = "PATTERN <{a}, {b}> WHERE a.L = 'A' AND b.L = 'B' WITHIN 4"
OPERATOR = "PATTERN SEQ(A a, B b, C c) WITHIN 5"
SREMO = "ANY(mark {~.L = 'A'} -> r, mark {~.L = 'B' AND ~.V > r.V})[WITHIN 3]"
PARTITIONED = SREMO + " PARTITION BY ID"
MARKED = "(mark {~.L = 'A'} ; (mark {TRUE})* ; mark {~.L = 'B'})[1..4]"

#: (engine, pattern, policy, stream): one compiled automaton of every family, the NFAs
#: and the SRT also over columns (their other run paths).
CASES: list[tuple[str, Pattern, str, Stream]] = [
    ("ses-automaton", parse_ses(SES), "next", LABELS),
    ("ses-bruteforce", parse_ses(SES), "any", LABELS),
    ("windows+ses", parse_ses(SES), "any", LABELS),
    ("windows+ses-bruteforce", parse_ses(SES), "any", LABELS),
    ("nfa-eager", parse_operator(OPERATOR), "any", TYPES),
    ("nfa-chain", parse_operator(OPERATOR), "any", TYPES),
    ("nfa-chain", parse_operator(OPERATOR), "any", columnar(TYPES)),
    ("nfa-tree", parse_operator(OPERATOR), "any", TYPES),
    ("nfa-tree", parse_operator(OPERATOR), "any", columnar(TYPES)),
    ("nfa-multichain", parse_operator(OPERATOR), "next", TYPES),
    ("srt", parse_sremo(SREMO), "stream", LABELS),
    ("srt", parse_sremo(SREMO), "stream", columnar(LABELS)),
    ("srt", parse_sremo(PARTITIONED), "stream", LABELS),
    ("dsrt", parse_sremo(MARKED), "stream", LABELS),
]


def alone(compiled: Compiled, s: Stream) -> tuple[list[Match], Counters]:
    counters = Counters()
    return list(compiled.run(s, counters=counters)), counters


def interleaved(first: Iterator[Match], second: Iterator[Match],
                ) -> tuple[list[Match], list[Match]]:
    """Both runs' matches, taking one from each in turn once the first has begun (so
    each is suspended in the middle of its stream while the other goes on)."""
    got: tuple[list[Match], list[Match]] = ([], [])
    live = [(0, first), (1, second)]
    got[0].append(next(first))
    while live:
        for k, run in list(live):
            m = next(run, None)
            if m is None:
                live.remove((k, run))
            else:
                got[k].append(m)
    return got


@pytest.mark.parametrize(("name", "pattern", "policy", "s"), CASES,
                         ids=[f"{c[0]}-{k}" for k, c in enumerate(CASES)])
def test_two_runs_at_once_give_what_each_gives_alone(name, pattern, policy, s):
    compiled = engine(name).compile(Query.of(pattern, policy=policy))
    expected, counted = alone(compiled, s)
    counts = counted.as_dict()
    assert set(expected) == Query.of(pattern, policy=policy).reference(s)   # the oracle
    assert len(expected) >= 2 and counts["events_read"] > 0
    c1, c2 = Counters(), Counters()
    got = interleaved(iter(compiled.run(s, counters=c1)), iter(compiled.run(s, counters=c2)))
    assert got == (expected, expected)
    assert c1.as_dict() == c2.as_dict() == counts
    again, third = alone(compiled, s)                       # nothing left behind for a third
    assert again == expected and third.as_dict() == counts
    assert not hasattr(compiled, "counters") and not hasattr(compiled, "budget")


def test_a_run_reports_its_own_chain_order_and_leaves_the_compiled_one():
    """Without frequencies a chain's σ comes from its run's first events (ascending
    count, ties in pattern order), hand-counted: on C A A A B B C (A 3, B 2, C 2) b, c,
    a; on A A B B C (A 2, B 2, C 1) c, a, b. Two runs at once report each its own; the
    automaton keeps the σ of compile time (no frequencies: the pattern order), which
    its picture draws."""
    compiled = engine("nfa-chain").compile(Query.of(parse_operator(OPERATOR)))
    assert isinstance(compiled, CompiledNFA)
    first = compiled.run(CAAABBC)
    second = compiled.run(AABBC)
    assert isinstance(first, NFARun) and isinstance(second, NFARun)
    assert first.orders == ((1, 2, 0),) and second.orders == ((2, 0, 1),)
    assert sorted(first) == sorted(Match.of({"a": [a], "b": [b], "c": [6]})
                                   for a in (1, 2, 3) for b in (4, 5))
    assert sorted(second) == sorted(Match.of({"a": [a], "b": [b], "c": [4]})
                                    for a in (0, 1) for b in (2, 3))
    assert compiled.orders == ((0, 1, 2),)


def test_a_trace_draws_the_runs_order_and_keeps_its_own_counters():
    """The trace of a chain that chose σ = b, c, a on its run (above) draws that σ; the
    automaton keeps its own; two traces count alike, each into its own counters."""
    compiled = engine("nfa-chain").compile(Query.of(parse_operator(OPERATOR)))
    assert isinstance(compiled, CompiledNFA)
    first, second = trace(compiled, CAAABBC), trace(compiled, CAAABBC)
    assert first.compiled.orders == ((1, 2, 0),) and compiled.orders == ((0, 1, 2),)
    assert first.counters == second.counters and first.counters.events_read == 7
    assert first.matches == second.matches and len(first.matches) == 6


def test_the_budget_is_the_runs_not_the_automatons():
    """``SEQ(A a, B+ b[])`` on A and 12 Bs under ``any``: the eager NFA holds an instance
    per subset of the Bs so far (2^12 - 1 at the end); a run given a budget of 100
    stops, naming it; the next run, without one, finds the 4095 matches."""
    compiled = engine("nfa-eager").compile(
        Query.of(parse_operator("PATTERN SEQ(A a, B+ b[]) WITHIN 1000")))
    s = Stream.from_rows([{"ts": t, "type": k} for t, k in enumerate("A" + "B" * 12)])
    with pytest.raises(BudgetExceeded, match="budget mine=100 exceeded"):
        list(compiled.run(s, budget=Budget(name="mine", limit=100)))
    assert len(list(compiled.run(s))) == 4095
