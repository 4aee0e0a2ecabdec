"""Progress bars on stderr for runs longer than a second (tqdm).

Shown only when stderr is a terminal, and only once a run has lasted
:data:`DELAY` seconds, so that quick runs, pipes and tests print nothing.
Engines read events (or batches of columns, :class:`Reading`), so their bar
counts events;
the reference enumerates substitutions, so its bar counts budget steps.
tqdm is imported only when a bar can be shown.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

from kleene.data.columnar import ROWS
from kleene.data.source import column_batches, columns_of_source, source_name, time_unit_of

if TYPE_CHECKING:
    from tqdm import tqdm

#: Seconds before a bar appears.
DELAY = 1.0

T = TypeVar("T")


def enabled() -> bool:
    """Whether bars are shown: stderr is a terminal."""
    return sys.stderr.isatty()


class _Off:
    """A bar that is not shown (what ``tqdm(disable=True)`` does, without importing it)."""

    n = 0

    def __enter__(self) -> _Off:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def update(self, n: int = 1) -> None:
        self.n += n


def _bar(**options: Any) -> tqdm | _Off:
    """A tqdm bar with ``options`` when bars are shown, else an :class:`_Off` one."""
    if not enabled():
        return _Off()
    from tqdm import tqdm

    return tqdm(**options)


def over(items: Iterable[T], total: int | None, what: str, unit: str = "event") -> Iterator[T]:
    """``items``, with a bar of ``total`` ``unit``s labelled ``what``."""
    if not enabled():
        yield from items
        return
    from tqdm import tqdm

    with tqdm(items, total=total, desc=what, unit=f" {unit}s", unit_scale=True, delay=DELAY,
              disable=not enabled(), leave=False, file=sys.stderr) as bar:
        yield from bar


@contextmanager
def steps(what: str) -> Iterator[Callable[[int], None]]:
    """A ``tick(used)`` callback for :class:`~kleene.reference.budget.Budget` that shows
    the steps spent so far."""
    with _bar(total=None, desc=what, unit=" steps", unit_scale=True, delay=DELAY,
              leave=False, file=sys.stderr) as bar:
        def tick(used: int) -> None:
            bar.update(used - bar.n)
        yield tick


@contextmanager
def spark_tasks(spark: Any, what: str = "Spark") -> Iterator[None]:
    """A bar of the tasks of Spark's active stages (Spark's own console bar is off), fed
    by a thread polling the status tracker; nothing when bars are off."""
    if not enabled():
        yield
        return
    import threading

    from tqdm import tqdm

    done = threading.Event()
    tracker = spark.sparkContext.statusTracker()

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


class Reading:
    """``stream`` read through a bar of its events that keeps its batches of columns,
    so an engine still filters on columns and builds events only for candidate rows
    (docs/architecture.md, "Top-level folders", `data/`): :meth:`batches` advance the bar a batch at
    a time, plain iteration an event at a time."""

    def __init__(self, stream: Any, what: str) -> None:
        self.stream, self.what = stream, what
        self.time_unit = time_unit_of(stream)
        self.source = source_name(stream)   # what errors name

    def __len__(self) -> int:
        return len(self.stream)

    def _bar(self) -> tqdm | _Off:
        total = len(self.stream) if columns_of_source(self.stream) is not None else None
        return _bar(total=total, desc=self.what, unit=" events", unit_scale=True, delay=DELAY,
                    leave=False, file=sys.stderr)

    def batches(self) -> Iterator[tuple[int, Any]] | None:
        found = column_batches(self.stream, ROWS)
        if found is None:
            return None
        return self._counted(found)

    def _counted(self, found: Iterable[tuple[int, Any]]) -> Iterator[tuple[int, Any]]:
        with self._bar() as bar:
            for offset, part in found:
                yield offset, part
                bar.update(len(part))

    def __iter__(self) -> Iterator[Any]:
        with self._bar() as bar:
            for e in self.stream:
                yield e
                bar.update(1)
