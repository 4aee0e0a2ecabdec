"""The shared core: streams, the condition language, matches
(docs/architecture.md, "The shared core")."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kleene.reference.condition_text import format_condition
from kleene.reference.conditions import (
    Agg,
    And,
    Attr,
    Cmp,
    Condition,
    Const,
    Not,
    Or,
    Prev,
    Truth,
    compare,
    holds,
)
from kleene.reference.errors import PatternSyntaxError, StreamError
from kleene.reference.events import Event, Stream
from kleene.reference.match import Match
from kleene.reference.syntax import parse_condition

# ---------------------------------------------------------------- streams


def test_stream_rows_become_events_with_positions():
    s = Stream.from_rows([{"ts": 1, "type": "A", "x": 2}, {"ts": 1, "x": "y"}])
    assert [e.position for e in s] == [0, 1]
    assert s[0].type == "A" and s[0].value("x") == 2 and s[1].value("missing") is None


@pytest.mark.parametrize(
    ("rows", "row", "field"),
    [
        ([{"ts": 2}, {"ts": 1}], 1, "ts"),            # unsorted
        ([{"ts": 1}, {"x": 1}], 1, "ts"),             # missing timestamp
        ([{"ts": "soon"}], 0, "ts"),                  # not a number nor a datetime
        ([{"ts": True}], 0, "ts"),                    # booleans are not timestamps
        ([{"ts": 1, "x": [1, 2]}], 0, "x"),           # attribute of an unsupported type
    ],
)
def test_bad_rows_name_the_row_and_field(rows, row, field):
    with pytest.raises(StreamError) as err:
        Stream.from_rows(rows)
    assert (err.value.row, err.value.field) == (row, field)
    assert f"row {row}" in str(err.value)


def test_iso_timestamps_become_epoch_milliseconds():
    s = Stream.from_rows([{"ts": "1970-01-01T00:00:01"}, {"ts": "1970-01-01T00:01:00"}])
    assert [e.ts for e in s] == [1000, 60_000] and s.time_unit == "ms"

# ---------------------------------------------------------------- conditions


def ev(pos: int, **attrs) -> Event:
    return Event(pos, pos, None, attrs)


def test_three_valued_comparisons():
    assert compare("<", 1, 2) is True
    assert compare("=", 1, 1.0) is True
    assert compare("=", "1", 1) is None          # kinds differ: unknown, not False
    assert compare("!=", None, 1) is None        # missing attribute: unknown
    # NOT unknown stays unknown, so neither v.x = 1 nor NOT v.x = 1 holds on a missing x
    e = ev(0)
    assert not holds(parse_condition("v.x = 1"), {"v": (e,)})
    assert not holds(parse_condition("NOT v.x = 1"), {"v": (e,)})
    # ... but unknown OR true is true (Kleene's strong logic)
    assert holds(parse_condition("v.x = 1 OR TRUE"), {"v": (e,)})


def test_relationships_quantify_over_every_pair():
    # seed 000 Example 3: c.ID = p.ID must hold for every event bound to p
    c = (ev(0, ID=1),)
    assert holds(parse_condition("c.ID = p.ID"), {"c": c, "p": (ev(1, ID=1), ev(2, ID=1))})
    assert not holds(parse_condition("c.ID = p.ID"), {"c": c, "p": (ev(1, ID=1), ev(2, ID=2))})


def test_prev_ranges_over_consecutive_pairs_only():
    # seed 001 Sec. 3: I(prev(e.A) φ e.A) ≡ ∀ consecutive x_{i-1}, x_i; 1 < 3 > 2 fails at (3, 2)
    up = parse_condition("prev(p.V) < p.V")
    assert holds(up, {"p": (ev(0, V=1), ev(1, V=3))})
    assert not holds(up, {"p": (ev(0, V=1), ev(1, V=3), ev(2, V=2))})
    assert holds(up, {"p": (ev(0, V=5),)})   # one event: no pair, vacuously true


def test_aggregates_read_the_whole_sequence():
    b = (ev(0, price=2), ev(1, price=4))
    assert holds(parse_condition("AVG(b.price) = 3 AND COUNT(b) = 2 AND SUM(b.price) > 5"),
                 {"b": b})


def test_condition_parse_errors_name_line_and_column():
    with pytest.raises(PatternSyntaxError) as err:
        parse_condition("a.x = 1 AND\n  b.y >")
    assert (err.value.line, err.value.column) == (2, 8)
    assert "expected" in err.value.message


names = st.sampled_from(["a", "b", "p"])
attrs = st.sampled_from(["x", "L", "price"])
constants = st.one_of(
    st.integers(-100, 100),
    st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False),
    st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=5),
    st.booleans(),
)
terms = st.one_of(
    st.builds(Attr, names, attrs),
    st.builds(Prev, names, attrs),
    st.builds(Const, constants),
    st.builds(Agg, st.sampled_from(["SUM", "AVG", "MIN", "MAX"]), names, attrs),
    st.builds(Agg, st.just("COUNT"), names, st.none()),
)
comparisons = st.builds(Cmp, st.sampled_from(["=", "!=", "<", "<=", ">", ">="]), terms, terms)


def _compound(children: st.SearchStrategy[Condition]) -> st.SearchStrategy[Condition]:
    many = st.lists(children, min_size=2, max_size=3).map(tuple)
    return st.one_of(st.builds(And, many), st.builds(Or, many), st.builds(Not, children))


conditions = st.recursive(st.one_of(comparisons, st.builds(Truth, st.booleans())), _compound,
                          max_leaves=6)


@given(conditions)
def test_condition_printer_round_trips(c: Condition):
    assert parse_condition(format_condition(c)) == c

# ---------------------------------------------------------------- matches


def test_match_is_canonical_and_json_serializable():
    m = Match.of({"p": [8, 2], "c": [0]})
    assert m == Match.of({"c": (0,), "p": (2, 8)})
    assert m.dumps() == '{"c": [0], "p": [2, 8]}'
    assert Match.from_json(m.to_json()) == m and (m.first, m.last) == (0, 8)
    with pytest.raises(ValueError):
        Match.of({"p": [1, 1]})


@given(st.dictionaries(st.sampled_from(["a", "b1", "x_y", "~", "Zed", "é", 'q"', "a b"]),
                       st.sets(st.integers(0, 10**12), min_size=1, max_size=4), min_size=1))
def test_a_match_is_dumped_as_json_writes_it(bindings):
    # the canonical line is json.dumps's, whether written directly or by json
    import json

    m = Match.of(bindings)
    assert m.dumps() == json.dumps({v: sorted(ps) for v, ps in bindings.items()},
                                   sort_keys=True, separators=(", ", ": "))
    assert Match.from_json(json.loads(m.dumps())) == m
