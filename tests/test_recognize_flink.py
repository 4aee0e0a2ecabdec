"""The recognitions drawn in Flink SQL's dialect (conformance/recognize_flink.py) leave out
what Flink cannot run, as its grammar and its planner's errors say (the failures of
2026-11-28's run, docs/peers.md), and Flink's adapter writes ``{,n}`` as ``{0,n}``."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kleene.conformance.adapters import native
from kleene.conformance.recognize_flink import flink_clauses, flink_tables
from kleene.reference.match_recognize.ast import Concat, MatchRecognize, Quantified
from kleene.reference.match_recognize.parser import parse_statement


def _items(clause: MatchRecognize) -> tuple[object, ...]:
    return clause.pattern.items if isinstance(clause.pattern, Concat) else (clause.pattern,)


@settings(max_examples=300, deadline=None)
@given(flink_clauses())
def test_no_drawn_clause_is_one_flink_cannot_run(clause: MatchRecognize) -> None:
    # Flink's grammar: DEFINE variable AS condition [, variable AS condition]*
    assert clause.defines
    items = _items(clause)
    assert items, "an empty pattern"
    for q in items:
        if isinstance(q, Quantified):
            assert q.high is None or q.high > 0, "a quantifier {0}"
    # Pattern.optional() (?, *, *?) after a greedy quantifier of variable length throws
    for before, after in zip(items, items[1:], strict=False):
        greedy = (isinstance(before, Quantified) and not before.reluctant
                  and before.low != before.high and (before.low, before.high) != (0, 1))
        optional = isinstance(after, Quantified) and (after.low, after.high) in ((0, 1),
                                                                                (0, None))
        assert not (greedy and optional), (before, after)


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_flinks_adapter_writes_every_lower_bound(data: st.DataObject) -> None:
    clause, table = data.draw(flink_clauses()), data.draw(flink_tables())
    sql = native.request("flink", clause, table)["sql"]
    pattern = next(line for line in sql.splitlines() if line.startswith("PATTERN ("))
    assert "{," not in pattern
    # what is sent is the same clause: the pattern reads back as drawn
    back = parse_statement(f"SELECT * FROM t MATCH_RECOGNIZE (\n{pattern}\n)")
    assert back.recognitions[0].clause.pattern == clause.pattern


def test_a_missing_lower_bound_is_written_zero_on_the_pattern_line_only() -> None:
    text = "MEASURES 'x{,2}' AS M\nPATTERN (A{,2}? B{,3} C{1,2})\nDEFINE A AS A.X > 0"
    assert native.flink_bounds(text) == ("MEASURES 'x{,2}' AS M\n"
                                         "PATTERN (A{0,2}? B{0,3} C{1,2})\nDEFINE A AS A.X > 0")
