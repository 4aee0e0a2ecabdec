"""``kleene prove --time-unit``: a window with a unit read in the timestamps' unit
(issue 15 follow-ups), and durations printed in words (reference/durations.py)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from kleene.cli import main
from kleene.proofs.nfa.classes import schema_of
from kleene.proofs.nfa.equivalence import equivalence
from kleene.proofs.results import Proved
from kleene.proofs.schema import in_timestamp_units, timestamp_unit
from kleene.proofs.srt.clocks import in_units
from kleene.reference.durations import Duration
from kleene.reference.languages import language_named
from kleene.reference.sremo.expressions import Window, walk

#: The seed 003 tutorial's first pattern (docs/tutorial-seed-003.md), as written.
TUTORIAL = "PATTERN SEQ(A a, B b, C c) WITHIN 1 hour\n"
TIMED = ("(mark {~.type = 'B'} -> r1 ; {TRUE}* ; mark {~.type = 'S' AND ~.id = r1.id})"
         "[WITHIN 1 hour]\n")


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_duration_is_printed_in_words_singular_for_one() -> None:
    assert [str(Duration(1, "h")), str(Duration(2, "hours")), str(Duration(1, "min")),
            str(Duration(30, "s")), str(Duration(1, "ms")), str(Duration(5)),
            str(Duration(1, "days"))] == ["1 hour", "2 hours", "1 minute", "30 seconds",
                                          "1 ms", "5", "1 day"]


def test_the_timestamp_unit_is_given_else_the_windows_finest() -> None:
    assert timestamp_unit([Duration(1, "hour"), Duration(5, "min")]) == "min"
    assert timestamp_unit([Duration(1, "hour")], "seconds") == "s"
    assert timestamp_unit([Duration(10)]) is None
    assert in_timestamp_units(Duration(1, "h"), "s") == Duration(3600)
    assert in_timestamp_units(Duration(7), None) == Duration(7)


def test_every_time_window_of_a_sremo_is_rewritten_in_timestamp_units() -> None:
    e = language_named("sremo").parse("(mark {~.type = 'B'})[WITHIN 2 min] ; "
                                      "(mark {~.type = 'S'})[WITHIN 1 hour]", "<t>")
    widths = [x.width for x in walk(in_units(e)) if isinstance(x, Window)]
    assert widths == [Duration(2), Duration(60)]   # the finest unit: minutes


def test_a_sremo_time_window_with_a_unit_is_proved_in_the_given_unit(tmp_path: Path,
                                                                     capsys) -> None:
    (tmp_path / "t.sremo").write_text(TIMED)
    code, out, err = run(capsys, "prove", str(tmp_path / "t.sremo"), "--time-unit", "s",
                         "--check", "window")
    assert (code, err) == (0, "")
    assert "ts: int" in out and "ts in s" in out
    assert "ok       the SRT's clocks accept exactly the strings of Lang(body) whose marks " \
           "span at most τ = 3600, for streams of at most 4 events" in out


def test_without_time_unit_the_window_own_unit_is_read_with_real_timestamps(
        tmp_path: Path, capsys) -> None:
    (tmp_path / "t.sremo").write_text(TIMED)
    code, out, _ = run(capsys, "prove", str(tmp_path / "t.sremo"), "--check", "window")
    assert code == 0 and "ts: real" in out and "ts in h" in out and "τ = 1," in out


def test_an_unknown_time_unit_is_one_line(tmp_path: Path, capsys) -> None:
    (tmp_path / "t.sremo").write_text(TIMED)
    code, _, err = run(capsys, "prove", str(tmp_path / "t.sremo"), "--time-unit", "parsec")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "--time-unit" in err


def test_the_tutorial_pattern_as_written_has_matches(tmp_path: Path, capsys) -> None:
    """Three strictly increasing timestamps fit in one hour of real timestamps."""
    (tmp_path / "seq.op").write_text(TUTORIAL)
    code, out, _ = run(capsys, "prove", str(tmp_path / "seq.op"), "--check", "branches")
    assert code == 0 and "ok       SEQ(A a, B b, C c) has matches" in out


def test_a_window_too_short_for_strictly_increasing_integers_says_why(tmp_path: Path,
                                                                      capsys) -> None:
    """SEQ binds strictly increasing timestamps (seed 003): 0 < 1 < 2 spans 2 > 1."""
    (tmp_path / "seq.op").write_text("PATTERN SEQ(A a, B b, C c) WITHIN 1\n")
    code, out, _ = run(capsys, "prove", str(tmp_path / "seq.op"), "--check", "branches")
    assert code == 1
    assert ("problem  SEQ(A a, B b, C c) has no match on any stream (a dead branch): its "
            "events, ordered by ts, cannot fit in the window 1 with ts: int") in out


def test_the_tutorial_pattern_is_equivalent_in_every_nfa_for_three_events() -> None:
    """``kleene prove`` decides 3 events of the tutorial pattern within its 30 s (5 events
    are 110,808 classes, docs/proofs.md); the same claim, directly, at bound 3."""
    p = language_named("operator").parse(TUTORIAL, "<t>")
    p = replace(p, window=in_timestamp_units(p.window, timestamp_unit([p.window])))
    found = equivalence(p, bound=3, schema=schema_of(p, declared={"ts": "real"}))
    assert set(found) == {"nfa-eager", "nfa-chain", "nfa-chain-fc", "nfa-multichain",
                          "nfa-tree"}
    assert all(isinstance(r, Proved) and r.bound == 3 for r in found.values()), found
