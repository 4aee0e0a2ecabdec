"""Rows tied on every ``ORDER BY`` key (issue 30, item 1): ``ties="error"`` refuses, in one
line, a tie whose order can change the answer; ``input-order`` (the default) keeps the
input order (:mod:`kleene.reference.match_recognize.ties`). Tables and answers by hand."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kleene
from kleene.reference.errors import TieError, Unsupported
from kleene.reference.match_recognize.parser import parse_statement
from kleene.reference.match_recognize.semantics import recognize
from kleene.reference.match_recognize.table import Table
from kleene.reference.match_recognize.ties import first_tie, refuse_ties

ROOT = Path(__file__).resolve().parents[1]

#: A rise: any row, then one priced higher than the row before it.
RISE = ("SELECT * FROM t MATCH_RECOGNIZE (PARTITION BY sym ORDER BY ts "
        "MEASURES FIRST(A.price) AS p0, LAST(B.price) AS p1 ONE ROW PER MATCH "
        "PATTERN (A B) DEFINE B AS B.price > PREV(B.price))")
#: ACME's rows at ts 2 tie and differ in price. In input order (10, 9, 11, 12) the one rise
#: is 9 -> 11; in the other order (10, 11, 9, 12) the rises are 10 -> 11 and 9 -> 12.
TIED = pa.table({"sym": ["ACME"] * 4, "ts": [1, 2, 2, 3], "price": [10, 9, 11, 12],
                 "note": ["a", "b", "c", "d"]})
SAID = ("ties: ORDER BY ties in the partition sym = 'ACME': 2 rows have ts = 2 and differ in "
        "price (9; 11), so their order (which the standard leaves open) can change the "
        "answer: --ties input-order keeps the input order, or add an ORDER BY key that "
        "breaks the tie")


def _rows(table: pa.Table) -> list[tuple[object, ...]]:
    return [tuple(r.values()) for r in table.to_pylist()]


def test_input_order_is_the_default_and_keeps_the_tie_in_input_order():
    assert _rows(kleene.match_recognize(TIED, RISE)) == [("ACME", 9, 11)]
    assert _rows(kleene.match_recognize(TIED, RISE, ties="input-order")) == [("ACME", 9, 11)]
    swapped = TIED.take([0, 2, 1, 3])
    assert _rows(kleene.match_recognize(swapped, RISE)) == [("ACME", 10, 11), ("ACME", 9, 12)]


def test_error_refuses_a_tie_that_changes_the_answer_in_one_line():
    with pytest.raises(TieError) as err:
        kleene.match_recognize(TIED, RISE, ties="error")
    assert str(err.value) == SAID


def test_error_passes_a_tie_whose_rows_agree_on_every_column_read():
    # the tied rows differ only in note, which the clause does not read
    same = TIED.set_column(2, "price", pa.array([10, 9, 9, 12]))
    assert _rows(kleene.match_recognize(same, RISE, ties="error")) == [("ACME", 9, 12)]


def test_all_rows_per_match_reads_every_column():
    same = TIED.set_column(2, "price", pa.array([10, 9, 9, 12]))
    sql = RISE.replace("ONE ROW PER MATCH", "ALL ROWS PER MATCH")
    with pytest.raises(TieError, match=r"2 rows have ts = 2 and differ in note \('b'; 'c'\)"):
        kleene.match_recognize(same, sql, ties="error")


def test_the_first_tie_names_its_partition_and_every_tied_row():
    table = Table(("sym", "ts", "price"),
                  (("B", 1, 1), ("A", 5, 1), ("A", 5, 2), ("A", 5, None), ("B", 1, 1),
                   ("A", 4, 1), ("A", 4, 3)))
    clause = parse_statement(RISE).recognitions[0].clause
    tie = first_tie(clause, table)
    # partition B (first in the input) ties on identical rows; A ties at ts 4, then 5
    assert tie is not None
    assert tie.partition == (("sym", "A"),) and tie.order == (("ts", 4),)
    assert tie.differ == ("price",) and tie.rows == ((1,), (3,))


def test_no_order_by_leaves_a_partition_unordered():
    sql = ("SELECT * FROM t MATCH_RECOGNIZE (MEASURES FIRST(A.price) AS p0 "
           "PATTERN (A) DEFINE A AS A.price > 9)")
    with pytest.raises(TieError, match=r"^ties: ORDER BY ties: 4 rows are unordered \(no "
                                        r"ORDER BY\) and differ in price \(10; 9; 11; 12\)"):
        kleene.match_recognize(TIED, sql, ties="error")


def test_more_than_five_tied_rows_are_counted():
    table = pa.table({"sym": ["X"] * 7, "ts": [0] * 7, "price": list(range(7))})
    with pytest.raises(TieError, match=r"differ in price \(0; 1; 2; 3; 4; 2 more\)"):
        kleene.match_recognize(table, RISE, ties="error")


def test_an_unknown_choice_is_one_line():
    with pytest.raises(Unsupported, match="--ties first: the choices are input-order, error"):
        kleene.match_recognize(TIED, RISE, ties="first")


def test_the_command_refuses_the_tie_and_refuses_ties_on_an_event_pattern(tmp_path):
    events = tmp_path / "t.csv"
    events.write_text("sym,ts,price,note\nACME,1,10,a\nACME,2,9,b\nACME,2,11,c\nACME,3,12,d\n")
    pattern = tmp_path / "rise.sql"
    pattern.write_text(RISE + "\n")
    kleene_cmd = [sys.executable, "-m", "kleene", "match", "--pattern", str(pattern),
                  "--events", str(events)]
    got = subprocess.run([*kleene_cmd, "--ties", "error"], capture_output=True, text=True,
                         cwd=ROOT.parent)
    assert got.returncode != 0 and got.stdout == ""
    assert got.stderr.strip().splitlines()[-1] == f"kleene match: {SAID}"
    ok = subprocess.run(kleene_cmd, capture_output=True, text=True, cwd=ROOT.parent)
    assert ok.stdout == "sym,P0,P1\nACME,9,11\n"
    ses = tmp_path / "p.ses"
    ses.write_text("PATTERN <{a}> WHERE a.L = 'A' WITHIN 10\n")
    got = subprocess.run([sys.executable, "-m", "kleene", "match", "--pattern", str(ses),
                          "--events", str(events), "--ties", "error"],
                         capture_output=True, text=True, cwd=ROOT.parent)
    assert got.returncode != 0
    assert "--ties orders the rows of a MATCH_RECOGNIZE" in got.stderr


_ONE_PARTITION = ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES FIRST(A.p) AS f, "
                  "LAST(B.p) AS l, COUNT(*) AS n {rows} PATTERN (A B+) "
                  "DEFINE B AS B.p > PREV(B.p))")


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 2), st.integers(0, 1)),
                max_size=8),
       st.sampled_from(["ONE ROW PER MATCH", "ALL ROWS PER MATCH"]))
def test_a_tie_passed_is_a_tie_whose_order_never_matters(rows, per_match):
    """The sufficient test, by the reference as the oracle: where no tie is found, reversing
    the input (which reverses the rows of every tie, and nothing else, in one partition)
    gives the same answer."""
    clause = parse_statement(_ONE_PARTITION.format(rows=per_match)).recognitions[0].clause
    table = Table(("ts", "p", "q"), tuple(rows))
    if first_tie(clause, table) is None:
        refuse_ties(clause, table)
        back = Table(table.names, tuple(reversed(table.rows)))
        assert recognize(clause, table) == recognize(clause, back)
