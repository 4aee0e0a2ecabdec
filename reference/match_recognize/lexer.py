"""The tokens of SQL text around and inside ``MATCH_RECOGNIZE`` (ISO/IEC 9075-2 §5.2–5.3).

Every token keeps its offset in the text it was cut from; a :class:`Source`
turns an offset into line and column (and the errors that carry them), also for
a parenthesised subquery parsed on its own (its ``base`` is where it starts in
the whole statement). Kinds:

- ``ident``: a regular identifier (``[A-Za-z_][A-Za-z0-9_]*``); ``value`` is it in
  upper case (SQL folds regular identifiers, §5.2 SR 22), ``text`` as written;
- ``qident``: a delimited identifier ``"x"`` (``""`` inside is one ``"``), kept as written;
- ``string``: ``'x'`` (``''`` inside is one ``'``);
- ``number``: an exact numeric literal (``int``, or ``Decimal`` with a point) or an
  approximate one (with an exponent: ``float``), §5.3;
- ``op``: an operator or punctuation, the row pattern's ``{-`` and ``-}`` included;
  any other single character is an ``op`` too, so the outer SQL (not Kleene's to
  parse) always tokenizes and only the clause's parser decides what it accepts;
- ``end``.

Comments ``--`` (to the end of the line) and ``/* */`` are white space. A
:class:`Cursor` walks the tokens for the parsers (row patterns, expressions, the
clause); :data:`RESERVED` are the words it never takes for a name.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import TypeVar

from kleene.reference.errors import PatternSyntaxError, RecognitionError, Unsupported
from kleene.reference.syntax import MAX_NESTING

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Token:
    """A token: its kind, its text as written, its value and its offset ``at``."""

    kind: str
    text: str
    value: object
    at: int

    @property
    def end(self) -> int:
        return self.at + len(self.text)

    def word(self) -> str | None:
        """The keyword this token may be: a regular identifier, upper case."""
        return self.text.upper() if self.kind == "ident" else None


@dataclass(frozen=True)
class Source:
    """Where offsets point: the whole statement's ``text``, its file name ``name`` and
    ``base``, the offset in ``text`` of the part being parsed (a subquery's)."""

    text: str
    name: str = "<query>"
    base: int = 0

    def position(self, at: int) -> tuple[int, int]:
        """Line and column (from 1) of offset ``at`` of the part being parsed."""
        absolute = self.base + max(at, 0)
        line = self.text.count("\n", 0, absolute) + 1
        column = absolute - (self.text.rfind("\n", 0, absolute) + 1) + 1
        return line, column

    def where(self, at: int) -> str:
        line, column = self.position(at)
        return f"{self.name}:{line}:{column}"

    def syntax_error(self, message: str, at: int) -> PatternSyntaxError:
        line, column = self.position(at)
        return PatternSyntaxError(message, line=line, column=column, source=self.name,
                                  text=self.text)

    def unsupported(self, what: str, at: int) -> Unsupported:
        return Unsupported(f"{self.where(at)}: {what} is not supported by Kleene's "
                           "MATCH_RECOGNIZE")

    def recognition_error(self, code: str, message: str, at: int) -> RecognitionError:
        """The standard's semantic error ``code`` at offset ``at``."""
        line, column = self.position(at)
        return RecognitionError(code, message, line=line, column=column, source=self.name)

    def inner(self, base: int) -> Source:
        """The source of a part starting at offset ``base`` of this part."""
        return Source(self.text, self.name, self.base + base)


_TOKEN = re.compile(r"""
    (?P<ws>\s+|--[^\n]*|/\*.*?\*/)
  | (?P<number>(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<qident>"(?:[^"]|"")*")
  | (?P<string>'(?:[^']|'')*')
  | (?P<op>\{-|-\}|<=|>=|<>|!=|\|\||::|->|=>|.)
""", re.VERBOSE | re.DOTALL)


def tokenize(text: str, source: Source | None = None) -> list[Token]:
    """The tokens of ``text`` (a comment or quote left open is a syntax error)."""
    where = source or Source(text)
    tokens: list[Token] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or (m.lastgroup == "op" and m.group() in "'\"" and len(m.group()) == 1):
            what = {"'": "string", '"': "quoted identifier"}.get(text[pos], "comment")
            raise where.syntax_error(f"{what} not closed", pos)
        kind, lexeme = m.lastgroup or "ws", m.group()
        if kind == "op" and lexeme == "/" and text.startswith("/*", pos):
            raise where.syntax_error("comment not closed", pos)
        if kind == "number":
            tokens.append(Token(kind, lexeme, _number(lexeme), pos))
        elif kind == "ident":
            tokens.append(Token(kind, lexeme, lexeme.upper(), pos))
        elif kind in ("qident", "string"):
            quote = lexeme[0]
            if kind == "qident" and len(lexeme) == 2:
                raise where.syntax_error("a quoted identifier is not empty", pos)
            tokens.append(Token(kind, lexeme, lexeme[1:-1].replace(quote * 2, quote), pos))
        elif kind == "op":
            tokens.append(Token(kind, lexeme, lexeme, pos))
        pos = m.end()
    tokens.append(Token("end", "", None, len(text)))
    return tokens


def _number(lexeme: str) -> int | Decimal | float:
    if "e" in lexeme or "E" in lexeme:
        return float(lexeme)
    if "." in lexeme:
        return Decimal(lexeme)
    return int(lexeme)


_OPEN = frozenset({"(", "{-", "{", "["})
_CLOSE = frozenset({")", "-}", "}", "]"})
_PREFIX = frozenset({"NOT", "-", "+"})


def check_nesting(tokens: list[Token], source: Source) -> None:
    """Refuse text nested deeper than :data:`~kleene.reference.syntax.MAX_NESTING` levels
    (brackets, and runs of prefix ``NOT - +``), at the first token past the limit, before
    any recursive descent (docs/architecture.md, "Bad input")."""
    opened: list[int] = []
    depth = run = 0
    for tok in tokens:
        word = tok.word() or (tok.text if tok.kind == "op" else "")
        if tok.kind == "op" and tok.text in _OPEN:
            opened.append(1 + run)
            depth, run = depth + 1 + run, 0
            level = depth
        elif tok.kind == "op" and tok.text in _CLOSE:
            depth, run = depth - (opened.pop() if opened else 0), 0
            level = depth
        elif word in _PREFIX:
            run += 1
            level = depth + run
        else:
            run = 0
            level = depth
        if level > MAX_NESTING:
            raise source.syntax_error(f"nesting deeper than {MAX_NESTING} levels "
                                      "(brackets and chains of NOT, - or +); flatten the query",
                                      tok.at)


#: Words that never name a column or a variable unless quoted: SQL's operators and
#: literals, the words that start a clause's part, and SQL's own (a query inside).
#: Function names (``PREV``, ``COUNT``), ``RUNNING``, ``PERMUTE``, ``DATE`` and the
#: clause's inner words (``ROWS``, ``SKIP``) may name a column or a variable, as in
#: Oracle and DuckDB; the printer quotes them all the same.
RESERVED = frozenset({
    "AND", "OR", "NOT", "IS", "NULL", "TRUE", "FALSE", "BETWEEN", "IN", "LIKE", "CASE",
    "WHEN", "THEN", "ELSE", "END", "CAST", "AS", "DISTINCT", "SELECT", "FROM", "WITH",
    "EXISTS", "INTERVAL", "LAMBDA", "MATCH_RECOGNIZE", "PARTITION", "ORDER", "MEASURES",
    "ALL", "AFTER", "PATTERN", "SUBSET", "DEFINE", "WITHIN",
})


class Cursor:
    """A position in a list of tokens, with the helpers the parsers here share."""

    def __init__(self, tokens: list[Token], source: Source) -> None:
        self.tokens = tokens
        self.source = source
        self.i = 0

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
        return self.source.syntax_error(f"expected {expected}, found {found}", tok.at)

    def at(self, *texts: str) -> bool:
        """Whether the current token is one of the operators or keywords ``texts``."""
        tok = self.tok
        return (tok.text if tok.kind == "op" else tok.word()) in texts

    def accept(self, *texts: str) -> Token | None:
        return self.advance() if self.at(*texts) else None

    def expect(self, text: str, what: str | None = None) -> Token:
        if not self.at(text):
            raise self.error(what or repr(text))
        return self.advance()

    def at_name(self) -> bool:
        tok = self.tok
        return tok.kind == "qident" or (tok.kind == "ident" and tok.word() not in RESERVED)

    def name(self, what: str = "a name") -> tuple[str, Token]:
        """A name: a regular identifier (upper case) or a quoted one (as written)."""
        if not self.at_name():
            raise self.error(what)
        tok = self.advance()
        assert isinstance(tok.value, str)
        return tok.value, tok

    def integer(self, what: str) -> int:
        tok = self.tok
        if tok.kind != "number" or not isinstance(tok.value, int):
            raise self.error(what)
        self.advance()
        return tok.value

    def list_of(self, item: Callable[[], T]) -> tuple[T, ...]:
        """``item ("," item)*``, ``item`` a parsing method."""
        items = [item()]
        while self.accept(","):
            items.append(item())
        return tuple(items)
