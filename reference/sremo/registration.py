"""SREMO expressions (seed 004 Def. 17) and Wayeb's ``.sre`` files as registered
pattern languages.

Both read into the same expressions and share the reference (the streaming
detection and Def. 18 as printed, :mod:`kleene.reference.sremo`); a ``.sre``
file's time window is read strictly by default, as Wayeb reads it, and its own
window can be replaced at the door (``windowed``). ``reference/languages.py``
registers both by name (:func:`~kleene.reference.languages.register_builtin`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from kleene.reference.budget import Budget
from kleene.reference.errors import PatternError
from kleene.reference.events import Stream
from kleene.reference.languages import Language
from kleene.reference.match import Match
from kleene.reference.sremo import POLICIES, features, format_sremo, matches, parse_sremo
from kleene.reference.sremo.pruning import pruning
from kleene.reference.sremo.wayeb import SreQuery, parse_sre

#: Why a policy cannot run on Spark (``kleene match --spark`` says it in one line).
LITERAL_ON_SPARK = ("Def. 18 read literally matches the whole string, and its empty match "
                    "has no event to carry it to a match row")


def _matches(e: Any, s: Stream, policy: str, budget: Budget, reading: str) -> set[Match]:
    return matches(e, s, budget, policy=policy, reading=reading)


SREMO = Language(
    name="sremo", title="SREMO expressions (seed 004)",
    example="mark {~.type = 'B'} -> r1 ; {TRUE}* ; mark {~.id = r1.id}",
    parse=lambda text, source: parse_sremo(text, source=source),
    matches=_matches,
    policies=tuple(POLICIES), default_policy="stream",
    variables=lambda e: ("~",),
    format=format_sremo,
    constructs=features.CONSTRUCTS, constructs_of=features.constructs,
    window=lambda e: None, pattern_types=features.EXPRESSION_TYPES,
    pruning=pruning,
    case_prefixes=("sremo-",),
    specification=(("004", "Def. 17"),),
    spark_unsupported={"literal": LITERAL_ON_SPARK},
    hooks={"prove": "kleene.proofs.reports:SREMO"},
)


def _query(text: str, source: str) -> SreQuery:
    queries = parse_sre(text, source=source)
    if len(queries) != 1:
        raise PatternError(f"{source} holds {len(queries)} queries joined by '&'; "
                           "run them one at a time")
    return queries[0]


#: A ``.sre`` file reads into the same expressions, so it is SREMO but for its text, its
#: strict default reading (Wayeb's) and the window the door may replace.
WAYEB = replace(
    SREMO, name="wayeb", title="Wayeb .sre patterns (seed 004 benchmarks)",
    example=";(IsEventTypePredicate(BUY), IsEventTypePredicate(SELL)){window:5}",
    parse=lambda text, source: _query(text, source).to_expression(),
    default_reading="strict",
    windowed=lambda text, source, window, kind: _query(text, source).windowed(window, kind),
    case_prefixes=("wayeb-",),
    specification=(("004", "Sec. 5.3 (Wayeb's .sre queries)"),),
)
