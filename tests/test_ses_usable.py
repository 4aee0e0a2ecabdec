"""B(v) without listing the matches (engines/ses/usable.py), the first pass of
``ses-next-literal`` (issue 32, its performance aim).

1. The existence search equals the reference: B(v) is the projection of every match of
   the singleton pattern (:func:`~kleene.reference.ses.matching.all_matches`), over the
   drawn SES patterns and streams (ties, windows 0-8), both window readings; the events
   returned are the stream's at those positions.
2. The implied properties change no match: the drawn patterns with equality chains added
   (an attribute to another variable's, to a constant of a drawn kind: a string, an int,
   the same number as a float, a boolean) have the same Γ under the reference with and
   without them; by hand, RUN's ``b`` and ``c`` get ``name = 'INTC'``.
"""

from __future__ import annotations

from hypothesis import given, reject
from hypothesis import strategies as st

from kleene.data.bundled import bundled
from kleene.data.loaders import load_events
from kleene.engines.protocol import Counters
from kleene.engines.ses.next_literal import singleton_pattern
from kleene.engines.ses.usable import usable, with_implied_properties
from kleene.engines.spans import Window
from kleene.reference.budget import Budget
from kleene.reference.conditions import Attr, Cmp, Const
from kleene.reference.errors import BudgetExceeded
from kleene.reference.events import Stream
from kleene.reference.ses.matching import all_matches, window_of
from kleene.reference.ses.pattern import SESPattern
from kleene.reference.ses.text import parse_ses
from tests.helpers import SES_PATTERNS, SES_STEPS, SES_STREAMS

READINGS = st.sampled_from(("inclusive", "strict"))
CONSTANTS: st.SearchStrategy[str | int | float | bool] = st.sampled_from(
    ("a", "b", 0, 1, 1.0, 2, True))


def _projection(p: SESPattern, s: Stream, reading: str) -> dict[str, set[int]]:
    try:
        gamma = all_matches(p, s, budget=Budget(limit=SES_STEPS), reading=reading)
    except BudgetExceeded:
        reject()
    out: dict[str, set[int]] = {v: set() for v in p.names}
    for m in gamma:
        for v, ps in m.bindings:
            out[v].update(ps)
    return out


@st.composite
def chained(draw: st.DrawFn) -> SESPattern:
    """A drawn pattern with equalities added: attribute to attribute and to constants."""
    p = draw(SES_PATTERNS)
    extra = []
    for _ in range(draw(st.integers(1, 3))):
        x, y = draw(st.sampled_from(p.names)), draw(st.sampled_from(p.names))
        attr = draw(st.sampled_from(("L", "V", "ID")))
        if draw(st.booleans()):
            extra.append(Cmp("=", Attr(x, attr), Attr(y, attr)))
        else:
            value = draw(CONSTANTS)
            extra.append(Cmp("=", Attr(x, attr), Const(value)))
    return SESPattern(p.sets, (*p.conditions, *extra), p.window)


@given(pattern=SES_PATTERNS, stream=SES_STREAMS, reading=READINGS)
def test_the_search_equals_the_projection_of_the_matches(pattern, stream, reading):
    one = singleton_pattern(pattern)
    expected = _projection(one, stream, reading)
    found, at = usable(one, stream, Window(window_of(one, stream), reading), Counters(),
                       None)
    assert found == expected
    assert at == {q: stream[q] for ps in expected.values() for q in ps}


@given(pattern=chained(), stream=SES_STREAMS, reading=READINGS)
def test_implied_properties_change_no_match(pattern, stream, reading):
    one = singleton_pattern(pattern)
    implied = with_implied_properties(one)
    assert set(one.conditions) <= set(implied.conditions)
    expected = _projection(one, stream, reading)
    assert _projection(implied, stream, reading) == expected
    found, _ = usable(implied, stream, Window(window_of(one, stream), reading), Counters(),
                      None)
    assert found == expected


def test_run_gets_its_ticker_on_every_variable():
    p = parse_ses("PATTERN <{a}, {b}, {c}> WHERE a.name = 'INTC' AND a.name = b.name "
                  "AND b.name = c.name AND a.price < b.price WITHIN 500 ms")
    added = with_implied_properties(p).conditions[len(p.conditions):]
    assert added == (Cmp("=", Attr("b", "name"), Const("INTC")),
                     Cmp("=", Attr("c", "name"), Const("INTC")))


def test_no_equality_to_a_constant_adds_nothing():
    p = parse_ses("PATTERN <{a}, {b}> WHERE a.name = b.name AND a.price < 3 WITHIN 5")
    assert with_implied_properties(p) == p


def test_a_loaded_streams_columns_give_what_its_events_give():
    """The candidates from the columns (the properties evaluated on them) and from the
    events one by one; P4 on the first 3,000 stock events, not empty."""
    s = load_events(str(bundled("stocks.stream.gz")), limit=3000)
    p = singleton_pattern(parse_ses(
        "PATTERN <{a, b}, {c}> WHERE a.name = 'INTC' AND b.name = 'MSFT' "
        "AND c.name = c.name AND c.price > a.price WITHIN 500 ms"))
    win = Window(window_of(p, s))
    loaded, at = usable(p, s, win, Counters(), None)
    assert all(loaded.values()) and len(at) < len(s)
    assert (loaded, at) == usable(p, list(s.events), win, Counters(), None)


def test_a_boolean_constant_is_not_the_number_one():
    """``TRUE == 1`` in Python, not under the reference's ``=`` (different kinds): a
    flag equal to TRUE and a count equal to 1 imply nothing of each other."""
    p = parse_ses("PATTERN <{a}, {b}> WHERE a.n = b.n WITHIN 5")
    p = SESPattern(p.sets, (Cmp("=", Attr("a", "f"), Const(True)),
                            Cmp("=", Attr("b", "n"), Const(1)),
                            Cmp("=", Attr("a", "f"), Attr("a", "g"))), p.window)
    assert with_implied_properties(p).conditions[3:] == (Cmp("=", Attr("a", "g"), Const(True)),)
    s = Stream.from_rows([{"ts": 0, "f": True, "g": True, "n": 1},
                          {"ts": 1, "f": True, "g": True, "n": 1}])
    assert all_matches(with_implied_properties(p), s) == all_matches(p, s) != set()
