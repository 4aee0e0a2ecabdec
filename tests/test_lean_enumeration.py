"""The enumeration path in memory bounded by a window and a batch, not by the match count
(issue 33, item 5): the match windows yield each window's matches as A returns them, and
``kleene match --output`` sorts its matches in spilled runs and writes its rows a batch at
a time.

Expected values: the windows' matches are the reference's (the oracle), and the rows
written in many batches are those written in one (whose bytes tests/test_result_rows.py
checks against files computed by hand).
"""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest

from kleene.cli import listing, main
from kleene.engines.protocol import Counters
from kleene.engines.registry import engine
from kleene.reference.events import Stream
from kleene.reference.query import Query

PAIRS = "PATTERN <{a}, {b}>\nWHERE a.L = 'A' AND b.L = 'B'\nWITHIN 1\n"


def test_the_windows_yield_a_windows_matches_before_reading_on():
    """400 events A B A B ... one apart, in one batch of the framework: a match per A
    (with the next B). The first match comes out after A has been called on its window
    alone; the framework used to call A on every window of the batch first."""
    events = Stream.from_rows([{"ts": i, "L": "AB"[i % 2]} for i in range(400)])
    query = Query.parse(PAIRS, policy="any")
    counters = Counters()
    found = iter(engine("windows+ses").compile(query).run(list(events), counters=counters))
    first = next(found)
    assert (first["a"], first["b"]) == ((0,), (1,))
    assert counters.calls_to_a <= 2
    rest = set(found)
    assert rest | {first} == query.reference(events)
    assert counters.calls_to_a >= 200


#: Group variables under ``any``: b+ binds one B or several, so a batch of matches can
#: hold only matches that bind b to one event, while the wide column must be a list in
#: every row of the file.
GROUPS = "PATTERN <{a}, {b+}, {c}>\nWHERE a.L = 'A' AND b.L = 'B' AND c.L = 'C'\nWITHIN 10\n"
EVENTS = ("ts,L,name,price\n0,A,a0,1.5\n1,B,b1,2\n2,B,b2,3\n3,C,c3,4\n4,A,a4,5\n"
          "5,B,b5,6\n6,C,c6,7\n7,B,b7,8\n8,C,c8,9\n")
#: By hand: a = 0 with c = 3, 6, 8 has 2, 3, 4 B's between (3 + 7 + 15 subsets), a = 4
#: with c = 6, 8 has 1, 2 (1 + 3): 29 matches.
OUTPUTS = {"long": ["--columns", "name,price"],
           "wide": ["--layout", "wide", "--columns", "b.name,c.price"],
           "bare": ["--layout", "wide"]}


def _written(folder: Path, name: str, fmt: str, capsys: pytest.CaptureFixture[str]
             ) -> tuple[Path, str]:
    out = folder / f"{name}.{fmt}"
    assert main(["match", "-q", "--pattern", str(folder / "g.ses"), "--events",
                 str(folder / "g.csv"), "--output", str(out), "--overwrite",
                 *OUTPUTS[name]]) == 0
    return out, capsys.readouterr().err


@pytest.mark.parametrize("name", sorted(OUTPUTS))
def test_rows_written_in_many_batches_are_those_written_in_one(tmp_path, monkeypatch,
                                                               capsys, name):
    (tmp_path / "g.ses").write_text(GROUPS)
    (tmp_path / "g.csv").write_text(EVENTS)
    for fmt in ("jsonl", "csv", "parquet"):
        one, said = _written(tmp_path, name, fmt, capsys)
        whole = one.read_bytes()
        with monkeypatch.context() as m:
            m.setattr(listing, "RUN", 2)        # runs of 2 matches spilled, then merged
            m.setattr(listing, "BATCH", 1)      # and written a match at a time
            many, said_many = _written(tmp_path, name, fmt, capsys)
        assert said_many == said and "wrote 29 matches" in said
        if fmt == "parquet":
            a, b = pq.read_table(one), pq.read_table(many)
            assert b.schema == a.schema and b.to_pylist() == a.to_pylist()
            assert pq.ParquetFile(many).num_row_groups > 1
        else:
            assert many.read_bytes() == whole
