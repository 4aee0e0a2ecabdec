"""The engine ``dsrt`` beyond fully marked count windows (issue 32 item 1): the DSRT that
keeps its marks, built lazily (engines/srt/lazy_dsrt.py, seed 004 report Thm 41 / Alg. 7
with register copies named by the elements' order). Against the SREMO reference: time
windows under both readings and policies, selection strategies, ``PARTITION BY``, bodies
that read a register they write; hand-computed matches; the state cap in one line."""

from __future__ import annotations

import pytest
from hypothesis import given, reject
from hypothesis import strategies as st

from bench import seed004
from kleene.conformance.differential import assert_same_matches, reference_or_reject
from kleene.conformance.sremo_strategies import gapped_sremo_expressions, sremo_expressions
from kleene.conformance.strategies import streams
from kleene.data.bundled import bundled
from kleene.data.loaders import load_events
from kleene.engines.protocol import Limitation, Query
from kleene.engines.registry import engine
from kleene.engines.srt import lazy_sleep
from kleene.engines.srt.lazy_dsrt import LazyDSRT
from kleene.reference.errors import Unsupported
from kleene.reference.events import Stream
from kleene.reference.sremo import parse_sremo
from kleene.reference.sremo.expressions import Partition
from kleene.reference.sremo.wayeb import read_sre
from tests.helpers import columnar

STREAMS = streams(min_size=1, max_size=6)


def _check(e, s, policy="stream", reading="inclusive"):
    expected = reference_or_reject(e, s, policy, steps=40_000, reading=reading)
    dsrt = engine("dsrt")
    try:
        compiled = dsrt.compile(Query.of(e, policy=policy, time_unit=s.time_unit,
                                         reading=reading))
    except Unsupported as err:   # srt's own refusals (negation beyond Alg. 7's copies)
        assert "Alg. 7" in str(err) or "cap" in str(err), err
        reject()
    assert_same_matches(dsrt, pattern=e, stream=s, got=list(compiled.run(s)),
                        expected=expected, policy=policy)


@given(e=sremo_expressions(max_depth=3, time_windows=True), s=STREAMS,
       reading=st.sampled_from(("inclusive", "strict")))
def test_dsrt_equals_the_reference_streaming_with_time_windows(e, s, reading):
    _check(e, s, "stream", reading)


@given(e=sremo_expressions(max_depth=2, time_windows=True), s=STREAMS)
def test_dsrt_equals_the_reference_literal_with_time_windows(e, s):
    _check(e, s, "literal")


@given(e=gapped_sremo_expressions(), s=streams(min_size=1, max_size=8),
       reading=st.sampled_from(("inclusive", "strict")))
def test_dsrt_equals_the_reference_on_skip_till_any_under_time_windows(e, s, reading):
    """The shape of every Wayeb query: marked atoms joined by skip-till-any gaps, a
    register written by one and read by a later one, a time window."""
    _check(e, s, "stream", reading)


@given(e=st.one_of(gapped_sremo_expressions(), sremo_expressions(max_depth=2,
                                                                time_windows=True)),
       s=streams(min_size=1, max_size=8), policy=st.sampled_from(("stream", "literal")))
def test_dsrt_equals_the_reference_over_columns(e, s, policy):
    """Over a loaded stream's columns (lazy_sleep.Schedule: the candidate rows found by
    Arrow's kernels, each configuration asleep until a row its state's guards can take,
    the rows between read by their timestamps), on any stream size."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(lazy_sleep, "SMALL", 0)
        expected = reference_or_reject(e, s, policy, steps=40_000)
        try:
            compiled = engine("dsrt").compile(Query.of(e, policy=policy,
                                                       time_unit=s.time_unit))
        except Unsupported as err:
            assert "Alg. 7" in str(err) or "cap" in str(err), err
            reject()
        got = list(compiled.run(columnar(s)))
    assert_same_matches(engine("dsrt"), pattern=e, stream=s, got=got, expected=expected,
                        policy=policy)


@given(e=sremo_expressions(max_depth=2, time_windows=True), s=STREAMS,
       by=st.sampled_from((("ID",), ("L",), ("ID", "L"))))
def test_dsrt_equals_the_reference_on_partitions(e, s, by):
    _check(Partition(e, by), s)


@pytest.mark.parametrize("text", [
    # bodies that read a register they write (report Alg. 7's register copies)
    "(mark {~.L = 'A'} -> r ; (mark {~.V > r.V} -> r)* ; mark {~.L = 'B'})[WITHIN 4]",
    "ANY(mark {~.L = 'A'} -> r, (mark {~.ID = r.ID} -> r)*, mark {~.V < r.V})[WITHIN 3]",
    "(mark {~.L = 'A'} -> r ; ANY(mark {~.V >= r.V} -> r, mark {~.V < r.V})*)[1..4]",
    "NEXT(mark {~.L = 'A'} -> r, mark {~.ID = r.ID})[WITHIN 3]",
    "(mark {~.L = 'A'} ; !(mark {TRUE} -> s ; mark {~.V < s.V})[1..2] ; "
    "mark {~.L = 'B'})[WITHIN 5]",
])
@given(s=streams(min_size=1, max_size=8))
def test_dsrt_equals_the_reference_on_register_copies(text, s):
    _check(parse_sremo(text), s)


def test_dsrt_reports_skip_till_any_matches_in_a_time_window_by_hand():
    # A(r) then B with B.V > r.V within 2 (inclusive): A@0 V1, A@1 V5, B@2 V3, B@3 V9.
    # A@0 pairs with B@2 (3 > 1, 2 - 0 <= 2); not B@3 (3 - 0 > 2); A@1 with B@3 only
    # (3 > 5 fails, 9 > 5 holds).
    e = parse_sremo("ANY(mark {~.L = 'A'} -> r, mark {~.L = 'B' AND ~.V > r.V})[WITHIN 2]")
    s = Stream.from_rows([{"ts": 0, "L": "A", "V": 1}, {"ts": 1, "L": "A", "V": 5},
                          {"ts": 2, "L": "B", "V": 3}, {"ts": 3, "L": "B", "V": 9}])
    compiled = engine("dsrt").compile(Query.of(e))
    assert isinstance(compiled, LazyDSRT)
    assert [m.positions for m in compiled.run(s)] == [(0, 2), (1, 3)]


def test_dsrt_runs_a_partition_one_part_at_a_time_by_hand():
    # per ID: A@0 (ID 1, V 1) then B@2 (ID 1, V 3); A@1 (ID 2, V 5), B@3 (ID 2, V 3) fails
    e = parse_sremo("ANY(mark {~.L = 'A'} -> r, mark {~.L = 'B' AND ~.V > r.V})[WITHIN 5] "
                    "PARTITION BY ID")
    s = Stream.from_rows([{"ts": 0, "L": "A", "ID": 1, "V": 1},
                          {"ts": 1, "L": "A", "ID": 2, "V": 5},
                          {"ts": 2, "L": "B", "ID": 1, "V": 3},
                          {"ts": 3, "L": "B", "ID": 2, "V": 3}])
    assert [m.positions for m in engine("dsrt").compile(Query.of(e)).run(s)] == [(0, 2)]


def test_the_states_of_a_time_window_are_bounded_by_the_elements_it_holds():
    """ANY(A -> r, B(r)) within τ: a state holds at most the A elements of one window, so
    on a stream of n A's one time unit apart and τ = 2 the DSRT stays small whatever n
    (states: the fresh run, and one A-then-gap state per number of A's held, 1..3)."""
    e = parse_sremo("ANY(mark {~.L = 'A'} -> r, mark {~.L = 'B' AND ~.V > r.V})[WITHIN 2]")
    small, large = (engine("dsrt").compile(Query.of(e)) for _ in range(2))
    assert isinstance(small, LazyDSRT) and isinstance(large, LazyDSRT)
    for d, n in ((small, 30), (large, 300)):
        list(d.run(Stream.from_rows([{"ts": i, "L": "A", "V": i} for i in range(n)])))
    assert small.states == large.states <= 8


def test_the_state_cap_is_one_line_naming_it():
    # unmarked writes before the first mark: the run from position 0 that has marked
    # nothing holds every A (a member per A, each may be r), so its state grows with the
    # stream, window or not
    e = parse_sremo("(({~.L = 'A'} -> r) + {TRUE})* ; "
                    "(mark {~.L = 'B' AND ~.V > r.V})[WITHIN 2]")
    d = engine("dsrt").compile(Query.of(e))
    assert isinstance(d, LazyDSRT)
    d.max_states = 10
    with pytest.raises(Limitation, match=r"more than 10 states on this stream \(the cap") as err:
        list(d.run(Stream.from_rows([{"ts": i, "L": "A", "V": i} for i in range(40)])))
    assert "\n" not in str(err.value)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(p.stem for p in seed004.QUERIES.glob("*.sre")))
def test_dsrt_finds_srts_matches_for_every_wayeb_query_on_the_stock_stream(name):
    """Every one of the 19 benchmark queries at the paper's window, as written (time
    window, skip-till-any, ``{partitionBy}``), on the first 8,000 stock events: the same
    matches as srt (the whole stream: python -m bench seed004, which checks it too)."""
    s = load_events(bundled("stocks.stream.gz"), limit=8_000)
    query, = read_sre(str(seed004.QUERIES / f"{name}.sre"))
    e = query.to_expression(time_window=seed004.WINDOWS[seed004.family(name)])
    q = Query.of(e, time_unit=s.time_unit, reading=query.reading)
    expected = set(engine("srt").compile(q).run(s))
    assert set(engine("dsrt").compile(q).run(s)) == expected
