"""MATCH_RECOGNIZE in the language registry (reference/match_recognize/registration.py):
detected, parsed, printed, its constructs found; it answers tables, so ``matches``
refuses in one line."""

from __future__ import annotations

import pytest
from hypothesis import find, settings

from kleene.conformance.recognize_strategies import match_recognize_clauses
from kleene.reference.budget import Budget
from kleene.reference.errors import Unsupported
from kleene.reference.events import Stream
from kleene.reference.languages import LANGUAGES, detect_language, language_named, language_of
from kleene.reference.match_recognize.features import clause_constructs
from kleene.reference.query import Feature


def test_the_registry_knows_match_recognize_and_the_others_do_not_claim_it() -> None:
    text = "-- V shapes\nSELECT *\nFROM ticks MATCH_RECOGNIZE (PATTERN (A B+) DEFINE B AS x < 1)"
    language = detect_language(text, "v.sql")
    assert language is language_named("match_recognize")
    assert [name for name in LANGUAGES if LANGUAGES.detects(name, text)] == ["match_recognize"]
    for other in ("ses", "operator", "sremo", "wayeb"):
        assert not LANGUAGES.detects("match_recognize", language_named(other).example)
    assert not LANGUAGES.detects("match_recognize", "SELECT * FROM ticks")
    statement = language.parse(text, "v.sql")
    assert language_of(statement) is language
    assert language.format(statement) == text.replace(
        "(PATTERN (A B+) DEFINE B AS x < 1)", "(\n  PATTERN (A B+)\n  DEFINE B AS X < 1\n)")
    assert (language.policies, language.default_policy, language.answers) == (
        ("match_recognize",), "match_recognize", "tables")
    assert language.window(statement) is None and language.variables(statement) == ("A", "B")
    with pytest.raises(Unsupported, match="match_recognize answers tables"):
        language.matches(statement, Stream.from_rows([]), "match_recognize", Budget(), "inclusive")


def test_constructs_are_found_in_every_recognition() -> None:
    language = language_named("match_recognize")
    statement = language.parse(
        "SELECT * FROM (SELECT * FROM t MATCH_RECOGNIZE (PARTITION BY p PATTERN (^ A+? | B)))"
        " MATCH_RECOGNIZE (MEASURES FINAL COUNT(DISTINCT x) AS n, CLASSIFIER() AS c,"
        " MATCH_NUMBER() AS m ALL ROWS PER MATCH OMIT EMPTY MATCHES AFTER MATCH SKIP TO A"
        " PATTERN (PERMUTE(A, {- B -}) ()) WITHIN INTERVAL '1' MINUTE SUBSET U = (A)"
        " DEFINE A AS PREV(LAST(A.x)) > 0)", "<q>")
    assert language.constructs_of(statement) == {
        "subquery", "partition-by", "anchor", "quantifier", "reluctant", "alternation",
        "measures", "aggregate", "distinct", "final", "classifier", "match-number",
        "all-rows", "omit-empty-matches", "skip-to-variable", "permute", "exclusion",
        "empty-pattern", "within", "subset", "navigation", "nested-navigation"}
    assert language.constructs_of(statement) <= set(language.constructs)
    assert "match_recognize:permute" in {str(f) for f in Feature.of(
        "match_recognize", *language.feature_labels())}


@pytest.mark.slow
@pytest.mark.parametrize("construct", sorted(set(language_named("match_recognize").constructs)
                                             - {"subquery"}))
def test_the_drawn_clauses_reach_every_construct(construct: str) -> None:
    """The strategies the differential tests reuse draw every construct but subqueries
    (a drawn statement reads the table ``t``)."""
    found = find(match_recognize_clauses(), lambda c: construct in clause_constructs(c),
                 settings=settings(max_examples=2000, database=None))
    assert construct in clause_constructs(found)
