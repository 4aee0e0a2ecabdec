"""Soundness of seed 001 Thm 2 (necessary match conditions 4--7) on bounded windows.

Proved for the paper's conditions; refuted, with a window the reference
confirms, for two deliberately strengthened (wrong) conditions.
"""

from __future__ import annotations

import itertools

from kleene.proofs.encode import conj, disj
from kleene.proofs.results import CounterExample, Proved
from kleene.proofs.ses.necessary import (
    THEOREM_2,
    NecessaryCondition,
    Window,
    necessary_conditions_sound,
)
from kleene.reference.ses.filtering import satisfies
from kleene.reference.ses.matching import matches_starting_at
from kleene.reference.ses.necessary import necessary_conditions
from kleene.reference.ses.pattern import SESPattern
from kleene.reference.ses.text import parse_ses

P1 = parse_ses("""PATTERN <{c, p+}, {b}>
WHERE c.L = 'C' AND p.L = 'P' AND b.L = 'B' AND c.ID = p.ID AND prev(p.V) < p.V
WITHIN 10""")

# b has no property: every event satisfies it, and ties are allowed within a set.
LOOSE = parse_ses("PATTERN <{a, b}, {c+}> WHERE a.V < c.V AND c.L != 'X' WITHIN 3")


def test_theorem_2_is_sound_up_to_the_bound() -> None:
    for p in (P1, LOOSE):
        r = necessary_conditions_sound(p, bound=5)
        assert isinstance(r, Proved) and r.bound == 5


def _with(name: str, condition: NecessaryCondition) -> dict[str, NecessaryCondition]:
    return {**THEOREM_2, name: condition}


def _one_more_event(w: Window) -> bool:
    return w.size >= len(w.pattern.names) + 1


def test_requiring_one_more_event_than_variables_is_refuted() -> None:
    """|W| ≥ m+1 is wrong: a window of exactly the match's m events."""
    wrong = NecessaryCondition("4'", _one_more_event,
                               lambda p, W: len(W) >= len(p.names) + 1)
    r = necessary_conditions_sound(P1, bound=5, conditions=_with("4'", wrong))
    assert isinstance(r, CounterExample) and r.note == "violates condition(s) 4'"
    assert len(r.stream) == len(P1.names)
    assert r.match in matches_starting_at(P1, r.stream, 0)
    assert all(necessary_conditions(P1, r.stream.events).values())   # Thm 2 itself holds


def _later_set_first(w: Window) -> object:
    """Wrong: some event of B2's variables lies strictly *before* one of B1's."""
    p = w.pattern
    return conj(*(disj(*(conj(w.satisfies(vj.name, j), w.satisfies(vi.name, i), w.before(j, i))
                        for i, j in itertools.product(range(w.size), repeat=2)))
                  for vi in p.sets[0] for vj in p.sets[1]))


def _later_set_first_concrete(p: SESPattern, W) -> bool:
    return all(any(satisfies(p, vj.name, ej) and satisfies(p, vi.name, ei) and ej.ts < ei.ts
                   for ei in W for ej in W)
               for vi in p.sets[0] for vj in p.sets[1])


def test_requiring_a_b2_event_before_a_b1_event_is_refuted() -> None:
    wrong = NecessaryCondition("7'", _later_set_first, _later_set_first_concrete)
    r = necessary_conditions_sound(P1, bound=5, conditions=_with("7'", wrong))
    assert isinstance(r, CounterExample) and r.note == "violates condition(s) 7'"
    assert r.match in matches_starting_at(P1, r.stream, 0)
    assert not _later_set_first_concrete(P1, r.stream.events)
