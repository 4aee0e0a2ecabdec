"""A ``MATCH_RECOGNIZE`` engine as a conformance backend, run in its own virtual environment.

:class:`MRBackend` is a :class:`kleene.conformance.outcome.Backend`: it
parses each request in Kleene's process, translates it with :mod:`.mr` (Kleene's
checked translation, :mod:`kleene.reference.operators.to_match_recognize`), and
sends the query text and the rows to a *worker* (a small script run by the
peer's own Python under ``.peers/<name>/``, speaking one JSON line each way:
``{"sql", "columns", "rows"}`` → ``{"rows": [...]}`` or ``{"error": "..."}``).
It claims the operator language under the two contiguity policies, with
repetitions and the strict window reading, and *declines* (a skip with the
reason) every case outside the fragment where the engine must give exactly the
reference's answer (``Translation.inexact``). ``probe=True`` runs every translatable
case instead; its answers are then compared with :mod:`.mr_oracle`.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import time
from pathlib import Path
from typing import Any

from kleene.conformance.adapters import mr
from kleene.conformance.outcome import Outcome
from kleene.conformance.wire import Request
from kleene.engines.protocol import Feature, Query
from kleene.reference.errors import KleeneError
from kleene.reference.operators.match_recognize_rows import (
    column_types,
    columns,
    matches_of,
    row_values,
)
from kleene.reference.operators.to_match_recognize import Translation, Untranslatable

#: Where ``make peers`` puts the peers' virtual environments.
PEERS = Path(os.environ.get("KLEENE_PEERS", Path(__file__).resolve().parents[2] / ".peers"))

#: What the adapters claim: the operator language under strict contiguity.
CLAIMS = Feature.of("operator", "contiguous", "partition-contiguous", "kleene", "repetition",
                    "iterated-subpattern", "window-strict")


class MRBackend:
    """An engine reached through a worker process; see the module docstring."""

    quote = ""
    #: How the engine spells SQL's ``<>`` (a workaround where the standard one fails).
    ne = "<>"

    def __init__(self, name: str, worker: str, *, skip: str = "TO NEXT ROW",
                 probe: bool = False, python: str | None = None) -> None:
        self.name = name if not probe else f"{name} (probe)"
        self.skip = skip
        self.probe = probe
        self.python = python or str(PEERS / name / "bin" / "python")
        self.worker = str(Path(__file__).with_name(worker))
        self.origin = f"{self.python} {self.worker}"
        self._proc: subprocess.Popen[str] | None = None
        self.version = self.ask({"cmd": "version"}).get("version", "unknown")

    @property
    def capabilities(self) -> frozenset[Feature]:
        return CLAIMS

    def _start(self) -> subprocess.Popen[str]:
        if self._proc is None or self._proc.poll() is not None:
            if not Path(self.python).exists():
                raise FileNotFoundError(f"{self.python} missing: run `make peers` first")
            self._proc = subprocess.Popen([self.python, self.worker], stdin=subprocess.PIPE,
                                          stdout=subprocess.PIPE, text=True, bufsize=1)
        return self._proc

    def ask(self, message: dict[str, Any], timeout: float | None = None) -> dict[str, Any]:
        """The worker's answer to ``message``; after ``timeout`` seconds the worker is
        stopped (the next message starts another) and :class:`TimeoutError` raised."""
        proc = self._start()
        assert proc.stdin and proc.stdout
        proc.stdin.write(json.dumps(message) + "\n")
        proc.stdin.flush()
        if timeout is not None and not select.select([proc.stdout], [], [], timeout)[0]:
            proc.kill()
            proc.wait()
            self._proc = None
            raise TimeoutError(f"the {self.name} worker gave no answer in {timeout:.0f} s")
        line = proc.stdout.readline()
        if not line:
            self._proc = None
            raise RuntimeError(f"the {self.name} worker exited with status {proc.wait()}")
        return json.loads(line)

    def plan(self, request: Request) -> Translation:
        """The translated query (:class:`Untranslatable` outside the fragment)."""
        query = Query.parse(request.pattern, language=request.language, policy=request.policy,
                            reading=request.window, time_unit=request.time_unit)
        return mr.plan(query, request.events, skip=self.skip, ne=self.ne)

    def run(self, request: Request, *, timeout: float | None = None) -> Outcome:
        start = time.perf_counter()
        try:
            p = self.plan(request)
        except Untranslatable as why:
            return Outcome(declined=f"not translatable to MATCH_RECOGNIZE: {why}")
        except KleeneError as err:
            return Outcome(error=(err.code, str(err)))
        if limit := self.limit(p):
            return Outcome(declined=f"{self.name} documents it cannot: {limit}")
        if not self.probe and (inexact := p.inexact()):
            return Outcome(declined=f"no Kleene policy is MATCH_RECOGNIZE's here: {inexact}")
        types = column_types(request.events)
        rows = [row_values(mr.NAMING, types, r, k) for k, r in enumerate(request.events)]
        try:
            answer = self.ask({"cmd": "run", "sql": p.sql(quote=self.quote),
                               "columns": columns(mr.NAMING, request.events), "rows": rows})
        except (RuntimeError, OSError, ValueError) as err:
            return Outcome(broken=str(err), verdict="crashed",
                           seconds=time.perf_counter() - start)
        if "error" in answer:
            return Outcome(broken=f"the engine failed: {answer['error']}", verdict="crashed",
                           seconds=time.perf_counter() - start)
        found = matches_of(p, request.events, answer["rows"])
        return Outcome(matches=tuple(found), seconds=time.perf_counter() - start)

    def raw(self, sql: str, columns: list[tuple[str, str]], rows: list[dict[str, Any]]
            ) -> dict[str, Any]:
        """The engine's answer to a query text of our own (the direct checks)."""
        return self.ask({"cmd": "run", "sql": sql, "columns": columns, "rows": rows})

    def limit(self, p: Translation) -> str | None:
        """A documented limitation of the engine that rules ``p`` out (``None``: none)."""
        return None

    def close(self) -> None:
        """Stop the worker."""
        if self._proc is not None and self._proc.poll() is None:
            assert self._proc.stdin
            self._proc.stdin.close()
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
        self._proc = None
