"""Backends: whatever computes match sets for the conformance runner, found in one place.

:func:`find_backend` takes one specification and fails loudly
(:class:`UnknownBackend` lists the choices):

- a registered engine name (``ses-automaton``, ``windows+ses``; see
  :func:`kleene.engines.registry.engine_names`);
- an entry point of the group ``kleene.engines`` (a third-party package
  registers its engine factory on install);
- a Python ``module:factory`` (the factory returns an :class:`Engine` or a
  :class:`Backend`);
- ``cmd:COMMAND ARGS...`` or the path of an executable: an external command
  speaking the JSON-lines protocol of :mod:`kleene.conformance.wire`;
- nothing: the environment variable ``KLEENE_BACKEND`` holds one of the above.

Every backend answers :meth:`Backend.run` with an :class:`Outcome`: the
matches it reported (duplicates kept), an error with a stable code, or a
verdict on the backend itself (crashed, timed out, printed non-JSON, sent a
malformed message). Nothing a backend does raises out of ``run``.
"""

from __future__ import annotations

import importlib
import os
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from importlib.machinery import PathFinder
from importlib.metadata import entry_points
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kleene import __version__
from kleene.conformance.command import DEFAULT_MAX_ANSWER, CommandBackend
from kleene.conformance.outcome import Backend, BackendError, Outcome, UnknownBackend
from kleene.conformance.wire import AnyRequest, TableRequest
from kleene.engines.fastest import spent
from kleene.engines.protocol import Counters, Engine, Feature, Limitation, Query, all_features
from kleene.engines.registry import engine, engine_names
from kleene.reference.budget import Budget, step_budget
from kleene.reference.errors import KleeneError
from kleene.reference.events import Stream
from kleene.reference.match import Match

if TYPE_CHECKING:
    from kleene.data.sql import Recognize
    from kleene.reference.match_recognize.ast import MatchRecognize
    from kleene.reference.match_recognize.table import Table

#: The entry-point group a third-party engine registers under.
ENTRY_POINT_GROUP = "kleene.engines"

#: The environment variable naming the backend when none is given.
ENV = "KLEENE_BACKEND"

#: Seconds a backend may take for one case before it is stopped (``--timeout``).
DEFAULT_TIMEOUT = 30.0


# ---------------------------------------------------------------- in-process engines


class _Timeout(BaseException):
    """Raised by the alarm inside an in-process run (a BaseException: engines catch
    ``Exception``)."""


@contextmanager
def _alarm(seconds: float | None) -> Iterator[None]:
    """Interrupt the block after ``seconds`` (main thread on POSIX only; else no limit)."""
    usable = (seconds and hasattr(signal, "setitimer")
              and threading.current_thread() is threading.main_thread())
    if not usable:
        yield
        return

    def ring(signum: int, frame: Any) -> None:
        raise _Timeout

    previous = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, float(seconds or 0))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def crash_summary(err: BaseException) -> str:
    """``Type: message (at file:line)`` of an unexpected exception, one line."""
    frames = traceback.extract_tb(err.__traceback__)
    where = f" (at {Path(frames[-1].filename).name}:{frames[-1].lineno})" if frames else ""
    return f"{type(err).__name__}: {err}{where}"


class EngineBackend:
    """A Python :class:`~kleene.engines.protocol.Engine` as a backend: its capabilities,
    and ``run`` = parse the query, ``engine.compile(query)``, run over the events."""

    def __init__(self, eng: Engine, *, version: str = __version__, origin: str = "") -> None:
        self.engine = eng
        self.name = eng.name
        self.version = version
        self.origin = origin or f"Python engine {type(eng).__module__}.{type(eng).__name__}"

    @property
    def capabilities(self) -> frozenset[Feature]:
        return frozenset(self.engine.capabilities)

    @property
    def answers_tables(self) -> bool:
        """Whether the engine recognizes tables (``recognizer(seconds)``, the
        ``MATCH_RECOGNIZE`` engines)."""
        return callable(getattr(self.engine, "recognizer", None))

    def run(self, request: AnyRequest, *, timeout: float | None = None) -> Outcome:
        if isinstance(request, TableRequest):
            return _tables(request, self.engine.recognizer(timeout))  # type: ignore[attr-defined]
        start = time.perf_counter()
        try:
            with _alarm(timeout):
                query = Query.parse(request.pattern, language=request.language,
                                    policy=request.policy, reading=request.window,
                                    time_unit=request.time_unit)
                s = Stream.from_rows(request.events, time_unit=request.time_unit)
                compiled = self.engine.compile(query)
                counters = Counters()
                budget = step_budget(None, what=f"running engine {self.name}")
                found = tuple(spent(compiled, s, counters, budget))
            strange = [m for m in found if not isinstance(m, Match)]
            if strange:
                return Outcome(broken=f"the engine yielded {type(strange[0]).__name__} "
                                      f"{strange[0]!r:.80}, not a Match", verdict="malformed",
                               seconds=time.perf_counter() - start)
        except _Timeout:
            return Outcome(broken=f"no answer within {timeout:g} s", verdict="timeout",
                           seconds=time.perf_counter() - start)
        except Limitation as err:   # documented by the engine: declined, never passed
            return Outcome(declined=f"{self.name} documents it cannot: {err.args[0]}",
                           seconds=time.perf_counter() - start)
        except KleeneError as err:
            return Outcome(error=(err.code, str(err)), seconds=time.perf_counter() - start)
        except (Exception, SystemExit) as err:  # a defect of the engine: a verdict
            return Outcome(broken=crash_summary(err), verdict="crashed",
                           seconds=time.perf_counter() - start)
        return Outcome(matches=found, seconds=time.perf_counter() - start,
                       peak=counters.peak_instances)

    def close(self) -> None:
        """Nothing to release."""


class ReferenceBackend(EngineBackend):
    """The reference semantics as a backend (``--backend reference``): it claims
    every feature of every language, so it runs every case (a check of the case
    files and of the runner, never of an engine)."""

    def __init__(self) -> None:
        self.name, self.version = "reference", __version__
        self.origin = "the reference semantics (kleene.reference.languages)"

    #: It answers table requests (``match_recognize``) by the reference.
    answers_tables = True

    @property
    def capabilities(self) -> frozenset[Feature]:
        return all_features()

    def run(self, request: AnyRequest, *, timeout: float | None = None) -> Outcome:
        if isinstance(request, TableRequest):
            return _tables(request, reference_recognizer(timeout))
        start = time.perf_counter()
        try:
            query = Query.parse(request.pattern, language=request.language,
                                policy=request.policy, reading=request.window,
                                time_unit=request.time_unit)
            s = Stream.from_rows(request.events, time_unit=request.time_unit)
            found = query.reference(s, budget=Budget())
        except KleeneError as err:
            return Outcome(error=(err.code, str(err)), seconds=time.perf_counter() - start)
        return Outcome(matches=tuple(found), seconds=time.perf_counter() - start)


def reference_recognizer(seconds: float | None) -> Recognize:
    """The ``MATCH_RECOGNIZE`` reference, each recognition under ``seconds`` (``None``: the
    default step budget only)."""
    # lazy: the SQL reference only for a table request
    from kleene.reference.match_recognize.semantics import recognize

    def run(clause: MatchRecognize, table: Table) -> Table:
        return recognize(clause, table, budget=Budget(seconds=seconds))
    return run


def _tables(request: TableRequest, recognize: Any) -> Outcome:
    # lazy: DuckDB only for a table request
    from kleene.conformance.table_run import answer_table

    return answer_table(request, recognize)


#: The name of :class:`ReferenceBackend` for :func:`find_backend`.
REFERENCE = "reference"


# ---------------------------------------------------------------- finding one


def _entry_points() -> dict[str, Any]:
    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}


def choices() -> str:
    """What :func:`find_backend` accepts, with the names available here."""
    eps = sorted(_entry_points())
    return (f"{REFERENCE} (the reference semantics); registered engines: "
            + ", ".join(engine_names())
            + "; entry points (group kleene.engines): " + (", ".join(eps) or "(none installed)")
            + "; or a Python module:factory, or cmd:COMMAND for an external backend "
              "(docs/backends.md)")


def from_factory(obj: Any, origin: str) -> Backend:
    """The backend a factory (or an engine or backend object) stands for."""
    if callable(obj) and not hasattr(obj, "compile") and not hasattr(obj, "run"):
        try:
            obj = obj()
        except Exception as err:
            raise BackendError(f"{origin}: the factory failed: {crash_summary(err)}") from None
    if hasattr(obj, "run") and hasattr(obj, "capabilities") and hasattr(obj, "version"):
        return checked(obj, origin)
    if hasattr(obj, "compile") and hasattr(obj, "capabilities"):
        checked(obj, origin)
        return EngineBackend(obj, origin=origin,
                             version=str(getattr(obj, "version", "unknown")))
    raise BackendError(f"{origin} gave {type(obj).__name__}, neither an Engine (name, "
                       "capabilities, compile) nor a Backend (name, version, capabilities, run)")


def checked(obj: Any, origin: str) -> Any:
    """``obj`` (an in-process engine or backend) when it has a ``name`` (non-empty text)
    and ``capabilities`` (a set of :class:`Feature`, each one a language defines); else a
    :class:`BackendError` saying what is wrong, naming the known features."""
    name = getattr(obj, "name", None)
    if not isinstance(name, str) or not name.strip():
        raise BackendError(f"{origin}: the plug-in has no name (a non-empty str attribute "
                           f"'name'; it has {name!r})")
    try:
        claimed = obj.capabilities
    except Exception as err:  # a property of the plug-in that fails: its defect, said
        raise BackendError(f"{origin}: reading its capabilities failed: "
                           f"{crash_summary(err)}") from None
    if not isinstance(claimed, (set, frozenset, list, tuple)):
        raise BackendError(f"{origin}: capabilities is {type(claimed).__name__} "
                           f"{claimed!r:.60}, not a set of Feature")
    for feature in claimed:
        if not isinstance(feature, Feature):
            raise BackendError(f"{origin}: the capability {feature!r:.60} is "
                               f"{type(feature).__name__}, not a Feature "
                               "(Feature.parse('ses:next'))")
        try:
            Feature.parse(str(feature))
        except KleeneError as err:
            raise BackendError(f"{origin}: unknown capability {str(feature)!r}: "
                               f"{err.args[0] if err.args else err}") from None
    return obj


def _split(spec: str) -> list[str]:
    """``spec`` split as a shell would (``cmd:node 'my backend.js'``); an unbalanced
    quote is an :class:`UnknownBackend` line."""
    try:
        return shlex.split(spec)
    except ValueError as err:
        raise UnknownBackend(f"cannot read the backend {spec!r}: {err} (quote as a shell "
                             "would)") from None


_MODULE_FACTORY = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")


def _import_factory(spec: str) -> Backend:
    module_name, _, attr = spec.partition(":")
    try:
        obj: Any = importlib.import_module(module_name)
    except ImportError as err:
        raise UnknownBackend(f"cannot import {module_name!r} for backend {spec!r}: {err}; "
                             f"{choices()}") from None
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise UnknownBackend(f"module {module_name!r} has no {attr!r} for backend "
                                 f"{spec!r}; {choices()}")
        obj = getattr(obj, part)
    return from_factory(obj, f"Python factory {spec}")


def import_folder(spec: str) -> str | None:
    """For a ``module:factory`` backend whose module a fresh interpreter would not find
    (no ``PYTHONPATH``, started in another folder): the folder of ``sys.path`` it is
    imported from here, absolute, which a rerun line puts on ``PYTHONPATH`` so that it
    runs in a fresh shell; ``None`` for every other backend and for an importable one."""
    if not _MODULE_FACTORY.match(spec):
        return None
    top = spec.partition(":")[0].split(".")[0]
    fresh = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    probe = f"import importlib.util, sys; sys.exit(importlib.util.find_spec({top!r}) is None)"
    try:
        done = subprocess.run([sys.executable, "-c", probe], cwd=os.path.abspath(os.sep),
                              env=fresh, capture_output=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode == 0:
        return None
    for entry in sys.path:
        folder = os.path.abspath(entry or os.curdir)
        if os.path.isdir(folder) and PathFinder.find_spec(top, [folder]) is not None:
            return folder
    return None


def find_backend(spec: str | None = None, *, timeout: float = DEFAULT_TIMEOUT,
                 log: Callable[[str, str, Any, list[str]], None] | None = None,
                 max_answer: int = DEFAULT_MAX_ANSWER) -> Backend:
    """The backend ``spec`` names (default: ``$KLEENE_BACKEND``); :class:`UnknownBackend`
    lists the choices, :class:`BackendError` says why a found backend is unusable. An
    external command's answer lines are read up to ``max_answer`` characters."""
    spec = (spec or os.environ.get(ENV, "")).strip()
    if not spec:
        raise UnknownBackend(f"no backend named: pass --backend or set {ENV}; {choices()}")
    if spec.startswith("cmd:"):
        argv = _split(spec[4:])
        if not argv:
            raise UnknownBackend("cmd: needs a command, e.g. cmd:node minimal_backend.js")
        return CommandBackend(argv, timeout=timeout, log=log, max_answer=max_answer)
    if spec == REFERENCE:
        return ReferenceBackend()
    if spec in engine_names():
        return EngineBackend(engine(spec), origin=f"built-in engine {spec}")
    eps = _entry_points()
    if spec in eps:
        ep = eps[spec]
        try:
            obj = ep.load()
        except Exception as err:
            raise BackendError(f"entry point {spec!r} ({ep.value}) does not load: "
                               f"{crash_summary(err)}") from None
        return from_factory(obj, f"entry point {spec} ({ep.value})")
    if _MODULE_FACTORY.match(spec):
        return _import_factory(spec)
    argv = _split(spec)
    if argv and Path(argv[0]).is_file() and os.access(argv[0], os.X_OK):
        return CommandBackend(argv, timeout=timeout, log=log, max_answer=max_answer)
    raise UnknownBackend(f"no backend {spec!r}; {choices()}")
