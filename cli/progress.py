"""Progress bars on stderr for runs longer than a second (tqdm).

Shown only when stderr is a terminal, and only once a run has lasted
:data:`DELAY` seconds, so that quick runs, pipes and tests print nothing.
Engines read events one by one, so their bar counts events of a known total;
the reference enumerates substitutions, so its bar counts budget steps.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from tqdm import tqdm

#: Seconds before a bar appears.
DELAY = 1.0

T = TypeVar("T")


def enabled() -> bool:
    """Whether bars are shown: stderr is a terminal."""
    return sys.stderr.isatty()


def over(items: Iterable[T], total: int | None, what: str, unit: str = "event") -> Iterator[T]:
    """``items``, with a bar of ``total`` ``unit``s labelled ``what``."""
    with tqdm(items, total=total, desc=what, unit=f" {unit}s", unit_scale=True, delay=DELAY,
              disable=not enabled(), leave=False, file=sys.stderr) as bar:
        yield from bar


@contextmanager
def steps(what: str) -> Iterator[Callable[[int], None]]:
    """A ``tick(used)`` callback for :class:`~kleene.reference.budget.Budget` that shows
    the steps spent so far."""
    with tqdm(total=None, desc=what, unit=" steps", unit_scale=True, delay=DELAY,
              disable=not enabled(), leave=False, file=sys.stderr) as bar:
        def tick(used: int) -> None:
            bar.update(used - bar.n)
        yield tick


@contextmanager
def spark_tasks(spark: object, what: str = "Spark") -> Iterator[None]:
    """A bar of the tasks of Spark's active stages (Spark's own console bar is off), fed
    by a thread polling the status tracker; nothing when bars are off."""
    if not enabled():
        yield
        return
    import threading

    done = threading.Event()
    tracker = spark.sparkContext.statusTracker()  # type: ignore[attr-defined]

    def poll(bar: tqdm) -> None:
        while not done.wait(0.5):
            try:
                stages = [tracker.getStageInfo(i) for i in tracker.getActiveStageIds()]
                stages = [s for s in stages if s is not None]
                if stages:
                    bar.total = sum(s.numTasks for s in stages)
                    bar.n = sum(s.numCompletedTasks for s in stages)
                    bar.refresh()
            except Exception:   # a bar must never break a run (the JVM may be stopping)
                return

    with tqdm(total=0, desc=what, unit=" tasks", delay=DELAY, leave=False,
              file=sys.stderr) as bar:
        thread = threading.Thread(target=poll, args=(bar,), daemon=True)
        thread.start()
        try:
            yield
        finally:
            done.set()
            thread.join(timeout=2)
