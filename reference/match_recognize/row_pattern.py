"""Row patterns (ISO/IEC 9075-2 §7.6 <row pattern>; TR 19075-5 §4.7), read into
:mod:`~kleene.reference.match_recognize.ast`::

    pattern    := term ("|" term)*
    term       := factor factor*
    factor     := primary [quantifier]
    primary    := var | "(" [pattern] ")" | "PERMUTE" "(" pattern ("," pattern)* ")"
                | "^" | "$" | "{-" [pattern] "-}"
    quantifier := ("*" | "+" | "?" | "{" [n] "," [m] "}" | "{" n "}") ["?"]

``()`` is the empty pattern; a group is its inside (the AST has no group node); a
trailing ``?`` makes a quantifier reluctant (TR §4.7.3); a factor takes one quantifier
(``A**`` is an error: group it, ``(A*)*``); ``{n,m}`` with ``n > m`` is an error, and so
is a maximum of 0 (``{0}``, ``{,0}``, ``{0,0}``): the standard's bounds are ``{n}`` with
n > 0, ``{n,m}`` with 0 < m, ``{,m}`` with m > 0 (TR §4.14.1, as Oracle's "SQL for Pattern
Matching" lists them); the pattern that matches nothing is ``()``
(docs/errata.md, "mr-zero-upper-bound").
"""

from __future__ import annotations

from kleene.reference.match_recognize.ast import (
    Alt,
    Anchor,
    Concat,
    Empty,
    Exclude,
    Permute,
    Quantified,
    RowPattern,
    Var,
)
from kleene.reference.match_recognize.lexer import Cursor


class RowPatternParser(Cursor):
    """The row pattern grammar of the module docstring over a cursor."""

    def row_pattern(self) -> RowPattern:
        tok = self.tok
        items = [self._pattern_term()]
        while self.accept("|"):
            items.append(self._pattern_term())
        return items[0] if len(items) == 1 else Alt(tuple(items), at=tok.at)

    def _pattern_term(self) -> RowPattern:
        tok = self.tok
        items = [self._pattern_factor()]
        while self.at_name() or self.at("(", "{-", "^", "$"):
            items.append(self._pattern_factor())
        return items[0] if len(items) == 1 else Concat(tuple(items), at=tok.at)

    def _pattern_factor(self) -> RowPattern:
        tok = self.tok
        body = self._pattern_primary()
        if not self.at("*", "+", "?", "{"):
            return body
        if self.accept("{"):
            low = self.integer("a number or ','") if self.tok.kind == "number" else None
            if self.accept(","):
                high = self.integer("a number or '}'") if self.tok.kind == "number" else None
                low = low or 0
            elif low is None:
                raise self.error("a number or ','")
            else:
                high = low
            self.expect("}", "'}' closing the quantifier")
            if high is not None and low > high:
                raise self.source.syntax_error(f"a quantifier's minimum ({low}) is larger "
                                               f"than its maximum ({high})", tok.at)
            if high == 0:
                raise self.source.syntax_error("a quantifier's maximum must be at least 1 "
                                               "(() is the pattern of a match of no rows)", tok.at)
        else:
            low, high = {"*": (0, None), "+": (1, None), "?": (0, 1)}[self.advance().text]
        reluctant = self.accept("?") is not None
        if self.at("*", "+", "?", "{"):
            raise self.error("a variable, '(' or the end of the pattern (one quantifier per "
                             "factor: group the quantified part)")
        return Quantified(body, low, high, reluctant, at=tok.at)

    def _pattern_primary(self) -> RowPattern:
        tok = self.tok
        if self.at("(") or self.at("{-"):
            closing = ")" if self.advance().text == "(" else "-}"
            inner = Empty(at=tok.at) if self.at(closing) else self.row_pattern()
            self.expect(closing, f"'{closing}' closing the group")
            return inner if closing == ")" else Exclude(inner, at=tok.at)
        if self.at("^", "$"):
            return Anchor("^" if self.advance().text == "^" else "$", at=tok.at)
        if self.at("PERMUTE") and self.peek().text == "(":
            self.advance()
            self.advance()
            items = self.list_of(self.row_pattern)
            self.expect(")", "')' closing PERMUTE(")
            return Permute(items, at=tok.at)
        return Var(self.name("a pattern variable, '(', PERMUTE, '^', '$' or '{-'")[0],
                   at=tok.at)
