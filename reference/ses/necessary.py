"""Necessary match conditions: seed 001 Sec. 4.3.1, Theorem 2.

Let ``P = (B, Θ, τ)`` with ``B = <B1, ..., Bk>`` and variables v1, ..., vm. A
match window ``W = <e1, ..., en>`` that contains a match starting at e1
satisfies (quantified exactly as printed; ``Θp_v(e)``: e satisfies every
property of v, :func:`~kleene.reference.ses.filtering.satisfies`):

- (4) ``|W| ≥ m``;
- (5) ``∃v ∈ B1 (Θp_v(e1))``;
- (6) ``∀v ∈ {v1, ..., vm} ∃ei ∈ W (Θp_v(ei))``;
- (7) ``∀vi ∈ Bi, vj ∈ Bi+1 (∃ei, ej ∈ W (Θp_vi(ei) ∧ Θp_vj(ej) ∧ ei.T < ej.T))``,
  for every i (``.T`` is ``ts``; strict, as condition 2 of Def. 2).

A window that fails one of them need not be passed to A (a *candidate match
window* satisfies all four, Example 9). Theorem 3 (:mod:`.statistics`) shows
conditions 6 and 7 follow from the summary statistics. Under ties the first
event of a match is still bound to a variable of B1: every later set's events
are strictly later in ``ts``, so condition 5 keeps its meaning.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from kleene.reference.events import Event
from kleene.reference.ses.filtering import satisfies
from kleene.reference.ses.pattern import SESPattern

#: The numbers of the conditions of Thm 2, in the paper's numbering.
CONDITIONS = (4, 5, 6, 7)


def condition4(pattern: SESPattern, W: Sequence[Event]) -> bool:
    """(4) ``|W| ≥ m``: an event is bound at most once, and every variable binds one."""
    return len(W) >= len(pattern.names)


def condition5(pattern: SESPattern, W: Sequence[Event]) -> bool:
    """(5) ``∃v ∈ B1 (Θp_v(e1))``: the first event can be bound to a variable of B1."""
    return bool(W) and any(satisfies(pattern, v.name, W[0]) for v in pattern.sets[0])


def condition6(pattern: SESPattern, W: Sequence[Event]) -> bool:
    """(6) ``∀v ∃ei ∈ W (Θp_v(ei))``: every variable has an event in W."""
    return all(any(satisfies(pattern, v, e) for e in W) for v in pattern.names)


def condition7(pattern: SESPattern, W: Sequence[Event]) -> bool:
    """(7) for consecutive sets Bi, Bi+1, every vi ∈ Bi and vj ∈ Bi+1 have events
    ei, ej in W with ``ei.T < ej.T``."""
    return all(any(satisfies(pattern, vi.name, ei) and satisfies(pattern, vj.name, ej)
                   and ei.ts < ej.ts for ei in W for ej in W)
               for before, after in itertools.pairwise(pattern.sets)
               for vi in before for vj in after)


_CHECKS = {4: condition4, 5: condition5, 6: condition6, 7: condition7}


def necessary_conditions(pattern: SESPattern, W: Sequence[Event]) -> dict[int, bool]:
    """The truth of conditions 4–7 of Thm 2 on ``W``, keyed by their number."""
    return {n: _CHECKS[n](pattern, W) for n in CONDITIONS}


def is_candidate_window(pattern: SESPattern, W: Sequence[Event]) -> bool:
    """Whether ``W`` satisfies all necessary match conditions (Example 9)."""
    return all(necessary_conditions(pattern, W).values())
