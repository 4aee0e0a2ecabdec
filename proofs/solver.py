"""Solving: one Z3 query with a time limit, its outcome as a value.

Every proof module asks Z3 through :func:`solve`, so the time limit and the
reading of ``unknown`` are the same everywhere.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
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


def solve(constraints: Iterable[Lit], timeout_ms: int = TIMEOUT_MS,
          seed: int | None = None) -> Outcome:
    """Check ``constraints`` with a time limit; a model when satisfiable. ``seed``: Z3's
    random seed (another seed is another search: a query that timed out may not)."""
    solver = z3.Solver()
    solver.set("timeout", timeout_ms)
    if seed is not None:
        solver.set("random_seed", seed)
    solver.add(*[as_z3(c) for c in constraints])
    status = solver.check()
    if status == z3.sat:
        return Outcome("sat", solver.model())
    if status == z3.unsat:
        return Outcome("unsat")
    return Outcome("unknown", reason=solver.reason_unknown() or "unknown")




class TooManyModels(Exception):
    """More than the limit of distinct models (:func:`distinct_models`)."""


def distinct_models(constraints: Iterable[Lit], atoms: list[z3.BoolRef], *, limit: int,
                    timeout_ms: int = TIMEOUT_MS) -> Iterator[z3.ModelRef]:
    """One model per satisfiable assignment of ``atoms`` under ``constraints`` (the
    classes of models the atoms tell apart), each query within the time limit.
    :class:`TooManyModels` past ``limit`` classes; ``unknown`` raises it too, with Z3's
    reason (the enumeration is then incomplete)."""
    solver = z3.Solver()
    solver.set("timeout", timeout_ms)
    solver.add(*[as_z3(c) for c in constraints])
    count = 0
    while True:
        status = solver.check()
        if status == z3.unsat:
            return
        if status != z3.sat:
            raise TooManyModels(f"Z3 gave up ({solver.reason_unknown() or 'unknown'})")
        count += 1
        if count > limit:
            raise TooManyModels(f"more than {limit} classes of streams")
        model = solver.model()
        yield model
        values = [model.eval(a, model_completion=True) for a in atoms]
        solver.add(z3.Or(*[a != v for a, v in zip(atoms, values, strict=True)])
                   if atoms else z3.BoolVal(False))
