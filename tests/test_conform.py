"""``kleene conform`` and its backends (issue 9, items 3-4).

Expected verdicts come from the case files and the reference, never from the
runner: a test a backend claims passes when the backend is right; the broken
backend (each run drops its last match) fails exactly the claimed tests whose
expected match set is not empty; a test is skipped exactly when its query
needs a feature the backend does not claim (computed with ``Query.features``).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from importlib.metadata import EntryPoint
from pathlib import Path
from typing import Any

import pytest

from kleene.cli import main
from kleene.conformance import backends
from kleene.conformance.backends import find_backend
from kleene.conformance.cases import case_id, iter_tests, load_case_files
from kleene.conformance.generated import check_language, conform
from kleene.conformance.outcome import BackendError, UnknownBackend
from kleene.conformance.runner import FAIL, PASS, SKIP, Report
from kleene.engines.protocol import Feature, Query, WindowReading
from kleene.reference.errors import KleeneError
from kleene.reference.match import Match
from tests.helpers import tiny_cases

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "conformance" / "examples"
PY = sys.executable
BROKEN = "kleene.conformance.examples.broken_backend:engine"
MISBEHAVING = ROOT / "tests" / "backends" / "misbehaving.py"
FILES = load_case_files()
FRAGMENT = frozenset({Feature("ses"), Feature("ses", "any")})


def claimed(capabilities: frozenset[Feature]
            ) -> dict[str, list[tuple[WindowReading, frozenset[Match] | str | None]]]:
    """For every test: the (reading, expected set or error) pairs a backend with
    ``capabilities`` is sent, from the case files (the runner is not consulted)."""
    out = {}
    for case, test in iter_tests(FILES):
        runs = []
        for e in test.expectations():
            try:
                needed = Query.parse(case.pattern, language=case.language, policy=test.policy,
                                     reading=e.reading).features()
            except KleeneError:
                needed = frozenset({Feature(case.language), Feature(case.language, test.policy)})
            if needed <= capabilities:
                runs.append((e.reading, e.matches if e.error is None else e.error))
        out[case_id(case, test)] = runs
    return out


def verdicts(report) -> dict[str, str]:
    return {r.id: r.status for r in report.results}


def run(spec: str, **options: Any) -> Report:
    backend = find_backend(spec, timeout=options.pop("timeout", 30))
    try:
        return conform(backend, options.pop("files", FILES), **options)
    finally:
        backend.close()


def expected_for_correct(capabilities: frozenset[Feature]) -> dict[str, str]:
    return {ident: PASS if runs else SKIP for ident, runs in claimed(capabilities).items()}


# ---------------------------------------------------------------- built-in engines


@pytest.mark.parametrize("name", ["ses-automaton", "windows+ses"])
def test_builtin_engines_pass_every_applicable_case(name: str) -> None:
    report = run(name)
    expected = expected_for_correct(find_backend(name).capabilities)
    assert verdicts(report) == expected
    assert report.count(PASS) > 20
    skips = [r for r in report.results if r.status == SKIP]
    assert skips and all(r.reason.startswith("needs ") for r in skips)


def test_the_cli_passes_a_builtin_engine_and_lists_skips_by_reason(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["conform", "--backend", "ses-automaton", "-q"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("backend ses-automaton ")
    assert "capabilities: ses, ses:any, ses:group-variables" in out
    assert "skipped, by reason:" in out and "needs ses:next-literal" in out
    assert not any(line.startswith("FAIL ") for line in out.splitlines())
    assert "every applicable case passes" in out


# ---------------------------------------------------------------- the broken backend


def expected_for_broken(capabilities: frozenset[Feature]) -> dict[str, str]:
    out = {}
    for ident, runs in claimed(capabilities).items():
        if not runs:
            out[ident] = SKIP
        else:  # dropping the last match fails every run expecting at least one match
            out[ident] = FAIL if any(isinstance(x, frozenset) and x for _, x in runs) else PASS
    return out


@pytest.mark.parametrize("spec", [BROKEN,
                                  f"cmd:{PY} -m kleene.conformance.examples.broken_backend"],
                         ids=["python-plugin", "external-command"])
def test_the_broken_backend_fails_with_reproductions(spec: str) -> None:
    report = run(spec)
    caps = find_backend(BROKEN).capabilities
    assert verdicts(report) == expected_for_broken(caps)
    failures = [r for r in report.results if r.status == FAIL]
    assert failures
    for r in failures:
        assert "missing (expected, not reported):" in r.reproduction
        assert "pattern:\n    PATTERN" in r.reproduction and "events:\n      0 {" in r.reproduction
        assert '"cmd": "run"' in r.reproduction


def test_the_cli_exits_1_with_reproductions(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["conform", "--backend", BROKEN, "--case", "ses-q1/q1-on-fig-1/next"]) == 1
    out = capsys.readouterr().out
    assert "FAIL ses-q1/q1-on-fig-1/next-gives-the-two-intended-results" in out
    assert "rerun: kleene conform --backend" in out
    assert "1 failed" in out


# ---------------------------------------------------------------- the example backends


def _node() -> str:
    node = shutil.which("node") or shutil.which("nodejs")
    if node is None:
        pytest.skip("Node.js is not installed (scripts/bootstrap-system.sh installs nodejs)")
    return node


@pytest.mark.parametrize("language", ["python", "javascript"])
def test_the_minimal_backends_pass_their_fragment_and_skip_the_rest(language: str) -> None:
    command = (f"{PY} {EXAMPLES / 'minimal_backend.py'}" if language == "python"
               else f"{_node()} {EXAMPLES / 'minimal_backend.js'}")
    report = run(f"cmd:{command}")
    assert report.backend == f"minimal-{language}" and report.version == "1.0"
    assert set(report.capabilities) == {"ses", "ses:any"}
    assert verdicts(report) == expected_for_correct(FRAGMENT)
    assert report.count(PASS) >= 10
    for r in report.results:
        if r.status == SKIP:
            assert r.reason.startswith("needs ")


def test_the_minimal_javascript_backend_agrees_on_generated_queries() -> None:
    backend = find_backend(f"cmd:{_node()} {EXAMPLES / 'minimal_backend.js'}")
    try:
        result = check_language(backend, "ses", 25)
    finally:
        backend.close()
    assert result.status == PASS, result.reproduction


# ---------------------------------------------------------------- misbehaving backends


@pytest.mark.parametrize(("mode", "verdict"), [
    ("crash", "crashed: the backend exited (status 3) without answering; "
              "stderr: the backend fell over"),
    ("hang", "timeout: no run answer within 1 s"),
    ("non-json", "non-json: the answer is not JSON"),
    ("malformed", "malformed: malformed run response"),
    ("extra-field", "malformed: malformed run response"),
    ("duplicate", "1 reported more than once"),
])
def test_a_misbehaving_backend_gets_a_verdict_and_the_run_goes_on(
        tmp_path: Path, mode: str, verdict: str) -> None:
    files = load_case_files(tiny_cases(tmp_path))
    report = run(f"cmd:{PY} {MISBEHAVING} {mode}", files=files, timeout=1)
    assert [r.status for r in report.results] == [PASS, FAIL, PASS]
    assert report.results[1].reason.startswith(verdict), report.results[1].reason
    if mode == "malformed":
        assert "/matches/0/a: '0' is not of type 'array'" in report.results[1].reason
    if mode == "extra-field":   # docs/backends.md: a field no schema names is malformed
        assert "'debug' was unexpected" in report.results[1].reason


@pytest.mark.parametrize(("mode", "message"), [
    ("unknown-capability", "unknown capabilities: 'ses:teleport'"),
    ("bad-hello", "(top): 'version' is a required property"),
])
def test_a_bad_handshake_is_a_clear_error(mode: str, message: str) -> None:
    with pytest.raises(BackendError, match="hello handshake failed") as err:
        find_backend(f"cmd:{PY} {MISBEHAVING} {mode}")
    assert message in str(err.value)


def test_a_backend_that_cannot_start_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["conform", "--backend", "cmd:/no/such/backend"]) == 2
    assert "cannot start '/no/such/backend'" in capsys.readouterr().err


# ---------------------------------------------------------------- the protocol check


def test_check_protocol_names_the_malformed_message(capsys: pytest.CaptureFixture[str]) -> None:
    spec = f"cmd:{PY} {MISBEHAVING} malformed-always"
    assert main(["conform", "--check-protocol", "--backend", spec]) == 1
    out = capsys.readouterr().out
    assert "✓ runner → backend: hello-request" in out
    assert "✓ backend → runner: hello-response" in out
    assert "✗ backend → runner: run-response #1" in out
    assert "/matches/0/a: '0' is not of type 'array'" in out
    assert "protocol check FAILED" in out


def test_check_protocol_passes_the_minimal_backend(capsys: pytest.CaptureFixture[str]) -> None:
    spec = f"cmd:{PY} {EXAMPLES / 'minimal_backend.py'}"
    assert main(["conform", "--check-protocol", "--backend", spec]) == 0
    out = capsys.readouterr().out
    assert "✓ backend → runner: run-response #1" in out
    assert "✓ after bye: exit status 0" in out


# ---------------------------------------------------------------- finding backends


def test_an_unknown_backend_lists_the_choices(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["conform", "--backend", "no-such-engine"]) == 2
    err = capsys.readouterr().err
    assert "no backend 'no-such-engine'" in err
    assert "ses-automaton" in err and "windows+ses" in err and "cmd:COMMAND" in err
    assert "Traceback" not in err


def test_no_backend_at_all_says_how_to_name_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KLEENE_BACKEND", raising=False)
    with pytest.raises(UnknownBackend, match="KLEENE_BACKEND"):
        find_backend(None)


def test_kleene_backend_names_the_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KLEENE_BACKEND", "windows+ses")
    assert find_backend().name == "windows+ses"
    monkeypatch.setenv("KLEENE_BACKEND", BROKEN)
    assert find_backend().name == "broken-drop-last"


def test_module_factory_finds_a_python_engine() -> None:
    backend = find_backend(BROKEN)
    assert backend.name == "broken-drop-last" and backend.version == "0.0-broken"
    with pytest.raises(UnknownBackend, match="has no 'nope'"):
        find_backend("kleene.conformance.examples.broken_backend:nope")
    with pytest.raises(UnknownBackend, match="cannot import"):
        find_backend("no_such_module_xyz:engine")


def test_an_entry_point_registers_a_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    point = EntryPoint(name="acme", value=BROKEN, group="kleene.engines")
    monkeypatch.setattr(backends, "entry_points", lambda group: [point] if
                        group == "kleene.engines" else [])
    assert find_backend("acme").name == "broken-drop-last"
    with pytest.raises(UnknownBackend, match=r"entry points \(group kleene.engines\): acme"):
        find_backend("nothing-by-that-name")


# ---------------------------------------------------------------- reports and generation


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: object) -> None:
        self.tags.append(tag)


def child(element: ET.Element, tag: str) -> ET.Element:
    found = element.find(tag)
    assert found is not None, tag
    return found


def test_junit_and_html_reports_are_written_and_parse(tmp_path: Path) -> None:
    junit, page = tmp_path / "out" / "conform.xml", tmp_path / "out" / "conform.html"
    code = main(["conform", "--backend", BROKEN, "-q", "--case", "ses-q1",
                 "--junit", str(junit), "--report", str(page)])
    assert code == 1
    root = ET.parse(junit).getroot()
    cases = root.findall("./testsuite/testcase")
    ids = {case_id(c, t) for c, t in iter_tests(FILES) if c.file == "ses-q1.json"}
    assert {c.get("name") for c in cases} == ids
    failed = [c for c in cases if c.find("failure") is not None]
    skipped = [c for c in cases if c.find("skipped") is not None]
    assert int(root.get("failures", "")) == len(failed) > 0
    assert all("missing (expected, not reported)" in (child(c, "failure").text or "")
               for c in failed)
    assert all(child(c, "skipped").get("message", "").startswith("needs ") for c in skipped)
    props = {p.get("name"): p.get("value") for p in root.iter("property")}
    assert props["backend"] == "broken-drop-last"
    text = page.read_text(encoding="utf-8")
    tags = _Tags()
    tags.feed(text)
    assert {"html", "table", "pre"} <= set(tags.tags)
    assert "broken-drop-last" in text and "missing (expected, not reported)" in text


def test_generated_cases_shrink_to_a_minimal_counterexample() -> None:
    result = check_language(find_backend(BROKEN), "ses", 30)
    assert result.status == FAIL and result.reason.startswith("minimal counterexample")
    # dropping the last match of a run is seen on the smallest pattern with one match:
    # one variable and one event
    assert "PATTERN <{a}>" in result.reproduction
    assert "missing (expected, not reported):\n    {\"a\": [0]}" in result.reproduction
    assert check_language(find_backend("ses-automaton"), "ses", 20).status == PASS
    skipped = check_language(find_backend("ses-automaton"), "sremo", 5)
    assert skipped.status == SKIP and skipped.reason == "needs sremo and one of its policies"


# ---------------------------------------------------------------- the pytest plug-in


def test_the_pytest_plugin_runs_the_cases(tmp_path: Path) -> None:
    done = subprocess.run(
        [PY, "-m", "pytest", "-p", "no:cacheprovider", f"--kleene-backend={BROKEN}",
         "-k", "ses-q1 or sremo-table"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "missing (expected, not reported)" in done.stdout
    expected = expected_for_broken(find_backend(BROKEN).capabilities)
    chosen = {k: v for k, v in expected.items() if k.startswith(("ses-q1", "sremo-table"))}
    summary = done.stdout.strip().splitlines()[-1]
    n_fail = sum(v == FAIL for v in chosen.values())
    n_skip = sum(v == SKIP for v in chosen.values())
    assert f"{n_fail} failed" in summary and f"{n_skip} skipped" in summary
    assert "kleene backend broken-drop-last" in done.stdout


def test_the_pytest_plugin_rejects_an_unknown_backend(tmp_path: Path) -> None:
    done = subprocess.run(
        [PY, "-m", "pytest", "-q",
         "-p", "no:cacheprovider", "--kleene-backend=no-such-engine"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 4  # a usage error
    assert "no backend 'no-such-engine'" in done.stderr and "ses-automaton" in done.stderr


def test_the_guide_shows_the_example_backends_as_they_are() -> None:
    guide = (ROOT / "docs" / "backends.md").read_text(encoding="utf-8")
    for name in ("minimal_backend.py", "minimal_backend.js"):
        assert (EXAMPLES / name).read_text(encoding="utf-8") in guide, name
    for schema in (ROOT / "conformance" / "protocol").glob("*.schema.json"):
        assert schema.name in guide


def test_the_reference_as_a_backend_runs_and_passes_every_case() -> None:
    report = run("reference")
    assert report.count(SKIP) == 0 and report.count(FAIL) == 0
    assert len(report.results) == sum(1 for _ in iter_tests(FILES))


class _Misbehaving:
    """An in-process engine that fails in one way when compiling."""

    capabilities = find_backend("ses-automaton").capabilities

    def __init__(self, how: str) -> None:
        self.name, self.how = f"in-process-{how}", how

    def compile(self, query: Query) -> object:
        if self.how == "crash":
            raise RuntimeError("boom")
        if self.how == "hang":
            import time
            time.sleep(30)
        if self.how == "exit":
            raise SystemExit(3)

        class Compiled:
            def run(self, events: object, *, counters: object = None,
                    budget: object = None) -> list[object]:
                return ["not a match"]
        return Compiled()


@pytest.mark.parametrize(("how", "verdict"), [
    ("crash", "crashed: RuntimeError: boom"), ("hang", "timeout: no answer within 1 s"),
    ("exit", "crashed: SystemExit: 3"), ("garbage", "malformed: the engine yielded str"),
])
def test_an_in_process_engine_that_fails_gets_a_verdict(how: str, verdict: str) -> None:
    backend = backends.from_factory(_Misbehaving(how), "a test engine")
    report = conform(backend, FILES, timeout=1, select="ses-q1/q1-on-fig-1/next-gives")
    assert [r.status for r in report.results] == [FAIL]
    assert report.results[0].reason.startswith(verdict), report.results[0].reason
