"""SQL row pattern recognition (``MATCH_RECOGNIZE``, ISO/IEC 9075-2:2016 §7.6) as a
registered pattern language.

A statement's answer is a table (the recognition's output rows, then the outer
``SELECT``), not a set of matches: the language says so (``answers="tables"``), and
its ``matches`` refuses in one line. Its one policy, ``match_recognize``, is the
clause's own: which matches are kept is decided by the pattern's preferment and
``AFTER MATCH SKIP`` (TR 19075-5 §4.5, §4.7). ``reference/languages.py`` registers it
by name (:func:`~kleene.reference.languages.register_builtin`).
"""

from __future__ import annotations

from typing import Any

from kleene.reference.budget import Budget
from kleene.reference.errors import Unsupported
from kleene.reference.events import Stream
from kleene.reference.languages import Language
from kleene.reference.match import Match
from kleene.reference.match_recognize import features
from kleene.reference.match_recognize.ast import Statement
from kleene.reference.match_recognize.checks import pattern_variables
from kleene.reference.match_recognize.parser import parse_statement
from kleene.reference.match_recognize.printer import format_statement

#: The one policy: the clause decides its matches.
POLICY = "match_recognize"


def _matches(statement: Any, s: Stream, policy: str, budget: Budget,
             reading: str) -> set[Match]:
    raise Unsupported("match_recognize answers tables: a statement's result is the rows "
                      "its MATCH_RECOGNIZE and SELECT produce, not a set of matches")


def _variables(statement: Statement) -> tuple[str, ...]:
    names: dict[str, str] = {}
    for r in statement.recognitions:
        for v in pattern_variables(r.clause.pattern):
            names.setdefault(v.upper(), v)
    return tuple(names.values())


LANGUAGE = Language(
    name="match_recognize", title="SQL row pattern recognition (MATCH_RECOGNIZE, SQL:2016)",
    example="SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts PATTERN (A B+) DEFINE B AS x > "
            "PREV(x))",
    parse=lambda text, source: parse_statement(text, source),
    matches=_matches,
    policies=(POLICY,), default_policy=POLICY,
    variables=_variables,
    format=format_statement,
    constructs=features.CONSTRUCTS, constructs_of=features.constructs,
    window=lambda statement: None, pattern_types=(Statement,),
    readings=("inclusive",),
    answers="tables",
    hooks={"generate": "kleene.conformance.recognize_strategies:recognition_for"},
    specification=(("ISO/IEC 9075-2:2016", "§7.6"), ("ISO/IEC TR 19075-5:2016", "§4")),
)
