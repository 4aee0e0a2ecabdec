"""``python -m bench seed003`` runs and its tables are well formed, on tiny inputs
(no wall time or speed-up is asserted: those are measured, not tested)."""

from __future__ import annotations

from bench import seed003
from bench.__main__ import BENCHMARKS


def test_registered() -> None:
    assert BENCHMARKS["seed003"] is seed003.run


def test_skewed_table_agrees() -> None:
    table = seed003.skewed(seed003.Settings(events=400, ratios=(3, 30), window=10,
                                            stock_limit=None))
    assert len(table.rows) == 2 * len(seed003.SKEWED)
    assert all(row[-1] == "yes" for row in table.rows)
    assert all(len(row) == len(table.columns) for row in table.rows)


def test_skewed_stream_is_skewed() -> None:
    s = seed003.skewed_stream(3000, 100)
    counts = {t: sum(e.type == t for e in s) for t in "ABC"}
    assert counts["A"] > 5 * counts["B"] > 5 * counts["C"] > 0


def test_group_by_table_agrees() -> None:
    table = seed003.grouped(seed003.Settings(events=300, ratios=(3,), window=10,
                                             stock_limit=None))
    assert [row[-1] for row in table.rows] == ["yes"]
    assert all(len(row) == len(table.columns) for row in table.rows)


def test_drift_stream_rotates_the_rarest_type() -> None:
    from bench.seed003_drift import drifting_stream

    s = drifting_stream(3, 2000)
    for k, rare in enumerate("ABC"):
        part = s.events[k * 2000:(k + 1) * 2000]
        counts = {t: sum(e.type == t for e in part) for t in "ABC"}
        assert min(counts, key=lambda t: counts[t]) == rare


def test_drift_table_agrees() -> None:
    from bench.seed003_drift import drift_table

    table = drift_table(segments=3, segment=300, window=10)
    assert "the same for every NFA: yes" in table.header[0]
    assert [row[1] for row in table.rows] == ["A", "B", "C"]
    assert all(len(row) == len(table.columns) for row in table.rows)


def test_stock_reference_in_pieces_is_the_reference() -> None:
    """The bench's piecewise reference (cut at gaps longer than τ between events some
    primitive accepts) gives the reference's matches on a small stream."""
    from bench.seed003_stock import reference_matches
    from kleene.reference.events import Stream
    from kleene.reference.operators.policies import matches
    from kleene.reference.operators.text import parse_operator

    rows = [("SELL", "INTC", 10), ("BUY", "RIMM", 1), ("BUY", "IPIX", 5), ("BUY", "QQQ", 12),
            ("BUY", "RIMM", 3), ("BUY", "QQQ", 9), ("SELL", "INTC", 8), ("BUY", "RIMM", 1),
            ("BUY", "QQQ", 11)]
    ts = [0, 100, 150, 300, 900, 1000, 2000, 2100, 2400]
    s = Stream.from_rows(({"ts": t, "type": k, "name": n, "price": p}
                          for t, (k, n, p) in zip(ts, rows, strict=True)), time_unit="ms")
    text = ("PATTERN SEQ(SELL x, BUY{1,3} r[], BUY q) WHERE x.name = 'INTC' AND "
            "r[i].name = 'RIMM' AND q.name = 'QQQ' AND q.price > x.price WITHIN 500 ms")
    pattern = parse_operator(text)
    whole = matches(pattern, s, "any")
    assert reference_matches(pattern, s) == whole
    assert len(whole) == 2  # x0 r1 q3 and x6 r7 q8 (hand-computed)


def test_figure_tables_agree_in_quick_mode() -> None:
    """Figs. 10–17 (bench/seed003_figs.py, the quick sizes): one table per family, every
    lazy engine's matches equal the eager NFA's, one summary row per family."""
    from bench import seed003_figs

    tables = seed003_figs.tables(quick=True)
    names = [name for _, name in tables]
    assert names == ["seed003-figseq", "seed003-figand", "seed003-figandeq", "seed003-fignot",
                     "seed003-figiter", "seed003-figor", "seed003-fig17", "seed003-figs"]
    for table, _ in tables[:-1]:
        assert table.rows and all(row[-1] == "yes" for row in table.rows), table.title
        assert all(len(row) == len(table.columns) for row in table.rows)
    lazies = [row[2] for row in tables[3][0].rows]
    assert lazies.count("chain") == lazies.count("chain-fc") == 3  # both negation methods
    assert len(tables[-1][0].rows) == len(seed003_figs.FAMILIES)


def test_figure_stream_has_the_asked_skew() -> None:
    from bench.seed003_figs import stream_for, types_of

    assert types_of("SEQ(A a, NOT(B n), C c) WHERE a.v <= c.v") == ["A", "B", "C"]
    assert types_of("SEQ(A a, B+ b[], C c)") == ["A", "B", "C"]
    s = stream_for("ABC", 20_000, 50)
    counts = {t: sum(e.type == t for e in s) for t in "ABC"}
    assert 30 < counts["A"] / counts["C"] < 80  # 1:50


def test_drift_table_over_columns_agrees() -> None:
    """Fig. 18 over columns: every NFA the same matches, one row per segment and one
    for the whole stream, the tree re-planned as the rarest type changes."""
    from bench.seed003_drift import columns_table

    table = columns_table(segments=3, segment=3000, window=10, repeat=1)
    assert "the same matches for every NFA: yes" in table.header[0]
    assert [row[0] for row in table.rows] == ["1", "2", "3", "whole"]
    replans = table.rows[-1][7]     # the tree re-planned at each change of the rarest type
    assert isinstance(replans, int) and replans >= 2
    assert all(len(row) == len(table.columns) for row in table.rows)
