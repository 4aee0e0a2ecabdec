"""Metamorphic and edge tests of the shared structure (engines/count/tecs.py; issue 31
item 3), each against engine ``srt`` and the reference, and its giving way past the
automaton's cap.

The relations come from the definitions: a match reported at ``k`` is one of
``S_j..k`` (docs/architecture.md, "SREMO streaming"), so a prefix holds exactly the
matches that end in it; a window reads timestamps only through ``max ts − min ts``
(:func:`~kleene.reference.durations.fits`), so shifting every timestamp leaves the
matches as they are, and so does scaling the timestamps and the window together; the
parts of ``e PARTITION BY a`` are matched alone, so the parts' matches joined are the
stream's; sequencing reads positions, not timestamps, so reordering events of one
timestamp moves the matches as the positions move.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kleene.engines.count import first, sremo, tecs
from kleene.engines.fastest import run_engine
from kleene.reference.durations import Duration
from kleene.reference.events import Event, Stream
from kleene.reference.match import Match
from kleene.reference.policies import part_of
from kleene.reference.query import Query
from kleene.reference.sremo.expressions import Expr, Partition, Window
from tests.helpers import columnar, run_cli, typed_stream
from tests.test_count_sremo import ROWS, ceql, counted_expressions


def agreed(query: Query, s: Stream) -> set[Match]:
    """The structure's matches on ``s``, checked equal to engine srt's and the
    reference's."""
    got = set(tecs.matches(query, s))
    srt, _ = run_engine("srt", query, s)
    assert got == srt == query.reference(s)
    return got


def rows(events: list[Event], ts: list[int | float] | None = None) -> Stream:
    """A stream of ``events`` (renumbered), at timestamps ``ts`` if given."""
    return Stream.from_rows([{"ts": u.ts if ts is None else ts[i], "type": u.type, **u.attrs}
                             for i, u in enumerate(events)])


def drawn(e: Expr, s: Stream) -> Query:
    return Query.of(e, language="sremo").with_time_unit(s.time_unit)


@given(counted_expressions(), ROWS, st.integers(0, 3))
def test_shifting_every_timestamp_changes_no_match(e, s, k):
    """Every timestamp plus 2^53 + k (past a double's exact integers) or 2^63 + k (past
    int64): the same matches, from the structure, srt and the reference alike; the
    second as Arrow columns is refused in one line (int64 cannot hold it)."""
    events = list(s)
    before = agreed(drawn(e, s), s)
    assert agreed(drawn(e, s), rows(events, [u.ts + 2 ** 53 + k for u in events])) == before
    past = rows(events, [u.ts + 2 ** 63 + k for u in events])
    assert set(tecs.matches(drawn(e, s), past)) == before
    with pytest.raises(ValueError, match="does not fit int64") as refused:
        columnar(past)
    assert "\n" not in str(refused.value)


def scaled(e: Expr, c: int) -> Expr:
    """``e`` with its time window times ``c`` (a count window reads positions: kept)."""
    if isinstance(e, Partition):
        return Partition(scaled(e.body, c), e.by)
    if isinstance(e, Window) and isinstance(e.width, Duration):
        return Window(e.body, Duration(e.width.value * c, e.width.unit))
    return e


@given(counted_expressions(), ROWS, st.sampled_from([2, 3, 1000, 2 ** 53 + 1]))
def test_scaling_timestamps_and_window_together_changes_no_match(e, s, c):
    """Timestamps and the time window both times ``c``: ``c·span ≤ c·τ`` iff
    ``span ≤ τ`` (and ``<`` likewise), so the same matches."""
    events = list(s)
    big = rows(events, [u.ts * c for u in events])
    assert agreed(drawn(scaled(e, c), big), big) == agreed(drawn(e, s), s)


@given(counted_expressions(), ROWS)
def test_a_prefix_holds_the_matches_ending_in_it(e, s):
    """For every ``k``: the matches of the first ``k`` events are those of the stream
    whose last position is below ``k``."""
    whole = agreed(drawn(e, s), s)
    for k in range(len(s) + 1):
        assert agreed(drawn(e, s), first.prefix(s, k)) == {m for m in whole if m.last < k}


@given(counted_expressions(), ROWS)
def test_the_parts_matched_alone_and_joined_are_the_streams_matches(e, s):
    """``e PARTITION BY [ID]`` on the stream: each part (:func:`part_of`) matched alone by
    ``e``'s body, its positions mapped back to the stream's, joined."""
    body = e.body if isinstance(e, Partition) else e
    parts: dict[object, list[Event]] = {}
    for u in s:
        parts.setdefault(part_of(u, ("ID",)), []).append(u)
    joined = {tuple(events[p].position for p in m.positions)
              for events in parts.values() for m in agreed(drawn(body, s), rows(events))}
    assert {m.positions for m in agreed(drawn(Partition(body, ("ID",)), s), s)} == joined


@st.composite
def tied(draw: st.DrawFn) -> tuple[list[tuple[int, str]], list[int]]:
    """Events (timestamp, type) of A, B, C with ties, and a reordering of each group of
    one timestamp: ``order[i]`` the old position of the new ``i``-th event."""
    kinds = draw(st.lists(st.sampled_from("ABC"), max_size=8))
    ts, out = 0, []
    for i, kind in enumerate(kinds):
        ts += draw(st.integers(0, 1)) if i else 0
        out.append((ts, kind))
    order: list[int] = []
    for t in sorted({t for t, _ in out}):
        order += draw(st.permutations([i for i, (u, _) in enumerate(out) if u == t]))
    return out, order


@given(tied(), st.integers(0, 3))
def test_reordering_a_tie_moves_the_matches_as_positions_move(events, tau):
    """Events of one timestamp reordered (σ: old position to new). ``(A OR B)+`` within
    τ takes any non-empty set of As and Bs whose span fits: the same sets, moved by σ.
    ``A ; B`` within τ takes each A with each later B that fits, by position: its
    matches on the reordered stream are those pairs there (worked out here from the
    definition), so a tie's A and B pair only where the A comes first."""
    rows_, order = events
    s = typed_stream(*[(kind, t, {}) for t, kind in rows_])
    moved = typed_stream(*[(rows_[i][1], rows_[i][0], {}) for i in order])
    sigma = {old: new for new, old in enumerate(order)}
    anyset = Query.parse(ceql("(A OR B)+", f"WITHIN {tau} [ts]"), language="ceql")
    assert {tuple(sorted(sigma[p] for p in m.positions)) for m in agreed(anyset, s)} == \
        {m.positions for m in agreed(anyset, moved)}
    pairs = Query.parse(ceql("A ; B", f"WITHIN {tau} [ts]"), language="ceql")
    new = [rows_[i] for i in order]
    assert {m.positions for m in agreed(pairs, moved)} == {
        (i, j) for i in range(len(new)) for j in range(i + 1, len(new))
        if new[i][1] == "A" and new[j][1] == "B" and new[j][0] - new[i][0] <= tau}


def test_a_tie_of_a_then_b_and_b_then_a_by_hand():
    """A and B both at 5: ``A ; B`` within 0 pairs them (span 0 ≤ 0) when A comes first,
    not when B does; under the strict reading (span < τ) not even then."""
    ab = typed_stream(("A", 5, {}), ("B", 5, {}))
    ba = typed_stream(("B", 5, {}), ("A", 5, {}))
    text = ceql("A ; B", "WITHIN 0 [ts]")
    assert [m.positions for m in agreed(Query.parse(text, language="ceql"), ab)] == [(0, 1)]
    assert agreed(Query.parse(text, language="ceql"), ba) == set()
    assert agreed(Query.parse(text, language="ceql", reading="strict"), ab) == set()


@pytest.mark.parametrize("tau", [1, 7, 2 ** 53 + 1])
def test_spans_equal_to_the_window_and_one_off(tau):
    """A at 0, then Bs at τ − 1, τ and τ + 1: ``A ; B`` within τ takes the spans τ − 1
    and τ (inclusive), τ − 1 alone under the strict reading (span < τ)."""
    s = typed_stream(("A", 0, {}), ("B", tau - 1, {}), ("B", tau, {}), ("B", tau + 1, {}))
    text = ceql("A ; B", f"WITHIN {tau} [ts]")
    inclusive = agreed(Query.parse(text, language="ceql"), s)
    assert sorted(m.positions for m in inclusive) == [(0, 1), (0, 2)]
    strict = agreed(Query.parse(text, language="ceql", reading="strict"), s)
    assert sorted(m.positions for m in strict) == [(0, 1)]


@pytest.mark.parametrize("n", [2, 7])
def test_positions_equal_to_a_count_window_and_one_off(n):
    """``A ; B WITHIN n EVENTS`` (the last position minus the first at most n) on A, then
    n − 2 Cs, then Bs at positions n − 1, n and n + 1: the first two."""
    s = typed_stream("A", *["C"] * (n - 2), "B", "B", "B")
    got = agreed(Query.parse(ceql("A ; B", f"WITHIN {n} EVENTS"), language="ceql"), s)
    assert sorted(m.positions for m in got) == [(0, n - 1), (0, n)]


def test_no_event_no_match():
    """An empty stream, as events or columns: no match, nothing read; ``--first 1``
    reads no event."""
    query = Query.parse(ceql("A ; B", "WITHIN 3 [ts]"), language="ceql")
    empty = Stream.from_rows([])
    assert agreed(query, empty) == set() and list(tecs.matches(query, columnar(empty))) == []
    got = first.first_matches(query, empty, 1)
    assert got.matches == () and got.events == 0 and got.backend == tecs.NAME


def test_nan_in_a_compared_field_is_unknown(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    """V = 2, NaN, 3, 1: NaN is a missing value (reference/events.py), so ``V > 2`` and
    ``NOT V > 2`` are both unknown on it (SQL's three-valued logic) and it is marked by
    neither: ``mark {~.V > 2}`` gives {2}, ``mark {NOT ~.V > 2}`` {0} and {3}; the same
    from a CSV file through ``kleene match``, as ``--engine srt`` prints."""
    s = Stream.from_rows([{"ts": i, "V": v} for i, v in enumerate([2, math.nan, 3, 1])])
    for text, expected in (("mark {~.V > 2}", [(2,)]), ("mark {NOT ~.V > 2}", [(0,), (3,)])):
        query = Query.parse(text, language="sremo")
        assert sorted(m.positions for m in agreed(query, s)) == expected
        assert sorted(m.positions for m in tecs.matches(query, columnar(s))) == expected
    events = tmp_path / "e.csv"
    events.write_text("ts,V\n0,2\n1,NaN\n2,3\n3,1\n", encoding="utf-8")
    outs = []
    for more in ((), ("--engine", "srt")):
        code, out, _ = run_cli(capsys, "match", "--pattern", "mark {NOT ~.V > 2}",
                               "--language", "sremo", "--events", str(events), *more)
        assert code == 0
        outs.append(out)
    assert outs[0] == outs[1] == '{"marked": [0]}\n{"marked": [3]}\n'


def test_past_the_cap_srt_lists_the_rest(monkeypatch: pytest.MonkeyPatch):
    """A cap of 4 determinized states: ``A ; (B OR E)`` on A B E B E meets E, and a fifth
    state, at event 2, after listing {0, 1}; engine srt lists those ending at 2 and after,
    {0, 2}, {0, 3}, {0, 4} (by hand: the A with any one later B or E), said once. Events
    that cannot be read again (a generator) are refused in one line instead."""
    monkeypatch.setattr(sremo, "MAX_STATES", 4)
    query = Query.parse(ceql("A ; (B OR E)"), language="ceql")
    s = typed_stream("A", "B", "E", "B", "E")
    said: list[tuple[str, int]] = []
    got: list[Match] = []
    for m in tecs.matches(query, s, say=lambda line: said.append((line, len(got)))):
        got.append(m)
    assert sorted(m.positions for m in got) == [(0, 1), (0, 2), (0, 3), (0, 4)]
    assert len(got) == 4 and said == [(tecs.gave_way(2), 1)]
    assert "4 states at event 2" in said[0][0]
    with pytest.raises(sremo.TooManyStates) as refused:
        list(tecs.matches(query, iter(s), say=lambda line: pytest.fail(line)))
    assert "\n" not in str(refused.value)


def test_kleene_match_past_the_cap_says_so_once(monkeypatch: pytest.MonkeyPatch,
                                                tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]):
    """The same through ``kleene match``, whole and ``--first 2``: the four matches (the
    first two by last event: {0, 1}, {0, 2}), exit 0, and stderr says once that srt
    lists them from event 2."""
    monkeypatch.setattr(sremo, "MAX_STATES", 4)
    events = tmp_path / "e.csv"
    events.write_text("ts,type\n0,A\n1,B\n2,E\n3,B\n4,E\n", encoding="utf-8")
    pattern = ceql("A ; (B OR E)")
    code, out, err = run_cli(capsys, "match", "--pattern", pattern, "--events", str(events))
    assert code == 0 and out.splitlines() == [
        '{"marked": [0, 1]}', '{"marked": [0, 2]}', '{"marked": [0, 3]}', '{"marked": [0, 4]}']
    assert err.count("passed 4 states at event 2") == 1 and "Traceback" not in err
    code, out, err = run_cli(capsys, "match", "--pattern", pattern, "--events", str(events),
                             "--first", "2")
    assert code == 0 and out.splitlines() == ['{"marked": [0, 1]}', '{"marked": [0, 2]}']
    assert err.count("passed 4 states at event 2") == 1


def test_kleene_match_past_int64_timestamps(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    """A at 2^63 + 1, Bs at 2^63 + 2 and 2^63 + 4, ``A ; B`` within 2: from JSON Lines
    (Python integers, exact) the structure lists {0, 1} only, as at 1, 2, 4 (by hand:
    spans 1 and 3); from CSV (int64 columns) the file is refused in one line naming the
    row and the field."""
    big = 2 ** 63
    lines = "".join(f'{{"ts": {big + t}, "type": "{k}"}}\n' for t, k in ((1, "A"), (2, "B"),
                                                                          (4, "B")))
    (tmp_path / "e.jsonl").write_text(lines, encoding="utf-8")
    (tmp_path / "e.csv").write_text(f"ts,type\n{big + 1},A\n{big + 2},B\n{big + 4},B\n",
                                    encoding="utf-8")
    pattern = ceql("A ; B", "WITHIN 2 [ts]")
    code, out, _ = run_cli(capsys, "match", "--pattern", pattern, "--events",
                           str(tmp_path / "e.jsonl"))
    assert code == 0 and out == '{"marked": [0, 1]}\n'
    code, out, err = run_cli(capsys, "match", "--pattern", pattern, "--events",
                             str(tmp_path / "e.csv"))
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "row 0, field 'ts'" in err and "64-bit" in err
