"""Our text syntax of SREMO (seed 004), its parser and its printer.

The paper's expression (1), report Example 16,
``(TypeIsB(~) ↑ • ↓ r1) · (⊤ ↑ ⊗)* · ((TypeIsS(~) ∧ EqualId(~, r1)) ↑ •)``,
is written::

    mark {~.type = 'B'} -> r1 ; {TRUE}* ; mark {~.type = 'S' AND ~.id = r1.id}

Grammar (keywords are case-insensitive; conditions are those of
:mod:`kleene.reference.syntax`, over ``~.A`` and ``r.A``)::

    query   := expr ["PARTITION" "BY" name ("," name)*]   Kleene's partitions (top only)
    expr    := inter ("+" inter)*                    choice, Def. 15 case 4
    inter   := seq ("INTERSECT" seq)*                intersection, Thm 34
    seq     := unary (";" unary)*                    concatenation, case 5
    unary   := "!" unary | postfix                   negation, Cor. 43
    postfix := primary ("*" | "[" "1" ".." w "]" | "[" "WITHIN" duration "]")*
                                                     Kleene star, case 6; window, Def. 39;
                                                     time window (Kleene's extension)
    primary := atom | "(" expr ")" | "EPS" | "EMPTY"
             | ("ANY" | "NEXT") "(" expr ("," expr)* ")"     Defs. 44, 45
    atom    := ["mark"] "{" condition "}" ["->" register]    cases 2, 3

The grammar checked against this parser is docs/grammars.md ("SREMO").
``mark`` makes the output • (otherwise ⊗); ``-> r`` writes the element to
register ``r``. ``ANY(e1, ..., en)`` is ⟲(e1, ..., en), the strategy applied
to the sequence; ``ANY(e)`` applies it to ``e`` alone (to an iteration
``e*``, for example). :func:`format_sremo` prints an expression so that
:func:`parse_sremo` reads it back to an equal expression.
"""

from __future__ import annotations

from kleene.reference.condition_text import format_condition
from kleene.reference.durations import Duration
from kleene.reference.errors import PatternSyntaxError
from kleene.reference.partition_by import partition_by
from kleene.reference.sremo.expressions import (
    KEYWORDS,
    Atom,
    Choice,
    Concat,
    Empty,
    Epsilon,
    Expr,
    IllFormed,
    Intersect,
    Not,
    Partition,
    Star,
    Strategy,
    Window,
    check,
)
from kleene.reference.syntax import Parser, Token, duration


class SremoParser(Parser):
    """Recursive descent over the grammar above; remembers the token of every node."""

    def __init__(self, text: str, source: str = "<pattern>") -> None:
        super().__init__(text, source)
        self.where: dict[int, Token] = {}

    def node(self, e: Expr, tok: Token) -> Expr:
        self.where.setdefault(id(e), tok)
        return e

    def expr(self) -> Expr:
        start = self.tok
        parts = [self.inter()]
        while self.accept("+"):
            parts.append(self.inter())
        return parts[0] if len(parts) == 1 else self.node(Choice(tuple(parts)), start)

    def inter(self) -> Expr:
        start = self.tok
        parts = [self.seq()]
        while self.accept("INTERSECT"):
            parts.append(self.seq())
        return parts[0] if len(parts) == 1 else self.node(Intersect(tuple(parts)), start)

    def seq(self) -> Expr:
        start = self.tok
        parts = [self.unary()]
        while self.accept(";"):
            parts.append(self.unary())
        return parts[0] if len(parts) == 1 else self.node(Concat(tuple(parts)), start)

    def unary(self) -> Expr:
        start = self.tok
        if self.accept("!"):
            return self.node(Not(self.unary()), start)
        return self.postfix()

    def postfix(self) -> Expr:
        start = self.tok
        e = self.primary()
        while True:
            if self.accept("*"):
                e = self.node(Star(e), start)
            elif self.at("["):
                e = self.node(Window(e, self.window()), start)
            else:
                return e

    def window(self) -> int | Duration:
        self.expect("[")
        if self.accept("WITHIN"):
            d = duration(self)
            self.expect("]", "']' closing the time window")
            return d
        one = self.tok
        if self.number("'1' starting a window [1..w]") != 1:
            raise self.error("a window starting at 1, as in [1..w] (report Def. 39)", one)
        self.expect(".", "'..' in a window [1..w]")
        self.expect(".", "'..' in a window [1..w]")
        tok = self.tok
        width = self.number("the window size w of [1..w]")
        if isinstance(width, float) or width < 1:
            raise self.error("a positive integer window size (report Def. 39: w ∈ N1)", tok)
        self.expect("]", "']' closing the window")
        return int(width)

    def primary(self) -> Expr:
        tok = self.tok
        if self.at("{") or self.at("MARK"):
            return self.atom()
        if self.accept("("):
            e = self.expr()
            self.expect(")", "')' closing the parenthesis")
            return e
        if self.accept("EPS"):
            return self.node(Epsilon(), tok)
        if self.accept("EMPTY"):
            return self.node(Empty(), tok)
        if self.at("ANY") or self.at("NEXT"):
            return self.strategy()
        raise self.error("an atom ({condition}, mark {condition}), '(', '!', EPS, EMPTY, "
                         "ANY( or NEXT(")

    def atom(self) -> Expr:
        tok = self.tok
        marked = self.accept("MARK") is not None
        self.expect("{", "'{' opening a condition")
        phi = self.condition()
        self.expect("}", "'}' closing the condition (or AND, OR)")
        write = None
        if self.at("-") and self.peek().text == ">":
            self.advance()
            self.advance()
            reg = self.ident("a register name after '->'")
            if reg.text.upper() in KEYWORDS:
                raise self.error("a register name (not a keyword)", reg)
            write = reg.text
        try:
            return self.node(Atom(phi, marked, write), tok)
        except IllFormed as err:
            raise self.error_at(str(err.args[0]), tok) from None

    def strategy(self) -> Expr:
        tok = self.advance()
        kind = tok.text.lower()
        self.expect("(", f"'(' after {tok.text.upper()}")
        parts = [self.expr()]
        while self.accept(","):
            parts.append(self.expr())
        self.expect(")", f"',' or ')' closing {tok.text.upper()}(")
        body = parts[0] if len(parts) == 1 else self.node(Concat(tuple(parts)), tok)
        return self.node(Strategy(kind, body), tok)

    def error_at(self, message: str, tok: Token) -> PatternSyntaxError:
        return PatternSyntaxError(message, line=tok.line, column=tok.column,
                                  source=self.source, text=self.text)


def parse_sremo(text: str, source: str = "<pattern>") -> Expr:
    """Parse and check (:func:`~kleene.reference.sremo.expressions.check`) a SREMO;
    every error carries the line and column of the offending token."""
    p = SremoParser(text, source)
    tok = p.tok
    e = p.expr()
    by = partition_by(p)
    if by:
        e = p.node(Partition(e, by), tok)
    p.end()
    try:
        return check(e)
    except IllFormed as err:
        tok = p.where.get(id(err.node), p.tokens[0])
        raise p.error_at(str(err.args[0]), tok) from None


# ---------------------------------------------------------------- printing

#: Binding strength of each operator: a child binding less tightly gets parentheses.
_LEVEL = {Choice: 1, Intersect: 2, Concat: 3, Not: 4}


def format_sremo(e: Expr) -> str:
    """``e`` as text that :func:`parse_sremo` reads back to an equal expression."""
    return _format(e)


def _format(e: Expr) -> str:
    if isinstance(e, Partition):
        return _format(e.body) + " PARTITION BY " + ", ".join(e.by)
    if isinstance(e, Atom):
        text = "{" + format_condition(e.condition) + "}"
        if e.marked:
            text = "mark " + text
        return text + (f" -> {e.write}" if e.write else "")
    if isinstance(e, Epsilon):
        return "EPS"
    if isinstance(e, Empty):
        return "EMPTY"
    if isinstance(e, (Choice, Intersect, Concat)):
        word = {Choice: " + ", Intersect: " INTERSECT ", Concat: " ; "}[type(e)]
        level = _LEVEL[type(e)]
        return word.join(_child(p, level + 1) for p in e.parts)
    if isinstance(e, Not):
        return "!" + _child(e.body, _LEVEL[Not])
    if isinstance(e, Star):
        return _child(e.body, 5) + "*"
    if isinstance(e, Window):
        if isinstance(e.width, Duration):
            unit = f" {e.width.unit}" if e.width.unit else ""
            return _child(e.body, 5) + f"[WITHIN {e.width.value}{unit}]"
        return _child(e.body, 5) + f"[1..{e.width}]"
    assert isinstance(e, Strategy)
    args = e.body.parts if isinstance(e.body, Concat) else (e.body,)
    return f"{e.kind.upper()}(" + ", ".join(_format(a) for a in args) + ")"


def _child(e: Expr, level: int) -> str:
    """``e`` as an operand that needs binding strength ``level`` (5: postfix operand)."""
    mine = _LEVEL.get(type(e), 6)
    if isinstance(e, Atom) and level >= 5 and (e.marked or e.write):
        mine = 4  # for the reader: (mark {..} -> r)*, not mark {..} -> r*
    return f"({_format(e)})" if mine < level else _format(e)


__all__ = ["parse_sremo", "format_sremo"]
