"""The suite as a product (issue 28, item 4): the corpus version and its changelog,
``--languages``/``--features``, ``--expected-failures``, ``--json``.

Expected values come from the case files (read here, not through the runner), the
changelog and ``conformance/cases/VERSION`` as written, and the broken backend's one
defect (each run drops its last match: it fails exactly the claimed tests expecting a
match, and passes those expecting none).
"""

from __future__ import annotations

import json
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from kleene.cli import main
from kleene.conformance.cases import case_id, iter_tests, load_case_files
from kleene.conformance.expected_failures import ExpectedFailuresError, load
from kleene.conformance.versioning import UNVERSIONED, corpus_version, fingerprint
from kleene.engines.protocol import Feature, Query
from kleene.reference.errors import KleeneError

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "conformance" / "cases"
CHANGELOG = (ROOT / "conformance" / "CHANGELOG.md").read_text(encoding="utf-8")
VERSION = (CASES / "VERSION").read_text(encoding="utf-8").strip()
SCHEMA = json.loads((ROOT / "conformance" / "results.schema.json").read_text(encoding="utf-8"))
BROKEN = "kleene.conformance.examples.broken_backend:engine"
FILES = load_case_files()
#: What the broken backend claims (the SES automaton's features).
CLAIMS = {"ses", "ses:any", "ses:group-variables", "ses:next", "ses:prev", "ses:window-strict"}


def needs(case: Any, test: Any) -> set[str]:
    """The features a test needs, from its pattern (Query.features, per reading)."""
    out: set[str] = set()
    for e in test.expectations():
        try:
            out |= set(map(str, Query.parse(case.pattern, language=case.language,
                                            policy=test.policy, reading=e.reading).features()))
        except KleeneError:
            out |= {case.language, f"{case.language}:{test.policy}"}
    return out


def broken_verdicts(file: str) -> dict[str, str]:
    """The broken backend's verdict on each test of ``file``: skipped when it needs an
    unclaimed feature, failed when it expects a match, else passed."""
    out = {}
    for case, test in iter_tests(FILES):
        if case.file == file and test.check == "matches":
            expects_match = any(e.matches for e in test.expectations())
            out[case_id(case, test)] = ("skip" if not needs(case, test) <= CLAIMS
                                        else "fail" if expects_match else "pass")
    return out


def run_json(tmp_path: Path, *argv: str) -> tuple[int, dict[str, Any]]:
    """``kleene conform ARGV --json FILE``: the exit code and the document, checked
    against its schema."""
    target = tmp_path / "results.json"
    code = main(["conform", *argv, "--json", str(target), "-q"])
    document = json.loads(target.read_text(encoding="utf-8"))
    jsonschema.validate(document, SCHEMA)
    return code, document


# ---------------------------------------------------------------- the corpus version


def newest_entry() -> re.Match[str]:
    found = re.search(r"^## (\d+\.\d+\.\d+) \(\d{4}-\d\d-\d\d\)\n\nfingerprint `([0-9a-f]{16})` "
                      r"\((\d+) files, (\d+) cases, (\d+) tests\)$", CHANGELOG, re.M)
    assert found is not None, "the changelog's newest entry: ## X.Y.Z (DATE), fingerprint"
    return found


def test_the_changelog_records_the_corpus_as_it_is() -> None:
    entry = newest_entry()
    assert entry.group(1) == VERSION == corpus_version()
    now = fingerprint()
    counted = (sum(1 for _ in CASES.glob("*.json")), sum(len(f.cases) for f in FILES),
               sum(1 for _ in iter_tests(FILES)))
    assert (now.files, now.cases, now.tests) == counted
    assert (entry.group(2), *map(int, entry.group(3, 4, 5))) == (now.digest, *counted), (
        f"the case files changed since corpus {VERSION}: bump conformance/cases/VERSION and "
        f"add a conformance/CHANGELOG.md entry with fingerprint `{now.digest}` "
        f"({now.files} files, {now.cases} cases, {now.tests} tests)")


def test_versions_in_the_changelog_only_grow() -> None:
    versions = [tuple(map(int, v.split("."))) for v in
                re.findall(r"^## (\d+\.\d+\.\d+) ", CHANGELOG, re.M)]
    assert versions and versions == sorted(versions, reverse=True)
    assert len(set(versions)) == len(versions)


def test_the_fingerprint_sees_a_changed_case_and_not_a_reformatted_file(tmp_path: Path) -> None:
    folder = tmp_path / "cases"
    shutil.copytree(CASES, folder, ignore=shutil.ignore_patterns("optional"))
    before = fingerprint(folder)
    path = folder / "ses-q1.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps(data, indent=7), encoding="utf-8")   # the same content
    assert fingerprint(folder) == before
    data["cases"][0]["tests"][0]["matches"] = data["cases"][0]["tests"][0]["matches"][1:]
    path.write_text(json.dumps(data), encoding="utf-8")
    changed = fingerprint(folder)
    assert changed.digest != before.digest and changed.tests == before.tests
    (folder / "VERSION").unlink()
    assert corpus_version(folder) == UNVERSIONED


def test_the_run_names_the_corpus_version(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    junit = tmp_path / "r.xml"
    code, document = run_json(tmp_path, "--backend", "ses-automaton", "--case", "ses-q1/q1",
                              "--junit", str(junit))
    assert code == 0
    assert f"case corpus {VERSION} (conformance/CHANGELOG.md)" in capsys.readouterr().out
    assert document["corpus_version"] == VERSION
    props = {p.get("name"): p.get("value") for p in ET.parse(junit).getroot().iter("property")}
    assert props["corpus_version"] == VERSION


# ---------------------------------------------------------------- filters


def test_languages_keep_the_tests_of_those_languages(tmp_path: Path) -> None:
    code, document = run_json(tmp_path, "--backend", "reference", "--languages", "sremo,wayeb")
    expected = {case_id(c, t) for c, t in iter_tests(FILES)
                if c.language in ("sremo", "wayeb") and t.check == "matches"}
    assert code == 0 and {r["id"] for r in document["tests"]} == expected
    assert {r["language"] for r in document["tests"]} == {"sremo", "wayeb"}


def test_features_keep_the_tests_that_need_one_of_them(tmp_path: Path) -> None:
    code, document = run_json(tmp_path, "--backend", BROKEN, "--features",
                              "operator:prev,ses:prev")
    expected = {case_id(c, t) for c, t in iter_tests(FILES)
                if t.check == "matches" and needs(c, t) & {"operator:prev", "ses:prev"}}
    assert len(expected) > 10
    assert {r["id"] for r in document["tests"]} == expected
    for r in document["tests"]:
        assert {"operator:prev", "ses:prev"} & set(r["features"]), r["id"]
    # the broken backend claims no operator feature: every operator test is skipped
    assert all(r["verdict"] == "skip" for r in document["tests"] if r["language"] == "operator")
    assert code == 1


@pytest.mark.parametrize(("argv", "says"), [
    (["--languages", "ses,cobol"], "--languages: unknown language 'cobol'; known: ses, "),
    (["--features", "ses:teleport"], "--features: unknown feature 'ses:teleport'; known: "),
    (["--languages", ","], "--languages takes a comma-separated list"),
    (["--languages", "wayeb", "--features", "ses:prev"], "keep no test of the case files"),
])
def test_an_unknown_name_is_one_line_listing_the_known(
        argv: list[str], says: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["conform", "--backend", "ses-automaton", *argv]) == 2
    err = capsys.readouterr().err
    assert says in err and len(err.strip().splitlines()) == 1
    if "unknown feature" in says:
        assert "operator:prev" in err and "sremo:unmarked" in err and "wayeb" in err


# ---------------------------------------------------------------- expected failures


def test_expected_failures_keep_the_run_green_and_a_pass_fails_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    verdicts = broken_verdicts("ses-match-windows.json")
    failing = sorted(i for i, v in verdicts.items() if v == "fail")
    passing = sorted(i for i, v in verdicts.items() if v == "pass")
    assert failing and passing
    listing = tmp_path / "broken.txt"
    listing.write_text("# the broken backend drops each run's last match\n\n"
                       + "".join(f"{i}   drops the last match\n" for i in failing))
    argv = ["--backend", BROKEN, "--case", "ses-match-windows", "--expected-failures",
            str(listing)]
    code, document = run_json(tmp_path, *argv)
    assert code == 0, capsys.readouterr().out
    got = {r["id"]: r["verdict"] for r in document["tests"]}
    assert got == {i: "xfail" if v == "fail" else v for i, v in verdicts.items()}
    assert document["summary"]["expected_failures"] == len(failing)
    assert all(r["reason"].startswith("expected failure: drops the last match; 1 missing")
               for r in document["tests"] if r["verdict"] == "xfail")
    out = capsys.readouterr().out
    assert f"{len(failing)} expected failure" in out and "every applicable case passes" in out
    # a listed test that passes (the defect fixed, or listed by mistake) fails the run
    listing.write_text(listing.read_text() + f"{passing[0]}\tlisted by mistake\n")
    junit = tmp_path / "r.xml"
    code, document = run_json(tmp_path, *argv, "--junit", str(junit))
    assert code == 1
    # JUnit: an expected failure is a skip, an unexpected pass a failure (pytest's way)
    cases = {c.get("name"): c for c in ET.parse(junit).getroot().iter("testcase")}
    assert cases[passing[0]].find("failure") is not None
    assert all(cases[i].find("skipped") is not None for i in failing)
    assert {r["id"]: r["verdict"] for r in document["tests"]}[passing[0]] == "xpass"
    out = capsys.readouterr().out
    assert "1 unexpectedly passed" in out   # -q: no line per test, the section below
    assert f"unexpectedly passed: remove them from {listing}\n\n  {passing[0]}" in out


def test_expected_failures_as_json(tmp_path: Path) -> None:
    verdicts = broken_verdicts("ses-q1.json")
    listing = tmp_path / "broken.json"
    listing.write_text(json.dumps([{"id": i, "reason": "drops the last match"}
                                   for i, v in verdicts.items() if v == "fail"]))
    code, document = run_json(tmp_path, "--backend", BROKEN, "--case", "ses-q1/",
                              "--expected-failures", str(listing))
    assert code == 0
    assert document["summary"]["failed"] == 0
    assert document["summary"]["expected_failures"] == sum(v == "fail" for v in verdicts.values())


def test_the_example_list_names_exactly_the_broken_backends_ses_q1_failures() -> None:
    listed = load(ROOT / "conformance" / "examples" / "broken_backend.xfail")
    verdicts = broken_verdicts("ses-q1.json")
    assert set(listed) == {i for i, v in verdicts.items() if v == "fail"}
    assert set(listed.values()) == {"drops the last match of each run"}


@pytest.mark.parametrize(("name", "text", "says"), [
    ("x.txt", "ses-q1/no-such-test  why\n", "'ses-q1/no-such-test' names no test"),
    ("x.txt", "# ok\nses-q1/q1-on-fig-1/x\n", "line 2: ses-q1/q1-on-fig-1/x has no reason"),
    ("x.json", '{"a": "b"}', "a JSON list of"),
    ("x.json", '[{"id": "a"}]', 'item 0 is not an object with exactly "id" and "reason"'),
    ("x.json", "[", "not JSON"),
])
def test_a_bad_expected_failures_file_is_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: str,
        says: str) -> None:
    listing = tmp_path / name
    listing.write_text(text)
    assert main(["conform", "--backend", BROKEN, "--expected-failures", str(listing)]) == 2
    err = capsys.readouterr().err
    assert says in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_the_text_form_takes_comments_tabs_and_refuses_a_twice_listed_id(tmp_path: Path) -> None:
    listing = tmp_path / "x.txt"
    listing.write_text("  # a comment\n\na/b/c\tthe reason, with spaces\nd/e/f  two  words\n")
    assert load(listing) == {"a/b/c": "the reason, with spaces", "d/e/f": "two  words"}
    listing.write_text("a/b/c one\na/b/c two\n")
    with pytest.raises(ExpectedFailuresError, match="line 2: a/b/c is listed twice"):
        load(listing)


# ---------------------------------------------------------------- JSON results


def test_json_records_every_test_with_its_verdict_and_rerun_line(tmp_path: Path) -> None:
    code, document = run_json(tmp_path, "--backend", BROKEN, "--case", "ses-q1/")
    verdicts = broken_verdicts("ses-q1.json")
    assert code == 1
    assert {r["id"]: r["verdict"] for r in document["tests"]} == verdicts
    assert document["backend"]["spec"] == BROKEN
    assert document["backend"]["name"] == "broken-drop-last"
    summary = document["summary"]
    assert (summary["passed"], summary["failed"], summary["skipped"], summary["ok"]) == (
        sum(v == "pass" for v in verdicts.values()), sum(v == "fail" for v in verdicts.values()),
        sum(v == "skip" for v in verdicts.values()), False)
    for r in document["tests"]:
        assert r["rerun"] == f"kleene conform --backend {BROKEN} --case {r['id']}"
        assert r["file"] == "ses-q1.json" and r["language"] == "ses" and r["seed"] is None
        assert ("missing (expected, not reported)" in r["reproduction"]) == (
            r["verdict"] == "fail")
        assert "ses" in r["features"]
        assert ("ses:next-literal" in r["features"]) == (r["verdict"] == "skip")


def test_json_to_standard_output_leaves_it_json_only(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["conform", "--backend", "ses-automaton", "--case", "ses-q1/q1-on-fig-1",
                 "--json", "-"]) == 0
    captured = capsys.readouterr()
    document = json.loads(captured.out)
    jsonschema.validate(document, SCHEMA)
    assert len(document["tests"]) == 3
    assert "every applicable case passes" in captured.err


def test_json_never_overwrites_an_input(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    listing = tmp_path / "x.txt"
    listing.write_text("ses-q1/q1-on-fig-1/next-gives-the-two-intended-results-and-the-run-"
                       "started-at-e7 drops\n")
    before = listing.read_text()
    for target in (str(listing), str(CASES / "ses-q1.json")):
        assert main(["conform", "--backend", BROKEN, "--expected-failures", str(listing),
                     "--json", target]) == 2
        err = capsys.readouterr().err
        assert "--json" in err and len(err.strip().splitlines()) == 1
    assert listing.read_text() == before


@pytest.mark.parametrize("option", [["--json", "x.json"], ["--languages", "ses"],
                                    ["--expected-failures", "x.txt"]])
def test_the_options_belong_to_a_run_of_the_cases(
        option: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["conform", "--check-protocol", "--backend", "cmd:x", *option]) == 2
    assert f"{option[0]} is an option of a run of the conformance cases, not of " \
           "--check-protocol" in capsys.readouterr().err


def test_seed_needs_generated(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["conform", "--backend", "ses-automaton", "--seed", "3"]) == 2
    assert "--seed draws the queries of --generated N" in capsys.readouterr().err


def test_a_feature_list_selects_the_generated_batch_of_its_language(tmp_path: Path) -> None:
    code, document = run_json(tmp_path, "--backend", "ses-automaton", "--generated", "3",
                              "--features", str(Feature("ses", "prev")))
    generated = [r for r in document["tests"] if r["id"].startswith("generated/")]
    assert [r["id"] for r in generated] == ["generated/ses"]
    assert generated[0]["seed"] == 0 and code == 0
