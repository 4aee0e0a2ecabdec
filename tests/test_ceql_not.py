"""CEQL's ``NOT(...)`` (issue 31 item 1; reference/ceql/, docs/ceql.md, "NOT").

CORE's grammar allows ``NOT`` before an atomic formula only (``NOT(T)``,
``NOT(T FILTER T[P])``); its construction (``NegateExpected`` in CORE's
``logical_cea/transformations/constructions/negate_expected.hpp``) turns each transition
of that formula into ones taking an event on which one of its predicates fails, marking
no variable: one event read (the complex event's interval spans it) and not output. A
Kleene match keeps the positions output, so ``NOT(T)`` is the unmarked atom
``{NOT (~.type = 'T' AND P)}``. Each expected set below is worked out by hand on

    BUY AMZN, SELL MSFT, BUY MSFT, SELL MSFT, SELL INTL, BUY AMZN   (positions = ts 0..5)

and, where pycer is installed (``make peers``), CORE outputs the same sets of events (it
outputs one complex event per choice of the NOT's event: the same events twice where two
choices exist).
"""

from __future__ import annotations

import pytest

from kleene.conformance.adapters import core
from kleene.reference.ceql.parser import CeqlUnsupported, parse_ceql
from tests.helpers import typed_stream
from tests.test_ceql import Positions, found

ROWS = (("BUY", "AMZN"), ("SELL", "MSFT"), ("BUY", "MSFT"), ("SELL", "MSFT"),
        ("SELL", "INTL"), ("BUY", "AMZN"))
S = typed_stream(*((kind, ts, {"name": name}) for ts, (kind, name) in enumerate(ROWS)))

#: query (after ``SELECT * FROM S WHERE``) → its matches, by hand.
CASES: dict[str, Positions] = {
    # not-SELLs at 0, 2, 5; a BUY after 0: 2 or 5, after 2: 5
    "NOT(SELL) ; BUY": {(2,), (5,)},
    # not-SELL n, then SELL, SELL, BUY: n = 0 gives {1,3,5}, {1,4,5}, {3,4,5}; n = 2 {3,4,5}
    "NOT(SELL) ; SELL ; SELL ; BUY": {(1, 3, 5), (1, 4, 5), (3, 4, 5)},
    # the events that are not a SELL of MSFT: 0, 2, 4, 5; BUYs after them: 2, 5
    "NOT(SELL FILTER SELL[name = 'MSFT']) ; BUY": {(2,), (5,)},
    # a SELL, something other than a SELL after it, then a BUY: only 1, (2), 5
    "SELL ; NOT(SELL) ; BUY": {(1, 5)},
    # SELL i, a non-BUY at i + 1, a BUY at i + 2: i = 3 (4 is SELL INTL, 5 BUY AMZN)
    "SELL : NOT(BUY) : BUY": {(3, 5)},
    # the same within 4 time units ({1,5} spans 4); within 3 none
    "SELL ; NOT(SELL) ; BUY WITHIN 4 [ts]": {(1, 5)},
    "SELL ; NOT(SELL) ; BUY WITHIN 3 [ts]": set(),
    # parts AMZN (BUY 0, BUY 5), MSFT (SELL 1, BUY 2, SELL 3), INTL (SELL 4): only 0 then 5
    "NOT(SELL) ; BUY PARTITION BY [name]": {(5,)},
    # a NOT between two filtered names: SELL MSFT 1 or 3, a non-BUY after, a BUY AMZN
    # after that: 1 with 3 or 4 between, 3 with 4 between: {1,5}, {3,5}
    "(SELL as s ; NOT(BUY) ; BUY as b) FILTER s[name = 'MSFT'] AND b[name = 'AMZN']":
        {(1, 5), (3, 5)},
}


@pytest.mark.parametrize("formula", CASES)
def test_not_by_hand(formula: str) -> None:
    """The reference, the engine ``srt`` and the count agree with the hand-computed set."""
    assert found(f"SELECT * FROM S WHERE {formula}", S) == CASES[formula]


def test_not_is_an_unmarked_atom() -> None:
    assert str(parse_ceql("SELECT * FROM S WHERE NOT(SELL FILTER SELL[price > 2]) ; BUY")
               ).count("marked=False") == 2     # the NOT's atom and the gap's


@pytest.mark.parametrize("text, column, words", [
    ("SELECT * FROM S WHERE BUY ; NOT(SELL)", 29, "ending with NOT(...)"),
    ("SELECT * FROM S WHERE NOT(SELL)", 23, "ending with NOT(...)"),
    ("SELECT * FROM S WHERE (BUY ; NOT(SELL)) OR BUY", 30, "ending with NOT(...)"),
    ("SELECT * FROM S WHERE NOT(SELL) ; BUY WITHIN 3 [ts]", 23, "WITHIN over a complex"),
    ("SELECT * FROM S WHERE NOT(SELL) ; BUY CONSUME BY ANY", 23, "CONSUME BY or LIMIT"),
    ("SELECT LAST * FROM S WHERE BUY ; NOT(SELL) ; BUY", 34, "CONSUME BY or LIMIT"),
    ("SELECT * FROM S WHERE NOT(SELL) AS x ; BUY", 33, "NOT(...) AS x"),
    ("SELECT * FROM S WHERE NOT(SELL FILTER x[name = 'A']) ; BUY", 39, "on SELL only"),
])
def test_where_core_and_kleene_part_it_is_refused_at_the_not(text: str, column: int,
                                                               words: str) -> None:
    with pytest.raises(CeqlUnsupported) as err:
        parse_ceql(text)
    assert (err.value.line, err.value.column) == (1, column)
    assert words in err.value.message


@pytest.mark.slow
def test_core_outputs_the_same_events() -> None:
    """Through pycer (``make peers``): CORE's complex events, as sets of events, are the
    hand-computed ones (``WITHIN`` is strict on CORE: {1,5} spans 4, so not within 4)."""
    for formula, expected in CASES.items():
        text = f"SELECT * FROM S WHERE {formula}"
        if not core.PYTHON.exists():
            with pytest.raises(FileNotFoundError, match="make peers"):
                core.core_matches(text, S)
            return
        theirs, _ = core.core_matches(text, S)
        assert set(theirs) == (set() if "WITHIN 4" in formula else expected), formula
