"""The generated corpus (conformance/corpus.py) and ``kleene conform --export``."""

from __future__ import annotations

import json
from pathlib import Path

from kleene.cli import main
from kleene.conformance import corpus
from kleene.conformance.cases import Case, CaseTest, case_directory, iter_tests, load_case_files
from kleene.engines.protocol import Query
from kleene.reference.budget import Budget
from kleene.reference.events import Stream
from kleene.reference.match import matches_from_json

ROUTES = ("(operator translation)", "(SES reference)", "(SREMO translation)",
          "(operator reference)")


def generated() -> list[tuple[Case, CaseTest]]:
    files = [f for f in load_case_files() if f.name.endswith("-generated.json")]
    return list(iter_tests(files))


def test_the_corpus_has_2000_tests_each_naming_its_second_route() -> None:
    tests = generated()
    assert len(tests) >= 2000
    assert all(t.description.endswith(ROUTES) for _, t in tests)
    assert {c.language for c, _ in tests} == {"ses", "operator", "sremo"}


def test_generated_streams_have_up_to_12_events() -> None:
    sizes = [len(c.events_of(t)) for c, t in generated()]
    assert max(sizes) == 12 and sum(n >= 10 for n in sizes) > len(sizes) // 5


def test_generated_tests_expecting_no_match_are_a_few_near_misses() -> None:
    by_case: dict[int, list[CaseTest]] = {}
    for c, t in generated():
        by_case.setdefault(id(c), []).append(t)
    tests = [t for ts in by_case.values() for t in ts]
    empty = [t for t in tests if not any(e.matches for e in t.expectations())]
    assert 0 < len(empty) <= 0.05 * len(tests)
    # each is a near miss: another test of its case, on the same events, has matches
    for ts in by_case.values():
        if any(not any(e.matches for e in t.expectations()) for t in ts):
            assert any(e.matches for t in ts for e in t.expectations())
    many = [t for t in tests if any(len(e.matches or ()) >= 50 for e in t.expectations())]
    assert len(many) >= 20


def test_generation_is_deterministic_and_its_routes_agree() -> None:
    a = corpus.generate(seed=3, target=40)
    b = corpus.generate(seed=3, target=40)
    assert a.cases == b.cases and a.count() >= 40
    assert set(a.routes) <= {r.strip("()") for r in ROUTES}


def test_export_writes_plain_json_and_a_format_page(tmp_path: Path) -> None:
    out = tmp_path / "corpus"
    assert main(["conform", "--export", str(out)]) == 0
    lines = [json.loads(x) for x in (out / "tests.jsonl").read_text().splitlines()]
    ids = {r["id"] for r in lines}
    assert len(ids) == sum(1 for _, t in iter_tests(load_case_files()) if t.check == "matches")
    assert "tests.jsonl" in (out / "FORMAT.md").read_text()
    names = {p.name for p in case_directory().iterdir() if p.name.endswith(".json")}
    assert names | {"case.schema.json", "VERSION"} == {p.name for p in (out / "cases").iterdir()}
    # The exported expectations are the reference's (a sample, every 97th line).
    for r in lines[::97]:
        if "matches" not in r["expected"]:
            continue
        q = Query.parse(r["pattern"], language=r["language"], policy=r["policy"],
                        reading=r["window"], time_unit=r["time_unit"])
        s = Stream.from_rows(r["events"], time_unit=r["time_unit"])
        got = q.reference(s, budget=Budget())
        assert got == set(matches_from_json(r["expected"]["matches"])), r["id"]
