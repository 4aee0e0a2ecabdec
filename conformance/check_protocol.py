"""``kleene conform --check-protocol``: does an external backend speak protocol 1?

It runs one short session (hello, a few ``run`` requests of the languages
the backend claims, table requests for ``match_recognize``, bye), prints every
message sent and received with its verdict against its schema
(``conformance/protocol/*.schema.json``), and names each malformed message
exactly: which message, which JSON pointer, what is wrong. It checks the
protocol, not the answers (``kleene conform`` does that).
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any, TextIO

from kleene.conformance.backends import DEFAULT_TIMEOUT, find_backend
from kleene.conformance.cases import iter_tests, load_case_files
from kleene.conformance.command import DEFAULT_MAX_ANSWER
from kleene.conformance.outcome import TABLES, BackendError, table_backend
from kleene.conformance.runner import needed_features, request_of
from kleene.conformance.sql_tables import SqlTable
from kleene.conformance.wire import AnyRequest, Request, TableRequest
from kleene.engines.protocol import Feature


def _probes(capabilities: frozenset[Any]) -> list[Request]:
    """A few requests the backend claims, per language: the first test expecting
    matches, the first expecting none and the first expecting an error."""
    out: list[Request] = []
    taken: set[tuple[str, str]] = set()
    for case, test in iter_tests(load_case_files()):
        expected = test.expectations()[0]
        kind = ("error" if expected.error is not None
                else "matches" if expected.matches else "no matches")
        request = request_of(case, test, expected.reading)
        if (case.language, kind) not in taken and needed_features(request) <= capabilities:
            out.append(request)
            taken.add((case.language, kind))
    return out


#: The table requests sent a backend that claims ``match_recognize``: one answering rows,
#: one an error (an unknown column).
TABLE_PROBES = (
    "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY id MEASURES COUNT(*) AS n "
    "PATTERN (A+) DEFINE A AS v > 0)",
    "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY id MEASURES COUNT(*) AS n "
    "PATTERN (A+) DEFINE A AS nowhere > 0)",
)


def _table_probes(capabilities: frozenset[Any]) -> list[TableRequest]:
    if Feature(TABLES) not in capabilities:
        return []
    table = SqlTable((("id", "BIGINT"), ("v", "DECIMAL(4,2)")),
                     ((1, Decimal("1.50")), (2, Decimal("-0.25")), (2**53 + 1, Decimal("3.00"))))
    return [TableRequest(TABLES, sql, {"t": table}) for sql in TABLE_PROBES]


def check_protocol(spec: str, out: TextIO, *, timeout: float = DEFAULT_TIMEOUT,
                   max_answer: int = DEFAULT_MAX_ANSWER) -> int:
    """Run the session against backend ``spec`` (an external command); 0 when every
    message is well formed and the backend exits with status 0 after ``bye``."""
    malformed: list[str] = []
    counter = {"run-request": 0, "run-response": 0, "run-table-request": 0,
               "run-table-response": 0}

    def log(direction: str, kind: str, message: Any, problems: list[str]) -> None:
        who = "runner → backend" if direction == ">" else "backend → runner"
        label = kind
        if kind in counter:
            counter[kind] += 1
            label = f"{kind} #{counter[kind]}"
        shown = message if isinstance(message, str) else json.dumps(message, ensure_ascii=False)
        if len(shown) > 160:
            shown = shown[:157] + "..."
        mark = "✓" if not problems else "✗"
        print(f"{mark} {who}: {label}: {shown}", file=out)
        for p in problems:
            print(f"      {p}", file=out)
        if problems:
            malformed.append(f"{label} ({who}): " + "; ".join(problems))

    if not (spec.startswith("cmd:") or " " in spec.strip() or "/" in spec):
        print(f"--check-protocol checks an external command (cmd:COMMAND); {spec!r} is "
              "loaded in-process. Serve it with: --backend "
              f"\"cmd:python -m kleene.conformance.serve {spec}\"", file=out)
        return 2
    try:
        backend = find_backend(spec, timeout=timeout, log=log, max_answer=max_answer)
    except BackendError as err:
        print(f"✗ {err}", file=out)
        print("protocol check FAILED: the handshake did not complete", file=out)
        return 1
    print(f"  hello: {backend.name} {backend.version}, capabilities "
          f"{', '.join(sorted(map(str, backend.capabilities))) or '(none)'}", file=out)
    probes: list[AnyRequest] = [*_probes(backend.capabilities),
                                *_table_probes(backend.capabilities)]
    if not probes:
        print("  (no case of the case files fits the capabilities: no run request sent)",
              file=out)
    for request in probes:
        outcome = (table_backend(backend).run(request, timeout=timeout)
                   if isinstance(request, TableRequest) else backend.run(request, timeout=timeout))
        if outcome.broken is not None and outcome.verdict != "malformed":
            text = request.sql if isinstance(request, TableRequest) else request.pattern
            malformed.append(f"run request for {text[:60]!r}: {outcome.verdict}: "
                             f"{outcome.broken}")
            print(f"✗ {outcome.verdict}: {outcome.broken}", file=out)
    backend.close()
    status = getattr(backend, "returncode", 0)
    if not getattr(backend, "said_bye", True):
        print("· bye not sent: the backend was stopped after its last answer's verdict "
              "(above), so its exit after bye is not checked", file=out)
    elif status != 0:
        malformed.append(f"after bye the backend did not exit with status 0 (status {status})")
        print(f"✗ after bye: exit status {status} (expected 0 within 5 s)", file=out)
    else:
        print("✓ after bye: exit status 0", file=out)
    if malformed:
        print(f"protocol check FAILED: {len(malformed)} problem(s):", file=out)
        for m in malformed:
            print(f"  - {m}", file=out)
        return 1
    print("protocol check passed: every message is well formed (protocol 1)", file=out)
    return 0
