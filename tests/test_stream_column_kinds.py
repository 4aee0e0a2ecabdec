"""``kleene match --stream`` when a column changes kind between batches (the columnar
chain of engines/nfa/pieces.py): where the whole file's typing of the union of the
cells is known (integers beside decimals: floats; numbers or strings beside mixed
text cells: text), the batches are retyped so and the matches are the whole file's;
otherwise one line naming the file, the row and the field, never a traceback.

The file is stock lines read in blocks of 4 MiB (:data:`kleene.data.batches._BLOCK`,
Arrow's streaming CSV reader: a block holds the lines wholly inside it); ``volume``
is a number in every line of the first block; the chain reads ``volume`` in a
joint condition, so it meets the second block's kind there (its first row counted
by hand from the line lengths below).
"""

from __future__ import annotations

import pytest

from kleene.cli import main
from kleene.data.batches import _BLOCK

PATTERN = "PATTERN SEQ(BUY a, SELL b) WHERE a.volume = b.volume WITHIN 100"


def _line(i: int, switch: int = 65_000, later: str = "lots") -> str:
    kind = "BUY" if i % 2 == 0 else "SELL"
    volume = "1000" if i < switch else later
    return f"{kind}(id={i:06d},name=INTC,volume={volume},price=27.85,stock_time={i * 10:08d})\n"


def _second_block(lines: list[str]) -> int:
    """The first row of the second block (every line of the files below has the
    length of ``_line(i)``'s)."""
    end, second = 0, 0
    while end + len(lines[second]) <= _BLOCK:
        end += len(lines[second])
        second += 1
    return second


@pytest.mark.parametrize("engine", ["nfa-chain", "nfa-multichain"])
def test_a_column_changing_kind_between_batches_is_one_line(tmp_path, capsys, engine):
    # numbers only in the first block, strings only ("lots") from the second block's
    # first row: neither block says how the whole file types the union
    second = _second_block([_line(i) for i in range(70_000)])
    assert 0 < second < 65_000          # the first block holds numbers only
    lines = [_line(i, switch=second) for i in range(70_000)]
    events = tmp_path / "e.stream"
    events.write_text("".join(lines), encoding="ascii")
    (tmp_path / "q.op").write_text(PATTERN, encoding="utf-8")
    code = main(["match", "--pattern", str(tmp_path / "q.op"), "--events", str(events),
                 "--stream", "--count", "--engine", engine])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err, err
    assert err.strip() == (
        f"kleene match: {events}: row {second}, field 'volume': column 'volume' changes "
        "kind between batches (int before this row, str in the batch from it); load the "
        "stream whole (without --stream)")


def test_the_same_file_read_whole_has_its_matches(tmp_path, capsys):
    # Without --stream the column is one (text) column: by hand, each BUY a at row 2k
    # (k < 32,500) meets the SELL at 2k + 1, 10 ms later, with the same volume "1000";
    # the "lots" rows from 65,000 pair up likewise (2,500 pairs); WITHIN 100 ms lets a
    # BUY reach the SELLs up to 100 ms later too, so count with the reference's rule:
    # a at 2k, b at 2j + 1 with 2j + 1 > 2k, 10·(2j + 1 − 2k) ≤ 100, same volume.
    lines = [_line(i) for i in range(70_000)]
    events = tmp_path / "e.stream"
    events.write_text("".join(lines), encoding="ascii")
    (tmp_path / "q.op").write_text(PATTERN, encoding="utf-8")
    expected = sum(1 for a in range(0, 70_000, 2) for b in range(a + 1, min(a + 11, 70_000), 2)
                   if (a < 65_000) == (b < 65_000))
    assert _second_block(lines) < 65_000    # the second block mixes "1000" and "lots"
    for extra in ([], ["--stream"]):         # read whole: one text column; in batches too
        code = main(["match", "--pattern", str(tmp_path / "q.op"), "--events", str(events),
                     "--count", "--engine", "nfa-chain", *extra])
        out = capsys.readouterr().out
        assert code == 0 and int(out.strip()) == expected, extra


def test_integers_then_decimals_meet_as_floats_as_in_the_whole_file(tmp_path, capsys):
    # volume "1000" in the first block, "1000.5" in the second: read whole, the cells are
    # 1000 and 1000.5; in batches, the integer batch is widened to floats, so the count
    # is the whole file's: the pairs of the rule above within each region (by hand).
    switch = _second_block([_line(i) for i in range(70_000)])
    lines = [_line(i, switch=switch, later="1000.5") for i in range(70_000)]
    events = tmp_path / "e.stream"
    events.write_text("".join(lines), encoding="ascii")
    (tmp_path / "q.op").write_text(PATTERN, encoding="utf-8")
    expected = sum(1 for a in range(0, 70_000, 2) for b in range(a + 1, min(a + 11, 70_000), 2)
                   if (a < switch) == (b < switch))
    for extra in ([], ["--stream"]):
        code = main(["match", "--pattern", str(tmp_path / "q.op"), "--events", str(events),
                     "--count", "--engine", "nfa-chain", *extra])
        out = capsys.readouterr().out
        assert code == 0 and int(out.strip()) == expected, extra
