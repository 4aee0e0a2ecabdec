"""``srt`` over the columns of a loaded stream (engines/srt/columns.py) reports exactly
what it reports event by event, and what the SREMO reference (seed 004 Def. 18,
normative streaming detection) computes: the vector filter only decides which rows
become events, never a match."""

from __future__ import annotations

import pytest
from hypothesis import given, reject
from hypothesis import strategies as st

from kleene.conformance.differential import assert_same_matches, reference_or_reject
from kleene.conformance.sremo_strategies import sremo_expressions
from kleene.conformance.strategies import streams
from kleene.engines.protocol import Counters
from kleene.engines.registry import engine
from kleene.engines.srt.run import CompiledSRT
from kleene.reference.errors import Unsupported
from kleene.reference.events import Stream
from kleene.reference.query import Query
from kleene.reference.sremo import parse_sremo
from tests.helpers import columnar


@pytest.fixture(autouse=True, scope="module")
def vector_path_on_small_streams():
    """Small batches are read event by event (columns.SMALL); these tests want the
    vector path on their small streams, so it is taken for every batch here."""
    from kleene.engines.srt import columns

    kept, columns.SMALL = columns.SMALL, 0
    yield
    columns.SMALL = kept


def _check(e, s, policy, reading):
    expected = reference_or_reject(e, s, policy, steps=40_000, reading=reading)
    try:
        query = Query.of(e, policy=policy, time_unit=s.time_unit, reading=reading)
        compiled = engine("srt").compile(query)
    except Unsupported:
        reject()
    c = columnar(s)
    assert c.columns is not None
    counted = Counters()
    assert_same_matches(engine("srt"), pattern=e, stream=s,
                        got=list(compiled.run(c, counters=counted)),
                        expected=expected, policy=policy)
    assert counted.events_read == len(s)


@given(e=sremo_expressions(max_depth=3, time_windows=True), s=streams(min_size=1, max_size=8),
       reading=st.sampled_from(("inclusive", "strict")),
       policy=st.sampled_from(("stream", "literal")))
def test_srt_over_columns_equals_the_reference(e, s, reading, policy):
    _check(e, s, policy, reading)


REGISTER_PATTERNS = [
    # every guard has a head-only conjunct: most rows are filtered by the columns
    "(mark {~.L = 'A'} -> r ; ({TRUE})* ; mark {~.L = 'B' AND ~.ID = r.ID})[WITHIN 3]",
    "ANY(mark {~.L = 'A'} -> r, mark {~.L = 'B'}, mark {~.L = 'C' AND ~.V > r.V})[WITHIN 4]",
    "(mark {~.L = 'A'} ; ANY(mark {~.L = 'B'})* ; mark {~.L = 'C'})[WITHIN 2]",
    "(mark {~.L = 'A'} -> r ; ({TRUE})* ; mark {~.L = 'B' AND ~.V < r.V})[1..3]",
    # Kleene under skip-till-any: a waiting state also moves on TRUE to another (forks)
    "ANY(mark {~.L = 'A'} -> r, ANY(mark {~.L = 'B'})*, mark {~.L = 'C' AND ~.V > r.V})"
    "[WITHIN 4]",
]


@pytest.mark.parametrize("text", REGISTER_PATTERNS)
@given(s=streams(min_size=1, max_size=12))
def test_srt_over_columns_on_register_patterns(text, s):
    _check(parse_sremo(text), s, "stream", "strict")


@pytest.mark.parametrize("text", REGISTER_PATTERNS)
def test_register_patterns_take_the_sleeping_path(text):
    """These patterns are run with sleeping groups (engines/srt/agenda.py), so the tests
    above compare that path with the reference."""
    from kleene.engines.srt.agenda import waiting_moves
    from kleene.engines.srt.execution import Execution

    compiled = engine("srt").compile(Query.of(parse_sremo(text), reading="strict"))
    assert isinstance(compiled, CompiledSRT)
    ex = Execution(compiled.srt, compiled.policy, Counters())
    moves = waiting_moves(ex)
    assert moves is not None
    if text == REGISTER_PATTERNS[-1]:   # a state with a self-loop and another move
        assert any(loop is not None and others for loop, others in moves)


@pytest.mark.parametrize(("rows", "small"), [(1, 0), (2, 0), (3, 0), (3, 3), (4, 2)])
@pytest.mark.parametrize("text", [*REGISTER_PATTERNS[:2], REGISTER_PATTERNS[-1]])
@given(s=streams(min_size=1, max_size=12))
def test_sleeping_groups_across_batches(text, rows, small, s):
    """Groups alive at the end of a batch are carried into the next (a time window
    spanning batches, a run that must read the next batch's first row), also when some
    batches are read event by event (under ``small`` rows)."""
    from kleene.engines.srt import columns, run

    kept = run.ROWS, columns.SMALL
    run.ROWS, columns.SMALL = rows, small
    try:
        _check(parse_sremo(text), s, "stream", "strict")
    finally:
        run.ROWS, columns.SMALL = kept


def test_sleeping_groups_on_a_hand_computed_stream():
    """``ANY(A→r, B, C ∧ V > r.V)`` within 4 (strict: span < 4): A@0 (V 1), B@1, A@2
    (V 5), C@3 (V 2), B@4, C@5 (V 6), C@7 (V 9). Matches: {0,1,3} (C@3: 2 > 1, span 3);
    {2,4,5} (6 > 5, span 3); {0,1,5} spans 5 and {2,4,7} spans 5: out."""
    rows = [("A", 0, 1), ("B", 1, 0), ("A", 2, 5), ("C", 3, 2), ("B", 4, 0), ("C", 5, 6),
            ("C", 7, 9)]
    s = Stream.from_rows([{"ts": t, "L": label, "V": v, "ID": 0} for label, t, v in rows])
    e = parse_sremo(REGISTER_PATTERNS[1])
    compiled = engine("srt").compile(Query.of(e, reading="strict"))
    got = sorted(m.positions for m in compiled.run(columnar(s)))
    assert got == [(0, 1, 3), (2, 4, 5)]


def head_filtered(e, s: Stream) -> tuple[Stream, list[int]]:
    """The events of ``s`` passing ``e``'s head filter (bench/seed004.py, the pruning the
    Spark runner pushes down), renumbered, and their positions in ``s``."""
    from bench.seed004 import head_filtered as kept

    f, rows = kept(e, columnar(s))
    return f, rows.tolist()


def woken(c: Counters) -> int:
    """Rows an ``srt`` run read (built an event for): those it did not skip."""
    return c.events_read - c.events_filtered


CHEAPER = "(mark {~.L = 'A'} -> r ; {TRUE}* ; mark {~.L = 'B' AND ~.V < r.V})[WITHIN 3]"


def test_a_head_filtered_stream_gives_the_whole_streams_matches():
    """"A, then a cheaper B within 3" (the shape of the bench's INTC pattern), inclusive:
    A@0 (V 5), X@1, B@2 (V 3), X@3, A@4 (V 9), X@5–8, B@9 (V 1), A@10 (V 2), B@11 (V 4),
    B@12 (V 1). By hand: {0, 2} (3 < 5, span 2) and {10, 12} (1 < 2, span 2); B@9 is
    5 after A@4 and B@11 not cheaper. The filter keeps the 7 A/B events; run on them,
    ``srt`` reports the same matches once positions are mapped back, and reads no more
    rows than on the whole stream (a group sleeping past its window is dropped, not
    woken by the next B)."""
    from kleene.reference.ses.windows import restore

    rows = [("A", 0, 5), ("X", 1, 0), ("B", 2, 3), ("X", 3, 0), ("A", 4, 9), ("X", 5, 0),
            ("X", 6, 0), ("X", 7, 0), ("X", 8, 0), ("B", 9, 1), ("A", 10, 2), ("B", 11, 4),
            ("B", 12, 1)]
    s = Stream.from_rows([{"ts": t, "L": label, "V": v, "ID": 0} for label, t, v in rows])
    e = parse_sremo(CHEAPER)
    expected = reference_or_reject(e, s, "stream")
    assert sorted(m.positions for m in expected) == [(0, 2), (10, 12)]
    compiled = engine("srt").compile(Query.of(e))
    whole, filtered = Counters(), Counters()
    assert set(compiled.run(columnar(s), counters=whole)) == expected
    f, origin = head_filtered(e, s)
    assert origin == [0, 2, 4, 9, 10, 11, 12]
    assert {restore(m, origin) for m in compiled.run(f, counters=filtered)} == expected
    assert woken(filtered) <= woken(whole)


@pytest.mark.parametrize("text", [
    CHEAPER, *REGISTER_PATTERNS[:2],
    "ANY(mark {~.L = 'A'} -> r, mark {~.L = 'B'} -> q, mark {~.L = 'C' AND ~.V > q.V})"
    "[WITHIN 3]"])
@given(s=streams(min_size=1, max_size=12))
def test_srt_on_the_head_filtered_stream_equals_the_reference(text, s):
    """What the Spark runner hands ``srt`` (the events passing the head filter) gives
    the reference's matches on the whole stream."""
    from kleene.reference.ses.windows import restore

    e = parse_sremo(text)
    expected = reference_or_reject(e, s, "stream", steps=40_000)
    f, origin = head_filtered(e, s)
    compiled = engine("srt").compile(Query.of(e, time_unit=s.time_unit))
    got = [restore(m, origin) for m in compiled.run(f)]
    assert_same_matches(engine("srt"), pattern=e, stream=s, got=got, expected=expected,
                        policy="stream")
