"""The Spark writers never overwrite what they read, and the engine line of ``kleene match
--spark`` comes after every check (issue 27, items 1 and 3). Expected lines by hand from
docs/architecture.md, "Bad input" and "Spark"."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kleene.data.outputs import OutputError
from kleene.engines.spark.runner import collect_matches, match_file, write_matches
from tests.helpers import after_spark_start, run_cli

PATTERN = "PATTERN SEQ(A a, B b) WITHIN 10\n"
EVENTS = "ts,type\n0,A\n1,B\n"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    data.mkdir()
    (data / "e.csv").write_text(EVENTS)
    return data


@pytest.mark.slow
@pytest.mark.parametrize("how", ["the file", "a hard link to it", "a symlink to it",
                                 "its folder", "a symlink to its folder"])
@pytest.mark.parametrize("mode", ["overwrite", "errorifexists", "append"])
def test_write_matches_never_writes_over_what_it_reads(spark, folder, how, mode):
    events = folder / "e.csv"
    matches = match_file(spark, str(events), PATTERN, engine="nfa-eager")
    target = {"the file": events, "a hard link to it": folder.parent / "hard.csv",
              "a symlink to it": folder.parent / "link.csv",
              "its folder": folder, "a symlink to its folder": folder.parent / "alias"}[how]
    if how == "a hard link to it":
        os.link(events, target)
    elif how == "a symlink to it":
        target.symlink_to(events)
    elif how == "a symlink to its folder":
        target.symlink_to(folder, target_is_directory=True)
    with pytest.raises(OutputError) as raised:
        write_matches(matches, str(target), mode=mode)
    assert str(raised.value).startswith(f"the output {target} ")
    assert str(raised.value).endswith("; choose another path")
    assert events.read_text() == EVENTS and os.listdir(folder) == ["e.csv"]


@pytest.mark.slow
def test_write_matches_replaces_a_previous_output_whole(spark, folder, tmp_path):
    matches = match_file(spark, str(folder / "e.csv"), PATTERN, engine="nfa-eager")
    out = tmp_path / "m.jsonl"
    out.mkdir()
    (out / "stale.json").write_text("{}\n")
    write_matches(matches, str(out), mode="overwrite")
    assert not (out / "stale.json").exists()
    back = spark.read.json(str(out))
    assert sorted(collect_matches(back)) == sorted(collect_matches(matches))
    assert [n for n in os.listdir(tmp_path) if n.startswith(".")] == []


@pytest.mark.slow
def test_the_engine_line_on_spark_comes_after_the_events_are_checked(spark, capsys, folder):
    (folder / "p.op").write_text("PATTERN SEQ(A a, B b) WHERE a.price > 1 WITHIN 10\n")
    code, out, err = run_cli(capsys, "match", "--pattern", str(folder / "p.op"), "--events",
                             str(folder / "e.csv"), "--spark")
    said = after_spark_start(err)
    # no engine line before; the pattern error's three lines: where, the line, the caret
    # under a.price (column 29, counted by hand), as single-process says it
    assert code == 2 and out == "" and len(said) == 3, err
    assert said[0] == (f"kleene match: {folder / 'p.op'}:1:29: the events of "
                       f"{folder / 'e.csv'} have no attribute 'price' (a.price); the "
                       "columns present: ts, type"), err
    assert said[2] == " " * 30 + "^"
