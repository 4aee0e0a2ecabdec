"""Explicit search budgets for the brute-force reference semantics.

The reference enumerates matches by definition, which is exponential in the
worst case. Every enumeration draws from a :class:`Budget`; running out raises
:class:`~kleene.reference.errors.BudgetExceeded` naming the budget, never hangs
(docs/architecture.md, "All matches first, budgets always").

A budget counts *steps* (partial substitutions tried) and, optionally, stops
at a wall-clock *deadline* (``seconds``) and a *memory ceiling* (``memory_mb``,
the resident set of the process). The clock and the memory are read only
every :data:`CHECK_EVERY` steps, so that spending stays one addition and one
comparison; the same check calls ``tick(used)`` (a progress display).
"""

from __future__ import annotations

import resource
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from kleene.reference.errors import BudgetExceeded

#: Default number of search steps (partial substitutions tried) per call.
DEFAULT_STEPS = 2_000_000

#: Default number of things an engine holds at once (instances alive, matches made on one
#: event: :meth:`Budget.hold`) when no step limit is given; a limit given bounds both.
DEFAULT_HELD = 200_000

#: Steps between two readings of the clock and of the memory.
CHECK_EVERY = 4096

_STATM = Path("/proc/self/statm")
_PAGE_MB = resource.getpagesize() / 2**20


def resident_mb() -> float:
    """The resident memory of this process in MiB (its peak where ``/proc`` is absent)."""
    try:
        return int(_STATM.read_text().split()[1]) * _PAGE_MB
    except (OSError, IndexError, ValueError):  # pragma: no cover - not Linux
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@dataclass
class Budget:
    """A named counter of search steps with an optional deadline and memory ceiling;
    ``spend`` raises :class:`BudgetExceeded` once any of them is exhausted."""

    name: str = "steps"
    limit: int = DEFAULT_STEPS
    what: str = "enumerating matches"
    used: int = field(default=0)
    seconds: float | None = None
    memory_mb: float | None = None
    tick: Callable[[int], None] | None = field(default=None, repr=False)
    #: the most things an engine holds at once (:meth:`hold`; ``None``: ``limit``)
    held: int | None = None
    _deadline: float | None = field(default=None, init=False, repr=False)
    _next_check: int = field(default=CHECK_EVERY, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.seconds is not None:
            self._deadline = time.monotonic() + self.seconds

    def spend(self, n: int = 1) -> None:
        """Account for ``n`` more steps; raise :class:`BudgetExceeded` past a limit."""
        self.used += n
        if self.used > self.limit:
            raise BudgetExceeded(self.name, self.limit, self.what)
        if self.used >= self._next_check:
            self._next_check = self.used + CHECK_EVERY
            self.check()

    @property
    def most_held(self) -> int:
        """The most things an engine may hold at once: ``held``, else ``limit``."""
        return self.limit if self.held is None else self.held

    def hold(self, alive: int, held: str) -> None:
        """Stop once ``alive`` things are held at once past :attr:`most_held`: an engine's
        live state (an automaton's instances, docs/architecture.md, "Engine budgets"),
        ``held`` saying what they are. Nothing is spent: the limit bounds a size here."""
        if alive > self.most_held:
            raise BudgetExceeded(self.name, self.most_held, f"{self.what}: {held}")

    def check(self) -> None:
        """Read the clock and the memory now (``spend`` does so every few thousand steps)."""
        if self._deadline is not None and time.monotonic() > self._deadline:
            raise BudgetExceeded("seconds", _number(self.seconds), self.what)
        if self.memory_mb is not None and resident_mb() > self.memory_mb:
            raise BudgetExceeded("memory", _number(self.memory_mb), self.what, unit="MB")
        if self.tick is not None:
            self.tick(self.used)


def _number(value: float | None) -> int | float:
    assert value is not None
    return int(value) if float(value).is_integer() else value


def step_budget(limit: int | None, *, seconds: float | None = None,
                memory_mb: float | None = None, what: str = "enumerating matches") -> Budget:
    """A fresh budget of ``limit`` steps, an engine holding at most ``limit`` things at
    once; ``None``: the defaults, :data:`DEFAULT_STEPS` steps and :data:`DEFAULT_HELD`
    held (``--budget N`` and its absence, wherever an engine runs: the command line,
    a Spark task, a conformance backend)."""
    if limit is None:
        return Budget(limit=DEFAULT_STEPS, held=DEFAULT_HELD, what=what, seconds=seconds,
                      memory_mb=memory_mb)
    return Budget(limit=limit, what=what, seconds=seconds, memory_mb=memory_mb)
