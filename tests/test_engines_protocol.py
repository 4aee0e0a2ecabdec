"""The Engine protocol: features, registry, compile errors, counters, time units."""

from __future__ import annotations

import pytest

from kleene.engines.protocol import (
    Compiled,
    Counters,
    Engine,
    Feature,
    Query,
    Transition,
    claims_policy,
    require,
    window_in_units,
)
from kleene.engines.registry import UnknownEngine, engine, engine_names, fastest_engine, register
from kleene.reference.conditions import Condition
from kleene.reference.durations import Duration
from kleene.reference.errors import PatternError, Unsupported
from kleene.reference.events import Event, Stream
from kleene.reference.ses.text import parse_ses
from tests.helpers import claiming

SES_ENGINES = ("ses-automaton", "ses-automaton-unfiltered", "ses-automaton-paper-filter",
               "ses-automaton-faithful", "ses-bruteforce", "ses-bruteforce-paper")

GROUP = parse_ses("PATTERN <{a}, {b+}> WHERE a.L = 'A' AND prev(b.V) < b.V WITHIN 3")


def test_features_have_a_kind_and_a_label():
    assert Feature("ses", "next").kind == "policy" and Feature("ses", "next").label == "next"
    assert Feature("ses").kind == "language" and Feature("ses", "prev").kind == "construct"
    assert Feature("operator", "window-strict").kind == "window"
    assert Feature.policy("ses", "earliest-maximal") == Feature("ses", "earliest-maximal")


def test_features_are_scoped_by_language():
    assert Feature.parse("operator:next") != Feature.parse("ses:next")
    assert str(Feature.parse("operator:next")) == "operator:next"
    assert str(Feature.parse("ses")) == "ses"
    # every policy of every language can be claimed, SREMO's own included
    assert Feature.policy("sremo", "stream").kind == "policy"
    assert Feature.parse("sremo:literal").kind == "policy"


def test_an_unknown_policy_is_unsupported_and_lists_the_known_ones():
    with pytest.raises(Unsupported, match="known policies: any, next"):
        Feature.policy("ses", "sometimes")
    with pytest.raises(Unsupported, match="no feature 'nxt'.*ses:next"):
        Feature.parse("ses:nxt")


def test_a_query_needs_its_language_constructs_policy_and_window_reading():
    from kleene.engines.protocol import Query

    q = Query.parse("PATTERN <{a}, {b+}> WHERE prev(b.V) < b.V WITHIN 3", policy="next",
                    reading="strict")
    assert q.language == "ses"
    assert {str(f) for f in q.features()} == {"ses", "ses:group-variables", "ses:prev",
                                              "ses:next", "ses:window-strict"}
    assert Query.parse("PATTERN <{a}> WITHIN 3").policy == "any"
    assert Query.parse("mark {~.type = 'B'}").policy == "stream"


def test_the_registry_holds_the_ses_engines():
    assert set(SES_ENGINES) <= set(engine_names())
    for name in SES_ENGINES:
        e = engine(name)
        assert isinstance(e, Engine) and e.name == name


def test_each_builtin_line_is_what_its_module_registers_and_claims():
    # BUILTIN_ENGINES is the registry's lazy table: each line's module must register
    # exactly its names, and each engine must claim only the languages of its line.
    import importlib

    from kleene.engines import registry

    listed = [n for _, _, names in registry.BUILTIN_ENGINES for n in names]
    assert len(listed) == len(set(listed))
    for module, languages, names in registry.BUILTIN_ENGINES:
        importlib.import_module(module)
        mine = {n for n, f in registry._REGISTRY.items() if f.__module__ == module}
        assert mine == set(names), module
        for name in names:
            assert {f.language for f in engine(name).capabilities} <= set(languages), name
    assert set(listed) <= set(engine_names())


def test_a_query_is_offered_only_to_the_engines_of_its_language():
    from kleene.engines.registry import engine_names_for

    ses = engine_names_for("ses")
    assert {"windows+ses", "ses-automaton", "ses-bruteforce"} <= set(ses)
    assert not any(n.startswith(("nfa-", "srt")) for n in ses)
    assert "nfa-chain" in engine_names_for("operator")
    fastest = fastest_engine(Query.parse("PATTERN <{a}, {b}> WITHIN 3"))
    assert fastest is not None and fastest.name == "windows+ses"


def test_an_unknown_engine_fails_loudly_naming_the_choices():
    with pytest.raises(UnknownEngine, match="registered engines: .*ses-automaton"):
        engine("ses-automaton-typo")


def test_a_name_cannot_be_taken_by_another_module():
    with pytest.raises(ValueError, match="already registered"):
        register("ses-automaton", lambda: engine("ses-bruteforce"))


def test_claims_follow_the_variants():
    # Only the variants that equal the reference claim a policy (docs/errata.md).
    ses = engine("ses-automaton")
    assert claims_policy(ses, "ses", "next") and claims_policy(ses, "ses", "any")
    assert not claims_policy(engine("ses-automaton-faithful"), "ses", "next")
    assert not claims_policy(engine("ses-automaton-paper-filter"), "ses", "next")
    assert claims_policy(engine("ses-bruteforce"), "ses", "any")
    assert not claims_policy(engine("ses-bruteforce"), "ses", "next")
    assert not claims_policy(engine("ses-automaton"), "ses", "earliest-maximal")


@pytest.mark.parametrize("name", SES_ENGINES)
def test_compiled_transitions_are_data(name):
    compiled = engine(name).compile(Query.of(GROUP, policy="next"))
    assert isinstance(compiled, Compiled)
    transitions = list(compiled.iter_transitions())
    assert transitions and all(isinstance(t, Transition) for t in transitions)
    assert all(isinstance(t.guard, Condition) for t in transitions)
    states = {t.source for t in transitions} | {t.target for t in transitions}
    assert compiled.initial <= states and compiled.accepting <= states


def test_compile_refuses_what_an_engine_cannot_do():
    ses = engine("ses-automaton")
    with pytest.raises(Unsupported, match="SES patterns"):
        ses.compile(Query.parse("PATTERN SEQ(A a, B b) WITHIN 1"))   # an operator pattern
    with pytest.raises(Unsupported, match="earliest-maximal"):
        ses.compile(Query.of(GROUP, policy="earliest-maximal"))
    with pytest.raises(Unsupported, match="policy next only"):
        engine("ses-automaton-faithful").compile(Query.of(GROUP, policy="any"))


def test_require_names_the_missing_features():
    plain = claiming(frozenset({Feature("ses")}))
    require(plain, {Feature("ses")})
    with pytest.raises(Unsupported, match="ses:group-variables, ses:prev"):
        require(plain, {Feature("ses"), Feature("ses", "prev"),
                          Feature("ses", "group-variables")})


def test_counters_track_the_peak():
    c = Counters(instances_created=3, predicate_evaluations=7)
    c.observe_active(4)
    c.observe_active(2)
    assert c.peak_instances == 4
    assert (c.instances_created, c.predicate_evaluations) == (3, 7)


def test_the_window_unit_comes_from_compile_or_from_the_stream():
    days = Duration(2, "d")
    stream = Stream.from_rows([{"ts": 0}], time_unit="h")
    assert window_in_units(days, None, stream).tau == 48
    assert window_in_units(days, "d", stream).tau == 2
    with pytest.raises(PatternError, match="no declared unit"):
        window_in_units(days, None, [Event(0, 0)])


def test_a_run_counts_into_the_callers_counters_only():
    compiled = engine("ses-automaton").compile(Query.of(GROUP, policy="next"))
    stream = Stream.from_rows([{"ts": 0, "L": "A", "V": 0}, {"ts": 1, "L": "B", "V": 1}])
    first, second = Counters(), Counters()
    found = list(compiled.run(stream, counters=first))
    assert list(compiled.run(stream, counters=second)) == found and second == first
    assert first["events_read"] == 2
    assert list(compiled.run(stream)) == found and second == first   # a run of its own
    assert not hasattr(compiled, "counters") and not hasattr(compiled, "budget")


def test_counters_are_an_open_mapping_with_the_shared_names():
    c = Counters()
    assert set(c) == set(Counters.SHARED) and all(c[n] == 0 for n in c)
    c.calls_to_a += 2          # a family's own counter needs no declaration
    c["events_to_a"] = 5
    assert c.as_dict()["calls_to_a"] == 2 and c["events_to_a"] == 5
    c.observe_active(7)
    assert c.peak_instances == 7 and "calls_to_a" in c.as_dict()


def test_the_strict_window_admits_every_span_below_tau_and_not_tau():
    days = Duration(2, "d")
    stream = Stream.from_rows([{"ts": 0}], time_unit="h")
    strict = window_in_units(days, None, stream, "strict")
    assert strict.fits(47) and strict.fits(47.99999) and not strict.fits(48)
    inclusive = window_in_units(days, None, stream, "inclusive")
    assert inclusive.fits(48) and not inclusive.fits(48.000001)
