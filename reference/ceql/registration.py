"""CEQL (CORE's query language) as a registered pattern language.

A CEQL query reads into the SREMO expression it denotes (:mod:`.parser`), as a Wayeb
``.sre`` file does, so it is SREMO but for its text and its reading: CEL's windows are
inclusive (CORE keeps a partial match while ``now − start ≤ window``), the reading
``inclusive`` by default. ``reference/languages.py`` registers it by name.
"""

from __future__ import annotations

from dataclasses import replace

from kleene.reference.ceql.parser import parse_ceql
from kleene.reference.sremo.registration import SREMO

#: The SREMO constructs a CEQL query can read into: iterations (``star``), windows in
#: events (``window``) or in time (``time-window``), the gaps of ``;`` (``unmarked``) and
#: ``PARTITION BY``; never registers, intersection, negation or a strategy operator.
CONSTRUCTS = ("star", "window", "time-window", "unmarked", "partition")

LANGUAGE = replace(
    SREMO, name="ceql", title="CEQL queries (CORE's language; CEL, TODS 2021)",
    example="SELECT * FROM S WHERE (SELL as a; BUY as b) FILTER a[name = 'INTC'] "
            "WITHIN 10000 [stock_time]",
    parse=lambda text, source: parse_ceql(text, source),
    constructs=CONSTRUCTS, policies=("stream",), default_policy="stream", spark_unsupported={},
    case_prefixes=(),
    specification=(("004", "Def. 17 (CEQL's ALL, through its SREMO translation)"),),
)
