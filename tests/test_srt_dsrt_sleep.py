"""The DSRT with marks over columns with a per-state schedule (engines/srt/lazy_sleep.py):
a configuration sleeps until a row its own state's guards can take, fresh runs start
only where srt's would leave a run alive, and the matches are those of the row-by-row
pass (tests/test_srt_dsrt_time.py compares both with the reference on drawn patterns)."""

from __future__ import annotations

import pytest

from bench import seed004
from kleene.data.bundled import bundled
from kleene.data.loaders import load_events
from kleene.engines.protocol import Counters, Query
from kleene.engines.registry import engine
from kleene.engines.srt import lazy_sleep
from kleene.engines.srt.lazy_dsrt import LazyDSRT
from kleene.reference.events import Stream
from kleene.reference.match import Match
from kleene.reference.sremo import parse_sremo
from kleene.reference.sremo.wayeb import read_sre
from tests.helpers import columnar

PAIR = "ANY(mark {~.L = 'A'} -> r, mark {~.L = 'B' AND ~.V > r.V})[WITHIN 3]"


def _both(text: str, rows: list[dict[str, object]]) -> tuple[list[Match], Counters,
                                                              list[Match], Counters]:
    """The matches and counters over the columns (every stream size) and event by event."""
    e = parse_sremo(text)
    s = Stream.from_rows(rows)
    over, by_row = Counters(), Counters()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(lazy_sleep, "SMALL", 0)
        d = engine("dsrt").compile(Query.of(e))
        assert isinstance(d, LazyDSRT)
        got = list(d.run(columnar(s), counters=over))
    rowwise = list(engine("dsrt").compile(Query.of(e)).run(list(s), counters=by_row))
    return got, over, rowwise, by_row


def test_a_run_sleeps_past_the_rows_only_other_states_take():
    # A@0 V1, A@1 V5, A@2 V0, B@3 V3, B@4 V9 within 3 (inclusive): A@0 pairs with B@3
    # (3 > 1, 3 − 0 ≤ 3), not B@4 (4 − 0 > 3); A@1 with B@4 only (3 > 5 fails, 9 > 5,
    # 4 − 1 = 3); A@2 with both (3 > 0, 9 > 0). The run holding A@0 waits for a B: the
    # A rows at 1 and 2 are not read for it.
    rows: list[dict[str, object]] = [
        {"ts": 0, "L": "A", "V": 1}, {"ts": 1, "L": "A", "V": 5}, {"ts": 2, "L": "A", "V": 0},
        {"ts": 3, "L": "B", "V": 3}, {"ts": 4, "L": "B", "V": 9}]
    got, over, rowwise, by_row = _both(PAIR, rows)
    expected = [Match.marked(m) for m in ({0, 3}, {2, 3}, {1, 4}, {2, 4})]
    assert sorted(got) == sorted(rowwise) == sorted(expected)
    assert got == sorted(got, key=lambda m: max(p for _, ps in m.bindings for p in ps))
    assert over.predicate_evaluations < by_row.predicate_evaluations


def test_no_fresh_run_starts_where_its_run_expires_before_a_row_it_can_take():
    # A@0, then C rows (no guard takes them), a B at 10: the run from A@0 would wait for
    # the B, 10 > 3 after it: it is never started, nothing is created, nothing matches;
    # the row-by-row pass starts it and lets it expire.
    rows: list[dict[str, object]] = [{"ts": 0, "L": "A", "V": 1}]
    rows += [{"ts": t, "L": "C", "V": 0} for t in range(1, 10)]
    rows.append({"ts": 10, "L": "B", "V": 9})
    got, over, rowwise, by_row = _both(PAIR, rows)
    assert got == rowwise == []
    assert over.instances_created == 0 < by_row.instances_created


def test_a_run_whose_window_ends_between_rows_it_can_take_dies_there():
    # positions 0-3: A@0 V1, then B@2 V0 (not above r.V: read, the run lives on), B@4 V9
    # (4 − 0 > 3): no match for A@0; A@3 V1 (position 2) and B@4 V9 (position 3) match,
    # B@2 before it does not count.
    rows: list[dict[str, object]] = [
        {"ts": 0, "L": "A", "V": 1}, {"ts": 2, "L": "B", "V": 0},
        {"ts": 3, "L": "A", "V": 1}, {"ts": 4, "L": "B", "V": 9}]
    got, _, rowwise, _ = _both(PAIR, rows)
    assert got == rowwise == [Match.marked({2, 3})]


def test_literal_runs_once_from_the_first_row_over_columns():
    # policy literal: the whole stream must be a string of the expression: A@0 then the
    # gap (C), then B@2 above it, within 3: the match marks {0, 2}
    rows: list[dict[str, object]] = [
        {"ts": 0, "L": "A", "V": 1}, {"ts": 1, "L": "C", "V": 0}, {"ts": 2, "L": "B", "V": 3}]
    e = parse_sremo(PAIR)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(lazy_sleep, "SMALL", 0)
        got = list(engine("dsrt").compile(Query.of(e, policy="literal"))
                   .run(columnar(Stream.from_rows(rows))))
    assert got == [Match.marked({0, 2})]


@pytest.mark.parametrize("name", sorted(p.stem for p in seed004.QUERIES.glob("*.sre")))
def test_the_schedule_finds_the_row_by_row_passs_matches_on_every_wayeb_query(name):
    """The 19 benchmark queries on the first 3,000 stock events, over the columns (the
    schedule) and event by event (every configuration stepped on every row a guard may
    take): the same matches, and the same as srt."""
    s = load_events(bundled("stocks.stream.gz"), limit=3_000)
    query, = read_sre(str(seed004.QUERIES / f"{name}.sre"))
    e = query.to_expression(time_window=seed004.WINDOWS[seed004.family(name)])
    q = Query.of(e, time_unit=s.time_unit, reading=query.reading)
    over = list(engine("dsrt").compile(q).run(s))
    rowwise = set(engine("dsrt").compile(q).run(list(s)))
    assert set(over) == rowwise == set(engine("srt").compile(q).run(s))
    assert len(over) == len(rowwise)
