"""Deadline and memory ceiling for code that cannot check them itself (an engine).

The reference checks its :class:`~kleene.reference.budget.Budget` every few
thousand steps; an engine computes inside its own loops. :func:`limits` runs a
daemon thread that reads the clock and the process's resident memory every
:data:`PERIOD` seconds and, past a limit, interrupts the main thread; the
interruption comes back as :class:`~kleene.reference.errors.BudgetExceeded`
naming the limit, so ``--time-limit`` and ``--memory-limit`` stop any backend.

An interruption can be lost: Python runs a pending signal handler wherever the
main thread happens to be, and a ``KeyboardInterrupt`` raised inside a
finalizer or a weak-reference callback (py4j runs some for every Java object
the garbage collector frees, so after a Spark job) is printed as "ignored" and
dropped. The watcher therefore interrupts again every :data:`PERIOD` until the
body has stopped, and for the duration an unraisable ``KeyboardInterrupt`` after the
limit tripped is dropped without the "Exception ignored" traceback on stderr (Z3's
``AstRef.__del__`` met it under ``kleene prove --time-limit``): the user gets the one
line of the limit.
"""

from __future__ import annotations

import _thread
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from kleene.reference.budget import resident_mb
from kleene.reference.errors import BudgetExceeded

#: Seconds between two readings.
PERIOD = 0.1


@contextmanager
def limits(seconds: float | None, memory_mb: float | None, what: str) -> Iterator[None]:
    """Run the body under a deadline (``seconds``) and a memory ceiling (``memory_mb``);
    ``None`` means no limit. Past one, the body stops with :class:`BudgetExceeded`."""
    if seconds is None and memory_mb is None:
        yield
        return
    tripped: list[BudgetExceeded] = []
    done = threading.Event()
    deadline = None if seconds is None else time.monotonic() + seconds

    def watch() -> None:
        while not done.wait(PERIOD):
            if tripped:
                pass  # interrupted before, and the body still runs: the interruption was lost
            elif deadline is not None and time.monotonic() > deadline:
                tripped.append(BudgetExceeded("seconds", _number(seconds), what))
            elif memory_mb is not None and resident_mb() > memory_mb:
                tripped.append(BudgetExceeded("memory", _number(memory_mb), what, unit="MB"))
            else:
                continue
            _thread.interrupt_main()

    # interrupt_main() runs Python's SIGINT handler, and does nothing when another
    # library (PySpark, a test runner) installed one that does not raise: install the
    # default one for the duration.
    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, signal.default_int_handler) if main else None
    unraisable = sys.unraisablehook

    def lost(u: sys.UnraisableHookArgs) -> None:
        if not (tripped and isinstance(u.exc_value, KeyboardInterrupt)):
            unraisable(u)

    sys.unraisablehook = lost
    thread = threading.Thread(target=watch, name="kleene-limits", daemon=True)
    thread.start()
    try:
        yield
    except KeyboardInterrupt:
        done.set()  # first: the watcher interrupts only a body that has not stopped
        if tripped:
            raise tripped[0] from None
        raise
    finally:
        done.set()
        sys.unraisablehook = unraisable
        if main:
            signal.signal(signal.SIGINT, previous)


def _number(value: float | None) -> int | float:
    assert value is not None
    return int(value) if float(value).is_integer() else value
