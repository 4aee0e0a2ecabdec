"""Every seed 003 worked example (``conformance/cases/op-*.json``) for every NFA engine
that claims it, read through :mod:`kleene.conformance.cases`.

A test is claimed when the engine claims every feature its query needs
(:func:`~kleene.engines.protocol.claims`); every claimed test must pass (the
sub-patterns that seed 003 does not iterate or negate are features the
engines do not claim, :mod:`kleene.reference.operators.features`).
"""

from __future__ import annotations

import pytest

from kleene.conformance.cases import Case, CaseTest, iter_tests, load_case_files
from kleene.engines.protocol import Query, claims, missing
from kleene.engines.registry import engine

ENGINES = ("nfa-eager", "nfa-chain", "nfa-chain-fc", "nfa-multichain", "nfa-tree")

# A rejected query (op-errors.json) never reaches an engine: the reference and
# `kleene conform` check its error code.
TESTS = [(case, test) for case, test in iter_tests(load_case_files())
         if case.language == "operator" and test.check == "matches"
         and any(e.error is None for e in test.expectations())]


def _id(item: tuple[Case, CaseTest]) -> str:
    case, test = item
    return f"{case.file}:{case.description[:40]}:{test.description[:40]}"


@pytest.mark.parametrize("name", ENGINES)
@pytest.mark.parametrize("item", TESTS, ids=[_id(t) for t in TESTS])
def test_worked_example(name: str, item: tuple[Case, CaseTest]) -> None:
    case, test = item
    e = engine(name)
    ran = 0
    for expected in test.expectations():   # one per window reading the test pins
        if expected.error is not None:
            continue
        query = Query.parse(case.pattern, language="operator", policy=test.policy,
                            reading=expected.reading)
        if not claims(e, query):
            continue
        ran += 1
        stream = case.stream_of(test)
        got = list(e.compile(query).run(stream))
        assert len(got) == len(set(got)), "a match reported twice"
        assert set(got) == expected.matches, expected.reading
    if not ran:
        query = Query.parse(case.pattern, language="operator", policy=test.policy)
        lacking = ", ".join(sorted(str(f) for f in missing(e, query))) or "its readings"
        pytest.skip(f"{name} does not claim {lacking}")


def test_every_engine_runs_some_examples() -> None:
    for name in ENGINES:
        e = engine(name)
        ran = [t for t in TESTS
               if claims(e, Query.parse(t[0].pattern, language="operator", policy=t[1].policy))]
        assert len(ran) >= 17, name


def test_the_demo_table_runs_every_family() -> None:
    """``kleene demo``'s agreement table (:mod:`kleene.cli.demo_engines`) lists every
    registered family through the registry, and each NFA engine agrees on the
    operator worked examples it claims."""
    from kleene.cli.demo_engines import claiming_engines, worked_examples

    names = claiming_engines()
    assert {"nfa-eager", "nfa-tree", "ses-automaton", "srt", "windows+ses"} <= set(names)
    examples = [(case, test) for f in load_case_files()
                if f.name.startswith("op-") and not f.name.endswith("-generated.json")
                for case in f.cases for test in case.tests]
    rows = {r.engine: r for r in worked_examples(examples, ENGINES)}
    assert set(rows) == set(ENGINES)
    assert all(r.agree and r.matches > 0 for r in rows.values()), {
        r.engine: r.note for r in rows.values()}
