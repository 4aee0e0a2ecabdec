"""The engine ``ses-next-literal``: SES ``next-literal`` (seed 000 Def. 2 conditions 4 and
5 as printed; engines/ses/next_literal.py), the last SES policy to get an engine (issue 32
item 3, issue 29 item 2).

1. Differential, the reference as the oracle: the drawn SES patterns and streams (ties,
   ``ID`` keys as partitions, windows 0-8, group variables, ``prev``; >= 300 examples,
   tests/conftest.py), under both window readings, and patterns whose ``prev`` condition
   reads a second group variable (the *coupled* case, searched over supersets).
2. By hand: <{a+},{b}> on A A B A B, and a tie of As.
3. A loaded stream's columns give what its events one by one give.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest
from hypothesis import given, reject
from hypothesis import strategies as st

from kleene.conformance.differential import assert_same_matches, reported_matches
from kleene.conformance.strategies import ses_patterns
from kleene.data.bundled import bundled
from kleene.data.loaders import load_events
from kleene.engines.registry import engine, fastest_engine
from kleene.reference.budget import Budget
from kleene.reference.conditions import Attr, Cmp, Prev
from kleene.reference.errors import BudgetExceeded, Unsupported
from kleene.reference.events import Stream
from kleene.reference.match import Match
from kleene.reference.query import Query
from kleene.reference.ses.pattern import SESPattern
from kleene.reference.ses.text import parse_ses
from tests.helpers import SES_PATTERNS, SES_STEPS, SES_STREAMS, m, ses_reference

POLICY = "next-literal"
NAME = "ses-next-literal"


def _check(pattern: SESPattern, stream: Stream, reading: str = "inclusive") -> None:
    query = Query.of(pattern, policy=POLICY, reading=reading, time_unit=stream.time_unit)
    try:   # the reference, budgeted as ses_reference is
        expected = query.reference(stream, budget=Budget(limit=SES_STEPS))
    except BudgetExceeded:
        reject()
    eng = engine(NAME)
    got = reported_matches(eng, POLICY, pattern, stream, reading=query.reading)
    assert_same_matches(eng, pattern=pattern, stream=stream, policy=POLICY, got=got,
                        expected=expected)


@given(pattern=SES_PATTERNS, stream=SES_STREAMS)
def test_the_engine_equals_the_reference(pattern, stream):
    expected = ses_reference(pattern, stream, POLICY)   # rejects an example too slow
    eng = engine(NAME)
    assert_same_matches(eng, pattern=pattern, stream=stream, policy=POLICY,
                        got=reported_matches(eng, POLICY, pattern, stream), expected=expected)


@given(pattern=SES_PATTERNS, stream=SES_STREAMS)
def test_the_engine_equals_the_reference_read_strictly(pattern, stream):
    _check(pattern, stream, "strict")


@st.composite
def coupled_patterns(draw: st.DrawFn) -> SESPattern:
    """A pattern of group variables with ``prev(x.V) op y.V`` for two of them: adding events
    to x changes which pairs the condition reads against y's events."""
    p = draw(ses_patterns(max_sets=2, max_vars=3, groups=st.just(True))
             .filter(lambda p: len(p.names) >= 2))
    x, y = draw(st.lists(st.sampled_from(p.names), min_size=2, max_size=2, unique=True))
    op = draw(st.sampled_from(("<", "<=", "!=")))
    return SESPattern(p.sets, (*p.conditions, Cmp(op, Prev(x, "V"), Attr(y, "V"))), p.window)


@given(pattern=coupled_patterns(), stream=SES_STREAMS)
def test_the_coupled_case_equals_the_reference(pattern, stream):
    expected = ses_reference(pattern, stream, POLICY)
    eng = engine(NAME)
    assert_same_matches(eng, pattern=pattern, stream=stream, policy=POLICY,
                        got=reported_matches(eng, POLICY, pattern, stream), expected=expected)


def _run(text: str, rows: Sequence[Mapping[str, object]]) -> set[Match]:
    query = Query.of(parse_ses(text), policy=POLICY)
    found = list(engine(NAME).compile(query).run(Stream.from_rows(rows)))
    assert len(found) == len(set(found))
    return set(found)


AB = "PATTERN <{a+}, {b}> WHERE a.type = 'A' AND b.type = 'B' WITHIN 100"


def test_by_hand():
    """A A B A B at ts 0-4. Γ: b/2 with a/{0}, {1}, {0, 1}; b/4 with the 7 non-empty
    subsets of {0, 1, 3}. Condition 4 drops every b/4 match with a/0 or a/1 (b/2 lies
    between, bound to b in Γ), condition 5 drops {a0, b2} (inside {a0 a1, b2}, the same
    first binding a/0): {a1, b2}, {a0 a1, b2}, {a3, b4}."""
    rows = [{"ts": t, "type": x} for t, x in enumerate("AABAB")]
    assert _run(AB, rows) == {m(a=1, b=2), m(a=[0, 1], b=2), m(a=3, b=4)}


def test_a_tie_keeps_the_largest_match_of_each_first_binding():
    """Four As at ts 0 and a B at 1: nothing lies strictly between ts 0 and ts 0
    (condition 4 holds for every subset); each first binding a/i keeps only a/{i..3}."""
    rows = [{"ts": 0, "type": "A"}] * 4 + [{"ts": 1, "type": "B"}]
    assert _run(AB, rows) == {m(a=list(range(i, 4)), b=4) for i in range(4)}


def test_the_engine_is_the_fastest_for_next_literal():
    choice = fastest_engine(Query.of(parse_ses(AB), policy=POLICY))
    assert choice is not None and choice.name == NAME


def test_another_policy_compiles_but_does_not_run():
    compiled = engine(NAME).compile(Query.of(parse_ses(AB), policy="any"))
    assert compiled.initial
    with pytest.raises(Unsupported, match="computes the policy next-literal, not 'any'"):
        list(compiled.run(Stream.from_rows([{"ts": 0, "type": "A"}])))


def test_a_loaded_stream_gives_what_its_events_give():
    s = load_events(str(bundled("stocks.stream.gz")), limit=3000)
    text = ("PATTERN <{a}, {b+}, {c}> WHERE a.name = 'INTC' AND a.name = b.name "
            "AND b.name = c.name AND prev(b.price) <= b.price AND c.price < b.price "
            "WITHIN 500 ms")
    compiled = engine(NAME).compile(
        Query.of(parse_ses(text), policy=POLICY, time_unit=s.time_unit))
    loaded = list(compiled.run(s))
    assert loaded and sorted(loaded) == sorted(compiled.run(list(s.events)))
