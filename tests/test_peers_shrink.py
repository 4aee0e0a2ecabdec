"""``make peers``' shrinking of a disagreement (conformance/adapters/mr_shrink.py): rows
dropped by halves first (ddmin), down to a table no one row of which can go."""

from __future__ import annotations

import pyarrow as pa

from kleene.conformance.adapters import mr_generated, mr_shrink, mr_suite
from kleene.conformance.adapters.mr_generated import Drawn, judge
from kleene.reference.match_recognize.ast import MatchRecognize
from kleene.reference.match_recognize.parser import parse_statement

CLAUSE: MatchRecognize = parse_statement(
    "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY T MEASURES A.X AS M PATTERN (A) "
    "DEFINE A AS A.X >= 0)").recognitions[0].clause


class Picky:
    """Kleene's engine, except that a table holding both X = 7 and X = 9 is answered
    with no row (a peer's bug that needs two rows to show); every table asked is counted."""

    def __init__(self) -> None:
        self.inner = mr_suite.kleene_recognizer()
        self.asked = 0

    def recognize_arrow(self, clause: MatchRecognize, table: pa.Table) -> pa.Table:
        self.asked += 1
        got = self.inner.recognize_arrow(clause, table)
        xs = table.column("X").to_pylist()
        return got.slice(0, 0) if 7 in xs and 9 in xs else got


def drawn(xs: list[int]) -> Drawn:
    table = pa.table({"X": pa.array(xs, pa.int64()), "T": pa.array(range(len(xs)), pa.int64())})
    expected = mr_generated.expected_of(CLAUSE, table)
    assert expected is not None and not isinstance(expected, str)
    return Drawn(CLAUSE, table, expected, ())


def test_a_disagreement_shrinks_to_the_two_rows_it_needs_by_halves() -> None:
    peer = Picky()
    failed = judge(peer, drawn(list(range(40))))   # 40 matches, one row each: none answered
    assert failed.status == "failed" and "rows missing" in failed.reason
    rounds: list[str] = []
    (small,) = mr_shrink.shrink(peer, [failed], say=rounds.append)
    assert small.drawn.table.column("X").to_pylist() == [7, 9]   # by hand: both are needed
    assert small.status == "failed" and small.reason == "2 rows missing"
    # halves first: 40 → 20 → 10 → 5 → 3 → 2 rows, then each row tried: 7 rounds of at
    # most 3 candidates, where dropping one row a round took 38 rounds of up to 40
    assert len(rounds) == 7 and peer.asked <= 1 + 7 * 3


def test_a_table_whose_every_row_is_needed_is_left_whole() -> None:
    peer = Picky()
    failed = judge(peer, drawn([9, 7]))
    (same,) = mr_shrink.shrink(peer, [failed])
    assert same is failed


def test_the_parts_of_a_table_cover_it_in_runs_of_consecutive_rows() -> None:
    assert mr_shrink.parts(5, 2) == [(0, 2), (2, 5)]
    assert mr_shrink.parts(3, 3) == [(0, 1), (1, 2), (2, 3)]
    assert mr_shrink.parts(1, 1) == [(0, 1)]
