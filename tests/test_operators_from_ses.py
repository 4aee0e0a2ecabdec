"""SES patterns translated by ``from_ses`` mean the same under the operator reference.

The SES reference (seed 001 Def. 2, :mod:`kleene.reference.ses`) is the
independent definition here: the two references share only the condition
language, so equal match sets on small streams with tied timestamps check the
translation (and SEQ's strict ``ts`` order, AND's free order, iterations of a
single event taking tied events), the operator ``next`` against SES's
``can_take``, and the shared contiguity policies.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kleene.reference.conditions import Attr, Cmp, Const, Prev
from kleene.reference.durations import Duration
from kleene.reference.events import Stream
from kleene.reference.match import Match
from kleene.reference.operators.from_ses import from_ses
from kleene.reference.operators.pattern import Conj, Kleene, Primitive, Seq
from kleene.reference.operators.policies import matches as operator_matches
from kleene.reference.ses.pattern import SESPattern, Variable
from kleene.reference.ses.policies import matches as ses_matches
from kleene.reference.ses.text import parse_ses

LETTERS = ("A", "B", "C")


@st.composite
def ses_patterns(draw: st.DrawFn) -> SESPattern:
    """Small SES patterns: 1–3 sets of 1–2 variables, properties and relationships."""
    n_sets = draw(st.integers(1, 3), label="sets")
    sets, k = [], 0
    for _ in range(n_sets):
        size = draw(st.integers(1, 2), label="set size")
        sets.append(tuple(Variable(f"v{k + i}", draw(st.booleans(), label="group"))
                          for i in range(size)))
        k += size
    names = [v.name for b in sets for v in b]
    name = st.sampled_from(names)
    prop = st.builds(lambda v, c: Cmp("=", Attr(v, "L"), Const(c)), name, st.sampled_from(LETTERS))
    rel = st.builds(lambda op, v, w: Cmp(op, Attr(v, "V"), Attr(w, "V")),
                    st.sampled_from(["<", "=", "!="]), name, name)
    prev = st.builds(lambda v: Cmp("<", Prev(v, "V"), Attr(v, "V")), name)
    conditions = draw(st.lists(st.one_of(prop, rel, prev), max_size=3), label="conditions")
    window = draw(st.integers(0, 4), label="window")
    return SESPattern(tuple(sets), tuple(conditions), Duration(window))


@st.composite
def streams(draw: st.DrawFn, max_size: int = 7) -> Stream:
    """Up to ``max_size`` events over A/B/C, timestamps with ties (steps of 0 or 1)."""
    n = draw(st.integers(0, max_size), label="length")
    ts, rows = 0, []
    for _ in range(n):
        ts += draw(st.integers(0, 1), label="step")
        rows.append({"ts": ts, "L": draw(st.sampled_from(LETTERS), label="L"),
                     "V": draw(st.integers(0, 2), label="V")})
    return Stream.from_rows(rows)


def test_translation_shape():
    p = parse_ses("PATTERN <{c, p+, d}, {b}> WHERE c.L = 'C' WITHIN 264 hours")
    q = from_ses(p)
    assert q.expr == Seq((Conj((Primitive(None, "c"), Kleene(Primitive(None, "p")),
                                Primitive(None, "d"))), Conj((Primitive(None, "b"),))))
    assert q.conditions == p.conditions and q.window == p.window


def test_ties_between_sets_and_within_a_group():
    # Hand check of Def. 2 condition 2 on ts 0, 0, 1 (L = A, B, B):
    # <{a}, {b+}>: b must be strictly later than a, so the B at ts 0 is out,
    # only {a/0, b/2}; <{a, b+}> takes both Bs (ties inside a set are fine).
    s = Stream.from_rows([{"ts": 0, "L": "A"}, {"ts": 0, "L": "B"}, {"ts": 1, "L": "B"}])
    seq = parse_ses("PATTERN <{a}, {b+}> WHERE a.L = 'A' AND b.L = 'B' WITHIN 5")
    one = parse_ses("PATTERN <{a, b+}> WHERE a.L = 'A' AND b.L = 'B' WITHIN 5")
    assert operator_matches(from_ses(seq), s) == {Match.of({"a": [0], "b": [2]})}
    assert len(operator_matches(from_ses(one), s)) == 3  # b = {1}, {2}, {1, 2}


@given(ses_patterns(), streams())
def test_same_matches_as_the_ses_reference_under_any(p, s):
    assert operator_matches(from_ses(p), s, "any") == ses_matches(p, s, "any")


@given(ses_patterns(), streams(max_size=6))
def test_same_matches_as_the_ses_reference_under_next(p, s):
    assert operator_matches(from_ses(p), s, "next") == ses_matches(p, s, "next")


@given(ses_patterns(), streams(max_size=6),
       st.sampled_from(["contiguous", "partition-contiguous"]))
def test_same_matches_under_the_shared_contiguity_policies(p, s, policy):
    assert operator_matches(from_ses(p), s, policy) == ses_matches(p, s, policy)
