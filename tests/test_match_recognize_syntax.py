"""MATCH_RECOGNIZE's syntax: the lexer, the parser (hand-written ASTs of the query shapes
of DuckDB's Oracle-checked file, written inline), error positions, the standard's
semantic errors by code, and printing then parsing (Hypothesis)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from kleene.reference.errors import PatternSyntaxError
from kleene.reference.match_recognize.ast import (
    Aggregate,
    Binary,
    Column,
    Concat,
    Define,
    MatchRecognize,
    Measure,
    Navigation,
    Quantified,
    Recognition,
    SortKey,
    Statement,
    TableName,
    Var,
)
from kleene.reference.match_recognize.lexer import Source, tokenize
from kleene.reference.match_recognize.parser import parse_statement


def clause_of(text: str) -> MatchRecognize:
    """The one recognition's clause of ``text``."""
    statement = parse_statement(text)
    assert len(statement.recognitions) == 1
    return statement.recognitions[0].clause


def in_query(body: str) -> str:
    return f"SELECT * FROM t MATCH_RECOGNIZE (\n{body}\n)"


PRICE, TS = Column("PRICE"), Column("TS")
DOWN_UP = (Define("DOWN", Binary("<", PRICE, Navigation("PREV", PRICE, 1))),
           Define("UP", Binary(">", PRICE, Navigation("PREV", PRICE, 1))))


# ---------------------------------------------------------------- the lexer


def test_tokens_keep_offsets_values_and_kinds() -> None:
    text = "a.\"Mixed\" -- note\n/* c */ 'it''s' 12 1.50 1e3 {- -} <> ||"
    tokens = tokenize(text)
    assert [(t.kind, t.value, t.at) for t in tokens] == [
        ("ident", "A", 0), ("op", ".", 1), ("qident", "Mixed", 2),
        ("string", "it's", 26), ("number", 12, 34), ("number", Decimal("1.50"), 37),
        ("number", 1000.0, 42), ("op", "{-", 46), ("op", "-}", 49), ("op", "<>", 52),
        ("op", "||", 55), ("end", None, 57)]
    assert isinstance(tokens[4].value, int) and isinstance(tokens[6].value, float)


@pytest.mark.parametrize(("text", "line", "column", "what"), [
    ("SELECT 'abc", 1, 8, "string not closed"),
    ("SELECT\n  \"abc", 2, 3, "quoted identifier not closed"),
    ("SELECT 1\n/* open", 2, 1, "comment not closed"),
])
def test_unclosed_tokens_say_where(text: str, line: int, column: int, what: str) -> None:
    with pytest.raises(PatternSyntaxError) as caught:
        tokenize(text, Source(text, "q.sql"))
    assert (caught.value.line, caught.value.column) == (line, column)
    assert what in str(caught.value) and str(caught.value).startswith(f"q.sql:{line}:{column}:")


# ---------------------------------------------------------------- Oracle's query shapes


def test_v_shape() -> None:
    text = """SELECT sym, start_ts
FROM ticks MATCH_RECOGNIZE (
  PARTITION BY sym ORDER BY ts
  MEASURES FIRST(ts) AS start_ts, LAST(DOWN.ts) AS bottom_ts, LAST(ts) AS end_ts, COUNT(*) AS len
  ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW
  PATTERN (STRT DOWN+ UP+)
  DEFINE DOWN AS price < PREV(price), UP AS price > PREV(price)
) ORDER BY sym, start_ts"""
    statement = parse_statement(text)
    clause = MatchRecognize(
        pattern=Concat((Var("STRT"), Quantified(Var("DOWN"), 1, None),
                        Quantified(Var("UP"), 1, None))),
        defines=DOWN_UP, partition_by=(Column("SYM"),), order_by=(SortKey(TS),),
        measures=(Measure(Navigation("FIRST", TS, 0), "START_TS"),
                  Measure(Navigation("LAST", Column("TS", "DOWN"), 0), "BOTTOM_TS"),
                  Measure(Navigation("LAST", TS, 0), "END_TS"),
                  Measure(Aggregate("COUNT", None), "LEN")))
    start = text.index("ticks")
    end = text.index(") ORDER BY sym, start_ts") + 1
    assert statement == Statement(text, (Recognition(TableName("ticks"), clause, None, start,
                                                     end),))
    assert text[start:end].startswith("ticks MATCH_RECOGNIZE (") and text[end - 1] == ")"
