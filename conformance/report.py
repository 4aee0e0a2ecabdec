"""Reports of a conformance run: text for the terminal, JUnit XML, HTML.

:func:`header` names the backend, its version, where it came from and its
capabilities; :func:`summary` counts passes, failures, expected failures, unexpected
passes and skips, lists the skips by reason (never a silent pass) and names the case
corpus's version; :func:`slow_warning` lists the slowest tests past
:data:`SLOW_SECONDS`; :func:`write_junit` writes the
JUnit XML that CI systems read (a skip or an expected failure is
``<skipped message=reason>``, a failure or an unexpected pass ``<failure>`` with the
reproduction); :func:`write_html` a
self-contained page with the same facts. Both write through a temporary file renamed
into place (:func:`kleene.data.outputs.replacing`).
"""

from __future__ import annotations

import html
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

from kleene.conformance.runner import FAIL, PASS, SKIP, XFAIL, XPASS, Report, Result
from kleene.data.outputs import replacing

MARKS = {PASS: "ok  ", FAIL: "FAIL", SKIP: "skip", XFAIL: "xfail", XPASS: "XPASS"}

#: A test slower than this many seconds is named in the run's slow-test warning
#: (docs/backends.md, "Running the cases").
SLOW_SECONDS = 1.0

#: How many of the slowest tests the warning lists.
SLOWEST = 5


def header(report: Report) -> str:
    """Who is tested: name, version, origin, capabilities."""
    return (f"backend {report.backend} {report.version} ({report.origin})\n"
            f"capabilities: {', '.join(report.capabilities) or '(none)'}")


def line(result: Result) -> str:
    """One result as one line (``ok``/``FAIL``/``skip``, id, reason)."""
    why = f"  ({result.reason})" if result.reason else ""
    notes = f"  [{'; '.join(result.notes)}]" if result.notes else ""
    return f"{MARKS[result.status]} {result.id}{why}{notes}"


def summary(report: Report) -> str:
    """The counts, the skips by reason and the features they need, and the verdict."""
    xfail = report.count(XFAIL)
    listed = [f"{xfail} expected failure{'s' * (xfail != 1)}"] * bool(xfail) \
        + [f"{report.count(XPASS)} unexpectedly passed"] * bool(report.count(XPASS))
    lines = [f"{report.count(PASS)} passed, {report.count(FAIL)} failed, "
             + "".join(f"{part}, " for part in listed)
             + f"{report.count(SKIP)} skipped ({len(report.results)} tests, "
             f"{report.seconds:.1f} s)"]
    skips = report.skips_by_reason()
    if skips:
        lines.append("skipped, by reason:")
        lines += [f"  {n:>4}  {reason}" for reason, n in skips]
        features: Counter[str] = Counter()
        for r in report.results:
            if r.status == SKIP and r.reason.startswith("needs ") and not r.id.startswith(
                    "generated/"):
                features.update(r.reason.removeprefix("needs ").split(", "))
        if features:
            row = "skipped tests need:"
            for f, n in sorted(features.items()):
                item = f" {f} ({n})"
                if len(row) + len(item) > 96:
                    lines.append(row)
                    row = " "
                row += item
            lines.append(row)
    if report.corpus_version:
        lines.append(f"case corpus {report.corpus_version} (conformance/CHANGELOG.md)")
    lines.append("FAILED" if report.failed else "every applicable case passes")
    return "\n".join(lines)


def slow_warning(report: Report, *, seconds: float = SLOW_SECONDS,
                 most: int = SLOWEST) -> str:
    """A warning naming the slowest tests that took longer than ``seconds`` each ("" when
    none did): a correct backend may still be too slow for a suite run."""
    slow = sorted((r for r in report.results if r.seconds > seconds and
                   not r.id.startswith("generated/")),
                  key=lambda r: r.seconds, reverse=True)
    if not slow:
        return ""
    lines = [f"warning: {len(slow)} test{'s' * (len(slow) > 1)} took longer than "
             f"{seconds:g} s each; the slowest:"]
    lines += [f"  {r.seconds:7.2f} s  {r.id}" for r in slow[:most]]
    return "\n".join(lines)


def unexpected_passes(report: Report) -> list[Result]:
    """The listed expected failures that passed."""
    return [r for r in report.results if r.status == XPASS]


def text(report: Report) -> str:
    """The whole report as text: header, one line per result, reproductions, summary."""
    parts = [header(report), "", *map(line, report.results)]
    failures = [r for r in report.results if r.status == FAIL]
    if failures:
        parts += ["", "━━ failures (copy-paste reproductions)", ""]
        parts += [r.reproduction + "\n" for r in failures]
    parts += ["", summary(report)]
    return "\n".join(parts)


def write_junit(report: Report, path: Path) -> Path:
    """JUnit XML: one ``testsuite`` per case file, one ``testcase`` per test."""
    root = ET.Element("testsuites", name=f"kleene conform {report.backend}",
                      tests=str(len(report.results)),
                      failures=str(report.count(FAIL) + report.count(XPASS)),
                      skipped=str(report.count(SKIP) + report.count(XFAIL)),
                      time=f"{report.seconds:.3f}")
    suites: dict[str, ET.Element] = {}
    for r in report.results:
        suite = suites.get(r.file)
        if suite is None:
            suite = suites[r.file] = ET.SubElement(root, "testsuite", name=r.file)
            props = ET.SubElement(suite, "properties")
            for name, value in (("backend", report.backend), ("version", report.version),
                                ("origin", report.origin),
                                ("capabilities", ", ".join(report.capabilities)),
                                ("corpus_version", report.corpus_version)):
                ET.SubElement(props, "property", name=name, value=value)
        case = ET.SubElement(suite, "testcase", classname=r.file.removesuffix(".json"),
                             name=r.id, time=f"{r.seconds:.4f}")
        if r.status in (FAIL, XPASS):
            ET.SubElement(case, "failure", message=r.reason).text = r.reproduction
        elif r.status in (SKIP, XFAIL):   # an expected failure, as pytest's xfail
            ET.SubElement(case, "skipped", message=r.reason)
        if r.notes:
            ET.SubElement(case, "system-out").text = "\n".join(r.notes)
    for suite in suites.values():
        cases = suite.findall("testcase")
        suite.set("tests", str(len(cases)))
        suite.set("failures", str(sum(c.find("failure") is not None for c in cases)))
        suite.set("skipped", str(sum(c.find("skipped") is not None for c in cases)))
    with replacing(str(path), option="--junit") as temporary:
        ET.ElementTree(root).write(temporary, encoding="utf-8", xml_declaration=True)
    return path


_STYLE = """body{font-family:system-ui,sans-serif;margin:2em;max-width:70em}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left}
.pass{color:#176f2c}.fail,.xpass{color:#b00020;font-weight:bold}.skip,.xfail{color:#777}
pre{background:#f6f6f6;padding:.6em;overflow-x:auto}"""


def write_html(report: Report, path: Path) -> Path:
    """A self-contained HTML page: header, summary, failures, every result."""
    e = html.escape
    rows = "\n".join(
        f"<tr class='{r.status}'><td>{e(r.status)}</td><td>{e(r.id)}</td>"
        f"<td>{e(r.reason)}</td><td>{e('; '.join(r.notes))}</td></tr>"
        for r in report.results)
    failures = "\n".join(f"<pre>{e(r.reproduction)}</pre>"
                         for r in report.results if r.status == FAIL)
    page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>kleene conform: {e(report.backend)}</title><style>{_STYLE}</style></head>
<body>
<h1>kleene conform: {e(report.backend)} {e(report.version)}</h1>
<p>{e(report.origin)}<br>capabilities: {e(', '.join(report.capabilities) or '(none)')}</p>
<pre>{e(summary(report))}</pre>
<h2>Failures</h2>
{failures or '<p>none</p>'}
<h2>Every test</h2>
<table><tr><th>verdict</th><th>test</th><th>reason</th><th>notes</th></tr>
{rows}
</table>
</body></html>
"""
    with replacing(str(path), option="--report") as temporary, \
            open(temporary, "w", encoding="utf-8") as out:
        out.write(page)
    return path
