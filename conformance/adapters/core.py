"""CORE (github:CORE-cer/CORE, VLDB 2022) as a checked peer: a CEQL query over Kleene's
events through ``pycer`` (CORE's Python bindings, a CPython 3.13 wheel) in ``.peers/core``.

:func:`core_matches` declares the stream CORE needs (one event type per ``type`` of the
events, each with every attribute the events have, typed by their values, and ``ts``),
sends the events with their Kleene positions as a first attribute ``kleene_pos``, and
reads back the positions of each complex event CORE prints. :func:`compare` sets them
beside Kleene's reading of the same query (docs/ceql.md) and classifies a disagreement
(:data:`CLASSES`): where CORE's time window is strict, where CORE evaluates a
selection strategy as ``ALL``, and where its ``LIMIT`` keeps other complex events of
one event than Kleene's. Each query runs in a fresh worker process
(:mod:`.core_worker`) in a scratch folder: CORE writes its ``logs/`` into the working
directory, and its offline server is built for one run. The offline server listens on
every interface (``tcp://*``), so where the system allows it the worker runs in a network
namespace of its own with loopback only (:func:`isolated`).
"""

from __future__ import annotations

import fcntl
import functools
import json
import re
import shutil
import subprocess
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kleene.conformance.adapters.base import PEERS
from kleene.engines.fastest import find_matches
from kleene.reference.ceql.parser import parse_ceql
from kleene.reference.errors import Unsupported
from kleene.reference.events import Stream
from kleene.reference.query import Query

#: The Python of ``.peers/core`` (``scripts/peers.sh`` makes it; pycer needs 3.13).
PYTHON = PEERS / "core" / "bin" / "python"
WORKER = Path(__file__).with_name("core_worker.py")

Positions = frozenset[tuple[int, ...]]

#: A disagreement's class, by what explains it.
CLASSES = {
    "agree": "the same complex events",
    "strict time window": "CORE keeps a time window's complex events spanning less than n "
                          "(Kleene's strict reading), where CEL's WITHIN keeps those up to n",
    "strategy read as ALL": "CORE parses the selection strategy and outputs every complex "
                            "event, as ALL (Kleene computes CEL's strategy)",
    "limit's choice": "as many complex events at each event as Kleene's LIMIT keeps, "
                      "others of them (CORE's order of enumeration, which CEL leaves open)",
    "differ": "not explained",
}

#: Held while a worker runs: pycer's offline server binds a fixed address, so a second
#: one started meanwhile fails ("Address already in use").
LOCK = Path(tempfile.gettempdir()) / "kleene-core-server.lock"

_KINDS = {bool: "bool", int: "int", float: "double", str: "string"}
_STRATEGY = re.compile(r"(\bSELECT\s+)(ALL|LAST|MAX|NEXT|STRICT)(\s*\*)", re.IGNORECASE)
_LIMIT = re.compile(r"\bLIMIT\s+\d+", re.IGNORECASE)


def declaration(s: Stream, name: str = "S") -> tuple[str, list[str]]:
    """CORE's ``CREATE STREAM`` for ``s`` and the attributes each event sends, in order
    (``kleene_pos`` and ``ts`` first). :class:`Unsupported` when an event has no type, an
    attribute's values are of several kinds, or an event lacks one (CORE's events carry
    every attribute of their type)."""
    kinds: dict[str, str] = {"kleene_pos": "int", "ts": _KINDS[type(s[0].ts)] if len(s) else "int"}
    for e in s:
        if e.type is None:
            raise Unsupported("CORE's events have a type; this stream has none")
        for attr, value in e.attrs.items():
            kind = _KINDS.get(type(value))
            if kind is None or kinds.setdefault(attr, kind) != kind:
                raise Unsupported(f"attribute {attr} is not of one CORE kind")
    attrs = list(kinds)
    for e in s:
        missing = set(attrs[2:]) - set(e.attrs)
        if missing:
            raise Unsupported(f"event {e.position} lacks {', '.join(sorted(missing))}")
    fields = ", ".join(f"{a}:{kinds[a]}" for a in attrs)
    types = sorted({e.type for e in s if e.type is not None})
    events = ",\n".join(f"  EVENT {t} {{ {fields} }}" for t in types)
    return f"CREATE STREAM {name} {{\n{events}\n}}", attrs


@functools.cache
def _can_isolate() -> bool:
    """Whether ``unshare -rn`` (an unprivileged user and network namespace) and ``ip`` work
    here: the probe brings the new namespace's loopback up, as :func:`isolated` does."""
    if not (shutil.which("unshare") and shutil.which("ip")):
        return False
    try:
        probe = subprocess.run(["unshare", "-rn", "ip", "link", "set", "lo", "up"],
                               capture_output=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return False
    return probe.returncode == 0


def isolated(command: list[str]) -> list[str]:
    """``command`` run in a network namespace of its own with only loopback up, where the
    system allows unprivileged namespaces; else ``command`` as it is (pycer's server then
    listens on every interface of the machine while the query runs)."""
    if not _can_isolate():
        return command
    return ["unshare", "-rn", "sh", "-c", 'ip link set lo up && exec "$0" "$@"', *command]


def ask_core(text: str, s: Stream, *, timeout: float = 120.0, python: Path = PYTHON,
             count_only: bool = False) -> dict[str, Any]:
    """The CORE worker's answer for CEQL ``text`` on ``s`` (:mod:`.core_worker`);
    :class:`RuntimeError` with CORE's message when it fails, :class:`FileNotFoundError`
    when ``make peers`` has not installed it, :class:`subprocess.TimeoutExpired` after
    ``timeout`` seconds. One worker at a time on the machine (:data:`LOCK`; ``waited_s``
    in the answer: the seconds waited for it)."""
    if not python.exists():
        raise FileNotFoundError(f"{python} missing: run `make peers` first")
    decl, attrs = declaration(s)
    events = [[e.type, [e.position, e.ts, *(e.attrs[a] for a in attrs[2:])]] for e in s]
    asked = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="kleene-core-") as scratch, \
            LOCK.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)    # released when the file closes
        waited = time.perf_counter() - asked
        done = subprocess.run(isolated([str(python), str(WORKER)]), input=json.dumps(
            {"declaration": decl, "query": text, "events": events, "count_only": count_only}),
            capture_output=True, text=True, timeout=timeout, cwd=scratch)
    if not done.stdout.strip():
        raise RuntimeError(f"the CORE worker exited with status {done.returncode}: "
                           f"{done.stderr.strip()[-500:]}")
    answer: dict[str, Any] = json.loads(done.stdout)
    if "error" in answer:
        raise RuntimeError(f"CORE: {answer['error']}")
    return answer | {"waited_s": waited}


def core_matches(text: str, s: Stream, *, timeout: float = 120.0,
                 python: Path = PYTHON) -> tuple[Positions, str]:
    """The complex events CORE outputs for CEQL ``text`` on ``s`` (each as its sorted
    positions) and pycer's version (:func:`ask_core`)."""
    answer = ask_core(text, s, timeout=timeout, python=python)
    return frozenset(tuple(m) for m in answer["matches"]), answer["version"]


def kleene_matches(text: str, s: Stream, reading: str = "inclusive") -> Positions:
    """Kleene's reading of CEQL ``text`` on ``s`` (on the fastest backend that claims it:
    the reference for a strategy, consumption or limit, reference/ceql/selection.py)."""
    query = Query.of(parse_ceql(text), language="ceql", reading=reading)
    return frozenset(m.positions for m in find_matches(query, s).matches)


def per_event(ms: Positions) -> Counter[int]:
    """How many complex events end at each position."""
    return Counter(m[-1] for m in ms)


@dataclass(frozen=True)
class Verdict:
    """CORE's and Kleene's complex events for one query, and the class of the difference."""

    query: str
    core: Positions
    kleene: Positions
    klass: str

    @property
    def missing(self) -> Positions:
        """Kleene's complex events CORE does not output."""
        return self.kleene - self.core

    @property
    def extra(self) -> Positions:
        """CORE's complex events Kleene does not read."""
        return self.core - self.kleene


def compare(text: str, s: Stream, *, timeout: float = 120.0) -> Verdict:
    """CORE against Kleene on CEQL ``text``, classified by :data:`CLASSES`: a difference is
    explained when CORE gives what Kleene gives with the strategy read as ``ALL``, with
    the strict time window, or, under ``LIMIT``, as many complex events at each event."""
    core, _ = core_matches(text, s, timeout=timeout)
    kleene = kleene_matches(text, s)
    as_all = _STRATEGY.sub(r"\1ALL\3", text)
    if core == kleene:
        klass = "agree"
    elif core == kleene_matches(text, s, reading="strict"):
        klass = "strict time window"
    elif as_all != text and core in (kleene_matches(as_all, s),
                                     kleene_matches(as_all, s, reading="strict")):
        klass = "strategy read as ALL"
    elif _LIMIT.search(text) and per_event(core) == per_event(kleene):
        klass = "limit's choice"
    else:
        klass = "differ"
    return Verdict(text, core, kleene, klass)
