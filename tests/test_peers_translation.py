"""The peers' adapters without the engines: their MATCH_RECOGNIZE queries and the SQL:2016 oracle.

``make peers`` runs the real engines; here only what the adapters compute in
Kleene's own process is checked: the query text with the adapters' names, what is
declined and why, the reading of the engines' answers, and the oracle that holds
them to SQL:2016. The translation itself is checked against Kleene's
MATCH_RECOGNIZE reference in tests/test_translate_match_recognize.py.
"""

from __future__ import annotations

import pytest

from kleene.conformance.adapters import mr, mr_oracle
from kleene.conformance.adapters.probe import oracle, requests
from kleene.conformance.cases import load_case_files
from kleene.conformance.wire import Request
from kleene.reference.errors import KleeneError
from kleene.reference.events import Stream, Value
from kleene.reference.match import Match
from kleene.reference.operators.match_recognize_rows import matches_of
from kleene.reference.operators.to_match_recognize import (
    Item,
    Translation,
    Untranslatable,
    literal,
)
from kleene.reference.query import Query


def rows(types: str, ts: list[int] | None = None, **attrs: list[Value]) -> list[dict[str, Value]]:
    out = []
    for i, t in enumerate(types):
        r: dict[str, Value] = {"ts": i if ts is None else ts[i], "type": t}
        for k, vs in attrs.items():
            r[k] = vs[i]
        out.append(r)
    return out


def plan(text: str, rs: list[dict[str, Value]], policy: str = "contiguous", *,
         window: str = "inclusive", time_unit: str | None = None,
         skip: str = "TO NEXT ROW") -> Translation:
    query = Query.parse(text, language="operator", policy=policy, reading=window,
                        time_unit=time_unit)
    return mr.plan(query, rs, skip=skip)


def test_a_sequence_becomes_a_row_pattern_with_defines() -> None:
    sql = plan("PATTERN SEQ(A a, B+ b[], C c) WHERE b.x > 1", rows("ABC", x=[0, 2, 0])).sql()
    assert "PATTERN (V_a V_b+ V_c)" in sql
    assert "V_a AS V_a.c_type = 'A'" in sql
    assert "V_b AS V_b.c_type = 'B' AND V_b.c_x > 1" in sql
    assert "ORDER BY kts, kpos" in sql and "AFTER MATCH SKIP TO NEXT ROW" in sql
    assert "V_a.kpos AS a,\n    FIRST(V_b.kpos) AS b_first,\n    LAST(V_b.kpos) AS b_last" in sql
    assert "PARTITION BY" not in sql


def test_repetition_quantifiers() -> None:
    assert Item("b", "B", 2, 3).quantifier() == "{2,3}"
    assert Item("b", "B", 1, None).quantifier() == "+"
    assert Item("b", "B", 2, None).quantifier() == "{2,}"
    assert Item("b", "B").quantifier() == ""
    assert "V_b{2,3}" in plan("PATTERN B{2,3} b[]", rows("BB")).sql()


def test_the_window_is_a_define_on_the_last_variable_under_each_reading() -> None:
    rs = rows("AB")
    inclusive = plan("PATTERN SEQ(A a, B b) WITHIN 5", rs).sql()
    strict = plan("PATTERN SEQ(A a, B b) WITHIN 5", rs, window="strict").sql()
    assert "V_b.kts - V_a.kts <= 5" in inclusive and "V_b.kts - V_a.kts < 5" in strict
    minutes = plan("PATTERN SEQ(A a, B b) WITHIN 1 minute", rs, time_unit="s").sql()
    assert "<= 60" in minutes


def test_strict_ts_order_only_on_streams_with_ties_and_in_logical_navigation() -> None:
    text = "PATTERN SEQ(A a, B+ b[])"
    assert ">" not in plan(text, rows("AB")).sql().split("DEFINE")[1]
    tied = plan(text, rows("AB", ts=[1, 1])).sql()
    assert "(LAST(V_b.kts, 1) IS NOT NULL OR V_b.kts > V_a.kts)" in tied and "PREV" not in tied


def test_partition_contiguous_partitions_by_the_connecting_equalities() -> None:
    rs = rows("AB", ID=[1, 1])
    sql = plan("PATTERN SEQ(A a, B b) WHERE a.ID = b.ID", rs, "partition-contiguous").sql()
    assert "PARTITION BY c_ID" in sql and "V_a.c_ID = V_b.c_ID" in sql


@pytest.mark.parametrize(("text", "why"), [
    ("PATTERN SEQ(A a, NOT(B b), C c)", "NOT"),
    ("PATTERN SEQ(A a, OR(B b, C c))", "OR"),
    ("PATTERN AND(A a, B b)", "AND"),
    ("PATTERN SEQ(A+ a[], B b) WHERE a.x < b.x", "earlier iterated"),
])
def test_outside_the_fragment_is_untranslatable_with_the_reason(text: str, why: str) -> None:
    with pytest.raises(Untranslatable, match=why):
        plan(text, rows("ABC", x=[0, 1, 2]))


def test_other_policies_and_mixed_columns_are_untranslatable() -> None:
    with pytest.raises(Untranslatable, match="policy any"):
        plan("PATTERN SEQ(A a, B b)", rows("AB"), "any")
    with pytest.raises(Untranslatable, match="mixes"):
        plan("PATTERN SEQ(A a, B b)", rows("AB", x=[1, "one"]))
    with pytest.raises(Untranslatable, match="compares"):
        plan("PATTERN SEQ(A a, B b) WHERE a.x = 'one'", rows("AB", x=[1, 2]))


def test_exact_only_without_quantifiers_and_with_skip_to_next_row() -> None:
    assert plan("PATTERN SEQ(A a, B b)", rows("AB")).inexact() is None
    assert "iterated" in (plan("PATTERN SEQ(A a, B+ b[])", rows("AB")).inexact() or "")
    past = plan("PATTERN SEQ(A a, B b)", rows("AB"), skip="PAST LAST ROW")
    assert "PAST LAST ROW" in (past.inexact() or "")


def test_answers_become_matches_with_the_rows_between_first_and_last() -> None:
    rs = rows("ABBC")
    p = plan("PATTERN SEQ(A a, B+ b[], C c)", rs)
    got = matches_of(p, rs, [{"a": 0, "b_first": 1, "B_LAST": 2, "C": 3}])
    assert got == [Match.of({"a": [0], "b": [1, 2], "c": [3]})]


def test_answers_in_a_partition_skip_the_other_partitions_rows() -> None:
    rs = rows("ABBB", ID=[1, 1, 2, 1])
    p = plan("PATTERN SEQ(A a, B+ b[]) WHERE a.ID = b.ID", rs, "partition-contiguous")
    got = matches_of(p, rs, [{"a": 0, "b_first": 1, "b_last": 3}])
    assert got == [Match.of({"a": [0], "b": [1, 3]})]


def test_literals_escape_quotes() -> None:
    assert literal("it's") == "'it''s'" and literal(True) == "TRUE" and literal(2) == "2"


# ---------------------------------------------------------------- the SQL:2016 oracle


def expected(text: str, rs: list[dict[str, Value]], skip: str = "TO NEXT ROW") -> set[Match]:
    return oracle(Request("operator", text, "contiguous", "inclusive", None, tuple(rs)), skip)[1]


def test_the_oracle_keeps_the_greedy_match_per_start_row() -> None:
    # Kleene's contiguous policy keeps a[0] b[1] and a[0] b[1,2]; SQL:2016 the greedy one.
    got = expected("PATTERN SEQ(A a, B+ b[])", rows("ABB"))
    assert got == {Match.of({"a": [0], "b": [1, 2]})}


def test_the_oracle_greedy_head() -> None:
    got = expected("PATTERN SEQ(A+ a[], B b)", rows("AAB"))
    assert got == {Match.of({"a": [0, 1], "b": [2]}), Match.of({"a": [1], "b": [2]})}
    past = expected("PATTERN SEQ(A+ a[], B b)", rows("AAB"), "PAST LAST ROW")
    assert past == {Match.of({"a": [0, 1], "b": [2]})}


def test_the_oracle_past_last_row_resumes_after_the_match() -> None:
    got = expected("PATTERN SEQ(A a, A b)", rows("AAAA"), "PAST LAST ROW")
    assert got == {Match.of({"a": [0], "b": [1]}), Match.of({"a": [2], "b": [3]})}
    assert len(expected("PATTERN SEQ(A a, A b)", rows("AAAA"))) == 3


def test_the_oracle_counts_and_partitions() -> None:
    p = plan("PATTERN SEQ(A a, B+ b[])", rows("AB"))
    assert mr_oracle.counts(p, Match.of({"a": [0], "b": [1, 2]})) == (1, 2)
    s = Stream.from_rows([{"ts": 0, "ID": 1}, {"ts": 1, "ID": 2}, {"ts": 2, "ID": 1}])
    assert mr_oracle.partitions(s, ("ID",)) == [[0, 2], [1]]


def test_the_probe_finds_translatable_requests_in_the_cases() -> None:
    found = list(requests(load_case_files()))
    assert found and all(r.language == "operator" for _, r in found)
    translatable = 0
    for _, r in found:
        try:
            oracle(r, "TO NEXT ROW")
            translatable += 1
        except (Untranslatable, KleeneError):
            pass
    assert translatable > 20
