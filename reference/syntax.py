"""Text syntax shared by the pattern languages: tokens and the condition grammar (the
printer that reads conditions back is :mod:`kleene.reference.condition_text`; the
``PARTITION BY`` clause, :mod:`kleene.reference.partition_by`).

Every token knows its line and column, so every parse error says where it
happened and what was expected (docs/cli.md, "kleene match": bad input).

Condition grammar (keywords are case-insensitive)::

    condition  := disjunct ("OR" disjunct)*
    disjunct   := conjunct ("AND" conjunct)*
    conjunct   := "NOT" conjunct | "(" condition ")" | "TRUE" | "FALSE" | term cmp term
                | ref "LIKE" string          (CORE's pattern match: reference/regex.py)
    term       := number | "-" number | string | "prev" "(" ref ")"
                | AGG "(" var ["." attr] ")" | ref
    ref        := var ["+"] "." attr          (``p+.L`` is read as ``p.L``, seed 000's style)
                | var "[" "i" ["-" "1"] "]" "." attr   (SASE+: ``b[i].x`` is ``b.x``,
                                              ``b[i-1].x`` is ``prev(b.x)``; seed 003)
    cmp        := "=" | "==" | "!=" | "<>" | "<" | "<=" | ">" | ">="

The grammar checked against this parser is docs/grammars.md ("Tokens and conditions").

Strings are single- or double-quoted; a quote is doubled to escape it.

Nesting is limited to :data:`MAX_NESTING` levels (brackets ``( [ { ⟨`` plus
runs of prefix operators ``NOT``/``!``/``-`` and postfix ``*``): deeper text
is refused with a syntax error at the token that goes one level too deep,
before any recursive descent (docs/architecture.md, "Bad input"), so no
parser, printer or semantics ever meets a ``RecursionError``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass

from kleene.reference.conditions import (
    AGGREGATES,
    LIKE,
    Agg,
    And,
    Attr,
    Cmp,
    Condition,
    Const,
    Not,
    Or,
    Prev,
    Term,
    Truth,
)
from kleene.reference.durations import Duration
from kleene.reference.errors import PatternSyntaxError
from kleene.reference.events import UNIT_MS, canonical_unit
from kleene.reference.regex import RegexRefused, check_pattern

#: The deepest nesting a pattern may have (see the module docstring).
MAX_NESTING = 100

_OPENERS = frozenset("([{⟨")
_CLOSERS = frozenset(")]}⟩")
_PREFIX = frozenset({"NOT", "!", "-"})

_COMPARISON_OPS = ("=", "==", "!=", "<>", "<", "<=", ">", ">=")

#: Keywords that end a condition; they never start a term.
STRUCTURE_WORDS = frozenset({"AND", "OR", "NOT", "WHERE", "WITHIN", "PATTERN", "RETURN"})


@dataclass(frozen=True, slots=True)
class Token:
    """A token: kind (``ident number string op end``), text, value, line, column."""

    kind: str
    text: str
    value: object
    line: int
    column: int


_TOKEN = re.compile(r"""
    (?P<ws>[ \t\r\n]+|--[^\n]*|//[^\n]*)
  | (?P<number>\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<string>'(?:[^']|'')*'|"(?:[^"]|"")*")
  | (?P<op><=|>=|!=|<>|==|[-+*/()\[\]{}<>=,.;:~!#@^|?⟨⟩])
""", re.VERBOSE)


def tokenize(text: str, source: str = "<pattern>") -> list[Token]:
    """Split ``text`` into tokens (comments ``--`` and ``//`` run to end of line)."""
    tokens: list[Token] = []
    pos, line, line_start = 0, 1, 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        column = pos - line_start + 1
        if m is None:
            hint = (" (names are ASCII letters, digits and _; text in quotes may be any)"
                    if text[pos].isidentifier() else "")
            raise PatternSyntaxError(f"unexpected character {text[pos]!r}{hint}", line=line,
                                     column=column, source=source, text=text)
        kind = m.lastgroup or "ws"
        lexeme = m.group()
        if kind == "number":
            value: object = float(lexeme) if any(ch in lexeme for ch in ".eE") else int(lexeme)
            tokens.append(Token("number", lexeme, value, line, column))
        elif kind == "string":
            quote = lexeme[0]
            tokens.append(Token("string", lexeme, lexeme[1:-1].replace(quote * 2, quote),
                                line, column))
        elif kind in ("ident", "op"):
            tokens.append(Token(kind, lexeme, lexeme, line, column))
        newlines = lexeme.count("\n")
        if newlines:
            line += newlines
            line_start = pos + lexeme.rindex("\n") + 1
        pos = m.end()
    tokens.append(Token("end", "", None, line, pos - line_start + 1))
    return tokens


def check_nesting(tokens: list[Token], text: str, source: str = "<pattern>",
                  limit: int = MAX_NESTING) -> None:
    """Refuse ``tokens`` nested deeper than ``limit`` levels (brackets, and runs of
    prefix ``NOT ! -`` or postfix ``*``), at the first token past the limit."""
    depth = run = 0
    for tok in tokens:
        word = tok.text.upper() if tok.kind == "ident" else tok.text
        if tok.kind == "op" and tok.text in _OPENERS:
            depth += 1 + run
            run = 0
            level = depth
        elif tok.kind == "op" and tok.text in _CLOSERS:
            depth = max(depth - 1, 0)
            run = 0
            level = depth
        elif (tok.kind in ("op", "ident") and word in _PREFIX) or (
                tok.kind == "op" and tok.text == "*"):
            run += 1
            level = depth + run
        else:
            run = 0
            level = depth
        if level > limit:
            raise PatternSyntaxError(
                f"nesting deeper than {limit} levels (brackets and chains of NOT, !, - or *); "
                "flatten the pattern", line=tok.line, column=tok.column, source=source,
                text=text)


class Parser:
    """A cursor over tokens with the helpers every recursive-descent parser here uses."""

    def __init__(self, text: str, source: str = "<pattern>") -> None:
        self.text = text
        self.source = source
        self.tokens = tokenize(text, source)
        check_nesting(self.tokens, text, source)
        self.i = 0

    # -- cursor
    @property
    def tok(self) -> Token:
        return self.tokens[self.i]

    def peek(self, k: int = 1) -> Token:
        return self.tokens[min(self.i + k, len(self.tokens) - 1)]

    def advance(self) -> Token:
        tok = self.tokens[self.i]
        self.i = min(self.i + 1, len(self.tokens) - 1)
        return tok

    def error(self, expected: str, tok: Token | None = None) -> PatternSyntaxError:
        tok = tok or self.tok
        found = "end of input" if tok.kind == "end" else repr(tok.text)
        return PatternSyntaxError(f"expected {expected}, found {found}", line=tok.line,
                                  column=tok.column, source=self.source, text=self.text)

    def at(self, text: str) -> bool:
        """Whether the current token is operator ``text`` or keyword ``text`` (any case)."""
        tok = self.tok
        if tok.kind == "op":
            return tok.text == text
        return tok.kind == "ident" and tok.text.upper() == text.upper()

    def accept(self, text: str) -> Token | None:
        return self.advance() if self.at(text) else None

    def expect(self, text: str, what: str | None = None) -> Token:
        if not self.at(text):
            raise self.error(what or repr(text))
        return self.advance()

    def ident(self, what: str = "a name") -> Token:
        if self.tok.kind != "ident":
            raise self.error(what)
        return self.advance()

    def number(self, what: str = "a number") -> int | float:
        negative = self.accept("-") is not None
        if self.tok.kind != "number":
            raise self.error(what)
        value = self.advance().value
        assert isinstance(value, (int, float))
        return -value if negative else value

    def end(self) -> None:
        if self.tok.kind != "end":
            raise self.error("end of input")

    # -- conditions
    def condition(self, stop: Callable[[Parser], bool] | None = None) -> Condition:
        """``condition`` of the grammar above."""
        parts = [self._disjunct()]
        while self.accept("OR"):
            parts.append(self._disjunct())
        return parts[0] if len(parts) == 1 else Or(tuple(parts))

    def _disjunct(self) -> Condition:
        parts = [self.conjunct()]
        while self.accept("AND"):
            parts.append(self.conjunct())
        return parts[0] if len(parts) == 1 else And(tuple(parts))

    def conjunct(self) -> Condition:
        """One conjunct: a negation, a parenthesised condition, a constant or a comparison."""
        if self.accept("NOT"):
            return Not(self.conjunct())
        if self.accept("("):
            inner = self.condition()
            self.expect(")", "')' closing the condition")
            return inner
        if (self.at("TRUE") or self.at("FALSE")) and self.peek().text not in _COMPARISON_OPS:
            return Truth(self.advance().text.upper() == "TRUE")
        start = self.tok
        left = self.term()
        if self.accept("LIKE"):
            return self.like(left, start)
        op_tok = self.tok
        if op_tok.kind != "op" or op_tok.text not in _COMPARISON_OPS:
            raise self.error("a comparison (= != < <= > >= LIKE)")
        self.advance()
        op = {"==": "=", "<>": "!="}.get(op_tok.text, op_tok.text)
        return Cmp(op, left, self.term())

    def like(self, left: Term, start: Token) -> Cmp:
        """The rest of ``left LIKE 'regex'`` (after ``LIKE``): a pattern outside
        :mod:`kleene.reference.regex`'s subset is refused at its character."""
        if not isinstance(left, Attr):
            raise self.error("an attribute before LIKE", start)
        tok = self.tok
        if tok.kind != "string":
            raise self.error("a 'regular expression' in quotes after LIKE")
        self.advance()
        assert isinstance(tok.value, str)
        try:
            check_pattern(tok.value)
        except RegexRefused as err:
            line, column = inside_string(tok, err.offset)
            raise PatternSyntaxError(f"in the pattern of LIKE: {err.message}", line=line,
                                     column=column, source=self.source,
                                     text=self.text) from None
        return Cmp(LIKE, left, Const(tok.value))

    def term(self) -> Term:
        """A term: constant, ``prev(v.A)``, ``AGG(v.A)`` or ``v.A``."""
        tok = self.tok
        if tok.kind == "number" or (tok.kind == "op" and tok.text == "-"):
            return Const(self.number("a number"))
        if tok.kind == "string":
            self.advance()
            assert isinstance(tok.value, str)
            return Const(tok.value)
        if tok.kind == "ident" and tok.text.upper() in ("TRUE", "FALSE"):
            self.advance()
            return Const(tok.text.upper() == "TRUE")
        if (tok.kind != "ident" and not (tok.kind == "op" and tok.text == "~")) or (
                tok.kind == "ident" and tok.text.upper() in STRUCTURE_WORDS):
            raise self.error("an attribute reference (v.A), prev(v.A), an aggregate or a constant")
        if tok.kind == "ident" and tok.text.lower() == "prev" and self.peek().text == "(":
            self.advance()
            self.expect("(")
            var, attr = self.reference()
            self.expect(")", "')' closing prev(")
            return Prev(var, attr)
        if tok.kind == "ident" and tok.text.upper() in AGGREGATES and self.peek().text == "(":
            func = self.advance().text.upper()
            self.expect("(")
            var = self.ident("a variable").text
            self.accept("+")
            if self.at("[") and self.index():
                raise self.error(f"b[i] in an aggregate ({func} reads every event of b)")
            measured = self.ident("an attribute").text if self.accept(".") else None
            if measured is None and func != "COUNT":
                raise self.error(f"'.' and an attribute ({func} needs one)")
            self.expect(")", f"')' closing {func}(")
            return Agg(func, var, measured)
        if tok.kind == "ident" and self.peek().text == "[":
            return self.indexed_reference()
        var, attr = self.reference()
        return Attr(var, attr)

    def index(self) -> bool:
        """SASE+'s ``[i]`` (``False``) or ``[i-1]`` (``True``) after a variable (seed 003
        Patterns (6), (7)): the current event of an iteration, or the one before it."""
        self.expect("[")
        if not (self.tok.kind == "ident" and self.tok.text == "i"):
            raise self.error("'i' (as in b[i].x or b[i-1].x)")
        self.advance()
        previous = self.accept("-") is not None
        if previous:
            if self.tok.kind != "number" or self.tok.value != 1:
                raise self.error("1 (b[i-1] names the previous event; no other offset exists)")
            self.advance()
        self.expect("]", "']' closing the index")
        return previous

    def indexed_reference(self) -> Term:
        """``v[i].A`` is ``v.A`` and ``v[i-1].A`` is ``prev(v.A)`` (seed 003 Pattern (7))."""
        var = self.ident("a variable").text
        previous = self.index()
        self.expect(".", "'.' and an attribute name (v[i].A)")
        attr = self.ident("an attribute name").text
        return Prev(var, attr) if previous else Attr(var, attr)

    def reference(self) -> tuple[str, str]:
        """``var.attr`` (also ``var+.attr`` and SREMO's ``~.attr``)."""
        if self.accept("~"):
            var = "~"
        else:
            var = self.ident("a variable").text
            if self.at("+") and self.peek().text == ".":
                self.advance()
        self.expect(".", "'.' and an attribute name (v.A)")
        return var, self.ident("an attribute name").text


def inside_string(tok: Token, offset: int) -> tuple[int, int]:
    """Line and column of character ``offset`` of a string token's value (a doubled
    quote is one character of the value, two of the text)."""
    quote, raw, seen = tok.text[0], 1, 0
    while seen < offset and raw < len(tok.text) - 1:
        raw += 2 if tok.text[raw] == quote else 1
        seen += 1
    before = tok.text[:raw]
    if "\n" in before:
        return tok.line + before.count("\n"), len(before) - before.rindex("\n")
    return tok.line, tok.column + raw


def parse_condition(text: str, source: str = "<condition>") -> Condition:
    """Parse one condition from ``text``."""
    p = Parser(text, source)
    c = p.condition()
    p.end()
    return c


def where_conditions(p: Parser) -> tuple[Condition, ...]:
    """Θ: the top-level ``AND``-separated conditions (a top-level ``OR`` makes one)."""
    start = p.i
    parts = [p.conjunct()]
    while p.accept("AND"):
        parts.append(p.conjunct())
    if p.at("OR"):
        p.i = start
        return (p.condition(),)
    return tuple(parts)


def check_prev(text: str, source: str, groups: frozenset[str] | set[str]) -> None:
    """Refuse ``prev(v.A)`` and ``v[i-1].A`` on a variable ``v`` that binds one event
    (not in ``groups``): its sequence has no consecutive pair, so the condition holds
    vacuously and says nothing (docs/semantics.md, section 2). The error points at
    ``v``. (A check of :mod:`kleene.reference.schema`, not of the parsers: the AST
    allows it, and its reading is defined.)"""
    tokens = tokenize(text, source)
    for i, tok in enumerate(tokens[:-3]):
        var = None
        if tok.kind == "ident" and tok.text.lower() == "prev" and tokens[i + 1].text == "(":
            var = tokens[i + 2]
        elif tok.kind == "ident" and tokens[i + 1].text == "[" and tokens[i + 2].text == "i" \
                and tokens[i + 3].text == "-":
            var = tok
        if var is not None and var.kind == "ident" and var.text not in groups:
            raise PatternSyntaxError(
                f"prev({var.text}...) reads the event before {var.text}'s in its sequence, but "
                f"{var.text} binds a single event; make it a group variable ({var.text}+) or "
                "compare with another variable", line=var.line, column=var.column,
                source=source, text=text)


def duration(p: Parser) -> Duration:
    """``WITHIN``'s operand: a non-negative finite number, then optionally a time unit
    (``1e400`` reads as infinity in Python: a typo for a window, refused)."""
    start = p.tok
    value = p.number("a duration (a number, then optionally a unit)")
    if value < 0:
        raise p.error("a non-negative duration", start)
    if not math.isfinite(value):
        raise p.error("a finite duration", start)
    unit = None
    if p.tok.kind == "ident" and p.tok.text.lower() in UNIT_MS:
        unit = canonical_unit(p.advance().text)
    return Duration(value, unit)
