"""MATCH_RECOGNIZE's static rules (reference/match_recognize/checks.py): each of the
standard's semantic errors raises its code at the offending node's line and column, in
one line; what the standard allows passes; SQL Kleene does not read is one
``Unsupported`` line naming it; and any text at all either parses or is one Kleene
error."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kleene.reference.errors import (
    KleeneError,
    PatternSyntaxError,
    RecognitionError,
    Unsupported,
)
from kleene.reference.match_recognize import checks
from kleene.reference.match_recognize.ast import AfterMatchSkip
from kleene.reference.match_recognize.checks import CODES
from kleene.reference.match_recognize.parser import parse_statement

#: A query around a clause's parts (line 1 is the SELECT, the parts start on line 2).
QUERY = "SELECT * FROM t MATCH_RECOGNIZE (\n{}\n)"

_CODES_TESTED = [
    ("define-not-in-pattern", "PATTERN (A)\nDEFINE A AS x > 0, B AS x > 1", (3, 20)),
    ("duplicate-define", "PATTERN (A)\nDEFINE A AS x > 0, \"a\" AS x > 1", (3, 20)),
    ("subset-is-pattern-variable", "PATTERN (A B)\nSUBSET A = (A, B)", (3, 8)),
    ("subset-unknown-variable", "PATTERN (A B)\nSUBSET U = (A, C)", (3, 8)),
    ("duplicate-subset", "PATTERN (A B)\nSUBSET U = (A), U = (B)", (3, 17)),
    ("skip-target-unknown", "AFTER MATCH SKIP TO FIRST C\nPATTERN (A B)", (2, 1)),
    ("undefined-variable", "MEASURES LAST(C.x) AS y\nPATTERN (A B)", (2, 15)),
    ("undefined-variable", "MEASURES COUNT(C.*) AS y\nPATTERN (A B)", (2, 10)),
    ("undefined-variable", "PATTERN (A B)\nDEFINE A AS CLASSIFIER(Q) = 'A'", (3, 13)),
    ("nested-physical-navigation", "PATTERN (A)\nDEFINE A AS PREV(NEXT(x)) > 0", (3, 18)),
    ("nested-logical-navigation", "PATTERN (A)\nDEFINE A AS FIRST(LAST(x)) > 0", (3, 19)),
    ("nested-logical-navigation", "PATTERN (A)\nDEFINE A AS LAST(PREV(x)) > 0", (3, 18)),
    ("aggregate-in-navigation", "PATTERN (A)\nDEFINE A AS PREV(SUM(x)) > 0", (3, 18)),
    ("navigation-in-aggregate", "PATTERN (A)\nDEFINE A AS SUM(PREV(x)) > 0", (3, 17)),
    ("aggregate-in-aggregate", "MEASURES MAX(COUNT(*)) AS y\nPATTERN (A)", (2, 14)),
    ("mixed-variables", "PATTERN (A B)\nDEFINE B AS PREV(A.x + B.x) > 0", (3, 13)),
    ("mixed-variables", "MEASURES SUM(A.x * y) AS s\nPATTERN (A B)", (2, 10)),
    ("mixed-variables", "MEASURES NEXT(CLASSIFIER() || A.p) AS c\nPATTERN (A B)", (2, 10)),
    ("negative-offset", "PATTERN (A)\nDEFINE A AS PREV(x, -1) > 0", (3, 13)),
    ("offset-not-constant", "PATTERN (A)\nDEFINE A AS PREV(x, y) > 0", (3, 21)),
    ("misplaced-semantics", "MEASURES FINAL PREV(x) AS p\nPATTERN (A)", (2, 16)),
    ("final-in-define", "PATTERN (A)\nDEFINE A AS FINAL LAST(x) > 0", (3, 19)),
    ("match-number-in-define", "PATTERN (A)\nDEFINE A AS MATCH_NUMBER() = 1", (3, 13)),
    ("pattern-function-outside", "PARTITION BY A.x\nPATTERN (A)", (2, 14)),
    ("pattern-function-outside", "ORDER BY PREV(x)\nPATTERN (A)", (2, 10)),
    ("duplicate-measure", "MEASURES x AS y, x + 1 AS \"Y\"\nPATTERN (A)", (2, 18)),
    ("exclusion-with-unmatched-rows", "ALL ROWS PER MATCH WITH UNMATCHED ROWS\n"
     "PATTERN (A {- B -})", (3, 12)),
    ("mixed-variables", "MEASURES SUM(A.x) FILTER (WHERE B.x > 0) AS s\nPATTERN (A B)", (2, 10)),
    ("recognition-in-subquery", "PATTERN (A)\n"
     "DEFINE A AS x > (SELECT max(y) FROM u MATCH_RECOGNIZE (PATTERN (B)))", (3, 39)),
    ("window-function", "MEASURES SUM(x) OVER () AS s\nPATTERN (A)", (2, 17)),
]


@pytest.mark.parametrize(("code", "body", "at"), _CODES_TESTED)
def test_each_semantic_error_has_its_code_and_place(code: str, body: str,
                                                    at: tuple[int, int]) -> None:
    with pytest.raises(RecognitionError) as caught:
        parse_statement(QUERY.format(body), "q.sql")
    error = caught.value
    assert (error.code, (error.line, error.column)) == (code, at)
    assert str(error).startswith(f"q.sql:{at[0]}:{at[1]}: ") and str(error).endswith(f"[{code}]")
    assert "\n" not in str(error)


def test_every_code_is_listed_and_tested() -> None:
    tested = {args[0] for args in _CODES_TESTED}
    assert tested == set(CODES)
    assert all(f"``{code}``" in checks.__doc__ for code in CODES)


def test_the_standard_s_allowances_are_not_errors() -> None:
    """``PREV(LAST(…))`` nests a logical navigation in a physical one (TR §4.11.3), a
    union variable qualifies a column, ``AFTER MATCH SKIP TO`` a union variable, and
    ``CLASSIFIER``, aggregates and ``RUNNING`` may appear in ``DEFINE``."""
    (recognition,) = parse_statement(QUERY.format(
        "AFTER MATCH SKIP TO LAST U PATTERN (A B+) SUBSET U = (A, B)\n"
        "DEFINE B AS PREV(LAST(U.x, 1), 2) < RUNNING AVG(U.x) AND CLASSIFIER() = 'B'"
    )).recognitions
    assert recognition.clause.after_match == AfterMatchSkip("TO LAST", "U")


#: Words and marks SQL around and inside MATCH_RECOGNIZE is made of.
_WORDS = ("SELECT * FROM t MATCH_RECOGNIZE ( ) PATTERN DEFINE A B AS x > PREV , 1 's' {- -} + ? "
          "{ } 2 MEASURES ORDER BY PARTITION SUBSET = AFTER MATCH SKIP TO FIRST LAST NEXT ROW "
          "ONE ALL PER COUNT CASE WHEN THEN END CAST | ^ $ PERMUTE WITHIN INTERVAL '10' SECOND "
          "NOT IN BETWEEN AND IS NULL . - RUNNING FINAL CLASSIFIER MATCH_NUMBER \"q\" 1.5 1e3 "
          "DISTINCT LIKE ELSE SHOW EMPTY MATCHES WITH UNMATCHED OMIT PAST :: [ ] --c\n").split(" ")


@given(st.sampled_from(("", QUERY.format("PATTERN (A B) DEFINE A AS")[:-2])),
       st.lists(st.sampled_from(_WORDS), max_size=30))
def test_any_text_parses_or_is_one_kleene_error(head: str, words: list[str]) -> None:
    """Bad input is a ``KleeneError`` in one line naming the place (a syntax error adds
    the line and its caret), never another exception (docs/architecture.md, "Bad input")."""
    try:
        parse_statement(head + " " + " ".join(words))
    except KleeneError as error:
        lines = str(error).splitlines()
        assert "<query>:" in lines[0]
        assert len(lines) == 1 or (isinstance(error, PatternSyntaxError) and len(lines) == 3)


@pytest.mark.parametrize(("text", "what"), [
    (QUERY.format("PATTERN (A) MEASURES x AS y"), "MEASURES after PATTERN"),
    (QUERY.format("PATTERN (A) DEFINE AUTO"), "DEFINE AUTO (DuckDB's)"),
    (QUERY.format("PATTERN (A) DEFINES A AS x > 0"), "DEFINES (DuckDB's spelling"),
    (QUERY.format("PATTERN (A) DEFINE A AS list_filter(x, lambda v: v > 1)"), "a lambda"),
    (QUERY.format("PATTERN (A) DEFINE A AS x::INTEGER > 1"), "'::' cast"),
    (QUERY.format("PATTERN (A) DEFINE A AS EXISTS (SELECT 1)"), "a subquery"),
    (QUERY.format("PATTERN (A) DEFINE A AS abs(x) FILTER (WHERE x > 1) > 1"),
     "FILTER after a function that is no aggregate"),
    (QUERY.format("SEEK PATTERN (A)"), "SEEK"),
    (QUERY.format("PATTERN (A) DEFINE A AS x IS NOT DISTINCT FROM y"), "IS [NOT] DISTINCT"),
    (QUERY.format("PATTERN (A)") + " MATCH_RECOGNIZE (PATTERN (B))", "over another one's output"),
    ("SELECT * FROM a JOIN b ON true MATCH_RECOGNIZE (PATTERN (A))", "a join?"),
])
def test_what_kleene_does_not_read_is_one_unsupported_line(text: str, what: str) -> None:
    with pytest.raises(Unsupported) as caught:
        parse_statement(text, "q.sql")
    message = str(caught.value)
    assert "\n" not in message and what in message and message.startswith("unsupported: q.sql:")
