"""Explicit search budgets for the brute-force reference semantics.

The reference enumerates matches by definition, which is exponential in the
worst case. Every enumeration draws from a :class:`Budget`; running out raises
:class:`~kleene.reference.errors.BudgetExceeded` naming the budget, never hangs
(DESIGN.md, "All-matches first").
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kleene.reference.errors import BudgetExceeded

#: Default number of search steps (partial substitutions tried) per call.
DEFAULT_STEPS = 2_000_000


@dataclass
class Budget:
    """A named counter of search steps; ``spend`` raises once it is exhausted."""

    name: str = "steps"
    limit: int = DEFAULT_STEPS
    what: str = "enumerating matches"
    used: int = field(default=0)

    def spend(self, n: int = 1) -> None:
        """Account for ``n`` more steps; raise :class:`BudgetExceeded` past the limit."""
        self.used += n
        if self.used > self.limit:
            raise BudgetExceeded(self.name, self.limit, self.what)
