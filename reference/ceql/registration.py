"""CEQL (CORE's query language) as a registered pattern language.

A CEQL query reads into the SREMO expression it denotes (:mod:`.parser`), as a Wayeb
``.sre`` file does, so it is SREMO but for its text and its reading: CEL's windows are
inclusive (CORE keeps a partial match while ``now − start ≤ window``), the reading
``inclusive`` by default. A query whose strategy, consumption or limit keeps part of its
complex events reads into a :class:`~.selection.Selected` around that expression: its
reference is the expression's matches, then :func:`~.selection.kept`; it uses the
construct ``selection``, which the engine ``srt+selection`` claims (engines/ceql).
``reference/languages.py`` registers it by name.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from kleene.reference.budget import Budget
from kleene.reference.ceql.parser import parse_ceql
from kleene.reference.ceql.selection import Selected, kept
from kleene.reference.events import Stream
from kleene.reference.match import Match
from kleene.reference.pruning import Pruning, whole_stream
from kleene.reference.sremo import features, format_sremo, matches
from kleene.reference.sremo.pruning import pruning as sremo_pruning
from kleene.reference.sremo.registration import SREMO

#: The SREMO constructs a CEQL query can read into: iterations (``star``), windows in
#: events (``window``) or in time (``time-window``), the gaps of ``;`` (``unmarked``) and
#: ``PARTITION BY``; never registers, intersection, negation or a strategy operator; and
#: ``selection``: a strategy, consumption or limit other than ``ALL``, ``NONE``, none.
CONSTRUCTS = ("star", "window", "time-window", "unmarked", "partition", "selection")


def _matches(q: Any, s: Stream, policy: str, budget: Budget, reading: str) -> set[Match]:
    if isinstance(q, Selected):
        return kept(q, matches(q.body, s, budget, policy=policy, reading=reading), s)
    return matches(q, s, budget, policy=policy, reading=reading)


def _constructs(q: Any) -> frozenset[str]:
    if isinstance(q, Selected):
        return features.constructs(q.body) | {"selection"}
    return features.constructs(q)


def _format(q: Any) -> str:
    if not isinstance(q, Selected):
        return format_sremo(q)
    limit = "" if q.limit is None else f" LIMIT {q.limit}"
    return (f"{format_sremo(q.body)}  -- SELECT {q.strategy} * CONSUME BY "
            f"{q.consumption}{limit}")


def _pruning(q: Any, policy: str) -> Pruning:
    # an output resets CORE's evaluator and a strategy compares complex events: the
    # whole stream, at once
    return whole_stream(q, policy) if isinstance(q, Selected) else sremo_pruning(q, policy)


LANGUAGE = replace(
    SREMO, name="ceql", title="CEQL queries (CORE's language; CEL, TODS 2021)",
    example="SELECT * FROM S WHERE (SELL as a; BUY as b) FILTER a[name = 'INTC'] "
            "WITHIN 10000 [stock_time]",
    parse=lambda text, source: parse_ceql(text, source),
    matches=_matches, format=_format, constructs=CONSTRUCTS, constructs_of=_constructs,
    pruning=_pruning, pattern_types=(*features.EXPRESSION_TYPES, Selected),
    policies=("stream",), default_policy="stream", spark_unsupported={},
    case_prefixes=(),
    specification=(("004", "Def. 17 (CEQL's ALL, through its SREMO translation)"),),
)
