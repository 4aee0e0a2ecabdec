"""Time windows ``e[WITHIN τ]`` (docs/semantics.md, section 11): the reference in both
readings, units, the text syntax, and the ``srt`` engine on the same hand-computed cases."""

from __future__ import annotations

import pytest

from kleene.engines.registry import engine
from kleene.reference.durations import Duration
from kleene.reference.errors import PatternError
from kleene.reference.events import Stream
from kleene.reference.languages import language_named
from kleene.reference.query import Query
from kleene.reference.sremo import format_sremo, matches, parse_sremo
from kleene.reference.sremo.expressions import Window

PAIR = "ANY(mark {~.type = 'a'}, mark {~.type = 'b'})"


def positions(ms):
    return {dict(m.bindings)["~"] for m in ms}


def both(e, s, reading):
    """The reference's and the engine's match positions (they must agree)."""
    ref = positions(matches(e, s, reading=reading))
    compiled = engine("srt").compile(Query.of(e, time_unit=s.time_unit, reading=reading))
    assert positions(compiled.run(s)) == ref
    return ref


def test_the_boundary_is_inside_inclusively_and_outside_strictly():
    s = Stream.from_rows([{"ts": 0, "type": "a"}, {"ts": 2, "type": "b"}])
    e = parse_sremo(f"{PAIR}[WITHIN 2]")
    assert both(e, s, "inclusive") == {(0, 1)}
    assert both(e, s, "strict") == set()


def test_a_strict_window_of_zero_admits_nothing_and_an_inclusive_one_ties_only():
    s = Stream.from_rows([{"ts": 0, "type": "a"}, {"ts": 0, "type": "b"},
                          {"ts": 1, "type": "b"}])
    e = parse_sremo(f"{PAIR}[WITHIN 0]")
    assert both(e, s, "inclusive") == {(0, 1)}
    assert both(e, s, "strict") == set()
    single = parse_sremo("(mark {~.type = 'a'})[WITHIN 0]")
    assert both(single, s, "inclusive") == {(0,)}
    assert both(single, s, "strict") == set()


def test_units_are_converted_to_the_streams_unit():
    s = Stream.from_rows([{"ts": 0, "type": "a"}, {"ts": 1500, "type": "b"}], time_unit="ms")
    assert both(parse_sremo(f"{PAIR}[WITHIN 2 s]"), s, "strict") == {(0, 1)}
    assert both(parse_sremo(f"{PAIR}[WITHIN 1 s]"), s, "inclusive") == set()


def test_a_unit_on_a_stream_without_one_is_an_error():
    s = Stream.from_rows([{"ts": 0, "type": "a"}, {"ts": 1, "type": "b"}])
    with pytest.raises(PatternError, match="no declared unit"):
        matches(parse_sremo(f"{PAIR}[WITHIN 1 s]"), s)


def test_the_text_syntax_round_trips():
    e = parse_sremo(f"{PAIR}[WITHIN 500 ms]")
    assert isinstance(e, Window) and e.width == Duration(500, "ms")
    assert parse_sremo(format_sremo(e)) == e
    assert format_sremo(parse_sremo("{TRUE}[WITHIN 3]")) == "{TRUE}[WITHIN 3]"


def test_the_registry_reads_both_readings():
    for name in ("sremo", "wayeb"):
        assert language_named(name).readings == ("inclusive", "strict")
    s = Stream.from_rows([{"ts": 0, "type": "a"}, {"ts": 2, "type": "b"}])
    e = parse_sremo(f"{PAIR}[WITHIN 2]")
    assert positions(Query.of(e, policy="stream", reading="strict").reference(s)) == set()
    assert positions(Query.of(e, policy="stream", reading="inclusive").reference(s)) == {(0, 1)}
