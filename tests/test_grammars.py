"""The grammars of docs/grammars.md are true of Kleene's parsers (issue 28, item 1).

A parser is built from each language's fenced ``lark`` blocks (tests.helpers); Kleene's
own parser is the other side. What Kleene accepts, the grammar derives: every case
file's pattern, patterns and statements the generators draw, every ``MATCH_RECOGNIZE``
statement Kleene accepts from DuckDB's sqllogictest files. What Kleene refuses with a
syntax error the grammar refuses too, unless the error is one of the checks the page lists
under "Refused beyond the grammar" (their messages below, by language).
"""

from __future__ import annotations

import functools
import random
from pathlib import Path
from typing import Any

import lark
import pytest
from hypothesis import HealthCheck, given, settings

from kleene.conformance.cases import load_case_files, load_optional_case_files
from kleene.conformance.recognize_strategies import statements
from kleene.conformance.sqllogictest.reader import expand, read_file
from kleene.conformance.sremo_strategies import sremo_expressions
from kleene.conformance.strategies import operator_patterns, ses_patterns
from kleene.reference.errors import KleeneError, PatternSyntaxError
from kleene.reference.languages import LANGUAGES
from kleene.reference.match_recognize.lexer import tokenize as sql_tokens
from kleene.reference.match_recognize.parser import parse_statement
from kleene.reference.operators.text import format_operator
from kleene.reference.ses.text import format_ses
from kleene.reference.sremo.text import format_sremo
from kleene.reference.syntax import tokenize
from tests.helpers import ROOT, grammar_accepts, grammar_blocks, grammar_text

#: The languages docs/grammars.md gives a grammar of (each its start rule's name).
LANGUAGE_NAMES = ("ses", "operator", "sremo", "wayeb", "match_recognize", "ceql")

#: Words of Kleene's messages for the syntax errors that docs/grammars.md lists under
#: "Refused beyond the grammar": text the grammar derives and the parser refuses.
BEYOND_GRAMMAR = {
    "ses": ("already declared", "a declared variable", "undeclared variable",
            "cannot use aggregates", "a non-negative duration", "a finite duration"),
    "operator": ("negation alone", "NOT cannot be a branch of OR", "a positive part",
                 "NOT inside NOT", "NOT under a Kleene operator", "needs 1 <= l <= m",
                 "declared twice", "both positive and negated", "declared by two NOTs",
                 "add WITHIN", "undeclared variable", "two NOTs", "no match binds together",
                 "not under an iteration", "a non-negative duration", "a finite duration"),
    "sremo": ("positive integer window size", "prev() and aggregates are not allowed",
              "is read before any path", "negation needs a window", "skip-till-next over",
              "cannot be used by another", "a non-negative duration", "a finite duration"),
    "wayeb": ("a setting not given yet", "a positive window", "a register name",
              "is read before any path", "negation needs a window", "skip-till-next over"),
    "match_recognize": ("more than one", "minimum", "maximum must be at least 1",
                        "a number in the interval's quotes"),
    "ceql": ("which its formula does not bind", "WITHIN n EVENTS with PARTITION BY",
             "a limit of at least 1", "a doubled quote in a LIKE"),
}


#: Refused beyond the grammar in every language that reads conditions (docs/grammars.md,
#: "Tokens and conditions"): a LIKE pattern outside the regex subset.
CONDITIONS_BEYOND = ("in the pattern of LIKE",)


def _kleene(language: str, text: str) -> KleeneError | None:
    """Kleene's verdict on ``text``: ``None`` (accepted) or the error."""
    try:
        LANGUAGES[language].parse(text, "<grammar test>")
    except KleeneError as err:
        return err
    return None


def _agree(language: str, text: str) -> None:
    """Accepted by Kleene: derived by the grammar; a syntax error: refused by the grammar
    unless it is one the page lists as beyond the grammar."""
    refused = _kleene(language, text)
    derived = grammar_accepts(language, text)
    if refused is None:
        assert derived, f"Kleene reads this {language} text, the grammar does not:\n{text}"
    elif isinstance(refused, PatternSyntaxError) and derived:
        assert any(words in refused.message
                   for words in (*BEYOND_GRAMMAR[language], *CONDITIONS_BEYOND)), (
            f"the grammar derives this {language} text, Kleene refuses it with a syntax "
            f"error docs/grammars.md does not list:\n{text}\n{refused}")


def test_the_page_has_a_grammar_of_every_language() -> None:
    blocks = grammar_blocks()
    assert set(LANGUAGE_NAMES) <= set(blocks)
    assert set(LANGUAGE_NAMES) == set(LANGUAGES), "a registered language has no grammar"


def _case_patterns() -> list[Any]:
    seen: dict[tuple[str, str], str] = {}
    for f in load_case_files() + load_optional_case_files():
        for case in f.cases:
            seen.setdefault((case.language, case.pattern), f.name)
    return [pytest.param(language, text, id=f"{name}:{i}")
            for i, ((language, text), name) in enumerate(seen.items())]


@pytest.mark.parametrize(("language", "text"), _case_patterns())
def test_every_case_pattern_agrees_with_its_grammar(language: str, text: str) -> None:
    _agree(language, text)


@functools.cache
def _explicit(language: str) -> lark.Lark:
    """The grammar's parser that keeps every parse of a text (``_ambig`` nodes)."""
    return lark.Lark(grammar_text(language), start=language, parser="earley",
                     lexer="dynamic", ambiguity="explicit")


def test_the_event_pattern_grammars_read_each_case_one_way() -> None:
    """SES, operator, SREMO and ``.sre``: every case pattern has one parse tree, so the
    precedence and grouping the page states are the grammar's. (The ``MATCH_RECOGNIZE``
    grammar is not: it reads the SQL around a recognition as loose tokens.)"""
    texts = {(case.language, case.pattern) for f in load_case_files() for case in f.cases
             if case.language != "match_recognize"}
    assert {language for language, _ in texts} == {"ses", "operator", "sremo", "wayeb"}
    for language, text in sorted(texts):
        if grammar_accepts(language, text):
            tree = _explicit(language).parse(text)
            assert not list(tree.find_data("_ambig")), f"{language}: two readings of {text}"


def test_a_case_files_syntax_errors_are_refused_by_the_grammar() -> None:
    """The case files' syntax errors that are syntactic: the grammar refuses them (here
    at least the unclosed sequence of sets of ses-errors.json)."""
    refused = [case.pattern for f in load_case_files() for case in f.cases
               if any(t.error == "syntax" for t in case.tests)
               and not grammar_accepts(case.language, case.pattern)]
    assert "PATTERN <{a}, {b} WHERE a.L = 'A' WITHIN 10" in refused


@pytest.mark.parametrize(("language", "text", "accepted"), [
    ("ses", "PATTERN <{a}, {b}> WHERE a.L = 'A' ANDROID b.L = 'B' WITHIN 1", False),
    ("ses", "PATTERN <{a}> WHERE a.L <= 1 AND NOT (a.M == 'x' OR TRUE) WITHIN 2 minutes", True),
    ("ses", "PATTERN <{and}> WITHIN 1", False),
    ("ses", "PATTERN ({a, p+}) WHERE prev(p.V) < p+.V WITHIN 1e3 ms // a comment", True),
    ("operator", "PATTERN SEQ(A a, B{2,} b[], ~(C c), ANY d) WHERE strict_contiguity", True),
    ("operator", "PATTERN SEQ(A a, B+ b) WITHIN 1", False),
    ("operator", "PATTERN SEQ(A a, B b[]) WITHIN 1", False),
    ("operator", "PATTERN SEQ(A+ a[], B b) WHERE SUM(a[i].x) > 2 AND a[i].x > a[i-1].x", True),
    ("operator", "PATTERN SEQ(A a, B b) WHERE a[i-2].x > 1", False),
    ("operator", "PATTERN SEQ(A strict_contiguity, B b) WHERE strict_contiguity.x = 1", True),
    ("operator", "PATTERN SEQ(A a, B b) WHERE strict_contiguity a.x = 1 WITHIN 2", True),
    ("sremo", "mark {~.x > -1} -> r ; !({~.y = r.y})[1..3] ; EPS + EMPTY", True),
    ("sremo", "(mark {TRUE})*[WITHIN 2 s] INTERSECT NEXT({TRUE}, mark {TRUE})", True),
    ("sremo", "{TRUE}[2..3]", False),
    ("sremo", "mark {~.x = 1} -> mark", False),
    ("wayeb", ';(IsEventTypePredicate(A), -BT(x, -1, 2.5)["r"], GTAttr(x, "r")){order:1}',
     True),
    ("wayeb", "*(A){window:3}", False),
    ("wayeb", ";(IsEventTypePredicate(A)){window:3}", False),
    ("wayeb", "TruePredicate{windowType:Time}", False),
    ("ceql", "select all * from S where (A as x ; B:+ : C+) as y or D filter x[v in {1, 'a'}"
             " or not (w < -2.5)] and y[v in range(1, 2)] -- CORE\n"
             "partition by [k, j] within 1 hour 2 seconds consume by none", True),
    ("ceql", "SELECT * WHERE ANDROID ; ALL FILTER ALL[NOTE = FILTERED] WITHIN 3 [t]", True),
    ("ceql", "SELECT * FROM S WHERE A FILTER A[3 IN {1}]", False),
    ("ceql", "SELECT * FROM S WHERE A WITHIN 3.5 EVENTS", False),
    ("ceql", "SELECT * FROM S WHERE A WITHIN 2 SECONDS 1 MINUTE", False),
    ("ceql", "SELECT NEXT * FROM S WHERE A CONSUME BY PARTITION LIMIT 3", True),
    ("ceql", "SELECT ANY * FROM S WHERE A", False),
    ("ceql", "SELECT * FROM S WHERE A LIMIT 3 CONSUME BY ANY", False),
    ("ceql", "SELECT * FROM S WHERE A ; : B", False),
    ("ceql", "SELECT * FROM S WHERE A FILTER A[name LIKE '^M.(SF|T)+$' AND NOT x like '']",
     True),
    ("ceql", "SELECT * FROM S WHERE A FILTER A[name LIKE other]", False),
    ("ceql", "SELECT * FROM S WHERE A FILTER A['MSFT' LIKE 'SF']", False),
    ("ses", "PATTERN <{a}, {p+}> WHERE a.L LIKE '[^A]' AND p+.x like 'a|b' WITHIN 1", True),
    ("operator", "PATTERN SEQ(A+ a[], B b) WHERE a[i].x LIKE 'x' WITHIN 1", True),
    ("operator", "PATTERN SEQ(A+ a[], B b) WHERE a[i-1].x LIKE 'x' WITHIN 1", False),
    ("sremo", "mark {~.x LIKE 'a' AND NOT ~.y LIKE '^b'}", True),
    ("sremo", "mark {~.x LIKE 1}", False),
    ("sremo", "mark {prev(~.x) LIKE 'a'}", False),
])
def test_hand_written_texts(language: str, text: str, accepted: bool) -> None:
    """Texts chosen to reach the corners (whole-word keywords, comments, the forms of
    repetition and of windows, arities, spellings), each verdict worked out by hand from
    the page: the grammar and Kleene both give it."""
    assert grammar_accepts(language, text) == accepted
    assert (_kleene(language, text) is None) == accepted


SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@SETTINGS
@given(ses_patterns())
def test_generated_ses_patterns_parse(pattern: Any) -> None:
    assert grammar_accepts("ses", format_ses(pattern))


@SETTINGS
@given(operator_patterns(subpattern_kleene=True))
def test_generated_operator_patterns_parse(pattern: Any) -> None:
    assert grammar_accepts("operator", format_operator(pattern))


@SETTINGS
@given(sremo_expressions(time_windows=True))
def test_generated_sremo_expressions_parse(e: Any) -> None:
    assert grammar_accepts("sremo", format_sremo(e))


@SETTINGS
@given(statements())
def test_generated_statements_parse(statement: Any) -> None:
    assert grammar_accepts("match_recognize", statement.text)


def _sqllogictest_statements() -> list[str]:
    files = sorted((ROOT / "conformance" / "sqllogictest" / "duckdb").glob("*.test*"))
    files += sorted((ROOT / "conformance" / "sqllogictest" / "kleene").glob("*.test"))
    seen: dict[str, None] = {}
    for path in files:
        for record in expand(read_file(Path(path))):
            sql = getattr(record, "sql", None)
            if sql and "MATCH_RECOGNIZE" in sql.upper():
                seen.setdefault(sql)
    return list(seen)


@pytest.mark.slow
def test_sqllogictest_statements_agree_with_the_grammar() -> None:
    """Every statement of the sqllogictest files that Kleene accepts, the grammar derives;
    a syntax error Kleene finds the grammar refuses or the page lists (about a minute)."""
    accepted = 0
    for sql in _sqllogictest_statements():
        try:
            parse_statement(sql)
        except PatternSyntaxError as err:
            assert not grammar_accepts("match_recognize", sql) or any(
                words in err.message for words in BEYOND_GRAMMAR["match_recognize"]), sql
            continue
        except KleeneError:
            continue
        accepted += 1
        assert grammar_accepts("match_recognize", sql), sql
    assert accepted > 500


#: What a mutation may put in place of a token (tokens of every event-pattern language).
POOL = ("[", "]", "{", "}", "(", ")", "->", "..", "*", "+", "!", "~", "-", "1", "0", "2.5",
        "'x'", "ANY", "NOT", "SEQ", "AND", "OR", "WITHIN", "PARTITION BY k", "mark",
        "INTERSECT", "EPS", "EMPTY", "NEXT", ",", ";", ".", "x", "a", "TRUE", "prev", "COUNT",
        "SUM", "[i]", "[i-1]", "[]", "=", "<", ">", "WHERE", "skip_till_next_match",
        "{window:3}", '["r"]', '"r"', "TruePredicate", "EQ", "^", "|", "#", "@", "&", "h",
        "PATTERN", "i", "{1,2}", "{2}", "{2,}", "[1..2]", "[WITHIN 2]")


def _spans(text: str) -> list[tuple[int, int]]:
    """Where each token of ``text`` starts and ends (Kleene's tokenizer; ``&`` is one)."""
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    return [(starts[t.line - 1] + t.column - 1, starts[t.line - 1] + t.column - 1 + len(t.text))
            for t in tokenize(text.replace("&", "?")) if t.kind != "end"]


def _mutants(text: str, spans: list[tuple[int, int]], pool: tuple[str, ...],
             rng: random.Random, n: int) -> list[str]:
    """``n`` near misses of ``text`` (its tokens at ``spans``): a token deleted, doubled,
    swapped with the next one or replaced by one of ``pool``."""
    out = []
    for _ in range(n):
        i = rng.randrange(len(spans))
        a, b = spans[i]
        kind = rng.choice(("delete", "double", "swap", "replace", "replace"))
        if kind == "swap" and i + 1 < len(spans):
            c, d = spans[i + 1]
            out.append(text[:a] + text[c:d] + text[b:c] + text[a:b] + text[d:])
        elif kind == "double":
            out.append(text[:b] + " " + text[a:b] + text[b:])
        elif kind == "replace":
            out.append(text[:a] + " " + rng.choice(pool) + " " + text[b:])
        else:
            out.append(text[:a] + " " + text[b:])
    return out


@pytest.mark.slow
def test_near_misses_of_the_case_patterns_agree() -> None:
    """Both directions on text that is mostly wrong: the case patterns with one token
    deleted, doubled, swapped or replaced (a fixed seed). Kleene accepts only what the
    grammar derives, and refuses with a syntax error only what the grammar refuses or
    the page lists (found so far: SES's ~, a variable named like a strategy)."""
    rng = random.Random(28)
    texts = sorted({(case.language, case.pattern) for f in load_case_files()
                    for case in f.cases if case.language != "match_recognize"})
    for language, text in texts:
        for mutant in _mutants(text, _spans(text), POOL, rng, 3):
            _agree(language, mutant)


#: What a mutation may put in place of a token of a statement.
SQL_POOL = ("(", ")", "{-", "-}", "|", "*", "+", "?", "{", "}", ",", "A", "B", "x", "1", "'1'",
            "PATTERN", "DEFINE", "AS", "MEASURES", "PREV", "FIRST", "LAST", "RUNNING", "FINAL",
            "COUNT", "SUM", "CLASSIFIER", "MATCH_NUMBER", "AND", "OR", "NOT", "IS", "NULL",
            "BETWEEN", "IN", "LIKE", "CASE", "WHEN", "THEN", "END", "CAST", "SUBSET", "WITHIN",
            "INTERVAL", "SECOND", "ORDER", "BY", "PARTITION", "ONE", "ROW", "ALL", "ROWS", "PER",
            "MATCH", "AFTER", "SKIP", "TO", "NEXT", "PAST", "^", "$", "PERMUTE", ".", "=", "<",
            "<>", "-", "/", "%", "||", "SELECT", "FROM", ";", "DISTINCT", "FILTER", "WHERE",
            "INITIAL", "OMIT", "EMPTY", "MATCHES")


@pytest.mark.slow
def test_near_misses_of_the_sqllogictest_statements_agree() -> None:
    """As above for ``MATCH_RECOGNIZE``: 80 statements Kleene accepts from the sqllogictest
    files (a fixed seed), two near misses each (found so far: unbalanced parentheses,
    which the parser let through)."""
    rng = random.Random(28)
    accepted = []
    for sql in _sqllogictest_statements():
        try:
            parse_statement(sql)
        except KleeneError:
            continue
        if len(sql) < 400:
            accepted.append(sql)
    for sql in rng.sample(accepted, 80):
        spans = [(t.at, t.end) for t in sql_tokens(sql) if t.kind != "end"]
        for mutant in _mutants(sql, spans, SQL_POOL, rng, 2):
            _agree("match_recognize", mutant)

