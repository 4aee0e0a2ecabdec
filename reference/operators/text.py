"""The text syntax of operator patterns (SASE+ as written in seed 003), parser and printer.

Seed 003's Pattern (1) reads, in our syntax::

    PATTERN SEQ(A a, B b, C c)
    WHERE skip_till_any_match { a.price > 10 AND b.price > 10 AND c.price > 10 }
    WITHIN 1 hour

Grammar (keywords are case-insensitive; conditions as in :mod:`kleene.reference.syntax`,
which also reads SASE+'s ``b[i].x`` and ``b[i-1].x``)::

    pattern  := "PATTERN" expr
                ["PARTITION" "BY" attr ("," attr)*]      -- v.attr = w.attr for every pair
                ["WHERE" [strategy] ("{" [conditions] "}" | conditions)]
                ["WITHIN" duration]
    expr     := primary repeat*
    primary  := ("SEQ" | "AND" | "OR") "(" expr ("," expr)* ")"
              | "NOT" "(" expr ")" | "~" primary | "(" expr ")"
              | type [repeat] var ["[" "]"]        -- A a,  B+ b[],  B{2,3} b[],  ANY x
    repeat   := "+" | "{" int ["," [int]] "}"     -- +,  {l,m},  {l,} (no bound),  {l} = {l,l}
    strategy := skip_till_any_match | skip_till_next_match | strict_contiguity
              | partition_contiguity

The grammar checked against this parser is docs/grammars.md ("Operator patterns").
``B+ b[]`` is ``Kleene(Primitive('B', 'b'))``, the same AST as ``(B b)+``; the
``[]`` marks a repeated event and is required exactly then. ``conditions``
are the top-level ``AND``-separated parts of ``WHERE`` (Θ, as for SES
patterns). :func:`format_operator` prints a pattern that
:func:`parse_operator` reads back to an equal AST; every error, also a
malformed-pattern one (:func:`.pattern.check`), carries a line and column.
"""

from __future__ import annotations

from kleene.reference.condition_text import format_condition
from kleene.reference.conditions import Condition
from kleene.reference.durations import Duration
from kleene.reference.errors import PatternSyntaxError
from kleene.reference.operators.pattern import (
    KEYWORDS,
    STRATEGIES,
    Conj,
    Disj,
    Kleene,
    MalformedPattern,
    Neg,
    Node,
    OperatorPattern,
    Primitive,
    Seq,
    primitives,
)
from kleene.reference.partition_by import partition_by, partition_equalities, split_partition
from kleene.reference.syntax import Parser, Token, duration, where_conditions

_OPERATORS: dict[str, type[Seq] | type[Conj] | type[Disj]] = {"SEQ": Seq, "AND": Conj,
                                                               "OR": Disj}


class _Reader(Parser):
    """The recursive-descent parser of the grammar above; remembers where each node began."""

    def __init__(self, text: str, source: str) -> None:
        super().__init__(text, source)
        self.origin: dict[int, Token] = {}

    def node(self, p: Node, tok: Token) -> Node:
        self.origin[id(p)] = tok
        return p

    def expr(self) -> Node:
        start = self.tok
        p = self.primary()
        while self.at("+") or self.at("{"):
            low, high = self.repeat()
            p = self.node(Kleene(p, low, high), start)
        return p

    def primary(self) -> Node:
        tok = self.tok
        word = tok.text.upper() if tok.kind == "ident" else None
        if word in _OPERATORS:
            self.advance()
            self.expect("(", f"'(' after {word}")
            items = [self.expr()]
            while self.accept(","):
                items.append(self.expr())
            self.expect(")", f"',' or ')' closing {word}(")
            return self.node(_OPERATORS[word](tuple(items)), tok)
        if word == "NOT":
            self.advance()
            self.expect("(", "'(' after NOT")
            inner = self.expr()
            self.expect(")", "')' closing NOT(")
            return self.node(Neg(inner), tok)
        if self.accept("~"):
            return self.node(Neg(self.primary()), tok)
        if self.accept("("):
            inner = self.expr()
            self.expect(")", "')'")
            return inner
        return self.primitive()

    def primitive(self) -> Node:
        tok = self.tok
        if tok.kind != "ident" or (tok.text.upper() in KEYWORDS and tok.text.upper() != "ANY"):
            raise self.error("an event type (A a, B+ b[], ANY x), SEQ, AND, OR, NOT or '('")
        self.advance()
        kind = None if tok.text.upper() == "ANY" else tok.text
        bounds = self.repeat() if (self.at("+") or self.at("{")) else None
        var = self.tok
        if var.kind != "ident" or var.text.upper() in KEYWORDS:
            raise self.error("a variable name (not a keyword) after the event type")
        self.advance()
        leaf = self.node(Primitive(kind, var.text), var)
        if bounds is None:
            if self.at("["):
                raise self.error(f"',' or ')': '[]' marks a repeated event, as in "
                                 f"{tok.text}+ {var.text}[]")
            return leaf
        self.expect("[", f"'[]' after the variable of a repeated event ({tok.text}+ "
                         f"{var.text}[])")
        self.expect("]", "']'")
        return self.node(Kleene(leaf, *bounds), tok)

    def repeat(self) -> tuple[int, int | None]:
        if self.accept("+"):
            return 1, None
        self.expect("{")
        low = self.count("the least number of repetitions")
        high: int | None = low
        if self.accept(","):
            high = None if self.at("}") else self.count("the greatest number of repetitions")
        self.expect("}", "',' or '}' closing the repetition")
        return low, high

    def count(self, what: str) -> int:
        tok = self.tok
        if tok.kind != "number" or not isinstance(tok.value, int):
            raise self.error(what + " (an integer)")
        self.advance()
        return tok.value

    def where(self) -> tuple[tuple[Condition, ...], str | None]:
        strategy = None
        if self.tok.kind == "ident" and self.tok.text.lower() in STRATEGIES and \
                self.peek().text not in (".", "+", "["):   # not a variable of that name
            strategy = self.advance().text.lower()
        if self.accept("{"):
            conditions = () if self.at("}") else where_conditions(self)
            self.expect("}", "'AND', 'OR' or '}' closing the conditions")
            return conditions, strategy
        if strategy is not None and (self.at("WITHIN") or self.tok.kind == "end"):
            return (), strategy
        return where_conditions(self), strategy


def parse_operator(text: str, source: str = "<pattern>") -> OperatorPattern:
    """Parse an operator pattern; errors carry line, column and what was expected."""
    r = _Reader(text, source)
    r.expect("PATTERN", "'PATTERN'")
    expr = r.expr()
    keys = partition_by(r)
    conditions: tuple[Condition, ...] = ()
    strategy = None
    where_at = len(r.tokens)
    if r.at("WHERE"):
        where_at = r.i
        r.advance()
        conditions, strategy = r.where()
    window: Duration | None = None
    if r.accept("WITHIN"):
        window = duration(r)
    if r.tok.kind != "end":
        raise r.error("end of input" if window is not None
                      else "'AND', 'OR', 'WITHIN' or end of input" if where_at < len(r.tokens)
                      else "'WHERE', 'WITHIN' or end of input")
    try:
        names = _declared(expr)
        return OperatorPattern(expr, partition_equalities(names, keys) + conditions, window,
                               strategy)
    except MalformedPattern as err:
        raise _located(r, err, where_at) from None


def repeated(expr: Node) -> set[str]:
    """The variables under a Kleene operator (they bind a sequence; ``prev`` reads it)."""
    if isinstance(expr, Kleene):
        return {x.var for x in primitives(expr.part)}
    if isinstance(expr, Primitive):
        return set()
    inner = (expr.part,) if isinstance(expr, Neg) else expr.parts
    return set().union(*(repeated(q) for q in inner))


def _declared(expr: Node) -> tuple[str, ...]:
    """Every variable, negated ones too, in the order the pattern declares them
    (``PARTITION BY`` relates them all: no negated event of another key counts)."""
    return tuple(dict.fromkeys(x.var for x in primitives(expr)))


def _located(r: _Reader, err: MalformedPattern, where_at: int) -> PatternSyntaxError:
    """``err`` as a syntax error at the node or variable it names."""
    tok = r.origin.get(id(err.node)) if err.node is not None else None
    if tok is None and err.var is not None:
        tok = next((t for i, t in enumerate(r.tokens[where_at:], where_at)
                    if t.kind == "ident" and t.text == err.var and r.tokens[i - 1].text != "."),
                   None)
    tok = tok or r.tokens[0]
    return PatternSyntaxError(str(err.args[0]), line=tok.line, column=tok.column,
                              source=r.source, text=r.text)

# ---------------------------------------------------------------- printing


def format_repeat(low: int, high: int | None) -> str:
    """``+``, ``{l,}``, ``{l}`` or ``{l,m}``."""
    if high is None:
        return "+" if low == 1 else f"{{{low},}}"
    return f"{{{low}}}" if low == high else f"{{{low},{high}}}"


def format_expr(p: Node) -> str:
    """A pattern expression as text (one line)."""
    if isinstance(p, Primitive):
        return f"{p.type or 'ANY'} {p.var}"
    if isinstance(p, Kleene):
        rep = format_repeat(p.low, p.high)
        if isinstance(p.part, Primitive):
            return f"{p.part.type or 'ANY'}{rep} {p.part.var}[]"
        inner = format_expr(p.part)
        return f"({inner}){rep}" if isinstance(p.part, (Kleene, Neg)) else inner + rep
    if isinstance(p, Neg):
        return f"NOT({format_expr(p.part)})"
    word = {Seq: "SEQ", Conj: "AND", Disj: "OR"}[type(p)]
    return f"{word}({', '.join(format_expr(q) for q in p.parts)})"


def format_operator(pattern: OperatorPattern) -> str:
    """The pattern as text; ``parse_operator(format_operator(P)) == P``."""
    lines = [f"PATTERN {format_expr(pattern.expr)}"]
    keys, rest = split_partition(_declared(pattern.expr), pattern.conditions)
    if keys:
        lines.append(f"PARTITION BY {', '.join(keys)}")
    conditions = [format_condition(c, 2) for c in rest]
    if pattern.strategy is not None:
        lines.append(f"WHERE {pattern.strategy} {{ {' AND '.join(conditions)} }}"
                     if conditions else f"WHERE {pattern.strategy} {{ }}")
    elif conditions:
        lines.append("WHERE " + conditions[0])
        lines.extend("  AND " + c for c in conditions[1:])
    if pattern.window is not None:
        lines.append(f"WITHIN {pattern.window}")
    return "\n".join(lines) + "\n"
