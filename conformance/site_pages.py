"""The pages of the compliance report site (``kleene conform --report-site DIR``).

Pure functions from the runs (one :class:`Column` per backend: its
:class:`~kleene.conformance.runner.Report`, or why it has none) and the features each
test needs to the site's files, as text:

- :func:`index_page`: ``index.html``, one table of features (rows, grouped by language)
  × backends (columns) whose cells count the tests needing that feature which passed,
  failed and were skipped, colour-coded, each backend linking to its page and showing
  its badge; the backends that did not run, each with the reason;
- :func:`backend_page`: ``backends/NAME.html``, one backend: its header, counts, every
  failure with its copy-paste reproduction (rerun line and ``run`` message included),
  the skips by reason and the verdict of every test it ran;
- :func:`badge`: ``badges/NAME.svg``, a hand-written SVG badge ``kleene conform |
  passed/run`` (green when nothing failed, red otherwise, grey when nothing ran).

Nothing is fetched: the style is inline, the links are relative, the only images are
the badges beside the pages (docs/backends.md, "A compliance report").
"""

from __future__ import annotations

import html
import re
import shlex
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from kleene.conformance.runner import FAIL, PASS, SKIP, Report, Result
from kleene.reference.languages import LANGUAGES

#: The ``generator`` meta tag of ``index.html``: a folder whose index carries it is a
#: previous site, which a new one may replace.
GENERATOR = "kleene conform --report-site"

_STYLE = """body{font-family:system-ui,sans-serif;margin:2em}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .45em}
th{background:#f3f3f3;text-align:left}td.n{text-align:right}
td.pass{background:#d9f2dd}td.fail{background:#f8d0d4}td.skip{background:#eee;color:#666}
td.none{color:#bbb;text-align:center}tr.lang th{background:#dde6f3}
.verdict-pass{color:#176f2c}.verdict-fail{color:#b00020;font-weight:bold}
.verdict-skip{color:#777}pre{background:#f6f6f6;padding:.6em;overflow-x:auto}
.head th{vertical-align:bottom}.head a{writing-mode:vertical-rl;transform:rotate(180deg)}"""


@dataclass(frozen=True)
class Column:
    """One backend on the site: ``report`` when it ran, else ``absent`` says why not."""

    label: str
    kind: str
    spec: str
    report: Report | None = None
    absent: str = ""

    @property
    def slug(self) -> str:
        """The backend's file name on the site (``windows+ses`` → ``windows-ses``)."""
        return re.sub(r"[^A-Za-z0-9._]+", "-", self.label).strip("-.") or "backend"


@dataclass(frozen=True)
class Tally:
    """How many tests passed, failed and were skipped."""

    passed: int = 0
    failed: int = 0
    skipped: int = 0

    @property
    def run(self) -> int:
        return self.passed + self.failed

    @property
    def css(self) -> str:
        """The cell's colour: ``fail`` if any failed, ``pass`` if some passed, ``skip`` if
        every test was skipped, ``none`` if no test needs it."""
        if self.failed:
            return FAIL
        if self.passed:
            return PASS
        return SKIP if self.skipped else "none"


def tally(results: Sequence[Result]) -> Tally:
    """The counts of ``results``."""
    counts = Counter(r.status for r in results)
    return Tally(counts[PASS], counts[FAIL], counts[SKIP])


def needs_of(result: Result, needs: Mapping[str, frozenset[str]]) -> frozenset[str]:
    """The features ``result``'s test needs (a generated batch: its language)."""
    return needs.get(result.id, frozenset({result.language}))


def feature_rows(needs: Mapping[str, frozenset[str]]) -> list[tuple[str, list[str]]]:
    """Each language with its features in its vocabulary's order (the language first),
    then any other feature a test needs."""
    rows = [(name, [name, *(f"{name}:{label}" for label in lang.feature_labels())])
            for name, lang in LANGUAGES.items()]
    known = {f for _, features in rows for f in features}
    extra = sorted({f for fs in needs.values() for f in fs} - known)
    return rows + ([("other", extra)] if extra else [])


def cells(report: Report, needs: Mapping[str, frozenset[str]]) -> dict[str, Tally]:
    """Feature → the tally of ``report``'s tests that need it."""
    by_feature: dict[str, list[Result]] = {}
    for r in report.results:
        for f in needs_of(r, needs):
            by_feature.setdefault(f, []).append(r)
    return {f: tally(rs) for f, rs in by_feature.items()}


def badge(report: Report | None) -> str:
    """An SVG badge ``kleene conform | passed/run`` (shields.io's flat style, by hand)."""
    left = "kleene conform"
    if report is None:
        right, colour = "not run", "#9f9f9f"
    else:
        t = tally(report.results)
        right = f"{t.passed}/{t.run}"
        colour = "#9f9f9f" if not t.run else "#e05d44" if t.failed else "#4c1"
    lw, rw = 6 * len(left) + 12, 7 * len(right) + 12
    width = lw + rw
    e = html.escape
    return f"""<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="20" \
role="img" aria-label="{e(left)}: {e(right)}">
<title>{e(left)}: {e(right)}</title>
<rect width="{lw}" height="20" fill="#555"/>
<rect x="{lw}" width="{rw}" height="20" fill="{colour}"/>
<g fill="#fff" text-anchor="middle" font-family="Verdana,DejaVu Sans,sans-serif" \
font-size="11">
<text x="{lw / 2:g}" y="14">{e(left)}</text>
<text x="{lw + rw / 2:g}" y="14">{e(right)}</text>
</g>
</svg>
"""


def _page(title: str, body: str, *, generator: bool = False) -> str:
    meta = f'<meta name="generator" content="{GENERATOR}">\n' if generator else ""
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
{meta}<title>{html.escape(title)}</title><style>{_STYLE}</style></head>
<body>
{body}
</body></html>
"""


def _cell(t: Tally | None) -> str:
    if t is None:
        return "<td class='none' title='no test needs it'>·</td>"
    what = f"{t.passed} passed, {t.failed} failed, {t.skipped} skipped"
    return (f"<td class='{t.css} n' data-pass='{t.passed}' data-fail='{t.failed}' "
            f"data-skip='{t.skipped}' title='{what}'>{t.passed}/{t.failed}/{t.skipped}</td>")


def index_page(columns: Sequence[Column], needs: Mapping[str, frozenset[str]],
               about: Sequence[str]) -> str:
    """``index.html``: the backends with their badges, then the features × backends table
    (see the module docstring); ``about`` lines (the Kleene version, the command, the
    time) head the page."""
    e = html.escape
    ran = [(c, c.report) for c in columns if c.report is not None]
    summary = "\n".join(
        f"<tr data-backend='{e(c.label)}'><th><a href='backends/{e(c.slug)}.html'>"
        f"{e(c.label)}</a></th><td>{e(c.kind)}</td><td>{e(r.version)}</td>"
        f"<td><img src='badges/{e(c.slug)}.svg' alt='{e(c.label)}: {t.passed}/{t.run}'></td>"
        f"{_cell(t)}<td class='n'>{r.seconds:.1f}</td></tr>"
        for c, r in ran for t in [tally(r.results)])
    summary += "".join(f"<tr data-backend='{e(c.label)}' class='absent'><th>{e(c.label)}</th>"
                       f"<td>{e(c.kind)}</td><td colspan='4'>{e(c.absent)}</td></tr>"
                       for c in columns if c.report is None)
    tallies = [cells(r, needs) for _, r in ran]
    head = "".join(f"<th><a href='backends/{e(c.slug)}.html'>{e(c.label)}</a></th>"
                   for c, _ in ran)
    rows = [f"<tr class='head'><th>feature</th>{head}</tr>",
            "<tr data-feature='(all tests)'><th>all tests</th>"
            + "".join(_cell(tally(r.results)) for _, r in ran) + "</tr>"]
    for language, features in feature_rows(needs):
        rows.append(f"<tr class='lang'><th colspan='{len(ran) + 1}'>{e(language)}</th></tr>")
        for f in features:
            rows.append(f"<tr data-feature='{e(f)}'><th>{e(f)}</th>"
                        + "".join(_cell(t.get(f)) for t in tallies) + "</tr>")
    body = f"""<h1>Kleene conformance: compliance report</h1>
<p>{'<br>'.join(map(e, about))}</p>
<h2>Backends</h2>
<table id='backends'><tr><th>backend</th><th>kind</th><th>version</th><th>badge</th>
<th>passed/failed/skipped</th><th>seconds</th></tr>
{summary}
</table>
<h2>Features</h2>
<p>Each cell counts the tests that need the row's feature: passed/failed/skipped
(green: none failed; red: some failed; grey: every one skipped, the backend does not
claim what they need; ·: no test needs it). A backend's page lists its failures with
copy-paste reproductions.</p>
<table id='compliance'>
{chr(10).join(rows)}
</table>
"""
    return _page("Kleene conformance: compliance report", body, generator=True)


def backend_page(column: Column, needs: Mapping[str, frozenset[str]]) -> str:
    """``backends/NAME.html``: one backend's run (see the module docstring)."""
    e = html.escape
    report = column.report
    assert report is not None, "a backend that did not run has no page"
    t = tally(report.results)
    failures = "\n".join(
        f"<section class='failure' id='{e(r.id)}'><h3>{e(r.id)}</h3><p>{e(r.reason)}</p>"
        f"<pre>{e(r.reproduction)}</pre></section>"
        for r in report.results if r.status == FAIL)
    skips = "".join(f"<tr><td class='n'>{n}</td><td>{e(why)}</td></tr>"
                    for why, n in report.skips_by_reason())
    every = "\n".join(
        f"<tr class='verdict-{r.status}'><td>{e(r.status)}</td><td>{e(r.id)}</td>"
        f"<td>{e(', '.join(sorted(needs_of(r, needs))))}</td><td>{e(r.reason)}</td></tr>"
        for r in report.results if r.status != SKIP)
    body = f"""<p><a href='../index.html'>← the compliance report</a></p>
<h1>{e(column.label)} {e(report.version)}</h1>
<p><img src='../badges/{e(column.slug)}.svg' alt='{e(column.label)} badge'></p>
<p>{e(column.kind)}: {e(report.origin)}<br>
capabilities: {e(', '.join(report.capabilities) or '(none)')}<br>
the whole run: <code>kleene conform --backend {e(shlex.quote(column.spec))}</code></p>
<p id='counts'>{t.passed} passed, {t.failed} failed, {t.skipped} skipped \
({len(report.results)} tests, {report.seconds:.1f} s)</p>
<h2>Failures</h2>
{failures or "<p id='no-failures'>none</p>"}
<h2>Skipped, by reason</h2>
{f"<table id='skips'>{skips}</table>" if skips else '<p>none</p>'}
<h2>Every test run</h2>
<table id='tests'><tr><th>verdict</th><th>test</th><th>needs</th><th>reason</th></tr>
{every}
</table>
"""
    return _page(f"kleene conform: {column.label}", body)
