"""The Spark runner's plan (engines/spark/plan.py) and layout, checked without Spark.

Whether each cut is sound is decided by the pruning module and property-tested
against the reference in tests/test_pruning.py; here: what only the plan adds
(an engine that does not claim the query runs whole), the slice layout
(boundaries, owners, surrogate keys) and the attributes a pattern reads.
"""

from __future__ import annotations

import pytest

from kleene.engines.protocol import Feature
from kleene.engines.spark.layout import boundaries, murmur3_int, owner, surrogates
from kleene.engines.spark.plan import (
    attributes_read,
    plan_for,
)
from kleene.reference.errors import PatternError
from kleene.reference.query import Query
from kleene.reference.ses.text import parse_ses
from tests.helpers import claiming


def test_an_engine_that_does_not_claim_the_policy_runs_whole():
    pattern = parse_ses("PATTERN <{a}, {b}> WHERE a.ID = b.ID WITHIN 5")
    plan = plan_for(claiming(frozenset({Feature("ses")})), Query.of(pattern, policy="next"), tau=5)
    assert plan.whole and plan.filter is None and "does not claim" in plan.explain()


def test_a_filter_with_like_is_not_pushed_to_spark():
    # Thm 1's filter would be a.L = 'A' OR b.L LIKE '^B': Spark's rlike is Java's dialect,
    # so no filter is pushed (the engines evaluate LIKE in each task)
    pattern = parse_ses("PATTERN <{a}, {b}> WHERE a.L = 'A' AND b.L LIKE '^B' WITHIN 5")
    plan = plan_for(claiming(), Query.of(pattern, policy="next"), tau=5)
    assert plan.filter is None and "reads LIKE" in plan.explain()
    plain = parse_ses("PATTERN <{a}, {b}> WHERE a.L = 'A' AND b.L = 'B' WITHIN 5")
    assert plan_for(claiming(), Query.of(plain, policy="next"), tau=5).filter is not None


def test_unknown_policy_is_an_error():
    with pytest.raises(PatternError, match="unknown policy"):
        plan_for(claiming(), Query.of(parse_ses("PATTERN <{a}> WITHIN 5"), policy="latest"), tau=5)


def test_attributes_read():
    pattern = parse_ses("PATTERN <{a+}, {b}> WHERE a.L = 'A' AND prev(a.V) < a.V "
                        "AND a.ID = b.ID WITHIN 5")
    assert attributes_read(pattern) == {"L", "V", "ID"}
    from kleene.reference.operators.text import parse_operator
    from kleene.reference.sremo import parse_sremo

    # an aggregate's attribute, COUNT reads none; the types A, B are no attributes
    assert attributes_read(parse_operator("PATTERN SEQ(A a, B+ b[]) WHERE AVG(b[i].V) > a.X "
                                          "AND COUNT(b[i]) > 1 WITHIN 5")) == {"V", "X"}
    # SREMO's partition is no comparison: its attribute is read all the same
    assert attributes_read(parse_sremo("mark {~.L = 'A'} ; mark {~.L = 'B'} PARTITION BY ID")) \
        == {"L", "ID"}


# ---------------------------------------------------------------- layout helpers

def test_murmur3_of_known_values():
    # Spark: SELECT hash(0), hash(1), hash(2) -> 933211791, -559580957, 1765031574
    assert [murmur3_int(i) for i in range(3)] == [933211791, -559580957, 1765031574]


def test_surrogates_hit_every_partition_once():
    for n in (1, 2, 7, 32):
        subs = surrogates(n)
        assert [murmur3_int(x) % n for x in subs] == list(range(n))


def test_boundaries_cut_by_counts_and_keep_a_gap():
    assert boundaries(list(range(100)), 4) == (25, 50, 75)
    assert boundaries([0] * 50 + [9] * 50, 4) == (9,)
    assert boundaries(list(range(100)), 4, min_gap=30) == (50,)
    assert boundaries([], 4) == () and boundaries(list(range(9)), 1) == ()
    assert [owner((25, 50), t) for t in (0, 25, 49, 50, 99)] == [0, 1, 1, 2, 2]
