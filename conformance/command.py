"""An external backend: a command speaking the JSON-lines protocol (:mod:`.wire`).

:class:`CommandBackend` starts the command, says ``hello`` and reads the
name, version and capabilities (each validated with
:meth:`~kleene.engines.protocol.Feature.parse`: an unknown one is a protocol
error naming it). Each :meth:`~CommandBackend.run` sends one ``run`` line
and waits at most ``timeout`` seconds for one answer line of at most ``max_answer``
characters. A backend that crashes, hangs, prints non-JSON or answers with a
malformed message (or a longer line) gets a verdict for that request (an
:class:`~kleene.conformance.outcome.Outcome` with ``broken``) and is restarted for
the next one. The command runs in a process group of its own, killed as a whole: a
child it forked that keeps its stdout open dies with it. ``log`` sees every
message, sent or received, with its schema problems (``--check-protocol``).
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import IO, Any

from kleene.conformance import wire
from kleene.conformance.outcome import BackendError, Outcome
from kleene.conformance.sql_tables import SqlTable, TableProblem, decode
from kleene.engines.protocol import Feature
from kleene.reference.errors import KleeneError
from kleene.reference.match import Match

#: ``log(direction, kind, message, problems)``: direction ``>`` sent, ``<`` received.
Log = Callable[[str, str, Any, list[str]], None]

_EOF = object()

#: The least time a backend is given to start and answer ``hello`` (an
#: interpreter's start-up is no case's fault, even under a small ``--timeout``).
HANDSHAKE_TIMEOUT = 10.0

#: The longest answer line read, in characters (``kleene conform --max-answer``): a
#: longer one is ``malformed``, its rest skipped unread into memory.
DEFAULT_MAX_ANSWER = 8 * 2**20

#: How much of an over-long line is skipped at a time.
_CHUNK = 2**16


class TooLong:
    """What the pump hands on for a line longer than the bound (its start, for the
    verdict)."""

    def __init__(self, start: str) -> None:
        self.start = start


class Broken(Exception):
    """The backend failed while answering: ``verdict`` and what happened."""

    def __init__(self, verdict: str, message: str) -> None:
        super().__init__(message)
        self.verdict = verdict
        self.message = message


class CommandBackend:
    """An external command as a backend (one process, restarted after a failure)."""

    #: It takes table requests (when it claims ``match_recognize``).
    answers_tables = True

    def __init__(self, argv: Sequence[str], *, timeout: float = 30.0,
                 log: Log | None = None, max_answer: int = DEFAULT_MAX_ANSWER) -> None:
        self.argv = list(argv)
        self.timeout = timeout
        self.max_answer = max_answer
        self.log = log
        self.origin = f"external command {' '.join(self.argv)}"
        self.name = self.argv[0]
        self.version = "?"
        self._capabilities: frozenset[Feature] = frozenset()
        self._proc: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[Any] = queue.Queue()
        self._stderr: deque[str] = deque(maxlen=15)
        self._seq = 0
        #: The exit status after :meth:`close` (``None``: killed, or not closed yet).
        self.returncode: int | None = None
        #: Whether :meth:`close` sent ``bye`` (not to a backend stopped after a verdict).
        self.said_bye = False
        try:
            self._start()
        except Broken as err:
            self._kill()
            raise BackendError(f"{self.origin}: the hello handshake failed ({err.verdict}): "
                               f"{err.message}") from None

    @property
    def capabilities(self) -> frozenset[Feature]:
        return self._capabilities

    # ------------------------------------------------------------ process

    def _start(self) -> None:
        try:
            proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True, encoding="utf-8",
                                    errors="surrogateescape", bufsize=1,
                                    start_new_session=True)
        except OSError as err:
            raise Broken("crashed", f"cannot start {self.argv[0]!r}: {err}") from None
        self._proc = proc
        self._lines = queue.Queue()
        self._stderr.clear()
        threading.Thread(target=self._pump, args=(proc.stdout, self._lines, self.max_answer),
                         daemon=True).start()
        threading.Thread(target=self._drain, args=(proc.stderr,), daemon=True).start()
        self._send("hello-request", wire.hello())
        answer = self._receive("hello-response", max(self.timeout, HANDSHAKE_TIMEOUT))
        self.name, self.version = answer["name"], answer["version"]
        unknown, features = [], set()
        for text in answer["capabilities"]:
            try:
                features.add(Feature.parse(text))
            except KleeneError as err:
                unknown.append(f"{text!r} ({err})")
        if unknown:
            raise Broken("malformed", "hello answer: unknown capabilities: " + "; ".join(unknown))
        self._capabilities = frozenset(features)

    @staticmethod
    def _pump(stream: IO[str] | None, lines: queue.Queue[Any], most: int) -> None:
        """Hand on each line of ``stream`` (a line past ``most`` characters as
        :class:`TooLong`, its rest skipped), then ``_EOF``; it owns the stream and
        closes it, so a kill never closes a pipe this thread is reading."""
        assert stream is not None
        try:
            while line := stream.readline(most + 1):
                if len(line) <= most or line.endswith("\n"):
                    lines.put(line)
                    continue
                lines.put(TooLong(line[:200]))
                while (rest := stream.readline(_CHUNK)) and not rest.endswith("\n"):
                    pass
                if not rest:
                    break
        except (OSError, ValueError, MemoryError):
            pass   # the pipe broke or was closed: the end of the answers, as at EOF
        finally:
            lines.put(_EOF)
            _close(stream)

    def _drain(self, stream: IO[str] | None) -> None:
        assert stream is not None
        try:
            while line := stream.readline(_CHUNK):   # what is not UTF-8 shown as U+FFFD
                text = line.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
                self._stderr.append(text.rstrip("\n"))
        except (OSError, ValueError, MemoryError):
            pass
        finally:
            _close(stream)

    def _kill(self) -> None:
        """Kill the command's whole process group (its forked children too) and wait for
        it; the reading threads close their pipes at their end."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass   # the group has no process left
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover - a process that ignores SIGKILL
            pass
        _close(proc.stdin)

    def _stderr_tail(self) -> str:
        time.sleep(0.05)  # let the drain thread catch the last lines
        return ("; stderr: " + " | ".join(self._stderr)) if self._stderr else ""

    # ------------------------------------------------------------ messages

    def _send(self, kind: str, message: dict[str, Any]) -> None:
        if self.log:
            self.log(">", kind, message, wire.problems(kind, message))
        assert self._proc is not None and self._proc.stdin is not None
        try:
            self._proc.stdin.write(json.dumps(message, ensure_ascii=False) + "\n")
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise self._crashed() from None

    def _crashed(self) -> Broken:
        proc = self._proc
        code = None
        if proc is not None:
            try:
                code = proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                code = None
        tail = self._stderr_tail()
        return Broken("crashed", f"the backend exited (status {code}) without answering{tail}")

    def _receive(self, kind: str, timeout: float) -> Any:
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise Broken("timeout", f"no {kind.replace('-response', '')} answer within "
                                    f"{timeout:g} s") from None
        if line is _EOF:
            raise self._crashed()
        if isinstance(line, TooLong):
            raise Broken("malformed", f"the {kind.replace('-response', '')} answer is longer "
                                      f"than {self.max_answer:,} characters (--max-answer): "
                                      f"{line.start[:200]!r}...")
        try:
            line.encode("utf-8")   # bytes that are not UTF-8 came as lone surrogates
        except UnicodeEncodeError:
            raise Broken("malformed", f"the {kind.replace('-response', '')} answer is not "
                                      f"UTF-8: {line.rstrip()[:200]!r}") from None
        try:
            message = json.loads(line)
        except json.JSONDecodeError as err:
            if self.log:
                self.log("<", kind, line.rstrip("\n"), [f"not JSON: {err}"])
            raise Broken("non-json", f"the answer is not JSON ({err}): "
                                     f"{line.rstrip()[:200]!r}") from None
        found = wire.problems(kind, message)
        if self.log:
            self.log("<", kind, message, found)
        if found:
            raise Broken("malformed", f"malformed {kind.replace('-', ' ')} "
                                      f"{json.dumps(message)[:200]}: " + "; ".join(found))
        return message

    # ------------------------------------------------------------ the protocol

    def run(self, request: wire.AnyRequest, *, timeout: float | None = None) -> Outcome:
        """Send ``request``; the backend's answer or a verdict on it (never an exception)."""
        limit = timeout or self.timeout
        start = time.perf_counter()
        sent, expected = wire.kinds_of(request)
        table = None
        try:
            if self._proc is None:
                self._start()
            self._seq += 1
            self._send(sent, request.message(self._seq))
            answer = self._receive(expected, limit)
            if answer["seq"] != self._seq:
                raise Broken("malformed", f"the answer has seq {answer['seq']}, "
                                          f"the request {self._seq}")
            if "table" in answer:
                table = self._table(answer)
        except Broken as err:
            self._kill()
            return Outcome(broken=err.message, verdict=err.verdict,
                           seconds=time.perf_counter() - start)
        seconds = time.perf_counter() - start
        if "error" in answer:
            return Outcome(error=(answer["error"]["code"], answer["error"]["message"]),
                           seconds=seconds)
        if table is not None:
            return Outcome(table=table, seconds=seconds)
        return Outcome(matches=tuple(Match.of(m) for m in answer["matches"]), seconds=seconds)

    def _table(self, answer: dict[str, Any]) -> SqlTable:
        """The answer's table; a value that breaks its column's type is ``malformed``."""
        try:
            return decode(answer["table"], "/table")
        except TableProblem as err:
            if self.log:
                self.log("<", "run-table-response", answer, [str(err)])
            raise Broken("malformed", f"malformed run table response: {err}") from None

    def close(self) -> None:
        """Say ``bye`` and wait for the process to exit (killed after 5 s); a backend
        already stopped (after a verdict) is not started again to be told."""
        if self._proc is None:
            return
        try:
            self._send("bye-request", dict(wire.BYE))
            self.said_bye = True
            self.returncode = self._proc.wait(timeout=5)
        except (Broken, subprocess.TimeoutExpired):
            self.returncode = None
        self._kill()


def _close(pipe: IO[str] | None) -> None:
    try:
        if pipe is not None:
            pipe.close()
    except (OSError, ValueError):
        pass
