"""Solving: one Z3 query with a time limit, its outcome as a value.

Every proof module asks Z3 through :func:`solve`, so the time limit and the
reading of ``unknown`` are the same everywhere.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import z3

from kleene.proofs.encode import Lit, as_z3

#: The time limit of one Z3 query, in milliseconds.
TIMEOUT_MS = 10_000


@dataclass(frozen=True)
class Outcome:
    """What one query gave: ``status`` is ``sat``, ``unsat`` or ``unknown``."""

    status: str
    model: z3.ModelRef | None = None
    reason: str = ""


def solve(constraints: Iterable[Lit], timeout_ms: int = TIMEOUT_MS) -> Outcome:
    """Check ``constraints`` with a time limit; a model when satisfiable."""
    solver = z3.Solver()
    solver.set("timeout", timeout_ms)
    solver.add(*[as_z3(c) for c in constraints])
    status = solver.check()
    if status == z3.sat:
        return Outcome("sat", solver.model())
    if status == z3.unsat:
        return Outcome("unsat")
    return Outcome("unknown", reason=solver.reason_unknown() or "unknown")


