"""The CEQL text of a query (CORE's ``core_query``) into the SREMO expression it denotes.

Grammar of the fragment read (keywords in any case; docs/grammars.md, "CEQL", is the
grammar checked against this parser; precedence as CORE's grammar orders its
alternatives, tightest first: ``AS``, ``+``, ``:+``, then ``;``, ``:``, ``OR``, ``FILTER``)::

    query     := "SELECT" [strategy] "*" ["FROM" name] "WHERE" formula
                 ["PARTITION" "BY" "[" name ("," name)* "]"]
                 ["WITHIN" (int "EVENTS" | int "[" name "]" | span)]
                 ["CONSUME" "BY" ("NONE" | "ANY" | "PARTITION")] ["LIMIT" int]   (int ≥ 1)
    strategy  := "ALL" | "ANY" | "LAST" | "MAX" | "NEXT" | "STRICT"
    formula   := union ("FILTER" filter)*
    union     := contig ("OR" contig)*
    contig    := seq (":" seq)*
    seq       := postfix (";" postfix)*
    postfix   := primary ("AS" name | "+" | ":" "+")*
    primary   := "(" formula ")" | name | "NOT" "(" name ("FILTER" filter)* ")"
    filter    := fand ("OR" fand)*
    fand      := fatom ("AND" fatom)*
    fatom     := "(" filter ")" | name "[" predicate "]"
    predicate := pand ("OR" pand)* ;  pand := pnot ("AND" pnot)* ;  pnot := "NOT" pnot | patom
    patom     := "(" predicate ")" | value cmp value
               | name ["NOT"] "IN" "{" literal ("," literal)* "}"
               | name "IN" "RANGE" "(" number "," number ")"
               | name "LIKE" string                 (CORE's RE2 partial match: .like)
    value     := name | literal ;  literal := number | string
    span      := [number "HOURS"] [number "MINUTES"] [number "SECONDS"]   (singular too)

A strategy other than ``ALL``, ``CONSUME BY ANY`` or ``PARTITION`` and ``LIMIT`` wrap the
expression in a :class:`~.selection.Selected`, which keeps part of its complex events
(:mod:`.selection`). What the grammar has but Kleene does not read is refused at its
token, in one line with the position: ``SELECT ANY`` (no CEL strategy), a variable list
after ``SELECT``, several streams, a
stream-qualified event (``S>T``), arithmetic, a value range ``{a..b}``, a
second partition group, ``n EVENTS`` with ``PARTITION BY``, and ``NOT(...)`` where CORE's
complex event and Kleene's match part (:meth:`_Reader.negations`).

``NOT(T FILTER T[P])`` (CORE's ``not_event_type_atomic_cel_formula``; CORE's grammar has
it before an atomic formula only) is one event on which ``T`` with ``P`` does not hold,
read and not output (:class:`~.formula.Leaf`, ``negated``).
``WITHIN n [attr]`` is a window of n on the events' timestamps: ``attr`` must be the
attribute the events were loaded with as ``ts`` (the stock stream's ``stock_time``).
"""

from __future__ import annotations

from kleene.reference.conditions import (
    TRUE,
    Attr,
    Cmp,
    Condition,
    Const,
    Not,
    Term,
    conjunction,
)
from kleene.reference.conditions import Or as OrCondition
from kleene.reference.durations import Duration
from kleene.reference.errors import PatternError, PatternSyntaxError
from kleene.reference.sremo.expressions import Expr, IllFormed, Partition, Window, check
from kleene.reference.syntax import Parser, Token

from . import formula as f
from .like import like
from .selection import CONSUMPTIONS, STRATEGIES, Selected

#: Words that end or structure a formula: never an event type or a variable.
KEYWORDS = frozenset({"SELECT", "FROM", "WHERE", "AS", "OR", "AND", "NOT", "FILTER",
                      "PARTITION", "BY", "WITHIN", "CONSUME", "LIMIT", "IN", "RANGE", "LIKE",
                      "EVENTS"})
_COMPARISONS = {"=": "=", "==": "=", "!=": "!=", "<>": "!=", "<": "<", "<=": "<=",
                ">": ">", ">=": ">="}
_SPANS = (("HOURS", "HOUR", 3600), ("MINUTES", "MINUTE", 60), ("SECONDS", "SECOND", 1))


class CeqlUnsupported(PatternSyntaxError):
    """A CEQL construct outside the fragment Kleene reads; the position says where."""

    code = "ceql"


class _Reader(Parser):
    def __init__(self, text: str, source: str = "<ceql>") -> None:
        super().__init__(text, source)
        self.nots: list[Token] = []     # the NOT of each NOT(...) read

    def refuse(self, message: str, tok: Token | None = None) -> CeqlUnsupported:
        tok = tok or self.tok
        return CeqlUnsupported(message, line=tok.line, column=tok.column, source=self.source,
                               text=self.text)

    def word(self, what: str) -> Token:
        """A name that is not a keyword."""
        if self.tok.kind != "ident" or self.tok.text.upper() in KEYWORDS:
            raise self.error(what)
        return self.advance()

    # -- the query
    def query(self) -> Expr | Selected:
        self.expect("SELECT")
        strategy = "ALL"
        if (self.tok.kind == "ident" and self.tok.text.upper() in STRATEGIES
                and (self.peek().text == "*" or self.peek().kind == "ident")):
            tok = self.advance()
            strategy = tok.text.upper()
            if strategy == "ANY":
                raise self.refuse("SELECT ANY is not read: CEL has no strategy ANY (CORE "
                                  "parses it and outputs every complex event, as ALL)", tok)
        if self.tok.kind == "ident" and self.tok.text.upper() not in KEYWORDS:
            raise self.refuse("only SELECT * is read: a list of variables (a projection) is "
                              "not computed yet")
        self.expect("*")
        if self.accept("FROM"):
            self.word("a stream name")
            if self.at(","):
                raise self.refuse("one stream only: Kleene matches one stream of events")
        self.expect("WHERE")
        phi = self.formula()
        partition = self.partition()
        window = self.within(partition)
        consumption = "NONE"
        if self.accept("CONSUME"):
            self.expect("BY")
            if self.tok.kind != "ident" or self.tok.text.upper() not in CONSUMPTIONS:
                raise self.error(" or ".join(CONSUMPTIONS))
            consumption = self.advance().text.upper()
        limit = None
        if self.accept("LIMIT"):
            tok = self.tok
            limit = self.whole("a limit")
            if limit == 0:
                raise self.error("a limit of at least 1", tok)
        self.end()
        self.negations(phi, window is not None, (strategy, consumption, limit) != (
            "ALL", "NONE", None))
        body = f.to_sremo(phi)
        e = body if window is None else Window(body, window)
        if partition:
            e = Partition(e, partition)
        try:
            e = check(e)
        except IllFormed as err:
            raise self.refuse(str(err.args[0]), self.tokens[0]) from None
        if (strategy, consumption, limit) == ("ALL", "NONE", None):
            return e
        return Selected(e, strategy, consumption, limit)

    def negations(self, phi: f.Formula, windowed: bool, selected: bool) -> None:
        """Refuse, at the first ``NOT``, the uses of ``NOT(...)`` where CORE's complex
        event (its interval, from the first event read to the last) and Kleene's match
        (the positions output) part: a complex event that may end with the NOT's event,
        a window over one that may begin with it, and a strategy, consumption or limit
        (CORE outputs one complex event per choice of the NOT's event)."""
        if not self.nots:
            return
        if f.negated_at(phi, -1):
            raise self.refuse("a complex event ending with NOT(...) is not read: Kleene "
                              "reports a match at its last output event", self.nots[0])
        if windowed and f.negated_at(phi, 0):
            raise self.refuse("WITHIN over a complex event that begins with NOT(...) is not "
                              "read: CORE's window spans the NOT's event, Kleene's the "
                              "events output", self.nots[0])
        if selected:
            raise self.refuse("NOT(...) with a SELECT strategy, CONSUME BY or LIMIT is not "
                              "read: CORE outputs a complex event per choice of the NOT's "
                              "event, Kleene one match per set of events output",
                              self.nots[0])

    def partition(self) -> tuple[str, ...]:
        if not self.accept("PARTITION"):
            return ()
        self.expect("BY")
        self.expect("[")
        names = [self.word("an attribute name").text]
        while self.accept(","):
            names.append(self.word("an attribute name").text)
        self.expect("]")
        if self.at(","):
            raise self.refuse("one partition group [a, b, ...] only: several groups are not "
                              "computed yet")
        return tuple(names)

    def within(self, partition: tuple[str, ...]) -> int | Duration | None:
        if not self.accept("WITHIN"):
            return None
        start = self.tok
        if self.tok.kind == "number" and self.peek().text.upper() == "EVENTS":
            n = self.whole("a number of events")
            self.advance()
            if partition:
                raise self.refuse("WITHIN n EVENTS with PARTITION BY is not computed yet: CORE "
                                  "counts the positions of the whole stream", start)
            return n + 1        # CORE: last − first ≤ n; SREMO's [1..w]: last − first + 1 ≤ w
        if self.tok.kind == "number" and self.peek().text == "[":
            n = self.whole("a window")
            self.advance()
            self.word("the name of the timestamp attribute")
            self.expect("]")
            return Duration(n)
        seconds: int | float = 0
        for plural, singular, factor in _SPANS:
            if self.tok.kind == "number" and self.peek().text.upper() in (plural, singular):
                seconds += self.number() * factor
                self.advance()
        if self.tok is start:
            after = self.peek() if start.kind == "number" else start
            raise self.error("a window: n EVENTS, n [attribute] or n HOURS/MINUTES/SECONDS",
                             after)
        return Duration(seconds, "s")

    def whole(self, what: str) -> int:
        tok = self.tok
        value = self.number(what)
        if not isinstance(value, int) or value < 0:
            raise self.error(f"{what} (a whole number)", tok)
        return value

    # -- formulas
    def formula(self) -> f.Formula:
        phi = self.union()
        while self.accept("FILTER"):
            condition = self.filter()
            try:
                phi = f.filtered(phi, condition)
            except f.Unbound as err:
                raise self.refuse(str(err.args[0]), err.where) from None
        return phi

    def union(self) -> f.Formula:
        phi = self.contig()
        while self.accept("OR"):
            phi = f.Union(phi, self.contig())
        return phi

    def contig(self) -> f.Formula:
        phi = self.seq()
        while self.at(":") and self.peek().text != "+":
            self.advance()
            phi = f.Seq(phi, self.seq(), contiguous=True)
        return phi

    def seq(self) -> f.Formula:
        phi = self.postfix()
        while self.accept(";"):
            phi = f.Seq(phi, self.postfix(), contiguous=False)
        return phi

    def postfix(self) -> f.Formula:
        phi = self.primary()
        while True:
            if self.at("AS") and isinstance(phi, f.Leaf) and phi.negated:
                raise self.refuse("NOT(...) AS x is not read: the event of a NOT is not "
                                  "output, so it has no name")
            if self.accept("AS"):
                phi = f.named(phi, self.word("a variable name").text)
            elif self.accept("+"):
                phi = f.Iteration(phi, contiguous=False)
            elif self.at(":") and self.peek().text == "+":
                self.advance()
                self.advance()
                phi = f.Iteration(phi, contiguous=True)
            else:
                return phi

    def primary(self) -> f.Formula:
        if self.accept("("):
            phi = self.formula()
            self.expect(")")
            return phi
        if self.at("NOT"):
            self.nots.append(self.advance())
            self.expect("(")
            leaf = self.atomic()
            self.expect(")")
            return leaf
        tok = self.event_type()
        return f.Leaf(tok.text, frozenset({tok.text}))

    def event_type(self) -> Token:
        tok = self.word("an event type or '('")
        if self.at(">"):
            raise self.refuse("an event qualified by its stream (S>T) is not read: Kleene "
                              "matches one stream")
        return tok

    def atomic(self) -> f.Leaf:
        """CORE's ``atomic_cel_formula`` inside ``NOT(...)``: ``T (FILTER filter)*``, each
        filter on ``T`` only."""
        tok = self.event_type()
        condition: Condition = TRUE
        while self.accept("FILTER"):
            condition = f.both(condition, self.on_type(self.filter(), tok.text))
        return f.Leaf(tok.text, frozenset(), condition, negated=True)

    def on_type(self, g: f.Filter, name: str) -> Condition:
        """The predicate a filter inside ``NOT(T FILTER ...)`` puts on ``T``."""
        if isinstance(g, f.Unary):
            if g.name != name:
                raise self.refuse(f"inside NOT({name} FILTER ...) a filter is on {name} only",
                                  g.where)
            return g.predicate
        left, right = self.on_type(g.left, name), self.on_type(g.right, name)
        return f.both(left, right) if isinstance(g, f.Both) else OrCondition((left, right))

    # -- filters
    def filter(self) -> f.Filter:
        g = self.filter_and()
        while self.accept("OR"):
            g = f.Either(g, self.filter_and())
        return g

    def filter_and(self) -> f.Filter:
        g = self.filter_atom()
        while self.accept("AND"):
            g = f.Both(g, self.filter_atom())
        return g

    def filter_atom(self) -> f.Filter:
        if self.accept("("):
            g = self.filter()
            self.expect(")")
            return g
        name = self.word("a variable, then [predicate]")
        self.expect("[")
        predicate = self.predicate()
        self.expect("]")
        return f.Unary(name.text, predicate, name)

    def predicate(self) -> Condition:
        parts = [self.pand()]
        while self.accept("OR"):
            parts.append(self.pand())
        return parts[0] if len(parts) == 1 else OrCondition(tuple(parts))

    def pand(self) -> Condition:
        parts = [self.pnot()]
        while self.accept("AND"):
            parts.append(self.pnot())
        return f.both(parts[0], conjunction(parts[1:])) if len(parts) > 1 else parts[0]

    def pnot(self) -> Condition:
        if self.accept("NOT"):
            return Not(self.pnot())
        if self.accept("("):
            c = self.predicate()
            self.expect(")")
            return c
        return self.comparison()

    def comparison(self) -> Condition:
        start = self.tok
        left = self.value()
        if self.accept("LIKE"):
            return like(self, left, start, self.refuse)
        negated = self.tok.text.upper() == "NOT" and self.peek().text.upper() == "IN"
        if negated:
            self.advance()
        if self.at("IN"):
            if not isinstance(left, Attr):
                raise self.error("an attribute before IN", start)
            self.advance()
            return self.membership(left, negated)
        if self.tok.text in ("+", "-", "*", "/", "%"):
            raise self.refuse("arithmetic in a predicate is not read")
        if self.tok.kind != "op" or self.tok.text not in _COMPARISONS:
            raise self.error("a comparison (= != < <= > >=), IN or NOT IN")
        op = _COMPARISONS[self.advance().text]
        right = self.value()
        if self.tok.text in ("+", "-", "*", "/", "%"):
            raise self.refuse("arithmetic in a predicate is not read")
        return Cmp(op, left, right)

    def membership(self, left: Term, negated: bool) -> Condition:
        if self.accept("RANGE"):
            if negated:
                raise self.error("IN RANGE (NOT IN RANGE is not CEQL)")
            self.expect("(")
            low = Const(self.number("the lower bound"))
            self.expect(",")
            high = Const(self.number("the upper bound"))
            self.expect(")")
            # CORE's InRangePredicate: both bounds inclusive
            return conjunction((Cmp(">=", left, low), Cmp("<=", left, high)))
        self.expect("{")
        values = [self.literal()]
        while self.accept(","):
            values.append(self.literal())
        if self.at("."):
            raise self.refuse("a range {a..b} is not read; write IN RANGE(a, b)")
        self.expect("}")
        equal = [Cmp("=", left, v) for v in values]
        c: Condition = equal[0] if len(equal) == 1 else OrCondition(tuple(equal))
        return Not(c) if negated else c

    def value(self) -> Term:
        if self.tok.kind == "ident" and self.tok.text.upper() not in KEYWORDS:
            return Attr("~", self.advance().text)
        return self.literal()

    def literal(self) -> Const:
        if self.tok.kind == "string":
            value = self.advance().value
            assert isinstance(value, str)
            return Const(value)
        if self.tok.kind == "number" or self.at("-"):
            return Const(self.number("a number or a 'string'"))
        raise self.error("an attribute, a number or a 'string'")


def parse_ceql(text: str, source: str = "<ceql>") -> Expr | Selected:
    """The SREMO expression a CEQL query of the fragment denotes, wrapped in
    :class:`~.selection.Selected` when its strategy, consumption or limit keeps part of
    its complex events (module docstring);
    :class:`~kleene.reference.errors.PatternSyntaxError` (or :class:`CeqlUnsupported`)
    with the file, line and column otherwise."""
    try:
        return _Reader(text, source).query()
    except PatternSyntaxError:
        raise
    except PatternError as err:
        raise PatternSyntaxError(str(err), line=1, column=1, source=source, text=text) from None
