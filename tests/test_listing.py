"""``kleene match``'s matches listed in canonical order in bounded memory (issue 33, item 5;
kleene.cli.listing): runs sorted and spilled, merged a few rows at a time.

Expected values: :func:`kleene.cli.common.canonical_order` of the set of matches (the
order ``kleene match`` printed from a set) and :meth:`Match.dumps`, or the lines by hand.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kleene.cli import listing, main
from kleene.cli.common import canonical_order
from kleene.engines.match_columns import MatchColumns
from kleene.reference.match import MARKED, Match


@st.composite
def matches(draw: st.DrawFn) -> list[Match]:
    """Matches binding a few variables to short ascending runs of positions, some
    drawn twice (an engine that reports a match twice must be printed once)."""
    out = []
    for _ in range(draw(st.integers(0, 40), label="matches")):
        names = draw(st.sets(st.sampled_from("abc"), min_size=1), label="variables")
        out.append(Match.of({v: sorted(draw(st.sets(st.integers(0, 12), min_size=1,
                                                     max_size=3), label=v))
                             for v in names}))
    if out:
        out += draw(st.lists(st.sampled_from(out), max_size=5), label="again")
    return out


def chunks(found: list[Match], size: int) -> list[MatchColumns]:
    return [g for i in range(0, len(found), size) for g in MatchColumns.of(found[i:i + size])]


@settings(max_examples=100, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(found=matches(), size=st.integers(1, 7), run=st.integers(1, 9),
       batch=st.integers(1, 4))
def test_runs_merged_are_the_canonical_order(tmp_path_factory, monkeypatch, found, size,
                                             run, batch):
    monkeypatch.setattr(listing, "BATCH", batch)
    folder = tmp_path_factory.mktemp("runs")
    got = [t for texts in listing.sorted_texts(chunks(found, size), folder, run=run)
           for t in texts.to_pylist()]
    assert got == [m.dumps() for m in canonical_order(set(found))]


def test_a_tie_on_the_first_position_is_ordered_by_the_text_across_runs(tmp_path):
    found = [Match.of({"a": [0], "b": [5]}), Match.of({"a": [0], "b": [2]}),
             Match.of({"a": [1], "b": [2]}), Match.of({"a": [0], "b": [3]})]
    got = [t for texts in listing.sorted_texts(chunks(found, 1), tmp_path, run=1)
           for t in texts.to_pylist()]
    assert got == ['{"a": [0], "b": [2]}', '{"a": [0], "b": [3]}', '{"a": [0], "b": [5]}',
                   '{"a": [1], "b": [2]}']


def test_marked_positions_are_printed_under_their_name():
    g = MatchColumns.of([Match.of({MARKED: [3, 4]})])[0]
    assert listing.readable_columns(g).texts() == ['{"marked": [3, 4]}']


def test_kleene_match_lists_through_spilled_runs(tmp_path, monkeypatch, capsys):
    events = tmp_path / "e.csv"
    events.write_text("ts,type\n" + "".join(f"{i // 2},{'AB'[i % 2]}\n" for i in range(30)))
    (tmp_path / "q.ses").write_text("PATTERN <{a}, {b}> WHERE a.type = 'A' AND "
                                    "b.type = 'B' WITHIN 2\n")
    argv = ["match", "--pattern", str(tmp_path / "q.ses"), "--events", str(events), "-q"]
    assert main(argv) == 0
    whole = capsys.readouterr().out
    monkeypatch.setattr(listing, "RUN", 4)
    monkeypatch.setattr(listing, "BATCH", 3)
    assert main(argv) == 0
    spilled = capsys.readouterr().out
    # A at 2k (ts k), B at 2k+1 (ts k): each A pairs with the Bs of ts k+1 and k+2
    # (a set after another is strictly later), ordered by a, then as text ("[11]" < "[9]")
    expected = sorted((a, f'{{"a": [{a}], "b": [{b}]}}') for a in range(0, 30, 2)
                      for b in range(a + 1, 30, 2) if 1 <= (b - 1) // 2 - a // 2 <= 2)
    assert spilled == whole == "".join(line + "\n" for _, line in expected)
    # --count that lists (an engine named): counted through the same runs
    assert main([*argv, "--count", "--engine", "windows+ses"]) == 0
    assert capsys.readouterr().out == f"{len(expected)}\n"


def test_an_exhausted_budget_prints_no_match(tmp_path, capsys):
    events = tmp_path / "e.csv"
    events.write_text("ts,type\n" + "".join(f"{i},{'AB'[i % 2]}\n" for i in range(30)))
    (tmp_path / "q.ses").write_text("PATTERN <{a}, {b}> WHERE a.type = 'A' AND "
                                    "b.type = 'B' WITHIN 100\n")
    code = main(["match", "--pattern", str(tmp_path / "q.ses"), "--events", str(events),
                 "-q", "--budget", "10"])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert "budget" in err


@pytest.mark.parametrize("batch", [1, 2])
def test_duplicates_across_merged_pieces_are_printed_once(tmp_path, monkeypatch, batch):
    monkeypatch.setattr(listing, "BATCH", batch)
    m = Match.of({"a": [1]})
    found = chunks([m, Match.of({"a": [2]}), m, m], 1)
    got = [t for texts in listing.sorted_texts(found, tmp_path, run=1) for t in texts.to_pylist()]
    assert got == ['{"a": [1]}', '{"a": [2]}']


def test_the_engine_is_handed_batches_of_engine_rows_at_most(tmp_path):
    from kleene.cli.progress import Reading
    from kleene.data.loaders import load_events

    events = tmp_path / "e.csv"
    events.write_text("ts,type\n" + "".join(f"{i},A\n" for i in range(10)))
    stream = load_events(events)
    got = list(Reading(stream, "x", rows=4).batches() or [])
    assert [(offset, len(part)) for offset, part in got] == [(0, 4), (4, 4), (8, 2)]
    assert [t for _, part in got for t in part.ts.to_pylist()] == list(range(10))
