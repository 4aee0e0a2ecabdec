"""``PARTITION BY`` counted over the columns of a loaded stream (issue 31 item 2;
engines/count/parts.py): the parts cut once, each part's candidates found by Arrow's
kernels, each key's elements counted alone; the oracle is the reference's streaming
match set, and counts worked out by hand."""

from __future__ import annotations

from unittest import mock

from hypothesis import given
from hypothesis import strategies as st

from kleene.conformance.strategies import LABELS, streams
from kleene.engines.count import sremo
from kleene.engines.count.counting import DP, count_matches
from kleene.engines.count.parts import part_elements
from kleene.reference.conditions import Attr, Cmp, Const
from kleene.reference.query import Query
from kleene.reference.sremo.expressions import Partition
from tests.helpers import columnar, typed_stream
from tests.test_count_sremo import ceql, counted_expressions

KEYED = streams(min_size=1, max_size=8, attributes=st.fixed_dictionaries({
    "L": st.sampled_from(LABELS), "ID": st.integers(0, 2), "V": st.integers(0, 3)}))


def _events_only(*args: object) -> None:
    raise AssertionError("the count read the events one by one")


def test_parts_by_hand():
    """A B B A B B, k = 1 2 1 2 1 2 (positions 0..5), over columns. Part 1 is A0 B2 B4:
    ``A ; B+`` gives A0 with B2, B4 or both (3); part 2 is B1 A3 B5: A3 with B5 (1): 4.
    Within 2 time units (ts = position): part 1's A0 with B2 (1), part 2's A3 with B5 (1):
    2. The elements of part 1: A at rank 0 (minterm 1: the first guard), B at ranks 1
    and 2 (minterm 2), with no run between them; each with its row in the stream (0, 2,
    4)."""
    rows = [("A", 0, {"k": 1}), ("B", 1, {"k": 2}), ("B", 2, {"k": 1}),
            ("A", 3, {"k": 2}), ("B", 4, {"k": 1}), ("B", 5, {"k": 2})]
    s = columnar(typed_stream(*rows))
    with mock.patch.object(sremo, "_elements", _events_only):
        got = count_matches(ceql("A ; B+", "PARTITION BY [k]"), s)
        assert got.backend == DP and got.count == 4
        assert count_matches(ceql("A ; B+", "PARTITION BY [k] WITHIN 2 [ts]"), s).count == 2
    guards = [Cmp("=", Attr("~", "type"), Const("A")), Cmp("=", Attr("~", "type"), Const("B"))]
    parts = part_elements(s.columns, ("k",), guards)
    assert parts is not None
    assert sorted(parts.values()) == [[[0, 0, 1, 0, 0], [1, 2, 2, 0, 2], [2, 4, 2, 0, 4]],
                                      [[0, 1, 2, 0, 1], [1, 3, 1, 0, 3], [2, 5, 2, 0, 5]]]


def test_a_run_between_candidates_is_one_element():
    """A x x B, k = 7 everywhere but the first x (k = 8): part 7 is A x B, whose x no guard
    holds on: one run of length 1 (no one row: -1) between A (rank 0, row 0) and B (rank
    2, row 3); ``A ; B`` gives 1, ``A : B`` (nothing between in the part) 0; part 8 (x
    alone) has no candidate."""
    rows = [("A", 0, {"k": 7}), ("x", 1, {"k": 8}), ("x", 2, {"k": 7}), ("B", 3, {"k": 7})]
    s = columnar(typed_stream(*rows))
    guards = [Cmp("=", Attr("~", "type"), Const("A")), Cmp("=", Attr("~", "type"), Const("B"))]
    parts = part_elements(s.columns, ("k",), guards)
    assert parts is not None
    assert list(parts.values()) == [[[0, 0, 1, 0, 0], [1, 0, 0, 1, -1], [2, 3, 2, 0, 3]]]
    with mock.patch.object(sremo, "_elements", _events_only):
        assert count_matches(ceql("A ; B", "PARTITION BY [k]"), s).count == 1
        assert count_matches(ceql("A : B", "PARTITION BY [k]"), s).count == 0


@given(counted_expressions(), KEYED, st.sampled_from(("inclusive", "strict")))
def test_the_columns_count_is_the_references(e, s, reading):
    """Drawn expressions of the counted fragment partitioned by an integer column, on a
    loaded stream: the count over the parts' columns is the length of the reference's
    streaming match set (the events path is then never taken where no guard is TRUE on
    a marking transition)."""
    e = e if isinstance(e, Partition) else Partition(e, ("ID",))
    query = Query.of(e, language="sremo", reading=reading).with_time_unit(s.time_unit)
    assert sremo.count(query, columnar(s)) == len(query.reference(s))
