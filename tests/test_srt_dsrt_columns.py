"""The DSRT's pass over columns (engines/srt/lazy_sleep.py) on long idle stretches:
each woken row's atoms read off its bits where they decide them (``lazy_pass.Step``), its event
carrying only the attributes the other atoms read, and an idle stretch read by its
clocks at both ends (monotone in the timestamps), bisected only where a clock changes
and does not kill. Against the SREMO reference on streams with rows no guard takes and
decimal timestamps (``0.1 + 0.2 > 0.3``), both policies."""

from __future__ import annotations

import pytest
from hypothesis import given, reject
from hypothesis import strategies as st

from kleene.conformance.differential import assert_same_matches, reference_or_reject
from kleene.conformance.sremo_strategies import (
    gapped_sremo_expressions,
    sremo_conditions,
    sremo_expressions,
)
from kleene.conformance.strategies import attributes, streams
from kleene.engines.protocol import Query
from kleene.engines.registry import engine
from kleene.engines.srt import lazy_sleep
from kleene.engines.srt.lazy_dsrt import LazyDSRT
from kleene.reference.durations import Duration
from kleene.reference.errors import Unsupported
from kleene.reference.events import Stream
from kleene.reference.match import Match
from kleene.reference.sremo import parse_sremo
from kleene.reference.sremo.expressions import Atom, Concat, Expr, Strategy, Window
from tests.helpers import columnar

#: Rows labelled Z satisfy no drawn condition on L: most rows are idle.
IDLE_STREAMS = streams(min_size=1, max_size=16,
                       attributes=attributes(labels=st.sampled_from(("A", "B", "C", "Z", "Z"))))


@st.composite
def nested_windows(draw: st.DrawFn) -> Expr:
    """A timed skip-till-any sequence followed, under a longer window, by another marked
    atom: states with two clocks, one ending before the other."""
    inner = draw(gapped_sremo_expressions().filter(lambda e: isinstance(e, Window)),
                 label="inner")
    last = Atom(draw(sremo_conditions(frozenset()), label="last"), True)
    tau = draw(st.integers(2, 9), label="outer tau")
    return Window(Strategy("any", Concat((inner, last))), Duration(tau))


WINDOWED = st.one_of(gapped_sremo_expressions().filter(lambda e: isinstance(e, Window)),
                     sremo_expressions(max_depth=3, time_windows=True), nested_windows())


def _over_columns(e: Expr, s: Stream, policy: str) -> list[Match]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(lazy_sleep, "SMALL", 0)
        d = engine("dsrt").compile(Query.of(e, policy=policy, time_unit=s.time_unit))
        return list(d.run(columnar(s)))


def _decimal(s: Stream) -> Stream:
    """``s`` with every timestamp t read as ``t * 0.1`` (floats that do not add up)."""
    return Stream.from_rows([{"ts": u.ts * 0.1, **u.attrs} for u in s])


@given(e=WINDOWED, s=IDLE_STREAMS, decimal=st.booleans(),
       policy=st.sampled_from(("stream", "literal")))
def test_dsrt_over_columns_equals_the_reference_on_idle_stretches(e, s, decimal, policy):
    if decimal:
        s = _decimal(s)
    expected = reference_or_reject(e, s, policy, steps=40_000)
    try:
        got = _over_columns(e, s, policy)
    except Unsupported as err:   # srt's own refusals (negation beyond Alg. 7's copies)
        assert "Alg. 7" in str(err) or "cap" in str(err), err
        reject()
    assert_same_matches(engine("dsrt"), pattern=e, stream=s, got=got, expected=expected,
                        policy=policy)


PAIR = "ANY(mark {~.L = 'A'} -> r, mark {~.L = 'B' AND ~.V > r.V})[WITHIN 0.3]"


def test_a_decimal_window_is_read_as_python_reads_it():
    # A@0.1 V0, idle Z rows, B@0.4 V1: 0.4 − 0.1 is 0.30000000000000004 > 0.3, no match;
    # A@0.2 V0 with the same B: 0.4 − 0.2 = 0.2 ≤ 0.3, a match {1, 3} (and B needs V > 0)
    rows: list[dict[str, object]] = [
        {"ts": 0.1, "L": "A", "V": 0}, {"ts": 0.2, "L": "A", "V": 0},
        {"ts": 0.3, "L": "Z", "V": 0}, {"ts": 0.4, "L": "B", "V": 1}]
    assert 0.4 - 0.1 > 0.3 >= 0.4 - 0.2
    got = _over_columns(parse_sremo(PAIR), Stream.from_rows(rows), "stream")
    assert got == [Match.marked({1, 3})]


def test_a_woken_row_reads_only_the_attributes_its_register_tests_need():
    # the head tests (L) are the row's bits; B's test of V against r is all that is read
    d = engine("dsrt").compile(Query.of(parse_sremo(PAIR)))
    assert isinstance(d, LazyDSRT)
    assert d.read_attrs == frozenset({"V"})


@pytest.mark.parametrize("unit", [1, 1.0])
def test_a_run_whose_window_passes_in_an_idle_stretch_moves_on_there(unit):
    # policy literal: A@0 marked, B@2 marked (2 − 0 ≤ 3), then idle Z rows at 3, 3, 3, 5, 7
    # read by the trailing {TRUE}*: inside the window at 3 (3 − 0 ≤ 3), past it from 5 on,
    # where the run moves to the window's passed copy and reads on to the end: {0, 2};
    # integer and decimal timestamps (the clock's change bisected on each kind)
    e = parse_sremo("(mark {~.L = 'A'} ; {TRUE}* ; mark {~.L = 'B'} ; {TRUE}*)[WITHIN 3]")
    rows: list[dict[str, object]] = [
        {"ts": t * unit, "L": label, "V": 0}
        for t, label in ((0, "A"), (1, "Z"), (2, "B"), (3, "Z"), (3, "Z"), (3, "Z"), (5, "Z"),
                         (7, "Z"))]
    assert _over_columns(e, Stream.from_rows(rows), "literal") == [Match.marked({0, 2})]
