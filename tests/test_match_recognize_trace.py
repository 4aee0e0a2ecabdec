"""The trace of row pattern recognition (issue 26, items 3 and 6): the searches it shows on
small hand-worked tables (which rows are tried, in preferment order, where a greedy
quantifier gives rows back, where the next search starts), a traced recognition answering
what the untraced one answers on drawn clauses and tables, the pictures, and ``kleene
trace`` on a statement (text, page, one-line errors).

Rows are numbered from 1 in the expectations, as the trace prints them. Every expected
search was worked out by hand from the rules of TR 19075-5 §4.7 (preferment), §4.13
(running DEFINE) and §4.5 (AFTER MATCH SKIP), before running the code.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from kleene.conformance.recognize_strategies import match_recognize_clauses
from kleene.data.sql import table_of
from kleene.engines.match_recognize.draw import program_graph, search_graph
from kleene.engines.match_recognize.recognition import CompiledRecognition
from kleene.engines.match_recognize.trace import (
    RecognitionTrace,
    Search,
    recognition_text,
    traced_recognize,
)
from kleene.reference.budget import Budget
from kleene.reference.errors import KleeneError
from kleene.reference.match_recognize.ast import MatchRecognize
from kleene.reference.match_recognize.parser import parse_statement
from kleene.reference.match_recognize.semantics import recognize
from kleene.reference.match_recognize.table import Table
from tests.helpers import run_cli
from tests.test_match_recognize_engine import input_tables

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz `dot` not installed")

#: The tutorial's tables: prices of section 5, steps of sections 1-4.
PRICES = Table(("ts", "price"), tuple((i + 1, p) for i, p in enumerate((9, 5, 3, 4, 2, 6))))
STEPS = Table(("ts", "v"), ((1, 1), (2, 1), (3, 1), (4, 2)))

V_SHAPE = """SELECT first_ts, last_ts FROM prices MATCH_RECOGNIZE (
  ORDER BY ts
  MEASURES FIRST(ts) AS first_ts, LAST(ts) AS last_ts
  ONE ROW PER MATCH
  AFTER MATCH SKIP {skip}
  PATTERN (STRT DOWN+ UP+)
  DEFINE DOWN AS price < PREV(price), UP AS price > PREV(price)
) ORDER BY first_ts"""


def clause_of(pattern: str, defines: str, skip: str = "PAST LAST ROW") -> MatchRecognize:
    sql = (f"SELECT * FROM steps MATCH_RECOGNIZE (ORDER BY ts ALL ROWS PER MATCH "
           f"AFTER MATCH SKIP {skip} PATTERN ({pattern}) DEFINE {defines})")
    return parse_statement(sql, "<sql>").recognitions[0].clause


def v_clause(skip: str) -> MatchRecognize:
    return parse_statement(V_SHAPE.format(skip=skip), "<sql>").recognitions[0].clause


def steps(s: Search) -> list[tuple[object, ...]]:
    """The steps of ``s``, rows from 1: tests and ends as (kind, row, var, ok), choices as
    (kind, row), backs as (kind, row, rows given back)."""
    out: list[tuple[object, ...]] = []
    for step in s.steps:
        if step.kind in ("test", "end"):
            out.append((step.kind, step.row + 1, step.var, step.ok))
        elif step.kind == "back":
            out.append(("back", step.row + 1, step.given))
        else:
            out.append((step.kind, step.row + 1))
    return out


def search_from(t: RecognitionTrace, row: int) -> Search:
    """The (first) search from ``row`` (from 1) of the first partition."""
    return next(s for s in t.searches if s.start == row - 1)


def outcome(s: Search) -> tuple[str, ...] | None:
    return None if s.match is None else s.match.variables


def test_the_v_shape_searches_rows_1_5_and_6():
    t = traced_recognize(v_clause("PAST LAST ROW"), PRICES)
    assert [s.start + 1 for s in t.searches] == [1, 5, 6]
    first = t.searches[0]
    assert steps(first) == [
        ("test", 1, "STRT", True), ("test", 2, "DOWN", True),
        ("choose", 3), ("test", 3, "DOWN", True),        # 5 < 9, 3 < 5
        ("choose", 4), ("test", 4, "DOWN", False),       # 4 < 3 fails
        ("back", 4, ()), ("test", 4, "UP", True),        # DOWN+ stops after 2: UP 4 > 3
        ("choose", 5), ("test", 5, "UP", False),         # 2 > 4 fails
        ("back", 5, ())]                                 # UP+ stops after 1: done
    assert outcome(first) == ("STRT", "DOWN", "DOWN", "UP")
    assert first.next_start + 1 == 5                     # past the last row, 4
    assert steps(t.searches[1]) == [("test", 5, "STRT", True), ("test", 6, "DOWN", False)]
    assert outcome(t.searches[1]) is None and t.searches[1].next_start + 1 == 6
    assert steps(t.searches[2]) == [("test", 6, "STRT", True), ("end", 7, "DOWN", False)]
    assert outcome(t.searches[2]) is None
    assert t.output == recognize(v_clause("PAST LAST ROW"), PRICES)


def test_the_trace_says_the_values_a_define_read():
    text = recognition_text(traced_recognize(v_clause("PAST LAST ROW"), PRICES))
    assert ("  row 4 (TS 4) as DOWN: PRICE < PREV(PRICE) (PRICE is 4, PREV(PRICE) is 3): "
            "false ✗") in text
    assert ("  back to the choice at row 4: try DOWN+ stops after 2 iterations") in text
    assert ("  choice at row 3 (greedy: more iterations first): DOWN+ takes iteration 2; "
            "left for later: DOWN+ stops after 1 iteration") in text
    assert "  AFTER MATCH SKIP PAST LAST ROW: the next search starts at row 5" in text
    running = traced_recognize(clause_of("A+", "A AS SUM(A.v) <= 3"), STEPS)
    lines = recognition_text(running)   # the sum includes the row being decided: 1, 2, 3, 5
    assert "  row 3 (TS 3) as A: SUM(A.V) <= 3 (SUM(A.V) is 3): true ✓" in lines
    assert "  row 4 (TS 4) as A: SUM(A.V) <= 3 (SUM(A.V) is 5): false ✗" in lines


@pytest.mark.parametrize(("skip", "starts"), [("TO NEXT ROW", [1, 2, 3, 4, 5, 6]),
                                               ("TO LAST UP", [1, 4, 6])])
def test_the_skip_decides_where_the_next_search_starts(skip: str, starts: list[int]):
    t = traced_recognize(v_clause(skip), PRICES)
    assert [s.start + 1 for s in t.searches] == starts
    spans = [(s.start + 1, s.match.end) for s in t.searches if s.match is not None]
    assert spans == ([(1, 4), (2, 4), (4, 6)] if skip == "TO NEXT ROW" else [(1, 4), (4, 6)])


def test_greedy_gives_back_rows_one_at_a_time():
    t = traced_recognize(clause_of("A+ B", "A AS v >= 1, B AS v = 1"), STEPS)
    first = t.searches[0]
    assert steps(first) == [
        ("test", 1, "A", True), ("choose", 2), ("test", 2, "A", True), ("choose", 3),
        ("test", 3, "A", True), ("choose", 4), ("test", 4, "A", True), ("choose", 5),
        ("end", 5, "A", False), ("back", 5, ()), ("end", 5, "B", False),
        ("back", 4, ("A",)), ("test", 4, "B", False),    # row 4 given back: 2 is not 1
        ("back", 3, ("A",)), ("test", 3, "B", True)]     # row 3 given back: B holds
    assert outcome(first) == ("A", "A", "B") and first.next_start + 1 == 4
    assert outcome(t.searches[1]) is None and [s.start + 1 for s in t.searches] == [1, 4]
    assert "  back to the choice at row 4: give back row 4 (A); try A+ stops after 3 " \
           "iterations" in recognition_text(t)


def test_the_left_alternative_first_and_reluctant_fewer_first():
    t = traced_recognize(clause_of("A | B", "A AS v = 1, B AS v <= 2"), STEPS)
    assert steps(search_from(t, 1)) == [("choose", 1), ("test", 1, "A", True)]
    assert steps(search_from(t, 4)) == [("choose", 4), ("test", 4, "A", False),
                                        ("back", 4, ()), ("test", 4, "B", True)]
    assert outcome(search_from(t, 4)) == ("B",)
    t = traced_recognize(clause_of("A+? B?", "A AS v = 1, B AS v <= 2"), STEPS)
    first = t.searches[0]
    # A+? stops after row 1 (reluctant), B? takes row 2 (greedy)
    assert steps(first) == [("test", 1, "A", True), ("choose", 2), ("choose", 2),
                            ("test", 2, "B", True)]
    assert outcome(first) == ("A", "B")
    assert first.steps[1].text == ("choice at row 2 (reluctant: fewer iterations first): "
                                   "A+? stops after 1 iteration; left for later: A+? takes "
                                   "iteration 2")


def test_an_empty_match_moves_on_one_row():
    t = traced_recognize(clause_of("A*", "A AS v = 2"), STEPS)
    assert [s.start + 1 for s in t.searches] == [1, 2, 3, 4]
    assert steps(t.searches[0]) == [("choose", 1), ("test", 1, "A", False), ("back", 1, ())]
    assert [outcome(s) for s in t.searches] == [(), (), (), ("A",)]
    assert [s.next_start + 1 for s in t.searches] == [2, 3, 4, 5]
    assert "  empty match 1 at row 1: the first way in preferment order maps no row " \
           "(2 ways tried)" in recognition_text(t)


def test_an_anchor_that_fails_ends_its_way():
    t = traced_recognize(clause_of("^ A", "A AS v = 1"), STEPS)
    assert steps(search_from(t, 2)) == [("dead", 2)]
    assert outcome(search_from(t, 1)) == ("A",)


def _outcome(run: Callable[[], Table | None]) -> tuple[str, object]:
    try:
        return "table", run()
    except KleeneError as err:
        return "error", (type(err).__name__, getattr(err, "code", None))


@pytest.mark.slow
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(clause=match_recognize_clauses(), table=input_tables())
def test_a_traced_recognition_answers_what_the_untraced_one_answers(clause, table):
    rows = table_of(table)
    traced = _outcome(lambda: traced_recognize(clause, rows, budget=Budget(limit=20_000)).output)
    assert traced == _outcome(lambda: recognize(clause, rows, budget=Budget(limit=20_000)))
    if traced[0] == "table":
        for s in traced_recognize(clause, rows).searches:
            if s.match is None:
                continue
            # the last row tried at each row of the match is the one mapped there
            last = {st.row: st for st in s.steps if st.kind == "test"}
            assert [last[s.start + i].var for i in range(len(s.match.variables))] == \
                list(s.match.variables)
            assert all(last[s.start + i].ok for i in range(len(s.match.variables)))


# ---------------------------------------------------------------- pictures


def test_the_program_picture_marks_the_preferred_way():
    c = CompiledRecognition(clause_of("A+? (B | C) {- D -} $", "A AS v = 1, B AS v > 1"))
    g = program_graph(c)
    labels = [d["label"] for _, _, d in g.edges(data=True)]
    assert "1st: leave #0 (after ≥ 1)" in labels and "2nd: iterate #0 (1..∞), reluctant" in labels
    assert labels.count("1st") == 1 and labels.count("2nd") == 1       # B | C
    assert "A\nV = 1" in labels and "B\nV > 1" in labels and "C\ntrue" in labels
    assert "D (excluded)\ntrue" in labels and "$ (after the last row)" in labels
    assert len(labels) == len(list(c.iter_transitions()))


def test_a_search_tree_has_a_node_per_row_tried_and_the_winning_way_bold():
    t = traced_recognize(clause_of("A+ B", "A AS v >= 1, B AS v = 1"), STEPS)
    g = search_graph(t.searches[0])
    tried = [d["label"] for q, d in g.nodes(data=True) if q[0] == "step"]
    assert tried[0] == "1. row 1\nA ✓" and tried[-1] == "8. row 3\nB ✓" and len(tried) == 8
    bold = [(g.nodes[a]["label"], g.nodes[b]["label"]) for a, b, d in g.edges(data=True)
            if d["dot"].get("penwidth") == "2.6"]
    assert bold == [("start: row 1", "1. row 1\nA ✓"), ("1. row 1\nA ✓", "2. row 2\nA ✓"),
                    ("2. row 2\nA ✓", "8. row 3\nB ✓"), ("8. row 3\nB ✓", "match 1")]


# ---------------------------------------------------------------- kleene trace


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "v.sql").write_text(V_SHAPE.format(skip="PAST LAST ROW") + "\n")
    (tmp_path / "prices.csv").write_text("ts,price\n1,9\n2,5\n3,3\n4,4\n5,2\n6,6\n")
    return tmp_path


def test_kleene_trace_prints_the_searches_then_the_answer(files, capsys):
    code, out, err = run_cli(capsys, "trace", str(files / "v.sql"), "--events",
                             str(files / "prices.csv"))
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[:3] == ["PATTERN (STRT DOWN+ UP+), AFTER MATCH SKIP PAST LAST ROW",
                         "partition 1 of 1: 6 rows", "search from row 1, for match 1"]
    assert lines[-3:] == ["answer: 1 row", "FIRST_TS,LAST_TS", "1,4"]
    assert "  match 1: rows 1–4 as STRT DOWN DOWN UP, the first way in preferment order " \
           "whose every row satisfies its DEFINE (3 ways tried)" in lines


@needs_dot
def test_kleene_trace_writes_a_page(files, capsys):
    page = files / "v.html"
    code, _, err = run_cli(capsys, "trace", str(files / "v.sql"), "--events",
                           str(files / "prices.csv"), "-o", str(page))
    assert (code, err) == (0, f"kleene trace: wrote {page} ({page.stat().st_size:,} bytes)\n")
    text = page.read_text(encoding="utf-8")
    assert text.count("<svg") == 1 + 3      # the program, then a tree per search


def test_kleene_trace_errors_are_one_line(files, capsys):
    base = ["trace", str(files / "v.sql"), "--events", str(files / "prices.csv")]
    for extra, said in ((["--engine", "match-recognize"], "leave out --engine"),
                        (["--time-unit", "s"], "--time-unit applies to event streams"),
                        (["--run", "e1"], "--run applies to event streams")):
        code, out, err = run_cli(capsys, *base, *extra)
        assert code == 2 and out == "" and err.count("\n") == 1 and said in err, extra
    code, out, err = run_cli(capsys, "trace", str(files / "v.sql"), "--events",
                             str(files / "absent.csv"))
    assert code == 2 and err.count("\n") == 1
    skip = files / "skip.sql"   # a skip to the match's first row: the trace, then the error
    skip.write_text(V_SHAPE.format(skip="TO FIRST STRT"))
    code, out, err = run_cli(capsys, "trace", str(skip), "--events", str(files / "prices.csv"))
    assert code == 2 and "skip" in err and err.count("\n") == 1
    assert out.splitlines()[-1] == "  AFTER MATCH SKIP TO FIRST STRT: no row to start the " \
        "next search at (the error below)"


@pytest.mark.slow
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(clause=match_recognize_clauses())
def test_every_program_is_drawn_with_each_choice_marked(clause):
    c = CompiledRecognition(clause)
    g = program_graph(c)
    assert g.number_of_edges() == len(list(c.iter_transitions()))
    for q in g.nodes:
        ways = sorted(d["label"].split(":")[0] for _, _, d in g.out_edges(q, data=True))
        assert len(ways) <= 1 or ways == ["1st", "2nd"], ways   # a choice: one of each


def test_kleene_draw_draws_every_construct(files, capsys):
    every = ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts ALL ROWS PER MATCH "
             "PATTERN (^ PERMUTE(A, B) C{2,3}? () {- D -} (E | F)* $) DEFINE A AS v > 0)")
    code, out, err = run_cli(capsys, "draw", every, "--format", "dot")
    assert (code, err) == (0, "") and out.startswith("digraph")
    for label in ("^ (the first row)", "$ (after the last row)", "A\\nV > 0", "B\\ntrue",
                  "1st: leave #0 (after ≥ 2)", "2nd: iterate #0 (2..3), reluctant",
                  "D (excluded)", "1st: iterate #1 (0..∞)"):
        assert label in out, label
    code, out, err = run_cli(capsys, "draw", str(files / "v.sql"), "--engine",
                             "match-recognize", "--format", "dot")
    assert (code, err) == (0, "") and "PRICE < PREV(PRICE)" in out
