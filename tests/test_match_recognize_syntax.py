"""MATCH_RECOGNIZE's syntax: the lexer, the parser (hand-written ASTs of the query shapes
of DuckDB's Oracle-checked file, written inline), syntax error positions, and printing then
parsing (Hypothesis). What Kleene does not read and the semantic errors are
tests/test_match_recognize_checks.py's."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given

from kleene.conformance.recognize_strategies import match_recognize_clauses, statements
from kleene.reference.errors import PatternSyntaxError
from kleene.reference.match_recognize.ast import (
    AfterMatchSkip,
    Aggregate,
    Alt,
    Anchor,
    Between,
    Binary,
    Call,
    Case,
    Cast,
    Classifier,
    Column,
    Concat,
    Define,
    Empty,
    Exclude,
    Expr,
    InList,
    IsNull,
    Like,
    Literal,
    MatchNumber,
    MatchRecognize,
    Measure,
    Navigation,
    Permute,
    Quantified,
    Recognition,
    RowPattern,
    SortKey,
    Statement,
    Subset,
    TableName,
    Unary,
    Var,
    Within,
)
from kleene.reference.match_recognize.lexer import Source, tokenize
from kleene.reference.match_recognize.parser import parse_statement
from kleene.reference.match_recognize.printer import (
    format_clause,
    format_expr,
    format_pattern,
    format_statement,
)


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


def A(name: str = "A") -> Var:  # noqa: N802 - a pattern variable, as the SQL writes it
    return Var(name)


def plus(p: RowPattern, reluctant: bool = False) -> Quantified:
    return Quantified(p, 1, None, reluctant)


@pytest.mark.parametrize(("pattern", "expected"), [
    ("A+ B B", Concat((plus(A()), A("B"), A("B")))),                      # greedy giveback
    ("A* B", Concat((Quantified(A(), 0, None), A("B")))),
    ("Z*", Quantified(A("Z"), 0, None)),                                   # empty matches
    ("A B?", Concat((A(), Quantified(A("B"), 0, 1)))),                     # optional tail
    ("(X | Y)+", plus(Alt((A("X"), A("Y"))))),                             # left preferred
    ("A+? B", Concat((plus(A(), True), A("B")))),                          # reluctant
    ("A*? B", Concat((Quantified(A(), 0, None, True), A("B")))),
    ("A{1,3}?", Quantified(A(), 1, 3, True)),
    ("A?? B", Concat((Quantified(A(), 0, 1, True), A("B")))),
    ("PERMUTE(A, B, C)", Permute((A(), A("B"), A("C")))),
    ("PERMUTE(A+, B)", Permute((plus(A()), A("B")))),
    ("^ A{2} $", Concat((Anchor("^"), Quantified(A(), 2, 2), Anchor("$")))),
    ("A{2,3}", Quantified(A(), 2, 3)),
    ("A{2,}", Quantified(A(), 2, None)),
    ("A{,3}", Quantified(A(), 0, 3)),
    ("(A B?)+", plus(Concat((A(), Quantified(A("B"), 0, 1))))),
    ("{- STRT -} DOWN+ UP+", Concat((Exclude(A("STRT")), plus(A("DOWN")), plus(A("UP"))))),
    ("A ({- B -})+ A", Concat((A(), plus(Exclude(A("B"))), A()))),
    ("{- A+ -}", Exclude(plus(A()))),
    ("()", Empty()),
    ("() A", Concat((Empty(), A()))),
    ("A | B C | (D)", Alt((A(), Concat((A("B"), A("C"))), A("D")))),
    ("(A | B) | C", Alt((Alt((A(), A("B"))), A("C")))),
    ("a \"b\" \"B\"", Concat((A(), A("b"), A("B")))),                    # case folding
])
def test_row_patterns(pattern: str, expected: RowPattern) -> None:
    assert clause_of(in_query(f"PATTERN ({pattern})")).pattern == expected


@pytest.mark.parametrize(("skip", "expected"), [
    ("", AfterMatchSkip("PAST LAST ROW")),
    ("AFTER MATCH SKIP PAST LAST ROW", AfterMatchSkip("PAST LAST ROW")),
    ("AFTER MATCH SKIP TO NEXT ROW", AfterMatchSkip("TO NEXT ROW")),
    ("AFTER MATCH SKIP TO FIRST UP", AfterMatchSkip("TO FIRST", "UP")),
    ("AFTER MATCH SKIP TO LAST DOWN", AfterMatchSkip("TO LAST", "DOWN")),
    ("AFTER MATCH SKIP TO DOWN", AfterMatchSkip("TO LAST", "DOWN")),
])
def test_the_five_skips(skip: str, expected: AfterMatchSkip) -> None:
    clause = clause_of(in_query(f"{skip} PATTERN (STRT DOWN+ UP+)"))
    assert clause.after_match == expected


@pytest.mark.parametrize(("rows", "expected"), [
    ("", "ONE"), ("ONE ROW PER MATCH", "ONE"), ("ALL ROWS PER MATCH", "ALL SHOW"),
    ("ALL ROWS PER MATCH SHOW EMPTY MATCHES", "ALL SHOW"),
    ("ALL ROWS PER MATCH OMIT EMPTY MATCHES", "ALL OMIT"),
    ("all rows per match with unmatched rows", "ALL WITH UNMATCHED"),
])
def test_rows_per_match(rows: str, expected: str) -> None:
    assert clause_of(in_query(f"{rows} PATTERN (A)")).rows_per_match == expected


def test_initial_is_the_default_and_said_before_pattern() -> None:
    assert clause_of(in_query("INITIAL PATTERN (A)")) == clause_of(in_query("PATTERN (A)"))


def test_running_final_subset_order_and_within() -> None:
    clause = clause_of(in_query("""
  PARTITION BY sym, g ORDER BY ts DESC NULLS LAST, c ASC NULLS FIRST, seq
  MEASURES RUNNING COUNT(*) AS run_cnt, FINAL MAX(price) AS fin_max,
           FINAL LAST(DU.ts, 1) AS l1, COUNT(DISTINCT strt.*) AS n, CLASSIFIER() AS cls,
           MATCH_NUMBER() AS mno, LAST(UP.ts) - FIRST(STRT.ts) AS span
  ALL ROWS PER MATCH
  PATTERN (STRT DOWN+ UP+)
  WITHIN INTERVAL '10' SECOND
  SUBSET DU = (DOWN, UP), "u" = (STRT)
  DEFINE DOWN AS price < PREV(price), UP AS price > PREV(price)"""))
    assert clause.partition_by == (Column("SYM"), Column("G"))
    assert clause.order_by == (SortKey(TS, True, False), SortKey(Column("C"), False, True),
                               SortKey(Column("SEQ")))
    assert clause.measures == (
        Measure(Aggregate("COUNT", None, semantics="RUNNING"), "RUN_CNT"),
        Measure(Aggregate("MAX", PRICE, semantics="FINAL"), "FIN_MAX"),
        Measure(Navigation("LAST", Column("TS", "DU"), 1, "FINAL"), "L1"),
        Measure(Aggregate("COUNT", None, "STRT", distinct=True), "N"),
        Measure(Classifier(), "CLS"), Measure(MatchNumber(), "MNO"),
        Measure(Binary("-", Navigation("LAST", Column("TS", "UP"), 0),
                       Navigation("FIRST", Column("TS", "STRT"), 0)), "SPAN"))
    assert clause.subsets == (Subset("DU", ("DOWN", "UP")), Subset("u", ("STRT",)))
    assert clause.within == Within(Decimal("10"), "SECOND")
    assert clause.defines == DOWN_UP and clause.rows_per_match == "ALL SHOW"


X, Y = Column("X"), Column("Y")


@pytest.mark.parametrize(("text", "expected"), [
    ("x + y * 2 - 1", Binary("-", Binary("+", X, Binary("*", Y, Literal(2))), Literal(1))),
    ("x - (y - 1)", Binary("-", X, Binary("-", Y, Literal(1)))),
    ("-x * -1 % 2", Binary("%", Binary("*", Unary("-", X), Literal(-1)), Literal(2))),
    ("-(1)", Unary("-", Literal(1))),
    ("1.50 = 1e2", Binary("=", Literal(Decimal("1.50")), Literal(100.0))),
    ("'a' || s || 'it''s'", Binary("||", Binary("||", Literal("a"), Column("S")),
                                   Literal("it's"))),
    ("x > 1 AND NOT y <= 2 OR x != y", Binary("OR", Binary("AND", Binary(">", X, Literal(1)),
                                                       Unary("NOT", Binary("<=", Y, Literal(2)))),
                                              Binary("<>", X, Y))),
    ("x IS NOT NULL AND y IS NULL", Binary("AND", IsNull(X, True), IsNull(Y))),
    ("x NOT BETWEEN 1 AND y + 1 AND TRUE",
     Binary("AND", Between(X, Literal(1), Binary("+", Y, Literal(1)), True), Literal(True))),
    ("x IN (1, NULL, 'a')", InList(X, (Literal(1), Literal(None), Literal("a")))),
    ("s NOT LIKE 'a%'", Like(Column("S"), Literal("a%"), True)),
    ("CASE WHEN x > 0 THEN 'p' ELSE 'n' END",
     Case(None, ((Binary(">", X, Literal(0)), Literal("p")),), Literal("n"))),
    ("CASE x WHEN 1 THEN y END", Case(X, ((Literal(1), Y),))),
    ("CAST(x AS decimal(10, 2)) + CAST(y AS DOUBLE PRECISION)",
     Binary("+", Cast(X, "DECIMAL(10,2)"), Cast(Y, "DOUBLE PRECISION"))),
    ("DATE '2024-01-02'", Cast(Literal("2024-01-02"), "DATE")),
    ("abs(x) + coalesce(x, y, 0)", Binary("+", Call("ABS", (X,)),
                                         Call("COALESCE", (X, Y, Literal(0))))),
    ("PREV(LAST(A.x, 1), 2)", Navigation("PREV", Navigation("LAST", Column("X", "A"), 1), 2)),
    ("NEXT(x) + FIRST(B.x * 2)", Binary("+", Navigation("NEXT", X, 1),
                                        Navigation("FIRST", Binary("*", Column("X", "B"),
                                                                   Literal(2)), 0))),
    ("RUNNING AVG(A.x + 1) > SUM(DISTINCT x)",
     Binary(">", Aggregate("AVG", Binary("+", Column("X", "A"), Literal(1)), "A",
                           semantics="RUNNING"),
            Aggregate("SUM", X, None, distinct=True))),
    ("CLASSIFIER(A) = 'A'", Binary("=", Classifier("A"), Literal("A"))),
    ('A."Mixed" > a.x', Binary(">", Column("Mixed", "A"), Column("X", "A"))),
])
def test_expressions(text: str, expected: object) -> None:
    condition = clause_of(in_query(f"PATTERN (A B) DEFINE A AS {text}")).defines[0].condition
    assert condition == expected


def test_keywords_that_are_not_reserved_name_columns_and_variables() -> None:
    """Function names and the clause's inner words may name a column, a measure or a
    variable (Oracle's and DuckDB's files do: ``time``, ``running``, ``PERMUTE``); the
    printer quotes them, and reads them back."""
    text = in_query("ORDER BY time MEASURES first + 1 AS running, COUNT(date) AS final\n"
                    "PATTERN (PERMUTE auto) DEFINE PERMUTE AS prev(first) > 0, auto AS TRUE")
    clause = clause_of(text)
    assert clause.order_by == (SortKey(Column("TIME")),)
    assert clause.measures == (
        Measure(Binary("+", Column("FIRST"), Literal(1)), "RUNNING"),
        Measure(Aggregate("COUNT", Column("DATE")), "FINAL"))
    assert clause.pattern == Concat((Var("PERMUTE"), Var("AUTO")))
    assert [d.var for d in clause.defines] == ["PERMUTE", "AUTO"]
    printed = format_clause(clause)
    assert 'PATTERN ("PERMUTE" "AUTO")' in printed and 'AS "RUNNING"' in printed
    assert clause_of(in_query(printed)) == clause


# ---------------------------------------------------------------- statements


def test_sources_aliases_and_places() -> None:
    text = ("WITH x AS (SELECT * FROM s.t MATCH_RECOGNIZE (PATTERN (A)) AS m)\n"
            "SELECT * FROM (SELECT * FROM (VALUES (1)) v(x) MATCH_RECOGNIZE (PATTERN (B)) q)"
            " MATCH_RECOGNIZE (PATTERN (C)) WHERE 1 = 1\n"
            "UNION ALL SELECT * FROM range(3) t(x) MATCH_RECOGNIZE (PATTERN (D)) r, ticks k "
            "MATCH_RECOGNIZE (PATTERN (E))")
    statement = parse_statement(text)
    pieces = [text[r.start:r.end] for r in statement.recognitions]
    assert [p.rsplit(" MATCH_RECOGNIZE", 1)[0] for p in pieces] == [
        "s.t", "(SELECT * FROM (VALUES (1)) v(x) MATCH_RECOGNIZE (PATTERN (B)) q)",
        "range(3) t(x)", "ticks k"]
    assert all(p.endswith("))") for p in pieces)
    first, second, third, fourth = statement.recognitions
    assert (first.source, first.alias) == (TableName("s.t"), "M")
    assert (second.alias, third.alias, fourth.alias) == (None, "R", None)
    assert (third.source, fourth.source) == (TableName("range(3) t(x)"), TableName("ticks k"))
    inner = second.source
    assert isinstance(inner, Statement)
    assert inner.text == "SELECT * FROM (VALUES (1)) v(x) MATCH_RECOGNIZE (PATTERN (B)) q"
    assert text[inner.at:].startswith(inner.text)
    (nested,) = inner.recognitions
    assert (nested.source, nested.clause.pattern, nested.alias) == (
        TableName("(VALUES (1)) v(x)"), Var("B"), "Q")
    assert inner.text[nested.start:nested.end].endswith("(PATTERN (B))")
    assert parse_statement("SELECT * FROM (SELECT 1) MATCH_RECOGNIZE (PATTERN (A))"
                           ).recognitions[0].source == Statement("SELECT 1", ())


# ---------------------------------------------------------------- errors


@pytest.mark.parametrize(("text", "line", "column", "message"), [
    (in_query("PATTERN (A B"), 3, 2, "or ')', found end of input"),
    (in_query("PATTERN (A B\nDEFINE A AS TRUE"), 3, 1, "expected ')' closing the pattern, "
     "found 'DEFINE'"),
    (in_query("  MEASURES x\n  PATTERN (A)"), 3, 3, "expected AS and the measure's name"),
    (in_query("PATTERN (A)\nDEFINE A"), 4, 1, "expected AS and the variable's condition"),
    (in_query("PATTERN (A{2,1})"), 2, 10, "minimum (2) is larger than its maximum (1)"),
    # the standard's bounds ({n}: n > 0, {n,m}: 0 < m, {,m}: m > 0; Oracle lists them so)
    (in_query("PATTERN (A{0} B)"), 2, 10, "a quantifier's maximum must be at least 1"),
    (in_query("PATTERN (A{,0} B)"), 2, 10, "a quantifier's maximum must be at least 1"),
    (in_query("PATTERN (A{0,0} B)"), 2, 10, "a quantifier's maximum must be at least 1"),
    (in_query("PATTERN (A**)"), 2, 12, "one quantifier per factor"),
    (in_query("PATTERN (A | )"), 2, 14, "expected a pattern variable"),
    (in_query("ORDER BY ts\nMEASURES x AS y"), 4, 1, "MATCH_RECOGNIZE needs a PATTERN clause"),
    (in_query("PATTERN (A)\nPATTERN (B)"), 3, 1, "more than one PATTERN clause"),
    (in_query("INITIAL DEFINE A AS TRUE"), 2, 9, "expected PATTERN after INITIAL"),
    (in_query("PATTERN (A) DEFINE A AS x >\n  > 1"), 3, 3, "expected an expression"),
    (in_query("PATTERN (A) DEFINE A AS PREV()"), 2, 30, "expected the expression PREV() reads"),
    (in_query("PATTERN (A) WITHIN INTERVAL 'ten' SECOND"), 2, 29, "a number in the interval"),
    (in_query("PATTERN (A) WITHIN INTERVAL '1' FORTNIGHT"), 2, 33, "an interval unit"),
    ("SELECT *\nFROM (\n  SELECT * FROM t MATCH_RECOGNIZE (PATTERN (A B|))\n) MATCH_RECOGNIZE "
     "(PATTERN (C))", 3, 49, "expected a pattern variable"),
    ("SELECT * FROM MATCH_RECOGNIZE (PATTERN (A))", 1, 15, "expected a table or a "
     "parenthesised query before MATCH_RECOGNIZE"),
    ("SELECT 1\n  FROM x) MATCH_RECOGNIZE (PATTERN (A))", 2, 9, "')' closes no '('"),
    (in_query("PATTERN (" + "(" * 101 + "A" + ")" * 101 + ")"), 2, 108, "nesting deeper than"),
])
def test_syntax_errors_name_line_column_and_caret(text: str, line: int, column: int,
                                                  message: str) -> None:
    with pytest.raises(PatternSyntaxError) as caught:
        parse_statement(text, "q.sql")
    error = caught.value
    assert (error.line, error.column, error.source) == (line, column, "q.sql")
    head, shown, caret = str(error).splitlines()
    assert head.startswith(f"q.sql:{line}:{column}: ") and message in head
    assert shown == "  " + text.splitlines()[line - 1]
    assert caret == " " * (column + 1) + "^"


# ---------------------------------------------------------------- printing


@given(statements())
def test_printing_then_parsing_gives_the_same_statement(statement: Statement) -> None:
    text = format_statement(statement)
    assert text == statement.text
    assert parse_statement(text) == statement


@given(match_recognize_clauses())
def test_a_printed_clause_reads_back(clause: MatchRecognize) -> None:
    assert clause_of(in_query(format_clause(clause))) == clause


@pytest.mark.parametrize(("expr", "text"), [
    (Binary("-", X, Binary("-", Y, Literal(1))), "X - (Y - 1)"),
    (Binary("=", Binary("=", X, Y), Literal(True)), "(X = Y) = TRUE"),
    (Unary("-", Literal(1)), "-(1)"),
    (Unary("-", Unary("-", X)), "-(-X)"),
    (Binary("-", X, Literal(-1)), "X - -1"),
    (Unary("NOT", Binary("AND", X, Y)), "NOT (X AND Y)"),
    (Between(X, Binary("AND", X, Y), Y), "X BETWEEN (X AND Y) AND Y"),
    (Literal(1.5), "1.5e0"), (Literal(Decimal("1E+2")), "100.0"), (Literal("it's"), "'it''s'"),
    (Column("x", "a"), '"a"."x"'), (Column("ROWS"), '"ROWS"'),
    (Navigation("PREV", X, 1), "PREV(X)"), (Navigation("LAST", X, 2, "FINAL"), "FINAL LAST(X, 2)"),
    (Aggregate("COUNT", None, "A", True), "COUNT(DISTINCT A.*)"),
])
def test_expressions_print_with_the_parentheses_their_tree_needs(expr: Expr, text: str) -> None:
    assert format_expr(expr) == text


def test_a_statement_prints_each_recognition_anew_and_keeps_the_rest() -> None:
    text = ("select a from (select * from t match_recognize (pattern (a b*?) define b as "
            "x>prev(x)) m) match_recognize (pattern (c)) as z where a>1")
    assert format_statement(parse_statement(text)) == (
        "select a from (select * from t MATCH_RECOGNIZE (\n  PATTERN (A B*?)\n  "
        "DEFINE B AS X > PREV(X)\n) m) MATCH_RECOGNIZE (\n  PATTERN (C)\n) as z where a>1")
    assert format_pattern(Concat((Alt((A(), A("B"))), Quantified(Concat((A(), A("B"))), 0,
                                                                  None, True)))) == \
        "(A | B) (A B)*?"


@pytest.mark.parametrize(("source", "name"), [
    ("main.ticks k", "main.ticks k"), ("main.ticks AS k", "main.ticks AS k"),
    ("s.t k(a, b)", "s.t k(a, b)"), ("ticks k", "ticks k"), ("main.ticks", "main.ticks")])
def test_a_dotted_table_keeps_its_input_name(source: str, name: str) -> None:
    """``FROM main.ticks k MATCH_RECOGNIZE``: the source is the whole ``main.ticks k``
    (found writing docs/grammars.md: the parser read ``k`` alone, a table DuckDB lacks)."""
    (r,) = parse_statement(f"SELECT * FROM {source} MATCH_RECOGNIZE (PATTERN (A))").recognitions
    assert r.source == TableName(name)


@pytest.mark.parametrize(("text", "column", "message"), [
    ("SELECT * FROM t MATCH_RECOGNIZE (PATTERN (A) ) DEFINE A AS x > 0)", 65, "closes no"),
    ("SELECT * FROM (VALUES (1) t(x) MATCH_RECOGNIZE (PATTERN (A))", 15, "is not closed"),
    ("SELECT max((x) FROM t MATCH_RECOGNIZE (PATTERN (A))", 11, "is not closed"),
])
def test_parentheses_balance(text: str, column: int, message: str) -> None:
    """An extra ')' ended the clause early (its DEFINE was read as outer SQL) and an
    unclosed '(' passed to DuckDB; both are a syntax error at the parenthesis (found
    checking docs/grammars.md, whose statements balance their parentheses)."""
    with pytest.raises(PatternSyntaxError) as caught:
        parse_statement(text)
    assert (caught.value.line, caught.value.column) == (1, column)
    assert message in caught.value.message
