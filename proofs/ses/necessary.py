"""Soundness of the necessary match conditions (seed 001 Thm 2) on bounded windows.

Claim: every match window W = <e_1..e_n> with n ≤ k that contains a match
starting at e_1 satisfies conditions 4--7
(:mod:`kleene.reference.ses.necessary`). Z3 searches, for each n ≤ k, a
symbolic window (every event within τ of the first: W is W_{e_1} of the
stream W, seed 001 Def. 3) and a substitution γ with γ a match (Def. 2),
γ's first event e_1, and some condition false. Unsatisfiable for every n:
proved up to k. A counterexample is replayed: the reference must find γ
among A(P, W_{e_1}) and evaluate the condition(s) to false on W.

Each condition is a :class:`NecessaryCondition` with a symbolic and a
concrete form, so a caller can check a condition of their own (a deliberately
wrong one shows the check can fail).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import z3

from kleene.proofs.encode import Lit, conj, disj, holds_for, neg, true_in
from kleene.proofs.results import CounterExample, Proved, Result, Unknown
from kleene.proofs.schema import Schema, schema_for
from kleene.proofs.ses.symbolic import (
    SymStream,
    assignment,
    is_match,
    match_from,
    stream_from,
    sym_stream,
)
from kleene.proofs.ses.witnesses import BOUND
from kleene.proofs.solver import TIMEOUT_MS, solve
from kleene.reference.events import Event
from kleene.reference.ses import necessary as thm2
from kleene.reference.ses.matching import matches_starting_at
from kleene.reference.ses.pattern import SESPattern


@dataclass
class Window:
    """A symbolic window for ``pattern``; :meth:`satisfies` is Θp_v(e_i)."""

    pattern: SESPattern
    s: SymStream
    _cache: dict[tuple[str, int], Lit] = field(default_factory=dict, repr=False)

    @property
    def size(self) -> int:
        return len(self.s.events)

    def satisfies(self, v: str, i: int) -> Lit:
        """e_i satisfies every property of ``v``."""
        if (v, i) not in self._cache:
            self._cache[(v, i)] = holds_for(self.pattern.property_of(v), v, self.s.events[i])
        return self._cache[(v, i)]

    def before(self, i: int, j: int) -> Lit:
        """``e_i.T < e_j.T``."""
        return self.s.events[i].ts < self.s.events[j].ts


@dataclass(frozen=True)
class NecessaryCondition:
    """A condition on windows: ``symbolic`` over a :class:`Window`, ``concrete`` over events."""

    name: str
    symbolic: Callable[[Window], Lit]
    concrete: Callable[[SESPattern, Sequence[Event]], bool]


def _condition4(w: Window) -> Lit:
    return w.size >= len(w.pattern.names)


def _condition5(w: Window) -> Lit:
    return disj(*(w.satisfies(v.name, 0) for v in w.pattern.sets[0]))


def _condition6(w: Window) -> Lit:
    return conj(*(disj(*(w.satisfies(v, i) for i in range(w.size))) for v in w.pattern.names))


def _condition7(w: Window) -> Lit:
    parts = []
    for before, after in itertools.pairwise(w.pattern.sets):
        for vi, vj in itertools.product(before, after):
            parts.append(disj(*(conj(w.satisfies(vi.name, i), w.satisfies(vj.name, j),
                                     w.before(i, j))
                                for i, j in itertools.product(range(w.size), repeat=2))))
    return conj(*parts)


#: Conditions 4--7 of seed 001 Thm 2, each with the reference's concrete check.
THEOREM_2: Mapping[str, NecessaryCondition] = {
    "4": NecessaryCondition("4", _condition4, thm2.condition4),
    "5": NecessaryCondition("5", _condition5, thm2.condition5),
    "6": NecessaryCondition("6", _condition6, thm2.condition6),
    "7": NecessaryCondition("7", _condition7, thm2.condition7),
}


def necessary_conditions_sound(pattern: SESPattern, *, schema: Schema | None = None,
                               bound: int = BOUND,
                               conditions: Mapping[str, NecessaryCondition] = THEOREM_2,
                               timeout_ms: int = TIMEOUT_MS) -> Result:
    """"Every window of ≤ ``bound`` events holding a match from its first event satisfies
    ``conditions``": proved up to the bound, or a window that violates one."""
    schema = schema or schema_for(pattern.conditions, pattern.window)
    claim = (f"every window of at most {bound} events that holds a match starting at its "
             f"first event satisfies conditions {', '.join(conditions)} (seed 001 Thm 2)")
    for n in range(1, bound + 1):
        s = sym_stream(schema, n, pattern.window)
        g = assignment(pattern.names, n)
        w = Window(pattern, s)
        verdicts = {name: c.symbolic(w) for name, c in conditions.items()}
        out = solve([*s.constraints, *g.constraints, g.bound(0), is_match(pattern, s, g),
                     *(s.within(0, j) for j in range(n)),
                     neg(conj(*verdicts.values()))], timeout_ms)
        if out.status == "unknown":
            return Unknown(claim, out.reason)
        if out.status == "sat" and out.model is not None:
            return _replayed(claim, pattern, conditions, verdicts, out.model, s, g)
    return Proved(claim, bound)


def _replayed(claim: str, pattern: SESPattern, conditions: Mapping[str, NecessaryCondition],
              verdicts: Mapping[str, Lit], model: z3.ModelRef, s: SymStream,
              g) -> Result:
    """The counterexample, if the reference agrees with Z3 on it."""
    window = stream_from(model, s)
    gamma = match_from(model, g)
    failed = [name for name, lit in verdicts.items() if not true_in(model, lit)]
    really = [name for name, c in conditions.items() if not c.concrete(pattern, window.events)]
    if gamma not in matches_starting_at(pattern, window, 0) or not failed or failed != really:
        return Unknown(claim, "the reference does not confirm Z3's window")
    return CounterExample(claim, window, gamma, f"violates condition(s) {', '.join(failed)}")
