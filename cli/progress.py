"""Progress on stderr for runs longer than a second.

On a terminal, a tqdm bar, shown once a run has lasted :data:`DELAY` seconds, so
that quick runs print nothing. Elsewhere (a pipe, a log file, a notebook's
captured stderr) ``kleene match`` says one line every :data:`EVERY` seconds
(:func:`said`; its ``--quiet`` turns both off), from a daemon thread so that a run
stuck inside one event still says how far it got
(``kleene: nfa-chain: 120,000 of 1,000,000 events, 10 s``). Engines read events
(or batches of columns, :class:`Reading`), so their progress counts events; the reference enumerates
substitutions, so its progress counts budget steps. tqdm is imported only when a
bar can be shown.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

from kleene.data.columnar import ROWS
from kleene.data.source import column_batches, columns_of_source, source_name, time_unit_of

if TYPE_CHECKING:
    from tqdm import tqdm

#: Seconds before a bar appears.
DELAY = 1.0

#: Seconds between two progress lines when stderr is not a terminal.
EVERY = 5.0

T = TypeVar("T")

#: How progress is said now (:func:`said`): "bars" on a terminal only (every command's
#: default), "lines" (also a line every :data:`EVERY` seconds elsewhere), "off".
_how = "bars"


@contextmanager
def said(quiet: bool) -> Iterator[None]:
    """Within the block, progress as ``kleene match`` says it: bars on a terminal, lines
    elsewhere, nothing when ``quiet`` (``-q``); the previous way again after it. Other
    commands (``kleene demo``, whose stderr is one message on a failure) keep the bars."""
    global _how
    before, _how = _how, "off" if quiet else "lines"
    try:
        yield
    finally:
        _how = before


def enabled() -> bool:
    """Whether bars are shown: stderr is a terminal, and progress is not off."""
    return _how != "off" and sys.stderr.isatty()


def lines() -> bool:
    """Whether progress is said in lines: within :func:`said`, not quiet, and stderr is
    not a terminal."""
    return _how == "lines" and not sys.stderr.isatty()


class _Off:
    """A bar that is not shown (what ``tqdm(disable=True)`` does, without importing it)."""

    n = 0

    def __enter__(self) -> _Off:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def update(self, n: int = 1) -> None:
        self.n += n


class Lines(_Off):
    """A count said in one line on stderr every ``every`` seconds (:data:`EVERY`) while
    the ``with`` block runs: ``kleene: WHAT: N[ of TOTAL] UNITs, S s``; nothing for a
    run shorter than that. ``clock`` reads the seconds elapsed (a test's fake clock)."""

    def __init__(self, what: str, unit: str, total: int | None = None,
                 every: float | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.what, self.unit, self.total = what, unit, total
        self.every = EVERY if every is None else every
        self.clock = clock
        self._done = threading.Event()
        self._thread: threading.Thread | None = None
        self._began = 0.0

    def line(self) -> str:
        """The line said now."""
        of = "" if self.total is None else f" of {self.total:,}"
        return (f"kleene: {self.what}: {self.n:,}{of} {self.unit}s, "
                f"{self.clock() - self._began:.0f} s")

    def _say(self) -> None:
        while not self._done.wait(self.every):
            print(self.line(), file=sys.stderr, flush=True)

    def __enter__(self) -> Lines:
        self._began = self.clock()
        self._thread = threading.Thread(target=self._say, name="kleene-progress", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        if self._thread is not None:
            self._thread.join(timeout=2)


def _bar(what: str, unit: str, total: int | None) -> tqdm | _Off:
    """A tqdm bar on a terminal, :class:`Lines` elsewhere, an :class:`_Off` one when
    quiet."""
    if lines():
        return Lines(what, unit, total)
    if not enabled():
        return _Off()
    from tqdm import tqdm

    return tqdm(total=total, desc=what, unit=f" {unit}s", unit_scale=True, delay=DELAY,
                leave=False, file=sys.stderr)


def over(items: Iterable[T], total: int | None, what: str, unit: str = "event") -> Iterator[T]:
    """``items``, with progress of ``total`` ``unit``s labelled ``what``."""
    with _bar(what, unit, total) as bar:
        for item in items:
            yield item
            bar.update(1)


@contextmanager
def steps(what: str) -> Iterator[Callable[[int], None]]:
    """A ``tick(used)`` callback for :class:`~kleene.reference.budget.Budget` that shows
    the steps spent so far."""
    with _bar(what, "step", None) as bar:
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


def _cut(offset: int, part: Any, rows: int) -> list[tuple[int, Any]]:
    """The batch ``part`` (its first row at position ``offset``) in pieces of ``rows``."""
    if len(part) <= rows:
        return [(offset, part)]
    return [(offset + s, part.slice(s, min(s + rows, len(part))))
            for s in range(0, len(part), rows)]


class Reading:
    """``stream`` read through a bar of its events that keeps its columns and batches,
    so an engine still filters on columns and builds events only for candidate rows
    (docs/architecture.md, "Top-level folders", `data/`): :meth:`batches` advance the bar a batch at
    a time, plain iteration an event at a time."""

    def __init__(self, stream: Any, what: str, rows: int = ROWS) -> None:
        self.stream, self.what, self.rows = stream, what, rows
        self.time_unit = time_unit_of(stream)
        self.source = source_name(stream)   # what errors name

    def __len__(self) -> int:
        return len(self.stream)

    @property
    def columns(self) -> Any:
        """All the stream's columns at once, where it has them (a loaded stream): what
        an engine that cuts the stream whole reads (``srt``'s runs per part of ``e
        PARTITION BY a``); its batches (:meth:`batches`) keep the bar."""
        return columns_of_source(self.stream)

    def _bar(self) -> tqdm | _Off:
        total = len(self.stream) if columns_of_source(self.stream) is not None else None
        return _bar(self.what, "event", total)

    def batches(self) -> Iterator[tuple[int, Any]] | None:
        """The stream's batches of columns, ``rows`` rows at most (a source's own batches
        cut)."""
        found = column_batches(self.stream, self.rows)
        if found is None:
            return None
        return self._counted(found)

    def _counted(self, found: Iterable[tuple[int, Any]]) -> Iterator[tuple[int, Any]]:
        with self._bar() as bar:
            for offset, part in found:
                yield from _cut(offset, part, self.rows)
                bar.update(len(part))

    def __iter__(self) -> Iterator[Any]:
        with self._bar() as bar:
            for e in self.stream:
                yield e
                bar.update(1)
