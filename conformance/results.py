"""A conformance run as JSON (``kleene conform --json FILE``, ``--json -``).

One object (schema ``conformance/results.schema.json``, documented in docs/backends.md,
"JSON results"): the format's version, the corpus version, Kleene's version, the
backend (as named and as it describes itself), the counts, and one record per test
(:func:`test_records`): its id, file, language, the features it needs, its verdict,
the reason, the command that reruns it, the reproduction of a failure, its seconds and,
for a generated batch, the Hypothesis seed. The compliance report and any tool read
the same records (:func:`results_document`).
"""

from __future__ import annotations

import json
from typing import Any

from kleene import __version__
from kleene.conformance.runner import FAIL, PASS, SKIP, XFAIL, XPASS, Report, Result
from kleene.data.outputs import replacing

#: The version of the JSON results' format (a field removed or its meaning changed: +1).
FORMAT_VERSION = 1

def test_record(result: Result) -> dict[str, Any]:
    """One test as a JSON object."""
    return {"id": result.id, "file": result.file, "language": result.language,
            "features": list(result.features), "verdict": result.status,
            "reason": result.reason, "rerun": result.rerun,
            "reproduction": result.reproduction, "seconds": round(result.seconds, 6),
            "seed": result.seed, "notes": list(result.notes)}


def test_records(report: Report) -> list[dict[str, Any]]:
    """Every test of ``report`` as a JSON object, in run order (:func:`test_record`)."""
    return [test_record(r) for r in report.results]


def results_document(report: Report, *, spec: str = "") -> dict[str, Any]:
    """The whole run as one JSON object; ``spec`` is the backend as ``--backend`` named
    it."""
    return {
        "format": "kleene-conform-results", "format_version": FORMAT_VERSION,
        "corpus_version": report.corpus_version, "kleene_version": __version__,
        "backend": {"spec": spec, "name": report.backend, "version": report.version,
                    "origin": report.origin, "capabilities": list(report.capabilities)},
        "summary": {"tests": len(report.results), "passed": report.count(PASS),
                    "failed": report.count(FAIL), "skipped": report.count(SKIP),
                    "expected_failures": report.count(XFAIL),
                    "unexpectedly_passed": report.count(XPASS),
                    "seconds": round(report.seconds, 3), "ok": not report.failed},
        "tests": test_records(report),
    }


def json_text(document: dict[str, Any]) -> str:
    """``document`` as the text ``--json`` writes (UTF-8, indented, a final newline)."""
    return json.dumps(document, ensure_ascii=False, indent=2) + "\n"


def write_json(document: dict[str, Any], target: str) -> str:
    """Write ``document`` to the file ``target`` through the writers' guard
    (:func:`kleene.data.outputs.replacing`: a temporary file renamed into place)."""
    with replacing(target, option="--json") as temporary, \
            open(temporary, "w", encoding="utf-8") as out:
        out.write(json_text(document))
    return target
