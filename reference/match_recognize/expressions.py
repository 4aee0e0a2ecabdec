"""SQL scalar expressions inside ``MATCH_RECOGNIZE`` (``DEFINE``, ``MEASURES``,
``PARTITION BY``, ``ORDER BY``), read into :mod:`~kleene.reference.match_recognize.ast`.

Grammar (ISO/IEC 9075-2 §6 value expressions, with the row pattern's own functions of
§6.26 and TR 19075-5 §4.9–4.13; keywords case-insensitive), loosest first::

    expr       := conj ("OR" conj)*
    conj       := neg ("AND" neg)*
    neg        := "NOT" neg | predicate
    predicate  := concat [ cmp concat | "IS" ["NOT"] "NULL"
                         | ["NOT"] "BETWEEN" concat "AND" concat
                         | ["NOT"] "IN" "(" (expr ("," expr)* | query) ")"
                         | ["NOT"] "LIKE" concat ]
    concat     := sum ("||" sum)*
    sum        := product (("+" | "-") product)*
    product    := unary (("*" | "/" | "%") unary)*
    unary      := ("-" | "+") unary | primary       (``-`` before a number is a negative literal)
    primary    := literal | column | "(" expr ")" | "(" query ")" | CASE … END
                | CAST "(" expr AS type ")"
                | ["RUNNING" | "FINAL"] (navigation | aggregate | "CLASSIFIER" "(" [var] ")")
                | "MATCH_NUMBER" "(" ")" | name "(" [expr ("," expr)*] ")"
    navigation := ("PREV" | "NEXT" | "FIRST" | "LAST") "(" expr ["," ["-"] integer] ")"
    aggregate  := ("COUNT" | "SUM" | "AVG" | "MIN" | "MAX" | "ARRAY_AGG")
                  "(" ["DISTINCT"] (expr | "*" | var ".*") ")" ["FILTER" "(" "WHERE" expr ")"]
    column     := name ["." name]          (``A.price``: qualified by variable ``A``, TR §4.8)
    cmp        := "=" | "<>" | "!=" | "<" | "<=" | ">" | ">="     (``!=`` is ``<>``)
    query      := ("SELECT" | "WITH") …     (up to the ")" that closes it: the SQL engine's)

``DATE 'x'``, ``TIME 'x'`` and ``TIMESTAMP 'x'`` read as ``CAST('x' AS DATE)`` and so on.
A subquery ``( SELECT … )`` or ``IN ( SELECT … )`` is kept as written
(:class:`~kleene.reference.match_recognize.ast.Subquery`: the SQL engine around the clause
evaluates it); ``EXISTS`` and DuckDB's own syntax (lambdas, ``::`` casts, ``[ ]``
subscripts) are :class:`~kleene.reference.errors.Unsupported`, naming the construct and its
position.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from decimal import Decimal
from typing import Literal as Choice

from kleene.reference.match_recognize.ast import (
    Aggregate,
    Between,
    Binary,
    Call,
    Case,
    Cast,
    Classifier,
    Column,
    Expr,
    InList,
    IsNull,
    Like,
    Literal,
    MatchNumber,
    Navigation,
    Semantics,
    Subquery,
    Unary,
)
from kleene.reference.match_recognize.lexer import RESERVED, Cursor, Token

NAVIGATIONS: tuple[Choice["PREV", "NEXT", "FIRST", "LAST"], ...] = ("PREV", "NEXT", "FIRST",
                                                                     "LAST")
AGGREGATES: tuple[Choice["COUNT", "SUM", "AVG", "MIN", "MAX", "ARRAY_AGG"], ...] = (
    "COUNT", "SUM", "AVG", "MIN", "MAX", "ARRAY_AGG")
COMPARISONS = ("=", "<>", "<", "<=", ">", ">=")
#: What ``RUNNING`` and ``FINAL`` may stand before (TR §4.13).
_SEMANTIC = frozenset({*NAVIGATIONS, *AGGREGATES, "CLASSIFIER", "MATCH_NUMBER"})

_TYPED_LITERALS = ("DATE", "TIME", "TIMESTAMP")


class ExpressionParser(Cursor):
    """The expression grammar of the module docstring over a cursor."""

    def expr(self) -> Expr:
        left = self._conj()
        while self.accept("OR"):
            left = Binary("OR", left, self._conj(), at=left.at)
        return left

    def _conj(self) -> Expr:
        left = self._neg()
        while self.accept("AND"):
            left = Binary("AND", left, self._neg(), at=left.at)
        return left

    def _neg(self) -> Expr:
        if tok := self.accept("NOT"):
            return Unary("NOT", self._neg(), at=tok.at)
        return self._predicate()

    def _predicate(self) -> Expr:
        left = self.concat()
        if self.at(*COMPARISONS, "!="):
            op = self.advance().text
            return Binary("<>" if op == "!=" else op, left, self.concat(), at=left.at)
        if self.accept("IS"):
            negated = self.accept("NOT") is not None
            if self.at("DISTINCT", "TRUE", "FALSE", "UNKNOWN"):
                raise self.source.unsupported(f"IS [NOT] {self.tok.text.upper()}", self.tok.at)
            self.expect("NULL", "NULL after IS [NOT]")
            return IsNull(left, negated, at=left.at)
        negated = self.at("NOT") and self.peek().word() in ("BETWEEN", "IN", "LIKE")
        if negated:
            self.advance()
        if self.accept("BETWEEN"):
            low = self.concat()
            self.expect("AND", "AND of BETWEEN")
            return Between(left, low, self.concat(), negated, at=left.at)
        if self.accept("IN"):
            self.expect("(", "'(' after IN")
            if self.at("SELECT", "WITH"):
                items: tuple[Expr, ...] = (self._subquery(many=True),)
            else:
                items = self.list_of(self.expr)
            self.expect(")", "')' closing the IN list")
            return InList(left, items, negated, at=left.at)
        if self.accept("LIKE"):
            return Like(left, self.concat(), negated, at=left.at)
        return left

    def concat(self) -> Expr:
        left = self._sum()
        while self.accept("||"):
            left = Binary("||", left, self._sum(), at=left.at)
        return left

    def _sum(self) -> Expr:
        left = self._product()
        while self.at("+", "-"):
            op = self.advance().text
            left = Binary(op, left, self._product(), at=left.at)
        return left

    def _product(self) -> Expr:
        left = self._unary()
        while self.at("*", "/", "%"):
            op = self.advance().text
            left = Binary(op, left, self._unary(), at=left.at)
        return left

    def _unary(self) -> Expr:
        tok = self.tok
        if self.at("-") and self.peek().kind == "number":
            self.advance()
            number = self.advance().value
            assert isinstance(number, (int, Decimal, float))
            return Literal(-number, at=tok.at)
        if self.at("-", "+"):
            minus = self.advance().text == "-"
            return Unary("-" if minus else "+", self._unary(), at=tok.at)
        return self._postfix(self._primary())

    def _postfix(self, expr: Expr) -> Expr:
        if self.at("::", "[", "->"):
            what = {"::": "a '::' cast (DuckDB's)", "[": "a '[ ]' subscript (DuckDB's)",
                    "->": "an arrow '->' (DuckDB's lambdas and JSON)"}[self.tok.text]
            raise self.source.unsupported(what, self.tok.at)
        return expr

    def _primary(self) -> Expr:
        tok = self.tok
        word = tok.word()
        if tok.kind in ("number", "string"):
            self.advance()
            assert isinstance(tok.value, (int, Decimal, float, str))
            return Literal(tok.value, at=tok.at)
        if word in ("NULL", "TRUE", "FALSE"):
            self.advance()
            return Literal({"NULL": None, "TRUE": True, "FALSE": False}[word], at=tok.at)
        if word in _TYPED_LITERALS and self.peek().kind == "string":
            self.advance()
            text = self.advance()
            assert isinstance(text.value, str)
            return Cast(Literal(text.value, at=text.at), word, at=tok.at)
        if word in ("LAMBDA", "INTERVAL", "EXISTS") or self.at("[", "{", "?", "$") or (
                tok.kind == "ident" and self.peek().text == "->"):
            what = {"INTERVAL": "an INTERVAL outside WITHIN", "EXISTS": "a subquery",
                    "[": "a list literal (DuckDB's)", "{": "a struct literal (DuckDB's)",
                    "?": "a prepared statement's parameter",
                    "$": "a prepared statement's parameter"}
            raise self.source.unsupported(what.get(word or tok.text, "a lambda (DuckDB's)"),
                                          tok.at)
        if self.accept("("):
            inner = self._subquery(many=False) if self.at("SELECT", "WITH") else self.expr()
            self.expect(")", "')' closing the expression")
            return inner
        if word == "CASE":
            return self._case()
        if word == "CAST" and self.peek().text == "(":
            return self._cast()
        if word in ("RUNNING", "FINAL") and self.peek().word() in _SEMANTIC and (
                self.peek(2).text == "("):
            self.advance()
            return self._function("RUNNING" if word == "RUNNING" else "FINAL")
        if tok.kind == "ident" and self.peek().text == "(" and word not in RESERVED:
            return self._function(None)
        if self.at_name():
            return self._column()
        raise self.error("an expression")

    def _subquery(self, *, many: bool) -> Subquery:
        """The query from here (``SELECT`` or ``WITH``) to the ``)`` that closes it, not
        consumed; one holding ``MATCH_RECOGNIZE`` is refused (TR 19075-5 §4.18.4,
        ORA-62519)."""
        first = self.tok
        depth = 0
        while not (depth == 0 and self.at(")")):
            if self.tok.kind == "end":
                raise self.error("')' closing the subquery")
            if self.tok.word() == "MATCH_RECOGNIZE":
                raise self.source.recognition_error(
                    "recognition-in-subquery", "a subquery inside MATCH_RECOGNIZE cannot "
                    "perform row pattern recognition itself (TR 19075-5 §4.18.4; ORA-62519)",
                    self.tok.at)
            depth += {"(": 1, ")": -1}.get(self.tok.text if self.tok.kind == "op" else "", 0)
            self.advance()
        base = self.source.base
        text = self.source.text[base + first.at:base + self.tok.at].strip()
        return Subquery(text, many, at=first.at)

    def _column(self) -> Expr:
        first, tok = self.name("a column")
        if self.accept("."):
            if self.at("*"):
                raise self.error("a column name ('A.*' is only COUNT's argument)")
            column, _ = self.name("a column name after '.'")
            if self.at("."):
                raise self.source.unsupported("a column qualified by more than a row pattern "
                                              "variable", tok.at)
            return Column(column, first, at=tok.at)
        return Column(first, at=tok.at)

    def _function(self, semantics: Semantics) -> Expr:
        tok = self.tok
        name = self.advance().word()
        assert name is not None
        self.expect("(", f"'(' after {name}")
        if name in NAVIGATIONS:
            if self.at(")"):
                raise self.error(f"the expression {name}() reads")
            operand = self.expr()
            offset = 1 if name in ("PREV", "NEXT") else 0
            if self.accept(","):
                offset = self._offset()
            self.expect(")", f"')' closing {name}(")
            kind = next(k for k in NAVIGATIONS if k == name)
            return Navigation(kind, operand, offset, semantics, at=tok.at)
        if name in AGGREGATES:
            return self._after_call(self._filtered(self._aggregate(name, semantics, tok)))
        if name == "CLASSIFIER":
            var = self.name("a variable or ')'")[0] if self.at_name() else None
            self.expect(")", "')' closing CLASSIFIER(")
            return Classifier(var, semantics, at=tok.at)
        if semantics is not None:
            raise self.error("a navigation, an aggregate or CLASSIFIER after " + semantics,
                             tok)
        if name == "MATCH_NUMBER":
            self.expect(")", "')': MATCH_NUMBER() has no argument")
            return MatchNumber(at=tok.at)
        if self.at("DISTINCT"):
            raise self.source.unsupported(f"DISTINCT in {name}(", self.tok.at)
        args = () if self.at(")") else self.list_of(self.expr)
        self._outside_arguments(name)
        self.expect(")", f"')' closing {name}(")
        return self._after_call(Call(name, args, at=tok.at))

    def _outside_arguments(self, name: str) -> None:
        """Refuse what SQL engines allow in a call beyond its arguments."""
        if self.at("ORDER"):
            raise self.source.unsupported(f"ORDER BY inside {name}(", self.tok.at)

    def _after_call(self, expr: Expr) -> Expr:
        """Refuse a window function (``window-function``), and a filter after a call that is
        no aggregate."""
        if self.at("FILTER") and self.peek().text == "(":
            raise self.source.unsupported("FILTER after a function that is no aggregate",
                                          self.tok.at)
        if self.at("OVER"):
            raise self.source.recognition_error(
                "window-function", "a window function (OVER) inside MATCH_RECOGNIZE: a "
                "measure is a value of its match, a condition of its row (TR 19075-5 §4.9-4.14), "
                "and a window reads the rows of a query's result; window the output outside "
                "the clause", self.tok.at)
        return self._postfix(expr)

    def _filtered(self, e: Aggregate) -> Aggregate:
        """``e`` with the ``FILTER (WHERE condition)`` after it, if any (ISO/IEC 9075-2
        §10.9 <filter clause>)."""
        if not (self.at("FILTER") and self.peek().text == "("):
            return e
        self.advance()
        self.advance()
        self.expect("WHERE", "WHERE after FILTER (")
        condition = self.expr()
        self.expect(")", "')' closing FILTER (WHERE")
        return replace(e, filter=condition)

    def _offset(self) -> int:
        tok = self.tok
        negative = self.accept("-") is not None
        if not (self.tok.kind == "number" and isinstance(self.tok.value, int)):
            raise self.source.recognition_error(
                "offset-not-constant", "a navigation's offset is an exact integer literal "
                "(TR §4.10-4.11)", tok.at)
        value = self.integer("an offset")
        return -value if negative else value

    def _aggregate(self, name: str, semantics: Semantics, tok: Token) -> Aggregate:
        distinct = self.accept("DISTINCT") is not None
        if name == "COUNT" and self.accept("*"):
            self.expect(")", "')' closing COUNT(*")
            return Aggregate("COUNT", None, None, distinct, semantics, at=tok.at)
        if (name == "COUNT" and self.at_name() and self.peek().text == "."
                and self.peek(2).text == "*"):
            var, _ = self.name()
            self.advance()
            self.advance()
            self.expect(")", "')' closing COUNT(v.*")
            return Aggregate("COUNT", None, var, distinct, semantics, at=tok.at)
        operand = self.expr()
        self._outside_arguments(name)
        self.expect(")", f"')' closing {name}(")
        kind = next(k for k in AGGREGATES if k == name)
        return Aggregate(kind, operand, qualifier(operand), distinct, semantics, at=tok.at)

    def _case(self) -> Expr:
        tok = self.advance()
        operand = None if self.at("WHEN") else self.expr()
        whens: list[tuple[Expr, Expr]] = []
        while self.accept("WHEN"):
            when = self.expr()
            self.expect("THEN", "THEN")
            whens.append((when, self.expr()))
        if not whens:
            raise self.error("WHEN")
        otherwise = self.expr() if self.accept("ELSE") else None
        self.expect("END", "END closing CASE")
        return Case(operand, tuple(whens), otherwise, at=tok.at)

    def _cast(self) -> Expr:
        tok = self.advance()
        self.expect("(")
        operand = self.expr()
        self.expect("AS", "AS in CAST")
        words: list[str] = []
        while self.tok.kind == "ident" or (words and self.at("(")):
            if self.accept("("):
                words[-1] += "(" + ",".join(str(n) for n in self.list_of(
                    lambda: self.integer("a type's size"))) + ")"
                self.expect(")", "')' closing the type's size")
            else:
                words.append(self.advance().text.upper())
        if not words:
            raise self.error("a type")
        self.expect(")", "')' closing CAST(")
        return Cast(operand, " ".join(words), at=tok.at)


def children(e: Expr) -> Iterator[Expr]:
    """The expressions directly inside ``e``, in reading order."""
    if isinstance(e, (Unary, IsNull, Cast)):
        yield e.operand
    elif isinstance(e, Binary):
        yield from (e.left, e.right)
    elif isinstance(e, Between):
        yield from (e.operand, e.low, e.high)
    elif isinstance(e, InList):
        yield e.operand
        yield from e.items
    elif isinstance(e, Like):
        yield from (e.operand, e.pattern)
    elif isinstance(e, Case):
        if e.operand is not None:
            yield e.operand
        for when, then in e.whens:
            yield from (when, then)
        if e.otherwise is not None:
            yield e.otherwise
    elif isinstance(e, Call):
        yield from e.args
    elif isinstance(e, Navigation):
        yield e.operand
    elif isinstance(e, Aggregate):
        yield from (x for x in (e.operand, e.filter) if x is not None)


def walk(e: Expr) -> Iterator[Expr]:
    """``e`` and every expression inside it, in reading order (pre-order)."""
    yield e
    for child in children(e):
        yield from walk(child)


def qualifier(e: Expr) -> str | None:
    """The first variable that qualifies a column of ``e`` (an aggregate's or a
    navigation's variable, TR §4.9–4.10); ``None`` when no column is qualified."""
    return next((x.var for x in walk(e) if isinstance(x, Column) and x.var is not None), None)
