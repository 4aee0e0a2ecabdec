"""Counting without enumerating (issue 31 item 2; engines/count, docs/counting.md).

The oracle is the reference: ``len(query.reference(stream))`` on drawn patterns and
streams (ties, parts, windows at their edges, both readings), the hand-computed match
sets of the case corpus, and counts computed by hand here (each test says how).
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

import kleene
from kleene.conformance.cases import iter_tests, load_case_files
from kleene.conformance.differential import reference_or_reject
from kleene.conformance.strategies import (
    attributes,
    operator_patterns,
    ses_patterns,
    streams,
    typed_streams,
)
from kleene.engines.count import ses
from kleene.engines.count.counting import DP, count_matches, outside
from kleene.reference.conditions import Attr, Cmp, Condition, is_property_of
from kleene.reference.durations import Duration
from kleene.reference.events import Stream
from kleene.reference.operators.from_ses import from_ses
from kleene.reference.query import Query
from kleene.reference.ses.pattern import SESPattern
from tests.helpers import ses_reference

#: Keys of several kinds: 0 and 0.0 are equal, "0" and True are not (compare's kinds),
#: a missing key makes every equality unknown.
KEYS: st.SearchStrategy[object] = st.sampled_from([0, 1, 0.0, "0", True])
ROWS = streams(min_size=1, max_size=8, attributes=st.one_of(
    attributes(), st.fixed_dictionaries({"L": st.sampled_from(("A", "B")), "ID": KEYS,
                                         "V": st.integers(0, 3)}),
    st.fixed_dictionaries({"L": st.sampled_from(("A", "B", "C"))})))


@st.composite
def counted_patterns(draw: st.DrawFn) -> SESPattern:
    """A drawn SES pattern whose relationships are replaced by nothing or by equalities
    that join one attribute of every variable (``ID``, or ``V`` for some variables: a
    part's key as one variable and another may differ)."""
    p: SESPattern = draw(ses_patterns(max_sets=3, max_vars=4), label="pattern")
    props = [c for c in p.conditions if any(is_property_of(c, n) for n in p.names)]
    names = p.names
    joins: list[Condition] = []
    if len(names) > 1 and draw(st.booleans(), label="partitioned"):
        attrs = [draw(st.sampled_from(("ID", "ID", "V")), label=f"key of {n}") for n in names]
        order = draw(st.permutations(range(len(names))), label="join order")
        for a, b in zip(order, order[1:], strict=False):
            joins.append(Cmp("=", Attr(names[a], attrs[a]), Attr(names[b], attrs[b])))
    window = draw(st.integers(0, 8), label="window")
    return replace(p, conditions=tuple(props + joins), window=Duration(window))


@given(counted_patterns(), ROWS, st.sampled_from(("inclusive", "strict")))
def test_the_count_is_the_number_of_the_references_matches(p, s, reading):
    """≥ 300 drawn examples: every drawn pattern is in the fragment, and its count is
    the length of the reference's match set under the reading."""
    assert ses.outside(p) is None
    query = Query.of(p, policy="any", reading=reading)
    expected = query.reference(s)
    assert ses.count(p, s, reading=reading) == len(expected)


@given(ses_patterns(max_sets=3, max_vars=4), streams(min_size=1, max_size=8))
def test_outside_the_fragment_the_count_enumerates_and_agrees(p, s):
    """Any drawn pattern (order comparisons, ``prev``, partial equalities included):
    count_matches equals the reference, by the DP exactly when the fragment holds."""
    expected = ses_reference(p, s, "any")
    got = count_matches(p, s, policy="any")
    assert got.count == len(expected)
    assert (got.backend == DP) == (ses.outside(p) is None)
    assert (got.why is None) == (got.backend == DP)


def test_every_corpus_case_the_count_claims():
    """Each SES ``any`` case of the corpus whose pattern is in the fragment: the count is
    the size of its hand-computed (or independently confirmed) match set."""
    claimed = 0
    for case, test in iter_tests(load_case_files()):
        if test.check != "matches" or case.language != "ses":
            continue
        for expected in test.expectations():
            if expected.matches is None:
                continue
            query = Query.parse(case.pattern, language="ses", policy=test.policy,
                                reading=expected.reading)
            if outside(query) is not None:
                continue
            s = case.stream_of(test)
            got = count_matches(query.with_time_unit(s.time_unit), s)
            assert got.backend == DP
            assert got.count == len(expected.matches), (case.description, test.description)
            claimed += 1
    assert claimed >= 40


def test_a_group_variable_over_70_candidates_has_2_to_the_70_minus_1_matches():
    """``<{b+}>`` over 70 B events within the window: every non-empty subset is a
    match (docs/architecture.md, "Kleene"), 2^70 − 1 of them, past 2^64."""
    s = Stream.from_rows([{"ts": i, "type": "B"} for i in range(70)])
    got = count_matches("PATTERN <{b+}>\nWHERE b.type = 'B'\nWITHIN 100\n", s)
    assert got.backend == DP and got.count == 2 ** 70 - 1 == 1180591620717411303423


def test_ties_and_windows_by_hand():
    """A at 0, B at 0, B at 1, B at 3 under ``<{a}, {b+}>``, window 3: b's events must be
    strictly after a's, so the tied B at 0 never joins; from {B1, B3}: 3 non-empty
    subsets within 3 of a (B3 is 3 after a: fits inclusive) → 3; strict (< 3): B1 only → 1."""
    s = Stream.from_rows([{"ts": 0, "type": "A"}, {"ts": 0, "type": "B"},
                          {"ts": 1, "type": "B"}, {"ts": 3, "type": "B"}])
    text = "PATTERN <{a}, {b+}>\nWHERE a.type = 'A' AND b.type = 'B'\nWITHIN 3\n"
    assert count_matches(text, s).count == 3
    assert count_matches(text, s, reading="strict").count == 1


def test_parts_by_hand():
    """A(k=1) B(k=1) B(k=2) A(k=2) B(k=2) under ``x.k = y.k``: part 1 has one match
    (A0, B1), part 2 one (A3, B4; B2 comes before A3): 2. Without the equality, A0 with
    B1, B2, B4 and A3 with B4: 4."""
    s = Stream.from_rows([{"ts": 0, "type": "A", "k": 1}, {"ts": 1, "type": "B", "k": 1},
                          {"ts": 2, "type": "B", "k": 2}, {"ts": 3, "type": "A", "k": 2},
                          {"ts": 4, "type": "B", "k": 2}])
    types = "PATTERN <{x}, {y}>\nWHERE x.type = 'A' AND y.type = 'B'"
    assert count_matches(types + " AND x.k = y.k\nWITHIN 10\n", s).count == 2
    assert count_matches(types + "\nWITHIN 10\n", s).count == 4


@pytest.mark.parametrize(("where", "why"), [
    ("x.v < y.v", "a relationship other than an equality"),
    ("x.k = y.k", "do not partition the events"),
    ("x.k != y.k", "a relationship other than an equality"),
])
def test_outside_says_why(where, why):
    """One line each: an order comparison, an equality that leaves ``z`` out, ``!=``."""
    p = Query.parse(f"PATTERN <{{x}}, {{y}}, {{z}}>\nWHERE {where}\nWITHIN 5\n").pattern
    assert isinstance(p, SESPattern)
    reason = ses.outside(p)
    assert reason is not None and why in reason and "\n" not in reason


def test_other_languages_and_policies_fall_back_with_the_reason():
    s = Stream.from_rows([{"ts": 0, "type": "A"}, {"ts": 1, "type": "B"}])
    op = count_matches("PATTERN SEQ(A a, OR(B b, C c)) WITHIN 5", s)
    assert op.backend != DP and op.count == 1 and "SEQ(AND(" in (op.why or "")
    nxt = count_matches("PATTERN <{a}, {b}>\nWITHIN 5\n", s, policy="next")
    assert nxt.backend != DP and nxt.count == 1 and "not next" in (nxt.why or "")


def test_the_python_door_counts_and_says_how():
    """``kleene.count_matches`` over mappings: A B A B at 0..3 under ``<{a}, {b}>`` within
    3: (0, 1), (0, 3), (2, 3) → 3, by the DP; the operator ``SEQ(A a, B b)`` within 3 has
    the same 3, listed by an engine that says why."""
    rows = [{"ts": t, "type": x} for t, x in enumerate("ABAB")]
    got = kleene.count_matches("PATTERN <{a}, {b}>\nWHERE a.type = 'A' AND b.type = 'B'\n"
                               "WITHIN 3\n", rows)
    assert (got.count, got.backend, got.why) == (3, DP, None)
    op = kleene.count_matches("PATTERN SEQ(A a, NOT(C c), B b) WITHIN 3", rows)
    assert op.count == 3 and op.backend.startswith("nfa-") and op.why
    first = kleene.first_matches("PATTERN SEQ(A a, B b) WITHIN 3", rows, 2)
    assert [m.dumps() for m in first.matches] == ['{"a": [0], "b": [1]}',
                                                  '{"a": [0], "b": [3]}']


@given(ses_patterns(max_sets=3, max_vars=3), streams(min_size=1, max_size=7))
def test_an_ses_pattern_written_as_an_operator_pattern_is_counted_alike(p, s):
    """``from_ses(p)`` (``SEQ(AND(...), ...)``, the same matches: seed 003 Sec. 4.3) is
    counted by the DP exactly when ``p`` is, and its count is the reference's."""
    op = from_ses(p)
    expected = reference_or_reject(op, s, "any")
    got = count_matches(op, s, policy="any")
    assert got.count == len(expected)
    assert (got.backend == DP) == (ses.outside(p) is None)


@given(operator_patterns(max_depth=2), typed_streams(min_size=1, max_size=7))
def test_any_operator_pattern_is_counted_as_the_reference_counts(p, s):
    """Drawn operator patterns (``OR``, ``NOT``, iterations, aggregates, typed
    primitives): by the DP where :func:`as_ses` reads them, else by listing."""
    expected = reference_or_reject(p, s, "any")
    assert count_matches(p, s, policy="any").count == len(expected)
