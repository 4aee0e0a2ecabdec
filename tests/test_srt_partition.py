"""``e PARTITION BY a`` (Kleene's extension for Wayeb's ``{partitionBy:a}``): the
reference (the matches of ``e`` on each sub-stream of equal ``a``, positions mapped
back) and the engine ``srt`` (one run per part, engines/srt/partition.py), over events
and over columns; ``dsrt`` runs the parts too."""

from __future__ import annotations

import pytest
from hypothesis import given, reject
from hypothesis import strategies as st

from kleene.conformance.differential import assert_same_matches, reference_or_reject
from kleene.conformance.sremo_strategies import sremo_expressions
from kleene.conformance.strategies import streams
from kleene.data.columnar import columns_of
from kleene.engines.protocol import Counters
from kleene.engines.registry import engine
from kleene.engines.srt.partition import split
from kleene.reference.errors import PatternSyntaxError, Unsupported
from kleene.reference.events import Stream
from kleene.reference.query import Query
from kleene.reference.sremo import format_sremo, matches, parse_sremo
from kleene.reference.sremo.expressions import IllFormed, Partition
from tests.helpers import columnar

PATTERN = "ANY(mark {~.L = 'A'} -> r, mark {~.L = 'B' AND ~.V > r.V})[WITHIN 5] PARTITION BY ID"
# A@0 (ID 1, V 1), A@1 (ID 2, V 5), B@2 (ID 1, V 3), B@3 (ID 2, V 3)
ROWS = [{"ts": 0, "L": "A", "ID": 1, "V": 1}, {"ts": 1, "L": "A", "ID": 2, "V": 5},
        {"ts": 2, "L": "B", "ID": 1, "V": 3}, {"ts": 3, "L": "B", "ID": 2, "V": 3}]


def test_the_reference_matches_each_part_and_maps_positions_back():
    e = parse_sremo(PATTERN)
    assert isinstance(e, Partition) and e.by == ("ID",)
    assert parse_sremo(format_sremo(e)) == e
    s = Stream.from_rows(ROWS)
    # per part: A@0 then B@2 (3 > 1); A@1 then B@3 fails (3 > 5 is false). Unpartitioned,
    # A@0 also pairs with B@3.
    assert {m.positions for m in matches(e, s)} == {(0, 2)}
    assert {m.positions for m in matches(e.body, s)} == {(0, 2), (0, 3)}


def test_an_element_missing_the_attribute_is_a_part_of_its_own():
    e = parse_sremo("mark {~.L = 'A'} ; mark {~.L = 'B'} PARTITION BY ID")
    s = Stream.from_rows([{"ts": 0, "L": "A"}, {"ts": 1, "L": "B"},
                          {"ts": 2, "L": "A", "ID": 1}, {"ts": 3, "L": "B", "ID": 1}])
    assert {m.positions for m in matches(e, s)} == {(2, 3)}
    assert {m.positions for m in engine("srt").compile(Query.of(e)).run(s)} == {(2, 3)}


def test_partition_only_at_the_top():
    with pytest.raises(PatternSyntaxError):
        parse_sremo("(mark {TRUE} PARTITION BY ID) ; mark {TRUE}")
    from kleene.reference.sremo.expressions import Concat, check

    with pytest.raises(IllFormed, match="whole expression"):
        check(Concat((Partition(parse_sremo("mark {TRUE}"), ("ID",)),
                      parse_sremo("mark {TRUE}"))))


@pytest.mark.parametrize("columns", [False, True])
def test_srt_runs_the_parts(columns, monkeypatch):
    from kleene.engines.srt import columns as srt_columns

    monkeypatch.setattr(srt_columns, "SMALL", 0)     # the vector path on a tiny stream
    s = Stream.from_rows(ROWS)
    compiled = engine("srt").compile(Query.of(parse_sremo(PATTERN)))
    got = list(compiled.run(columnar(s) if columns else s))
    assert [m.positions for m in got] == [(0, 2)]


def test_the_columns_are_split_per_value_in_order_of_first_row():
    c = columns_of(list(Stream.from_rows(ROWS + [{"ts": 4, "L": "A", "ID": 1, "V": 0}])))
    parts = split(c, ("ID",))
    assert parts is not None
    assert [p.tolist() for p in parts] == [[0, 2, 4], [1, 3]]
    sparse = columns_of(list(Stream.from_rows([{"ts": 0, "L": "A"}, {"ts": 1, "ID": 1}])))
    assert split(sparse, ("ID",)) is None    # a missing value: read event by event


def test_dsrt_claims_a_partition_and_runs_its_parts():
    # one pass of the DSRT per part (tests/test_srt_dsrt_time.py: against the reference)
    from kleene.engines.protocol import Feature

    assert Feature("sremo", "partition") in engine("dsrt").capabilities
    s = Stream.from_rows(ROWS)
    assert [m.positions for m in engine("dsrt").compile(Query.of(parse_sremo(PATTERN))).run(s)] \
        == [(0, 2)]


@given(e=sremo_expressions(max_depth=2, time_windows=True), s=streams(min_size=1, max_size=7),
       reading=st.sampled_from(("inclusive", "strict")),
       policy=st.sampled_from(("stream", "literal")), columns=st.booleans())
def test_srt_equals_the_reference_on_partitioned_expressions(e, s, reading, policy, columns):
    from kleene.engines.srt import columns as srt_columns

    p = Partition(e, ("ID",))
    expected = reference_or_reject(p, s, policy, steps=40_000, reading=reading)
    try:
        query = Query.of(p, policy=policy, time_unit=s.time_unit, reading=reading)
        compiled = engine("srt").compile(query)
    except Unsupported:
        reject()
    kept, srt_columns.SMALL = srt_columns.SMALL, 0
    counted = Counters()
    try:
        got = list(compiled.run(columnar(s) if columns else s, counters=counted))
    finally:
        srt_columns.SMALL = kept
    assert_same_matches(engine("srt"), pattern=p, stream=s, got=got, expected=expected,
                        policy=policy)
    assert counted.events_read == len(s)
