"""``import kleene``: the Python door (issue 29 item 5, docs/python.md).

Expected values are hand-computed on the streams written here (each test says how), or
come from seed 000 (Fig. 1 under Q1: three matches).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest

import kleene
from kleene.reference.errors import KleeneError, PatternSyntaxError, StreamError, Unsupported

ROOT = Path(__file__).resolve().parents[1]

#: A A B B C one hour apart; SEQ(A a, B b, C c) with a.price > 10 under `any`: a is one of
#: the two As, b one of the two Bs, c the C: 2 × 2 = 4 matches, all within 5 hours.
ROWS = [{"ts": 0, "type": "A", "price": 20}, {"ts": 1, "type": "A", "price": 20},
        {"ts": 2, "type": "B", "price": 25}, {"ts": 3, "type": "B", "price": 30},
        {"ts": 4, "type": "C", "price": 20}]
SEQ = "PATTERN SEQ(A a, B b, C c) WHERE a.price > 10 WITHIN 5 hours"
#: (a, b, c) of each match in order of first position, then canonical text.
HAND = [(0, 2, 4), (0, 3, 4), (1, 2, 4), (1, 3, 4)]


def triples(rows: pa.Table) -> list[tuple[int, ...]]:
    """Each match's positions in the order of its rows (a, b, c)."""
    d = rows.to_pydict() if isinstance(rows, pa.Table) else rows.to_dict("list")
    out: dict[int, list[int]] = {}
    for k, p in zip(d["match"], d["position"], strict=True):
        out.setdefault(k, []).append(p)
    return [tuple(out[k]) for k in sorted(out)]


def test_match_answers_a_row_per_match_variable_and_event_with_the_attributes():
    rows = kleene.match(SEQ, ROWS, time_unit="h")
    assert isinstance(rows, pa.Table)
    assert rows.column_names == ["match", "variable", "position", "ts", "type", "price"]
    assert triples(rows) == HAND
    assert rows.column("variable").to_pylist() == ["a", "b", "c"] * 4
    assert rows.column("price").to_pylist()[:3] == [20, 25, 20]   # rows 0, 2, 4


@pytest.mark.parametrize("kind", ["path", "arrow", "pandas", "rows"])
def test_every_kind_of_events_gives_the_same_matches(kind, tmp_path):
    frame = pd.DataFrame(ROWS)
    if kind == "path":
        events: object = tmp_path / "e.csv"
        frame.to_csv(events, index=False)
    else:
        events = {"arrow": pa.Table.from_pandas(frame), "pandas": frame, "rows": ROWS}[kind]
    rows = kleene.match(SEQ, events, time_unit="h")
    assert isinstance(rows, pd.DataFrame) == (kind == "pandas")
    assert triples(rows) == HAND
    found = kleene.find_matches(SEQ, events, time_unit="h")
    assert sorted(tuple(m[v][0] for v in "abc") for m in found.matches) == HAND


def test_a_pandas_frame_keeps_its_own_types():
    """Datetimes stay datetimes in the rows (the user's column), one hour apart."""
    frame = pd.DataFrame(ROWS).assign(ts=pd.to_datetime([0, 1, 2, 3, 4], unit="h", utc=True))
    rows = kleene.match(SEQ, frame)
    assert str(rows["ts"].dtype).startswith("datetime64")
    assert list(rows["ts"][:3]) == list(pd.to_datetime([0, 2, 4], unit="h", utc=True))
    assert triples(rows) == HAND


def test_one_default_policy_per_language_at_every_door(tmp_path):
    """The Python door decides as the command line does: the language's own default
    (operator patterns: any, the policy `kleene match` says its engine claims)."""
    events = tmp_path / "e.csv"
    pd.DataFrame(ROWS).to_csv(events, index=False)
    cli = subprocess.run([sys.executable, "-m", "kleene", "match", "--pattern", SEQ,
                          "--events", str(events), "--time-unit", "h"],
                         capture_output=True, text=True, cwd=ROOT.parent, check=True)
    assert len(cli.stdout.splitlines()) == 4 and "operator:any" in cli.stderr
    assert kleene.parse(SEQ).policy == "any"
    found = kleene.find_matches(SEQ, ROWS, time_unit="h")
    assert found.query.policy == "any" and len(found.matches) == 4


def test_a_match_recognize_statement_answers_its_table():
    """ONE ROW PER MATCH over A A B B C ordered by ts: a+ takes both As (greedy), b+ both
    Bs; one match starting at ts 0, the first b at ts 2."""
    sql = ("SELECT * FROM events MATCH_RECOGNIZE (ORDER BY ts MEASURES FIRST(a.ts) AS s, "
           "FIRST(b.ts) AS fb, COUNT(*) AS n ONE ROW PER MATCH PATTERN (a+ b+) "
           "DEFINE a AS type = 'A', b AS type = 'B')")
    out = kleene.match(sql, pd.DataFrame(ROWS))
    assert isinstance(out, pd.DataFrame)
    # unquoted names fold to upper case (ISO/IEC 9075-2 §5.2)
    assert out.to_dict("records") == [{"S": 0, "FB": 2, "N": 4}]


def test_draw_and_trace_show_the_automaton_pictures_and_traces_show():
    picture = kleene.draw("PATTERN <{a}, {b}> WHERE a.L = 'A' AND b.L = 'B' WITHIN 10")
    assert picture.engine == "ses-automaton"
    assert picture._repr_svg_().lstrip().startswith("<?xml") and "<svg" in picture.svg
    chemo = pd.read_csv(ROOT / "examples" / "chemo" / "chemo.csv")
    q1 = kleene.parse((ROOT / "examples" / "chemo" / "q1.ses").read_text(), policy="next",
                      time_unit="h")
    t = kleene.trace(q1, chemo, type=None)
    assert len(t.matches) == 3                     # seed 000, Fig. 1 under Q1
    assert "<svg" in t._repr_html_()


def test_a_picture_is_saved_never_over_an_input(tmp_path):
    target = tmp_path / "a.svg"
    kleene.draw(SEQ).save(target)
    assert target.read_text().lstrip().startswith("<?xml")


@pytest.mark.parametrize("events, error", [
    (42, Unsupported),
    ([{"ts": 1}, {"ts": 0}], StreamError),
    (pd.DataFrame({"ts": [0], "type": ["A"], "match": [1]}), Unsupported),
])
def test_bad_events_are_one_error_naming_them(events, error):
    with pytest.raises(error) as info:
        kleene.match(SEQ, events, time_unit="h")
    assert "\n" not in str(info.value)
    assert isinstance(info.value, KleeneError)


def test_a_syntax_error_names_line_and_column():
    """Column 22 is the W of WITHIN, where `,` or `)` was due (counted by hand)."""
    with pytest.raises(PatternSyntaxError) as info:
        kleene.parse("PATTERN SEQ(A a, B b WITHIN 5")
    assert str(info.value).startswith("<pattern>:1:22: expected ',' or ')'")
    assert str(info.value).splitlines()[-1] == " " * 23 + "^"


def test_import_kleene_loads_no_engine_until_a_name_is_read():
    program = ("import json, sys; import kleene; before = sorted(m for m in "
               "('pyarrow', 'kleene.api', 'duckdb') if m in sys.modules); kleene.parse; "
               "print(json.dumps([before, 'kleene.api' in sys.modules]))")
    out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                         cwd=ROOT.parent, check=True)
    assert json.loads(out.stdout) == [[], True]
    assert sorted(kleene.__all__) == sorted(["parse", "load_events", "match", "find_matches",
                                             "count_matches", "first_matches", "draw",
                                             "trace", "match_recognize"])


@pytest.mark.spark
def test_a_spark_dataframe_is_matched_on_spark(spark):
    """The same four matches, computed on Spark: a row per match, variable and event
    (match_dataframe's rows, 4 × 3)."""
    out = kleene.match(SEQ, spark.createDataFrame(pd.DataFrame(ROWS)), time_unit="h")
    assert type(out).__module__.startswith("pyspark.")
    rows = sorted((r["match_id"], r["variable"], r["position"]) for r in out.collect())
    by_match: dict[str, list[int]] = {}
    for m, _, p in rows:
        by_match.setdefault(m, []).append(p)
    assert sorted(tuple(v) for v in by_match.values()) == HAND


@pytest.mark.spark
def test_sremo_on_spark_names_the_marked_positions_marked(spark):
    """Seed 004 Example 3.7 on Table 1's first five elements (BUY, BUY, BUY, SELL,
    SELL): the matches {e1, e4}, {e1, e5}, {e2, e4}, {e2, e5} (ids 1, 1, 2, 1, 1), each a
    set of marked positions, printed ``marked`` at this door as at every other."""
    table1 = "mark {~.type = 'B'} -> r1 ; {TRUE}* ; mark {~.type = 'S' AND ~.id = r1.id}"
    rows = [{"ts": t, "type": k, "id": i} for t, k, i in
            [(1, "B", 1), (2, "B", 1), (3, "B", 2), (4, "S", 1), (5, "S", 1)]]
    out = kleene.match(table1, spark.createDataFrame(pd.DataFrame(rows)))
    got = [(r["match_id"], r["variable"], r["position"]) for r in out.collect()]
    assert {v for _, v, _ in got} == {"marked"}
    by_match: dict[str, list[int]] = {}
    for m, _, p in got:
        by_match.setdefault(m, []).append(p)
    assert sorted(tuple(sorted(v)) for v in by_match.values()) == [(0, 3), (0, 4), (1, 3),
                                                                   (1, 4)]


@pytest.mark.spark
def test_a_match_recognize_statement_on_a_spark_frame_answers_on_spark(spark):
    """The statement of test_a_match_recognize_statement_answers_its_table over the same
    rows as a Spark DataFrame: a Spark DataFrame with the same one row (values compared by
    position: Spark SQL names the columns as written, docs/match-recognize-spark.md)."""
    sql = ("SELECT * FROM events MATCH_RECOGNIZE (ORDER BY ts MEASURES FIRST(a.ts) AS s, "
           "FIRST(b.ts) AS fb, COUNT(*) AS n ONE ROW PER MATCH PATTERN (a+ b+) "
           "DEFINE a AS type = 'A', b AS type = 'B')")
    out = kleene.match(sql, spark.createDataFrame(pd.DataFrame(ROWS)))
    assert type(out).__module__.startswith("pyspark.")
    assert [tuple(r) for r in out.collect()] == [(0, 2, 4)]
