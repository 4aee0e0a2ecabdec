"""``kleene conform --report-site DIR``: the compliance report across implementations
(issue 28 item 4; docs/backends.md, "A compliance report").

The page builder is checked on results built by hand, whose cells were counted by hand;
the real command runs two built-in engines, both minimal example backends and the broken
one over a selection of the cases, and headless Chromium (Debian's ``chromium``, as in
tests/test_browser.py) loads the index and every backend page: the table is in the DOM
with the counts each backend's own ``kleene conform --backend`` run prints, and every
link and image of every page names a file of the site.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

import pytest

from kleene.conformance import site
from kleene.conformance.cases import load_case_files
from kleene.conformance.runner import FAIL, PASS, SKIP, Report, Result
from kleene.conformance.site import catalogue, chosen, needs, write_site
from kleene.conformance.site_pages import Column, backend_page, badge, index_page
from kleene.engines.registry import engine_names
from kleene.reference.errors import KleeneError
from kleene.reference.query import all_features
from tests.helpers import run_cli

ROOT = Path(__file__).resolve().parents[1]
BROWSER = next((p for p in map(shutil.which, ("chromium", "chromium-browser")) if p), None)
NODE = shutil.which("node") or shutil.which("nodejs")
BROKEN = "kleene.conformance.examples.broken_backend:engine"
KLEENE = Path(sys.executable).parent / "kleene"


class Page(HTMLParser):
    """What a test reads of a page: each table's rows (cells as ``(passed, failed,
    skipped)``, ``None`` for a cell no test needs, else the text), and every link."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.tables: dict[str, list[tuple[str, list[object]]]] = {}
        self.links: list[str] = []
        self.texts: list[str] = []
        self._table = ""
        self._row: list[object] | None = None
        self._cell: dict[str, str | None] | None = None
        self._text = ""
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        for name in ("href", "src"):
            if a.get(name):
                self.links.append(str(a[name]))
        if tag == "table":
            self._table = a.get("id") or ""
            self.tables[self._table] = []
        elif tag == "tr":
            self._row = []
            self.tables[self._table].append((a.get("data-feature") or a.get("data-backend")
                                             or "", self._row))
        elif tag in ("td", "th"):
            self._cell, self._text = a, ""

    def handle_data(self, data: str) -> None:
        self._text += data
        self.texts.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None and self._row is not None:
            c = self._cell
            if "data-pass" in c:
                self._row.append((int(c["data-pass"] or 0), int(c["data-fail"] or 0),
                                  int(c["data-skip"] or 0)))
            else:
                self._row.append(None if self._text.strip() == "·" else self._text.strip())
            self._cell = None

    def row(self, table: str, key: str) -> list[object]:
        """The cells of the row of ``table`` keyed ``key`` (its header cell dropped)."""
        found = [cells for k, cells in self.tables[table] if k == key]
        assert len(found) == 1, (table, key, len(found))
        return found[0][1:]

    def counts(self, key: str) -> list[tuple[int, int, int]]:
        """The (passed, failed, skipped) cells of the compliance table's row ``key``."""
        cells = self.row("compliance", key)
        assert all(isinstance(c, tuple) for c in cells), cells
        return [c for c in cells if isinstance(c, tuple)]


# ---------------------------------------------------------------- the pages, by hand

NEEDS = {"f/c/t1": frozenset({"ses", "ses:any"}), "f/c/t2": frozenset({"ses", "ses:next"}),
         "f/c/t3": frozenset({"ses", "ses:any", "ses:prev"})}
REPRO = ("FAIL f/c/t2\n  1 missing\n  pattern:\n    PATTERN <{a}, {b}> WHERE a.x < 3 "
         "WITHIN 5\n  rerun: kleene conform --backend alpha --case f/c/t2")


def _hand() -> list[Column]:
    alpha = Report("alpha", "1.0", "by hand", ("ses", "ses:any", "ses:next"), [
        Result("f/c/t1", "f.json", "ses", PASS),
        Result("f/c/t2", "f.json", "ses", FAIL, "1 missing", REPRO),
        Result("f/c/t3", "f.json", "ses", SKIP, "needs ses:prev"),
        Result("generated/ses", "(generated)", "ses", PASS)])
    beta = Report("beta", "2.0", "by hand", ("ses", "ses:next"), [
        Result("f/c/t1", "f.json", "ses", SKIP, "needs ses:any"),
        Result("f/c/t2", "f.json", "ses", PASS),
        Result("f/c/t3", "f.json", "ses", SKIP, "needs ses:any, ses:prev")])
    return [Column("alpha", "built-in engine", "alpha", alpha),
            Column("beta+x", "example backend", "cmd:beta x", beta),
            Column("gamma", "peer (make peers)", "g", absent="not installed: no .peers/g")]


def test_the_index_counts_each_feature_s_tests_per_backend() -> None:
    page = Page(index_page(_hand(), NEEDS, ["about line"]))
    # counted by hand: a test counts under every feature it needs; generated/ses needs ses
    assert page.row("compliance", "(all tests)") == [(2, 1, 1), (1, 0, 2)]
    assert page.row("compliance", "ses") == [(2, 1, 1), (1, 0, 2)]
    assert page.row("compliance", "ses:any") == [(1, 0, 1), (0, 0, 2)]
    assert page.row("compliance", "ses:next") == [(0, 1, 0), (1, 0, 0)]
    assert page.row("compliance", "ses:prev") == [(0, 0, 1), (0, 0, 1)]
    assert page.row("compliance", "ses:group-variables") == [None, None]
    assert page.row("compliance", "operator:kleene") == [None, None]
    assert page.row("backends", "alpha")[3:] == [(2, 1, 1), "0.0"]
    assert page.row("backends", "gamma") == ["peer (make peers)", "not installed: no .peers/g"]
    assert sorted(page.links) == ["backends/alpha.html", "backends/alpha.html",
                                  "backends/beta-x.html", "backends/beta-x.html",
                                  "badges/alpha.svg", "badges/beta-x.svg"]
    assert "about line" in page.texts


def test_the_index_has_a_row_for_every_feature_of_every_language() -> None:
    page = Page(index_page(_hand(), NEEDS, []))
    rows = {key for key, _ in page.tables["compliance"] if key}
    assert rows == {str(f) for f in all_features()} | {"(all tests)"}


def test_the_cells_are_coloured_by_their_verdicts() -> None:
    text = index_page(_hand(), NEEDS, [])
    cell = "<td class='{}' data-pass='{}' data-fail='{}' data-skip='{}'"
    assert cell.format("fail n", 2, 1, 1) in text      # alpha, ses: one failed
    assert cell.format("pass n", 1, 0, 0) in text      # beta, ses:next
    assert cell.format("skip n", 0, 0, 2) in text      # beta, ses:any: only skipped
    assert "<td class='none'" in text


def test_a_backend_page_lists_its_failures_with_their_reproductions() -> None:
    alpha = _hand()[0]
    page = Page(backend_page(alpha, NEEDS))
    text = "".join(page.texts)
    assert REPRO in text                                  # escaped in the page, whole
    assert "<{a}" not in backend_page(alpha, NEEDS)          # ... as text, never as markup
    assert "2 passed, 1 failed, 1 skipped (4 tests" in text
    assert "kleene conform --backend alpha" in text
    assert [cells for _, cells in page.tables["skips"]] == [["1", "needs ses:prev"]]
    assert [r[1] for _, r in page.tables["tests"][1:]] == ["f/c/t1", "f/c/t2",
                                                           "generated/ses"]
    assert sorted(page.links) == ["../badges/alpha.svg", "../index.html"]


def test_a_backend_without_failures_says_none() -> None:
    beta = _hand()[1]
    text = backend_page(beta, NEEDS)
    assert "id='no-failures'" in text
    # quoted as a shell reads it
    assert "kleene conform --backend 'cmd:beta x'" in "".join(Page(text).texts)


@pytest.mark.parametrize(("index", "right", "colour"), [
    (0, "2/3", "#e05d44"),           # alpha: 2 passed of 3 run, one failed: red
    (1, "1/1", "#4c1"),              # beta: every test run passed: green
    (2, "not run", "#9f9f9f")])
def test_the_badges_say_passed_of_run(index: int, right: str, colour: str) -> None:
    svg = ET.fromstring(badge(_hand()[index].report))
    ns = "{http://www.w3.org/2000/svg}"
    assert [t.text for t in svg.iter(f"{ns}text")] == ["kleene conform", right]
    assert [r.get("fill") for r in svg.iter(f"{ns}rect")][1] == colour


def test_a_badge_of_a_backend_that_ran_nothing_is_grey() -> None:
    report = Report("z", "1", "hand", (), [Result("f/c/t1", "f.json", "ses", SKIP, "needs")])
    svg = ET.fromstring(badge(report))
    assert "0/0" in ET.tostring(svg, encoding="unicode")
    assert "#9f9f9f" in ET.tostring(svg, encoding="unicode")


def test_the_needs_of_a_test_are_its_query_s_features() -> None:
    found = needs(load_case_files())
    # ses-q1's Q1 (a group variable p+, no prev) under next, inclusive reading only
    q1_next = next(k for k in found if k.startswith("ses-q1/q1-on-fig-1/next-"))
    assert found[q1_next] == {"ses", "ses:next", "ses:group-variables"}


def test_pages_get_file_names_of_their_own() -> None:
    assert Column("windows+ses", "", "").slug == "windows-ses"
    assert Column("cmd:node /x/my backend.js", "", "").slug == "cmd-node-x-my-backend.js"
    with pytest.raises(KleeneError, match="share the page cmd-a-b.html"):
        chosen(["cmd:a b", "cmd:a+b"])


def test_the_catalogue_holds_every_engine_the_examples_and_the_peers(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(site, "PEERS", tmp_path)
    (tmp_path / "pmr" / "bin").mkdir(parents=True)
    (tmp_path / "pmr" / "bin" / "python").write_text("")
    labels = {c.label: c for c in catalogue()}
    assert set(engine_names()) | {"minimal-python", "minimal-javascript", "mr-example",
                                  "flink", "pmr"} <= set(labels)
    assert labels["flink"].absent.startswith("not installed: ")
    assert labels["pmr"].absent == "" and labels["ses-automaton"].absent == ""
    monkeypatch.setattr(shutil, "which", lambda name: None)
    node = next(c for c in catalogue() if c.label == "minimal-javascript")
    assert node.absent.startswith("not installed: Node.js")


def test_a_backend_that_cannot_start_is_said_on_the_site(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    site_dir = tmp_path / "site"
    code, out, _ = run_cli(capsys, "conform", "--report-site", str(site_dir), "--case",
                           "ses-p1", "--site-backend", "cmd:/no/such/backend",
                           "--site-backend", "ses-automaton", "-q")
    assert code == 0
    assert "cmd:/no/such/backend: could not start: " in out
    page = Page((site_dir / "index.html").read_text(encoding="utf-8"))
    kind, why = page.row("backends", "cmd:/no/such/backend")
    assert kind == "backend" and str(why).startswith("could not start: ")
    assert len(page.counts("(all tests)")) == 1
    version = (ROOT / "conformance" / "cases" / "VERSION").read_text().strip()
    assert f"(case corpus {version}, conformance/CHANGELOG.md)" in \
        (site_dir / "index.html").read_text(encoding="utf-8")     # the corpus it measured


# ---------------------------------------------------------------- the folder it writes


def test_the_site_replaces_a_previous_site_whole(tmp_path: Path) -> None:
    site = tmp_path / "site"
    write_site(site, _hand(), NEEDS, [])
    assert (site / "backends" / "beta-x.html").is_file()
    write_site(site, _hand()[:1], NEEDS, [])
    assert sorted(p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file()) == [
        "backends/alpha.html", "badges/alpha.svg", "index.html"]


@pytest.mark.parametrize("where", ["file", "foreign", "cases", "in-cases"])
def test_the_site_never_replaces_what_it_must_not(tmp_path: Path, where: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    cases = tmp_path / "cases"
    shutil.copytree(ROOT / "conformance" / "cases", cases,
                    ignore=shutil.ignore_patterns("optional"))
    target = {"file": tmp_path / "notes.txt", "foreign": tmp_path / "mine",
              "cases": cases, "in-cases": cases / "site"}[where]
    if where == "file":
        target.write_text("keep me")
    if where == "foreign":
        target.mkdir()
        (target / "notes.txt").write_text("keep me")
    code, out, err = run_cli(capsys, "conform", "--report-site", str(target), "--cases",
                             str(cases), "--site-backend", "ses-automaton")
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "--report-site" in err, err
    assert "Traceback" not in err
    if where in ("file", "foreign"):
        assert "keep me" in (target if where == "file" else target / "notes.txt").read_text()
    assert not (cases / "site").exists()


@pytest.mark.parametrize("argv", [
    ["--site-backend", "ses-automaton"],                       # without --report-site
    ["--report-site", "S", "--backend", "ses-automaton"],
    ["--report-site", "S", "--junit", "r.xml"],
    ["--report-site", "S", "--export", "E"],
    ["--report-site", "S", "--case", "no-such-test-anywhere"],
    ["--report-site", "S", "--generated", "-1"],
    ["--report-site", "S", "--site-backend", "no-such-engine"],
    ["--report-site", ""]])
def test_options_that_do_not_fit_a_site_are_one_line(argv: list[str], tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    argv = [str(tmp_path / a) if a in ("S", "E", "r.xml") else a for a in argv]
    code, out, err = run_cli(capsys, "conform", *argv)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "S").exists()


# ---------------------------------------------------------------- the real command, in Chromium

needs_browser = pytest.mark.skipif(
    BROWSER is None or NODE is None,
    reason="Chromium or Node.js is not installed: scripts/bootstrap-system.sh installs them "
           "from Debian's packages when run as root (apt-get install chromium nodejs)")


def dump_dom(page: Path, cwd: Path) -> str:
    """The DOM Chromium builds from ``page`` (headless, as tests/test_browser.py does)."""
    assert BROWSER is not None
    done = subprocess.run([BROWSER, "--headless", "--no-sandbox", "--disable-gpu",
                           "--disable-dev-shm-usage", f"--user-data-dir={cwd / 'profile'}",
                           "--dump-dom", page.as_uri()],
                          capture_output=True, text=True, timeout=180, cwd=cwd)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def summary_counts(capsys: pytest.CaptureFixture[str], backend: str, select: str
                   ) -> tuple[int, int, int]:
    """(passed, failed, skipped) that ``kleene conform --backend BACKEND`` prints."""
    _, out, _ = run_cli(capsys, "conform", "--backend", backend, "--case", select, "-q")
    found = re.search(r"^(\d+) passed, (\d+) failed, (\d+) skipped", out, re.M)
    assert found, out
    p, f, s = map(int, found.groups())
    return p, f, s


@needs_browser
@pytest.mark.slow
def test_the_site_opens_in_chromium_with_the_counts_and_links_that_work(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    select = "ses-match-windows"
    backends = ["ses-automaton", "nfa-tree", "minimal-python", "minimal-javascript", BROKEN]
    site = tmp_path / "site"
    peer = next(c for c in catalogue() if c.label == "flink")
    argv = ["conform", "--report-site", str(site), "--case", select]
    for b in [*backends, "flink"] if peer.absent else backends:   # a peer not installed
        argv += ["--site-backend", b]
    code, out, err = run_cli(capsys, *argv)
    assert code == 0, err
    assert f"report site: {site / 'index.html'}" in out
    dom = Page(dump_dom(site / "index.html", tmp_path))
    by_label = dict(zip(backends, range(len(backends)), strict=True))
    totals = dom.counts("(all tests)")
    assert len(totals) == len(backends)
    python = f"cmd:{shlex.quote(sys.executable)} {ROOT / 'conformance/examples/minimal_backend.py'}"
    alone = {"ses-automaton": "ses-automaton", "nfa-tree": "nfa-tree", BROKEN: BROKEN,
             "minimal-python": python,
             "minimal-javascript": f"cmd:{NODE} {ROOT / 'conformance/examples/minimal_backend.js'}"}
    for label, spec in alone.items():
        assert totals[by_label[label]] == summary_counts(capsys, spec, select), label
    # every selected test is an SES test: the language row is the total, operator rows empty
    assert dom.counts("ses") == totals
    assert dom.row("compliance", "operator") == [None] * len(backends)
    assert totals[by_label["nfa-tree"]][:2] == (0, 0)                # it claims no SES
    assert all(totals[by_label[f"minimal-{x}"]][0] > 0 for x in ("python", "javascript"))
    passed, failed, _ = totals[by_label[BROKEN]]
    assert failed > 0 and passed < totals[by_label["ses-automaton"]][0]
    if peer.absent:
        assert dom.row("backends", "flink") == ["peer (make peers)", peer.absent]
    # every link of every page names a file of the site, and each backend page loads
    pages = [site / "index.html"]
    for link in dom.links:
        assert (site / unquote(link)).is_file(), link
        if link.endswith(".html"):
            pages.append(site / unquote(link))
    assert set(pages) == {site / "index.html"} | {
        site / "backends" / f"{Column(b, '', '').slug}.html" for b in backends}
    for label in backends:
        page = site / "backends" / f"{Column(label, '', '').slug}.html"
        sub = Page(dump_dom(page, tmp_path))
        assert sub.links and all((page.parent / unquote(x)).resolve().is_file()
                                 for x in sub.links), page
        text = "".join(sub.texts)
        p, f, s = totals[by_label[label]]
        assert f"{p} passed, {f} failed, {s} skipped" in text, label
        assert text.count("rerun: kleene conform --backend") == f     # one per failure
        assert len(sub.tables["tests"]) == 1 + p + f                   # a row per test run


def _section_commands() -> list[str]:
    guide = (ROOT / "docs" / "backends.md").read_text(encoding="utf-8")
    section = guide.split("### A compliance report")[1].split("\n## ")[0].split("\n### ")[0]
    return [line[2:] for line in section.splitlines() if line.startswith("$ kleene ")]


def test_the_guide_shows_the_site_command() -> None:
    assert [c.split()[2] for c in _section_commands()] == ["--report-site"] * 2


@pytest.mark.slow
@pytest.mark.parametrize("command", _section_commands())
def test_every_command_of_the_site_section_works_as_written(command: str,
                                                            tmp_path: Path) -> None:
    argv = [str(KLEENE), *shlex.split(command)[1:]]
    # the peers, where `make peers` installed them, would add minutes: said "not installed"
    env = {**os.environ, "KLEENE_PEERS": str(tmp_path / "no-peers")}
    done = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=900,
                          env=env)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    assert "report site: " in done.stdout
