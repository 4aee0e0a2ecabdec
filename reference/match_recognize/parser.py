"""Reading a SQL statement that holds ``MATCH_RECOGNIZE``: :func:`parse_statement`.

The outer SQL is not Kleene's to define (a real SQL engine runs it): it is only
scanned, at every depth of parentheses, for ``<source> MATCH_RECOGNIZE ( … ) [AS]
[alias]`` (ISO/IEC 9075-2 §7.6 <table primary>, <row pattern recognition clause and
name>). The source is what stands right before the keyword: a table name, possibly
dotted, or a table function call, each with an optional row pattern input name and
column list (``t``, ``s.t``, ``range(6) t(x)``, ``ticks AS k``: a :class:`TableName`
holding that text as written), or a parenthesised query (a :class:`Statement` parsed
the same way, which may hold no recognition; with an input name after it, a
:class:`TableName` again, so that the name and its columns reach the SQL engine, unless
it holds a recognition: then a :class:`Statement`, the name dropped, which qualifies
nothing inside the clause; with a column list too, unsupported).

The clause is read whole, in the standard's fixed order of its parts (§7.6; Oracle's
and Trino's manuals print the same order)::

    MATCH_RECOGNIZE ( [PARTITION BY e, …] [ORDER BY e [ASC|DESC] [NULLS FIRST|LAST], …]
      [MEASURES e AS name, …]
      [ONE ROW PER MATCH | ALL ROWS PER MATCH [SHOW EMPTY MATCHES | OMIT EMPTY MATCHES
                                               | WITH UNMATCHED ROWS]]
      [AFTER MATCH SKIP PAST LAST ROW | TO NEXT ROW | TO FIRST v | TO LAST v | TO v]
      [INITIAL] PATTERN ( row pattern ) [WITHIN INTERVAL 'n' unit] [SUBSET u = (v, …), …]
      [DEFINE v AS condition, …] )

``WITHIN`` is Flink's (Calcite's grammar puts it right after ``PATTERN``; it is also
read after ``SUBSET``). A part out of that order (DuckDB reads them in any order) is
:class:`~kleene.reference.errors.Unsupported`, naming it; a part written twice, or
no ``PATTERN``, is a syntax error. ``DEFINE`` may be left out (every variable then
matches any row, TR §4.14), as Trino and DuckDB allow. Row patterns are read by
:mod:`~kleene.reference.match_recognize.row_pattern`, expressions by
:mod:`~kleene.reference.match_recognize.expressions`. Every error names the file,
line and column (a caret under it), also inside a subquery;
:func:`~kleene.reference.match_recognize.checks.check_clause` then applies the
standard's semantic rules to each clause. The grammar checked against these parsers is
docs/grammars.md ("MATCH_RECOGNIZE").
"""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal, InvalidOperation
from typing import Any

from kleene.reference.match_recognize.ast import (
    AfterMatchSkip,
    Define,
    Empty,
    MatchRecognize,
    Measure,
    Recognition,
    RowPattern,
    RowsPerMatch,
    SortKey,
    Statement,
    Subset,
    TableName,
    Within,
)
from kleene.reference.match_recognize.checks import check_clause
from kleene.reference.match_recognize.expressions import ExpressionParser
from kleene.reference.match_recognize.lexer import (
    RESERVED,
    Source,
    Token,
    check_nesting,
    tokenize,
)
from kleene.reference.match_recognize.row_pattern import RowPatternParser

#: The clause's parts in the standard's order (what a part's first words are).
PARTS = ("PARTITION BY", "ORDER BY", "MEASURES", "ROWS PER MATCH", "AFTER MATCH SKIP",
         "PATTERN", "SUBSET", "DEFINE")

#: Flink's units of ``WITHIN INTERVAL 'n' unit``.
UNITS = ("MILLISECOND", "SECOND", "MINUTE", "HOUR", "DAY")

#: Words of the outer SQL that end a source or cannot be an alias.
_SQL_WORDS = frozenset({
    "FROM", "JOIN", "ON", "USING", "LATERAL", "WHERE", "GROUP", "HAVING", "LIMIT", "OFFSET",
    "FETCH", "UNION", "EXCEPT", "INTERSECT", "INNER", "LEFT", "RIGHT", "FULL", "CROSS",
    "OUTER", "NATURAL", "WINDOW", "QUALIFY", "POSITIONAL", "ASOF", "ANTI", "SEMI", "VALUES",
}) | RESERVED


#: Words right before a place where a table may start.
_SOURCE_BEFORE = frozenset({"FROM", "JOIN", "SELECT", "LATERAL", None})


def parse_statement(text: str, source: str = "<query>") -> Statement:
    """The statement ``text`` (a file named ``source``) with every recognition in it parsed
    and checked; raises ``PatternSyntaxError``, ``Unsupported`` or ``RecognitionError``."""
    return _statement(text, Source(text, source))


def _statement(text: str, source: Source, at: int = 0) -> Statement:
    """The statement ``text`` (at offset ``at`` of the text around it, if any)."""
    tokens = tokenize(text, source)
    check_nesting(tokens, source)
    for k, tok in enumerate(tokens[:-1]):
        if tok.kind == "op" and tok.text == ";" and tokens[k + 1].kind != "end":
            raise source.unsupported("a second statement after ';' (a query is one "
                                     "statement)", tokens[k + 1].at)
    found: list[Recognition] = []
    i = 0
    while i < len(tokens):
        if tokens[i].word() != "MATCH_RECOGNIZE":
            i += 1
            continue
        first, node = _source(tokens, i, text, source)
        start = tokens[first].at
        if any(r.start < start < r.end for r in found):
            raise source.unsupported("MATCH_RECOGNIZE over another one's output (DuckDB's; "
                                     "the standard's source is a table or a parenthesised "
                                     "query)", tokens[i].at)
        found = [r for r in found if r.start < start]
        parser = ClauseParser(tokens, source)
        parser.i = i + 1
        clause = parser.clause(tokens[i].at)
        check_clause(clause, source)
        end = tokens[parser.i - 1].end
        found.append(Recognition(node, clause, parser.alias(), start, end, at=start))
        i = parser.i
    _check_balanced(tokens, source)
    return Statement(text, tuple(found), at=at)


def _check_balanced(tokens: list[Token], source: Source) -> None:
    """Refuse a ``)`` that closes no ``(``, or a ``(`` left open, at that token (after the
    clauses are read, whose own errors say more): SQL's parentheses balance, and the
    clause's end is found by them (an extra ``)`` after
    ``PATTERN (A)`` ended the clause there, its ``DEFINE`` then read as outer SQL;
    found by docs/grammars.md's check)."""
    opened: list[Token] = []
    for tok in tokens:
        if tok.kind == "op" and tok.text == "(":
            opened.append(tok)
        elif tok.kind == "op" and tok.text == ")":
            if not opened:
                raise source.syntax_error("')' closes no '('", tok.at)
            opened.pop()
    if opened:
        raise source.syntax_error("'(' is not closed", opened[-1].at)


def _named(tok: Token) -> bool:
    return tok.kind == "qident" or (tok.kind == "ident" and tok.word() not in _SQL_WORDS)


def _opening(tokens: list[Token], close: int, source: Source) -> int:
    """The index of the ``(`` that the ``)`` at ``close`` closes."""
    depth = 0
    for j in range(close, -1, -1):
        depth += {")": 1, "(": -1}.get(tokens[j].text if tokens[j].kind == "op" else "", 0)
        if depth == 0:
            return j
    raise source.syntax_error("')' closes no '('", tokens[close].at)


def _source(tokens: list[Token], k: int, text: str,
            source: Source) -> tuple[int, TableName | Statement]:
    """The index of the first token of the source before ``MATCH_RECOGNIZE`` (at ``k``)
    and the source itself."""
    j = k - 1
    correlated = listed = False
    if j >= 0 and tokens[j].text == ")" and tokens[j].kind == "op":
        o = _opening(tokens, j, source)
        if o >= 2 and _named(tokens[o - 1]) and (
                tokens[o - 2].word() == "AS" or tokens[o - 2].text == ")"
                or _named(tokens[o - 2])) and tokens[o - 2].text != ".":
            j, correlated, listed = o - 1, True, True
    elif j >= 1 and _named(tokens[j]) and (tokens[j - 1].word() == "AS" or
                                          tokens[j - 1].text == ")" or _named(tokens[j - 1])):
        correlated = True   # an input name after a table (s.t k), a call or a query
    if correlated:
        j -= 2 if tokens[j - 1].word() == "AS" else 1
    if j < 0 or not (_named(tokens[j]) or tokens[j].text == ")"):
        if j >= 1 and k >= 1 and tokens[k - 1].word() not in _SOURCE_BEFORE:
            raise source.unsupported("a source of MATCH_RECOGNIZE other than a table or a "
                                     "parenthesised query (a join?)", tokens[k].at)
        raise source.syntax_error("expected a table or a parenthesised query before "
                                  "MATCH_RECOGNIZE", tokens[k].at)
    first = j
    if tokens[j].text == ")":
        first = _opening(tokens, j, source)
        recognizes = any(t.word() == "MATCH_RECOGNIZE" for t in tokens[first:j])
        if first >= 1 and _named(tokens[first - 1]):
            first -= 1
        elif not correlated or (recognizes and not listed):
            # a parenthesised query, run as a statement of its own (its recognitions first);
            # an input name after it qualifies nothing inside the clause (only row pattern
            # variables do), so it is not needed there
            inner = tokens[first].end
            sub = _statement(text[inner:tokens[j].at], source.inner(inner), inner)
            return first, sub
        elif recognizes:
            raise source.unsupported("a parenthesised source with MATCH_RECOGNIZE inside and "
                                     "a column list after its input name", tokens[first].at)
    while first >= 2 and tokens[first - 1].text == "." and _named(tokens[first - 2]):
        first -= 2
    return first, TableName(text[tokens[first].at:tokens[k - 1].end], at=tokens[first].at)


class ClauseParser(ExpressionParser, RowPatternParser):
    """The clause and its row pattern, from the ``(`` after ``MATCH_RECOGNIZE``."""

    def clause(self, at: int) -> MatchRecognize:
        self.expect("(", "'(' after MATCH_RECOGNIZE")
        fields: dict[str, Any] = {}
        seen: list[tuple[str, Token]] = []
        while not self.at(")"):
            tok = self.tok
            part = self._part_name()
            if part in (name for name, _ in seen):
                raise self.source.syntax_error(f"more than one {part} clause", tok.at)
            later = [name for name, _ in seen if _rank(name) > _rank(part)
                     and not (part == "WITHIN" and name == "SUBSET")]
            if later:
                raise self.source.unsupported(
                    f"{part} after {later[0]} (the standard's order of the clause's parts "
                    f"is {', '.join(PARTS)}; DuckDB also reads other orders)", tok.at)
            field, value = self._part(part)
            fields[field] = value
            seen.append((part, tok))
        if "pattern" not in fields:
            raise self.source.syntax_error("MATCH_RECOGNIZE needs a PATTERN clause", self.tok.at)
        self.advance()
        pattern = fields.pop("pattern")
        assert isinstance(pattern, RowPattern)
        return replace(MatchRecognize(pattern, at=at), **fields)

    def _part_name(self) -> str:
        word = self.tok.word()
        two = f"{word} {self.peek().word()}"
        if two in ("PARTITION BY", "ORDER BY", "AFTER MATCH"):
            return "AFTER MATCH SKIP" if word == "AFTER" else two
        if word in ("ONE", "ALL"):
            return "ROWS PER MATCH"
        if word in ("MEASURES", "PATTERN", "SUBSET", "DEFINE", "WITHIN"):
            return word
        if word == "INITIAL":
            self.advance()
            if not self.at("PATTERN"):
                raise self.error("PATTERN after INITIAL")
            return "PATTERN"
        if word == "DEFINES":
            raise self.source.unsupported("DEFINES (DuckDB's spelling of DEFINE)", self.tok.at)
        if word == "SEEK":
            raise self.source.unsupported("SEEK (row pattern recognition in a window)",
                                          self.tok.at)
        raise self.error("a clause (" + ", ".join(PARTS) + ") or ')'")

    def _part(self, part: str) -> tuple[str, Any]:
        tok = self.advance()
        if part not in ("MEASURES", "PATTERN", "SUBSET", "DEFINE", "WITHIN",
                        "ROWS PER MATCH"):
            self.advance()
        if part == "PARTITION BY":
            return ("partition_by", self.list_of(self.expr))
        if part == "ORDER BY":
            return ("order_by", self.list_of(self._sort_key))
        if part == "MEASURES":
            return ("measures", self.list_of(self._measure))
        if part == "ROWS PER MATCH":
            return ("rows_per_match", self._rows_per_match(tok))
        if part == "AFTER MATCH SKIP":
            return ("after_match", self._skip(tok))
        if part == "PATTERN":
            self.expect("(", "'(' after PATTERN")
            pattern = Empty(at=self.tok.at) if self.at(")") else self.row_pattern()
            self.expect(")", "')' closing the pattern")
            return ("pattern", pattern)
        if part == "SUBSET":
            return ("subsets", self.list_of(self._subset))
        if part == "WITHIN":
            return ("within", self._within(tok))
        if self.at("AUTO") and self.peek().word() != "AS":
            raise self.source.unsupported("DEFINE AUTO (DuckDB's)", self.tok.at)
        return ("defines", self.list_of(self._define))

    def _sort_key(self) -> SortKey:
        expr = self.expr()
        descending = self.advance().word() == "DESC" if self.at("ASC", "DESC") else False
        nulls_first = None
        if self.accept("NULLS"):
            nulls_first = self.expect_one("FIRST", "LAST") == "FIRST"
        return SortKey(expr, descending, nulls_first, at=expr.at)

    def expect_one(self, *words: str) -> str:
        if not self.at(*words):
            raise self.error(" or ".join(words))
        word = self.advance().word()
        assert word is not None
        return word

    def _measure(self) -> Measure:
        expr = self.expr()
        self.expect("AS", "AS and the measure's name")
        return Measure(expr, self.name("the measure's name")[0], at=expr.at)

    def _rows_per_match(self, tok: Token) -> RowsPerMatch:
        one = tok.word() == "ONE"
        self.expect("ROW" if one else "ROWS")
        self.expect("PER")
        self.expect("MATCH")
        if one:
            return "ONE"
        if self.at("SHOW", "OMIT"):
            omit = self.advance().word() == "OMIT"
            self.expect("EMPTY")
            self.expect("MATCHES")
            return "ALL OMIT" if omit else "ALL SHOW"
        if self.at("WITH") and self.peek().word() == "UNMATCHED":
            self.advance()
            self.advance()
            self.expect("ROWS")
            return "ALL WITH UNMATCHED"
        return "ALL SHOW"

    def _skip(self, tok: Token) -> AfterMatchSkip:
        self.expect("SKIP", "SKIP after AFTER MATCH")
        if self.accept("PAST"):
            self.expect("LAST")
            self.expect("ROW")
            return AfterMatchSkip("PAST LAST ROW", at=tok.at)
        self.expect("TO", "PAST LAST ROW or TO")
        if self.at("NEXT") and self.peek().word() == "ROW":
            self.advance()
            self.advance()
            return AfterMatchSkip("TO NEXT ROW", at=tok.at)
        first = self.advance().word() == "FIRST" if self.at("FIRST", "LAST") else False
        var, _ = self.name("NEXT ROW, FIRST, LAST or a variable")
        return AfterMatchSkip("TO FIRST" if first else "TO LAST", var, at=tok.at)

    def _subset(self) -> Subset:
        name, tok = self.name("the union variable's name")
        self.expect("=", "'=' after the union variable")
        self.expect("(", "'(' opening the union's variables")
        names = self.list_of(lambda: self.name("a variable")[0])
        self.expect(")", "')' closing the union's variables")
        return Subset(name, names, at=tok.at)

    def _define(self) -> Define:
        var, tok = self.name("a variable")
        self.expect("AS", "AS and the variable's condition")
        return Define(var, self.expr(), at=tok.at)

    def _within(self, tok: Token) -> Within:
        self.expect("INTERVAL", "INTERVAL after WITHIN")
        amount = self.tok
        if amount.kind != "string":
            raise self.error("the interval's amount in quotes ('10')")
        try:
            value = Decimal(str(amount.value).strip())
        except InvalidOperation:
            raise self.error("a number in the interval's quotes", amount) from None
        if not value.is_finite() or value < 0:
            raise self.error("a number in the interval's quotes", amount)
        self.advance()
        unit = (self.tok.word() or "").removesuffix("S")
        if unit not in UNITS:
            raise self.error("an interval unit (" + ", ".join(UNITS) + ")")
        self.advance()
        return Within(value, unit, at=tok.at)

    def alias(self) -> str | None:
        """The recognition's name after its clause, if any: ``[AS] name``."""
        if self.accept("AS"):
            if self.tok.kind not in ("ident", "qident"):
                raise self.error("a name after AS")
            return str(self.advance().value)
        if _named(self.tok):
            return str(self.advance().value)
        return None


def _rank(part: str) -> float:
    return PARTS.index("PATTERN") + 0.5 if part == "WITHIN" else PARTS.index(part)

