"""``python -m bench writers`` (issue 33, item 1): one row per format and layout, each
beside the engine's rate, over the same matches: seq3 binds three single events, so a
match is three long rows and one wide row."""

from __future__ import annotations

from bench import writers


def test_every_format_and_layout_is_measured_on_the_same_matches(capsys, tmp_path,
                                                                  monkeypatch):
    monkeypatch.chdir(tmp_path)
    table = writers.run(quick=True, repeats=1)
    assert [(r[0], r[1]) for r in table.rows] == [
        (f, layout) for f in ("jsonl", "csv", "parquet") for layout in ("long", "wide")]
    matches = {r[2] for r in table.rows}
    assert len(matches) == 1
    n = matches.pop()
    assert isinstance(n, int) and n > 0
    for row in table.rows:
        assert row[3] == n * (3 if row[1] == "long" else 1)
    assert "load average" in table.header[0]
    assert (tmp_path / "out" / "bench" / "writers.csv").exists()
