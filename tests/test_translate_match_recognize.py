"""The checked translation of SES and operator patterns into MATCH_RECOGNIZE.

Two references meet: Kleene's reference on the source language (SES, seed 000; operators,
seed 003) under a contiguity policy, and Kleene's ``MATCH_RECOGNIZE`` reference
(SQL:2016) on the translated statement over the events as a table. Inside the exact
fragment their matches are equal; with quantifiers (SES group variables, ``B+``,
``B{l,m}``) the statement keeps one match per start row, and it must then equal the
SQL:2016 answer the peers are judged by (``conformance/adapters/mr_oracle.py``,
derived from the reference's contiguous matches), which this checks in turn.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from kleene.conformance.adapters import mr, mr_oracle
from kleene.conformance.adapters.probe import probe
from kleene.conformance.cases import load_case_files
from kleene.conformance.outcome import Outcome
from kleene.conformance.strategies import operator_patterns, ses_patterns, streams, typed_streams
from kleene.conformance.wire import Request
from kleene.engines.tables import match_recognize
from kleene.reference.budget import Budget
from kleene.reference.events import Stream, Value
from kleene.reference.match import Match
from kleene.reference.match_recognize.semantics import recognize
from kleene.reference.operators.match_recognize_rows import matches_of, table_of
from kleene.reference.operators.pattern import OperatorPattern
from kleene.reference.operators.to_match_recognize import (
    SKIPS,
    Naming,
    Translation,
    Untranslatable,
    identifier,
    translate,
)
from kleene.reference.query import Query
from kleene.reference.ses.pattern import SESPattern

#: The check's names: Kleene's, and a position column to read the matches back by.
NAMING = Naming(position="pos")
POLICIES = st.sampled_from(("contiguous", "partition-contiguous"))
#: Events that may miss ``ID`` or ``V`` (NULL in the table; unknown comparisons in
#: Kleene, an event of its own partition), each stream's first event having both, so
#: that the table has every column the pattern names.
SPARSE = st.fixed_dictionaries({"L": st.sampled_from(("A", "B"))},
                               optional={"ID": st.integers(0, 1), "V": st.integers(0, 3)})


@st.composite
def sparse_streams(draw: st.DrawFn) -> Stream:
    first = {"ts": 0, "L": "A", "ID": draw(st.integers(0, 1)), "V": draw(st.integers(0, 3))}
    rest = draw(st.lists(st.tuples(st.integers(0, 1), SPARSE), max_size=6))
    rows: list[dict[str, object]] = [first]
    ts = 0
    for gap, attrs in rest:
        ts += gap
        rows.append({"ts": ts, **attrs})
    return Stream.from_rows(rows)
READINGS = st.sampled_from(("inclusive", "strict"))


def recognized(t: Translation, rows: Sequence[Mapping[str, Value]]) -> set[Match]:
    """The matches of Kleene's MATCH_RECOGNIZE reference on the translation."""
    statement = t.statement()
    out = recognize(statement.recognitions[0].clause, table_of(NAMING, rows), budget=Budget())
    found = [dict(zip(out.names, r, strict=True)) for r in out.rows]
    matches = matches_of(t, rows, found)
    assert len(matches) == len(set(matches)), "a match reported twice"
    return set(matches)


def singletons(p: SESPattern) -> SESPattern:
    """The drawn pattern with each variable a set of its own, group variables made
    singletons: the exact fragment."""
    return SESPattern(tuple((type(v)(v.name),) for b in p.sets for v in b), p.conditions,
                      p.window)


def one_per_set(p: SESPattern) -> SESPattern:
    """The drawn pattern with each variable a set of its own, groups kept."""
    return SESPattern(tuple((v,) for b in p.sets for v in b), p.conditions, p.window)


def check_exact(query: Query, s: Stream) -> None:
    rows = s.to_json()
    t = translate(query, naming=NAMING)
    assert t.inexact() is None
    expected = query.reference(s, budget=Budget())
    got = recognized(t, rows)
    assert got == expected, (f"{t.sql()}\nevents {rows}\nmissing {expected - got}\n"
                             f"extra {got - expected}")


def check_oracle(query: Query, s: Stream, skip: str) -> None:
    rows = s.to_json()
    t = translate(query, naming=NAMING, skip=skip, exact=False)
    contiguous = query.reference(s, budget=Budget())
    expected = mr_oracle.expected(t, s, contiguous)
    got = recognized(t, rows)
    assert got == expected, (f"{t.sql()}\nevents {rows}\nmissing {expected - got}\n"
                             f"extra {got - expected}")


# ---------------------------------------------------------------- exact: SES and operators


@settings(max_examples=150, deadline=None)
@given(ses_patterns(groups=st.just(False)), streams(min_size=1, max_size=7) | sparse_streams(),
       POLICIES, READINGS)
def test_ses_patterns_of_singletons_have_the_reference_matches(
        p: SESPattern, s: Stream, policy: str, reading: str) -> None:
    query = Query.of(singletons(p), language="ses", policy=policy, reading=reading)
    check_exact(query, s)


def translatable(p: OperatorPattern | SESPattern, policy: str, reading: str, *,
                 exact: bool) -> Query:
    """The query, if the translation takes it (else the example is rejected)."""
    query = Query.of(p, policy=policy, reading=reading)
    try:
        translate(query, naming=NAMING, exact=exact)
    except Untranslatable:
        assume(False)
    return query


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(operator_patterns(max_depth=2, disjunction=False, negation=False, kleene=False),
       typed_streams(min_size=1, max_size=7), POLICIES, READINGS)
def test_operator_sequences_of_primitives_have_the_reference_matches(
        p: OperatorPattern, s: Stream, policy: str, reading: str) -> None:
    check_exact(translatable(p, policy, reading, exact=True), s)


# ---------------------------------------------------------------- quantified: the SQL:2016 oracle


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(ses_patterns(groups=st.booleans()), streams(min_size=1, max_size=7) | sparse_streams(),
       POLICIES, st.sampled_from(SKIPS))
def test_ses_group_variables_give_the_oracles_greedy_match_per_start_row(
        p: SESPattern, s: Stream, policy: str, skip: str) -> None:
    check_oracle(translatable(one_per_set(p), policy, "inclusive", exact=False), s, skip)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(operator_patterns(max_depth=1, disjunction=False, negation=False),
       typed_streams(min_size=1, max_size=7), POLICIES, st.sampled_from(SKIPS))
def test_operator_repetitions_give_the_oracles_greedy_match_per_start_row(
        p: OperatorPattern, s: Stream, policy: str, skip: str) -> None:
    check_oracle(translatable(p, policy, "inclusive", exact=False), s, skip)


# ---------------------------------------------------------------- hand-computed


def events(types: str, ts: Sequence[int] | None = None,
           **attrs: Sequence[Value]) -> Stream:
    return Stream.from_rows([{"ts": i if ts is None else ts[i], "type": c,
                              **{k: v[i] for k, v in attrs.items()}}
                             for i, c in enumerate(types)])


def test_the_funnel_under_partition_contiguous_by_hand() -> None:
    # ID 1: A@0 B@2 (contiguous in its part, ID 2's B@1 in between); ID 2 has no A.
    s = events("ABBA", ID=[1, 2, 1, 2])
    query = Query.parse("PATTERN SEQ(A a, B b) WHERE a.ID = b.ID", language="operator",
                        policy="partition-contiguous")
    t = translate(query, naming=NAMING)
    assert t.partition == ("ID",)
    assert recognized(t, s.to_json()) == {Match.of({"a": [0], "b": [2]})}
    contiguous = Query.parse(query.text, language="operator", policy="contiguous")
    assert recognized(translate(contiguous, naming=NAMING), s.to_json()) == set()


def test_tied_timestamps_between_parts_and_within_a_repetition_by_hand() -> None:
    # SEQ's parts strictly later in ts; a repetition's iterations may tie (positions).
    s = events("ABB", ts=[0, 0, 1])
    seq = Query.parse("PATTERN SEQ(A a, B b)", language="operator", policy="contiguous")
    assert recognized(translate(seq, naming=NAMING), s.to_json()) == set()
    t = events("ABB", ts=[0, 1, 1])
    rep = Query.parse("PATTERN SEQ(A a, B+ b[])", language="operator", policy="contiguous")
    got = recognized(translate(rep, naming=NAMING, exact=False), t.to_json())
    assert got == {Match.of({"a": [0], "b": [1, 2]})}


def test_prev_reads_the_previous_row_of_the_variable_and_is_vacuous_on_its_first() -> None:
    s = events("ABBB", V=[9, 1, 2, 2])
    q = Query.parse("PATTERN SEQ(A a, B+ b[]) WHERE prev(b.V) < b.V", language="operator",
                    policy="contiguous")
    t = translate(q, naming=NAMING, skip="PAST LAST ROW", exact=False)
    assert "LAST(b.V, 1) < b.V" in t.sql()
    # b[1, 2] (1 < 2); 2 < 2 fails at position 3, so the greedy match stops at 2.
    assert recognized(t, s.to_json()) == {Match.of({"a": [0], "b": [1, 2]})}


@pytest.mark.parametrize(("text", "policy", "why"), [
    ("PATTERN SEQ(A a, NOT(B b), C c)", "contiguous", "NOT"),
    ("PATTERN SEQ(A a, OR(B b, C c))", "contiguous", "OR: alternation"),
    ("PATTERN AND(A a, B b)", "contiguous", "AND"),
    ("PATTERN SEQ(A+ a[], B b) WHERE a.V < b.V", "contiguous", "earlier iterated"),
    ("PATTERN SEQ(A a, B+ b[]) WHERE SUM(b.V) < 3", "contiguous", "aggregates"),
    ("PATTERN SEQ(A a, B b)", "any", "policy any"),
    ("PATTERN SEQ(A a, B+ b[])", "contiguous", "not exact under the contiguous policy"),
])
def test_outside_the_fragment_is_refused_with_the_reason(text: str, policy: str,
                                                         why: str) -> None:
    query = Query.parse(text, language="operator", policy=policy)
    with pytest.raises(Untranslatable, match=why):
        translate(query)


def test_nested_sequences_flatten_and_an_iterated_sub_pattern_is_refused() -> None:
    nested = Query.parse("PATTERN SEQ(A a, SEQ(B b, C c))", language="operator",
                         policy="contiguous")
    assert "PATTERN (a b c)" in translate(nested).sql()
    iterated = Query.parse("PATTERN SEQ(A a, SEQ(B b, C c)+)", language="operator",
                           policy="contiguous")
    with pytest.raises(Untranslatable, match="iterated sub-pattern"):
        translate(iterated, exact=False)


def test_an_ses_set_of_two_variables_is_refused() -> None:
    query = Query.parse("PATTERN <{a, b}> WITHIN 3", language="ses", policy="contiguous")
    with pytest.raises(Untranslatable, match="PERMUTE"):
        translate(query)


# ---------------------------------------------------------------- the case files, as peers run


def kleene_as_a_peer(skip: str) -> Callable[[Request], Outcome]:
    """A peer whose engine is Kleene's MATCH_RECOGNIZE reference: the adapters' query
    (their names, column types, strict order only on ties) over the adapters' rows."""

    def run(request: Request) -> Outcome:
        query = Query.parse(request.pattern, language=request.language,
                            policy=request.policy, reading=request.window,
                            time_unit=request.time_unit)
        t = mr.plan(query, request.events, skip=skip)
        out = recognize(t.statement().recognitions[0].clause,
                        table_of(mr.NAMING, request.events), budget=Budget())
        found = [dict(zip(out.names, r, strict=True)) for r in out.rows]
        return Outcome(matches=tuple(matches_of(t, request.events, found)))

    return run


@pytest.mark.slow
@pytest.mark.parametrize("skip", SKIPS)
def test_the_probe_with_kleenes_reference_as_the_peer_finds_no_disagreement(skip: str) -> None:
    tally = probe(kleene_as_a_peer(skip), skip, load_case_files())
    assert tally.agreed > 40
    assert tally.disagreed == 0, [(f.request.pattern, f.request.events, f.sql)
                                  for f in tally.findings]


def test_names_that_are_sql_keywords_are_delimited() -> None:
    assert identifier("v0") == "v0" and identifier("order") == '"order"'
    assert identifier("first") == '"first"' and identifier("a b") == '"a b"'
    # ``order`` and ``last`` as attributes: the statement parses and matches as Kleene does.
    s = events("ABAB", order=[1, 2, 2, 1], last=[0, 0, 0, 0])
    q = Query.parse("PATTERN SEQ(A a, B b) WHERE a.order < b.order AND b.last = 0",
                    language="operator", policy="contiguous")
    t = translate(q, naming=NAMING)
    assert 'a."order" < b."order"' in t.sql()
    assert recognized(t, s.to_json()) == {Match.of({"a": [0], "b": [1]})}


# ---------------------------------------------------------------- the engine on the translations


def through_the_door(t: Translation, rows: Sequence[Mapping[str, Value]],
                     engine: str) -> set[Match]:
    """The matches of ``kleene.match_recognize`` (DuckDB around the recognition) with
    ``engine`` on the translation over the events as an Arrow table."""
    table = table_of(NAMING, rows)
    arrow = pa.table({n: [r[i] for r in table.rows] for i, n in enumerate(table.names)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)   # a DEFINE no row satisfies
        out = match_recognize(arrow, t.sql(), name="events", engine=engine)
    return set(matches_of(t, rows, out.to_pylist()))


@pytest.mark.slow
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(operator_patterns(max_depth=1, disjunction=False, negation=False),
       typed_streams(min_size=1, max_size=7), POLICIES, st.sampled_from(SKIPS))
def test_the_match_recognize_engine_answers_the_translations_as_the_reference(
        p: OperatorPattern, s: Stream, policy: str, skip: str) -> None:
    query = translatable(p, policy, "inclusive", exact=False)
    t = translate(query, naming=NAMING, skip=skip, exact=False)
    rows = s.to_json()
    assert through_the_door(t, rows, "match-recognize") == recognized(t, rows), t.sql()
