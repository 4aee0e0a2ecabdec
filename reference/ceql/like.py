"""CEQL's ``name LIKE 'regex'`` (CORE's ``regex_predicate``) as Kleene's
``~.name LIKE 'regex'`` (:data:`kleene.reference.conditions.LIKE`).

CORE (``src/core_server/internal/evaluation/physical_predicate/like_predicate/``) compiles
the string as an RE2 regular expression and keeps an event when
``re2::RE2::PartialMatch`` finds it anywhere in the attribute's value: not SQL's ``LIKE``
(``%`` and ``_`` are plain characters). Kleene reads the patterns of
:mod:`kleene.reference.regex`'s subset (RE2 and Python's ``re`` agree there) and refuses
the others at their character. Where CORE and Kleene would part, the query is refused:

- a quote doubled inside the string: CORE's lexer takes ``'it''s'`` whole but its
  parser only strips the outer quotes, so its pattern is ``it''s`` where Kleene's
  strings read ``it's``;
- an attribute on the right (CORE's grammar allows ``name LIKE other``; it holds on no
  event there, its evaluator expecting a string).

On values CORE cannot hold (a missing attribute, a number or a boolean: CORE's events
carry every attribute of their declared type) ``LIKE`` is unknown in Kleene, as every
comparison of kinds that never meet; ``kleene match`` refuses a ``LIKE`` on a column
holding no text (:func:`kleene.reference.schema.check_pattern`). CORE converts a
number to text (``std::to_string``) when the filter names a variable, and crashes when it
names the event type itself (docs/ceql.md, "LIKE").
"""

from __future__ import annotations

from collections.abc import Callable

from kleene.reference.conditions import Cmp, Term
from kleene.reference.errors import PatternSyntaxError
from kleene.reference.syntax import Parser, Token, inside_string


def like(p: Parser, left: Term, start: Token,
         refuse: Callable[[str, Token], PatternSyntaxError]) -> Cmp:
    """The rest of ``name LIKE 'regex'`` after ``LIKE`` (module docstring); ``refuse``
    makes the error for what CEQL has and Kleene does not read."""
    tok = p.tok
    if tok.kind == "ident":
        raise refuse("LIKE with an attribute on its right is not read: CORE's evaluator "
                     "takes a 'string' only (it holds on no event)", tok)
    if tok.kind == "string":
        value = str(tok.value)
        quote = tok.text[0]
        if quote in value:
            line, column = inside_string(tok, value.index(quote))
            raise refuse("a doubled quote in a LIKE pattern is not read: CORE keeps both "
                         "quotes in its pattern, Kleene one",
                         Token("string", quote, quote, line, column))
    return p.like(left, start)
