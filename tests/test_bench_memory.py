"""``python -m bench memory`` (issue 33, items 3 and 5): a row per path, each a fresh
``kleene match`` measured from outside; the paths find the same matches."""

from __future__ import annotations

import pytest

from bench import memory


@pytest.mark.slow
def test_every_path_lists_the_same_matches_and_is_measured(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    table = memory.run(quick=True)
    rows = [dict(zip(table.columns, r, strict=True)) for r in table.rows]
    assert [r["path"] for r in rows] == ["default", "loaded whole", "--stream", "default",
                                        memory.OUTPUT]
    assert len({r["matches"] for r in rows[:3]}) == 1
    assert rows[4]["matches"] == rows[3]["matches"]     # written as listed
    assert all(isinstance(r["matches"], int) and r["matches"] > 0 for r in rows)
    assert all(isinstance(r["peak MB"], float) and r["peak MB"] > 20   # Python, pyarrow
               for r in rows)
    assert "load average" in table.header[0]
    assert (tmp_path / "out" / "bench" / "memory.csv").exists()
