"""A reader of Wayeb's ``.sre`` pattern files (seed 004, Sec. 5: the benchmark
patterns in ``data/datasets/wayeb-queries``) into our SREMO expressions.

Wayeb's syntax (its ``SREParser``) is prefix notation::

    query    := formula {key:value}*          keys: order, partitionBy, window, windowType
    formula  := op "(" formula ("," formula)* ")" | sentence ["[" "reg" "]"]
    op       := ";" sequence | "+" choice | "*" iteration | "!" negation
              | "#" skip-till-any-match | "@" skip-till-next-match
    sentence := "^(" sentence,* ")" and | "|(" sentence,* ")" or | "-" sentence not
              | Predicate ["(" term,* ")"]

Several queries may be separated by ``&`` (the grammar checked against this parser:
docs/grammars.md, "Wayeb .sre files"). Every sentence is marked (Wayeb
marks every formula it parses); ``["x"]`` writes the element to register x;
``"x"`` as an argument reads it. Predicates become conditions over the head:
``IsEventTypePredicate(T)`` is ``~.type = 'T'``, ``EQStr(a,C)`` is
``~.a = 'C'``, ``EQ/GT/GTE/LT/LTE(a,n)`` compare ``~.a`` with the number n,
``BT(a,lo,hi)`` is ``lo <= ~.a < hi``, ``EQAttr/EQAttrStr/GTAttr/LTAttr(a,"r")``
compare ``~.a`` with ``r.a``, ``TruePredicate`` is TRUE. Other predicates
(geometric ones) have no counterpart and are rejected at their position.

Decisions (``docs/errata.md`` records the second):

- ``*`` with several arguments, as in the nested-Kleene benchmark patterns
  ``*(A, #(*(A)), B)``: by default read as the iteration of their sequence,
  ``(A ; ANY(A*) ; B)*`` (the paper's Eq. 7 intent); ``star="first"`` keeps
  only the first argument, as Wayeb's ``SelectionUtils`` does
  (``docs/errata.md#seed-004-nested-kleene``). ``!``, ``#`` and ``@`` take
  exactly one argument.
- Windows: ``{window:N}`` with ``{windowType:count}`` (Wayeb's default) is
  our ``[1..N]`` (report Def. 39). ``{window:N}{windowType:time}`` is our
  time window ``[WITHIN N]`` (Kleene's extension, docs/semantics.md "SREMO
  time windows"), N in the stream's timestamp units, and a ``.sre`` query is
  read in *Wayeb's strict reading* (``ts(max M) − ts(min M) < N``) unless told
  otherwise: :data:`WAYEB_READING`, :attr:`SreQuery.reading`.
  ``{window:TIMESTAMP}`` is a placeholder the benchmark scripts fill in; the
  query still parses, and :meth:`SreQuery.to_expression` then asks for the
  value (``time_window=N`` or ``count_window=N``) instead of guessing.
  ``{partitionBy:a}`` splits the stream in Wayeb: ``to_expression`` gives
  ``e PARTITION BY a`` (:class:`~kleene.reference.sremo.expressions.Partition`,
  Kleene's extension: the matches on each sub-stream of equal ``a``), or the
  body alone with ``ignore_partition=True``. Without
  any window the expression is unwindowed (Wayeb would use a window of 0, matching nothing).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from kleene.reference.conditions import TRUE, And, Attr, Cmp, Condition, Const, Not, Or
from kleene.reference.durations import Duration
from kleene.reference.errors import PatternSyntaxError
from kleene.reference.sremo.expressions import (
    HEAD,
    KEYWORDS,
    Atom,
    Choice,
    Concat,
    Expr,
    IllFormed,
    Partition,
    Star,
    Strategy,
    Window,
    check,
)
from kleene.reference.sremo.expressions import Not as Negation
from kleene.reference.syntax import Parser, Token

_NUMERIC = {"EQ": "=", "GT": ">", "GTE": ">=", "LT": "<", "LTE": "<="}
_REGISTER = {"EQAttr": "=", "EQAttrStr": "=", "GTAttr": ">", "LTAttr": "<"}
_SETTINGS = ("order", "partitionBy", "window", "windowType")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")

#: How Wayeb bounds a time window: a run expires once ``ts − start ≥ window``, so a
#: match spans strictly less than the window (docs/semantics.md "SREMO time windows").
WAYEB_READING = "strict"


class SreUnsupported(PatternSyntaxError):
    """A ``.sre`` construct that SREMO cannot express; the position says where."""

    code = "sre"


@dataclass(frozen=True)
class SreQuery:
    """One query of a ``.sre`` file: its formula and its settings, as written."""

    body: Expr
    order: int | None = None
    partition_by: str | None = None
    window: int | str | None = None
    window_type: str = "count"
    where: dict[str, Token] = field(default_factory=dict, compare=False, repr=False)
    source: str = field(default="<sre>", compare=False, repr=False)
    text: str = field(default="", compare=False, repr=False)

    @property
    def reading(self) -> str:
        """The reading of this query's time window: Wayeb's (``strict``)."""
        return WAYEB_READING

    def to_expression(self, *, count_window: int | None = None,
                      time_window: int | float | None = None,
                      ignore_partition: bool = False) -> Expr:
        """The SREMO this query denotes; ``count_window`` replaces the file's window by
        ``[1..count_window]``, ``time_window`` by ``[WITHIN time_window]`` (timestamp
        units); one of them is needed for a placeholder such as ``TIMESTAMP``."""
        if count_window is not None and time_window is not None:
            raise ValueError("give count_window or time_window, not both")
        width: int | Duration | None = count_window
        if time_window is not None:
            width = Duration(time_window)
        elif width is None and self.window is not None:
            if isinstance(self.window, str):
                self._refuse("window", f"the window {self.window} is a placeholder of the "
                             f"benchmark scripts; pass "
                             f"{'time' if self.window_type == 'time' else 'count'}_window=N "
                             "(kleene match --window N)")
            assert isinstance(self.window, int)
            width = Duration(self.window) if self.window_type == "time" else self.window
        e = self.body if width is None else Window(self.body, width)
        if self.partition_by is not None and not ignore_partition:
            e = Partition(e, (self.partition_by,))
        try:
            return check(e)
        except IllFormed as err:
            raise PatternSyntaxError(str(err.args[0]), line=1, column=1, source=self.source,
                                     text=self.text) from None

    def windowed(self, window: int | float | None = None,
                 window_type: str | None = None) -> tuple[Expr, str]:
        """The SREMO of this query with its window overridden (``kleene match --window N
        --window-type count|time``), and which window it has, said in words. ``window``
        replaces the file's value, ``window_type`` its ``{windowType}``; what is not given
        is the file's. A count window must be a whole number ≥ 1, a time window > 0."""
        kind = window_type or self.window_type
        if kind not in ("count", "time"):
            raise ValueError(f"window type must be count or time, got {kind!r}")
        value = self.window if window is None else window
        origin = "the file's" if window is None and window_type is None else "given"
        if value is None:
            return self.to_expression(), "no window"
        if isinstance(value, str):
            return self.to_expression(), ""          # the placeholder: a positioned error
        if kind == "count" and (value != int(value) or value < 1):
            raise ValueError(f"a count window is a whole number of elements ≥ 1, got {value:g}")
        if value <= 0:
            raise ValueError(f"a time window must be positive, got {value:g}")
        if kind == "count":
            return self.to_expression(count_window=int(value)), \
                f"count window [1..{int(value)}] ({origin})"
        return self.to_expression(time_window=value), f"time window {value:g} ({origin})"

    def _refuse(self, key: str, message: str) -> None:
        tok = self.where[key]
        raise SreUnsupported(message, line=tok.line, column=tok.column, source=self.source,
                             text=self.text)


class SreParser(Parser):
    """Recursive descent over Wayeb's prefix syntax (see the module docstring)."""

    def __init__(self, text: str, source: str = "<sre>", star: str = "sequence") -> None:
        # '&' separates queries; the shared tokenizer lacks it, '?' (unused here) stands in.
        super().__init__(_mask_ampersands(text), source)
        self.text = text
        self.star = star

    def queries(self) -> list[SreQuery]:
        out = [self.query()]
        while self.at("?") and self.is_ampersand(self.tok):
            self.advance()
            out.append(self.query())
        self.end()
        return out

    def is_ampersand(self, tok: Token) -> bool:
        """Whether ``tok`` stands for an ``&`` of the original text (not a real ``?``)."""
        line = self.text.splitlines(keepends=True)[tok.line - 1]
        return line[tok.column - 1] == "&"

    def query(self) -> SreQuery:
        start = self.tok
        body = self.formula()
        settings, where = self.settings()
        window = settings.get("window")
        try:
            check(body, windowed=window is not None)
        except IllFormed as err:
            raise self.error_at(str(err.args[0]), start) from None
        return SreQuery(body, settings.get("order"), settings.get("partitionBy"), window,
                        settings.get("windowType", "count"), where, self.source, self.text)

    def settings(self) -> tuple[dict[str, Any], dict[str, Token]]:
        values: dict[str, Any] = {}   # each setting's value, of the type its name says
        where: dict[str, Token] = {}
        while self.at("{"):
            where_tok = self.advance()
            key = self.ident("a setting: " + ", ".join(_SETTINGS))
            if key.text not in _SETTINGS or key.text in values:
                raise self.error("a setting not given yet: " + ", ".join(_SETTINGS), key)
            self.expect(":", "':' after the setting's name")
            values[key.text] = self.setting(key.text)
            where[key.text] = where_tok
            self.expect("}", "'}' closing the setting")
        return values, where

    def setting(self, key: str) -> int | str:
        tok = self.tok
        if key == "windowType":
            if tok.text not in ("count", "time"):
                raise self.error("count or time")
            return self.advance().text
        if key == "partitionBy":
            return self.ident("an attribute name").text
        if tok.kind == "ident" and key == "window":
            return self.advance().text  # a placeholder such as TIMESTAMP
        value = self.advance().value
        if tok.kind != "number" or not isinstance(value, int):
            raise self.error(f"a natural number for {key}", tok)
        if key == "window" and value < 1:
            raise self.error("a positive window (report Def. 39: w ∈ N1)", tok)
        return value

    # -- formulas
    def formula(self) -> Expr:
        tok = self.tok
        if tok.kind == "op" and tok.text in ";+*!#@" and self.peek().text == "(":
            self.advance()
            return self.operator(tok, self.arguments(self.formula))
        condition = self.sentence()
        write = None
        if self.accept("["):
            reg = self.tok
            if reg.kind != "string" or not _NAME.match(str(reg.value)) or \
                    str(reg.value).upper() in KEYWORDS:
                raise self.error('a register name in double quotes, as in ["x"]')
            write = str(self.advance().value)
            self.expect("]", "']' closing the register")
        return Atom(condition, marked=True, write=write)

    def arguments(self, item):
        self.expect("(")
        out = [item()]
        while self.accept(","):
            out.append(item())
        self.expect(")", "',' or ')'")
        return out

    def operator(self, tok: Token, parts: list[Expr]) -> Expr:
        op = tok.text
        if op in ";+":
            if len(parts) < 2:
                raise self.error_at(f"{op}( needs at least two arguments", tok)
            return Concat(tuple(parts)) if op == ";" else Choice(tuple(parts))
        if op == "*" and len(parts) > 1:
            return Star(Concat(tuple(parts)) if self.star == "sequence" else parts[0])
        if len(parts) != 1:
            raise self.error_at(f"{op}( takes exactly one argument", tok)
        if op == "*":
            return Star(parts[0])
        if op == "!":
            return Negation(parts[0])
        return Strategy("any" if op == "#" else "next", parts[0])

    # -- sentences
    def sentence(self) -> Condition:
        tok = self.tok
        if tok.text in ("^", "|") and self.peek().text == "(":
            self.advance()
            parts = tuple(self.arguments(self.sentence))
            if len(parts) == 1:
                return parts[0]
            return And(parts) if tok.text == "^" else Or(parts)
        if self.accept("-"):
            return Not(self.sentence())
        name = self.ident("a predicate, ^(, |( or -")
        args = self.arguments(self.term) if self.at("(") else []
        return self.predicate(name, args)

    def term(self) -> Token:  # type: ignore[override]  # Wayeb's arguments are tokens
        tok = self.tok
        if tok.kind in ("ident", "string", "number"):
            return self.advance()
        if tok.text == "-" and self.peek().kind == "number":
            self.advance()
            number = self.advance()
            assert isinstance(number.value, (int, float))
            return Token("number", "-" + number.text, -number.value, tok.line, tok.column)
        raise self.error("a constant, an attribute, a number or a register in double quotes")

    def predicate(self, name: Token, args: list[Token]) -> Condition:
        p = name.text
        if p == "TruePredicate":
            self.arity(name, args, 0)
            return TRUE
        if p == "IsEventTypePredicate":
            self.arity(name, args, 1)
            return Cmp("=", Attr(HEAD, "type"), Const(args[0].text))
        if p == "EQStr":
            self.arity(name, args, 2)
            return Cmp("=", self.head(args[0]), Const(str(args[1].value)))
        if p in _NUMERIC:
            self.arity(name, args, 2)
            return Cmp(_NUMERIC[p], self.head(args[0]), Const(self.number_of(args[1])))
        if p == "BT":
            self.arity(name, args, 3)
            a = self.head(args[0])
            return And((Cmp(">=", a, Const(self.number_of(args[1]))),
                        Cmp("<", a, Const(self.number_of(args[2])))))
        if p in _REGISTER:
            self.arity(name, args, 2)
            if args[1].kind != "string" or not _NAME.match(str(args[1].value)):
                raise self.error(f'a register in double quotes, as in {p}(price,"x")', args[1])
            return Cmp(_REGISTER[p], self.head(args[0]), Attr(str(args[1].value),
                                                                   args[0].text))
        raise self.error_at(f"a predicate SREMO can express (IsEventTypePredicate, EQStr, "
                            f"EQ, GT, GTE, LT, LTE, BT, EQAttr, EQAttrStr, GTAttr, LTAttr, "
                            f"TruePredicate); {p} has no counterpart", name)

    def arity(self, name: Token, args: list[Token], n: int) -> None:
        if len(args) != n:
            raise self.error_at(f"{name.text} takes {n} argument(s), got {len(args)}", name)

    def head(self, tok: Token) -> Attr:
        if tok.kind != "ident":
            raise self.error("an attribute name", tok)
        return Attr(HEAD, tok.text)

    def number_of(self, tok: Token) -> int | float:
        if tok.kind != "number" or not isinstance(tok.value, (int, float)):
            raise self.error("a number", tok)
        return tok.value

    def error_at(self, message: str, tok: Token) -> PatternSyntaxError:
        return PatternSyntaxError(message, line=tok.line, column=tok.column,
                                  source=self.source, text=self.text)


def _mask_ampersands(text: str) -> str:
    """``text`` with each ``&`` outside double quotes replaced by ``?`` (same length)."""
    out, quoted = [], False
    for ch in text:
        if ch == '"':
            quoted = not quoted
        out.append("?" if ch == "&" and not quoted else ch)
    return "".join(out)


def parse_sre(text: str, source: str = "<sre>", *, star: str = "sequence") -> list[SreQuery]:
    """The queries of a ``.sre`` file; ``star`` is ``sequence`` or ``first`` (see above)."""
    if star not in ("sequence", "first"):
        raise ValueError(f"star must be 'sequence' or 'first', got {star!r}")
    return SreParser(text, source, star).queries()


def read_sre(path: str, *, star: str = "sequence") -> list[SreQuery]:
    """:func:`parse_sre` of the file at ``path`` (errors name the file)."""
    with open(path, encoding="utf-8") as handle:
        return parse_sre(handle.read(), source=str(path), star=star)
