"""The match_recognize reference from SQL text (parse_statement, then recognize) on
hand-computed examples: conditions that read other variables, SQL predicates in DEFINE,
running and final measures row by row, and a skip to a union variable."""

from __future__ import annotations

from kleene.reference.match_recognize.parser import parse_statement
from kleene.reference.match_recognize.semantics import recognize
from kleene.reference.match_recognize.table import Table


def run(sql: str, names: str, *rows: tuple[object, ...]) -> Table:
    """The output of the statement's one recognition over a table ``t``."""
    [recognition] = parse_statement(sql).recognitions
    return recognize(recognition.clause, Table(tuple(names.split()), rows))


def test_a_condition_reads_an_earlier_variable_and_greedy_runs_meet():
    # Trino's worked shape A B+ C+ D+ over x = 50 40 30 45 60 70 (t = 1…6): A = 50, B 40 30
    # (falling), C 45 (rising, at most A's 50), then 60 is above 50, so C+ stops and D+
    # (rising) takes 60 and 70. U = (C, D): its last row is 70.
    out = run("""SELECT * FROM t MATCH_RECOGNIZE (
        ORDER BY t MEASURES A.x AS start_x, LAST(B.x) AS bottom, LAST(U.x) AS top,
                            COUNT(*) AS n
        PATTERN (A B+ C+ D+) SUBSET U = (C, D)
        DEFINE B AS x < PREV(x), C AS x > PREV(x) AND x <= A.x, D AS x > PREV(x))""",
              "t x", *((i + 1, x) for i, x in enumerate([50, 40, 30, 45, 60, 70])))
    assert out.names == ("START_X", "BOTTOM", "TOP", "N")  # SQL folds unquoted names
    assert out.rows == ((50, 30, 70, 6),)


def test_sql_predicates_in_define():
    # S: a kind starting 'st'; T: a kind in ('a', 'b'). start a b | c | stop a: S T T on
    # rows 1-3 (c is no T), c starts nothing, stop a on rows 5-6.
    out = run("""SELECT * FROM t MATCH_RECOGNIZE (
        ORDER BY t MEASURES FIRST(t) AS t0, COUNT(T.*) AS ts
        PATTERN (S T+)
        DEFINE S AS kind LIKE 'st%',
               T AS CASE WHEN kind IN ('a', 'b') THEN TRUE ELSE FALSE END)""",
              "t kind", (1, "start"), (2, "a"), (3, "b"), (4, "c"), (5, "stop"), (6, "a"))
    assert out.rows == ((1, 2), (5, 1))


def test_all_rows_running_and_final_row_by_row():
    # One partition, x = 5 3 4, PATTERN (A B+): A = 5, B = 3 and 4. Row by row: the running
    # last x is the row's own, the final one 4 everywhere; the running count of B 0 1 2.
    out = run("""SELECT * FROM t MATCH_RECOGNIZE (
        PARTITION BY g ORDER BY t
        MEASURES CLASSIFIER() AS c, LAST(x) AS rl, FINAL LAST(x) AS fl, COUNT(B.*) AS nb
        ALL ROWS PER MATCH PATTERN (A B+) DEFINE B AS TRUE)""",
              "g t x", ("p", 1, 5), ("p", 2, 3), ("p", 3, 4))
    assert out.names == ("g", "t", "C", "RL", "FL", "NB", "x")  # the input's own spelling
    assert out.rows == (("p", 1, "A", 5, 4, 0, 5), ("p", 2, "B", 3, 4, 1, 3),
                        ("p", 3, "B", 4, 4, 2, 4))


def test_skip_to_the_last_row_of_a_union_variable():
    # A B C over 5 rows, U = (A, B): U's last row is B, the match's second row. Matches at
    # rows 1, 2, 3; at row 4 A B leave no row for C.
    out = run("""SELECT * FROM t MATCH_RECOGNIZE (
        ORDER BY t MEASURES FIRST(t) AS t0 AFTER MATCH SKIP TO LAST U
        PATTERN (A B C) SUBSET U = (A, B))""",
              "t", (1,), (2,), (3,), (4,), (5,))
    assert out.rows == ((1,), (2,), (3,))
