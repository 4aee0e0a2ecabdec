"""Independent column work on the machine's cores.

Arrow's compute kernels release the GIL while they run, so typing the columns
of a large table (:func:`kleene.data.columnar.validated`: a dozen kernels
per column over every row) runs on several cores when each column is a thread's
work. The results are the serial ones, in the same order: each call is a pure
function of its column; only when they run changes.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")

#: Rows below which a table's columns are worked serially (threads cost ~0.1 ms each).
PARALLEL_ROWS = 50_000


def cores() -> int:
    """The threads column work may use: Arrow's CPU thread pool's size (the cores of the
    machine unless set: ``pyarrow.set_cpu_count``, as a Spark task sets it to its share,
    or ``OMP_NUM_THREADS``), at most the cores this process may run on."""
    import pyarrow as pa

    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:          # not on Linux
        usable = os.cpu_count() or 1
    return max(1, min(usable, pa.cpu_count()))


def each(calls: Sequence[Callable[[], T]], *, parallel: bool = True) -> list[T | Exception]:
    """The result of every call, in order, or the exception it raised (returned, not
    raised: the caller decides which one to report). With ``parallel`` and more than
    one core and call, the calls run on up to :func:`cores` threads."""
    out: list[T | Exception] = [ValueError("not run")] * len(calls)
    todo = iter(range(len(calls)))
    lock = threading.Lock()

    def work() -> None:
        while True:
            with lock:
                i = next(todo, None)
            if i is None:
                return
            try:
                out[i] = calls[i]()
            except Exception as err:       # noqa: BLE001 - handed to the caller
                out[i] = err

    n = min(cores(), len(calls)) if parallel else 1
    if n <= 1:
        work()
        return out
    threads = [threading.Thread(target=work, name=f"kleene-columns-{k}") for k in range(n - 1)]
    for t in threads:
        t.start()
    work()
    for t in threads:
        t.join()
    return out
